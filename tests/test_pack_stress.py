"""Random small layout problems (tests/pack_shapes.py islands, locked ones,
impossible ones by construction) packed and checked by the independent
shapely checker: a short smoke run and the long stress run (slow)."""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

if __package__ in (None, ""):  # plain `pytest` puts tests/ first on sys.path, not the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvnest  # noqa: E402
from tests.background import seed_chunks  # noqa: E402
from tests.pack_checker import check_pack  # noqa: E402
from tests.pack_shapes import UNIT, _assemble, _islands  # noqa: E402


STRESS_CASES = 2000
STRESS_ITERATIONS = 20


def _stress_case(seed):
    """A random small layout problem, and whether it is impossible by
    construction (a locked island leaves no point at the margin in the
    target)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    size_kind = rng.random()
    if size_kind < 0.3:       # tiny and huge together: area ratios down to 1e-6
        sizes = np.exp(rng.uniform(np.log(1e-3), 0.0, n))
        sizes[0], sizes[-1] = 1.0, 1e-3
    else:
        sizes = rng.uniform(0.3, 1.0, n)
    parts = _islands(rng, n, sizes)
    if n >= 2 and rng.random() < 0.1:             # identical twins
        parts[1] = (parts[0][0].copy(), [list(f) for f in parts[0][1]])
    if rng.random() < 0.7:
        target = UNIT
    else:
        x, y = rng.uniform(-1, 1, 2)
        w, h = rng.uniform(0.5, 2.0, 2)
        target = (float(x), float(y), float(x + w), float(y + h))
    side = min(target[2] - target[0], target[3] - target[1])
    r = rng.random()
    margin = 0.0 if r < 0.2 else float(rng.uniform(0, 0.02) * side) if r < 0.7 else float(rng.uniform(0.02, 0.2) * side)
    padding = float(rng.uniform(0, 0.05) * side) if rng.random() < 0.3 else 0.0
    locked, placed, impossible = [], {}, False
    r = rng.random()
    if r < 0.04:
        # impossible: a locked rectangle covering the target, or all of it
        # but a strip narrower than the margin
        x0, y0, x1, y1 = target
        if rng.random() < 0.5:
            grow = float(rng.uniform(0, 0.3))
            rect = (x0 - grow, y0 - grow, x1 + grow, y1 + grow)
        else:
            strip = float(rng.uniform(0.01, 0.1) * side)
            margin = float(rng.uniform(strip * 1.05, 0.2 * side))
            padding = 0.0
            rect = [(x0 + strip, y0, x1, y1), (x0, y0, x1 - strip, y1),
                    (x0, y0 + strip, x1, y1), (x0, y0, x1, y1 - strip)][int(rng.integers(4))]
        parts.insert(0, (np.array([[rect[0], rect[1]], [rect[2], rect[1]], [rect[2], rect[3]],
                                   [rect[0], rect[3]]]), [[0, 1, 2, 3]]))
        locked, placed, impossible = [0], {0}, True
    elif r < 0.3 and n >= 3:
        # one or two locked islands in cells of a 3 x 3 grid over the target
        # (sometimes shifted by half a cell: those of the first column then
        # reach out of the target)
        x0, y0, x1, y1 = target
        cw, ch = (x1 - x0) / 3, (y1 - y0) / 3
        shift = -0.5 if rng.random() < 0.3 else 0.0
        for j, c in enumerate(rng.permutation(9)[:int(rng.integers(1, 3))]):
            u, f = parts[j]
            u = (u - u.min(axis=0)) / np.ptp(u, axis=0).max() * 0.8 * min(cw, ch)
            parts[j] = (u + [x0 + (c % 3 + 0.1 + shift) * cw, y0 + (c // 3 + 0.1) * ch], f)
            locked.append(j)
            placed[j] = True
    uvs, faces = _assemble(parts, placed=placed, origin=(target[2] + 1.0, target[3] + 1.0))
    opts = dict(margin=margin, padding=padding, target=target,
                rotation=str(rng.choice(["none", "90", "any"])),
                rotation_step=float(rng.choice([0.5, 5.0, 7.0, 15.0, 30.0, 45.0, 90.0, 120.0])),
                flip=bool(rng.random() < 0.5), shape=str(rng.choice(["concave", "convex", "box"], p=[0.6, 0.2, 0.2])),
                locked=locked or None, seed=int(rng.integers(0, 2**31)))
    return uvs, faces, opts, impossible


def _stress(seeds):
    """Pack every case; returns (failures, counts)."""
    failures, counts = [], {"valid": 0, "impossible": 0, "flipped": 0}
    for seed in seeds:
        uvs, faces, opts, impossible = _stress_case(seed)
        uvs0 = uvs.copy()
        try:
            p = uvnest.Packer(uvs, faces, **opts)
            p.step(seconds=None, iterations=STRESS_ITERATIONS)
            res = p.best
        except ValueError as e:
            if impossible and "cannot fit" in str(e):
                counts["impossible"] += 1
            else:
                failures.append(f"seed {seed}: ValueError {e} (impossible={impossible}) with {opts}")
            continue
        except Exception as e:   # noqa: BLE001 - any other failure is a bug, with its seed
            failures.append(f"seed {seed}: {type(e).__name__}: {e} with {opts}")
            continue
        if impossible:
            failures.append(f"seed {seed}: packed a layout although no room is left, with {opts}")
        rep = check_pack(res, uvs, faces, margin=opts["margin"], target=opts["target"], padding=opts["padding"],
                         locked=opts["locked"] or (), flip=opts["flip"], rotation=opts["rotation"],
                         seed=opts["seed"])
        if not rep.ok:
            failures.append(f"seed {seed}: {rep.describe(3)} with {opts}")
        if p.stats["rejected"]:
            failures.append(f"seed {seed}: the engine rejected {p.stats['rejected']} layouts with {opts}")
        if not res.iterations <= STRESS_ITERATIONS:
            failures.append(f"seed {seed}: {res.iterations} iterations reported for a budget of {STRESS_ITERATIONS}")
        if not np.array_equal(uvs, uvs0):
            failures.append(f"seed {seed}: the input uvs changed")
        counts["valid"] += rep.ok
        counts["flipped"] += sum(t.flipped for t in res.transforms)
    return failures, counts


def test_random_layouts_smoke():
    """A few dozen cases of the stress test, for every run."""
    failures, counts = _stress(range(25))
    assert not failures, "\n".join(failures[:10])
    assert counts["valid"] > 20


#: The stress run's seeds, in chunks the background pool spreads over the
#: cores (tests/background.py): packing is bounded by iterations, never by
#: time.
STRESS_FIRST = 10_000
STRESS_CHUNKS = 8


def _stress_chunks():
    return seed_chunks(STRESS_FIRST, STRESS_CASES, STRESS_CHUNKS)


def start_background(jobs, items) -> None:
    for seeds in _stress_chunks():
        jobs.in_process(("stress", seeds.start), _stress, seeds)


@pytest.mark.slow
@pytest.mark.background
def test_random_layouts_stress(background_jobs):
    """Thousands of random small problems (concave, holed, tiny and huge
    islands, margins 0 to 0.2, every rotation, flip and shape mode, locked
    islands, odd targets, padding): every layout valid, the engine never
    rejecting one of its own, and 'cannot fit' only where no room is left."""
    failures, counts = [], Counter()
    for seeds in _stress_chunks():
        f, c = background_jobs.result(("stress", seeds.start))
        failures += f
        counts.update(c)
    print(f"stress: {STRESS_CASES} cases: {dict(counts)}")
    assert not failures, f"{len(failures)} failing cases:\n" + "\n".join(failures[:20])
    assert counts["impossible"] > 0 and counts["valid"] + counts["impossible"] == STRESS_CASES
    assert counts["flipped"] > 0
