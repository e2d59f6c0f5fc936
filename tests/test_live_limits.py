"""The live session (the Blender operator's engine) is bounded in every phase.

A cancel or a keep stops the worker within half a second whether it is
finding islands, building the first layout or searching, and a time limit
puts a valid layout in the session's hands by the limit: the box layout
when the exact first layout is not ready.  Inputs are dense wavy islands
whose exact first layout takes seconds (``tests/test_time_limits.py``);
layouts are checked with shapely on the output faces.
"""
from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import List

import numpy as np
import pytest
import shapely

if __package__ in (None, ""):  # plain `pytest` puts tests/ first on sys.path, not the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.pack_checker import face_components  # noqa: E402
from tests.test_time_limits import wavy_islands  # noqa: E402
import uvnest.packing  # noqa: E402
from uvnest.live import FIRST_LAYOUT_SECONDS, Layout, Limits, LiveSession, MeshLoops, PackSettings  # noqa: E402

#: The operator's promise: the worker is gone this long after a keep or cancel.
STOP_S = 0.5
MARGIN = 0.004


@pytest.fixture(scope="module")
def dense() -> MeshLoops:
    """24 dense wavy islands (49,152 quads) as one mesh, every face selected."""
    uvs, faces = wavy_islands(24, seed=3)
    loops = faces.reshape(-1)
    n = len(faces)
    return MeshLoops(uvs=uvs[loops].astype(np.float32), loop_start=np.arange(n, dtype=np.int64) * 4,
                     loop_total=np.full(n, 4, np.int64), loop_vert=loops.astype(np.int64),
                     selected=np.ones(n, bool), hidden=np.zeros(n, bool), pinned=np.zeros(n, bool), name="wavy")


def session(mesh: MeshLoops, **limits: float) -> LiveSession:
    settings = PackSettings(margin=MARGIN, margin_method="FRACTION", merge_overlapping=False)
    return LiveSession([mesh], settings, Limits(**limits))


def streamed(s: LiveSession) -> List[Layout]:
    """Poll a started session until it ends, as the operator does; every layout handed out."""
    out: List[Layout] = []
    while True:
        done = s.done
        layout = s.poll()
        if layout is not None:
            out.append(layout)
        if done:
            return out
        time.sleep(0.005)


def assert_valid_layout(mesh: MeshLoops, uvs: np.ndarray) -> None:
    """Every island inside the unit tile and at least the margin from every other (shapely)."""
    faces = np.arange(len(uvs)).reshape(-1, 4)
    face_island, n = face_components(mesh.loop_vert.reshape(-1, 4), int(mesh.loop_vert.max()) + 1)
    polys = shapely.polygons(uvs.astype(np.float64)[faces])
    islands = [shapely.union_all(polys[face_island == i]) for i in range(n)]
    lo, hi = uvs.min(axis=0), uvs.max(axis=0)
    assert lo.min() >= -1e-6 and hi.max() <= 1 + 1e-6, (lo, hi)
    tree = shapely.STRtree(islands)
    left, right = tree.query(islands, predicate="dwithin", distance=MARGIN)
    for a, b in zip(left.tolist(), right.tolist()):
        if a < b:  # FRACTION keeps the margin around each island: 2 * margin between them
            assert islands[a].distance(islands[b]) >= 2 * MARGIN - 1e-6, (a, b)


@pytest.mark.parametrize("at", [0.05, 0.4, 1.5])
@pytest.mark.parametrize("end", ["cancel", "keep"])
def test_the_worker_stops_within_half_a_second_in_every_phase(dense: MeshLoops, at: float, end: str) -> None:
    """Finding islands (the first tenths of a second), the first layout,
    the box layout and the search: each stops at once."""
    s = session(dense, time_limit=60.0)
    s.start()
    time.sleep(at)
    t0 = time.perf_counter()
    out = s.cancel(timeout=5.0) if end == "cancel" else s.keep(timeout=5.0)
    stopped = time.perf_counter() - t0
    assert not s._thread.is_alive()
    assert stopped <= STOP_S, f"{end} at {at} s took {stopped:.3f} s"
    if end == "cancel":
        assert np.array_equal(out[0].view(np.uint32), dense.uvs.view(np.uint32))
    elif out is not None:
        assert_valid_layout(dense, out.loop_uvs[0])


