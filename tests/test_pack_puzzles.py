"""Packing the puzzles: the ESICUP instances of ``tests/data/puzzles/`` to a
sane density, and jigsaws cut from the unit square (given, interlocking,
quarter-turned) assembled back.  Every layout goes through the independent
checkers (``tests/pack_checker.py``, ``tests/bench/checker.py``)."""
from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import List, Tuple

import numpy as np
import pytest
import shapely
import shapely.geometry
import shapely.ops

if __package__ in (None, ""):  # plain `pytest` puts tests/ first on sys.path, not the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvnest  # noqa: E402
from tests.bench.checker import check_layout  # noqa: E402
from tests.bench.puzzles import load_puzzle, puzzles_dir  # noqa: E402
from tests.pack_checker import assert_valid  # noqa: E402


@pytest.mark.parametrize("name", ["dighe1", "terashima2-TA001C5-bin0"])
def test_puzzles_pack_validly_to_a_sane_density(name):
    model = load_puzzle(puzzles_dir() / f"{name}.json")  # vendored in tests/data: never missing
    first = uvnest.Packer(model.uvs, model.faces, margin=0.0, rotation=model.rotation).best
    res = uvnest.pack(model.uvs, model.faces, margin=0.0, rotation=model.rotation, time_limit=1.5)
    assert_valid(res, model.uvs, model.faces, margin=0.0, rotation=model.rotation)
    bench = check_layout(model, res.uvs, 0.0)        # the benchmark's checker agrees
    assert bench.valid, bench.first_violation
    density = res.coverage / model.optimum
    print(f"{name}: density {density:.4f} ({res.iterations} moves)")
    assert first.coverage - 1e-12 <= res.coverage
    assert 0.5 <= density <= 1.0 + 1e-9


