"""The Blender add-on in real Blender 5.0.1 (the bpy module, headless).

Each test runs a script of ``tests/blender_scripts/`` with the Blender
interpreter (``tests.blender_env``); the script prints one
``UVNEST-RESULT {json}`` line and, for layouts, writes an ``.npz`` that the
checks here read.  Layouts are checked by code independent of uvnest: the
benchmark checker (``tests.bench.checker``: rigid islands, one scale,
coverage) and a strict pairwise test (every island, Blender's rule, at least
the margin from every other and inside the tile).

What cannot run headless: Blender's event loop (the bpy module sends no
window-manager events; a script feeds the operator's own ``modal()`` with
events instead; ``test_blender_window.py`` runs the operator in a real
window with real timers and keys), drawing real UI (the draw code runs against a recording
layout), and reading an undo step's name (Blender has no Python API for it;
the step is pushed by Blender itself through ``bpy.ops``' ``undo`` argument).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Tuple

import numpy as np
import pytest
import shapely

if __package__ in (None, ""):  # plain `pytest` puts tests/ first on sys.path, not the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bench.checker import check_layout, face_islands  # noqa: E402
from tests.bench.common import Model  # noqa: E402
from tests.blender_env import BPY_LTS_VERSION, BPY_VERSION, require_bpy_python, run_in_blender  # noqa: E402

pytestmark = pytest.mark.blender

SCRIPTS = Path(__file__).with_name("blender_scripts")
MARKER = "UVNEST-RESULT "
TOL = 1e-6
MARGIN = 0.005
#: The homedecor model packed in the tests: 117 faces, 10 islands, Blender packs it in about a second.
HOMEDECOR_MODEL = "homedecor_kitchen_faucet.obj"


#: Both Blender lines the add-on supports as an extension: 5.0 and the 4.2 LTS.
VERSIONS = pytest.mark.parametrize("version", [BPY_VERSION, BPY_LTS_VERSION])


def run_script(name: str, *args: str, timeout: float = 600, version: str = BPY_VERSION) -> dict:
    """Run a Blender script (in bpy ``version``) and return its result line."""
    require_bpy_python(version)
    proc = run_in_blender(SCRIPTS / name, *args, timeout=timeout, version=version)
    return _result(proc)


def _result(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, f"Blender script failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    lines = [line for line in proc.stdout.splitlines() if line.startswith(MARKER)]
    assert lines, f"no result line in:\n{proc.stdout[-2000:]}"
    return json.loads(lines[-1][len(MARKER):])


# ----------------------------------------------------------------- checks


def loop_model(vert: np.ndarray, face_sizes: np.ndarray, uvs: np.ndarray, name: str) -> Model:
    """Per-loop UVs as a checker model: one UV index per (mesh vertex, UV value), so
    that faces sharing a mesh edge with matching UVs share an edge (Blender's islands)."""
    key = np.column_stack([vert, np.ascontiguousarray(uvs, np.float32).view(np.int32)])
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    return Model(name=name, kind="synthetic", uvs=uvs[first].astype(np.float64), face_sizes=face_sizes,
                 face_idx=inverse.reshape(-1))


def island_polygons(model: Model, uvs_out: np.ndarray, faces: Optional[np.ndarray] = None) -> List[shapely.Geometry]:
    """Output polygon of every island (Blender's rule) made of ``faces`` (all by default)."""
    face_island, n = face_islands(model.face_sizes, model.face_idx, len(model.uvs))
    keep = np.ones(model.n_faces, bool) if faces is None else faces
    start = model.face_start
    rings = [shapely.Polygon(uvs_out[start[f]:start[f + 1]]) for f in range(model.n_faces)]
    out = []
    for i in np.unique(face_island[keep]):
        members = [rings[f] for f in np.flatnonzero((face_island == i) & keep)]
        out.append(shapely.union_all([shapely.make_valid(r) for r in members]))
    return out


def assert_separated(polys: List[shapely.Geometry], margin: float,
                     tile: Tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)) -> float:
    """Every pair at least ``margin`` apart and every island inside ``tile``; returns the
    smallest gap (``inf`` when no two islands are within twice the margin)."""
    tree = shapely.STRtree(polys)
    left, right = tree.query(polys, predicate="dwithin", distance=2 * margin)
    smallest = float("inf")
    for a, b in zip(left.tolist(), right.tolist()):
        if a < b:
            d = polys[a].distance(polys[b])
            smallest = min(smallest, d)
            assert d >= margin - TOL, f"islands {a} and {b} are {d} apart (margin {margin})"
    bounds = shapely.bounds(shapely.GeometryCollection(polys))
    assert bounds[0] >= tile[0] - TOL and bounds[1] >= tile[1] - TOL
    assert bounds[2] <= tile[2] + TOL and bounds[3] <= tile[3] + TOL
    return smallest


