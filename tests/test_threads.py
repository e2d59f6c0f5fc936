"""The parallel search through the Python API (``threads``, issue 27).

Each thread runs a chain of its own; the best layout migrates between them
at fixed move counts (csrc/chains.c).  The serial search is the oracle:
``threads=1`` must be it, and chain 0 of a parallel search is exactly it
(it takes no migration), so the best of the chains (what ``best`` and
``improvements()`` show) can only match or beat it.  Every layout is
checked by the independent shapely checker (``tests/pack_checker.py``).
The C side, under ThreadSanitizer too, is tests/csrc/test_threads.c.
"""
from __future__ import annotations

import gc
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

if __package__ in (None, ""):  # plain `pytest` puts tests/ first on sys.path, not the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvnest  # noqa: E402
from uvnest import _core  # noqa: E402
from tests.pack_checker import assert_valid  # noqa: E402
from tests.pack_shapes import _assemble, _concave_set, _islands, _rects, _sig  # noqa: E402
from tests.test_time_limits import CANCEL_S, _slack, wavy_islands  # noqa: E402

MARGIN = 0.01
#: four islands annealed: a round between migrations is then 2 (30 + 6 * 4)
#: = 108 moves (csrc/tuning.h's ROUND_STALLS and stall length), and moves
#: are cheap
OPTIONS = dict(margin=MARGIN, anneal_max=4)


def scene(seed: int, n: int = 10):
    """``n`` random concave islands (stars, polyominoes, annuli) of mixed sizes."""
    rng = np.random.default_rng(seed)
    return _assemble(_islands(rng, n, rng.uniform(0.3, 1.0, n)))


@pytest.fixture(scope="module")
def islands():
    return scene(5)


def test_a_seed_moves_and_threads_decide_the_layout_however_the_moves_are_split(islands):
    uvs, faces = islands
    one = uvnest.pack(uvs, faces, **OPTIONS, seed=3, threads=2, time_limit=None, iterations=120)
    again = uvnest.pack(uvs, faces, **OPTIONS, seed=3, threads=2, time_limit=None, iterations=120)
    split = uvnest.Packer(uvs, faces, **OPTIONS, seed=3, threads=2)
    for n in (1, 7, 90, 2, 20):
        split.step(seconds=None, iterations=n)
    assert split.stats["rounds"] == 1, "the moves crossed no migration"
    assert split.stats["chains"] == 2 and split.stats["moves_all"] == 2 * 120
    assert np.array_equal(one.uvs, again.uvs)
    assert np.array_equal(one.uvs, split.best.uvs)
    assert_valid(one, uvs, faces, margin=MARGIN)


