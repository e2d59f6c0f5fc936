"""Polygon targets: pack into a region of rings, keep out of its holes.

A region is a list of rings: outer rings counter-clockwise, holes
(keep-out zones) clockwise, several outer rings allowed.  The engine fills a
rectangle, so a region becomes a rectangle a little larger than its box plus
obstacles that cover everything else: one frame (that rectangle, with each
outer ring cut out of it) and one obstacle per hole.  The engine keeps every
island ``margin`` away from obstacles, as from each other; a ``padding``
wider than the margin grows the obstacles by the difference (a Minkowski sum
with a polygon around the disk, so the region shrinks by at least that).  A
narrower padding is not honoured below the margin: the engine keeps one
distance from every obstacle, and no smaller obstacle keeps a padding below
the margin exactly at a convex corner of a hole (a hole shrunk by the
difference lets islands as close as the margin less 1.41 times that
difference to its corners).  So islands keep max(padding, margin) from the
region's boundary.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import List, Sequence, Tuple
from xml.etree import ElementTree

import numpy as np

from . import _core
from .islands import ring_areas

__all__ = ["Region", "is_rectangle", "load_region", "oriented", "parse_region"]

#: the frame's border around the region's box, a share of the box's size
FRAME_BORDER = 0.01
#: sides of the polygon standing in for the disk that grows obstacles; the
#: polygon circumscribes the disk, so the growth is at least the radius
DISK_SIDES = 32


class Region:
    """A polygon target: its rings, bounding box and area."""

    def __init__(self, rings: List[np.ndarray]) -> None:
        self.rings = rings
        pts = np.concatenate(rings)
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        self.box: Tuple[float, float, float, float] = (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
        self.area = float(ring_areas(rings).sum())
        # the rectangle the engine fills: the box and a border the frame
        # covers, so that no ring of the region touches the frame's outside
        # (the engine counts the frame as taken: it lies inside)
        border = FRAME_BORDER * max(hi[0] - lo[0], hi[1] - lo[1])
        self.frame_box: Tuple[float, float, float, float] = (
            float(lo[0] - border), float(lo[1] - border), float(hi[0] + border), float(hi[1] + border))

    def scaled(self, aspect: Tuple[float, float]) -> "Region":
        """The region in texel space (see ``uvnest.options.ResolvedOptions.aspect``)."""
        return Region([r * np.asarray(aspect) for r in self.rings])

    def obstacles(self, grow: float) -> List[List[np.ndarray]]:
        """Polygons (lists of rings) covering the box less the region,
        grown by at least ``grow`` >= 0."""
        x0, y0, x1, y1 = self.frame_box
        frame = [np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])]
        areas = ring_areas(self.rings)
        holes = [r for r, a in zip(self.rings, areas) if a < 0]
        polys = [frame + [r[::-1] for r, a in zip(self.rings, areas) if a > 0]] + [[r[::-1]] for r in holes]
        if grow <= 0:
            return polys
        # growing the frame only shrinks its holes: its outer ring stays
        grown = _grown(polys[0], grow)
        return [frame + [r for r in grown if ring_areas([r])[0] < 0]] + [_grown(p, grow) for p in polys[1:]]


def _grown(rings: List[np.ndarray], by: float) -> List[np.ndarray]:
    """``rings`` grown by at least ``by``: the Minkowski sum with a regular
    polygon around the disk of radius ``by`` (the no-fit polygon of a
    centred, symmetric piece is that sum)."""
    k = np.arange(DISK_SIDES)
    radius = by / math.cos(math.pi / DISK_SIDES) * (1 + 1e-9)
    disk = radius * np.column_stack((np.cos(2 * math.pi * k / DISK_SIDES), np.sin(2 * math.pi * k / DISK_SIDES)))
    return [np.asarray(r, dtype=np.float64) for r in _core.nfp(rings, [disk], None)]


def _ring(value, k: int) -> np.ndarray:
    try:
        if np.iscomplexobj(value):  # float64 would drop the imaginary parts silently
            raise TypeError
        ring = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"target ring {k} is not an array of (u, v) points") from None
    if ring.ndim != 2 or ring.shape[1] != 2 or ring.shape[0] < 3:
        raise ValueError(f"target ring {k} must be an (n, 2) array with n >= 3, got shape {ring.shape}")
    if not np.isfinite(ring).all():
        raise ValueError(f"target ring {k} has NaN or infinite coordinates")
    return ring


def is_rectangle(target) -> bool:
    """Whether ``target`` is given as ``(x0, y0, x1, y1)``, not as rings."""
    try:
        # rings of different lengths are no array at all (numpy refuses them)
        if np.iscomplexobj(target):  # refused as rings, not cut to its real part
            return False
        arr = np.asarray(target, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return arr.ndim <= 1


def parse_region(target: Sequence) -> Region:
    """A :class:`Region` from rings (outer counter-clockwise, holes
    clockwise; a single ``(n, 2)`` array is one outer ring)."""
    one_ring = len(target) > 0 and np.ndim(target[0]) == 1   # a list of points, not of rings
    raw = [target] if one_ring else list(target)
    rings = [_ring(r, k) for k, r in enumerate(raw)]
    if not rings:
        raise ValueError("target has no rings")
    areas = ring_areas(rings)
    if (areas == 0).any():
        raise ValueError(f"target ring {int(np.flatnonzero(areas == 0)[0])} has no area")
    region = Region(rings)
    if not region.area > 0:
        raise ValueError("target rings enclose no area: outer rings go counter-clockwise, holes clockwise")
    return region


def oriented(rings: List[np.ndarray]) -> List[np.ndarray]:
    """``rings`` turned by how deep each lies in the others: at an even
    depth an outer ring (counter-clockwise), at an odd one a hole
    (clockwise), whatever their winding was (SVG editors keep none)."""
    out = []
    for k, ring in enumerate(rings):
        depth = sum(_inside(ring[0], other) for j, other in enumerate(rings) if j != k)
        want = 1.0 if depth % 2 == 0 else -1.0
        out.append(ring if np.sign(ring_areas([ring])[0]) == want else ring[::-1])
    return out


def _inside(p: np.ndarray, ring: np.ndarray) -> bool:
    """Whether point ``p`` lies inside ``ring`` (even-odd rule)."""
    x, y = p
    a, b = ring, np.roll(ring, -1, axis=0)
    crosses = (a[:, 1] > y) != (b[:, 1] > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        at = a[:, 0] + (y - a[:, 1]) * (b[:, 0] - a[:, 0]) / (b[:, 1] - a[:, 1])
    return bool(np.count_nonzero(crosses & (x < at)) % 2)


def load_region(path: str) -> List[np.ndarray]:
    """Region rings from a file: JSON (a list of rings, each a list of
    ``[u, v]`` points) or SVG (the ``d`` of every ``<path>``: M, L, H, V and
    Z commands, absolute or relative; the viewBox, else width and height,
    maps onto the 0..1 tile with v up).  Rings are oriented by nesting."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        if Path(path).suffix.lower() == ".svg":
            rings = _svg_rings(text)
        else:
            try:
                rings = [np.asarray(r, dtype=np.float64) for r in json.loads(text)]
            except (ValueError, TypeError) as e:
                raise ValueError(f"not a JSON list of rings of [u, v] points ({e})") from None
        if not rings:
            raise ValueError("no rings")
        return parse_region(oriented([_ring(r, k) for k, r in enumerate(rings)])).rings
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise ValueError(f"{path}: {e}") from None


