"""``uvnest pack`` for pipelines: what it prints (stderr a terminal or a
pipe, -v/-q/-qq, --json lines), --dry-run, --skip-existing, --include and
--exclude, farm command files, and the Python API's options on the command
line (--target, --texture-size WxH, --no-scale, --locked).  The real
installed command on real homedecor models; layouts checked by the
benchmark's independent shapely checker.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, List

import numpy as np
import pytest

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvnest  # noqa: E402
from uvnest import io  # noqa: E402
from uvnest.cli import main  # noqa: E402
from tests.test_cli import (assert_obj_packed, copy_files, corpus_subset, obj_lines, popen_uvnest,  # noqa: E402
                            read_pty, run_uvnest)
from tests.bench.checker import check_layout  # noqa: E402
from tests.bench.common import Model  # noqa: E402
from corpus import homedecor_dir  # noqa: E402

pytestmark = pytest.mark.corpus


def _json_lines(text: str) -> List[dict]:
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("args, message", [
    (["--texture-size", "2048x"], "not an integer"),
    (["--target", "0", "0", "1"], "expected 4 arguments"),
    (["--target", "0.5", "0", "0.2", "1"], "--target must be"),
    (["--no-scale", "--udim"], "--no-scale"),
    (["--skip-existing", "--in-place"], "--skip-existing cannot be combined"),
    (["--chunk", "3"], "--chunk needs --emit-commands"),
    (["--scheduler", "local", "--dry-run"], "exclude each other"),
    (["-v", "-q"], "exclude each other"),
    (["--texel-density", "8", "--udim", "--tiles"], "expected one argument"),
    (["--bogus"], "unrecognized arguments: --bogus"),
])
def test_usage_errors_are_pack_usage_errors(tmp_path: Path, capsys: Any, args: List[str], message: str) -> None:
    """In-process (argparse exits): exit 2 with pack's usage, before any file is read."""
    src = copy_files(corpus_subset()[:1], tmp_path)[0]
    with pytest.raises(SystemExit) as exit_:
        main(["pack", str(src), *args])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and err.startswith("usage: uvnest pack "), err
    assert sorted(p.name for p in tmp_path.iterdir()) == [src.name]


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="needs a pseudo-terminal")
def test_output_on_a_terminal_and_in_a_pipe(tmp_path: Path) -> None:
    """--json goes to stdout, one object per file, whatever stderr is; a
    line per file on stderr, terminal or not; -v adds start lines and
    detail, -q leaves warnings and the summary, -qq nothing."""
    import pty

    src = copy_files(corpus_subset()[:2], tmp_path / "in")
    common = ["--iterations", 20, "-j", 1]
    master, slave = pty.openpty()
    proc = popen_uvnest("pack", tmp_path / "in", "--out-dir", tmp_path / "tty", "--json", *common, stderr=slave)
    os.close(slave)
    shown = read_pty(master)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0
    records = _json_lines(out)
    assert [Path(r["path"]).name for r in records] == sorted(p.name for p in src)
    assert all(r["status"] == "packed" and r["output"].startswith(str(tmp_path / "tty")) for r in records)
    assert "\r" in shown and shown.count(f" -> {tmp_path / 'tty'}") == 2 and "{" not in shown

    runs = {}
    for flags in ([], ["-v"], ["-q"], ["-qq"]):
        done = run_uvnest("pack", tmp_path / "in", "--out-dir", tmp_path / "pipe", *common, *flags)
        assert done.returncode == 0, done.stderr
        assert "\r" not in done.stderr and "\x1b" not in done.stderr
        runs[" ".join(flags)] = done
    lines = [line for line in runs[""].stderr.splitlines() if not line.startswith("warning:")]
    assert len(lines) == 3 and all(f" -> {tmp_path / 'pipe'}" in line for line in lines[:2])
    assert lines[2].startswith("uvnest: packed")
    verbose = runs["-v"].stderr
    assert verbose.count(": packing\n") == 2 and verbose.count(" moves, seed 0") == 2
    quiet = [line for line in runs["-q"].stderr.splitlines() if not line.startswith("warning:")]
    assert len(quiet) == 1 and quiet[0].startswith("uvnest: packed 2 of 2 files")
    assert runs["-qq"].stderr == "" and runs["-qq"].stdout == ""


