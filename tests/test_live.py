"""The live packing session behind the Blender operator, without Blender (``uvnest.live``).

Synthetic meshes stand in for Blender's loops: islands are grids of quads
with their own mesh vertices, one UV per loop, as Blender stores them.
Layouts are checked with shapely, independently of the engine: islands
(Blender's rule: faces joined across mesh edges whose UVs match) at least
the margin apart and inside the target.
"""
from __future__ import annotations

import math
import time
from typing import List, Optional, Sequence, Tuple

import numpy as np
import pytest
import shapely
import shapely.affinity

import uvnest.live

from uvnest.live import (Layout, Limits, LiveSession, MeshLoops, PackError, PackSettings, box_angle,
                         closest_udim_tile, udim_tile_at)
from uvnest.tiles import checked_tiles, udim_box, udim_tile_of

TOL = 1e-6


def gap(width: float, **options) -> PackSettings:
    """Settings whose islands end ``width`` apart: Blender's FRACTION margin
    keeps half of it around each island (and from the target's border)."""
    return PackSettings(margin=width / 2, margin_method="FRACTION", **options)


# ------------------------------------------------------------------ meshes


class MeshBuilder:
    """Builds a :class:`MeshLoops` island by island."""

    def __init__(self, name: str = "mesh") -> None:
        self.name = name
        self.uvs: List[Tuple[float, float]] = []
        self.verts: List[int] = []
        self.sizes: List[int] = []
        self.n_verts = 0

    def face(self, corners: Sequence[Tuple[int, Tuple[float, float]]]) -> int:
        """Add a face from ``(mesh vertex, uv)`` corners; return its index."""
        for vert, uv in corners:
            self.verts.append(vert)
            self.uvs.append(uv)
        self.sizes.append(len(corners))
        return len(self.sizes) - 1

    def grid(self, x: float, y: float, w: float, h: float, nx: int = 2, ny: int = 2) -> List[int]:
        """An island: ``nx`` by ``ny`` quads over the rectangle, on new mesh vertices; returns its faces."""
        vid = np.arange((nx + 1) * (ny + 1)).reshape(ny + 1, nx + 1) + self.n_verts
        self.n_verts += (nx + 1) * (ny + 1)
        faces = []
        for j in range(ny):
            for i in range(nx):
                corners = [(a, b) for a, b in ((i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1))]
                faces.append(self.face([(int(vid[b, a]), (x + w * a / nx, y + h * b / ny)) for a, b in corners]))
        return faces

    def build(self, selected: Optional[np.ndarray] = None, hidden: Optional[np.ndarray] = None,
              pinned: Optional[np.ndarray] = None) -> MeshLoops:
        n = len(self.sizes)
        total = np.array(self.sizes, dtype=np.int64)
        start = np.concatenate(([0], np.cumsum(total)[:-1])).astype(np.int64)
        return MeshLoops(uvs=np.array(self.uvs, dtype=np.float32), loop_start=start, loop_total=total,
                         loop_vert=np.array(self.verts, dtype=np.int64),
                         selected=np.ones(n, bool) if selected is None else selected,
                         hidden=np.zeros(n, bool) if hidden is None else hidden,
                         pinned=np.zeros(n, bool) if pinned is None else pinned, name=self.name)


def random_mesh(n_islands: int = 12, seed: int = 1, offset: Tuple[float, float] = (0.0, 0.0)) -> MeshBuilder:
    """Islands of 2x2 or 1x3 quads with random sizes scattered over a tile, none overlapping."""
    rng = np.random.default_rng(seed)
    b = MeshBuilder()
    boxes: List[Tuple[float, float, float, float]] = []
    while len(boxes) < n_islands:
        w, h = 0.03 + 0.12 * rng.random(2)
        x, y = rng.random(2) * (1 - np.array([w, h]))
        if any(x < bx + bw and bx < x + w and y < by + bh and by < y + h for bx, by, bw, bh in boxes):
            continue
        boxes.append((x, y, w, h))
        b.grid(float(x + offset[0]), float(y + offset[1]), float(w), float(h),
               *((2, 2) if len(boxes) % 2 else (1, 3)))
    return b


def turned_mesh(n_islands: int = 8, seed: int = 3) -> MeshBuilder:
    """Islands of 2x2 quads whose UVs are rectangles turned by random angles, none overlapping, in tile 1001."""
    rng = np.random.default_rng(seed)
    b = MeshBuilder()
    placed: List[Tuple[float, float, float]] = []
    while len(placed) < n_islands:
        w, h = 0.04 + 0.1 * rng.random(2)
        r = float(np.hypot(w, h)) / 2
        cx, cy = r + rng.random(2) * (1 - 2 * r)
        if any(np.hypot(cx - x, cy - y) < r + q for x, y, q in placed):
            continue
        placed.append((cx, cy, r))
        angle = rng.uniform(0, np.pi)
        c, sn = np.cos(angle), np.sin(angle)
        vid = np.arange(9).reshape(3, 3) + b.n_verts
        b.n_verts += 9
        for j in range(2):
            for i in range(2):
                corners = []
                for a, bb in ((i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)):
                    x, y = w * (a / 2 - 0.5), h * (bb / 2 - 0.5)
                    corners.append((int(vid[bb, a]), (cx + x * c - y * sn, cy + x * sn + y * c)))
                b.face(corners)
    return b


