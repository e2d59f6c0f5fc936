"""The ``uvnest`` command line, run as a real program on real files.

Every test starts the installed console script (or ``python -m uvnest`` when
the script is not next to this interpreter) in a subprocess.  Packed layouts
are checked by the benchmark's independent shapely checker
(``tests.bench.checker``: islands at least the margin apart except merge
groups - islands whose input outlines overlap - inside the tile, rigid, one
scale), and outputs are compared with their inputs byte for byte: OBJ lines
other than ``vt`` are identical; glTF documents are equal but for the
packed accessors' ``min``/``max`` and buffer URIs, and buffers are equal
outside the packed UV bytes.

The helpers at the top are shared with ``test_preview.py`` and
``test_demo.py``.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pytest
import shapely

if __package__ in (None, ""):  # plain `pytest` puts tests/ first on sys.path, not the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvnest  # noqa: E402
import uvnest.packing  # noqa: E402
from uvnest import io  # noqa: E402
from tests.bench.checker import check_layout  # noqa: E402
from tests.bench.common import Model  # noqa: E402
from corpus import homedecor_models  # noqa: E402

DEFAULT_MARGIN = 0.001
WHOLE_CORPUS_BUDGET_S = 120.0

# --------------------------------------------------------------------------- helpers (shared)


def uvnest_command() -> List[str]:
    """The installed ``uvnest`` console script of this interpreter, else ``python -m uvnest``."""
    script = Path(sys.executable).with_name("uvnest.exe" if os.name == "nt" else "uvnest")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "uvnest"]


def run_uvnest(*args: Any, cwd: Optional[Path] = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``uvnest ARGS`` to completion, capturing text output."""
    return subprocess.run(uvnest_command() + [str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def popen_uvnest(*args: Any, cwd: Optional[Path] = None, **kwargs: Any) -> subprocess.Popen:
    """Start ``uvnest ARGS`` without waiting."""
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen(uvnest_command() + [str(a) for a in args], cwd=cwd, text=True, **kwargs)


_VT = re.compile(rb"^[ \t]*vt[ \t]")


def obj_lines(path: Path) -> Tuple[List[bytes], int]:
    """The lines of an OBJ file other than ``vt`` lines (line endings kept), and the ``vt`` count."""
    lines = path.read_bytes().splitlines(keepends=True)
    other = [line for line in lines if not _VT.match(line)]
    return other, len(lines) - len(other)


def assert_valid_layout(uvs_in: np.ndarray, faces: Sequence[np.ndarray], uvs_out: np.ndarray, margin: float,
                        name: str = "layout") -> None:
    """The independent shapely check: margin between merge groups, inside the tile, rigid islands."""
    model = Model.from_faces(name, "cli", uvs_in, list(faces))
    result = check_layout(model, uvs_out, margin, packer="uvnest cli")
    assert result.valid, result.first_violation


def assert_obj_packed(src: Path, out: Path, margin: float = DEFAULT_MARGIN) -> None:
    """``out`` is ``src`` with only its ``vt`` lines changed, and a valid layout."""
    src_lines, src_vt = obj_lines(src)
    out_lines, out_vt = obj_lines(out)
    assert out_vt == src_vt, f"{out}: {out_vt} vt lines, the input has {src_vt}"
    assert out_lines == src_lines, f"{out}: a line other than vt changed"
    a, b = io.load(src), io.load(out)
    assert_valid_layout(a.uvs, a.faces, b.uvs, margin, src.name)


def read_pty(master: int) -> str:
    """Everything written to a pseudo-terminal until its child closes it (then ``master`` is closed)."""
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return b"".join(chunks).decode()


def file_hashes(paths: Sequence[Path]) -> Dict[Path, str]:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


def temp_files(folder: Path) -> List[Path]:
    """Leftover temporary files of atomic writes."""
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


def union_in_tile(uvs: np.ndarray, faces: Sequence[np.ndarray]) -> float:
    """Area of the union of the faces inside the unit tile (shapely)."""
    polys = [shapely.Polygon(uvs[f]) for f in faces]
    polys = [p if p.is_valid else shapely.make_valid(p) for p in polys]
    return float(shapely.union_all(polys).intersection(shapely.box(0, 0, 1, 1)).area)


def corpus_subset(step: int = 29) -> List[Path]:
    """A spread of homedecor models (every ``step``-th)."""
    return homedecor_models()[::step]


def copy_files(files: Sequence[Path], folder: Path) -> List[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return [Path(shutil.copyfile(f, folder / f.name)) for f in files]


def read_report(path: Path) -> Dict[str, Dict[str, Any]]:
    """The report's file entries by file name."""
    doc = json.loads(path.read_text())
    assert doc["uvnest_version"] == uvnest.__version__
    return {Path(f["path"]).name: f for f in doc["files"]}


# --------------------------------------------------------------------------- glTF test files


class GltfModel:
    """A glTF with one mesh of rectangle islands (two quads each), two UV
    sets, normals, a material and extras; written as .gltf + .bin or .glb
    with pygltflib.  ``islands`` rectangles are scattered, some crossing the
    tile border."""

    def __init__(self, n_islands: int = 9) -> None:
        self.pygltflib = pytest.importorskip("pygltflib")
        pos, uv0, uv1, tris = [], [], [], []
        for k in range(n_islands):
            w, h = 0.12 + 0.03 * (k % 4), 0.08 + 0.05 * (k % 3)
            x, y = -0.05 + 0.38 * (k % 3), -0.04 + 0.37 * (k // 3)
            base = len(pos)
            for j, (s, t) in enumerate([(0, 0), (0.5, 0), (1, 0), (0, 1), (0.5, 1), (1, 1)]):
                pos.append((k * 2.0 + s, t, 0.1 * k))
                uv0.append((x + s * w, y + t * h))
                uv1.append((0.1 * (k % 3) + s * 0.05, 0.1 * (k // 3) + t * 0.05))
            for a, b, c in ((0, 1, 4), (0, 4, 3), (1, 2, 5), (1, 5, 4)):
                tris.append((base + a, base + b, base + c))
        self.positions = np.array(pos, dtype=np.float32)
        self.uv = [np.array(uv0, dtype=np.float32), np.array(uv1, dtype=np.float32)]
        self.triangles = np.array(tris, dtype=np.uint16)

    def _document(self) -> Tuple[Any, bytes]:
        g = self.pygltflib
        blob = bytearray()
        views = []
        arrays = [self.triangles.reshape(-1), self.positions, np.tile([0, 0, 1], (len(self.positions), 1))
                  .astype(np.float32), self.uv[0], self.uv[1]]
        for arr in arrays:
            blob.extend(b"\0" * (-len(blob) % 4))
            data = arr.tobytes()
            views.append(g.BufferView(buffer=0, byteOffset=len(blob), byteLength=len(data)))
            blob.extend(data)
        acc = [
            g.Accessor(bufferView=0, componentType=5123, count=self.triangles.size, type="SCALAR"),
            g.Accessor(bufferView=1, componentType=5126, count=len(self.positions), type="VEC3",
                       min=self.positions.min(0).tolist(), max=self.positions.max(0).tolist()),
            g.Accessor(bufferView=2, componentType=5126, count=len(self.positions), type="VEC3"),
            g.Accessor(bufferView=3, componentType=5126, count=len(self.positions), type="VEC2",
                       min=self.uv[0].min(0).tolist(), max=self.uv[0].max(0).tolist()),
            g.Accessor(bufferView=4, componentType=5126, count=len(self.positions), type="VEC2",
                       min=self.uv[1].min(0).tolist(), max=self.uv[1].max(0).tolist()),
        ]
        prim = g.Primitive(attributes=g.Attributes(POSITION=1, NORMAL=2, TEXCOORD_0=3, TEXCOORD_1=4), indices=0,
                           material=0)
        doc = g.GLTF2(asset=g.Asset(version="2.0", generator="uvnest tests"), scene=0,
                      scenes=[g.Scene(nodes=[0])], nodes=[g.Node(mesh=0, name="panel", extras={"keep": [1, 2]})],
                      meshes=[g.Mesh(name="panels", primitives=[prim])],
                      materials=[g.Material(name="paint", doubleSided=True)], accessors=acc, bufferViews=views)
        return doc, bytes(blob)

    def save_gltf(self, path: Path) -> Path:
        doc, blob = self._document()
        (path.parent / f"{path.stem}-data.bin").write_bytes(blob)
        doc.buffers = [self.pygltflib.Buffer(uri=f"{path.stem}-data.bin", byteLength=len(blob))]
        path.write_text(doc.gltf_to_json())
        return path

    def save_glb(self, path: Path) -> Path:
        doc, blob = self._document()
        doc.buffers = [self.pygltflib.Buffer(byteLength=len(blob))]
        doc.set_binary_blob(blob)
        doc.save_binary(str(path))
        return path


def gltf_parts(path: Path) -> Tuple[Dict[str, Any], bytes]:
    """(JSON document, buffer 0 bytes) of a .gltf (external buffer) or .glb, parsed here."""
    raw = path.read_bytes()
    if path.suffix == ".glb":
        magic, _version, _length = struct.unpack_from("<4sII", raw, 0)
        assert magic == b"glTF"
        json_len, json_type = struct.unpack_from("<II", raw, 12)
        assert json_type == 0x4E4F534A
        doc = json.loads(raw[20:20 + json_len])
        bin_at = 20 + json_len
        bin_len, bin_type = struct.unpack_from("<II", raw, bin_at)
        assert bin_type == 0x004E4942
        return doc, raw[bin_at + 8:bin_at + 8 + bin_len]
    doc = json.loads(raw)
    return doc, (path.parent / doc["buffers"][0]["uri"]).read_bytes()


def assert_gltf_packed(src: Path, out: Path, model: GltfModel, uv_set: int, margin: float = DEFAULT_MARGIN) -> None:
    """Only TEXCOORD_<uv_set> changed (plus its min/max and the buffer URI);
    its new values are a valid layout of the input's islands."""
    doc_in, bin_in = gltf_parts(src)
    doc_out, bin_out = gltf_parts(out)
    packed = doc_in["meshes"][0]["primitives"][0]["attributes"][f"TEXCOORD_{uv_set}"]
    for doc in (doc_in, doc_out):
        for key in ("min", "max"):
            doc["accessors"][packed].pop(key, None)
        for buf in doc["buffers"]:
            buf.pop("uri", None)
    assert doc_out == doc_in
    view = doc_in["bufferViews"][doc_in["accessors"][packed]["bufferView"]]
    lo, hi = view["byteOffset"], view["byteOffset"] + view["byteLength"]
    assert len(bin_out) == len(bin_in)
    assert bin_out[:lo] == bin_in[:lo] and bin_out[hi:] == bin_in[hi:], "bytes outside the packed UVs changed"
    new_uv = np.frombuffer(bin_out[lo:hi], dtype="<f4").reshape(-1, 2).astype(np.float64)
    old_uv = model.uv[uv_set].astype(np.float64)
    assert not np.array_equal(new_uv, old_uv), "the UVs were not packed"
    assert_valid_layout(old_uv, list(model.triangles.astype(np.int64)), new_uv, margin, src.name)


# --------------------------------------------------------------------------- basics


def test_version_and_help() -> None:
    done = run_uvnest("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"uvnest {uvnest.__version__}"
    module = subprocess.run([sys.executable, "-m", "uvnest", "--version"], capture_output=True, text=True)
    assert module.stdout == done.stdout
    top = run_uvnest("--help")
    assert top.returncode == 0 and all(c in top.stdout for c in ("pack", "info", "demo"))
    pack_help = run_uvnest("pack", "--help").stdout
    for option in ("--output", "--out-dir", "--suffix", "--in-place", "--margin", "--margin-px", "--texture-size",
                   "--rotation", "--rotation-step", "--flip", "--shape", "--no-merge-overlapping", "--time",
                   "--iterations", "--seed", "--uv-set", "--jobs", "--preview", "--preview-size", "--report",
                   "--quiet", "--fail-fast", "--keep-best", "(default: 0.001)", "130"):
        assert option in pack_help, option
    assert "--json" in run_uvnest("info", "--help").stdout
    assert "--out-dir" in run_uvnest("demo", "--help").stdout
    assert run_uvnest().returncode == 2


@pytest.mark.parametrize("args, message", [
    (["--margin", "-1"], "must be >= 0"),
    (["--margin", "2"], "no room"),
    (["--margin-px", "4"], "--margin-px needs --texture-size"),
    (["--rotation-step", "0.1"], "must be >= 0.5"),
    (["--jobs", "0"], "must be >= 1"),
    (["--in-place", "--suffix", "_x"], "--suffix cannot be combined"),
    (["-o", "a.obj", "--in-place"], "not allowed with"),
    (["--tiles", "10x"], "not a tile list"),
    (["--tiles", "999"], "UDIM tile numbers run from 1001"),
    (["--udim", "1001-1010"], "--udim takes no value"),
    (["--keep-groups"], "--keep-groups needs --udim"),
    (["--texel-density", "64"], "--texel-density needs --texture-size"),
    (["--pixel-perfect"], "--pixel-perfect needs --texture-size"),
    (["--block-align", "0", "--texture-size", "256"], "must be >= 1"),
])
def test_bad_arguments_are_usage_errors(tmp_path: Path, args: List[str], message: str) -> None:
    src = copy_files(corpus_subset()[:1], tmp_path)[0]
    done = run_uvnest("pack", src, *args)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert done.stderr.startswith("usage: uvnest pack "), done.stderr  # pack's own usage
    assert sorted(p.name for p in tmp_path.iterdir()) == [src.name]


# --------------------------------------------------------------------------- the whole corpus


@pytest.mark.corpus
@pytest.mark.slow
def test_whole_corpus_end_to_end(tmp_path: Path) -> None:
    models = homedecor_models()
    before = file_hashes(models)
    out = tmp_path / "out"
    report = tmp_path / "report.json"
    t0 = time.perf_counter()
    done = run_uvnest("pack", models[0].parent, "--out-dir", out, "--time", "0.1", "--jobs", "2",
                      "--report", report)
    elapsed = time.perf_counter() - t0
    print(f"whole corpus: {len(models)} files in {elapsed:.1f} s")
    assert done.returncode == 0, done.stderr
    assert elapsed < WHOLE_CORPUS_BUDGET_S
    # not a terminal: a line per file, warnings, the summary
    lines = done.stderr.splitlines()
    assert sum(" -> " in line and not line.startswith("warning: ") for line in lines[:-1]) == len(models)
    assert all(" -> " in line or line.startswith("warning: ") for line in lines[:-1])
    assert lines[-1].startswith(f"uvnest: packed {len(models)} of {len(models)} files")
    assert file_hashes(models) == before, "an input file changed"
    entries = read_report(report)
    assert len(entries) == len(models)
    worse = sum(e["worse"] for e in entries.values())
    assert f", {worse} worse than the input" in lines[-1]
    print(f"whole corpus: {worse} worse, {sum(e['coverage_before'] - e['coverage_after'] > 1e-3 for e in entries.values())}"
          " by more than 0.1 points")
    for src in models:
        entry = entries[src.name]
        assert entry["status"] == "packed" and entry["error"] is None
        assert Path(entry["output"]) == out / src.name
        assert 0 < entry["coverage_after"] <= 1 and entry["iterations"] > 0 and entry["scale"] > 0
        assert entry["islands"] >= entry["groups"] >= 1
        assert_obj_packed(src, out / src.name)
    assert temp_files(out) == []


# --------------------------------------------------------------------------- glTF


@pytest.mark.parametrize("suffix", [".gltf", ".glb"])
@pytest.mark.parametrize("uv_set", [0, 1])
def test_gltf_end_to_end(tmp_path: Path, suffix: str, uv_set: int) -> None:
    model = GltfModel()
    src = model.save_glb(tmp_path / "panels.glb") if suffix == ".glb" else model.save_gltf(tmp_path / "panels.gltf")
    inputs = file_hashes(sorted(tmp_path.iterdir()))
    done = run_uvnest("pack", src, "--time", "0.2", "--uv-set", uv_set, "--margin", "0.004")
    assert done.returncode == 0, done.stderr
    out = tmp_path / f"panels_packed{suffix}"
    assert_gltf_packed(src, out, model, uv_set, margin=0.004)
    assert file_hashes(sorted(inputs)) == inputs
    mesh = io.load(out, uv_set=uv_set)
    assert mesh.uvs.min() >= -1e-6 and mesh.uvs.max() <= 1 + 1e-6
    if suffix == ".gltf":
        assert (tmp_path / "panels_packed.bin").is_file()


def test_missing_uv_set_is_a_file_error(tmp_path: Path) -> None:
    src = GltfModel().save_glb(tmp_path / "panels.glb")
    done = run_uvnest("pack", src, "--uv-set", "3", "--time", "0.1")
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "panels.glb" in errors[0]
    assert not (tmp_path / "panels_packed.glb").exists()


# --------------------------------------------------------------------------- outputs


@pytest.mark.corpus
def test_output_naming_and_in_place(tmp_path: Path) -> None:
    src, other = copy_files(corpus_subset()[:2], tmp_path / "in")
    original = src.read_bytes()

    done = run_uvnest("pack", src, "--time", "0.1")
    assert done.returncode == 0, done.stderr
    assert_obj_packed(src, src.with_name(f"{src.stem}_packed.obj"))
    assert src.read_bytes() == original

    explicit = tmp_path / "elsewhere" / "chosen.obj"
    assert run_uvnest("pack", src, "-o", explicit, "--time", "0.1").returncode == 0
    assert_obj_packed(src, explicit)

    for args in (["-o", src], ["--out-dir", src.parent, "--suffix", ""], ["--out-dir", src.parent]):
        done = run_uvnest("pack", src, *args, "--time", "0.1")
        assert done.returncode == 2, args  # a path error, found before any search
        assert "would replace an input file" in done.stderr and str(src) in done.stderr
        assert done.stderr.startswith("usage: uvnest pack ")
        assert src.read_bytes() == original

    done = run_uvnest("pack", src, "-o", tmp_path / "wrong.glb", "--time", "0.1")
    assert done.returncode == 2 and "must have the input's format" in done.stderr
    assert not (tmp_path / "wrong.glb").exists()

    done = run_uvnest("pack", src, other, "-o", tmp_path / "two.obj")
    assert done.returncode == 2 and "exactly one input file" in done.stderr

    reference = tmp_path / "reference.obj"
    shutil.copyfile(src, reference)
    done = run_uvnest("pack", src, "--in-place", "--time", "0.1")
    assert done.returncode == 0, done.stderr
    assert src.read_bytes() != original
    assert_obj_packed(reference, src)


@pytest.mark.corpus
def test_folders_mirror_and_skip_earlier_outputs(tmp_path: Path) -> None:
    a, b, c = corpus_subset()[:3]
    root = tmp_path / "models"
    copy_files([a], root)
    copy_files([b], root / "sub")
    copy_files([c], root / "sub" / "deeper")
    (root / ".hidden").mkdir()
    copy_files([a], root / ".hidden")
    (root / "notes.txt").write_text("not a mesh")

    done = run_uvnest("pack", root, "--out-dir", tmp_path / "out", "--time", "0.1", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    written = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.obj"))
    assert written == sorted([a.name, f"sub/{b.name}", f"sub/deeper/{c.name}"])
    assert_obj_packed(root / "sub" / "deeper" / c.name, tmp_path / "out" / "sub" / "deeper" / c.name)

    for _ in range(2):  # the second run must not pack the first run's outputs again
        done = run_uvnest("pack", root, "--time", "0.1")
        assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in root.rglob("*.obj") if ".hidden" not in p.parts)
    assert names == sorted([a.name, b.name, c.name] + [f"{p.stem}_packed.obj" for p in (a, b, c)])
    assert "left out 3 earlier outputs" in done.stderr


# --------------------------------------------------------------------------- errors and the batch


def _broken_files(folder: Path) -> List[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    truncated = folder / "a_truncated.obj"
    truncated.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nf 1/1 2/2 3/")
    junk = folder / "b_junk.glb"
    junk.write_bytes(bytes(range(256)) * 4)
    return [truncated, junk]


@pytest.mark.corpus
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_bad_files_fail_alone(tmp_path: Path, jobs: str) -> None:
    good = copy_files(corpus_subset()[:3], tmp_path / "in")
    bad = _broken_files(tmp_path / "in")
    report = tmp_path / "r.json"
    done = run_uvnest("pack", tmp_path / "in", "--out-dir", tmp_path / "out", "--time", "0.1", "--jobs", jobs,
                      "--report", report)
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 2
    for path, line in zip(bad, errors):
        assert str(path) in line
    assert "2 failed" in done.stderr.splitlines()[-1]
    for src in good:
        assert_obj_packed(src, tmp_path / "out" / src.name)
    entries = read_report(report)
    assert [entries[p.name]["status"] for p in bad] == ["error", "error"]
    assert all(entries[p.name]["error"].startswith(str(p)) for p in bad)
    assert not any((tmp_path / "out" / p.name).exists() for p in bad)


@pytest.mark.corpus
def test_fail_fast_stops_at_the_first_failure(tmp_path: Path) -> None:
    good = copy_files(corpus_subset()[:3], tmp_path / "in")
    bad = _broken_files(tmp_path / "in")
    report = tmp_path / "r.json"
    done = run_uvnest("pack", tmp_path / "in", "--out-dir", tmp_path / "out", "--time", "0.1", "--jobs", "1",
                      "--fail-fast", "--report", report)
    assert done.returncode == 1
    entries = read_report(report)
    assert entries[bad[0].name]["status"] == "error"  # sorts first: the batch stops there
    assert all(entries[p.name]["status"] == "not started" for p in good + bad[1:])
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.obj"))


def test_missing_and_unsupported_inputs(tmp_path: Path) -> None:
    """Path errors are usage errors (exit 2, pack's usage), all listed, found before any search."""
    (tmp_path / "mesh.fbx").write_bytes(b"Kaydara FBX Binary")
    good = copy_files(corpus_subset()[:1], tmp_path / "in")[0]
    done = run_uvnest("pack", good, tmp_path / "nothing.obj", tmp_path / "mesh.fbx", "--time", "0.1")
    assert done.returncode == 2
    assert done.stderr.startswith("usage: uvnest pack ")
    assert "nothing.obj: no such file" in done.stderr
    assert "mesh.fbx: unsupported file type" in done.stderr
    assert sorted(p.name for p in good.parent.iterdir()) == [good.name]  # nothing packed
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run_uvnest("pack", empty, "-qq")
    assert done.returncode == 2 and "no .obj, .gltf or .glb files found" in done.stderr


# --------------------------------------------------------------------------- Ctrl-C


def _wait_for(condition: Any, timeout: float, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, f"uvnest ended early: {proc.communicate()}"
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.mark.corpus
@pytest.mark.skipif(os.name == "nt", reason="SIGINT to a child process is POSIX")
@pytest.mark.parametrize("jobs, to_group", [("1", False), ("2", False), ("2", True)])
@pytest.mark.parametrize("keep_best", [False, True])
def test_sigint_stops_cleanly(tmp_path: Path, jobs: str, to_group: bool, keep_best: bool) -> None:
    """Ctrl-C mid-batch, sent to uvnest only or, as a terminal does, to its whole process group (workers too)."""
    models = copy_files(corpus_subset(step=20)[:6], tmp_path / "in")
    out, report = tmp_path / "out", tmp_path / "r.json"
    proc = popen_uvnest("pack", tmp_path / "in", "--out-dir", out, "--time", "1.5", "--jobs", jobs,
                        "--report", report, *(["--keep-best"] if keep_best else []), start_new_session=to_group)
    try:
        _wait_for(lambda: out.is_dir() and any(out.glob("*.obj")), 60, proc)
        time.sleep(0.4)  # the next file(s) are now being searched
        if to_group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        t0 = time.monotonic()
        _stdout, stderr = proc.communicate(timeout=30)
        stop_s = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert stop_s < 5.0, f"took {stop_s:.1f} s to stop"
    assert stderr.splitlines()[-1].startswith("uvnest: interrupted: packed ")
    assert temp_files(tmp_path) == []
    entries = read_report(report)
    statuses = [entries[m.name]["status"] for m in models]
    assert "packed" in statuses and "not started" in statuses
    assert ("kept" if keep_best else "interrupted") in statuses
    assert ("interrupted" if keep_best else "kept") not in statuses
    for src in models:
        written = out / src.name
        if entries[src.name]["status"] in ("packed", "kept"):
            assert_obj_packed(src, written)
        else:
            assert not written.exists(), f"{written} written with status {entries[src.name]['status']}"



@pytest.mark.corpus
@pytest.mark.skipif(os.name == "nt", reason="SIGINT to a child process is POSIX")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_second_ctrl_c_still_reports_every_file(tmp_path: Path, jobs: str) -> None:
    """Two Ctrl-C in a row give up on the files in progress at once; every
    file still gets its JSON record (packed, interrupted or not started)."""
    models = copy_files(corpus_subset(step=20)[:6], tmp_path / "in")
    proc = popen_uvnest("pack", tmp_path / "in", "--out-dir", tmp_path / "out", "--time", "3", "--jobs", jobs,
                        "--json")
    try:
        first = proc.stdout.readline()   # one file is packed, the next is being searched
        assert first, proc.communicate()
        proc.send_signal(signal.SIGINT)
        time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        rest, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    records = [json.loads(line) for line in (first + rest).splitlines()]
    assert sorted(Path(r["path"]).name for r in records) == sorted(m.name for m in models)
    assert {r["status"] for r in records} <= {"packed", "interrupted", "not started"}
    assert "Traceback" not in stderr

# --------------------------------------------------------------------------- parallel determinism


@pytest.mark.corpus
def test_jobs_give_identical_results(tmp_path: Path) -> None:
    models = copy_files(corpus_subset(step=15)[:6], tmp_path / "in")
    outputs = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        # threads fixed: by default the cores are divided between the jobs,
        # and two threads' best layout may differ from one thread's
        done = run_uvnest("pack", tmp_path / "in", "--out-dir", out, "--iterations", "300", "--seed", "3",
                          "--jobs", jobs, "--threads", "2")
        assert done.returncode == 0, done.stderr
        outputs[jobs] = {p.name: p.read_bytes() for p in sorted(out.glob("*.obj"))}
    assert list(outputs["1"]) == [m.name for m in models]
    assert outputs["1"] == outputs["2"]
    assert any(outputs["1"][m.name] != m.read_bytes() for m in models)
    assert_obj_packed(models[0], tmp_path / "out2" / models[0].name)


# --------------------------------------------------------------------------- report and display


@pytest.mark.corpus
def test_report_measures_coverage_independently(tmp_path: Path) -> None:
    models = copy_files(corpus_subset(step=36)[:4], tmp_path / "in")
    report = tmp_path / "r.json"
    done = run_uvnest("pack", tmp_path / "in", "--time", "0.2", "--seed", "5", "--report", report,
                      "--margin", "0.003")
    assert done.returncode == 0, done.stderr
    doc = json.loads(report.read_text())
    assert doc["options"]["margin"] == 0.003 and doc["options"]["seed"] == 5 and doc["interrupted"] is False
    entries = read_report(report)
    for src in models:
        e = entries[src.name]
        out = Path(e["output"])
        assert out == src.with_name(f"{src.stem}_packed.obj")
        assert e["seed"] == 5 and e["uvnest_version"] == uvnest.__version__ and e["time"] > 0.2
        a, b = io.load(src), io.load(out)
        assert e["coverage_before"] == pytest.approx(union_in_tile(a.uvs, a.faces), rel=1e-6, abs=1e-9)
        assert e["coverage_after"] == pytest.approx(union_in_tile(b.uvs, b.faces), rel=1e-6, abs=1e-9)
        islands = uvnest.find_islands(a.uvs, a.faces, mesh_faces=a.mesh_faces)
        assert e["groups"] == len(islands) and e["islands"] == sum(len(i.members) for i in islands)


@pytest.mark.corpus
@pytest.mark.skipif(os.name == "nt", reason="needs a pseudo-terminal")
def test_live_status_only_on_a_terminal_file_lines_always(tmp_path: Path) -> None:
    import pty

    copy_files(corpus_subset()[:2], tmp_path / "in")
    master, slave = pty.openpty()
    proc = popen_uvnest("pack", tmp_path / "in", "--out-dir", tmp_path / "tty", "--time", "0.3", "--jobs", "1",
                        stderr=slave)
    os.close(slave)
    shown = read_pty(master)
    assert proc.wait(timeout=60) == 0
    assert "\r" in shown and "[0/2]" in shown and "[1/2]" in shown and "%" in shown
    assert shown.count(f" -> {tmp_path / 'tty'}") == 2  # a line per finished file

    piped = run_uvnest("pack", tmp_path / "in", "--time", "0.1", "--out-dir", tmp_path / "piped")
    assert piped.returncode == 0
    assert "\r" not in piped.stderr and "\x1b" not in piped.stderr  # no status line
    assert piped.stderr.count(f" -> {tmp_path / 'piped'}") == 2  # still a line per finished file
    assert piped.stderr.splitlines()[-1].startswith("uvnest: packed 2 of 2 files")


# --------------------------------------------------------------------------- info


@pytest.mark.corpus
def test_info_json_matches_find_islands(tmp_path: Path) -> None:
    from uvnest.demo import demo_path

    glb = GltfModel().save_glb(tmp_path / "panels.glb")
    files = [demo_path(), glb, *corpus_subset(step=20)[:5]]
    done = run_uvnest("info", *files, "--json")
    assert done.returncode == 0, done.stderr
    entries = json.loads(done.stdout)
    assert [Path(e["path"]).name for e in entries] == [f.name for f in files]
    for path, e in zip(files, entries):
        mesh = io.load(path)
        single = uvnest.find_islands(mesh.uvs, mesh.faces, mesh_faces=mesh.mesh_faces, merge_overlapping=False)
        merged = uvnest.find_islands(mesh.uvs, mesh.faces, mesh_faces=mesh.mesh_faces)
        assert e["islands"] == len(single) and e["groups"] == len(merged)
        assert [g["islands"] for g in e["overlapping_groups"]] == [list(g.members) for g in merged
                                                                   if len(g.members) > 1]
        assert e["faces"] == len(mesh.faces) and e["uvs"] == len(mesh.uvs)
        assert e["coverage"] == pytest.approx(union_in_tile(mesh.uvs, mesh.faces), rel=1e-6, abs=1e-9)
        outside = [i.index for i in single
                   if min(i.bbox[:2]) < -1e-9 or max(i.bbox[2:]) > 1 + 1e-9]
        assert e["out_of_tile"] == outside
    demo = entries[0]
    assert [g["kind"] for g in demo["overlapping_groups"]] == ["stacked", "stacked"]
    assert demo["out_of_tile"]

    text = run_uvnest("info", glb, tmp_path / "missing.obj")
    assert text.returncode == 1
    assert "panels.glb: glb" in text.stdout and "islands: 9 (9 groups" in text.stdout
    assert text.stderr.strip() == f"error: {tmp_path / 'missing.obj'}: no such file or folder"


# --------------------------------------------------------------------------- UDIM and the texel grid


def _tile_of(points: np.ndarray) -> int:
    """The UDIM tile holding ``points`` (all of them: asserted)."""
    tol = uvnest.packing.FIXED_OVERHANG + 1e-9
    lo = np.floor(points.min(axis=0) + tol).astype(int)
    assert (points.max(axis=0) <= lo + 1 + tol).all(), "an island straddles two tiles"
    return 1001 + int(lo[0]) + 10 * int(lo[1])


def _islands_by_tile(mesh: io.Mesh, uvs: np.ndarray) -> Dict[int, List[shapely.Geometry]]:
    """Per tile the packed polygons of the input's merge groups (islands
    that touch or overlap in ``mesh`` move together and may still touch)."""
    tiles: Dict[int, List[shapely.Geometry]] = {}
    for isl in uvnest.find_islands(mesh.uvs, mesh.faces, mesh_faces=mesh.mesh_faces):
        poly = shapely.union_all([shapely.make_valid(shapely.Polygon(uvs[mesh.faces[f]])) for f in isl.faces])
        tiles.setdefault(_tile_of(uvs[isl.uv_indices]), []).append(poly)
    return tiles


def test_udim_texel_density_and_block_align(tmp_path: Path) -> None:
    """--udim at a texel density spreads a model over several tiles; every
    tile's islands keep the margin, sit on the block grid and share no block."""
    # 24 islands; at 190 texels per unit the largest is 0.59 tile and all
    # together 1.4 tiles
    src = copy_files([p for p in homedecor_models() if p.name == "homedecor_trash_can_green.obj"], tmp_path)[0]
    out = tmp_path / "out.obj"
    report = tmp_path / "report.json"
    texels, block, margin_px = 256, 4, 2
    done = run_uvnest("pack", src, "-o", out, "--tiles", "1001-1020", "--texel-density", 190, "--texture-size",
                      texels, "--block-align", block, "--margin-px", margin_px, "--iterations", 100,
                      "--report", report)
    assert done.returncode == 0, done.stderr
    entry = read_report(report)[src.name]
    mesh_in, mesh_out = io.load(src), io.load(out)
    by_tile = _islands_by_tile(mesh_in, mesh_out.uvs)
    assert sorted(by_tile) == entry["tiles"] and len(by_tile) > 1
    assert set(by_tile) <= set(range(1001, 1021))
    cell = block / texels
    for tile, polys in by_tile.items():
        for i in range(len(polys)):
            for j in range(i + 1, len(polys)):
                assert polys[i].distance(polys[j]) >= margin_px / texels - 1e-7, tile
        seen: Dict[Tuple[int, int], int] = {}
        for k, poly in enumerate(polys):
            x0, y0, x1, y1 = poly.bounds
            for a in range(int(np.floor(x0 / cell)), int(np.floor(x1 / cell)) + 1):
                for b in range(int(np.floor(y0 / cell)), int(np.floor(y1 / cell)) + 1):
                    if poly.intersection(shapely.box(a * cell, b * cell, (a + 1) * cell, (b + 1) * cell)).area > 0:
                        assert (a, b) not in seen, f"block {(a, b)} of tile {tile} holds two islands"
                        seen[(a, b)] = k
    # only vt lines changed
    assert obj_lines(out)[0] == obj_lines(src)[0]
    assert len(mesh_in.uvs) == len(mesh_out.uvs)


def test_udim_keep_groups_reports_tiles(tmp_path: Path) -> None:
    """--keep-groups keeps each OBJ group in one tile when the groups fit one."""
    src = next(p for p in homedecor_models() if len(io.load(p).group_names) >= 3)
    src = copy_files([src], tmp_path)[0]
    out = tmp_path / "out.obj"
    report = tmp_path / "report.json"
    done = run_uvnest("pack", src, "-o", out, "--udim", "--keep-groups", "--iterations", 50, "--report", report)
    assert done.returncode == 0, done.stderr
    entry = read_report(report)[src.name]
    mesh, packed = io.load(src), io.load(out).uvs
    tiles_of_group: Dict[int, set] = {}
    for isl in uvnest.find_islands(mesh.uvs, mesh.faces, mesh_faces=mesh.mesh_faces):
        tile = _tile_of(packed[isl.uv_indices])
        for g in np.unique(mesh.face_groups[isl.faces]):
            tiles_of_group.setdefault(int(g), set()).add(tile)
    split = sorted(mesh.group_names[g] for g, t in tiles_of_group.items() if len(t) > 1)
    assert split == sorted(entry["split_groups"])


def test_margin_holds_after_rounding_to_normalized_integer_uvs(tmp_path: Path) -> None:
    """UVs stored as normalized unsigned bytes are written back rounded to
    1/255: the CLI widens the margin so that the rounded layout, as read back
    from the file, still keeps the margin asked for."""
    pygltflib = pytest.importorskip("pygltflib")
    model = GltfModel()
    quantized = np.round(np.clip(model.uv[0], 0, 1) * 255).astype(np.uint8)
    src = tmp_path / "bytes.glb"
    doc, blob = model._document()
    # TEXCOORD_0 as normalized UNSIGNED_BYTE, padded to a 4-byte stride
    rows = np.zeros((len(quantized), 4), np.uint8)
    rows[:, :2] = quantized
    blob = bytearray(blob)
    blob.extend(b"\0" * (-len(blob) % 4))
    doc.bufferViews.append(pygltflib.BufferView(buffer=0, byteOffset=len(blob), byteLength=rows.nbytes,
                                                byteStride=4, target=34962))
    blob.extend(rows.tobytes())
    acc = doc.accessors[3]
    acc.bufferView, acc.componentType, acc.normalized = len(doc.bufferViews) - 1, 5121, True
    acc.min, acc.max = quantized.min(0).tolist(), quantized.max(0).tolist()
    doc.buffers = [pygltflib.Buffer(byteLength=len(blob))]
    doc.set_binary_blob(bytes(blob))
    doc.save_binary(str(src))
    margin = 0.01
    done = run_uvnest("pack", src, "--iterations", "200", "--margin", margin, "--rotation", "90")
    assert done.returncode == 0, done.stderr
    before, after = io.load(src), io.load(tmp_path / "bytes_packed.glb")
    assert after.uv_step == pytest.approx(1 / 255)
    assert np.allclose(after.uvs * 255, np.round(after.uvs * 255)), "not stored as bytes"
    # margin between islands, exactly as stored (rounding keeps the shapes
    # only up to a byte, so rigidity is not checked here)
    islands = uvnest.find_islands(before.uvs, before.faces)
    shapes = [shapely.union_all([shapely.Polygon(after.uvs[before.faces[f]]) for f in isl.faces])
              for isl in islands]
    gaps = [a.distance(b) for i, a in enumerate(shapes) for b in shapes[i + 1:]]
    assert min(gaps) >= margin - 1e-9, min(gaps)
