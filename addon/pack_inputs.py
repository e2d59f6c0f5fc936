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

__all__ = ["in_texel_space", "island_groups", "locked_islands", "min_area_rectangles", "option_arguments", "packing_shape",
           "packing_shapes"]


def min_area_rectangles(outlines: Sequence[List[np.ndarray]]) -> np.ndarray:
    """Per outline (an island's rings) the smallest-area rectangle holding
    it, at any angle, as 4 corners counter-clockwise: ``(N, 4, 2)``.  One of
    its sides lies on an edge of the convex hull (Freeman and Shapira), so
    every hull edge's direction is tried, for the hulls of one vertex count
    at once (100,000 triangles: one batch).  Each side is pushed out by a
    few units in the last place of the coordinates, more than the rounding
    of the projections and of the corners, so it holds every point."""
    hulls = [_core.hull(rings)[0] for rings in outlines]
    out = np.empty((len(hulls), 4, 2))
    counts = np.array([len(h) for h in hulls], dtype=np.int64)
    for p in np.unique(counts):
        which = np.flatnonzero(counts == p)
        # a few million projections at a time (a hull of P vertices has P^2)
        step = max(1, RECT_BATCH // max(1, int(p) * int(p)))
        for b in range(0, len(which), step):
            part = which[b:b + step]
            out[part] = _rectangles_of_hulls(np.stack([hulls[i] for i in part]))
    # no area (a segment, a point, whose hull may be NaN): the box as given
    side = np.linalg.norm(out[:, 1] - out[:, 0], axis=1) * np.linalg.norm(out[:, 3] - out[:, 0], axis=1)
    for i in np.flatnonzero(~(side > 0)):
        out[i] = _box_as_given(outlines[i])
    return out


def _box_as_given(rings: List[np.ndarray]) -> np.ndarray:
    """The bounding box of ``rings`` as 4 corners counter-clockwise."""
    pts = np.concatenate(rings)
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])


#: Projections computed at once by :func:`min_area_rectangles`.
RECT_BATCH = 1 << 21


def _rectangles_of_hulls(hull: np.ndarray) -> np.ndarray:
    """:func:`min_area_rectangles` of ``(M, P, 2)`` hulls of P vertices (a
    huge hull: its edges a batch at a time)."""
    edges = np.roll(hull, -1, axis=1) - hull
    length = np.hypot(edges[..., 0], edges[..., 1])
    ux = edges / np.where(length > 0, length, 1.0)[..., None]    # (M, P, 2) side directions
    uy = np.stack([-ux[..., 1], ux[..., 0]], axis=-1)
    span = np.empty((hull.shape[0], hull.shape[1], 4))            # per edge: min/max along ux, uy
    step = max(1, RECT_BATCH // (hull.shape[0] * hull.shape[1]))
    for a in range(0, hull.shape[1], step):
        pu = np.einsum("mek,mpk->mep", ux[:, a:a + step], hull)  # (M, edges, P points)
        pv = np.einsum("mek,mpk->mep", uy[:, a:a + step], hull)
        span[:, a:a + step] = np.stack([pu.min(2), pu.max(2), pv.min(2), pv.max(2)], axis=-1)
    area = (span[..., 1] - span[..., 0]) * (span[..., 3] - span[..., 2])
    area[length == 0] = np.inf                                    # no direction
    e = np.argmin(area, axis=1)
    rows = np.arange(len(hull))
    slack = 8 * np.finfo(np.float64).eps * (np.abs(hull).max(axis=(1, 2)) + 1e-300)
    u0, u1, v0, v1 = (span[rows, e, c] + sign * slack for c, sign in enumerate((-1, 1, -1, 1)))
    ex, ey = ux[rows, e], uy[rows, e]                             # (M, 2)
    corners = [(u0, v0), (u1, v0), (u1, v1), (u0, v1)]
    return np.stack([u[:, None] * ex + v[:, None] * ey for u, v in corners], axis=1)


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
    return packing_shapes([isl], shape, turns)[0]


def packing_shapes(islands: Sequence[Island], shape: str, turns: bool = False) -> List[Tuple[List[np.ndarray], float]]:
    """:func:`packing_shape` of each island (the smallest rectangles of
    shape box with ``turns`` computed together)."""
    rects = min_area_rectangles([isl.outline for isl in islands]) if shape == "box" and turns else None
    out = []
    for j, isl in enumerate(islands):
        area = isl.area if isl.area > 0 else float(abs(ring_areas(isl.outline).sum()))
        area = max(area, float(np.finfo(np.float64).tiny))
        if rects is not None:
            out.append(([rects[j]], area))
        elif shape == "convex":
            out.append((_core.hull(isl.outline), area))
        elif shape == "box":
            out.append(([_box_as_given(isl.outline)], area))
        else:
            out.append((isl.outline, area))
    return out


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
