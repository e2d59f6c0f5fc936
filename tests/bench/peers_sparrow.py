"""sparrow (PyPI ``spyrrow`` 0.9.0, the Python binding of the sparrow strip packer) as a benchmark peer.

sparrow solves strip packing: every item in a strip of fixed height and the
smallest width it can find.  The peer asks for a strip of height 1 (the
tile's side) and reads the width W of the layout it returns.  That layout,
scaled by ``1 / max(1, W)``, lies in the unit tile; its coverage is then
``area / max(1, W)**2``, and on the puzzles (whose pieces fill the unit tile
exactly) the score against the optimum is ``min(1, 1 / W)**2``.

Items are the islands' outlines (shapely unions of their faces, exterior
rings only: sparrow has no holes), each free to turn
(``allowed_orientations=None``) or kept as given (``[0.0]``) as the model
says; no margin (``min_items_separation`` is None), so this peer runs on the
puzzles (margin 0) only.  One worker (``num_workers=1``), the whole time
budget as ``total_computation_time`` (whole seconds: 80 % exploration, 20 %
compression), a fixed seed.  sparrow turns each item about the origin of
its input coordinates and then translates it; the peer applies the same
transform to the island's UVs, so the checker sees the layout on the
model's own vertices.
"""
from __future__ import annotations

import math
import time
from typing import Dict, List

import numpy as np
import shapely

from .checker import analyse
from .common import Model, PackOutcome


class SparrowUnavailable(RuntimeError):
    """``spyrrow`` is not installed."""


def _outlines(model: Model) -> List[np.ndarray]:
    """Each island's exterior ring (the largest part of a multi-part union), without the repeated point."""
    rings = []
    for poly in analyse(model).input_polys:
        if isinstance(poly, shapely.MultiPolygon):
            poly = max(poly.geoms, key=lambda p: p.area)
        rings.append(np.asarray(poly.exterior.coords)[:-1])
    return rings


def pack_with_sparrow(model: Model, time_limit: float = 10.0, seed: int = 0) -> PackOutcome:
    """One sparrow run on ``model`` (margin 0), as a layout in the unit tile (see the module docstring)."""
    try:
        import spyrrow
    except ImportError as exc:
        raise SparrowUnavailable(f"spyrrow is not installed: {exc!r}") from exc
    isl = analyse(model)
    rings = _outlines(model)
    orientations = None if model.rotation == "any" else [0.0]
    items = [spyrrow.Item(str(k), [tuple(p) for p in ring], demand=1, allowed_orientations=orientations)
             for k, ring in enumerate(rings)]
    instance = spyrrow.StripPackingInstance("uvnest-bench", strip_height=1.0, items=items)
    config = spyrrow.StripPackingConfig(early_termination=False, total_computation_time=max(1, round(time_limit)),
                                        num_workers=1, seed=seed)
    t0 = time.perf_counter()
    solution = instance.solve(config)
    wall = time.perf_counter() - t0
    shrink = 1.0 / max(1.0, float(solution.width))
    uvs = model.uvs.copy()
    # the UV indices of each island (islands here never share an index: they are separate pieces)
    corner_island = np.repeat(isl.face_island, model.face_sizes)
    placed: Dict[int, object] = {int(p.id): p for p in solution.placed_items}
    for k, p in placed.items():
        idx = np.unique(model.face_idx[corner_island == k])
        a = math.radians(p.rotation)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        uvs[idx] = (model.uvs[idx] @ rot.T + np.asarray(p.translation)) * shrink
    return PackOutcome("sparrow", model.name, uvs, wall, times=[wall],
                       info={"strip_width": float(solution.width), "density": float(solution.density),
                             "score_bound": min(1.0, 1.0 / float(solution.width)) ** 2})
