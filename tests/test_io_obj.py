"""Wavefront OBJ input/output (uvnest.io.obj): the homedecor corpus and hand-made files."""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uvnest import io
from uvnest.io import MeshIOError, UnsupportedFormatError, atomic_open, atomic_write_bytes, atomic_write_many
from uvnest.io import obj as obj_module

from corpus import homedecor_models


def files(folder: Path) -> List[str]:
    return sorted(p.name for p in folder.iterdir())


def vt_values(line: bytes) -> Tuple[float, float]:
    numbers = [float(x) for x in line.split()[1:]]
    return numbers[0], numbers[1] if len(numbers) > 1 else 0.0


def write(tmp_path: Path, text: str, name: str = "m.obj") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


# --------------------------------------------------------------------------- the homedecor corpus


@pytest.fixture(scope="module")
def models() -> List[Path]:
    return homedecor_models()


@pytest.mark.corpus
def test_corpus_round_trip_is_byte_identical(models: List[Path], tmp_path: Path) -> None:
    assert len(models) == 146
    out = tmp_path / "out.obj"
    n_faces = 0
    for path in models:
        mesh = io.load(path)
        n_faces += len(mesh.faces)
        assert mesh.uvs.shape[1] == 2 and len(mesh.faces) == len(mesh.mesh_faces) == len(mesh.face_groups)
        assert all(len(f) == len(m) >= 3 for f, m in zip(mesh.faces, mesh.mesh_faces))
        io.save(mesh, out)
        assert out.read_bytes() == path.read_bytes(), path.name
        io.save(mesh, out, uvs=mesh.uvs.copy())
        assert out.read_bytes() == path.read_bytes(), path.name
    assert n_faces > 20000
    assert files(tmp_path) == ["out.obj"]


@pytest.mark.corpus
def test_corpus_changed_uvs_touch_only_vt_lines(models: List[Path], tmp_path: Path) -> None:
    out = tmp_path / "out.obj"
    for k, path in enumerate(models):
        mesh = io.load(path)
        rng = np.random.default_rng(k)
        new = mesh.uvs * rng.uniform(0.1, 1.0) + rng.uniform(-1, 1, mesh.uvs.shape) / 3
        io.save(mesh, out, uvs=new)
        back = io.load(out)
        np.testing.assert_array_equal(back.uvs, new)
        assert [f.tolist() for f in back.faces] == [f.tolist() for f in mesh.faces]
        old_lines, new_lines = path.read_bytes().split(b"\n"), out.read_bytes().split(b"\n")
        assert len(old_lines) == len(new_lines)
        row = 0
        for a, b in zip(old_lines, new_lines):
            if a.startswith(b"vt "):
                assert vt_values(b) == tuple(new[row]), (path.name, a, b)
                row += 1
            else:
                assert a == b, path.name
        assert row == len(new)