def island_faces(m: MeshLoops) -> List[np.ndarray]:
    """The faces of each island of a :func:`turned_mesh` (four faces each)."""
    return [np.arange(k, k + 4) for k in range(0, len(m.loop_start), 4)]


def polygon(m: MeshLoops, uvs: np.ndarray, faces: np.ndarray) -> shapely.Geometry:
    """The union of ``faces`` with per-loop ``uvs``."""
    return shapely.union_all([shapely.Polygon(uvs[m.loop_start[f]:m.loop_start[f] + m.loop_total[f]].astype(float))
                              for f in faces])


def full(session: LiveSession, meshes: Sequence[MeshLoops], layout: Layout) -> List[np.ndarray]:
    return session.full_uvs([m.uvs for m in meshes], layout)


def bits(a: np.ndarray) -> np.ndarray:
    """The float32 array as raw bits, for bit-for-bit comparisons."""
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


def islands_of(m: MeshLoops, uvs: np.ndarray, faces: np.ndarray) -> List[shapely.Geometry]:
    """Polygons of the islands of ``faces`` (Blender's rule), from the loop UVs ``uvs``."""
    parent = {int(f): int(f) for f in faces}

    def find(f: int) -> int:
        while parent[f] != f:
            parent[f] = parent[parent[f]]
            f = parent[f]
        return f

    edges = {}
    for f in faces:
        s, t = int(m.loop_start[f]), int(m.loop_total[f])
        for k in range(t):
            a, b = s + k, s + (k + 1) % t
            va, vb = int(m.loop_vert[a]), int(m.loop_vert[b])
            key = (min(va, vb), max(va, vb)) + tuple(uvs[a if va < vb else b]) + tuple(uvs[b if va < vb else a])
            if key in edges:
                parent[find(edges[key])] = find(int(f))
            else:
                edges[key] = int(f)
    groups = {}
    for f in faces:
        groups.setdefault(find(int(f)), []).append(int(f))
    polys = []
    for members in groups.values():
        rings = [shapely.Polygon(uvs[m.loop_start[f]:m.loop_start[f] + m.loop_total[f]]) for f in members]
        polys.append(shapely.union_all(rings))
    return polys


def check_layout(m: MeshLoops, uvs: np.ndarray, faces: np.ndarray, margin: float,
                 target: Tuple[float, float, float, float]) -> float:
    """Assert the islands of ``faces`` are ``margin`` apart and inside ``target``; return their coverage."""
    polys = islands_of(m, uvs.astype(np.float64), faces)
    for i in range(len(polys)):
        for j in range(i + 1, len(polys)):
            d = polys[i].distance(polys[j])
            assert d >= margin - TOL, f"islands {i} and {j} are {d} apart, margin {margin}"
    x0, y0, x1, y1 = target
    used = uvs[np.concatenate([np.arange(m.loop_start[f], m.loop_start[f] + m.loop_total[f]) for f in faces])]
    lo, hi = used.min(axis=0), used.max(axis=0)
    assert lo[0] >= x0 - TOL and lo[1] >= y0 - TOL and hi[0] <= x1 + TOL and hi[1] <= y1 + TOL
    return float(sum(p.area for p in polys) / ((x1 - x0) * (y1 - y0)))


def wait_done(session: LiveSession, timeout: float = 30.0) -> List[Layout]:
    """Poll like the modal operator until the session ends by itself; return the layouts polled."""
    seen = []
    deadline = time.perf_counter() + timeout
    while not session.done:
        assert time.perf_counter() < deadline, "the session did not end by itself"
        layout = session.poll()
        if layout is not None:
            seen.append(layout)
        time.sleep(0.01)
    layout = session.poll()
    if layout is not None:
        seen.append(layout)
    return seen


# ------------------------------------------------------------------ live


def test_improvements_are_applied_in_order_and_keep_leaves_the_best() -> None:
    m = random_mesh(14).build()
    s = LiveSession([m], gap(0.01), Limits(time_limit=3.0))
    s.start()
    work = m.uvs.copy()
    seen: List[Layout] = []
    deadline = time.perf_counter() + 20
    while len(seen) < 3 and not s.done and time.perf_counter() < deadline:
        layout = s.poll()
        if layout is not None:  # what the modal operator does on a timer event
            work[s.moving_loops[0]] = layout.loop_uvs[0]
            seen.append(layout)
        time.sleep(0.01)
    kept = s.keep()
    assert len(seen) >= 3, "expected the first layout and at least two better ones"
    assert [x.number for x in seen] == sorted({x.number for x in seen})
    assert seen[0].number == 0
    assert all(b.coverage > a.coverage for a, b in zip(seen, seen[1:]))
    assert kept is not None and kept.number >= seen[-1].number and kept.coverage >= seen[-1].coverage
    assert kept is s.best
    assert s.progress.state == "kept"
    result = full(s, [m], kept)[0]
    coverage = check_layout(m, result, np.arange(len(m.loop_start)), 0.01, s.target)
    assert coverage == pytest.approx(kept.coverage, rel=1e-3)