def test_a_layout_is_ready_by_the_time_limit(dense: MeshLoops) -> None:
    """With a time limit shorter than the exact first layout, the box layout
    is published by the limit, and the session ends at the limit."""
    limit = 0.8
    s = session(dense, time_limit=limit)
    s.start()
    layouts = streamed(s)
    assert s.error is None and layouts
    first = layouts[0]
    assert first.elapsed <= limit + 0.1, first.elapsed
    assert s.progress.elapsed <= limit + 0.3, s.progress.elapsed
    assert_valid_layout(dense, s.best.loop_uvs[0])


def test_the_exact_layout_follows_the_box_layout_without_a_limit(dense: MeshLoops) -> None:
    """Without a time limit, the box layout (or the convex one, when it is
    ready in time) is shown after a fifth of a second and the exact first
    layout, tighter, replaces it."""
    s = session(dense, iterations=1)
    s.start()
    layouts = streamed(s)
    assert s.error is None
    kinds = [layout.kind for layout in layouts]
    assert kinds[0] in ("box", "convex") and kinds[-1] == "exact", kinds
    assert layouts[0].elapsed <= FIRST_LAYOUT_SECONDS + 0.3
    assert layouts[-1].coverage > layouts[0].coverage
    for layout in (layouts[0], layouts[-1]):
        assert_valid_layout(dense, layout.loop_uvs[0])


def test_steps_make_moves_when_a_result_costs_more_than_a_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """A layout that takes longer to build and check than a step lasts (a
    dense mesh, a loaded machine) must not stop the search: each timed step
    keeps the result's cost free before its end, so steps as short as that
    made no move however often they ran, and a session with a move limit
    and no time limit never ended (improvements() with a move budget
    neither).  Here every result takes 0.15 s, three steps' worth."""
    slow_result = uvnest.packing.Packer._checked_result

    def slowly(self, *args, **kwargs):
        time.sleep(0.15)
        return slow_result(self, *args, **kwargs)

    monkeypatch.setattr(uvnest.packing.Packer, "_checked_result", slowly)
    uvs, faces = wavy_islands(4, seed=1, seg=32, rings=2)
    packer = uvnest.Packer(uvs, faces, margin=MARGIN, seed=0, threads=1)
    searched = threading.Thread(target=lambda: list(packer.improvements(iterations=40)), daemon=True)
    searched.start()
    searched.join(60)
    if searched.is_alive():
        packer.cancel()
        pytest.fail(f"improvements(iterations=40) still ran after 60 s, at {packer.stats['moves']} moves")
    assert packer.stats["moves"] >= 40

    loops = faces.reshape(-1)
    mesh = MeshLoops(uvs=uvs[loops].astype(np.float32), loop_start=np.arange(len(faces), dtype=np.int64) * 4,
                     loop_total=np.full(len(faces), 4, np.int64), loop_vert=loops.astype(np.int64),
                     selected=np.ones(len(faces), bool), hidden=np.zeros(len(faces), bool),
                     pinned=np.zeros(len(faces), bool), name="wavy")
    s = session(mesh, iterations=40)
    s.start()
    t0 = time.perf_counter()
    while not s.done and time.perf_counter() - t0 < 60:
        s.poll()
        time.sleep(0.01)
    if not s.done:
        s.cancel()
        pytest.fail(f"the session still ran after 60 s, at {s.progress.iterations} moves")
    assert s.error is None and s.progress.reason == "iteration limit", s.progress
