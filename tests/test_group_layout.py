"""``group_layout='together'``: each group of islands in a region of its own
(issue 31, point 5).

Oracle: shapely, on the output faces (tests/pack_checker.py for the margin,
the target and the transforms).  A group's region is the convex hull of its
islands: the hulls of different groups must be disjoint and at least the
margin apart, which is what "each group's islands near one another, in a
compact region of its own" means here; the same input packed without it
(``group_layout='tiles'``, the default) mixes the groups, so the check can
fail.
"""
from __future__ import annotations

from typing import List, Tuple

import numpy as np
import pytest
import shapely

import uvnest
from tests.pack_checker import assert_valid, check_pack
from tests.test_region import REGION, SHAPE, boxes

MARGIN = 0.01


def grouped_boxes(count: int, groups: int, seed: int) -> Tuple[np.ndarray, List[List[int]], List[int]]:
    """``count`` boxes apart from one another, in ``groups`` groups dealt out
    in turn (so that a layout ignoring them mixes them)."""
    uvs, faces = boxes(count, seed)
    return uvs, faces, [k % groups for k in range(count)]


def group_hulls(result, faces, group_of_face: List[int]) -> List[shapely.Geometry]:
    polys = [shapely.Polygon(np.asarray(result.uvs)[f]) for f in faces]
    keys = sorted(set(group_of_face))
    return [shapely.union_all([p for p, g in zip(polys, group_of_face) if g == key]).convex_hull for key in keys]


def closest_hulls(hulls: List[shapely.Geometry]) -> float:
    return min(shapely.distance(a, b) for k, a in enumerate(hulls) for b in hulls[k + 1:])


def test_each_group_packs_in_a_region_of_its_own() -> None:
    uvs, faces, groups = grouped_boxes(18, 3, seed=2)
    options = dict(groups=groups, margin=MARGIN, iterations=40, time_limit=None, threads=1)
    result = uvnest.pack(uvs, faces, group_layout="together", **options)
    rep = assert_valid(result, uvs, faces, margin=MARGIN)
    assert closest_hulls(group_hulls(result, faces, groups)) >= MARGIN - rep.tol
    assert result.coverage == pytest.approx(rep.coverage, abs=1e-6)
    assert result.coverage > 0.5
    assert np.ptp([t.scale for t in result.transforms]) == 0   # one texel density
    mixed = uvnest.pack(uvs, faces, **options)
    assert closest_hulls(group_hulls(mixed, faces, groups)) == 0.0


def test_groups_together_in_a_region_with_a_hole() -> None:
    """A region of rings (a square with a keep-out zone and a second
    rectangle): every island inside it and out of the hole, the groups'
    hulls apart."""
    uvs, faces = boxes(12, seed=3)
    groups = ["wood" if k % 2 else "metal" for k in range(12)]
    result = uvnest.pack(uvs, faces, target=REGION, groups=groups, group_layout="together", margin=MARGIN,
                         iterations=40, time_limit=None, threads=1)
    rep = check_pack(result, uvs, faces, margin=MARGIN, target=(0, 0, 1.6, 1), fit=False)
    assert rep.ok, rep.describe()
    for i, g in enumerate(rep.geoms):
        assert SHAPE.buffer(rep.tol).contains(g), f"island {i} leaves the region"
        assert shapely.distance(SHAPE.boundary, g) >= MARGIN - rep.tol
    assert closest_hulls(group_hulls(result, faces, groups)) >= MARGIN - rep.tol


def test_stacks_and_locked_islands_keep_to_their_groups() -> None:
    """Stacked copies within the groups, and a locked island the groups go
    around: the copies lie on one another, the locked island stays put."""
    uvs, faces, groups = grouped_boxes(10, 2, seed=4)
    square = np.array([[0, 0], [0.2, 0], [0.2, 0.2], [0, 0.2]])
    copies = [square + [3.0 + 0.5 * k, 3.0] for k in range(4)]
    n = len(uvs)
    uvs = np.concatenate([uvs] + copies + [square * 0.5 + [0.4, 0.4]])
    faces = faces + [[n + 4 * k + j for j in range(4)] for k in range(5)]
    groups = groups + [0, 0, 1, 1, 1]
    result = uvnest.pack(uvs, faces, groups=groups, group_layout="together", stack_similar=True,
                         locked=[14], margin=MARGIN, iterations=30, time_limit=None, threads=1)
    stacked = [list(s.members) for s in result.stacks]
    assert sorted(map(sorted, stacked)) == [[10, 11], [12, 13]]
    rep = assert_valid(result, uvs, faces, margin=MARGIN, locked=[14], stacks=stacked)
    hulls = group_hulls(result, faces[:14], groups[:14])
    assert closest_hulls(hulls) >= MARGIN - rep.tol
    assert all(shapely.distance(h, rep.geoms[14]) >= MARGIN - rep.tol for h in hulls)