def test_the_exact_layout_follows_the_box_layout_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no time for the exact first layout, the box layout is shown
    first; the exact one (or a better one) follows as soon as it is ready,
    not after a search of the session's whole budget (which once held every
    later layout back for as long as an hour)."""
    monkeypatch.setattr(uvnest.live, "FIRST_LAYOUT_SECONDS", 0.0)
    s = LiveSession([random_mesh(10, seed=3).build()], gap(0.005), Limits())
    s.start()
    seen: List[Layout] = []
    deadline = time.perf_counter() + 15
    while len(seen) < 2 and time.perf_counter() < deadline:
        layout = s.poll()
        if layout is not None:
            seen.append(layout)
        time.sleep(0.01)
    s.cancel()
    assert len(seen) == 2 and seen[1].coverage > seen[0].coverage, [x.coverage for x in seen]


def test_cancel_restores_the_original_uvs_bit_for_bit() -> None:
    rng = np.random.default_rng(5)
    b = random_mesh(10, seed=3)
    m = b.build()
    m.uvs += rng.normal(scale=1e-7, size=m.uvs.shape).astype(np.float32)  # bits that rounding would lose
    original = m.uvs.copy()
    s = LiveSession([m], gap(0.005), Limits())
    s.start()
    work = m.uvs.copy()
    applied = 0
    deadline = time.perf_counter() + 20
    while applied < 2 and time.perf_counter() < deadline:
        layout = s.poll()
        if layout is not None:
            work[s.moving_loops[0]] = layout.loop_uvs[0]
            applied += 1
        time.sleep(0.01)
    assert applied == 2
    assert not np.array_equal(bits(work), bits(original))
    restored = s.cancel()
    work[s.moving_loops[0]] = restored[0]
    assert np.array_equal(bits(work), bits(original))
    assert s.progress.state == "cancelled"
    assert np.array_equal(bits(m.uvs), bits(original)), "the session must not modify its input"


def test_run_is_deterministic_with_an_iteration_limit() -> None:
    m = random_mesh(8).build()
    a = LiveSession([m], gap(0.01, seed=3), Limits(iterations=150)).run()
    b = LiveSession([m], gap(0.01, seed=3), Limits(iterations=150)).run()
    assert np.array_equal(bits(a.loop_uvs[0]), bits(b.loop_uvs[0]))


def test_time_limit_ends_the_search() -> None:
    m = random_mesh(10).build()
    s = LiveSession([m], gap(0.01), Limits(time_limit=0.5))
    t0 = time.perf_counter()
    s.start()
    wait_done(s)
    assert time.perf_counter() - t0 < 2.0
    assert s.progress.reason == "time limit" and s.progress.state == "finished"
    assert s.status_text().startswith("uvnest: coverage") and "iterations" in s.status_text()
    assert s.keep() is not None


def test_iteration_limit_ends_the_search() -> None:
    m = random_mesh(10).build()
    s = LiveSession([m], gap(0.01), Limits(iterations=40))
    s.start()
    wait_done(s)
    p = s.progress
    assert p.reason == "iteration limit" and p.iterations >= 40


def test_no_improvement_ends_the_search() -> None:
    b = MeshBuilder()
    b.grid(0.1, 0.1, 0.3, 0.2)
    b.grid(0.5, 0.5, 0.2, 0.2)
    m = b.build()
    s = LiveSession([m], gap(0.01), Limits(time_limit=60.0, stall=0.3))
    t0 = time.perf_counter()
    s.start()
    layouts = wait_done(s, timeout=60)
    assert s.progress.reason == "no improvement for 0.3 s"
    assert time.perf_counter() - t0 < 60
    assert layouts and s.best is not None
    assert s.progress.elapsed - s.best.elapsed >= 0.3 - 0.05


def test_a_final_first_layout_ends_the_search() -> None:
    """Bounding boxes are packed once and for all: no limit is needed to end."""
    m = random_mesh(8).build()
    s = LiveSession([m], gap(0.01, shape="box"), Limits())
    s.start()
    layouts = wait_done(s, timeout=30)
    assert s.progress.reason == "final layout" and [x.number for x in layouts] == [0]
    check_layout(m, full(s, [m], layouts[0])[0], np.arange(len(m.loop_start)), 0.01, s.target)


def test_run_needs_a_limit() -> None:
    with pytest.raises(ValueError, match="limit"):
        LiveSession([random_mesh(3).build()], PackSettings(), Limits()).run()


# ------------------------------------------------------------ what moves


def test_unselected_and_hidden_faces_stay_untouched() -> None:
    b = random_mesh(10, seed=7)
    m0 = b.build()
    n = len(m0.loop_start)
    selected = np.ones(n, bool)
    selected[:8] = False  # two islands unselected
    hidden = np.zeros(n, bool)
    hidden[8:12] = True  # one island hidden (and selected: hidden wins)
    m = b.build(selected=selected, hidden=hidden)
    s = LiveSession([m], gap(0.01), Limits(iterations=200))
    layout = s.run()
    out = full(s, [m], layout)[0]
    still = np.concatenate([np.arange(m.loop_start[f], m.loop_start[f] + m.loop_total[f]) for f in range(12)])
    assert np.array_equal(bits(out[still]), bits(m.uvs[still]))
    assert not np.isin(still, s.moving_loops[0]).any()
    assert s.n_faces == n - 12
    check_layout(m, out, np.arange(12, n), 0.01, s.target)


def test_pinned_islands_stay_put_and_are_obstacles() -> None:
    b = MeshBuilder()
    pinned_faces = b.grid(0.3, 0.3, 0.4, 0.4, 2, 2)  # a big island in the middle
    for k in range(8):
        b.grid(0.05 * k, 0.02, 0.04, 0.1, 1, 2)
    m0 = b.build()
    pinned = np.zeros(len(m0.loop_start), bool)
    pinned[pinned_faces[0]] = True  # one pinned UV is enough to lock its island
    m = b.build(pinned=pinned)
    s = LiveSession([m], gap(0.01, lock_pinned=True), Limits(iterations=300))
    out = full(s, [m], s.run())[0]
    loops = np.arange(0, 16)
    assert np.array_equal(bits(out[loops]), bits(m.uvs[loops]))
    check_layout(m, out, np.arange(len(m.loop_start)), 0.01, s.target)
    # without lock_pinned the pinned island moves like the others
    s2 = LiveSession([m], gap(0.01, lock_pinned=False), Limits(iterations=50))
    out2 = full(s2, [m], s2.run())[0]
    assert not np.array_equal(bits(out2[loops]), bits(m.uvs[loops]))


def test_islands_follow_blenders_rule() -> None:
    """Faces sharing a mesh edge with matching UVs are one island; a seam
    (same edge, different UVs) or a shared corner only separates them."""
    b = MeshBuilder()
    # 0-1: one island (shared edge 1-2 with the same UVs)
    b.face([(0, (0.0, 0.0)), (1, (0.1, 0.0)), (2, (0.1, 0.1)), (3, (0.0, 0.1))])
    b.face([(1, (0.1, 0.0)), (4, (0.2, 0.0)), (5, (0.2, 0.1)), (2, (0.1, 0.1))])
    # 2: shares edge 4-5 with face 1 but across a seam (other UVs)
    b.face([(4, (0.5, 0.5)), (6, (0.6, 0.5)), (7, (0.6, 0.6)), (5, (0.5, 0.6))])
    # 3: touches face 0 at one corner only (vertex 3, same UV)
    b.face([(3, (0.0, 0.1)), (8, (-0.1, 0.1)), (9, (-0.1, 0.2))])
    m = b.build()
    layout = LiveSession([m], gap(0.01, merge_overlapping=False), Limits(iterations=20)).run()
    assert layout.islands == 3  # faces 0-1 | face 2 | face 3


def test_several_meshes_do_not_join() -> None:
    """Two meshes with the same vertex numbers and UVs: their islands stay separate."""
    a = random_mesh(4, seed=2).build()
    b = random_mesh(4, seed=2).build()
    b.name = "other"
    s = LiveSession([a, b], gap(0.01, merge_overlapping=False), Limits(iterations=100))
    layout = s.run()
    assert layout.islands == 8
    assert len(layout.loop_uvs) == 2
    uvs = np.concatenate(full(s, [a, b], layout))
    merged = MeshLoops(uvs=uvs, loop_start=np.concatenate([a.loop_start, b.loop_start + len(a.uvs)]),
                       loop_total=np.concatenate([a.loop_total, b.loop_total]),
                       loop_vert=np.concatenate([a.loop_vert, b.loop_vert + 1000]),
                       selected=np.ones(2 * len(a.loop_start), bool), hidden=np.zeros(2 * len(a.loop_start), bool),
                       pinned=np.zeros(2 * len(a.loop_start), bool))
    check_layout(merged, uvs, np.arange(len(merged.loop_start)), 0.01, s.target)


def test_a_mesh_without_uvs_is_skipped() -> None:
    m = random_mesh(4).build()
    empty = MeshLoops(None, m.loop_start, m.loop_total, m.loop_vert, m.selected, m.hidden, m.pinned, "no uvs")
    s = LiveSession([empty, m], gap(0.01), Limits(iterations=20))
    layout = s.run()
    assert s.moving_loops[0].size == 0 and layout.loop_uvs[0].shape == (0, 2)
    assert layout.loop_uvs[1].shape == m.uvs.shape


# ------------------------------------------------------- Blender's options


def test_box_angle_gives_the_smallest_box_standing_or_lying() -> None:
    rng = np.random.default_rng(2)
    for _ in range(20):
        pts = rng.random((12, 2)) * np.array([0.3, 0.1])
        poly = shapely.MultiPoint(pts).convex_hull
        smallest = shapely.minimum_rotated_rectangle(poly).area
        for pose in ("stand", "lie"):
            turned = shapely.affinity.rotate(poly, box_angle(pts, pose), origin=(0, 0), use_radians=True)
            x0, y0, x1, y1 = turned.bounds
            assert (x1 - x0) * (y1 - y0) == pytest.approx(smallest, rel=1e-6)
            assert (y1 - y0 >= x1 - x0) if pose == "stand" else (x1 - x0 >= y1 - y0)


@pytest.mark.parametrize("rotation", ["axis", "axis_x", "axis_y"])
def test_axis_aligned_rotations(rotation: str) -> None:
    m = turned_mesh().build()
    s = LiveSession([m], gap(0.01, rotation=rotation), Limits(iterations=100))
    out = full(s, [m], s.run())[0]
    for faces in island_faces(m):
        poly = polygon(m, out, faces)
        x0, y0, x1, y1 = poly.bounds
        assert (x1 - x0) * (y1 - y0) == pytest.approx(shapely.minimum_rotated_rectangle(poly).area, rel=1e-5)
        if rotation == "axis_x":
            assert x1 - x0 >= (y1 - y0) * (1 - 1e-6)
        if rotation == "axis_y":
            assert y1 - y0 >= (x1 - x0) * (1 - 1e-6)
    check_layout(m, out, np.arange(len(m.loop_start)), 0.01, s.target)


@pytest.mark.parametrize("method", ["ADD", "SCALED"])
def test_scaled_margins_follow_blenders_formula(method: str) -> None:
    """ADD keeps the margin around each island in its own units, SCALED the margin times a tenth
    of the sum of sqrt(w * h) of the islands' smallest boxes; both scale with the islands."""
    m = turned_mesh().build()
    before = [polygon(m, m.uvs, f) for f in island_faces(m)]
    margin = 0.02
    band = margin if method == "ADD" else margin * 0.1 * sum(
        np.sqrt(shapely.minimum_rotated_rectangle(p).area) for p in before)
    s = LiveSession([m], PackSettings(margin=margin, margin_method=method), Limits(iterations=200))
    out = full(s, [m], s.run())[0]
    after = [polygon(m, out, f) for f in island_faces(m)]
    scale = np.sqrt(after[0].area / before[0].area)
    check_layout(m, out, np.arange(len(m.loop_start)), 2 * band * scale, s.target)
    lo, hi = out.min(axis=0), out.max(axis=0)
    assert min(lo.min(), 1 - hi.max()) >= band * scale - TOL  # the band at the border
    assert s.margin < 4 * band * scale  # the bound on the final scale is not far off