def same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per row, whether two float32 UV arrays agree bit for bit."""
    return (np.ascontiguousarray(a, np.float32).view(np.uint32)
            == np.ascontiguousarray(b, np.float32).view(np.uint32)).all(axis=1)


# ------------------------------------------------------------ registering


@VERSIONS
def test_register_and_unregister_twice_leave_no_trace(version: str) -> None:
    out = run_script("register_cycle.py", version=version)
    states = out["states"]
    empty = states["before"]
    assert not any(empty.values())
    for k in (1, 2):
        on = states[f"registered_{k}"]
        assert all(on[key] for key in ("operator", "operator_registered", "operator_in_ops", "panel",
                                       "panel_registered", "settings_registered", "scene_property"))
        assert on["uv_menu_entries"] == 1 and on["view3d_menu_entries"] == 1
        assert states[f"unregistered_{k}"] == empty
    for log in out["draws"]:
        assert log.count("operator:uv.uvnest_pack:INVOKE_REGION_WIN") == 2  # the two menu entries
        assert "operator:uv.uvnest_pack:INVOKE_DEFAULT" in log  # the panel's Pack button
        assert "set:margin" in log and "prop:udim_source" in log
        assert "prop:keep_together" in log   # Keep Together, and the region's object and UV map
        assert "prop_search:region_object:objects" in log and "prop:region_uv_map" in log


# ----------------------------------------------------------- execute path


def compare(tmp_path: Path, case: str, seconds: float, *extra: str, version: str = BPY_VERSION) -> dict:
    """Pack ``case`` with uvnest (execute) and Blender; check both; return the numbers."""
    out = tmp_path / f"{case}.npz"
    result = run_script("pack_compare.py", str(out), case, str(MARGIN), str(seconds), *extra, timeout=900,
                        version=version)
    assert result["result"] == ["FINISHED"]
    d = np.load(out)
    model = loop_model(d["vert"], d["face_sizes"], d["uvs_in"], case)
    assert not same_bits(d["uvs_in"], d["uvs_uvnest"]).all(), "the operator changed nothing"
    ours = check_layout(model, None, MARGIN, packer="uvnest", corner_uvs=d["uvs_uvnest"].astype(np.float64))
    assert ours.valid, ours.first_violation
    assert_separated(island_polygons(model, d["uvs_uvnest"].astype(np.float64)), MARGIN)
    theirs = check_layout(model, None, MARGIN, packer="blender", corner_uvs=d["uvs_blender"].astype(np.float64))
    result.update(coverage=ours.coverage, blender_coverage=theirs.raw_coverage, blender_valid=theirs.valid)
    return result


@pytest.mark.parametrize("case, version", [("cube", BPY_VERSION), ("multi", BPY_VERSION), ("cube", BPY_LTS_VERSION)])
def test_execute_packs_validly_and_beats_blender(tmp_path: Path, case: str, version: str) -> None:
    r = compare(tmp_path, case, 3.0, version=version)
    if case == "multi":
        assert r["objects"] == 2
    assert r["coverage"] >= r["blender_coverage"], r


@pytest.mark.corpus
def test_execute_on_a_homedecor_model(tmp_path: Path) -> None:
    from tests.corpus import homedecor_models

    path = next(p for p in homedecor_models() if p.name == HOMEDECOR_MODEL)
    r = compare(tmp_path, "obj", 3.0, str(path))
    assert r["coverage"] >= r["blender_coverage"], r


@pytest.mark.slow
def test_execute_on_suzanne_beats_blender(tmp_path: Path) -> None:
    """Blender's CONCAVE pack of Suzanne's 100 islands takes about 45 s on 2 cores."""
    r = compare(tmp_path, "suzanne", 5.0)
    assert r["coverage"] >= r["blender_coverage"], r


@pytest.mark.parametrize("mode", ["sync", "nosync"])
def test_only_selected_visible_faces_move_and_pinned_islands_stay(tmp_path: Path, mode: str) -> None:
    out = tmp_path / f"scope_{mode}.npz"
    result = run_script("pack_scope.py", str(out), mode, str(MARGIN), "2.0")
    assert result["result"] == ["FINISHED"]
    d = np.load(out)
    sizes = d["face_sizes"]
    loop_face = np.repeat(np.arange(sizes.size), sizes)
    moving, pinned = d["moving"], d["pinned_faces"]
    same = same_bits(d["uvs_in"], d["uvs_out"])
    assert same[~moving[loop_face]].all(), "an unselected or hidden face moved"
    assert same[pinned[loop_face]].all(), "a pinned island moved"
    free = moving & ~pinned
    assert not same[free[loop_face]].any(), "a selected face did not move"
    model = loop_model(d["vert"], sizes, d["uvs_in"], mode)
    assert_separated(island_polygons(model, d["uvs_out"].astype(np.float64), moving), MARGIN)
    if mode == "sync":
        assert pinned.any() and d["hide"].any()


def test_options_from_the_uv_editor(tmp_path: Path) -> None:
    """Run from a UV editor: the pixel margin uses its image's size, UDIM targets its tiles and 2D cursor."""
    out = tmp_path / "targets.npz"
    result = run_script("pack_targets.py", str(out))
    assert all(r["show_uvedit"] and r["result"] == ["FINISHED"] for r in result.values()), result
    d = np.load(out)
    model = loop_model(d["vert"], d["face_sizes"], d["uvs_in"], "targets")
    lo, hi = d["uvs_in"].min(axis=0).astype(np.float64), d["uvs_in"].max(axis=0).astype(np.float64)
    expected = {"pixels": ((0, 0, 1, 1), 6 / 256),  # the image is 256 x 128; the Texture Size field said 4096
                "active_tile": ((1, 0, 2, 1), 0.001),  # tile 1002 is the image's active tile
                "closest_tile": ((0, 1, 1, 2), 0.001),  # the image has tiles 1003 and 1011 only
                "cursor_tile": ((2, 0, 3, 1), 0.001),  # no tiles: the grid tile under the 2D cursor
                "bounds": ((lo[0], lo[1], hi[0], hi[1]), 0.001 * float(min(hi - lo)))}
    for case, (tile, margin) in expected.items():
        polys = island_polygons(model, d[f"uvs_{case}"].astype(np.float64))
        smallest = assert_separated(polys, margin, tile)
        assert smallest < 2 * margin, f"{case}: the gap {smallest} is not the margin {margin}"
    # UDIM tiles at the current density: sizes kept, each island in one of the allowed tiles,
    # the tiles filled in order, and the margin kept inside each tile
    grown = island_polygons(model, d["uvs_grown"].astype(np.float64))
    for case, allowed in (("udim_tiles", [1003, 1011, 1012]), ("udim_default", list(range(1001, 1101)))):
        polys = island_polygons(model, d[f"uvs_{case}"].astype(np.float64))
        by_tile: dict = {}
        for before_poly, poly in zip(grown, polys):
            assert abs(poly.area - before_poly.area) <= 1e-5 * before_poly.area, f"{case}: an island changed size"
            x0, y0, x1, y1 = poly.bounds
            u, v = int(np.floor(x0 + 1e-6)), int(np.floor(y0 + 1e-6))
            assert x1 <= u + 1 + 1e-6 and y1 <= v + 1 + 1e-6, f"{case}: an island straddles tiles"
            by_tile.setdefault(1001 + u + 10 * v, []).append(poly)
        used = sorted(by_tile)
        assert len(used) >= 2 and used == sorted(allowed[:len(used)]), (case, used)
        for number, members in by_tile.items():
            u, v = (number - 1001) % 10, (number - 1001) // 10
            assert_separated(members, 0.001, (u, v, u + 1, v + 1))