@pytest.mark.corpus
def test_corpus_is_parsed_by_the_vectorised_path(models: List[Path], tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The corpus has uniform v/vt/vn faces: the vectorised parser takes every
    file, and the per-line parser (forced by a comment) gives the same faces."""
    sample = models[::10]
    forced = []
    for path in sample:
        text = path.read_bytes()
        i = text.index(b"\nf ") + 1
        j = text.index(b"\n", i)
        forced.append(write(tmp_path, (text[:j] + b" # forced" + text[j:]).decode(), path.name))
    slow = [[f.tolist() for f in io.load(p).faces] for p in forced]

    def refuse(*args: object) -> None:
        raise AssertionError("slow face parser used")

    monkeypatch.setattr(obj_module, "_parse_faces_slow", refuse)
    for path, expected in zip(sample, slow):
        mesh = io.load(path)
        assert [f.tolist() for f in mesh.faces] == expected, path.name
    with pytest.raises(AssertionError, match="slow face parser used"):
        io.load(forced[0])


# --------------------------------------------------------------------------- hand-made files


ALL_FORMS = """\
# every index form
mtllib thing.mtl
o Thing
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
vt 0 0
vt 1 0
vt 1 1
vt 0 1
vn 0 0 1
g first
usemtl red
f 1/1 2/2 3/3
f 1/1/1 3/3/1 4/4/1
usemtl blue
f -4/-4/-1 -3/-3/-1 -2/-2/-1 -1/-1/-1
s 1
f 1 2 3
f 1//1 2//1 3//1
"""


def test_all_index_forms_negative_indices_and_groups(tmp_path: Path) -> None:
    mesh = io.load(write(tmp_path, ALL_FORMS))
    assert [f.tolist() for f in mesh.faces] == [[0, 1, 2], [0, 2, 3], [0, 1, 2, 3]]
    assert [f.tolist() for f in mesh.mesh_faces] == [[0, 1, 2], [0, 2, 3], [0, 1, 2, 3]]
    assert all(f.dtype == np.int64 for f in mesh.faces)
    np.testing.assert_array_equal(mesh.uvs, [[0, 0], [1, 0], [1, 1], [0, 1]])
    assert mesh.skipped_faces == 2
    assert mesh.face_groups.tolist() == [0, 0, 1]
    assert mesh.group_names == ["o Thing, g first, usemtl red", "o Thing, g first, usemtl blue"]
    assert mesh.face_array() is None  # triangles and a quad
    assert mesh.format == "obj"
    assert repr(mesh) == (f"Mesh(path={str(mesh.path)!r}, format='obj', uvs=4 rows, faces=3, groups=2, "
                          "skipped_faces=2, skipped_primitives=0)")


def test_relative_indices_count_only_elements_defined_so_far(tmp_path: Path) -> None:
    text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nf -3/-3 -2/-2 -1/-1\n" \
           "v 5 5 5\nvt 0.5 0.5\nf -4/-4 -3/-3 -1/-1\n"
    mesh = io.load(write(tmp_path, text))
    assert [f.tolist() for f in mesh.faces] == [[0, 1, 2], [0, 1, 3]]
    assert [f.tolist() for f in mesh.mesh_faces] == [[0, 1, 2], [0, 1, 3]]


def test_ngons_and_face_array(tmp_path: Path) -> None:
    vs = "".join(f"v {i} 0 0\nvt {i / 10} 0.5\n" for i in range(8))
    mesh = io.load(write(tmp_path, vs + "f 1/1 2/2 3/3 4/4 5/5\nf 1/1 2/2 3/3 4/4 5/5 6/6 7/7 8/8\n"))
    assert [len(f) for f in mesh.faces] == [5, 8]
    assert mesh.face_array() is None
    quads = io.load(write(tmp_path, vs + "f 1/1 2/2 3/3 4/4\nf 5/5 6/6 7/7 8/8\n", "q.obj"))
    np.testing.assert_array_equal(quads.face_array(), [[0, 1, 2, 3], [4, 5, 6, 7]])


MESSY = (
    "\ufeff# BOM, CRLF, tabs, continuations, comments, w values\r\n"
    "v 0 0 0\r\nv 1 0 0\r\nv 1 1 0\r\nv 0 1 0\r\n"
    "vt\t0.25   0.5 0.0\r\n"
    "vt 0.75 \\\r\n  0.5\r\n"
    "   vt 0.75 0.75 # trailing comment\r\n"
    "vt 0.125\r\n"
    "\r\n"
    "f 1/1 2/2 \\\r\n 3/3 4/4 # quad\r\n"
    "\tf 1/1 3/3 4/4\r\n"
)


def test_crlf_tabs_continuations_and_comments(tmp_path: Path) -> None:
    path = write(tmp_path, MESSY)
    mesh = io.load(path)
    np.testing.assert_array_equal(mesh.uvs, [[0.25, 0.5], [0.75, 0.5], [0.75, 0.75], [0.125, 0.0]])
    assert [f.tolist() for f in mesh.faces] == [[0, 1, 2, 3], [0, 2, 3]]
    io.save(mesh, tmp_path / "same.obj")
    assert (tmp_path / "same.obj").read_bytes() == path.read_bytes()
    new = np.array([[1.5, -2.0], [0.1, 0.2], [1e-7, 3.0], [0.5, 0.625]])
    io.save(mesh, tmp_path / "out.obj", uvs=new)
    out = (tmp_path / "out.obj").read_bytes()
    np.testing.assert_array_equal(io.load(tmp_path / "out.obj").uvs, new)
    expected = (MESSY.replace("vt\t0.25   0.5 0.0", "vt\t1.5   -2.0 0.0")
                .replace("vt 0.75 \\\r\n  0.5", "vt 0.1 \\\r\n  0.2")
                .replace("   vt 0.75 0.75 #", "   vt 0.0000001 3.0 #")
                .replace("vt 0.125\r\n", "vt 0.5 0.625\r\n"))
    assert out == expected.encode("utf-8")


def test_only_changed_components_are_rewritten(tmp_path: Path) -> None:
    path = write(tmp_path, "v 0 0 0\nvt 0.50000 1.0e0 7\nvt 0.25 0.25\nf 1/1 1/2 1/1\n")
    mesh = io.load(path)
    io.save(mesh, tmp_path / "out.obj", uvs=[[0.5, 0.75], [0.25, 0.25]])
    assert (tmp_path / "out.obj").read_bytes() == b"v 0 0 0\nvt 0.50000 0.75 7\nvt 0.25 0.25\nf 1/1 1/2 1/1\n"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(allow_nan=False, allow_infinity=False),
                          st.floats(allow_nan=False, allow_infinity=False)), min_size=3, max_size=12))
def test_any_finite_float_reads_back_exactly(tmp_path_factory: pytest.TempPathFactory,
                                             values: List[Tuple[float, float]]) -> None:
    folder = tmp_path_factory.mktemp("floats")
    n = len(values)
    text = "v 0 0 0\n" + "vt 0 0\n" * n + "".join(f"f 1/{i + 1} 1/{(i + 1) % n + 1} 1/{(i + 2) % n + 1}\n"
                                                 for i in range(n))
    mesh = io.load(write(folder, text))
    new = np.array(values, dtype=np.float64)
    io.save(mesh, folder / "out.obj", uvs=new)
    np.testing.assert_array_equal(io.load(folder / "out.obj").uvs, new)
    assert b"e" not in (folder / "out.obj").read_bytes()  # positional notation, never 1e-07


@st.composite
def obj_meshes(draw: st.DrawFn) -> Tuple[str, List[List[int]], List[List[int]]]:
    """A random OBJ text in one uniform v/vt or v/vt/vn form, with its expected faces."""
    n_v = draw(st.integers(3, 12))
    n_vt = draw(st.integers(3, 12))
    with_vn = draw(st.booleans())
    relative = draw(st.booleans())
    faces = draw(st.lists(st.integers(3, 7), min_size=1, max_size=8))
    lines = [f"v {i} 0 0" for i in range(n_v)] + [f"vt {i / 16} 0.5" for i in range(n_vt)] + ["vn 0 0 1"]
    exp_v, exp_vt = [], []
    for k in faces:
        vs = draw(st.lists(st.integers(0, n_v - 1), min_size=k, max_size=k))
        vts = draw(st.lists(st.integers(0, n_vt - 1), min_size=k, max_size=k))
        exp_v.append(vs)
        exp_vt.append(vts)
        corners = []
        for v, vt in zip(vs, vts):
            a, b = (v - n_v, vt - n_vt) if relative else (v + 1, vt + 1)
            corners.append(f"{a}/{b}/1" if with_vn else f"{a}/{b}")
        lines.append("f " + " ".join(corners))
    return "\n".join(lines) + "\n", exp_v, exp_vt


@settings(max_examples=80, deadline=None)
@given(obj_meshes())
def test_fast_and_slow_face_parsers_agree(tmp_path_factory: pytest.TempPathFactory,
                                          sample: Tuple[str, List[List[int]], List[List[int]]]) -> None:
    text, exp_v, exp_vt = sample
    folder = tmp_path_factory.mktemp("faces")
    fast = io.load(write(folder, text))
    # a comment on a face line sends the whole file through the per-line parser
    slow = io.load(write(folder, text.replace("\nf ", "\nf  ", 1).rstrip("\n") + " # comment\n", "slow.obj"))
    assert obj_module._parse_faces_fast(b"f 1/1 2/2 3/3 # x", 1) is None
    for mesh in (fast, slow):
        assert [f.tolist() for f in mesh.faces] == exp_vt
        assert [f.tolist() for f in mesh.mesh_faces] == exp_v


def test_large_uniform_file_takes_the_vectorised_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    n = 101  # 100 x 100 quads
    ij = np.arange(n * n)
    q = (ij.reshape(n, n)[:-1, :-1] + 1).ravel()
    quads = np.stack([q, q + 1, q + n + 1, q + n], axis=1)
    lines = [f"v {i % n} {i // n} 0\nvt {i % n / n} {i // n / n}" for i in ij]
    lines += [f"f {a}/{a}/1 {b}/{b}/1 {c}/{c}/1 {d}/{d}/1" for a, b, c, d in quads.tolist()]
    path = write(tmp_path, "vn 0 0 1\n" + "\n".join(lines) + "\n")

    def refuse(*args: object) -> None:
        raise AssertionError("slow face parser used")

    monkeypatch.setattr(obj_module, "_parse_faces_slow", refuse)
    mesh = io.load(path)
    np.testing.assert_array_equal(mesh.face_array(), quads - 1)
    np.testing.assert_array_equal(np.array(mesh.mesh_faces), quads - 1)


# --------------------------------------------------------------------------- bad files

GOOD = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\n"

BAD: Dict[str, Tuple[bytes, str]] = {
    "empty": (b"", r"empty file"),
    "blank": (b"  \n\r\n\t\n", r"empty file"),
    "truncated": (GOOD.encode()[:-5], r"line 7: face has 2 corner\(s\), needs at least 3"),
    "truncated corner": (GOOD.encode()[:-3], r"line 7: face mixes corners with and without vt references"),
    "binary junk": (bytes(range(256)) * 4, r"line 1: binary data \(NUL byte\)"),
    "nul later": (GOOD.encode() + b"\x00\x00", r"line 8: binary data"),
    "latin-1": (b"# caf\xe9\n" + GOOD.encode(), r"line 1: not UTF-8 text \(byte 0xe9\)"),
    "nan vt": (GOOD.replace("vt 1 0", "vt nan 0").encode(), r"line 5: vt value 'nan' is not finite"),
    "inf vt": (GOOD.replace("vt 0 1", "vt 0 -inf").encode(), r"line 6: vt value '-inf' is not finite"),
    "bad number": (GOOD.replace("vt 1 0", "vt 1 0.5.5").encode(), r"line 5: malformed number '0.5.5' in vt"),
    "vt arity": (GOOD.replace("vt 1 0", "vt 1 0 0 0").encode(), r"line 5: vt needs 1 to 3 numbers, found 4"),
    "vt out of range": (GOOD.replace("3/3", "3/40").encode(), r"line 7: face vt index 40 out of range \(3 vt\)"),
    "v out of range": (GOOD.replace("3/3", "4/3").encode(), r"line 7: face v index 4 out of range \(3 v\)"),
    "relative out of range": (GOOD.replace("1/1", "1/-4").encode(),
                              r"line 7: face vt index -4 out of range \(3 vt before this line\)"),
    "zero index": (GOOD.replace("1/1", "0/1").encode(), r"line 7: face v index 0 out of range"),
    "vn out of range": (GOOD.replace("1/1 2/2 3/3", "1/1/1 2/2/1 3/3/1").encode(),
                        r"line 7: face vn index 1 out of range \(0 vn\)"),
    "huge index": (GOOD.replace("3/3", "3/99999999999999999999999").encode(),
                   r"line 7: face index 99999999999999999999999 out of range"),
    "uneven corner forms": (GOOD.replace("1/1 2/2 3/3", "1/1/1 2 3/3").encode(),
                            r"line 7: face mixes corners with and without vt references"),
    "line after continuation": (GOOD.replace("vt 1 0", "vt 1 \\\n 0").replace("3/3", "3/9").encode(),
                                r"line 8: face vt index 9 out of range \(3 vt\)"),
    "malformed corner": (GOOD.replace("3/3", "3/3/1/1").encode(), r"line 7: malformed face corner '3/3/1/1'"),
    "minus inside number": (GOOD.replace("2/2", "2-1/2").encode(), r"line 7: malformed face corner '2-1/2'"),
    "letters in corner": (GOOD.replace("3/3", "3/x").encode(), r"line 7: malformed face corner '3/x'"),
    "no vt": (b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", r"has no UVs \(no vt lines\)"),
    "no faces": (b"vt 0 0\nvt 1 1\n", r"has 2 vt lines but no faces"),
    "faces without vt": (GOOD.replace("1/1 2/2 3/3", "1 2 3").encode(), r"no face has vt references"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_files_raise_one_line_errors_naming_the_file(tmp_path: Path, name: str) -> None:
    content, pattern = BAD[name]
    path = tmp_path / "chair.obj"
    path.write_bytes(content)
    with pytest.raises(MeshIOError) as e:
        io.load(path)
    message = str(e.value)
    assert message.startswith(f"{path}: ") and "\n" not in message, message
    assert re.search(pattern, message), message
    assert files(tmp_path) == ["chair.obj"]
    assert path.read_bytes() == content


def test_other_load_errors(tmp_path: Path) -> None:
    with pytest.raises(MeshIOError, match=r"nothing\.obj: cannot read: No such file"):
        io.load(tmp_path / "nothing.obj")
    with pytest.raises(UnsupportedFormatError, match=r"m\.obj: OBJ files have a single UV set"):
        io.load(write(tmp_path, GOOD), uv_set=1)
    with pytest.raises(UnsupportedFormatError, match=r"m\.ply: unsupported file type '\.ply'"):
        io.load(tmp_path / "m.ply")


def test_save_rejects_bad_uvs_and_writes_nothing(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    mesh = io.load(path)
    with pytest.raises(ValueError, match=r"shape \(2, 2\), expected \(3, 2\)"):
        io.save(mesh, tmp_path / "out.obj", uvs=np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"1 non-finite values \(first in row 1"):
        io.save(mesh, tmp_path / "out.obj", uvs=[[0, 0], [np.nan, 0], [1, 1]])
    with pytest.raises(ValueError, match="real numbers"):
        io.save(mesh, tmp_path / "out.obj", uvs=np.full((3, 2), "a"))
    with pytest.raises(ValueError, match=r"cannot write a obj mesh to .*out\.glb"):
        io.save(mesh, tmp_path / "out.glb")
    with pytest.raises(ValueError, match="uvnest.io.load"):
        io.save(io.Mesh(path=path, format="obj", uvs=mesh.uvs, faces=mesh.faces), tmp_path / "out.obj")
    assert files(tmp_path) == ["m.obj"]


# --------------------------------------------------------------------------- atomic writes


def test_interrupted_save_leaves_the_original_untouched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, GOOD)
    mesh = io.load(path)

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        io.save(mesh, path, uvs=mesh.uvs + 1)
    assert path.read_bytes() == GOOD.encode()
    assert files(tmp_path) == ["m.obj"]


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_atomic_open_discards_the_temporary_file_on_error(tmp_path: Path, error: type) -> None:
    path = tmp_path / "target.bin"
    path.write_bytes(b"original")
    with pytest.raises(error):
        with atomic_open(path) as f:
            f.write(b"partial new content")
            assert files(tmp_path) != ["target.bin"]  # the temporary file exists meanwhile
            raise error()
    assert path.read_bytes() == b"original"
    assert files(tmp_path) == ["target.bin"]


def test_atomic_writes_keep_permissions_and_support_text(tmp_path: Path) -> None:
    path = tmp_path / "target.txt"
    path.write_bytes(b"old")
    path.chmod(0o640)
    atomic_write_bytes(path, b"new")
    assert path.read_bytes() == b"new" and stat.S_IMODE(path.stat().st_mode) == 0o640
    with atomic_open(tmp_path / "t.txt", "w", encoding="utf-8", newline="\r\n") as f:
        f.write("a\nb\n")
    assert (tmp_path / "t.txt").read_bytes() == b"a\r\nb\r\n"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / "t.txt").stat().st_mode) == 0o666 & ~umask
    with pytest.raises(ValueError, match="mode"):
        with atomic_open(path, "ab"):
            pass


def test_atomic_write_many_changes_nothing_if_one_write_fails(tmp_path: Path) -> None:
    first = tmp_path / "a.bin"
    first.write_bytes(b"A")
    with pytest.raises(FileNotFoundError):
        atomic_write_many([(first, b"new A"), (tmp_path / "missing" / "b.bin", b"B")])
    assert first.read_bytes() == b"A"
    assert files(tmp_path) == ["a.bin"]
    atomic_write_many([(first, b"new A"), (tmp_path / "b.bin", b"B")])
    assert first.read_bytes() == b"new A" and (tmp_path / "b.bin").read_bytes() == b"B"