def test_scale_off_keeps_sizes_in_any_target() -> None:
    m = turned_mesh().build()
    before = [polygon(m, m.uvs, f).area for f in island_faces(m)]
    for target, region in (("CLOSEST_UDIM", (0.0, 0.0, 1.0, 1.0)), ("CUSTOM_REGION", (0.3, 0.2, 2.3, 0.9))):
        s = LiveSession([m], gap(0.01, scale=False, target=target, custom_region=region), Limits(iterations=50))
        out = full(s, [m], s.run())[0]
        after = [polygon(m, out, f).area for f in island_faces(m)]
        assert np.allclose(after, before, rtol=1e-5)
        check_layout(m, out, np.arange(len(m.loop_start)), 0.01, region)


def test_scale_off_runs_over_into_copies_of_the_target() -> None:
    """Islands too large together for the target keep their size and continue in copies of
    the target to its right, as Blender lets them run over its edge."""
    b = turned_mesh(8)
    m = b.build()
    m.uvs[:] = m.uvs * 7.0
    before = [polygon(m, m.uvs, f) for f in island_faces(m)]
    region = (0.0, 0.0, 1.5, 1.5)
    assert sum(p.area for p in before) > 1.5 * 1.5  # more than the region holds
    s = LiveSession([m], gap(0.01, scale=False, target="CUSTOM_REGION", custom_region=region), Limits(iterations=50))
    out = full(s, [m], s.run())[0]
    after = [polygon(m, out, f) for f in island_faces(m)]
    assert np.allclose([p.area for p in after], [p.area for p in before], rtol=1e-5)
    copies = set()
    for p in after:
        x0, y0, x1, y1 = p.bounds
        k = int(np.floor(x0 / 1.5 + 1e-9))
        assert k * 1.5 <= x0 + TOL and x1 <= (k + 1) * 1.5 + TOL and 0 <= y0 + TOL and y1 <= 1.5 + TOL
        copies.add(k)
    assert len(copies) >= 2 and min(copies) == 0
    assert min(a.distance(b) for i, a in enumerate(after) for b in after[i + 1:]) >= 0.01 - TOL