@pytest.mark.slow
def test_dry_run_skip_existing_include_exclude(tmp_path: Path) -> None:
    a, b, c = corpus_subset()[:3]
    root = tmp_path / "models"
    copy_files([a], root)
    copy_files([b], root / "sub")
    copy_files([c], root / "skip")

    done = run_uvnest("pack", root, "--out-dir", tmp_path / "out", "--dry-run", "--json", "--exclude", "skip/*")
    assert done.returncode == 0, done.stderr
    assert {(Path(r["path"]).name, r["status"]) for r in _json_lines(done.stdout)} == {(a.name, "dry run"),
                                                                                        (b.name, "dry run")}
    assert "would pack 2 of 2 files" in done.stderr and not (tmp_path / "out").exists()

    done = run_uvnest("pack", root, "--out-dir", tmp_path / "out", "--include", "sub/*", "--iterations", 20)
    assert done.returncode == 0, done.stderr
    first = tmp_path / "out" / "sub" / b.name
    assert [p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.obj")] == \
        [f"sub/{b.name}"]
    stamp = first.stat().st_mtime_ns

    done = run_uvnest("pack", root, "--out-dir", tmp_path / "out", "--skip-existing", "--json", "--iterations", 20)
    assert done.returncode == 0, done.stderr
    status = {Path(r["path"]).name: r["status"] for r in _json_lines(done.stdout)}
    assert status == {a.name: "packed", b.name: "skipped", c.name: "packed"}
    assert first.stat().st_mtime_ns == stamp  # not written again
    assert_obj_packed(root / a.name, tmp_path / "out" / a.name)
    assert "1 skipped (output exists)" in done.stderr


@pytest.mark.slow
def test_emitted_farm_commands_write_what_a_direct_run_writes(tmp_path: Path) -> None:
    files = corpus_subset()[:3]
    root = tmp_path / "models"
    copy_files(files[:2], root)
    copy_files(files[2:], root / "sub")
    options = ["--iterations", 40, "--seed", 5, "--margin", 0.003, "--rotation", "90"]
    jobs = tmp_path / "jobs.txt"
    done = run_uvnest("pack", root, "--out-dir", tmp_path / "farm", *options, "--emit-commands", jobs,
                      "--chunk", 2, "--report", tmp_path / "unused.json")
    assert done.returncode == 0, done.stderr
    commands = jobs.read_text().splitlines()
    assert len(commands) == 2  # 2 files of the top folder in one chunk, the sub folder's file in another
    assert not (tmp_path / "farm").exists() and not (tmp_path / "unused.json").exists()  # nothing packed
    assert all(c.startswith("uvnest pack ") and "--report" not in c for c in commands)
    script = Path(sys.executable).parent  # the uvnest of this interpreter, as a farm node's PATH would give
    for command in commands:
        job = subprocess.run(command, shell=True, cwd="/", capture_output=True, text=True, timeout=300,
                             env={**os.environ, "PATH": f"{script}{os.pathsep}{os.environ['PATH']}"})
        assert job.returncode == 0, (command, job.stderr)
    done = run_uvnest("pack", root, "--out-dir", tmp_path / "direct", *options)
    assert done.returncode == 0, done.stderr
    direct = sorted(p.relative_to(tmp_path / "direct") for p in (tmp_path / "direct").rglob("*.obj"))
    farm = sorted(p.relative_to(tmp_path / "farm") for p in (tmp_path / "farm").rglob("*.obj"))
    assert direct == farm and len(farm) == 3
    for rel in farm:
        assert (tmp_path / "farm" / rel).read_bytes() == (tmp_path / "direct" / rel).read_bytes()


@pytest.mark.slow
def test_api_options_on_the_command_line(tmp_path: Path) -> None:
    sink = copy_files([homedecor_dir() / "homedecor_bathroom_sink.obj"], tmp_path)[0]  # groups g 1, g 2, g 3
    mesh = io.load(sink)

    out = tmp_path / "target.obj"
    done = run_uvnest("pack", sink, "-o", out, "--target", 0.25, 0, 0.75, 0.5, "--iterations", 30)
    assert done.returncode == 0, done.stderr
    assert_obj_packed(sink, out)
    uvs = io.load(out).uvs[np.concatenate(mesh.faces)]
    assert np.all(uvs.min(axis=0) >= np.array([0.25, 0.0]) - 1e-9)
    assert np.all(uvs.max(axis=0) <= np.array([0.75, 0.5]) + 1e-9)

    out = tmp_path / "locked.obj"
    done = run_uvnest("pack", sink, "-o", out, "--locked", "2", "--iterations", 30)
    assert done.returncode == 0, done.stderr
    packed = io.load(out)
    check = check_layout(Model.from_faces(sink.name, "cli", mesh.uvs, list(mesh.faces)), packed.uvs, 0.001)
    assert all(v.kind == "scale" for v in check.violations), check.first_violation  # locked keep their size
    names = mesh.group_names
    held = [f for f, g in zip(mesh.faces, mesh.face_groups) if re.fullmatch(r"g 2", names[g])]
    moved = [f for f, g in zip(mesh.faces, mesh.face_groups) if not re.fullmatch(r"g 2", names[g])]
    assert held and moved
    for f in held:
        assert np.array_equal(packed.uvs[f], mesh.uvs[f])  # locked: bit for bit where it was
    assert any(not np.array_equal(packed.uvs[f], mesh.uvs[f]) for f in moved)

    out = tmp_path / "kept_size.obj"
    done = run_uvnest("pack", sink, "-o", out, "--no-scale", "--iterations", 30, "--json")
    assert done.returncode == 0, done.stderr
    assert_obj_packed(sink, out)
    assert json.loads(done.stdout)["scale"] == 1.0

    done = run_uvnest("pack", sink, "-o", tmp_path / "wh.obj", "--texture-size", "512x256", "--margin-px", 4,
                      "--iterations", 30, "--report", tmp_path / "r.json")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "r.json").read_text())["options"]["texture_size"] == [512, 256]
    assert obj_lines(tmp_path / "wh.obj")[0] == obj_lines(sink)[0]