def test_zero_margin_and_one_group() -> None:
    uvs, faces, groups = grouped_boxes(8, 1, seed=5)
    result = uvnest.pack(uvs, faces, groups=groups, group_layout="together", margin=0.0, iterations=20,
                         time_limit=None, threads=1)
    assert_valid(result, uvs, faces, margin=0.0)


@pytest.mark.parametrize("options, message", [
    (dict(group_layout="together"), "needs groups"),
    (dict(group_layout="apart", groups=[0, 1]), "group_layout must be one of"),
    (dict(group_layout="together", groups=[0, 1], scale="fixed"), "needs scale='fit'"),
    (dict(group_layout="together", groups=[0, 1], max_scale_ratio=2), "max_scale_ratio=1"),
])
def test_bad_group_layouts_are_value_errors(options, message: str) -> None:
    uvs, faces = boxes(2, seed=6)
    with pytest.raises(ValueError, match=message):
        uvnest.pack(uvs, faces, **options)


def test_command_line_keeps_each_material_together(tmp_path, capsys) -> None:
    """``uvnest pack --group-layout together`` on a real OBJ of two
    materials: each material's faces in a region of its own (shapely on the
    written file); the option's errors name the flags."""
    from uvnest import io
    from uvnest.cli import main

    uvs, faces, groups = grouped_boxes(10, 2, seed=7)
    src = tmp_path / "two.obj"
    lines = [f"v {k} 0 0" for k in range(len(uvs))] + [f"vt {u:.17g} {v:.17g}" for u, v in uvs]
    for material in (0, 1):
        lines.append(f"usemtl m{material}")
        lines += ["f " + " ".join(f"{i + 1}/{i + 1}" for i in f) for f, g in zip(faces, groups) if g == material]
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.obj"
    assert main(["pack", str(src), "-o", str(out), "--group-layout", "together", "--margin", str(MARGIN),
                 "--iterations", "30", "--threads", "1"]) == 0
    packed = io.load(str(out))
    keys = list(packed.face_groups)
    polys = [shapely.Polygon(packed.uvs[f]) for f in packed.faces]
    hulls = [shapely.union_all([p for p, k in zip(polys, keys) if k == key]).convex_hull for key in set(keys)]
    assert len(hulls) == 2 and shapely.distance(*hulls) >= MARGIN * (1 - 1e-6)
    with pytest.raises(SystemExit) as exc:
        main(["pack", str(src), "-o", str(out), "--group-layout", "together", "--udim"])
    assert exc.value.code == 2
    assert "--group-layout needs packing into the tile (no --udim or --no-scale)" in capsys.readouterr().err



