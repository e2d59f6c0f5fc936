"""UDIM tiles, texel density and the texel grid: the pieces of fixed-scale
multi-tile packing that are plain arithmetic (the placement itself is the C
engine's).

UDIM numbering: tile ``1001 + u + 10 * v`` covers ``[u, u + 1] x [v, v + 1]``
for ``u`` in 0..9 and ``v`` in 0..99.
"""
from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

import numpy as np

from . import _core
from ._faces import check_uvs, faces_csr
from .errors import InputError, whole
from .islands import Island, ring_areas

__all__ = ["pack_pow2_squares", "udim_origin", "udim_box", "off_tile", "udim_tile_of", "default_tiles", "texel_scales", "inflated_area",
           "tile_lower_bound", "snap_translations",
           "udim_tile_at", "closest_udim_tile", "FIRST_TILE", "LAST_TILE"]

MAX_TILES = 256          # the engine's limit on tiles in one packing
#: UDIM tile numbers: 10 columns of 100 rows, 1001 (u 0, v 0) to 2000 (u 9, v 99)
FIRST_TILE, LAST_TILE = 1001, 2000
DEFAULT_TILE_COUNT = 100  # 1001 .. 1100: ten rows of ten


def _is_udim(tile: object) -> bool:
    """A UDIM tile number: an integer (not a bool) from 1001 to 2000."""
    return (not isinstance(tile, (bool, np.bool_)) and isinstance(tile, (int, np.integer))
            and FIRST_TILE <= tile <= LAST_TILE)


def udim_origin(tile: int) -> Tuple[int, int]:
    """Lower-left corner ``(u, v)`` of UDIM tile ``tile`` (1001 .. 2000)."""
    if not _is_udim(tile):
        raise InputError(f"UDIM tile numbers run from {FIRST_TILE} to {LAST_TILE}, got {tile!r}", "tile")
    return (int(tile) - FIRST_TILE) % 10, (int(tile) - FIRST_TILE) // 10


def udim_box(tile: int) -> Tuple[float, float, float, float]:
    """The square of UDIM tile ``tile`` as ``(x0, y0, x1, y1)``."""
    u, v = udim_origin(tile)
    return (float(u), float(v), u + 1.0, v + 1.0)


def _tile_number(column: int, row: int) -> int:
    """The UDIM number of the tile in ``column`` (0..9) and ``row`` (0..99)."""
    return FIRST_TILE + column + 10 * row


def _grid_shape(grid: Tuple[int, int]) -> Tuple[int, int]:
    """A UV editor's tile grid ``(columns, rows)`` within UDIM's 10 by 100."""
    return max(1, min(int(grid[0]), 10)), max(1, min(int(grid[1]), 100))


def udim_tile_of(u: float, v: float) -> Optional[int]:
    """The UDIM tile holding the point ``(u, v)``, or None outside tiles 1001 .. 2000."""
    cu, cv = math.floor(u), math.floor(v)
    return _tile_number(cu, cv) if 0 <= cu < 10 and 0 <= cv < 100 else None


def off_tile(bboxes: np.ndarray, any_tile: bool = False, tolerance: float = 1e-9) -> np.ndarray:
    """Indices of the ``(x0, y0, x1, y1)`` boxes that reach outside the 0..1
    tile (``any_tile``: that lie in no single UDIM tile of 1001 .. 2000),
    by more than ``tolerance``."""
    b = np.asarray(bboxes, dtype=np.float64).reshape(-1, 4)
    if not any_tile:
        return np.flatnonzero((b[:, 0] < -tolerance) | (b[:, 1] < -tolerance)
                              | (b[:, 2] > 1 + tolerance) | (b[:, 3] > 1 + tolerance))
    lo, hi = np.floor(b[:, :2] + tolerance), np.floor(b[:, 2:] - tolerance)
    inside = (lo == hi).all(axis=1) & (lo[:, 0] >= 0) & (lo[:, 0] < 10) & (lo[:, 1] >= 0) & (lo[:, 1] < 100)
    return np.flatnonzero(~inside)


def default_tiles(count: int = DEFAULT_TILE_COUNT) -> Tuple[int, ...]:
    """The first ``count`` UDIM tiles in order: 1001, 1002, ... in rows of 10."""
    return tuple(range(FIRST_TILE, FIRST_TILE + count))


