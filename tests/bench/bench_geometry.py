"""Speed of the geometry core on real island outlines (a benchmark, not a test).

Islands come from the homedecor OBJ models (Debian's minetest-mod-homedecor,
fetched by ``tests/corpus.py`` into a cache outside the repository): faces
that share texture-vertex indices form an island, its outline is
``uvnest.geometry.outline`` and it is reduced to N vertices with
``uvnest.geometry.simplify`` (tolerance 0, budget N).  Concave islands (area
below 90 % of the convex hull) with at least N outline vertices are used,
each shape once (the models share texture layouts, so outlines repeat);
for N beyond the largest real outlines, the largest real outlines are
densified (every edge subdivided, the new points moved by 0.2 % of the
island's size so that they are not collinear) and then reduced to N.

Measured (median wall time of repeated calls):

* ``nfp`` of two N-vertex islands, N = 16 .. 256 (target for N = 64: 1 ms);
* ``cfr`` of one 64-vertex island against K placed 64-vertex islands in a
  square container, K = 10 .. 400 (target for K = 200: 10 ms).  The placed
  islands sit on a grid of cells, each scaled into its cell, so the piece
  has room between them.  Measured three ways: ``cfr`` computing the K
  no-fit polygons in the call; ``cfr_from_nfps`` with them cached (each
  computed once at the origin and moved), in fresh memory each call; and
  the same passing one reused ``geometry.Workspace``, which is what the
  engine does (it caches the no-fit polygons and keeps one workspace).

Usage::

    python tests/bench/bench_geometry.py [--out results.md] [--quick]

Prints a table and writes it as markdown to ``--out``.
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from typing import List, Sequence, Tuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)

from uvnest import geometry as G  # noqa: E402

NFP_TARGET_MS = 1.0
CFR_TARGET_MS = 10.0


# ------------------------------------------------------------------ corpus

def homedecor_objs() -> Tuple[List[str], str]:
    """Paths of the homedecor OBJ files, and where they came from."""
    sys.path.insert(0, TESTS)
    try:
        import corpus  # tests/corpus.py, shared with the test suite
        import pytest

        try:
            return [str(p) for p in corpus.homedecor_models()], str(corpus.cache_dir())
        except pytest.skip.Exception as e:  # unavailable: say why
            return [], f"homedecor corpus unavailable: {e}"
    except ImportError as e:
        return [], f"tests/corpus.py unavailable: {e}"
    finally:
        sys.path.remove(TESTS)


def read_obj(path: str):
    """Texture coordinates and faces (as texture-vertex indices) of an OBJ."""
    vt: List[Tuple[float, float]] = []
    faces: List[List[int]] = []
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("vt "):
                p = line.split()
                vt.append((float(p[1]), float(p[2])))
            elif line.startswith("f "):
                idx: List[int] = []
                for tok in line.split()[1:]:
                    parts = tok.split("/")
                    if len(parts) < 2 or not parts[1]:
                        idx = []
                        break
                    k = int(parts[1])
                    idx.append(k - 1 if k > 0 else len(vt) + k)
                if len(idx) >= 3:
                    faces.append(idx)
    return np.array(vt, float).reshape(-1, 2), faces


def islands_of(uv: np.ndarray, faces: List[List[int]]) -> List[List[List[int]]]:
    parent = list(range(len(uv)))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for f in faces:
        r = find(f[0])
        for v in f[1:]:
            q = find(v)
            if q != r:
                parent[q] = r
    groups = {}
    for f in faces:
        groups.setdefault(find(f[0]), []).append(f)
    return list(groups.values())


def ring_area(r: np.ndarray) -> float:
    x, y = r[:, 0], r[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def hull_area(pts: np.ndarray) -> float:
    p = sorted(map(tuple, pts))
    if len(p) < 3:
        return 0.0

    def half(seq):
        h = []
        for q in seq:
            while len(h) >= 2 and (h[-1][0] - h[-2][0]) * (q[1] - h[-2][1]) - (h[-1][1] - h[-2][1]) * (q[0] - h[-2][0]) <= 0:
                h.pop()
            h.append(q)
        return h

    lower, upper = half(p), half(reversed(p))
    return abs(ring_area(np.array(lower[:-1] + upper[:-1])))


def shape_key(rings: List[np.ndarray]) -> Tuple[float, ...]:
    """The same key for islands that are one shape moved and scaled (models
    of the corpus share texture layouts, so many outlines repeat)."""
    return tuple(np.round(np.vstack(normalize(rings, 1.0)), 4).ravel())


def real_outlines(paths: Sequence[str]) -> List[List[np.ndarray]]:
    """Distinct concave island outlines (one outer ring, holes allowed),
    largest first."""
    out, seen = [], set()
    for path in paths:
        uv, faces = read_obj(path)
        if not faces:
            continue
        for isl in islands_of(uv, faces):
            try:
                rings = G.outline(uv, isl)
            except ValueError:
                continue
            outers = [r for r in rings if ring_area(r) > 0]
            if len(outers) != 1:
                continue
            area = sum(ring_area(r) for r in rings)
            h = hull_area(np.vstack(rings))
            key = shape_key(rings)
            if h <= 0 or area <= 0 or area > 0.9 * h or key in seen:
                continue
            seen.add(key)
            out.append(rings)
    out.sort(key=lambda rs: -sum(len(r) for r in rs))
    return out


def densify(rings: List[np.ndarray], factor: int) -> List[np.ndarray]:
    """Subdivide every edge into `factor` parts, moving the new points off the
    edge by 0.2 % of the island's size (alternately in and out)."""
    allp = np.vstack(rings)
    size = float((allp.max(axis=0) - allp.min(axis=0)).max())
    res = []
    for r in rings:
        pts = []
        n = len(r)
        for i in range(n):
            a, b = r[i], r[(i + 1) % n]
            e = b - a
            L = math.hypot(*e)
            nrm = np.array([-e[1], e[0]]) / L if L > 0 else np.zeros(2)
            for k in range(factor):
                t = k / factor
                off = 0.0 if k == 0 else (0.002 * size * (1 if k % 2 else -1))
                pts.append(a + t * e + off * nrm)
        res.append(np.array(pts))
    return res


