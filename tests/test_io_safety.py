"""Hostile files for uvnest.io (issue 26): a model reads nothing outside its
own folder, nothing that is not a regular file, nothing beyond what it
declares, and every failure is a MeshIOError naming the model.

Everything here is real: files in tmp folders, real symbolic links, a real
FIFO and /dev/zero.  Reads that would block or fill the memory before the
fix run in a child process with a timeout and an address-space limit, so a
regression fails the test instead of hanging the suite.
"""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable, Dict, List

import numpy as np
import pytest

pygltflib = pytest.importorskip("pygltflib")

from uvnest import io  # noqa: E402
from uvnest.io import MeshIOError  # noqa: E402
from tests.test_io_gltf import Builder, cube  # noqa: E402

SECRET = b"SECRET-0123456789-do-not-leak-" * 4


def cube_gltf(folder: Path, name: str = "cube.gltf") -> Path:
    """A valid .gltf cube with its buffer file, in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    b = Builder()
    b.mesh("Cube", [cube(b)["prim"]])
    return b.save_gltf(folder / name)


def edit(path: Path, change: Callable[[Dict[str, Any]], None]) -> Path:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))
    return path


def extra_buffer(uri: str, length: int = len(SECRET)) -> Callable[[Dict[str, Any]], None]:
    """A second buffer that no bufferView uses: before the fix it was read and
    copied into the output's ``<stem>_1.bin``."""
    return lambda doc: doc["buffers"].append({"uri": uri, "byteLength": length})


def all_bytes(folder: Path) -> List[bytes]:
    return [p.read_bytes() for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]