def test_non_square_images_pack_with_square_texels() -> None:
    """For an image twice as wide as high, islands turn where texels are square: in pixel
    space each island is only moved, turned and scaled, as with Blender's aspect correction."""
    m = turned_mesh().build()
    aspect = np.array([1.0, 0.5])
    s = LiveSession([m], gap(0.01, rotation="90", aspect=tuple(aspect)), Limits(iterations=100))
    out = full(s, [m], s.run())[0]
    assert s.target == (0.0, 0.0, 1.0, 1.0)
    check_layout(m, out, np.arange(len(m.loop_start)), 0.0, s.target)
    ratios = []
    for faces in island_faces(m):
        loops = np.concatenate([np.arange(m.loop_start[f], m.loop_start[f] + 4) for f in faces])
        a, b = m.uvs[loops].astype(float) * aspect, out[loops].astype(float) * aspect
        da, db = a[:, None, :] - a[None, :, :], b[:, None, :] - b[None, :, :]
        la, lb = np.linalg.norm(da, axis=2), np.linalg.norm(db, axis=2)
        ratio = lb[la > 0] / la[la > 0]
        assert np.ptp(ratio) <= 1e-4 * ratio.max(), "an island was stretched in pixel space"
        ratios.append(ratio.mean())
    assert np.ptp(ratios) <= 1e-4 * max(ratios)
    # and 0.01 apart in pixel space (units of the longer side)
    polys = [shapely.affinity.scale(polygon(m, out, f), *aspect, origin=(0, 0)) for f in island_faces(m)]
    assert min(p.distance(q) for i, p in enumerate(polys) for q in polys[i + 1:]) >= 0.01 - TOL