def checked_tiles(tiles: Optional[Sequence[int]]) -> Tuple[int, ...]:
    """Caller-given tiles as a tuple (validated: UDIM numbers, no repeats,
    at most ``MAX_TILES``); the default list when None."""
    if tiles is None:
        return default_tiles()
    if isinstance(tiles, (str, bytes)) or not isinstance(tiles, Sequence) and not isinstance(tiles, np.ndarray):
        raise InputError(f"tiles must be a sequence of UDIM tile numbers, got {tiles!r}", "tiles")
    for t in tiles:
        if not _is_udim(t):
            raise InputError(f"tiles: UDIM tile numbers run from {FIRST_TILE} to {LAST_TILE}, got {t!r}", "tiles")
    out = tuple(int(t) for t in tiles)
    if not out:
        raise ValueError("tiles must name at least one UDIM tile")
    if len(out) > MAX_TILES:
        raise ValueError(f"at most {MAX_TILES} tiles can be packed at once, got {len(out)}")
    if len(set(out)) != len(out):
        raise ValueError(f"tiles repeats a tile: {list(out)}")
    return out


def pack_pow2_squares(sizes, layer_size: int) -> np.ndarray:
    """Place power-of-two squares into square layers with zero waste.

    ``sizes`` are the squares' sides and ``layer_size`` the layer's side, all
    powers of two (in texels, say).  Squares are placed largest first along
    the Z-order (Morton) curve, so every layer except the last is completely
    full and no square straddles another: linear time after a counting sort.

    Returns an ``(n, 3)`` int64 array of ``(x, y, layer)`` per square (its
    lower-left corner and layer number).
    """
    arr = np.asarray(sizes)
    if arr.ndim != 1:
        raise ValueError(f"sizes must be a 1-D sequence, got shape {arr.shape}")
    if arr.size and not (np.issubdtype(arr.dtype, np.integer) or
                         (np.issubdtype(arr.dtype, np.floating) and np.all(arr == np.round(arr)))):
        raise ValueError("sizes must be whole numbers")
    xyl, _ = _core.pack_pow2(arr.astype(np.int64), whole(layer_size, "layer_size", 1, 2**62))
    return xyl


def texel_scales(islands: Sequence[Island], uvs: np.ndarray, faces, positions, position_faces,
                 density: float, texture_size: Tuple[int, int]) -> np.ndarray:
    """Per island the scale that gives it ``density`` texels per unit of 3D
    length: ``density / (texels * sqrt(uv area / 3D area))``, with texels
    the geometric mean of the texture's sides.  Islands with no 3D or UV
    area take the mesh's mean ratio."""
    pos = check_uvs(positions, "positions", columns=3)
    start, idx = faces_csr(faces, len(uvs))
    pstart, pidx = faces_csr(position_faces, len(pos), "mesh_faces")
    if not np.array_equal(start, pstart):
        raise ValueError("position faces must have the same corners as the UV faces")
    uv_area = _face_areas(np.column_stack([uvs, np.zeros(len(uvs))]), start, idx)
    xyz_area = _face_areas(pos, pstart, pidx)
    if not np.isfinite(xyz_area).all():
        bad = int(np.flatnonzero(~np.isfinite(xyz_area))[0])
        raise ValueError(f"face {bad} has non-finite positions: texel density needs every face's 3D corners")
    total_uv, total_xyz = float(uv_area.sum()), float(xyz_area.sum())
    if not (total_uv > 0 and total_xyz > 0):
        raise ValueError("texel density needs faces with both UV area and 3D area")
    texels = math.sqrt(texture_size[0] * texture_size[1])
    mean_ratio = math.sqrt(total_uv / total_xyz)
    out = np.empty(len(islands))
    for k, isl in enumerate(islands):
        a_uv, a_xyz = float(uv_area[isl.faces].sum()), float(xyz_area[isl.faces].sum())
        ratio = math.sqrt(a_uv / a_xyz) if a_uv > 0 and a_xyz > 0 else mean_ratio
        out[k] = density / (texels * ratio)
    return out