def load_in_child(path: Path, timeout: float = 30.0) -> subprocess.CompletedProcess:
    """``io.load(path)`` in a child limited to 2 GB of address space; prints
    the exception's type and message."""
    code = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
        from uvnest import io
        try:
            io.load({str(path)!r})
            print("loaded")
        except BaseException as e:
            print(type(e).__name__ + ": " + str(e))
    """)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)


# --------------------------------------------------------------------------- buffers outside the folder


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_bytes(SECRET)
    return path


@pytest.mark.parametrize("how", ["dotdot", "percent_dotdot", "inner_dotdot", "absolute", "file_link", "dir_link"])
def test_gltf_buffer_uri_outside_the_model_folder_is_refused_and_never_copied(
        tmp_path: Path, secret: Path, how: str) -> None:
    models = tmp_path / "models" / "a"
    model = cube_gltf(models)
    if how == "file_link":
        (models / "innocent.bin").symlink_to(secret)
    if how == "dir_link":
        (models / "textures").symlink_to(tmp_path, target_is_directory=True)
    uri = {"dotdot": "../../secret.txt", "percent_dotdot": "%2E%2E/%2e%2e/secret.txt",
           "inner_dotdot": "sub/../../../secret.txt", "absolute": str(secret),
           "file_link": "innocent.bin", "dir_link": "textures/secret.txt"}[how]
    edit(model, extra_buffer(uri))
    with pytest.raises(MeshIOError, match=r"cube\.gltf: buffer 1 .*outside the model's folder"):
        io.load(model)
    assert not any(SECRET in data for data in all_bytes(tmp_path / "models"))


def test_gltf_buffer_in_a_subfolder_is_still_read(tmp_path: Path) -> None:
    model = cube_gltf(tmp_path)
    (tmp_path / "bin").mkdir()
    (tmp_path / "cube-data.bin").rename(tmp_path / "bin" / "cube-data.bin")
    edit(model, lambda doc: doc["buffers"][0].update(uri="bin/cube-data.bin"))
    assert len(io.load(model).faces) == 12


def test_gltf_buffer_uri_dev_zero_is_refused_without_reading(tmp_path: Path) -> None:
    model = edit(cube_gltf(tmp_path), extra_buffer("/dev/zero", 2**40))
    out = load_in_child(model)
    assert out.stdout.startswith("MeshIOError: ") and "cube.gltf: buffer 1" in out.stdout, out.stdout + out.stderr


def test_gltf_buffer_link_to_dev_zero_is_refused(tmp_path: Path) -> None:
    (tmp_path / "zero.bin").symlink_to("/dev/zero")
    model = edit(cube_gltf(tmp_path), extra_buffer("zero.bin", 1000))
    out = load_in_child(model)
    assert out.stdout.startswith("MeshIOError: ") and "cube.gltf: buffer 1 ('zero.bin')" in out.stdout \
        and "outside the model's folder" in out.stdout, out.stdout + out.stderr


def test_gltf_buffer_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.bin")
    model = edit(cube_gltf(tmp_path), extra_buffer("pipe.bin", 100))
    out = load_in_child(model, timeout=60)
    assert out.stdout.startswith("MeshIOError: ") and "buffer 1 ('pipe.bin'): cannot read: a FIFO" in out.stdout, \
        out.stdout + out.stderr


def test_model_that_is_a_fifo_or_a_device_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.obj")
    (tmp_path / "zero.glb").symlink_to("/dev/zero")
    for name, kind in (("pipe.obj", "a FIFO or pipe"), ("zero.glb", "a character device")):
        out = load_in_child(tmp_path / name, timeout=60)
        assert out.stdout.strip() == f"MeshIOError: {tmp_path / name}: cannot read: {kind}, not a regular file", \
            out.stdout + out.stderr


def test_gltf_buffer_file_larger_than_its_byte_length_is_an_error(tmp_path: Path) -> None:
    model = cube_gltf(tmp_path)
    data = (tmp_path / "cube-data.bin").read_bytes()
    (tmp_path / "cube-data.bin").write_bytes(data + b"\0\0\0")  # padding to a multiple of 4 is fine
    assert len(io.load(model).faces) == 12
    (tmp_path / "cube-data.bin").write_bytes(data + SECRET)
    with pytest.raises(MeshIOError, match=rf"cube\.gltf: buffer 0 \('cube-data\.bin'\): is {len(data) + len(SECRET)}"
                                          rf" bytes, more than its byteLength {len(data)}"):
        io.load(model)


def test_gltf_byte_length_beyond_the_read_limit_is_an_error(tmp_path: Path) -> None:
    model = edit(cube_gltf(tmp_path), lambda doc: doc["buffers"][0].update(byteLength=2**40))
    with pytest.raises(MeshIOError, match=r"cube\.gltf: buffer 0 byteLength 1099511627776 is more than"):
        io.load(model)


@pytest.mark.parametrize("uri", ["../secret.png", "/etc/hostname", "link.png"])
def test_gltf_image_uri_outside_the_model_folder_is_refused(tmp_path: Path, secret: Path, uri: str) -> None:
    folder = tmp_path / "m"
    model = cube_gltf(folder)
    (folder / "link.png").symlink_to(secret)
    edit(model, lambda doc: doc.update(images=[{"uri": "ok.png"}, {"uri": uri}]))
    with pytest.raises(MeshIOError, match=r"cube\.gltf: image 1 .*outside the model's folder"):
        io.load(model)


def test_gltf_image_uri_inside_the_folder_need_not_exist(tmp_path: Path) -> None:
    model = edit(cube_gltf(tmp_path), lambda doc: doc.update(images=[{"uri": "textures/wood%20grain.png"}]))
    assert len(io.load(model).faces) == 12


@pytest.mark.parametrize("depth", [101, 100_000])
def test_deeply_nested_gltf_json_is_a_mesh_io_error(tmp_path: Path, depth: int) -> None:
    model = cube_gltf(tmp_path)
    text = model.read_text()
    model.write_text(text[:-1] + ', "extras": ' + "[" * depth + "]" * depth + "}")
    with pytest.raises(MeshIOError, match=rf"cube\.gltf: bad JSON: nested {depth + 1} levels deep"):
        io.load(model)


def test_nesting_inside_json_strings_does_not_count(tmp_path: Path) -> None:
    model = edit(cube_gltf(tmp_path), lambda doc: doc.update(extras={"note": "[" * 500 + '\\"{' * 300}))
    assert len(io.load(model).faces) == 12


def test_wrongly_typed_gltf_values_are_mesh_io_errors(tmp_path: Path) -> None:
    model = edit(cube_gltf(tmp_path), lambda doc: doc["accessors"][2].update(componentType=[5126]))  # TEXCOORD_0
    with pytest.raises(MeshIOError, match=r"cube\.gltf: invalid glTF document: TypeError"):
        io.load(model)


# --------------------------------------------------------------------------- OBJ references


def test_obj_mtllib_and_texture_paths_are_never_opened(tmp_path: Path, secret: Path) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    os.mkfifo(folder / "materials.mtl")  # opening it for reading would block
    model = folder / "quad.obj"
    model.write_text("mtllib materials.mtl\nmtllib ../secret.txt\nmtllib /dev/zero\nusemtl wood\n"
                     "map_Kd ../secret.txt\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                     "vt 0 0\nvt 0.5 0\nvt 0.5 0.5\nvt 0 0.5\nf 1/1 2/2 3/3 4/4\n")
    out = load_in_child(model, timeout=60)
    assert out.stdout.strip() == "loaded", out.stdout + out.stderr
    mesh = io.load(model)
    io.save(mesh, folder / "quad_packed.obj", uvs=mesh.uvs * 2)
    assert SECRET not in (folder / "quad_packed.obj").read_bytes()
    assert (folder / "quad_packed.obj").read_bytes().startswith(b"mtllib materials.mtl\nmtllib ../secret.txt\n")


# --------------------------------------------------------------------------- writing


QUADS = ("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 0.5 0\nvt 0.5 0.5\nvt 0 0.5\n"
         "vt 0.6 0.6\nvt 0.9 0.6\nvt 0.9 0.9\nvt 0.6 0.9\nf 1/1 2/2 3/3 4/4\nf 1/5 2/6 3/7 4/8\n")
FAST = ["--iterations", "0"]


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "quads.obj"
    path.write_text(QUADS)
    return path


@pytest.fixture
def no_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if the CLI starts on a file (the checks must come first)."""
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a file was loaded for packing before the path checks")
    monkeypatch.setattr(io, "load", refuse)