def islands_with(n: int, outlines: List[List[np.ndarray]], count: int) -> Tuple[List[List[np.ndarray]], str]:
    """`count` islands reduced to n vertices; how they were made."""
    chosen = [o for o in outlines if sum(len(r) for r in o) >= n]
    how = "real"
    if len(chosen) < min(count, 2):
        base = outlines[:max(2, min(count, len(outlines)))]
        chosen = []
        for o in base:
            have = sum(len(r) for r in o)
            chosen.append(densify(o, max(2, math.ceil(n / have) + 1)))
        how = "densified"
    res = []
    for i in range(count):
        rings, _ = G.simplify(chosen[i % len(chosen)], 0.0, n)
        res.append(rings)
    return res, how


def synthetic_outlines(k: int = 40) -> List[List[np.ndarray]]:
    """Fallback when the corpus is missing: concave star polygons."""
    rng = np.random.default_rng(1)
    out = []
    for _ in range(k):
        m = 300
        th = np.sort(rng.uniform(0, 2 * np.pi, m))
        r = 1 + 0.35 * np.sin(5 * th + rng.uniform(0, 6)) + 0.1 * rng.random(m)
        out.append([np.c_[r * np.cos(th), r * np.sin(th)]])
    return out


# ------------------------------------------------------------------ timing