_SVG_TOKEN = re.compile(r"[MmLlHhVvZz]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _svg_rings(text: str) -> List[np.ndarray]:
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as e:
        raise ValueError(f"not an SVG file: {e}") from None
    box = [float(v) for v in root.get("viewBox", "").replace(",", " ").split()] or None
    if box is None:
        width, height = (float(re.sub(r"[a-z%]+$", "", root.get(a, "1"))) for a in ("width", "height"))
        box = [0.0, 0.0, width, height]
    if len(box) != 4 or box[2] <= 0 or box[3] <= 0:
        raise ValueError("the SVG's viewBox (or width and height) must give a positive size")
    rings: List[np.ndarray] = []
    for element in root.iter():
        if element.tag.rsplit("}", 1)[-1] == "path":
            rings += _path_rings(element.get("d", ""))
    return [np.column_stack(((r[:, 0] - box[0]) / box[2], 1.0 - (r[:, 1] - box[1]) / box[3])) for r in rings]


def _path_rings(d: str) -> List[np.ndarray]:
    """The closed polylines of an SVG path (M, L, H, V, Z; curves are refused)."""
    if re.search(r"[AaCcQqSsTt]", d):
        raise ValueError("SVG paths with curves or arcs are not read: flatten them to lines first")
    rings, ring = [], []
    x = y = 0.0
    command = ""
    tokens = _SVG_TOKEN.findall(d)
    i = 0
    while i < len(tokens):
        if tokens[i].isalpha():
            command = tokens[i]
            i += 1
            if command in "Zz":
                if len(ring) >= 3:
                    rings.append(np.array(ring))
                x, y = ring[0] if ring else (x, y)
                ring = []
                continue
        relative = command.islower()
        kind = command.upper()
        need = 1 if kind in "HV" else 2
        if kind not in "MLHV" or i + need > len(tokens):
            raise ValueError(f"unreadable SVG path data near {' '.join(tokens[i:i + 3])!r}")
        values = [float(t) for t in tokens[i:i + need]]
        i += need
        if kind == "H":
            x = x + values[0] if relative else values[0]
        elif kind == "V":
            y = y + values[0] if relative else values[0]
        else:
            x, y = (x + values[0], y + values[1]) if relative else (values[0], values[1])
        if kind == "M":
            if len(ring) >= 3:
                rings.append(np.array(ring))
            ring = []
            command = "l" if relative else "L"   # later pairs are lines
        ring.append((x, y))
    if len(ring) >= 3:
        rings.append(np.array(ring))
    return rings
