"""Never worse silently: real homedecor models whose packed layout covers
less of the tile than their input (tiling UVs, islands already edge to
edge), run through the real ``uvnest pack``.

Coverage before and after is checked against an independent oracle: the
shapely union of the faces inside the tile, of the input file and of the
written output file alike.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

import pytest

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from uvnest import io  # noqa: E402
from tests.test_cli import assert_obj_packed, copy_files, popen_uvnest, run_uvnest, union_in_tile  # noqa: E402
from corpus import homedecor_dir  # noqa: E402

pytestmark = pytest.mark.corpus

#: UVs from v = -3 to 1 (a repeating texture): 99.2 % of the tile before, about 31 % packed.
TILING = "homedecor_painting.obj"
#: 52 of 53 islands reach past the tile (u up to 1.6): 97.5 % before, about 67 % packed.
OFF_TILE = "homedecor_bathtub_clawfoot.obj"
#: Packing improves it (57.8 % before).
IMPROVES = "homedecor_bottle.obj"


def _models(tmp_path: Path, *names: str) -> List[Path]:
    return copy_files([homedecor_dir() / n for n in names], tmp_path / "in")


def _records(stdout: str) -> Dict[str, dict]:
    return {Path(r["path"]).name: r for r in map(json.loads, stdout.splitlines())}


def _oracle(path: Path) -> float:
    mesh = io.load(path)
    return union_in_tile(mesh.uvs, mesh.faces)


def test_worse_layouts_are_reported_and_measured_the_same_way(tmp_path: Path) -> None:
    tiling, off, good = _models(tmp_path, TILING, OFF_TILE, IMPROVES)
    done = run_uvnest("pack", tmp_path / "in", "--out-dir", tmp_path / "out", "--iterations", 100, "-j", 1,
                      "--json")
    assert done.returncode == 0, done.stderr  # worse is a warning, not a failure
    rec = _records(done.stdout)
    assert set(rec) == {TILING, OFF_TILE, IMPROVES}
    for src in (tiling, off, good):
        r = rec[src.name]
        out = Path(r["output"])
        assert r["coverage_before"] == pytest.approx(_oracle(src), abs=1e-7)
        assert r["coverage_after"] == pytest.approx(_oracle(out), abs=1e-6)
        assert r["worse"] is (r["coverage_after"] < r["coverage_before"])
        assert_obj_packed(src, out)  # written anyway, and valid
    assert rec[TILING]["worse"] and rec[TILING]["coverage_after"] < 0.5 * rec[TILING]["coverage_before"]
    assert rec[OFF_TILE]["worse"] and rec[IMPROVES]["worse"] is False
    assert rec[TILING]["out_of_tile"] == 9 and rec[OFF_TILE]["out_of_tile"] == 52 and rec[IMPROVES]["out_of_tile"] == 0
    lines = done.stderr.splitlines()
    for name in (TILING, OFF_TILE):
        assert any(line.startswith("warning:") and name in line and "reach outside the 0..1 tile" in line
                   for line in lines)
        assert any(line.startswith("warning:") and name in line and "packing lowers coverage" in line
                   for line in lines)
        assert any(name in line and line.endswith("(worse)") for line in lines)
    assert not any(IMPROVES in line and line.startswith("warning:") for line in lines)
    assert "2 worse than the input" in lines[-1]


@pytest.mark.slow
def test_only_if_better_keeps_the_input_layout(tmp_path: Path) -> None:
    tiling, off, good = _models(tmp_path, TILING, OFF_TILE, IMPROVES)
    originals = {p: p.read_bytes() for p in (tiling, off, good)}
    done = run_uvnest("pack", tmp_path / "in", "--out-dir", tmp_path / "out", "--iterations", 100, "-j", 1,
                      "--json", "--only-if-better")
    assert done.returncode == 0, done.stderr
    rec = _records(done.stdout)
    for src in (tiling, off):
        assert rec[src.name]["status"] == "unchanged" and rec[src.name]["worse"]
        assert (tmp_path / "out" / src.name).read_bytes() == originals[src]  # the input's bytes
    assert rec[IMPROVES]["status"] == "packed"
    assert_obj_packed(good, tmp_path / "out" / IMPROVES)
    assert "2 unchanged (packing would lower coverage)" in done.stderr.splitlines()[-1]

    before = {p: p.stat().st_mtime_ns for p in (tiling, off)}
    done = run_uvnest("pack", tiling, off, good, "--in-place", "--iterations", 100, "--only-if-better")
    assert done.returncode == 0, done.stderr
    for src in (tiling, off):  # not even rewritten
        assert src.read_bytes() == originals[src] and src.stat().st_mtime_ns == before[src]
    assert good.read_bytes() != originals[good]


@pytest.mark.slow
def test_the_tile_warning_comes_before_the_search(tmp_path: Path) -> None:
    """The warning about islands outside the tile is printed when the file
    is read, not when its 2-second search ends (stderr read as it comes)."""
    off, = _models(tmp_path, OFF_TILE)
    t0 = time.monotonic()
    proc = popen_uvnest("pack", off, "--time", 2, "-j", 1, stdout=subprocess.DEVNULL)
    seen = None
    for line in proc.stderr:
        if "reach outside the 0..1 tile" in line:
            seen = time.monotonic() - t0
    assert proc.wait(timeout=60) == 0
    total = time.monotonic() - t0
    assert seen is not None and total - seen >= 1.5, (seen, total)
