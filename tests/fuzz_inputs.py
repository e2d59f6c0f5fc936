"""Seeded random inputs for the property test of ``uvnest.pack`` (test_fuzz.py).

``make_case(seed, max_islands)`` draws one input and one set of options from
the seed alone, so a failure names the seed that reproduces it.  Island
kinds: stars (concave fans), convex polygons, boxes of every aspect,
annuli (islands with holes), grids of quads, spikes and slivers stuck to a
square, collinear and zero-area faces, and collapsed islands (a segment or
a point).  Inputs mix scales from 1e-6 to 1e3, repeat islands elsewhere,
stack exact duplicates and let islands overlap.  Options cover every rotation, flip and shape mode and
``scale='fixed'`` with tiles, ``pixel_perfect`` and ``block_align``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Tuple

import numpy as np

KINDS = ("star", "convex", "box", "annulus", "grid", "spike", "sliver", "collinear", "collapsed")
SHAPES = ("concave", "convex", "box")
ROTATIONS = ("none", "90", "any")


@dataclass
class Case:
    """One fuzz input: UVs, faces, keyword options and what went in."""

    seed: int
    uvs: np.ndarray
    faces: List[List[int]]
    options: Dict
    kinds: Tuple[str, ...]
    layout: str          # how islands were placed: apart, overlapping, stacked

    def describe(self) -> str:
        return (f"seed {self.seed}: {len(self.kinds)} islands ({', '.join(sorted(set(self.kinds)))}), "
                f"{self.layout}, options {self.options}")


def _star(rng):
    k = int(rng.integers(3, 8))
    ang = np.linspace(0, 2 * np.pi, 2 * k, endpoint=False)
    r = np.where(np.arange(2 * k) % 2 == 0, 1.0, rng.uniform(0.15, 0.8))
    uvs = np.vstack([[0.0, 0.0], np.column_stack([r * np.cos(ang), r * np.sin(ang)])])
    return uvs, [[0, 1 + j, 1 + (j + 1) % (2 * k)] for j in range(2 * k)]


def _convex(rng):
    k = int(rng.integers(3, 9))
    ang = np.sort(rng.uniform(0, 2 * np.pi, k))
    uvs = np.column_stack([np.cos(ang), np.sin(ang)])
    return uvs, [list(range(k))]


def _box(rng):
    aspect = 10.0 ** rng.uniform(-4, 4)
    w, h = (1.0, 1.0 / aspect) if aspect > 1 else (aspect, 1.0)
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], float), [[0, 1, 2, 3]]


def _annulus(rng):
    k = int(rng.integers(4, 12))
    ang = np.linspace(0, 2 * np.pi, k, endpoint=False)
    r0 = rng.uniform(0.2, 0.8)
    uvs = np.vstack([np.column_stack([np.cos(ang), np.sin(ang)]), r0 * np.column_stack([np.cos(ang), np.sin(ang)])])
    return uvs, [[j, (j + 1) % k, k + (j + 1) % k, k + j] for j in range(k)]


def _grid(rng):
    nx, ny = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    xs, ys = np.meshgrid(np.arange(nx + 1, dtype=float), np.arange(ny + 1, dtype=float))
    uvs = np.column_stack([xs.ravel(), ys.ravel()])
    faces = [[y * (nx + 1) + x, y * (nx + 1) + x + 1, (y + 1) * (nx + 1) + x + 1, (y + 1) * (nx + 1) + x]
             for y in range(ny) for x in range(nx)]
    return uvs, faces


def _square_with(rng, extra):
    """A unit square and a thin triangle from its corner (1, 1) out to
    ``(1, 1) + length * (cos a, sin a)``, of width ``extra`` there."""
    a = rng.uniform(0, 2 * np.pi)
    length = rng.uniform(0.2, 1.5)
    d = np.array([math.cos(a), math.sin(a)])
    tip = np.array([1.0, 1.0]) + length * d
    side = tip + extra * np.array([-d[1], d[0]])
    uvs = np.array([[0, 0], [1, 0], [1, 1], [0, 1], tip, side])
    return uvs, [[0, 1, 2, 3], [2, 4, 5]]


def _spike(rng):
    return _square_with(rng, 10.0 ** rng.uniform(-6, -2))


def _sliver(rng):
    return _square_with(rng, 10.0 ** rng.uniform(-14, -7) * float(rng.choice([0.0, 1.0])))


def _collinear(rng):
    """A quad strip with a face whose corners are collinear (zero area),
    and a quad with a straight (collinear) corner."""
    uvs = np.array([[0, 0], [1, 0], [2, 0], [2, 1], [1, 1], [0, 1], [1.5, 0.0], [0.5, 1.0]])
    faces = [[0, 1, 4, 5], [1, 6, 2, 3, 4], [0, 1, 6], [5, 7, 4]]
    if rng.random() < 0.5:
        faces.append([3, 2, 2])   # a face that repeats a corner
    return uvs.astype(float), faces


def _collapsed(rng):
    """An island with no area: a segment (a flat triangle) or a point."""
    if rng.random() < 0.5:
        return np.zeros((3, 2)), [[0, 1, 2]]
    a = rng.uniform(0, 2 * np.pi)
    return np.array([[0, 0], [0.5 * math.cos(a), 0.5 * math.sin(a)], [math.cos(a), math.sin(a)]]), [[0, 1, 2]]


MAKERS = {"star": _star, "convex": _convex, "box": _box, "annulus": _annulus, "grid": _grid,
          "spike": _spike, "sliver": _sliver, "collinear": _collinear, "collapsed": _collapsed}


def _options(rng, fixed: bool) -> Dict:
    opts: Dict = {"rotation": str(rng.choice(ROTATIONS)), "flip": bool(rng.random() < 0.3),
                  "shape": str(rng.choice(SHAPES, p=[0.6, 0.2, 0.2])),
                  "margin": float(rng.choice([0.0, 1e-4, 1e-3, 0.005, 0.02])),
                  "merge_overlapping": bool(rng.random() < 0.8), "seed": int(rng.integers(0, 1000))}
    if opts["rotation"] == "any":
        opts["rotation_step"] = float(rng.choice([5.0, 15.0, 45.0, 90.0]))
    if rng.random() < 0.2:
        opts["padding"] = float(rng.choice([1e-3, 0.01]))
    if fixed:
        opts["scale"] = "fixed"
        opts["tiles"] = [1001 + k for k in range(int(rng.integers(4, 40)))]
        snap = rng.random()
        if snap < 0.4:
            opts["texture_size"] = int(rng.choice([256, 1024]))
            if snap < 0.2:
                opts["pixel_perfect"] = True
            else:
                opts["block_align"] = 4
    return opts


def make_case(seed: int, max_islands: int = 300) -> Case:
    """The input and options of one seed (see the module docstring)."""
    rng = np.random.default_rng(seed)
    fixed = rng.random() < 0.25
    n = int(min(max_islands, max(1, round(math.exp(rng.uniform(0, math.log(max_islands + 0.5)))))))
    kinds_pool = [str(k) for k in rng.choice(KINDS, size=int(rng.integers(1, 4)), replace=False)]
    mixed = rng.random() < 0.3
    layout = str(rng.choice(["apart", "overlapping", "stacked"], p=[0.6, 0.25, 0.15]))
    uvs_all, faces_all, kinds = [], [], []
    base = 0
    prev = None
    for i in range(n):
        if layout == "stacked" and prev is not None and rng.random() < 0.5:
            uvs, faces, kind = prev        # an exact duplicate at the same place
        elif layout == "apart" and prev is not None and rng.random() < 0.2:
            uvs, faces, kind = prev        # a duplicate elsewhere
            uvs = uvs + rng.uniform(0, 3.0 * math.sqrt(n), 2)
        else:
            kind = kinds_pool[int(rng.integers(len(kinds_pool)))]
            uvs, faces = MAKERS[kind](rng)
            # size: about a tile's share per island, or 1e-6 .. 1e3 mixed;
            # with a fixed scale up to 0.45 of a tile (1e-6 .. 0.45 mixed),
            # and now and then an island larger than a tile
            size = 10.0 ** rng.uniform(-6, 3) if mixed else rng.uniform(0.3, 1.0) / math.sqrt(n)
            if fixed:
                size = 10.0 ** rng.uniform(-6, math.log10(0.45)) if mixed else rng.uniform(0.02, 0.45)
                if rng.random() < 0.01:
                    size = 1.5
            ang = rng.uniform(0, 2 * np.pi)
            c, s = math.cos(ang), math.sin(ang)
            uvs = (uvs - uvs.mean(axis=0)) @ np.array([[c, s], [-s, c]]) * size
            spread = 0.3 if layout == "overlapping" else 3.0 * math.sqrt(n)
            uvs = uvs + rng.uniform(0, spread, 2)
            prev = (uvs, faces, kind)
        uvs_all.append(uvs)
        faces_all.extend([[base + v for v in f] for f in faces])
        kinds.append(kind)
        base += len(uvs)
    return Case(seed, np.vstack(uvs_all), faces_all, _options(rng, fixed), tuple(kinds), layout)
