"""Random test islands for the packing tests: concave stars (triangle fans),
polyominoes (L, comb and random shapes made of grid cells), annuli made of
quads (islands with holes), tilted rectangles; each returns ``(uvs, faces)``
of one island, roughly centred, about unit size, from a seeded generator,
so that a failure names the seed that reproduces it."""
from __future__ import annotations

import math

import numpy as np

#: The unit square, the default target.
UNIT = (0.0, 0.0, 1.0, 1.0)

def _star(rng):
    """A star polygon as a fan of triangles around its centre (concave)."""
    k = int(rng.integers(3, 9))
    ang = np.linspace(0, 2 * np.pi, 2 * k, endpoint=False) + rng.uniform(-0.3, 0.3, 2 * k) * np.pi / (2 * k)
    r = np.where(np.arange(2 * k) % 2 == 0, 1.0, rng.uniform(0.2, 0.7))
    uvs = np.vstack([[0.0, 0.0], np.column_stack([r * np.cos(ang), r * np.sin(ang)])])
    m = 2 * k
    return uvs, [[0, 1 + j, 1 + (j + 1) % m] for j in range(m)]


def _cells(mask):
    """One quad per set cell of a boolean grid, neighbours sharing UVs."""
    vid, uvs, faces = {}, [], []

    def v(x, y):
        if (x, y) not in vid:
            vid[(x, y)] = len(uvs)
            uvs.append([float(x), float(y)])
        return vid[(x, y)]

    for y, x in zip(*np.nonzero(mask)):
        faces.append([v(x, y), v(x + 1, y), v(x + 1, y + 1), v(x, y + 1)])
    return np.array(uvs), faces


def _polyomino(rng):
    """An L, a comb or a random connected shape made of grid cells."""
    w, h = int(rng.integers(2, 6)), int(rng.integers(2, 6))
    m = np.zeros((h, w), bool)
    kind = int(rng.integers(3))
    if kind == 0:
        m[0, :] = m[:, 0] = True
    elif kind == 1:
        m[0, :] = True
        m[:, ::2] = True
    else:
        m[rng.integers(h), rng.integers(w)] = True
        for _ in range(int(rng.integers(2, h * w + 1))):
            ys, xs = np.nonzero(m)
            j = int(rng.integers(ys.size))
            dy, dx = ((0, 1), (1, 0), (0, -1), (-1, 0))[int(rng.integers(4))]
            if 0 <= ys[j] + dy < h and 0 <= xs[j] + dx < w:
                m[ys[j] + dy, xs[j] + dx] = True
    return _cells(m)


def _annulus(rng):
    """A ring of quads: an island with a hole."""
    k = int(rng.integers(4, 12))
    a = np.linspace(0, 2 * np.pi, k, endpoint=False) + rng.uniform(0, 1)
    r0 = rng.uniform(0.2, 0.8)
    uvs = np.vstack([np.column_stack([r0 * np.cos(a), r0 * np.sin(a)]), np.column_stack([np.cos(a), np.sin(a)])])
    return uvs, [[j, k + j, k + (j + 1) % k, (j + 1) % k] for j in range(k)]


def _with_sliver(rng, uvs, faces):
    """Add a zero-area face (a corner repeated) to an island."""
    f = faces[int(rng.integers(len(faces)))]
    return uvs, faces + [[f[0], f[1], f[1]]]


SHAPES = (_star, _polyomino, _annulus)


def _rotated(p, angle):
    c, s = math.cos(angle), math.sin(angle)
    return p @ np.array([[c, s], [-s, c]])


def _assemble(parts, placed=None, origin=(3.0, 3.0)):
    """One input from (uvs, faces) parts: parts whose index is in ``placed``
    keep their coordinates, the others go in a row from ``origin``, apart."""
    placed = placed or {}
    uvs, faces, x, base = [], [], origin[0], 0
    for j, (u, f) in enumerate(parts):
        u = np.asarray(u, dtype=np.float64)
        if j not in placed:
            u = u - u.min(axis=0) + [x, origin[1]]
            x = u[:, 0].max() + 0.25
        uvs.append(u)
        faces += [[base + int(v) for v in ff] for ff in f]
        base += len(u)
    return np.concatenate(uvs), faces


def _islands(rng, n, sizes=None):
    """n random islands, randomly turned and mirrored, of the given sizes."""
    parts = []
    for i in range(n):
        u, f = SHAPES[int(rng.integers(len(SHAPES)))](rng)
        u = u - u.mean(axis=0)
        if rng.random() < 0.6:
            u = _rotated(u, rng.uniform(0, 2 * np.pi))
        if rng.random() < 0.3:     # clockwise faces
            u[:, 0] = -u[:, 0]
        size = 1.0 if sizes is None else sizes[i]
        u = u / np.ptp(u, axis=0).max() * size
        if rng.random() < 0.05:
            u, f = _with_sliver(rng, u, f)
        parts.append((u, f))
    return parts


def _concave_set(seed, n=6):
    rng = np.random.default_rng(seed)
    return _assemble(_islands(rng, n, rng.uniform(0.3, 1.0, n)))


def _rects(sizes_angles):
    """Rectangles (w, h, degrees), one quad each."""
    parts = []
    for w, h, deg in sizes_angles:
        parts.append((_rotated(np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64), math.radians(deg)),
                      [[0, 1, 2, 3]]))
    return _assemble(parts)


def _sig(res):
    """Everything a layout consists of, for bit-identical comparison."""
    return (res.uvs.tobytes(), tuple(res.transforms), res.island_of_face.tobytes(), res.coverage, res.scale)