def median_ms(fn, repeats: int, min_time: float = 0.2) -> float:
    fn()  # warm up
    times = []
    t_end = time.perf_counter() + min_time
    while len(times) < repeats or (time.perf_counter() < t_end and len(times) < 10 * repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def normalize(rings: List[np.ndarray], cell: float) -> List[np.ndarray]:
    """Scale and move an island into [0, 0.9 cell]^2 (aspect kept)."""
    allp = np.vstack(rings)
    lo, hi = allp.min(axis=0), allp.max(axis=0)
    s = 0.9 * cell / float((hi - lo).max())
    return [(r - lo) * s for r in rings]


def bench_nfp(outlines, sizes, quick) -> List[Tuple[int, str, float, int]]:
    rows = []
    for n in sizes:
        isl, how = islands_with(n, outlines, 4)
        isl = [normalize(r, 1.0) for r in isl]
        pairs = [(isl[0], isl[1]), (isl[2], isl[3]), (isl[1], isl[2])]
        t = statistics.median(median_ms(lambda a=a, b=b: G.nfp(a, b), 5 if quick else 25) for a, b in pairs)
        nv = round(statistics.mean(sum(len(r) for r in x) for x in isl))
        rows.append((n, how, t, nv))
        print(f"  nfp  N={n:4d} ({how:9s}, mean {nv} vertices): {t:9.3f} ms", flush=True)
    return rows


def bench_cfr(outlines, counts, n_vertices, quick) -> List[Tuple[int, float, float, float, int]]:
    """Per K: cfr with its NFPs computed in the call; cfr_from_nfps with them
    cached (computed once at the origin and moved, as the engine does), in
    fresh memory and with a reused Workspace; and the number of regions."""
    rows = []
    pool, _ = islands_with(n_vertices, outlines, 40)
    pool = [normalize(r, 1.0) for r in pool]
    piece = pool[0]
    cache = {}
    workspace = G.Workspace()
    for k in counts:
        side = math.ceil(math.sqrt(k + 1)) + 1
        shapes = [1 + i % (len(pool) - 1) for i in range(k)]
        offsets = [np.array([i % side, i // side], float) for i in range(k)]
        placed = [[r + o for r in pool[j]] for j, o in zip(shapes, offsets)]
        for j in shapes:
            if j not in cache:
                cache[j] = G.nfp(pool[j], piece)
        nfps = [[r + o for r in cache[j]] for j, o in zip(shapes, offsets)]
        container = [np.array([[0, 0], [side, 0], [side, side], [0, side]], float)]
        t = median_ms(lambda: G.cfr(container, placed, piece, 0.0), 3 if quick else 7, 0.5)
        tc = median_ms(lambda: G.cfr_from_nfps(container, nfps, piece), 3 if quick else 7, 0.5)
        tw = median_ms(lambda: G.cfr_from_nfps(container, nfps, piece, workspace=workspace), 3 if quick else 7, 0.5)
        regions = G.cfr(container, placed, piece, 0.0)
        rows.append((k, t, tc, tw, len(regions)))
        print(f"  cfr  K={k:4d}: {t:9.3f} ms, from cached NFPs {tc:8.3f} ms, with a workspace {tw:8.3f} ms "
              f"({len(regions)} regions)", flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the results as markdown to this path")
    ap.add_argument("--quick", action="store_true", help="fewer repeats and sizes")
    args = ap.parse_args(argv)

    paths, origin = homedecor_objs()
    outlines = real_outlines(paths) if paths else []
    if not outlines:
        source = f"synthetic star polygons ({origin})"
        outlines = synthetic_outlines()
    else:
        source = f"{len(outlines)} distinct concave islands of {len(paths)} homedecor models ({origin})"
    print(f"islands: {source}")
    sizes = [16, 32, 64, 128] if args.quick else [16, 32, 64, 128, 256]
    counts = [10, 50, 200] if args.quick else [10, 25, 50, 100, 200, 400]
    nfp_rows = bench_nfp(outlines, sizes, args.quick)
    cfr_rows = bench_cfr(outlines, counts, 64, args.quick)

    nfp64 = next((t for n, _, t, _ in nfp_rows if n == 64), float("nan"))
    row200 = next((r for r in cfr_rows if r[0] == 200), (200,) + (float("nan"),) * 3 + (0,))
    _, cfr200, cached200, reused200, _ = row200
    lines = ["# uvnest geometry benchmark", "",
             f"Islands: {source}.  Median wall time of repeated calls on one core.", "",
             "| measure | time | target | verdict |", "| --- | ---: | ---: | --- |",
             f"| nfp, two 64-vertex islands | {nfp64:.3f} ms | {NFP_TARGET_MS:g} ms | "
             f"{'met' if nfp64 <= NFP_TARGET_MS else 'missed'} |",
             f"| cfr, one 64-vertex island vs 200 placed, NFPs computed in the call | {cfr200:.3f} ms | "
             f"{CFR_TARGET_MS:g} ms | {'met' if cfr200 <= CFR_TARGET_MS else 'missed'} |",
             f"| the same from cached NFPs (`cfr_from_nfps`), fresh memory each call | {cached200:.3f} ms | "
             f"{CFR_TARGET_MS:g} ms | {'met' if cached200 <= CFR_TARGET_MS else 'missed'} |",
             f"| the same with a reused `Workspace` (the engine's way) | {reused200:.3f} ms | "
             f"{CFR_TARGET_MS:g} ms | {'met' if reused200 <= CFR_TARGET_MS else 'missed'} |", "",
             "## nfp by vertex count", "", "| N | islands | mean vertices | time (ms) | ratio to previous |",
             "| ---: | --- | ---: | ---: | ---: |"]
    prev = None
    for n, how, t, nv in nfp_rows:
        lines.append(f"| {n} | {how} | {nv} | {t:.3f} | {'' if prev is None else f'{t / prev:.2f}'} |")
        prev = t
    lines += ["", "## cfr by number of placed islands (64 vertices each)", "",
              "| placed | cfr (ms) | ms per placed island | from cached NFPs (ms) | the same, reused workspace (ms) "
              "| regions |",
              "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for k, t, tc, tw, nreg in cfr_rows:
        lines.append(f"| {k} | {t:.3f} | {t / k:.3f} | {tc:.3f} | {tw:.3f} | {nreg} |")
    text = "\n".join(lines) + "\n"
    print()
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