# ----------------------------------------------------------- live session


@pytest.mark.parametrize("case, want, version", [("scattered", 3, BPY_VERSION), ("suzanne", 1, BPY_VERSION),
                                                 ("scattered", 3, BPY_LTS_VERSION)])
def test_modal_operator_fed_with_events(case: str, want: int, version: str) -> None:
    """The operator's own modal() on a real mesh: TIMER events write each better layout;
    Esc/right click restore the UVs bit for bit; Enter/Space/click keep the best; leaving
    Edit Mode behind its back ends the session and restores."""
    out = run_script("live_modal.py", case, str(want), version=version)
    keys = ("esc", "right_click", "enter", "space", "click") if case == "scattered" else ("esc", "enter")
    for name in keys:
        r = out[name]
        assert r["timer_states"] == [["RUNNING_MODAL"]], (name, r["timer_states"])
        assert r["view_event"] == ["PASS_THROUGH"] and r["other_key"] == ["RUNNING_MODAL"]
        assert r["written_ok"], f"{name}: a polled layout was not written into the mesh as given"
        assert r["numbers"][0] == 0 and r["changed_while_running"] and r["mesh_matches_bmesh"]
        assert all(b > a for a, b in zip(r["coverages"], r["coverages"][1:]))
        assert all(b > a for a, b in zip(r["numbers"], r["numbers"][1:]))
        assert r["status"].startswith("uvnest: coverage")
    assert len(out["esc"]["coverages"]) >= want and len(out["enter"]["coverages"]) >= want
    for name in [k for k in keys if k in ("esc", "right_click")]:
        r = out[name]
        assert r["result"] == ["CANCELLED"] and r["restored"], name
        assert r["reports"] == [[["INFO"], "Pack cancelled: original UVs restored"]]
    for name in [k for k in keys if k in ("enter", "space", "click")]:
        r = out[name]
        assert r["result"] == ["FINISHED"] and r["final_is_best"] and not r["restored"], name
        assert r["best_coverage"] >= r["coverages"][-1]
        assert r["reports"][0][0] == ["INFO"] and r["reports"][0][1].startswith("Packed ")
    switched = out["mode_switch"]  # Edit Mode left behind the operator's back
    assert switched["streamed"] and switched["result"] == ["CANCELLED"] and switched["restored"]
    assert not switched["worker_alive"] and switched["timer_cleared"]
    assert switched["reports"] == [[["INFO"], "Pack stopped: Edit Mode was left; original UVs restored"]]
    undo = out["undo"]
    assert undo["invoke_result"] == ["FINISHED"] and undo["packed_changed"]
    assert undo["undo_restores"] and undo["redo_repacks"]
    assert "cannot fit" in undo["error"] and undo["error_left_uvs"]
    assert undo["redo_kept_after_error"] and undo["redo_after_error_repacks"], "a cancelled run pushed an undo step"
    if case != "scattered":
        return
    ends = out["iteration_limit"]  # ends by itself and keeps the best
    assert ends["result"] == ["FINISHED"] and ends["reason"] == "iteration limit" and ends["final_is_best"]
    failed = out["no_room"]  # the worker's error: reported, UVs untouched, nothing kept
    assert failed["result"] == ["CANCELLED"] and failed["restored"] and not failed["coverages"]
    assert failed["reports"][0][0] == ["ERROR"] and "cannot fit" in failed["reports"][0][1]


def test_errors_are_reported_without_touching_the_uvs() -> None:
    out = run_script("pack_errors.py")
    expected = {"no_selection": "No faces selected", "all_hidden": "No faces selected",
                "margin_no_room": "cannot fit", "margin_whole_tile": "leaves no room", "no_uvs": "No UV map"}
    for case, text in expected.items():
        r = out[case]
        assert r["result"] == ["CANCELLED"] and text in r["message"], (case, r)
        assert not r["traceback"] and r["unchanged"], (case, r)
    assert out["ok_after_errors"]["result"] == ["FINISHED"]
    assert out["poll_in_object_mode"] is False