def _jigsaw(seed: int, pieces: int):
    """The unit square cut into convex pieces by straight lines (each cut
    splits the largest piece near its centroid at a random angle), the
    pieces in the orientation they were cut in, spread apart on a grid:
    they pack at coverage 1 exactly as given, and only so (turned, the cut
    edges no longer line up)."""
    rng = np.random.default_rng(seed)
    parts = [shapely.box(0.0, 0.0, 1.0, 1.0)]
    while len(parts) < pieces:
        parts.sort(key=lambda p: p.area)
        p = parts.pop()
        c = np.array(p.centroid.coords[0]) + rng.uniform(-0.15, 0.15, 2) * math.sqrt(p.area)
        a = rng.uniform(0, math.pi)
        d = 4 * np.array([math.cos(a), math.sin(a)])
        parts.extend(shapely.get_parts(shapely.ops.split(p, shapely.LineString([c - d, c + d]))))
    cols = math.ceil(math.sqrt(len(parts)))
    uvs, faces, base = [], [], 0
    for k, p in enumerate(parts):
        ring = np.asarray(shapely.geometry.polygon.orient(p, 1.0).exterior.coords)[:-1]
        uvs.append(ring + 1.2 * np.array([k % cols, k // cols]))
        faces += [[base, base + j, base + j + 1] for j in range(1, len(ring) - 1)]
        base += len(ring)
    return np.vstack(uvs), faces


@pytest.mark.parametrize("rotation", ["any", "none"])
def test_jigsaws_are_solved_as_given(rotation):
    """Pieces that tile the square only in the orientation they were given.
    With rotation none, and with rotation any through the as-given search
    (islands in their input orientation, interleaved with the main search),
    half of r's range picks a vertex of the island's collision-free region,
    where a piece touches two others (or walls) and exact fits lie.  Before
    the as-given search the main search alone, turning pieces to their
    minimal boxes, reached 0.66 to 0.83 on all eight; with the as-given
    search placing on the regions' boundary only, 3 of 8 reached 0.99
    (median 0.94); now 7 or 8 of 8 do."""
    coverages = []
    for seed in range(8):
        uvs, faces = _jigsaw(seed, 6)
        packer = uvnest.Packer(uvs, faces, margin=0.0, rotation=rotation, seed=0)
        packer.step(seconds=None, iterations=3000)
        res = packer.best
        assert_valid(res, uvs, faces, margin=0.0, rotation=rotation)
        assert packer.stats["rejected"] == 0
        coverages.append(res.coverage)
    print("jigsaw coverages", rotation, np.round(coverages, 4))
    assert sum(c >= 0.99 for c in coverages) >= 6, coverages
    assert np.median(coverages) >= 0.99, coverages


def _interlocking_jigsaw(seed: int, cells: int = 3, quarter_turned: bool = False):
    """The unit square cut into cells x cells pieces whose inner sides carry
    a tab, a trapezoid narrowing outwards, pushed in or out at random: the
    pieces interlock, and pack at coverage 1 only assembled as cut.  (A tab
    widening outwards, a dovetail, fits its socket at one point only, which
    the engine's slack of a few grid units closes.)  They are spread apart
    on a grid, in the orientation they were cut in, or with
    ``quarter_turned`` each turned about its box centre by a random quarter
    turn."""
    rng = np.random.default_rng(seed)
    turns = np.random.default_rng(1000 + seed)
    h = 1.0 / cells

    def tab(p, q):
        p, q = np.asarray(p, float), np.asarray(q, float)
        d = q - p
        # the tab spans at most 0.28 .. 0.72 of the side and reaches at most
        # 0.22 across: tabs of two sides never meet at a corner
        out = rng.choice([-1.0, 1.0]) * rng.uniform(0.12, 0.22) * np.array([-d[1], d[0]])
        c, w = rng.uniform(0.4, 0.6), rng.uniform(0.08, 0.12)
        return [p + (c - w) * d, p + (c - w + 0.04) * d + out, p + (c + w - 0.04) * d + out, p + (c + w) * d]

    up = {(i, j): tab((i * h, j * h), (i * h, (j + 1) * h)) for i in range(1, cells) for j in range(cells)}
    across = {(i, j): tab((i * h, j * h), ((i + 1) * h, j * h)) for i in range(cells) for j in range(1, cells)}
    uvs, faces, base = [], [], 0
    for i in range(cells):
        for j in range(cells):
            ring = [(i * h, j * h), *across.get((i, j), []), ((i + 1) * h, j * h), *up.get((i + 1, j), []),
                    ((i + 1) * h, (j + 1) * h), *reversed(across.get((i, j + 1), [])), (i * h, (j + 1) * h),
                    *reversed(up.get((i, j), []))]
            piece = shapely.Polygon(ring)
            assert piece.is_valid
            ring = np.asarray(shapely.geometry.polygon.orient(piece, 1.0).exterior.coords)[:-1]
            index = {tuple(v): k for k, v in enumerate(ring)}
            for t in shapely.get_parts(shapely.constrained_delaunay_triangles(piece)):
                faces.append([base + index[tuple(c)] for c in np.asarray(t.exterior.coords)[:3]])
            if quarter_turned:
                centre = 0.5 * (ring.min(0) + ring.max(0))
                turn = np.linalg.matrix_power(np.array([[0.0, -1.0], [1.0, 0.0]]), int(turns.integers(4)))
                ring = (ring - centre) @ turn.T + centre
            uvs.append(ring + 0.7 * h * np.array([i, j]))
            base += len(ring)
    return np.vstack(uvs), faces


JIGSAW_MOVES = 3000


def _assembled_jigsaw(seed: int, rotation: str, quarter_turned: bool) -> Tuple[float, List[float]]:
    """Interlocking jigsaw ``seed`` packed at margin 0 in JIGSAW_MOVES moves
    and checked valid: its coverage and its islands' rotations (a
    background process's work)."""
    uvs, faces = _interlocking_jigsaw(seed, quarter_turned=quarter_turned)
    packer = uvnest.Packer(uvs, faces, margin=0.0, rotation=rotation, seed=0)
    packer.step(seconds=None, iterations=JIGSAW_MOVES)
    assert_valid(packer.best, uvs, faces, margin=0.0, rotation=rotation)
    assert packer.stats["rejected"] == 0
    return packer.best.coverage, [t.rotation for t in packer.best.transforms]


#: The jigsaw tests' (rotation, quarter_turned); each packs seeds 0 to 5.
JIGSAW_TESTS = {"test_interlocking_jigsaws_are_assembled": ("none", False),
                "test_quarter_turned_jigsaws_are_assembled": ("90", True)}
JIGSAW_SEEDS = range(6)


def start_background(jobs, items) -> None:
    """Pack the selected tests' jigsaws in the background pool
    (tests/background.py): they are bounded by moves, never by time."""
    for item in items:
        for seed in JIGSAW_SEEDS:
            jobs.in_process(("jigsaw", seed, *JIGSAW_TESTS[item.name]), _assembled_jigsaw, seed,
                            *JIGSAW_TESTS[item.name])


def _assembled_jigsaws(jobs, test: str) -> list:
    """The six jigsaws of ``test``: (coverage, rotations) each."""
    return [jobs.result(("jigsaw", seed, *JIGSAW_TESTS[test])) for seed in JIGSAW_SEEDS]


@pytest.mark.slow
@pytest.mark.background
def test_interlocking_jigsaws_are_assembled(background_jobs):
    """Pieces with tabs and sockets (rotation none) go together only where
    each one is hugged on every side.  The contact search (every island at
    the vertex of its collision-free regions where it touches the most,
    annealing the sequence only) assembles 5 of these 6 (0.999 or more);
    the (theta, r, f) search alone, the build before it, left all 6 at 0.79
    to 0.84 in as many moves."""
    coverages = [c for c, _ in _assembled_jigsaws(background_jobs, "test_interlocking_jigsaws_are_assembled")]
    print("interlocking jigsaw coverages", np.round(coverages, 4))
    assert sum(c >= 0.99 for c in coverages) >= 5, coverages


@pytest.mark.slow
@pytest.mark.background
def test_quarter_turned_jigsaws_are_assembled(background_jobs):
    """Interlocking pieces each given in a random quarter turn of the way
    they fit, packed with rotation 90: the contact search takes each piece
    at the quarter turn where it touches the most.  It assembles 3 of these
    6 (0.99 or more; the others reach 0.89 to 0.91) in 3000 moves; the
    build before it, with no contact search for rotation 90, none (0.79 to
    0.83)."""
    results = _assembled_jigsaws(background_jobs, "test_quarter_turned_jigsaws_are_assembled")
    coverages = [c for c, _ in results]
    print("quarter-turned jigsaw coverages", np.round(coverages, 4))
    assert sum(c >= 0.99 for c in coverages) >= 3, coverages
    # assembled, the pieces are turned back by quarter turns
    turns = [r for c, rotations in results if c >= 0.99 for r in rotations]
    quarters = np.asarray(turns) / (0.5 * math.pi)
    assert np.allclose(quarters, np.round(quarters), atol=1e-9), turns


@pytest.mark.slow
def test_more_puzzles_for_longer():
    """Four puzzles, 5 s each: valid, and the densities reached (printed)."""
    names = ["dighe1", "dighe2", "terashima1-TA001-bin0", "terashima2-TX023C12C15-bin1"]
    lines = []
    for name in names:
        model = load_puzzle(puzzles_dir() / f"{name}.json")
        res = uvnest.pack(model.uvs, model.faces, margin=0.0, rotation=model.rotation, time_limit=5.0)
        assert_valid(res, model.uvs, model.faces, margin=0.0, rotation=model.rotation)
        density = res.coverage / model.optimum
        lines.append(f"{name}: density {density:.4f} ({res.iterations} moves)")
        assert 0.5 <= density <= 1.0 + 1e-9
    print("\n".join(lines))