from uvnest import cli  # noqa: E402


def run(*args: Any) -> int:
    return cli.main([str(a) for a in args])


def test_writing_through_a_symlink_replaces_its_target_not_the_link(tmp_path: Path, model: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "packed.obj"
    target.write_text("old")
    link = tmp_path / "packed.obj"
    link.symlink_to(target)
    assert run("pack", model, "-o", link, *FAST) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert len(io.load(target).uvs) == 8


def test_in_place_on_a_symlinked_input_updates_the_file_it_leads_to(tmp_path: Path, model: Path) -> None:
    link = tmp_path / "link.obj"
    link.symlink_to(model)
    before = model.read_bytes()
    assert run("pack", "--in-place", link, *FAST) == 0
    assert link.is_symlink() and model.read_bytes() != before


def test_gltf_written_through_a_symlink_keeps_its_buffer_beside_the_target(tmp_path: Path) -> None:
    src = cube_gltf(tmp_path / "src")
    (tmp_path / "real").mkdir()
    link = tmp_path / "out.gltf"
    link.symlink_to(tmp_path / "real" / "packed.gltf")
    mesh = io.load(src)
    io.save(mesh, link, uvs=mesh.uvs * 0.5)
    assert link.is_symlink() and sorted(p.name for p in (tmp_path / "real").iterdir()) == ["packed.bin", "packed.gltf"]
    assert np.allclose(io.load(link).uvs, mesh.uvs * 0.5)


def test_report_dash_is_standard_output(tmp_path: Path, model: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture) -> None:
    monkeypatch.chdir(tmp_path)
    assert run("pack", model, "--report", "-", *FAST) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["files"][0]["status"] == "packed"
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("kind", ["device_link", "fifo"])
def test_report_on_a_device_or_fifo_is_refused_before_the_search(
        tmp_path: Path, model: Path, kind: str, no_search: None, capsys: pytest.CaptureFixture) -> None:
    report = tmp_path / "report.json"
    if kind == "device_link":  # as /dev/stdout is a link to the terminal or pipe
        report.symlink_to("/dev/null")
    else:
        os.mkfifo(report)
    with pytest.raises(SystemExit) as exit_:  # before: the FIFO or link was replaced by a regular file
        run("pack", model, "--report", report, *FAST)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"--report {report}: is a" in err and "use --report - for standard output" in err
    assert report.is_symlink() if kind == "device_link" else stat.S_ISFIFO(os.lstat(report).st_mode)


@pytest.mark.parametrize("option", ["-o", "--out-dir", "--report"])
def test_unwritable_output_paths_exit_2_before_the_search(
        tmp_path: Path, model: Path, option: str, no_search: None, capsys: pytest.CaptureFixture) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    where = blocker / "sub" / ("out.obj" if option == "-o" else "report.json")
    with pytest.raises(SystemExit) as exit_:
        run("pack", model, option, where.parent if option == "--out-dir" else where, *FAST)
    assert exit_.value.code == 2
    assert f"{blocker} is not a folder" in capsys.readouterr().err


def test_output_to_a_device_link_is_refused_before_the_search(
        tmp_path: Path, model: Path, no_search: None, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "out.obj"
    out.symlink_to("/dev/null")
    with pytest.raises(SystemExit) as exit_:
        run("pack", model, "-o", out, *FAST)
    assert exit_.value.code == 2 and "is a character device" in capsys.readouterr().err
    assert out.is_symlink()


def test_a_planned_output_that_is_a_fifo_exits_2_before_the_search(
        tmp_path: Path, model: Path, no_search: None, capsys: pytest.CaptureFixture) -> None:
    os.mkfifo(tmp_path / "quads_packed.obj")
    with pytest.raises(SystemExit) as exit_:
        run("pack", model, *FAST)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "quads_packed.obj: is a FIFO or pipe; uvnest writes only regular files" in err
    assert stat.S_ISFIFO(os.lstat(tmp_path / "quads_packed.obj").st_mode)


def test_atomic_write_refuses_devices(tmp_path: Path) -> None:
    link = tmp_path / "null.bin"
    link.symlink_to("/dev/null")
    with pytest.raises(OSError, match="is a character device; uvnest writes only regular files"):
        io.atomic_write_bytes(link, b"x")
    assert link.is_symlink()
