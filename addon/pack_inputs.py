"""The packer's inputs as the engine takes them: the shape an island packs
as, islands in texel space, locked islands and affinity groups from their
per-face forms, and the options among a call's arguments (see
:class:`uvnest.packing.Packer`)."""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from . import _core
from .errors import InputError
from .islands import Island, ring_areas
from .options import OPTIONS

__all__ = ["in_texel_space", "island_groups", "locked_islands", "option_arguments", "packing_shape"]


def min_area_rectangle(rings: List[np.ndarray]) -> np.ndarray:
    """The smallest-area rectangle holding ``rings`` (4 corners,
    counter-clockwise), at any angle: one of its sides lies on an edge of
    the rings' convex hull (Freeman and Shapira), so every hull edge's
    direction is tried.  It holds every point: each side is pushed out by a
    few units in the last place of the coordinates, more than the rounding
    of the projections and of the corners."""
    hull = _core.hull(rings)[0]
    edges = np.roll(hull, -1, axis=0) - hull
    length = np.hypot(edges[:, 0], edges[:, 1])
    if not np.any(length > 0):   # a point: its (degenerate) box
        return np.repeat(hull[:1], 4, axis=0)
    ux = edges[length > 0] / length[length > 0, None]   # (E, 2) side directions
    uy = np.column_stack([-ux[:, 1], ux[:, 0]])
    pu, pv = ux @ hull.T, uy @ hull.T                    # (E, P) projections
    area = (pu.max(1) - pu.min(1)) * (pv.max(1) - pv.min(1))
    e = int(np.argmin(area))
    slack = 8 * np.finfo(np.float64).eps * (float(np.abs(hull).max()) + 1e-300)
    u0, u1 = pu[e].min() - slack, pu[e].max() + slack
    v0, v1 = pv[e].min() - slack, pv[e].max() + slack
    return np.array([u * ux[e] + v * uy[e] for u, v in ((u0, v0), (u1, v0), (u1, v1), (u0, v1))])


def packing_shape(isl: Island, shape: str, turns: bool = False) -> Tuple[List[np.ndarray], float]:
    """The outline the engine packs (it holds every UV of the island, needles
    and zero-area faces too: see ``uvnest.islands``), and the area the
    engine counts (the island's, or the outline's when it has none: a strip
    of a tiny segment far from the origin can round to no area in floats,
    and the engine needs some).  Shape box: the island's bounding box as
    given, or with ``turns`` (islands may turn to any angle) its
    smallest-area bounding rectangle, which the engine turns upright (its
    base orientation): at a random angle a thin strip's box is many times
    its area."""
    area = isl.area if isl.area > 0 else float(abs(ring_areas(isl.outline).sum()))
    area = max(area, float(np.finfo(np.float64).tiny))
    if shape == "convex":
        return _core.hull(isl.outline), area
    if shape == "box" and turns:
        return [min_area_rectangle(isl.outline)], area
    if shape == "box":
        pts = np.concatenate(isl.outline)
        (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
        return [np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])], area
    return isl.outline, area


def in_texel_space(isl: Island, aspect: Tuple[float, float]) -> Island:
    """``isl`` in texel space (see ``uvnest.options.ResolvedOptions.aspect``)."""
    ax, ay = aspect
    x0, y0, x1, y1 = isl.bbox
    return dataclasses.replace(isl, outline=[r * aspect for r in isl.outline], area=isl.area * ax * ay,
                               bbox=(x0 * ax, y0 * ay, x1 * ax, y1 * ay))


def locked_islands(locked, islands: List[Island], n_faces: int) -> np.ndarray:
    """Boolean mask over islands from a face mask or island indices."""
    mask = np.zeros(len(islands), dtype=bool)
    if locked is None:
        return mask
    arr = np.asarray(locked)
    if arr.dtype == bool:
        if arr.shape != (n_faces,):
            raise InputError(f"locked as a mask must have one entry per face ({n_faces}), got {arr.shape}", "locked")
        for isl in islands:
            mask[isl.index] = bool(arr[isl.faces].any())
        return mask
    if arr.size == 0:
        return mask
    if not np.issubdtype(arr.dtype, np.integer):
        raise InputError(f"locked must be a boolean mask over faces or integer island indices, got {arr.dtype} "
                         "values", "locked")
    idx = arr.astype(np.int64).reshape(-1)
    if idx.min() < 0 or idx.max() >= len(islands):
        raise InputError(f"locked island index out of range 0..{len(islands) - 1}", "locked")
    mask[idx] = True
    return mask


def _group_codes(groups, n_faces: int) -> Tuple[Sequence[Any], np.ndarray]:
    """The distinct keys of ``groups`` and each face's key number: sorted
    for numbers and strings, in order of first use for other hashable keys
    (objects, or numbers and strings mixed, which numpy would turn into
    strings)."""
    try:
        arr = np.asarray(groups)
    except ValueError:
        arr = np.empty(0, dtype=object)
    if arr.ndim != 1 or arr.shape[0] != n_faces:
        raise InputError(f"groups must have one key per face ({n_faces}), got shape {arr.shape}", "groups")
    if arr.dtype.kind in "biuf" or (arr.dtype.kind == "U" and (isinstance(groups, np.ndarray)
                                                               or all(isinstance(k, str) for k in groups))):
        keys, codes = np.unique(arr, return_inverse=True)
        return keys, codes.reshape(-1)
    number: Dict[Any, int] = {}
    try:
        codes = np.fromiter((number.setdefault(k, len(number)) for k in groups), dtype=np.int64, count=n_faces)
    except TypeError:
        raise InputError("groups must hold one hashable key per face", "groups") from None
    return list(number), codes


def island_groups(groups, moving: List[Island], n_faces: int) -> Tuple[list, np.ndarray]:
    """Affinity group keys and per moving island its group (the key most of
    its faces have), -1 without groups."""
    if groups is None:
        return [], np.full(len(moving), -1, dtype=np.int64)
    keys, codes = _group_codes(groups, n_faces)
    of = np.array([int(np.bincount(codes[isl.faces]).argmax()) for isl in moving], dtype=np.int64)
    used, of = np.unique(of, return_inverse=True)
    return [keys[k].item() if hasattr(keys[k], "item") else keys[k] for k in used], of.reshape(-1)


def option_arguments(arguments: Dict[str, Any]) -> Dict[str, Any]:
    """The options among a call's ``arguments`` (its ``locals()``): every
    name of :data:`uvnest.options.OPTIONS` is a keyword of ``pack`` and
    ``Packer`` (a KeyError here at once if one were left out)."""
    return {name: arguments[name] for name in OPTIONS}