@pytest.mark.slow
@pytest.mark.parametrize("rotation", ["axis", "axis_x", "axis_y"])
def test_axis_aligned_rotations(tmp_path: Path, rotation: str) -> None:
    """Blender's axis-aligned methods: every island ends up with its
    smallest bounding box axis-aligned (shapely's minimum rotated
    rectangle), lying for axis_x, standing for axis_y; the layout valid."""
    import shapely

    sink = copy_files([homedecor_dir() / "homedecor_bathroom_sink.obj"], tmp_path)[0]
    out = tmp_path / f"{rotation}.obj"
    done = run_uvnest("pack", sink, "-o", out, "--rotation", rotation, "--iterations", 30)
    assert done.returncode == 0, done.stderr
    assert_obj_packed(sink, out)
    mesh = io.load(out)
    shapes = [shapely.union_all([shapely.Polygon(mesh.uvs[mesh.faces[f]]) for f in isl.faces])
              for isl in uvnest.find_islands(mesh.uvs, mesh.faces, mesh_faces=mesh.mesh_faces)]
    assert len(shapes) == 7  # no island was merged with another
    for shape in shapes:
        x0, y0, x1, y1 = shape.bounds
        assert (x1 - x0) * (y1 - y0) == pytest.approx(shapely.minimum_rotated_rectangle(shape).area, rel=1e-6)
        if rotation == "axis_x":
            assert x1 - x0 >= y1 - y0
        elif rotation == "axis_y":
            assert y1 - y0 >= x1 - x0


@pytest.mark.parametrize("options", [
    ["--iterations", "40", "--seed", "5", "--margin", "0.003", "--rotation", "axis_x", "--flip"],
    ["--udim", "--tiles", "1001-1003,1011", "--texel-density", "256", "--texture-size", "2048x1024", "--keep-groups"],
    ["--target", "0", "0", "0.5", "1", "--locked", "g 2", "--locked", "wood*", "--only-if-better", "-vv"],
    ["--stack-similar", "--max-scale-ratio", "1.5", "--no-scale", "--json", "--skip-existing", "-j", "2"],
    ["--stack-similar", "0.01", "--margin-px", "4", "--texture-size", "512", "--time", "3", "--in-place"],
    ["--target-region", "{region}", "--padding", "0.01", "-q"],
])
def test_farm_commands_repeat_every_option(tmp_path: Path, options: List[str]) -> None:
    """Each emitted command parses back to the run's own options (in-process: argparse and farm_commands)."""
    import shlex

    from uvnest.cli.arguments import build_parser
    from uvnest.cli.farm import farm_commands
    from uvnest.cli.results import PackTask

    files = copy_files(corpus_subset()[:3], tmp_path / "in")
    region = tmp_path / "region.json"  # a tile with a keep-out square
    region.write_text(json.dumps([[[0, 0], [1, 0], [1, 1], [0, 1]], [[0.4, 0.4], [0.4, 0.6], [0.6, 0.6], [0.6, 0.4]]]))
    options = [o.replace("{region}", os.path.relpath(region)) for o in options]
    parser = build_parser()
    given = parser.parse_args(["pack", *map(str, files), *options, "--emit-commands", "jobs.txt"])
    tasks = [PackTask(index=k, path=str(f), output=str(f if given.in_place else f.with_name(f"{f.stem}_packed.obj")),
                      options={}, time_limit=None, iterations=None) for k, f in enumerate(files)]
    lines = farm_commands(given.command_parser, given, tasks, chunk=2)
    assert len(lines) == 2
    for line in lines:
        words = shlex.split(line)
        assert words[:2] == ["uvnest", "pack"]
        again = parser.parse_args(words[1:])
        for key, value in vars(given).items():
            if key not in ("paths", "emit_commands", "suffix", "out_dir", "command_parser", "run"):
                assert getattr(again, key) == value, key
        assert again.paths == [str(f.resolve()) for f in files][:2] or again.paths == [str(files[2].resolve())]