@pytest.mark.parametrize("moves", [120, 240])
def test_equal_layouts_of_two_chains_rank_the_same_however_the_moves_are_split(moves):
    """Two chains often find layouts of equal rank (the same container at
    a step of the scale search).  The best of all chains is the one found
    at the earliest move, so calls ending between the two finds and a
    single call agree: ranked by chain at each call's end, a single call
    of 120 moves gave chain 0's layout where 1-move calls kept chain 1's
    (the CI failure of test_iteration_budget_alone_decides_the_layout,
    whose pack() splits its moves by wall time; 240 moves cross a
    migration)."""
    uvs, faces = _concave_set(5, 6)
    opts = dict(margin=MARGIN, rotation="any", flip=True, seed=4, threads=2)
    n = moves
    rng = np.random.default_rng(n)
    random_split = np.diff(np.unique(np.r_[0, rng.integers(1, n, 9), n]))
    layouts = []
    for split in ([n], [1] * n, [40] * (n // 40), [24] * (n // 24), [1, n - 1], list(random_split)):
        assert sum(split) == n
        p = uvnest.Packer(uvs, faces, **opts)
        for part in split:
            p.step(seconds=None, iterations=int(part))
        assert p.stats["chains"] == 2 and p.stats["moves"] == n
        layouts.append(p.best)
    assert p.stats["rounds"] == n // 240, "a migration where none was expected, or none where one was"
    for other in layouts[1:]:
        assert _sig(other) == _sig(layouts[0])
    assert_valid(layouts[0], uvs, faces, margin=MARGIN, flip=True, rotation="any")


def test_moves_after_a_timed_step_are_made():
    """A timed step runs the chains free and is cut at its time, often past
    the end of a round; a step of N moves after it makes N moves.  It made
    none when the cut left every chain past its round's end (4 rectangles,
    moves of tens of microseconds: 2 runs of 8 made no move)."""
    uvs, faces = _rects([(0.5, 0.3, 10), (0.4, 0.2, 35), (0.3, 0.3, 60), (0.6, 0.1, 5)])
    for k in range(10):
        p = uvnest.Packer(uvs, faces, margin=MARGIN, anneal_max=4, seed=k, threads=2)
        p.step(seconds=0.1 + 0.04 * k)
        before = p.stats["moves"]
        p.step(seconds=None, iterations=150)
        assert p.stats["moves"] == before + 150, (k, before, p.stats)


def test_one_thread_is_the_serial_search(islands):
    """threads=1 runs the packer of before: the same moves and layout as the
    engine made without the option."""
    uvs, faces = islands
    p = uvnest.Packer(uvs, faces, **OPTIONS, seed=2, threads=1)
    p.step(seconds=None, iterations=120)
    o = p._opt
    core = _core.Packer(p._engine_target(), o.engine_margin, o.engine_padding, o.angles, o.align, o.flip, o.seed,
                        o.cache_bytes, o.anneal_max, 0.0, 0, False)   # no threads argument: the serial engine
    for rings, area in zip(p._shapes, p._areas):
        core.add_island(rings, area)
    assert core.start()
    for n in (1, 30, 89):
        core.run(n)
    mine, serial = p._core.best(), core.best()
    for a, b in zip(mine, serial):
        assert np.array_equal(a, b)
    st = p.stats
    assert st["chains"] == 1 and st["moves_all"] == st["moves"] == core.stats()["moves"] == 120
    assert st["layouts"] == core.stats()["layouts"]


@pytest.mark.parametrize("seed", [1, 5])
def test_streaming_shows_the_best_of_all_chains(seed):
    """Chain 0 is the serial search move for move, across migrations (it
    takes no other chain's layout): what improvements() streams with two
    chains matches or beats the serial search, rises strictly, and ends at
    the best chain's layout."""
    uvs, faces = scene(seed)
    serial = uvnest.Packer(uvs, faces, **OPTIONS, seed=seed, threads=1)
    serial.step(seconds=None, iterations=350)
    p = uvnest.Packer(uvs, faces, **OPTIONS, seed=seed, threads=2)
    got = list(p.improvements(iterations=350))
    assert p.stats["rounds"] == 3, "the moves crossed three migrations"
    assert p.stats["serial_coverage"] == serial.stats["coverage"]
    cov = [r.coverage for r in got]
    assert all(b > a for a, b in zip(cov, cov[1:]))
    assert got[-1] is p.best
    assert p.best.coverage == pytest.approx(p.stats["coverage"], rel=1e-9)
    assert p.best.coverage >= serial.best.coverage
    assert_valid(p.best, uvs, faces, margin=MARGIN)


def right_triangles(n: int = 10):
    """``n`` right triangles of different sizes side by side: their boxes
    waste half, so the annealing's random moves decide the layout."""
    uvs = [[[2.0 * i, 0.0], [2.0 * i + 0.5 + 0.07 * i, 0.0], [2.0 * i, 0.9 - 0.05 * i]] for i in range(n)]
    return np.array(uvs).reshape(-1, 2), np.arange(3 * n).reshape(n, 3)


def test_more_chains_find_other_layouts():
    """The chains search with their own random moves: over a few seeds the
    two-chain layout differs from the serial one somewhere (within a round
    the serial search's side searches and box layouts often stay the best:
    of seeds 1 to 5, 4 and 5 differ at 100 moves)."""
    uvs, faces = right_triangles()
    for seed in (5, 4, 1):
        a = uvnest.pack(uvs, faces, **OPTIONS, seed=seed, threads=1, time_limit=None, iterations=100)
        b = uvnest.pack(uvs, faces, **OPTIONS, seed=seed, threads=2, time_limit=None, iterations=100)
        assert_valid(b, uvs, faces, margin=MARGIN)
        if not np.array_equal(a.uvs, b.uvs):
            assert b.coverage >= a.coverage   # before the first migration: the best of both chains
            return
    pytest.fail("two chains always gave the serial layout")


@pytest.mark.parametrize("dense", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_a_time_limit_holds_with_threads(islands, dense):
    """From the call, first layouts included (dense: test_time_limits'
    islands, whose exact first layout takes seconds)."""
    uvs, faces = wavy_islands(24, seed=3) if dense else islands
    t0 = time.perf_counter()
    r = uvnest.pack(uvs, faces, margin=MARGIN, time_limit=0.5, threads=3)
    assert time.perf_counter() - t0 < 0.5 + _slack(0.5)
    assert_valid(r, uvs, faces, margin=MARGIN)


def test_a_cancel_reaches_every_chain(islands):
    uvs, faces = islands
    cancel = uvnest.Cancel()
    p = uvnest.Packer(uvs, faces, **OPTIONS, threads=3, cancel=cancel)
    timer = threading.Timer(0.3, cancel.set)
    t0 = time.perf_counter()
    timer.start()
    p.step(seconds=30)
    late = time.perf_counter() - t0 - 0.3
    timer.join()
    assert late < CANCEL_S, f"the chains ran on {late:.3f} s after the cancel"
    moves = p.stats["moves_all"]
    assert moves > 0
    # Packer.cancel() from another thread, during improvements()
    q = uvnest.Packer(uvs, faces, **OPTIONS, threads=2)
    threading.Timer(0.3, q.cancel).start()
    t0 = time.perf_counter()
    list(q.improvements(time_limit=30))
    assert time.perf_counter() - t0 < 0.3 + CANCEL_S
    assert_valid(q.best, uvs, faces, margin=MARGIN)


def _os_threads() -> int:
    """Threads of this process that Python did not start: the kernel's
    (C threads too) less Python's own, so that Python threads other work
    of this process starts meanwhile (the suite's background jobs, deadline
    timers) do not count."""
    kernel = {int(task.name) for task in Path("/proc/self/task").iterdir()}
    return len(kernel - {t.native_id for t in threading.enumerate()})


def _settles_at(count: int, within: float = 5.0) -> bool:
    """Does the process's thread count come to ``count`` within ``within``
    seconds?  (Python's cancelled deadline timers take a moment to end.)"""
    end = time.perf_counter() + within
    while _os_threads() != count:
        if time.perf_counter() > end:
            return False
        time.sleep(0.01)
    return True


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux's /proc")
def test_the_threads_are_started_once_and_freed_with_the_packer(islands):
    """A packer's worker threads start with its first layout (the
    constructor's), serve every later search call, lockstep or free (none
    started or left behind per call), and end when the packer is freed."""
    uvs, faces = islands
    gc.collect()   # the packers earlier tests left in reference cycles, and their threads
    for t in threading.enumerate():
        if t is not threading.current_thread():
            t.join(timeout=5)   # earlier tests' deadline timers, cancelled, on their way out
    before = _os_threads()
    p = uvnest.Packer(uvs, faces, **OPTIONS, seed=1, threads=3)
    assert _settles_at(before + 2), "one worker per chain but the caller's"
    for _ in range(20):
        p.step(seconds=None, iterations=7)
        p._core.run(5, False)   # a free run, as step(seconds=...) makes (without its timer thread)
        assert _settles_at(before + 2, within=1.0)   # (a Python thread just started is not listed yet)
    assert p.stats["moves_all"] >= 3 * 20 * 7
    del p
    gc.collect()
    assert _settles_at(before)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2", 4096])
def test_bad_thread_counts_raise_a_value_error(islands, bad):
    uvs, faces = islands
    with pytest.raises(ValueError, match="threads"):
        uvnest.Packer(uvs, faces, threads=bad)


def test_the_default_uses_every_core(islands):
    uvs, faces = islands
    p = uvnest.Packer(uvs, faces, margin=MARGIN)
    assert p.stats["chains"] == uvnest.cpu_cores()


@pytest.mark.parametrize("jobs, files, scheduler, expected", [
    (None, 1, None, lambda cores: cores),                     # one file: every core
    (None, 50, None, lambda cores: 1),                        # a file per core
    (2, 50, None, lambda cores: max(1, cores // 2)),          # -j 2: half the cores each
    (4, 2, None, lambda cores: max(1, cores // 2)),           # only 2 files at once
    (None, 50, "local", lambda cores: 1),                     # a LocalCluster: a worker per core
    (None, 50, "tcp://head:8786", lambda cores: None),        # a cluster: each worker's cores
])
def test_the_command_line_divides_the_cores_between_the_files(jobs, files, scheduler, expected):
    import argparse

    from uvnest.cli.pack import _threads_per_file
    args = argparse.Namespace(jobs=jobs, scheduler=scheduler)
    assert _threads_per_file(args, files) == expected(uvnest.cpu_cores())