@pytest.mark.parametrize("keep", ["OBJECT", "MATERIAL"])
def test_live_session_keeps_each_mesh_together_in_a_region(keep: str) -> None:
    """The Blender add-on's session (no Blender needed): two meshes with Keep
    Together, packed into a region of rings: each mesh's islands (or each
    material's, the materials split across the meshes) in a region of their
    own, inside the target (shapely on the loops)."""
    from uvnest.live import Limits, LiveSession, MeshLoops, PackSettings

    meshes = []
    for seed in (9, 10):
        uvs, faces = boxes(6, seed)
        n = len(faces)
        material = np.array(["wood", "metal"] * (n // 2))
        meshes.append(MeshLoops(uvs[np.concatenate(faces)].astype(np.float32), np.arange(n) * 4, np.full(n, 4),
                                np.arange(4 * n), np.ones(n, bool), np.zeros(n, bool), np.zeros(n, bool),
                                material=material))
    settings = PackSettings(target="REGION", region=(REGION[0], REGION[1]), keep_together=keep,
                            margin_method="FRACTION", margin=MARGIN / 2, threads=1)
    layout = LiveSession(meshes, settings, Limits(iterations=20)).run()
    groups: dict = {}
    for k, (m, uvs) in enumerate(zip(meshes, layout.loop_uvs)):
        polys = [shapely.Polygon(uvs[4 * j:4 * j + 4].astype(float)) for j in range(len(uvs) // 4)]
        # loops are float32: 1e-6 of rounding allowed
        assert all(shapely.Polygon(REGION[0], [REGION[1]]).buffer(1e-6).contains(p) for p in polys)
        for p, material in zip(polys, m.material):
            groups.setdefault(k if keep == "OBJECT" else material, []).append(p)
    hulls = [shapely.union_all(polys).convex_hull for polys in groups.values()]
    assert len(hulls) == 2 and shapely.distance(*hulls) >= MARGIN - 1e-6
    with pytest.raises(ValueError, match="keep_together must be one of"):
        PackSettings(keep_together="MESH")


def test_a_cancel_stops_the_groups_being_packed() -> None:
    """A :class:`uvnest.Cancel` set while the groups are packed among
    themselves (no time limit: each anneals its moves) stops construction
    with ``Cancelled``, promptly."""
    import threading
    import time

    uvs, faces, groups = grouped_boxes(90, 3, seed=11)
    cancel = uvnest.Cancel()
    timer = threading.Timer(0.3, cancel.set)
    timer.start()
    t0 = time.perf_counter()
    with pytest.raises(uvnest.Cancelled):
        uvnest.Packer(uvs, faces, groups=groups, group_layout="together", margin=MARGIN, threads=1, cancel=cancel)
    assert time.perf_counter() - t0 < 0.3 + 1.0


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8))
def test_random_groups_of_turned_ls(seed: int) -> None:
    """Random Ls (turned, scaled), 1 to 4 groups, random margin, padding,
    flip, rotation and shape, with and without a time limit: the layout is
    valid (shapely) and the groups' hulls are the margin apart."""
    import math

    rng = np.random.default_rng(seed)
    l_shape = np.array([[0, 0], [2, 0], [2, 1], [1, 1], [1, 3], [0, 3]], float) * 0.1
    l_faces = [[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 5]]
    uvs, faces, groups = [], [], []
    count, n_groups = int(rng.integers(3, 25)), int(rng.integers(1, 5))
    for k in range(count):
        a = rng.uniform(0, 2 * math.pi)
        turn = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
        faces += [[i + 6 * k for i in f] for f in l_faces]
        uvs.append(l_shape * rng.uniform(0.3, 2.0) @ turn + [k * 1.5, 0])
        groups += [int(rng.integers(n_groups))] * len(l_faces)
    uvs = np.concatenate(uvs)
    options = dict(margin=float(rng.choice([0.0, 0.002, 0.02])), flip=bool(rng.integers(2)),
                   rotation=str(rng.choice(["any", "90", "none"])), padding=float(rng.choice([0.0, 0.01])),
                   shape=str(rng.choice(["concave", "convex", "box"])))
    limits = dict(time_limit=0.5) if seed % 2 else dict(time_limit=None, iterations=20)
    result = uvnest.pack(uvs, faces, groups=groups, group_layout="together", threads=1, **limits, **options)
    rep = assert_valid(result, uvs, faces, margin=options["margin"], padding=options["padding"],
                       flip=options["flip"], rotation=None if options["rotation"] == "any" else options["rotation"])
    hulls = group_hulls(result, faces, groups)
    if len(hulls) > 1:
        assert closest_hulls(hulls) >= options["margin"] - rep.tol


def _two_meshes(scale: float = 1.0):
    from uvnest.live import MeshLoops

    meshes = []
    for seed in (9, 10):
        uvs, faces = boxes(6, seed)
        n = len(faces)
        meshes.append(MeshLoops((uvs[np.concatenate(faces)] * scale).astype(np.float32), np.arange(n) * 4,
                                np.full(n, 4), np.arange(4 * n), np.ones(n, bool), np.zeros(n, bool),
                                np.ones(n, bool)))
    return meshes


def test_live_keep_together_with_udim_tiles_keeps_each_mesh_to_a_tile() -> None:
    """Keep Together with UDIM Tiles at Current Density: the groups keep to
    tiles ('tiles'): each mesh's islands, sizes kept, in one tile.  At 1.3
    times their size each mesh fits a tile; without Keep Together both
    share tile 1001 (seen: deterministic, one thread, 10 moves), with it
    each mesh's islands stay together, in a tile of their own."""
    from uvnest.live import Limits, LiveSession, PackSettings

    meshes = _two_meshes(scale=1.3)
    settings = PackSettings(target="UDIM_TILES", keep_together="OBJECT", margin_method="FRACTION",
                            margin=MARGIN / 2, threads=1)
    layout = LiveSession(meshes, settings, Limits(iterations=10)).run()
    tiles = []
    for uvs in layout.loop_uvs:
        lo = np.floor(uvs.reshape(-1, 4, 2).min(axis=1) + 1e-6)
        assert (uvs.reshape(-1, 4, 2).max(axis=1) <= lo + 1 + 1e-6).all()   # each island in a tile
        tiles.append({tuple(t) for t in lo.tolist()})
    assert all(len(t) == 1 for t in tiles) and tiles[0] != tiles[1]


def test_live_region_or_keep_together_need_scale() -> None:
    """A region target or Keep Together with Scale off, or with pinned
    islands keeping their size, is refused with a message, not packed
    into the region's box."""
    from uvnest.live import Limits, LiveSession, PackError, PackSettings

    for settings in (PackSettings(target="REGION", region=(REGION[0],), scale=False),
                     PackSettings(target="REGION", region=(REGION[0],), lock_pinned=True, pin_method="SCALE"),
                     PackSettings(keep_together="MATERIAL", scale=False)):
        with pytest.raises(PackError, match="needs Scale on"):
            LiveSession(_two_meshes(), settings, Limits(iterations=1)).run()