def _face_areas(points: np.ndarray, start: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Area of each face (fan triangulation, 3D vector area)."""
    n_faces = start.size - 1
    counts = np.diff(start)
    first = np.repeat(idx[start[:-1]], counts - 2)
    face = np.repeat(np.arange(n_faces), counts - 2)
    # corner j of the fan: indices start+1 .. start+k-2 (b) and +1 (c)
    offs = np.arange(int((counts - 2).sum())) - np.repeat(np.cumsum(counts - 2) - (counts - 2), counts - 2)
    b = idx[np.repeat(start[:-1], counts - 2) + 1 + offs]
    c = idx[np.repeat(start[:-1], counts - 2) + 2 + offs]
    p0, p1, p2 = points[first], points[b], points[c]
    cross = np.cross(p1 - p0, p2 - p0)
    vec = np.zeros((n_faces, 3))
    np.add.at(vec, face, cross)
    return 0.5 * np.linalg.norm(vec, axis=1)


def inflated_area(rings: List[np.ndarray], radius: float) -> float:
    """Area of ``rings`` grown by ``radius`` (Minkowski sum with a regular
    octagon inscribed in the disk, so never more than the true grown area)."""
    if radius <= 0:
        return float(ring_areas(rings).sum())
    angles = np.arange(8) * (math.pi / 4)
    octagon = np.column_stack([np.cos(angles), np.sin(angles)]) * radius
    return float(ring_areas(_core.nfp(rings, [octagon])).sum())


def tile_lower_bound(areas: Sequence[float], margin: float, padding: float,
                     size: Tuple[float, float]) -> int:
    """No layout uses fewer tiles than ``ceil(sum(inflated areas) / room)``:
    islands grown by ``margin / 2`` do not overlap and lie in a tile of
    ``size`` shrunk by ``padding`` and grown by ``margin / 2``."""
    room = (size[0] - 2 * padding + margin) * (size[1] - 2 * padding + margin)
    need = float(np.sum(areas)) / room
    return max(1, math.ceil(need * (1 - 1e-9)))


def snap_translations(translations: np.ndarray, grid: Tuple[float, float],
                      origin: Tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """Round translations to the nearest multiple of ``grid`` (per axis),
    measured from ``origin``: each moves at most half a grid step per axis."""
    g = np.asarray(grid, dtype=np.float64)
    o = np.asarray(origin, dtype=np.float64)
    return np.round((translations - o) / g) * g + o


def udim_tile_at(u: float, v: float, grid: Optional[Tuple[int, int]] = None) -> int:
    """The UDIM tile holding UV point ``(u, v)``, clamped to ``grid``
    (``(columns, rows)``; None: 10 columns and 100 rows)."""
    cols, rows = (10, 100) if grid is None else _grid_shape(grid)
    iu = min(max(math.floor(u), 0), cols - 1)
    iv = min(max(math.floor(v), 0), rows - 1)
    return _tile_number(iu, iv)


def closest_udim_tile(point: Tuple[float, float], tiles: Sequence[int] = (),
                      grid: Optional[Tuple[int, int]] = None) -> int:
    """The UDIM tile Blender's Pack to Closest UDIM picks for a selection
    centred on ``point`` (``uvedit_pack_islands_multi``): without a UV
    editor (``grid`` None) tile 1001; the grid tile holding the point when
    it lies inside the UV editor's tile grid (``(columns, rows)``), or the
    image's tile holding it (``tiles``); else whichever is nearer by its
    centre: the nearest image tile, or the grid tile the point is clamped
    to (the grid's wins a tie)."""
    if grid is None:
        return FIRST_TILE
    u, v = float(point[0]), float(point[1])
    cols, rows = _grid_shape(grid)
    if 0 < u < cols and 0 < v < rows:
        return udim_tile_at(u, v, grid)
    here = udim_tile_of(u, v)
    if here is not None and here in tiles:
        return here
    on_grid = udim_tile_at(u, v, grid)

    def distance(number: int) -> float:
        x0, y0, _, _ = udim_box(number)
        return (x0 + 0.5 - u) ** 2 + (y0 + 0.5 - v) ** 2

    nearest = min(sorted(tiles), key=distance) if tiles else on_grid
    return nearest if distance(nearest) < distance(on_grid) else on_grid
