"""Bounded mixed scales: let small islands grow where one island limits the
common scale (``max_scale_ratio``).

With one common scale, coverage is capped by whichever bound comes first:
the islands' total area (they cannot cover more than the target), or the
extent of the longest island (it cannot be wider than the target).  When the
extent comes first, a long island holds every other island small, and the
room it leaves stays empty.  Then the other islands grow, each by at most
``max_scale_ratio`` and never so far that it becomes the limit itself.  When
the area comes first, scales stay equal: growing some islands would only
shrink the common scale.  The growth stops where the islands would cover
``EXPECTED_FILL`` of the target.
"""
from __future__ import annotations

import math
from typing import List, Sequence

import numpy as np

__all__ = ["mixed_scales"]

#: share of the target islands are expected to cover at best: the area bound
#: of the common scale
EXPECTED_FILL = 0.8
#: turns tried for an island's smallest extent (rotation allowed)
EXTENT_TURNS = 36


def _extent(rings: Sequence[np.ndarray], turns: bool, aspect: float) -> float:
    """The island's smallest extent against a target of width/height
    ``aspect``: the larger of its width / aspect and its height, over the
    turns tried (only as given without rotation)."""
    pts = np.concatenate(rings)
    pts = pts - pts.mean(axis=0)
    angles = np.linspace(0, math.pi, EXTENT_TURNS, endpoint=False) if turns else np.zeros(1)
    c, s = np.cos(angles), np.sin(angles)
    x = np.outer(c, pts[:, 0]) - np.outer(s, pts[:, 1])
    y = np.outer(s, pts[:, 0]) + np.outer(c, pts[:, 1])
    sizes = np.maximum(np.ptp(x, axis=1) / aspect, np.ptp(y, axis=1))
    return float(sizes.min())


def mixed_scales(shapes: List[List[np.ndarray]], areas: np.ndarray, ratio: float, target_size: Sequence[float],
                 turns: bool) -> np.ndarray:
    """Per island its scale relative to the common one, from 1 to ``ratio``.

    ``shapes``: each island's rings; ``areas`` their areas;
    ``target_size``: the target's (width, height); ``turns``: whether
    islands may turn.
    """
    width, height = target_size
    total = float(np.sum(areas))
    if total <= 0 or ratio <= 1:
        return np.ones(len(shapes))
    by_area = math.sqrt(EXPECTED_FILL * width * height / total)
    # the scale at which each island spans the target
    by_extent = np.array([height / max(_extent(r, turns, width / height), 1e-300) for r in shapes])
    common = min(by_area, float(by_extent.min()))
    if common >= by_area:
        return np.ones(len(shapes))
    # the limiting islands keep their scale; the others share the room left
    # up to the expected fill, each no further than its own extent allows
    limiting = by_extent <= common * (1 + 1e-9)
    room = EXPECTED_FILL * width * height - common ** 2 * float(np.sum(areas[limiting]))
    rest = common ** 2 * float(np.sum(areas[~limiting]))
    by_room = math.sqrt(max(room, 0.0) / rest) if rest > 0 else 1.0
    grow = np.clip(np.minimum(by_room, by_extent / common), 1.0, ratio)
    grow[limiting] = 1.0
    return grow