def test_custom_region() -> None:
    m = turned_mesh().build()
    region = (-0.5, 1.25, 0.25, 1.5)
    s = LiveSession([m], gap(0.004, target="CUSTOM_REGION", custom_region=region), Limits(iterations=50))
    assert s.target == region
    check_layout(m, full(s, [m], s.run())[0], np.arange(len(m.loop_start)), 0.004, region)
    with pytest.raises(PackError, match="custom region"):
        LiveSession([m], gap(0.004, target="CUSTOM_REGION", custom_region=(0.5, 0.0, 0.5, 1.0)))


def test_unselected_faces_are_obstacles_unless_switched_off() -> None:
    b = turned_mesh(10)
    m0 = b.build()
    selected = np.ones(len(m0.loop_start), bool)
    selected[:12] = False  # three islands stay
    m = b.build(selected=selected)
    still = np.concatenate([np.arange(m.loop_start[f], m.loop_start[f] + 4) for f in range(12)])
    for obstacles in (True, False):
        s = LiveSession([m], gap(0.01, obstacles=obstacles), Limits(iterations=150))
        out = full(s, [m], s.run())[0]
        assert np.array_equal(bits(out[still]), bits(m.uvs[still]))
        polys = [polygon(m, out, f) for f in island_faces(m)]
        closest = min(a.distance(b) for a in polys[3:] for b in polys[:3])
        if obstacles:
            assert closest >= 0.01 - TOL
            check_layout(m, out, np.arange(len(m.loop_start)), 0.01, (-1.0, -1.0, 2.0, 2.0))
        else:
            assert closest == 0.0


def test_an_unselected_copy_does_not_hold_a_selected_island_with_merge_overlapping() -> None:
    """Stacked copies, one selected: Blender merges only selected islands, so the selected copy
    moves; two selected stacked copies move together."""
    b = MeshBuilder()
    b.grid(0.3, 0.3, 0.2, 0.1)       # 0-3: selected
    b.grid(0.3, 0.3, 0.2, 0.1)       # 4-7: unselected copy under it
    b.grid(0.6, 0.6, 0.1, 0.2)       # 8-11 and 12-15: two selected copies
    b.grid(0.6, 0.6, 0.1, 0.2)
    n = len(b.sizes)
    selected = np.ones(n, bool)
    selected[4:8] = False
    m = b.build(selected=selected)
    s = LiveSession([m], gap(0.01, merge_overlapping=True), Limits(iterations=50))
    out = full(s, [m], s.run())[0]
    loops = lambda faces: np.concatenate([np.arange(m.loop_start[f], m.loop_start[f] + 4) for f in faces])  # noqa: E731
    assert not np.allclose(out[loops(range(4))], m.uvs[loops(range(4))])
    assert np.array_equal(bits(out[loops(range(4, 8))]), bits(m.uvs[loops(range(4, 8))]))
    assert np.array_equal(bits(out[loops(range(8, 12))]), bits(out[loops(range(12, 16))]))


def test_hidden_and_unshown_faces_are_no_obstacles() -> None:
    b = turned_mesh(10)
    n = len(b.sizes)
    selected = np.ones(n, bool)
    selected[:8] = False
    hidden = np.zeros(n, bool)
    hidden[:4] = True
    shown = np.ones(n, bool)
    shown[4:8] = False  # with UV sync selection off, not in the UV editor
    m = b.build(selected=selected, hidden=hidden)
    m.shown = shown
    s = LiveSession([m], gap(0.01), Limits(iterations=150))
    out = full(s, [m], s.run())[0]
    polys = [polygon(m, out, f) for f in island_faces(m)]
    assert min(a.distance(b) for a in polys[2:] for b in polys[:2]) == 0.0  # packed over them


@pytest.mark.parametrize("pin_method", ["LOCKED", "ROTATION", "SCALE", "ROTATION_SCALE"])
def test_pin_methods(pin_method: str) -> None:
    """What a pinned island keeps: its place, its orientation, its size, or both."""
    b = turned_mesh(8)
    pinned = np.zeros(len(b.sizes), bool)
    pinned[0] = True
    m = b.build(pinned=pinned)
    s = LiveSession([m], gap(0.01, lock_pinned=True, pin_method=pin_method), Limits(iterations=150))
    out = full(s, [m], s.run())[0]
    loops = np.arange(16)
    before, after = m.uvs[loops].astype(float), out[loops].astype(float)
    e0, e1 = np.diff(before, axis=0), np.diff(after, axis=0)
    ratio = np.linalg.norm(e1) / np.linalg.norm(e0)
    if pin_method == "LOCKED":
        assert np.array_equal(bits(out[loops]), bits(m.uvs[loops]))
    if pin_method in ("ROTATION", "ROTATION_SCALE"):
        assert np.allclose(e1, ratio * e0, atol=1e-6)
    if pin_method in ("SCALE", "ROTATION_SCALE"):
        assert ratio == pytest.approx(1.0, rel=1e-5)
        others = [polygon(m, out, f).area / polygon(m, m.uvs, f).area for f in island_faces(m)[1:]]
        assert min(others) > 1.5  # the other islands grew to fill the tile
    check_layout(m, out, np.arange(len(m.loop_start)), 0.01, s.target)


# --------------------------------------------------------------- targets


