"""Seeded synthetic island sets for scaling runs (N = 10 ... 10,000 islands).

Each set mixes the shapes that make UV packing hard:

* concave: L and U shapes and random star polygons (share ``concave``),
* holed: square frames and polygonal rings (``holed``),
* thin: long strips made of a row of quads (``thin``),
* tiny: any of the above shrunk a thousand-fold in area (``tiny``),
* the rest convex: rectangles and random convex polygons.

Island areas follow a log-normal distribution (many small, few large), and
every island gets a random rotation.  Islands are triangulated with shapely's
constrained Delaunay triangulation (strips stay quads), faces of one island
share UV indices, and the islands are laid out on a grid so that none overlap
in the input.  Everything is drawn from ``numpy.random.default_rng(seed)``, so
a seed gives the same set on every machine.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Tuple

import numpy as np
import shapely

from .common import Model

#: Share of each island kind; the remainder is convex.
MIX: Dict[str, float] = {"concave": 0.30, "holed": 0.15, "thin": 0.15, "tiny": 0.10}
#: Sigma of the log-normal area distribution (in log space).
AREA_SIGMA = 1.0
#: Area factor of tiny islands.
TINY_FACTOR = 1e-3
#: Sizes of the scaling sets.
SCALING_SIZES = (10, 100, 1000, 10000)

Shape = Tuple[shapely.Polygon, bool]  # (unit-area-ish outline, build as a quad strip)


def _l_shape(rng: np.random.Generator) -> Shape:
    a, b = rng.uniform(0.25, 0.6, size=2)
    return shapely.Polygon([(0, 0), (1, 0), (1, a), (b, a), (b, 1), (0, 1)]), False


def _u_shape(rng: np.random.Generator) -> Shape:
    wall, depth = rng.uniform(0.15, 0.35), rng.uniform(0.4, 0.85)
    return shapely.Polygon([(0, 0), (1, 0), (1, 1), (1 - wall, 1), (1 - wall, 1 - depth),
                            (wall, 1 - depth), (wall, 1), (0, 1)]), False


def _star(rng: np.random.Generator) -> Shape:
    k = int(rng.integers(5, 13))
    ang = (np.arange(2 * k) + rng.uniform(-0.3, 0.3, size=2 * k)) * (np.pi / k)
    rad = np.where(np.arange(2 * k) % 2 == 0, rng.uniform(0.8, 1.0, size=2 * k),
                   rng.uniform(0.25, 0.6, size=2 * k))
    # increasing, well separated angles with positive radii: a simple polygon
    return shapely.Polygon(np.stack([rad * np.cos(ang), rad * np.sin(ang)], axis=1)), False


def _frame(rng: np.random.Generator) -> Shape:
    w, h = 1.0, rng.uniform(0.5, 1.0)
    t = rng.uniform(0.08, 0.25) * min(w, h)
    return shapely.box(0, 0, w, h).difference(shapely.box(t, t, w - t, h - t)), False


def _ring(rng: np.random.Generator) -> Shape:
    k = int(rng.integers(8, 25))
    ang = np.linspace(0, 2 * np.pi, k, endpoint=False)
    inner = rng.uniform(0.4, 0.8)
    outer = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    return shapely.Polygon(outer, [outer[::-1] * inner]), False


def _strip(rng: np.random.Generator) -> Shape:
    length, width = rng.uniform(6.0, 20.0), 1.0
    return shapely.box(0, 0, length, width), True


def _rect(rng: np.random.Generator) -> Shape:
    return shapely.box(0, 0, 1.0, rng.uniform(0.3, 1.0)), False


def _convex(rng: np.random.Generator) -> Shape:
    pts = rng.normal(size=(int(rng.integers(5, 16)), 2))
    return shapely.convex_hull(shapely.MultiPoint(pts)), False


KINDS: Dict[str, List[Callable[[np.random.Generator], Shape]]] = {
    "concave": [_l_shape, _u_shape, _star],
    "holed": [_frame, _ring],
    "thin": [_strip],
    "convex": [_rect, _convex],
}


def _triangulate(poly: shapely.Polygon) -> Tuple[np.ndarray, List[List[int]]]:
    """Vertices and triangles of a polygon (holes kept), triangles sharing vertex indices."""
    tris = shapely.get_parts(shapely.constrained_delaunay_triangles(poly))
    coords = shapely.get_coordinates(tris).reshape(len(tris), 4, 2)[:, :3]
    verts, inv = np.unique(coords.reshape(-1, 2), axis=0, return_inverse=True)
    return verts, inv.reshape(-1, 3).tolist()


def _quad_strip(length: float, width: float, rng: np.random.Generator) -> Tuple[np.ndarray, List[List[int]]]:
    """A strip of quads along x, slightly bent so that it is not a plain rectangle."""
    n = max(2, int(round(length / width)))
    x = np.linspace(0, length, n + 1)
    bend = rng.uniform(-0.15, 0.15) * width * np.sin(np.linspace(0, np.pi, n + 1))
    bottom = np.stack([x, bend], axis=1)
    top = np.stack([x, bend + width], axis=1)
    verts = np.concatenate([bottom, top])
    faces = [[i, i + 1, n + 2 + i, n + 1 + i] for i in range(n)]
    return verts, faces


def _island(kind: str, area: float, rng: np.random.Generator) -> Tuple[np.ndarray, List[List[int]]]:
    """One island of ``kind`` with the given area, randomly rotated, at the origin."""
    makers = KINDS[kind]
    poly, strip = makers[int(rng.integers(len(makers)))](rng)
    if strip:
        minx, miny, maxx, maxy = poly.bounds
        verts, faces = _quad_strip(maxx - minx, maxy - miny, rng)
        verts_area = float(shapely.area(shapely.union_all(
            [shapely.Polygon(verts[f]) for f in faces])))
    else:
        verts, faces = _triangulate(poly)
        verts_area = float(poly.area)
    verts = verts * np.sqrt(area / verts_area)
    theta = rng.uniform(0, 2 * np.pi)
    rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    verts = verts @ rot.T
    return verts - verts.min(axis=0), faces


def generate(n: int, seed: int = 0) -> Tuple[np.ndarray, List[np.ndarray]]:
    """``n`` islands as ``(uvs, faces)``: (N, 2) UVs and a list of index arrays.

    Deterministic for a given ``(n, seed)``.  Islands do not overlap: they sit
    in the cells of a square grid sized for the largest island.
    """
    rng = np.random.default_rng([seed, n])
    kinds = list(MIX) + ["convex"]
    probs = np.array(list(MIX.values()) + [1.0 - sum(MIX.values())])
    chosen = rng.choice(len(kinds), size=n, p=probs)
    areas = rng.lognormal(mean=0.0, sigma=AREA_SIGMA, size=n)
    islands = []
    for kind_id, area in zip(chosen.tolist(), areas.tolist()):
        kind = kinds[kind_id]
        if kind == "tiny":
            kind = ("concave", "holed", "thin", "convex")[int(rng.integers(4))]
            area *= TINY_FACTOR
        islands.append(_island(kind, area, rng))
    return _on_grid(islands)


def _on_grid(islands: List[Tuple[np.ndarray, List[List[int]]]]) -> Tuple[np.ndarray, List[np.ndarray]]:
    """The islands (each at the origin) in the cells of a square grid sized
    for the largest, as ``(uvs, faces)``."""
    n = len(islands)
    cell = 1.05 * max(float(v.max()) for v, _ in islands)
    cols = int(np.ceil(np.sqrt(n)))
    uvs: List[np.ndarray] = []
    faces: List[np.ndarray] = []
    base = 0
    for k, (verts, tris) in enumerate(islands):
        offset = np.array([(k % cols) * cell, (k // cols) * cell])
        uvs.append(verts + offset)
        faces.extend(np.asarray(t, dtype=np.int64) + base for t in tris)
        base += len(verts)
    return np.concatenate(uvs), faces


def synthetic_model(n: int, seed: int = 0) -> Model:
    """:func:`generate` as a benchmark :class:`Model` named ``synthetic-<n>``."""
    uvs, faces = generate(n, seed)
    return Model.from_faces(f"synthetic-{n}", "synthetic", uvs, faces,
                            source=f"tests.bench.synthetic.generate({n}, seed={seed})")


def triangle_islands(n: int, seed: int = 0) -> Tuple[np.ndarray, np.ndarray]:
    """``n`` islands of one triangle each, as ``(uvs, faces)``: ``(3n, 2)`` UVs
    and an ``(n, 3)`` face array (the huge-count case: 100,000 islands).

    Vectorised (a second for a million).  Corners at three angles of a
    circle, each gap at least a sixth of a turn (no needles), log-normal
    areas (``AREA_SIGMA``), on a square grid sized for the largest, so that
    none overlap in the input; deterministic for ``(n, seed)``."""
    rng = np.random.default_rng([seed, n, 3])
    gaps = rng.uniform(1.0, 2.0, size=(n, 3))
    ang = np.cumsum(gaps / gaps.sum(axis=1, keepdims=True) * 2 * np.pi, axis=1) + rng.uniform(0, 2 * np.pi, (n, 1))
    tri = np.stack([np.cos(ang), np.sin(ang)], axis=2)          # (n, 3, 2), counter-clockwise
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    area = 0.5 * np.abs((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0]))
    tri *= np.sqrt(rng.lognormal(0.0, AREA_SIGMA, size=n) / area)[:, None, None]
    tri -= tri.min(axis=1, keepdims=True)
    cell = 1.05 * float(tri.max())
    cols = int(np.ceil(np.sqrt(n)))
    k = np.arange(n)
    tri += np.stack([(k % cols) * cell, (k // cols) * cell], axis=1)[:, None, :]
    return tri.reshape(-1, 2), np.arange(3 * n, dtype=np.int64).reshape(n, 3)


def triangle_model(n: int, seed: int = 0) -> Model:
    """:func:`triangle_islands` as a benchmark :class:`Model` named ``triangles-<n>``."""
    uvs, faces = triangle_islands(n, seed)
    return Model(name=f"triangles-{n}", kind="synthetic", uvs=uvs, face_sizes=np.full(n, 3, dtype=np.int64),
                 face_idx=faces.reshape(-1), source=f"tests.bench.synthetic.triangle_islands({n}, seed={seed})")


#: Copies per part kind of :func:`repeated_parts` (wheels, bolts, mirrored
#: halves of a game asset): a few big parts, many small ones.
PART_COPIES = (2, 4, 8, 16)


def repeated_parts(n_parts: int, seed: int = 0) -> Tuple[np.ndarray, List[np.ndarray]]:
    """A game-like asset: ``n_parts`` part shapes, each copied
    ``PART_COPIES[k % 4]`` times (turned by random angles; every other copy
    of the concave and convex parts, which have no mirror symmetry,
    mirrored: symmetric halves), plus as many unique
    islands as parts.  The copies are the case ``stack_similar`` is for."""
    rng = np.random.default_rng([seed, n_parts, 7])
    kinds = ["concave", "holed", "convex", "thin"]
    islands = []
    for k in range(n_parts):
        copies = PART_COPIES[k % len(PART_COPIES)]
        verts, tris = _island(kinds[k % len(kinds)], rng.lognormal(0.0, AREA_SIGMA) / copies, rng)
        for c in range(copies):
            theta = rng.uniform(0, 2 * np.pi)
            rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
            v = verts @ rot.T
            faces = [list(t) for t in tris]
            if k % 2 == 0 and c % 2:   # concave and convex parts (not mirror-symmetric): x negated,
                # corners reversed to keep them counter-clockwise
                v = v * np.array([-1.0, 1.0])
                faces = [t[::-1] for t in faces]
            islands.append((v - v.min(axis=0), faces))
    for k in range(n_parts):
        islands.append(_island(kinds[int(rng.integers(len(kinds)))], float(rng.lognormal(0.0, AREA_SIGMA)), rng))
    return _on_grid(islands)


def repeated_parts_model(n_parts: int, seed: int = 0) -> Model:
    """:func:`repeated_parts` as a benchmark :class:`Model` named ``parts-<n_parts>``."""
    uvs, faces = repeated_parts(n_parts, seed)
    return Model.from_faces(f"parts-{n_parts}", "synthetic", uvs, faces,
                            source=f"tests.bench.synthetic.repeated_parts({n_parts}, seed={seed})")