def test_udim_tiles() -> None:
    assert udim_box(1001) == (0, 0, 1, 1)
    assert udim_box(1002) == (1, 0, 2, 1)
    assert udim_box(1011) == (0, 1, 1, 2)
    # the last tile: column 9 of row 99, which Blender's UDIM grid has too
    assert udim_box(2000) == (9, 99, 10, 100) and udim_tile_of(9.5, 99.5) == 2000
    assert checked_tiles([1001, 2000]) == (1001, 2000)
    for outside in (1000, 2001):
        with pytest.raises(ValueError):
            udim_box(outside)
        with pytest.raises(ValueError):
            checked_tiles([outside])
    assert udim_tile_at(1.5, 0.5) == 1002
    assert udim_tile_at(-3.0, 0.5) == 1001
    assert udim_tile_at(12.0, 2.5) == 1030
    assert udim_tile_at(1.5, 1.5, grid=(1, 1)) == 1001
    # Blender's Closest UDIM: no UV editor, tile 1001; inside the tile grid or an image tile,
    # the tile holding the point; else the nearer by centre of the nearest image tile and the grid
    assert closest_udim_tile((2.5, 0.5)) == 1001
    assert closest_udim_tile((2.5, 0.5), grid=(3, 1)) == 1003
    assert closest_udim_tile((2.5, 0.5), tiles=(1001, 1003), grid=(1, 1)) == 1003
    assert closest_udim_tile((0.5, 5.0), tiles=(1012, 1001), grid=(1, 1)) == 1012  # (1.5, 1.5) is nearer
    assert closest_udim_tile((0.5, 2.6), tiles=(1003, 1011), grid=(1, 1)) == 1011
    assert closest_udim_tile((0.5, 1.2), tiles=(1003, 1012), grid=(1, 1)) == 1001  # the grid's (0.5, 0.5)
    assert closest_udim_tile((-0.5, 0.5), tiles=(1002,), grid=(1, 1)) == 1001


@pytest.mark.parametrize("target, expected", [
    ("CLOSEST_UDIM", (1.0, 0.0, 2.0, 1.0)),
    ("ACTIVE_UDIM", (0.0, 1.0, 1.0, 2.0)),
])
def test_tile_targets(target: str, expected: Tuple[float, float, float, float]) -> None:
    m = random_mesh(6, offset=(1.0, 0.0)).build()  # islands in tile 1002
    s = LiveSession([m], gap(0.01, target=target, active_tile=1011, udim_grid=(10, 2)), Limits(iterations=50))
    assert s.target == expected
    out = full(s, [m], s.run())[0]
    check_layout(m, out, np.arange(len(m.loop_start)), 0.01, expected)


def test_original_bounding_box_target() -> None:
    b = MeshBuilder()
    for k in range(6):
        b.grid(0.2 + 0.1 * k, 0.3 + 0.02 * k, 0.05, 0.08, 1, 1)
    m = b.build()
    s = LiveSession([m], gap(0.01, target="ORIGINAL_AABB"), Limits(iterations=50))
    lo, hi = m.uvs.min(axis=0), m.uvs.max(axis=0)
    assert s.target == pytest.approx((lo[0], lo[1], hi[0], hi[1]))
    assert s.margin == pytest.approx(0.01) and s.padding == pytest.approx(0.005)  # UV units, as Blender
    out = full(s, [m], s.run())[0]
    check_layout(m, out, np.arange(len(m.loop_start)), s.margin, s.target)


def test_pixel_margin() -> None:
    m = random_mesh(8).build()
    s = LiveSession([m], PackSettings(margin_method="PIXELS", margin_px=4.0, texture_size=256), Limits(iterations=100))
    assert s.margin == pytest.approx(4 / 256)
    out = full(s, [m], s.run())[0]
    check_layout(m, out, np.arange(len(m.loop_start)), 4 / 256, s.target)


# ----------------------------------------------------------------- errors


def test_no_selection_is_an_error() -> None:
    b = random_mesh(3)
    n = len(b.sizes)
    with pytest.raises(PackError, match="No faces selected"):
        LiveSession([b.build(selected=np.zeros(n, bool))])
    with pytest.raises(PackError, match="No faces selected"):  # selected but hidden
        LiveSession([b.build(hidden=np.ones(n, bool))])


def test_no_uvs_is_an_error() -> None:
    m = random_mesh(3).build()
    with pytest.raises(PackError, match="No UV map"):
        LiveSession([MeshLoops(None, m.loop_start, m.loop_total, m.loop_vert, m.selected, m.hidden, m.pinned)])
    with pytest.raises(PackError, match="No UV map"):
        LiveSession([])


def test_non_finite_uvs_are_an_error() -> None:
    m = random_mesh(3).build()
    m.uvs[5, 0] = np.nan
    with pytest.raises(PackError, match="not a number"):
        LiveSession([m])


def test_margin_larger_than_the_target_is_an_error() -> None:
    with pytest.raises(PackError, match="leaves no room"):
        LiveSession([random_mesh(3).build()], gap(1.0))


def test_margin_that_leaves_no_room_is_reported() -> None:
    m = random_mesh(12).build()
    with pytest.raises(PackError, match="cannot fit"):
        LiveSession([m], gap(0.6), Limits(iterations=10)).run()
    s = LiveSession([m], gap(0.6), Limits(iterations=10))
    s.start()
    wait_done(s)
    assert s.error is not None and "cannot fit" in str(s.error)
    assert s.progress.state == "failed" and s.best is None
    assert s.keep() is None
    assert np.array_equal(bits(s.cancel()[0]), bits(m.uvs))


def test_keep_before_the_first_layout_gives_nothing() -> None:
    m = random_mesh(30).build()
    s = LiveSession([m], gap(0.01), Limits())
    s.start()
    kept = s.keep()  # at once: usually before the first layout; never a crash either way
    assert kept is None or kept.number >= 0
    assert s.progress.state in ("kept", "failed")


def test_stack_similar_and_max_scale_ratio_reach_the_packer() -> None:
    """The add-on's Stack Similar: three copies of one L-shaped island, turned,
    end on one another (their output outlines coincide); Max Scale Ratio
    lets them grow past the long strip that limits the common scale."""
    m = MeshBuilder()
    ell = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 3), (0, 3)]
    for k, (angle, dx) in enumerate(((0.0, 0.0), (1.1, 4.0), (2.5, 8.0))):
        c, s = np.cos(angle), np.sin(angle)
        pts = [(dx + 0.05 * (c * x - s * y), 0.05 * (s * x + c * y)) for x, y in ell]
        base = 10 * k
        for tri in ((0, 1, 2), (0, 2, 3), (0, 3, 4), (0, 4, 5)):
            m.face([(base + i, pts[i]) for i in tri])
    m.n_verts = 30
    m.grid(12, 0, 1.0, 0.02, 1, 1)   # and a long strip, which limits the common scale
    mesh = m.build()
    stacked = LiveSession([mesh], gap(0.01, stack_similar=True), Limits(iterations=50))
    stacked_layout = stacked.run()
    out = full(stacked, [mesh], stacked_layout)[0]
    faces = [np.arange(0, 4), np.arange(4, 8), np.arange(8, 12), np.array([12])]
    shapes = [polygon(mesh, out, f) for f in faces]
    assert shapely.hausdorff_distance(shapes[0], shapes[1]) < 1e-5
    assert shapely.hausdorff_distance(shapes[0], shapes[2]) < 1e-5
    mixed = LiveSession([mesh], gap(0.01, max_scale_ratio=2.0), Limits(iterations=50))
    layout = mixed.run()
    out = full(mixed, [mesh], layout)[0]
    areas = [polygon(mesh, out, f).area / polygon(mesh, mesh.uvs, f).area for f in faces]
    assert max(areas) / min(areas) > 1.5   # the Ls grew more than the strip (area ratio = scale ratio squared)
    with pytest.raises(ValueError, match="max_scale_ratio"):
        PackSettings(max_scale_ratio=0.5)


@pytest.mark.parametrize("sync", [True, False])
def test_shown_edges_are_the_edges_of_the_faces_the_uv_editor_shows(sync: bool) -> None:
    """What the add-on draws for a streamed dense layout (overlay.py): each
    edge of every visible face (with UV sync selection) or of every visible
    face selected in the mesh, as loop pairs; checked against a walk of the
    faces' corners."""
    from uvnest.mesh_loops import shown_edges

    rng = np.random.default_rng(7)
    total = rng.integers(3, 7, 40)
    start = np.cumsum(total) - total
    n_loops = int(total.sum())
    hidden = rng.random(40) < 0.2
    in_mesh = rng.random(40) < 0.6
    mesh = MeshLoops(rng.random((n_loops, 2)).astype(np.float32), start, total, np.arange(n_loops),
                     in_mesh, hidden, np.zeros(40, bool), "m", None if sync else in_mesh)
    want = set()
    for f in range(40):
        if hidden[f] or not (sync or in_mesh[f]):
            continue
        corners = list(range(start[f], start[f] + total[f]))
        want |= {(a, b) for a, b in zip(corners, corners[1:] + corners[:1])}
    got = shown_edges(mesh)
    assert got.dtype == np.uint32 and got.shape[1] == 2
    assert len(got) == len(want) and set(map(tuple, got.tolist())) == want


def test_outline_edges_trace_the_islands_outlines() -> None:
    """The drawn outline of a streamed dense layout: two 3x3 grids of quads
    (one with its third column moved apart: another island) and a lone
    triangle.  Checked against shapely: the outline edges' total length is
    the boundary length of the faces' union, and every outline edge lies
    on that boundary."""
    from uvnest.mesh_loops import outline_edges

    corners: List[List[Tuple[float, float]]] = []
    for ox, apart in ((0.0, False), (5.0, True)):
        for i in range(3):
            for j in range(3):
                x0 = ox + i + (0.5 if apart and i == 2 else 0.0)
                corners.append([(x0, j), (x0 + 1, j), (x0 + 1, j + 1), (x0, j + 1)])
    corners.append([(10.0, 0.0), (11.0, 0.0), (10.0, 1.0)])
    total = np.array([len(c) for c in corners])
    uvs = np.array([p for c in corners for p in c], np.float32)
    n = len(corners)
    mesh = MeshLoops(uvs, np.cumsum(total) - total, total, np.arange(len(uvs)), np.ones(n, bool),
                     np.zeros(n, bool), np.zeros(n, bool), "m")
    got = outline_edges(mesh)
    union = shapely.unary_union([shapely.Polygon(c) for c in corners])
    boundary = union.boundary
    lengths = np.linalg.norm(uvs[got[:, 0]] - uvs[got[:, 1]], axis=1)
    assert math.isclose(float(lengths.sum()), boundary.length, rel_tol=1e-6)
    for a, b in got.tolist():
        assert boundary.buffer(1e-9).covers(shapely.LineString([uvs[a], uvs[b]])), (uvs[a], uvs[b])
