"""glTF 2.0 input/output (uvnest.io.gltf) on files built with pygltflib.

Expected values come from the arrays the files are built from, and accessors
of written files are decoded here independently of uvnest (``stored`` below).
"""
from __future__ import annotations

import base64
import json
import os
import re
import struct
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import pytest

pygltflib = pytest.importorskip("pygltflib")

from uvnest import io  # noqa: E402
from uvnest.io import MeshIOError, UnsupportedFormatError  # noqa: E402

FLOAT, UBYTE, USHORT, UINT, BYTE, SHORT = 5126, 5121, 5123, 5125, 5120, 5122
DTYPE = {FLOAT: "<f4", UBYTE: "u1", USHORT: "<u2", UINT: "<u4", BYTE: "i1", SHORT: "<i2"}
NCOMP = {"SCALAR": 1, "VEC2": 2, "VEC3": 3}


# --------------------------------------------------------------------------- building files


class Builder:
    """Assemble a glTF document and one binary buffer with pygltflib."""

    def __init__(self) -> None:
        self.g = pygltflib.GLTF2(asset=pygltflib.Asset(version="2.0"), scene=0, scenes=[pygltflib.Scene(nodes=[])])
        self.blob = bytearray()

    def view(self, data: bytes, stride: Optional[int] = None, **kw: Any) -> int:
        self.blob.extend(b"\0" * (-len(self.blob) % 4))
        self.g.bufferViews.append(pygltflib.BufferView(buffer=0, byteOffset=len(self.blob), byteLength=len(data),
                                                       byteStride=stride, **kw))
        self.blob.extend(data)
        return len(self.g.bufferViews) - 1

    def accessor(self, array: Any, ctype: int, kind: str, normalized: bool = False, view: Optional[int] = None,
                 offset: int = 0, count: Optional[int] = None, bounds: bool = True,
                 sparse: Optional[pygltflib.Sparse] = None) -> int:
        if array is None:  # no bufferView: all zeros (plus sparse values)
            arr = np.zeros((count, NCOMP[kind]), dtype=DTYPE[ctype])
        else:
            arr = np.asarray(array, dtype=DTYPE[ctype]).reshape(-1, NCOMP[kind])
            if view is None:
                view = self.view(arr.tobytes())
        acc = pygltflib.Accessor(bufferView=view, byteOffset=offset, componentType=ctype, normalized=normalized,
                                 count=len(arr) if count is None else count, type=kind, sparse=sparse)
        if bounds:
            acc.min, acc.max = arr.min(axis=0).tolist(), arr.max(axis=0).tolist()
        self.g.accessors.append(acc)
        return len(self.g.accessors) - 1

    def sparse(self, rows: Sequence[int], values: Any, ctype: int) -> pygltflib.Sparse:
        iv = self.view(np.asarray(rows, dtype="<u2").tobytes())
        vv = self.view(np.asarray(values, dtype=DTYPE[ctype]).tobytes())
        return pygltflib.Sparse(count=len(rows),
                                indices=pygltflib.AccessorSparseIndices(bufferView=iv, componentType=USHORT),
                                values=pygltflib.AccessorSparseValues(bufferView=vv))

    def mesh(self, name: str, primitives: List[Dict[str, Any]]) -> int:
        prims = []
        for p in primitives:
            p = dict(p)
            attributes = pygltflib.Attributes(**p.pop("attributes"))
            prims.append(pygltflib.Primitive(attributes=attributes, **p))
        self.g.meshes.append(pygltflib.Mesh(name=name, primitives=prims))
        self.g.nodes.append(pygltflib.Node(mesh=len(self.g.meshes) - 1, extras={"keep": "me"}))
        self.g.scenes[0].nodes.append(len(self.g.nodes) - 1)
        return len(self.g.meshes) - 1

    def save_glb(self, path: Path) -> Path:
        self.g.buffers = [pygltflib.Buffer(byteLength=len(self.blob))]
        self.g.set_binary_blob(bytes(self.blob))
        self.g.save_binary(str(path))
        return path

    def save_gltf(self, path: Path, embed: bool = False) -> Path:
        if embed:
            uri = "data:application/octet-stream;base64," + base64.b64encode(bytes(self.blob)).decode()
        else:
            uri = path.stem + "-data.bin"
            (path.parent / uri).write_bytes(bytes(self.blob))
        self.g.buffers = [pygltflib.Buffer(uri=uri, byteLength=len(self.blob))]
        path.write_text(self.g.gltf_to_json())
        return path


def cube(b: Builder, uv: Optional[np.ndarray] = None, uv_ctype: int = FLOAT, normalized: bool = False,
         uv_stride: Optional[int] = None) -> Dict[str, Any]:
    """Add a 24-vertex, 12-triangle cube; returns its primitive dict and arrays."""
    corners = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    pos, nrm, tex = [], [], []
    for axis in range(3):
        for side in (0.0, 1.0):
            for c in corners:
                p = np.insert(c, axis, side)
                pos.append(p)
                nrm.append(np.eye(3)[axis] * (1 if side else -1))
            tile = len(tex) // 4
            tex.extend((corners * 0.3 + [0.33 * (tile % 3), 0.5 * (tile // 3)]).tolist())
    pos = np.array(pos, dtype=np.float32)
    uv = np.array(tex, dtype=np.float32) if uv is None else uv
    indices = np.concatenate([[q, q + 1, q + 2, q, q + 2, q + 3] for q in range(0, 24, 4)]).astype(np.uint16)
    a_pos = b.accessor(pos, FLOAT, "VEC3")
    a_nrm = b.accessor(np.array(nrm), FLOAT, "VEC3", bounds=False)
    if uv_stride is None:
        a_uv = b.accessor(uv, uv_ctype, "VEC2", normalized=normalized)
    else:  # element padded to the stride, as vertex attributes must be 4-byte aligned
        raw = np.asarray(uv, dtype=DTYPE[uv_ctype]).reshape(len(uv), 2)
        block = np.zeros((len(raw), uv_stride), dtype=np.uint8)
        block[:, :raw.itemsize * 2] = raw.view(np.uint8).reshape(len(raw), -1)
        a_uv = b.accessor(raw, uv_ctype, "VEC2", normalized=normalized, view=b.view(block.tobytes(), uv_stride))
    a_idx = b.accessor(indices, USHORT, "SCALAR")
    prim = {"attributes": {"POSITION": a_pos, "NORMAL": a_nrm, "TEXCOORD_0": a_uv}, "indices": a_idx}
    return {"prim": prim, "pos": pos, "uv": uv, "indices": indices.astype(np.int64).reshape(-1, 3),
            "accessors": {"POSITION": a_pos, "NORMAL": a_nrm, "TEXCOORD_0": a_uv, "indices": a_idx}}


# --------------------------------------------------------------------------- independent decoding


def document(path: Path) -> Dict[str, Any]:
    """The JSON document of a .gltf or .glb file."""
    data = path.read_bytes()
    if data[:4] == b"glTF":
        size = struct.unpack_from("<I", data, 12)[0]
        return json.loads(data[20:20 + size])
    return json.loads(data)


def buffer_data(path: Path, doc: Dict[str, Any], i: int = 0) -> bytes:
    uri = doc["buffers"][i].get("uri")
    if uri is None:
        data = path.read_bytes()
        json_size = struct.unpack_from("<I", data, 12)[0]
        bin_at = 20 + json_size
        size = struct.unpack_from("<I", data, bin_at)[0]
        return data[bin_at + 8:bin_at + 8 + size]
    if uri.startswith("data:"):
        return base64.b64decode(uri.partition(",")[2])
    return (path.parent / uri).read_bytes()


def stored(path: Path, index: int) -> np.ndarray:
    """Raw stored elements of accessor ``index`` (sparse applied), decoded here."""
    doc = document(path)
    acc = doc["accessors"][index]
    dtype = np.dtype(DTYPE[acc["componentType"]])
    n = NCOMP[acc["type"]]
    out = np.zeros((acc["count"], n), dtype=dtype)
    if "bufferView" in acc:
        view = doc["bufferViews"][acc["bufferView"]]
        data = buffer_data(path, doc, view["buffer"])
        start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        stride = view.get("byteStride", dtype.itemsize * n)
        for i in range(acc["count"]):
            out[i] = np.frombuffer(data, dtype=dtype, count=n, offset=start + i * stride)
    if "sparse" in acc:
        sp = acc["sparse"]
        iv, vv = doc["bufferViews"][sp["indices"]["bufferView"]], doc["bufferViews"][sp["values"]["bufferView"]]
        rows = np.frombuffer(buffer_data(path, doc, iv["buffer"]), dtype=DTYPE[sp["indices"]["componentType"]],
                             count=sp["count"], offset=iv.get("byteOffset", 0) + sp["indices"].get("byteOffset", 0))
        vals = np.frombuffer(buffer_data(path, doc, vv["buffer"]), dtype=dtype, count=sp["count"] * n,
                             offset=vv.get("byteOffset", 0) + sp["values"].get("byteOffset", 0))
        out[rows.astype(int)] = vals.reshape(-1, n)
    return out


def without_bounds(doc: Dict[str, Any], accessors: Sequence[int]) -> Dict[str, Any]:
    doc = json.loads(json.dumps(doc))
    for i in accessors:
        doc["accessors"][i].pop("min", None)
        doc["accessors"][i].pop("max", None)
    return doc


def files(folder: Path) -> List[str]:
    return sorted(p.name for p in folder.iterdir())


# --------------------------------------------------------------------------- reading


@pytest.mark.parametrize("container", ["glb", "gltf"])
def test_cube_reads_uvs_faces_and_vertex_ids(tmp_path: Path, container: str) -> None:
    b = Builder()
    c = cube(b)
    b.mesh("Cube", [c["prim"]])
    path = b.save_glb(tmp_path / "cube.glb") if container == "glb" else b.save_gltf(tmp_path / "cube.gltf")
    mesh = io.load(path)
    assert mesh.format == container and mesh.path == path
    assert mesh.uvs.dtype == np.float64 and mesh.uvs.shape == (24, 2)
    np.testing.assert_array_equal(mesh.uvs, c["uv"].astype(np.float64))
    np.testing.assert_array_equal(mesh.face_array(), c["indices"])
    np.testing.assert_array_equal(np.array(mesh.mesh_faces), c["indices"])
    np.testing.assert_array_equal(mesh.face_groups, np.zeros(12))
    assert mesh.group_names == ["mesh 'Cube' primitive 0"]
    assert mesh.skipped_primitives == []


def test_normalized_integer_uvs_are_dequantized(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    b = Builder()
    q8 = rng.integers(0, 256, (24, 2))
    q16 = rng.integers(0, 65536, (24, 2))
    qs16 = rng.integers(-32768, 32768, (24, 2))
    c8 = cube(b, q8, UBYTE, normalized=True, uv_stride=4)
    c16 = cube(b, q16, USHORT, normalized=True)
    cs = cube(b, qs16, SHORT, normalized=True)
    b.mesh("Bytes", [c8["prim"]])
    b.mesh("Shorts", [c16["prim"]])
    b.mesh("Signed", [cs["prim"]])
    mesh = io.load(b.save_glb(tmp_path / "q.glb"))
    np.testing.assert_array_equal(mesh.uvs[:24], q8 / 255.0)
    np.testing.assert_array_equal(mesh.uvs[24:48], q16 / 65535.0)
    np.testing.assert_array_equal(mesh.uvs[48:], np.maximum(qs16 / 32767.0, -1.0))
    assert mesh.face_groups.tolist() == [0] * 12 + [1] * 12 + [2] * 12
    # separate POSITION accessors give separate vertex ids
    assert np.array(mesh.mesh_faces).max() == 71


def test_sparse_accessor_values_are_substituted(tmp_path: Path) -> None:
    b = Builder()
    base = np.full((24, 2), 0.25, dtype=np.float32)
    patch = np.array([[0.5, 0.75], [0.125, 1.0]], dtype=np.float32)
    c = cube(b)
    sparse_uv = b.accessor(base, FLOAT, "VEC2", sparse=b.sparse([3, 17], patch, FLOAT), bounds=False)
    c["prim"]["attributes"]["TEXCOORD_0"] = sparse_uv
    b.mesh("Cube", [c["prim"]])
    mesh = io.load(b.save_glb(tmp_path / "s.glb"))
    expected = base.astype(np.float64)
    expected[[3, 17]] = patch
    np.testing.assert_array_equal(mesh.uvs, expected)


def test_sparse_accessor_without_buffer_view_reads_zeros_plus_patch(tmp_path: Path) -> None:
    b = Builder()
    c = cube(b)
    patch = np.array([[0.5, 0.75]], dtype=np.float32)
    acc = b.accessor(None, FLOAT, "VEC2", count=24, bounds=False, sparse=b.sparse([5], patch, FLOAT))
    c["prim"]["attributes"]["TEXCOORD_0"] = acc
    b.mesh("Cube", [c["prim"]])
    path = b.save_glb(tmp_path / "z.glb")
    mesh = io.load(path)
    expected = np.zeros((24, 2))
    expected[5] = patch
    np.testing.assert_array_equal(mesh.uvs, expected)
    new = mesh.uvs + 0.125
    io.save(mesh, tmp_path / "z2.glb", uvs=new)
    np.testing.assert_array_equal(io.load(tmp_path / "z2.glb").uvs, new)


def test_shared_texcoord_accessor_maps_to_one_set_of_rows(tmp_path: Path) -> None:
    b = Builder()
    c = cube(b)
    top = dict(c["prim"], indices=b.accessor(c["indices"][:6].ravel(), USHORT, "SCALAR"))
    rest = dict(c["prim"], indices=b.accessor(c["indices"][6:].ravel(), USHORT, "SCALAR"), material=None)
    b.mesh("Split", [top, rest])
    b.mesh("Again", [c["prim"]])  # a second mesh sharing every accessor
    path = b.save_glb(tmp_path / "shared.glb")
    mesh = io.load(path)
    assert mesh.uvs.shape == (24, 2)
    np.testing.assert_array_equal(mesh.face_array(), np.concatenate([c["indices"], c["indices"]]))
    np.testing.assert_array_equal(np.array(mesh.mesh_faces), mesh.face_array())  # shared POSITION
    assert mesh.face_groups.tolist() == [0] * 6 + [1] * 6 + [2] * 12
    new = mesh.uvs[::-1] * 0.5
    io.save(mesh, tmp_path / "out.glb", uvs=new)
    np.testing.assert_array_equal(stored(tmp_path / "out.glb", c["accessors"]["TEXCOORD_0"]),
                                  new.astype(np.float32))
    np.testing.assert_array_equal(io.load(tmp_path / "out.glb").uvs, new.astype(np.float32))


def test_uv_set_selects_texcoord_1_and_writes_only_it(tmp_path: Path) -> None:
    b = Builder()
    c = cube(b)
    uv1 = (c["uv"][::-1] * 0.5).astype(np.float32)
    a1 = b.accessor(uv1, FLOAT, "VEC2")
    c["prim"]["attributes"]["TEXCOORD_1"] = a1
    b.mesh("Cube", [c["prim"]])
    path = b.save_glb(tmp_path / "two.glb")
    np.testing.assert_array_equal(io.load(path).uvs, c["uv"])
    mesh = io.load(path, uv_set=1)
    np.testing.assert_array_equal(mesh.uvs, uv1)
    new = mesh.uvs + 0.25
    io.save(mesh, tmp_path / "out.glb", uvs=new)
    out = tmp_path / "out.glb"
    np.testing.assert_array_equal(io.load(out, uv_set=1).uvs, new.astype(np.float32))
    np.testing.assert_array_equal(io.load(out, uv_set=0).uvs, c["uv"])
    with pytest.raises(MeshIOError, match=r"two\.glb: no primitive has TEXCOORD_2"):
        io.load(path, uv_set=2)


def test_primitives_without_the_set_and_points_are_skipped(tmp_path: Path) -> None:
    b = Builder()
    c = cube(b)
    bare = {"attributes": {"POSITION": c["accessors"]["POSITION"]}, "indices": c["accessors"]["indices"]}
    points = dict(c["prim"], mode=pygltflib.POINTS)
    b.mesh("Mixed", [bare, c["prim"], points])
    mesh = io.load(b.save_glb(tmp_path / "mixed.glb"))
    assert mesh.skipped_primitives == ["mesh 'Mixed' primitive 0: no TEXCOORD_0",
                                       "mesh 'Mixed' primitive 2: POINTS primitive (no faces)"]
    assert mesh.group_names == ["mesh 'Mixed' primitive 1"]
    assert len(mesh.faces) == 12


def test_strip_and_fan_become_triangles(tmp_path: Path) -> None:
    b = Builder()
    uv = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [0, 2], [1, 2]], dtype=np.float32)
    pos = np.column_stack([uv, np.zeros(6)]).astype(np.float32)
    attrs = {"POSITION": b.accessor(pos, FLOAT, "VEC3"), "TEXCOORD_0": b.accessor(uv, FLOAT, "VEC2")}
    strip = {"attributes": attrs, "mode": pygltflib.TRIANGLE_STRIP}  # no indices: vertices in order
    fan = {"attributes": attrs, "mode": pygltflib.TRIANGLE_FAN,
           "indices": b.accessor([0, 1, 3, 2], USHORT, "SCALAR")}
    b.mesh("Strips", [strip, fan])
    mesh = io.load(b.save_glb(tmp_path / "strip.glb"))
    assert mesh.face_array().tolist() == [[0, 1, 2], [1, 3, 2], [2, 3, 4], [3, 5, 4], [1, 3, 0], [3, 2, 0]]


# --------------------------------------------------------------------------- writing


def test_glb_round_trip_with_unchanged_uvs_is_identical(tmp_path: Path) -> None:
    b = Builder()
    b.mesh("Cube", [cube(b)["prim"]])
    path = b.save_glb(tmp_path / "cube.glb")
    mesh = io.load(path)
    io.save(mesh, tmp_path / "a.glb")
    io.save(mesh, tmp_path / "b.glb", uvs=mesh.uvs.copy())
    assert (tmp_path / "a.glb").read_bytes() == path.read_bytes()
    assert (tmp_path / "b.glb").read_bytes() == path.read_bytes()


def test_gltf_round_trip_writes_bin_named_after_output(tmp_path: Path) -> None:
    b = Builder()
    b.mesh("Cube", [cube(b)["prim"]])
    path = b.save_gltf(tmp_path / "cube.gltf")
    mesh = io.load(path)
    out = tmp_path / "sub"
    out.mkdir()
    io.save(mesh, out / "packed.gltf", uvs=mesh.uvs.copy())
    assert files(out) == ["packed.bin", "packed.gltf"]
    src_doc, out_doc = document(path), document(out / "packed.gltf")
    assert out_doc["buffers"][0]["uri"] == "packed.bin"
    out_doc["buffers"][0]["uri"] = src_doc["buffers"][0]["uri"]
    assert out_doc == src_doc
    assert (out / "packed.bin").read_bytes() == (tmp_path / "cube-data.bin").read_bytes()
    # same name as the source: the .gltf comes back byte for byte
    (tmp_path / "cube-data.bin").rename(tmp_path / "cube.bin")
    doc = document(path)
    doc["buffers"][0]["uri"] = "cube.bin"
    path.write_text(json.dumps(doc))
    before = path.read_bytes()
    io.save(io.load(path), path)
    assert path.read_bytes() == before


def test_gltf_with_two_external_buffers(tmp_path: Path) -> None:
    b = Builder()
    c = cube(b)
    b.mesh("Cube", [c["prim"]])
    src = b.save_gltf(tmp_path / "two.gltf")
    doc = document(src)
    uv_view = doc["accessors"][c["accessors"]["TEXCOORD_0"]]["bufferView"]
    view = doc["bufferViews"][uv_view]
    blob = (tmp_path / "two-data.bin").read_bytes()
    (tmp_path / "uv data.bin").write_bytes(blob[view["byteOffset"]:view["byteOffset"] + view["byteLength"]])
    view.update(buffer=1, byteOffset=0)
    doc["buffers"].append({"uri": "uv%20data.bin", "byteLength": view["byteLength"]})
    src.write_text(json.dumps(doc))
    mesh = io.load(src)
    np.testing.assert_array_equal(mesh.uvs, c["uv"])
    out = tmp_path / "out"
    out.mkdir()
    new = mesh.uvs * 0.25
    io.save(mesh, out / "packed.gltf", uvs=new)
    assert files(out) == ["packed.bin", "packed.gltf", "packed_1.bin"]
    out_doc = document(out / "packed.gltf")
    assert [bf["uri"] for bf in out_doc["buffers"]] == ["packed.bin", "packed_1.bin"]
    assert (out / "packed.bin").read_bytes() == blob
    np.testing.assert_array_equal(io.load(out / "packed.gltf").uvs, new.astype(np.float32))


@pytest.mark.parametrize("container", ["glb", "gltf", "embedded"])
def test_changed_float_uvs_are_written_in_place(tmp_path: Path, container: str) -> None:
    b = Builder()
    c = cube(b)
    b.mesh("Cube", [c["prim"]])
    b.g.materials.append(pygltflib.Material(name="m", extensions={"EXT_custom": {"x": 1}}, extras={"y": [1, 2]}))
    b.g.extensionsUsed = ["EXT_custom"]
    if container == "glb":
        src = b.save_glb(tmp_path / "cube.glb")
    else:
        src = b.save_gltf(tmp_path / "cube.gltf", embed=container == "embedded")
    mesh = io.load(src)
    rng = np.random.default_rng(7)
    new = rng.uniform(-0.5, 2.0, mesh.uvs.shape)
    out = tmp_path / f"out{src.suffix}"
    io.save(mesh, out, uvs=new)
    back = io.load(out)
    np.testing.assert_array_equal(back.uvs, new.astype(np.float32).astype(np.float64))
    np.testing.assert_array_equal(back.face_array(), mesh.face_array())
    uv_acc = c["accessors"]["TEXCOORD_0"]
    doc_src, doc_out = document(src), document(out)
    f32 = new.astype(np.float32)
    assert doc_out["accessors"][uv_acc]["min"] == f32.min(axis=0).tolist()
    assert doc_out["accessors"][uv_acc]["max"] == f32.max(axis=0).tolist()
    for d in (doc_src, doc_out):
        d["buffers"][0].pop("uri", None)
    assert without_bounds(doc_out, [uv_acc]) == without_bounds(doc_src, [uv_acc])
    for name in ("POSITION", "NORMAL", "indices"):
        index = c["accessors"][name]
        np.testing.assert_array_equal(stored(out, index), stored(src, index))
    # the buffer changed only inside the UV accessor's bytes
    view = doc_src["bufferViews"][doc_src["accessors"][uv_acc]["bufferView"]]
    a, e = view.get("byteOffset", 0), view.get("byteOffset", 0) + view["byteLength"]
    before, after = buffer_data(src, document(src)), buffer_data(out, document(out))
    assert len(before) == len(after)
    assert before[:a] == after[:a] and before[e:] == after[e:] and before[a:e] != after[a:e]
    if container == "embedded":
        assert document(out)["buffers"][0]["uri"].startswith("data:application/octet-stream;base64,")
        assert files(tmp_path) == ["cube.gltf", "out.gltf"]


def test_interleaved_uvs_leave_neighbouring_attribute_bytes_alone(tmp_path: Path) -> None:
    b = Builder()
    uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    pos = np.column_stack([uv, np.ones(4)]).astype(np.float32)
    block = np.concatenate([pos, uv], axis=1).astype(np.float32)  # x y z u v per vertex
    view = b.view(block.tobytes(), stride=20, target=pygltflib.ARRAY_BUFFER)
    a_pos = b.accessor(pos, FLOAT, "VEC3", view=view)
    a_uv = b.accessor(uv, FLOAT, "VEC2", view=view, offset=12)
    idx = b.accessor([0, 1, 2, 0, 2, 3], USHORT, "SCALAR")
    b.mesh("Quad", [{"attributes": {"POSITION": a_pos, "TEXCOORD_0": a_uv}, "indices": idx}])
    src = b.save_glb(tmp_path / "quad.glb")
    mesh = io.load(src)
    np.testing.assert_array_equal(mesh.uvs, uv)
    new = mesh.uvs * 0.5 + 0.25
    io.save(mesh, tmp_path / "out.glb", uvs=new)
    np.testing.assert_array_equal(stored(tmp_path / "out.glb", a_pos), pos)
    np.testing.assert_array_equal(stored(tmp_path / "out.glb", a_uv), new.astype(np.float32))


@pytest.mark.parametrize("ctype,scale,stride", [(UBYTE, 255, 4), (USHORT, 65535, None)])
def test_normalized_uvs_are_requantized_with_rounding_and_clamping(
        tmp_path: Path, ctype: int, scale: int, stride: Optional[int]) -> None:
    rng = np.random.default_rng(3)
    b = Builder()
    c = cube(b, rng.integers(0, scale + 1, (24, 2)), ctype, normalized=True, uv_stride=stride)
    b.mesh("Cube", [c["prim"]])
    src = b.save_glb(tmp_path / "q.glb")
    mesh = io.load(src)
    new = rng.uniform(0, 1, mesh.uvs.shape)
    new[0] = [-0.5, 1.5]  # outside the normalized range: clamped
    io.save(mesh, tmp_path / "out.glb", uvs=new)
    back = io.load(tmp_path / "out.glb").uvs
    assert np.abs(back[1:] - new[1:]).max() <= 0.5 / scale + 1e-12
    np.testing.assert_array_equal(back[0], [0.0, 1.0])
    raw = stored(tmp_path / "out.glb", c["accessors"]["TEXCOORD_0"])
    np.testing.assert_array_equal(raw.astype(np.int64), np.clip(np.rint(new * scale), 0, scale))
    acc = document(tmp_path / "out.glb")["accessors"][c["accessors"]["TEXCOORD_0"]]
    assert acc["min"] == raw.min(axis=0).tolist() and acc["max"] == raw.max(axis=0).tolist()
    assert acc["componentType"] == ctype and acc["normalized"] is True
    # equal values (the dequantized ones) leave the file identical
    io.save(mesh, tmp_path / "same.glb", uvs=mesh.uvs.copy())
    assert (tmp_path / "same.glb").read_bytes() == src.read_bytes()


def test_changed_sparse_accessor_becomes_dense(tmp_path: Path) -> None:
    b = Builder()
    c = cube(b)
    base = np.full((24, 2), 0.25, dtype=np.float32)
    acc = b.accessor(base, FLOAT, "VEC2", sparse=b.sparse([3, 17], [[0.5, 0.75], [0.125, 1.0]], FLOAT))
    c["prim"]["attributes"]["TEXCOORD_0"] = acc
    b.mesh("Cube", [c["prim"]])
    src = b.save_glb(tmp_path / "s.glb")
    mesh = io.load(src)
    io.save(mesh, tmp_path / "same.glb")
    assert (tmp_path / "same.glb").read_bytes() == src.read_bytes()
    new = np.linspace(0, 1, 48).reshape(24, 2)
    io.save(mesh, tmp_path / "out.glb", uvs=new)
    doc_src, doc = document(src), document(tmp_path / "out.glb")
    assert "sparse" not in doc["accessors"][acc]
    assert doc["accessors"][acc]["bufferView"] == len(doc_src["bufferViews"])  # one new view, appended
    assert doc["bufferViews"][:-1] == doc_src["bufferViews"]
    np.testing.assert_array_equal(io.load(tmp_path / "out.glb").uvs, new.astype(np.float32))
    np.testing.assert_array_equal(stored(tmp_path / "out.glb", acc), new.astype(np.float32))
    np.testing.assert_array_equal(stored(tmp_path / "out.glb", c["accessors"]["POSITION"]), c["pos"])
    assert doc["buffers"][0]["byteLength"] > doc_src["buffers"][0]["byteLength"]


def test_save_in_place_and_suffix_checks(tmp_path: Path) -> None:
    b = Builder()
    b.mesh("Cube", [cube(b)["prim"]])
    src = b.save_glb(tmp_path / "cube.glb")
    mesh = io.load(src)
    new = mesh.uvs * 0.5
    io.save(mesh, src, uvs=new)
    np.testing.assert_array_equal(io.load(src).uvs, new)
    with pytest.raises(ValueError, match="glb"):
        io.save(mesh, tmp_path / "cube.gltf")
    with pytest.raises(ValueError, match="shape"):
        io.save(mesh, tmp_path / "x.glb", uvs=new[:-1])
    with pytest.raises(ValueError, match="non-finite"):
        io.save(mesh, tmp_path / "x.glb", uvs=np.where(new > 0.3, np.inf, new))
    assert files(tmp_path) == ["cube.glb"]


def test_failed_gltf_save_leaves_no_partial_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b = Builder()
    b.mesh("Cube", [cube(b)["prim"]])
    src = b.save_gltf(tmp_path / "cube.gltf")
    mesh = io.load(src)
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}
    real_replace = os.replace
    calls: List[Any] = []

    def flaky_replace(a: Any, b: Any) -> None:
        calls.append(b)
        raise KeyboardInterrupt  # interrupted before anything was committed

    monkeypatch.setattr(os, "replace", flaky_replace)
    with pytest.raises(KeyboardInterrupt):
        io.save(mesh, tmp_path / "cube.gltf", uvs=mesh.uvs * 0.5)
    monkeypatch.setattr(os, "replace", real_replace)
    assert calls
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before


# --------------------------------------------------------------------------- unsupported and corrupt files


def test_draco_primitive_is_unsupported(tmp_path: Path) -> None:
    b = Builder()
    c = cube(b)
    draco = dict(c["prim"], extensions={"KHR_draco_mesh_compression": {"bufferView": 0, "attributes": {}}})
    b.mesh("Cube", [c["prim"], draco])
    b.g.extensionsUsed = b.g.extensionsRequired = ["KHR_draco_mesh_compression"]
    path = b.save_glb(tmp_path / "scene.glb")
    with pytest.raises(UnsupportedFormatError) as e:
        io.load(path)
    assert str(e.value).startswith(f"{path}: mesh 'Cube' primitive 1: Draco-compressed primitives")


def test_meshopt_and_unnormalized_quantized_uvs_are_unsupported(tmp_path: Path) -> None:
    b = Builder()
    c = cube(b)
    b.g.bufferViews[b.g.accessors[c["accessors"]["TEXCOORD_0"]].bufferView].extensions = {
        "EXT_meshopt_compression": {"buffer": 0, "byteLength": 8, "byteStride": 8, "count": 24, "mode": "ATTRIBUTES"}}
    b.mesh("Opt", [c["prim"]])
    with pytest.raises(UnsupportedFormatError, match=r"mesh 'Opt' primitive 0: meshopt"):
        io.load(b.save_glb(tmp_path / "opt.glb"))
    b = Builder()
    c = cube(b, np.arange(48).reshape(24, 2), SHORT, normalized=False)
    b.mesh("Quant", [c["prim"]])
    with pytest.raises(UnsupportedFormatError, match=r"mesh 'Quant' primitive 0: TEXCOORD_0 .* SHORT .*quantization"):
        io.load(b.save_glb(tmp_path / "quant.glb"))


def good_glb(tmp_path: Path) -> bytes:
    b = Builder()
    b.mesh("Cube", [cube(b)["prim"]])
    return b.save_glb(tmp_path / "good.glb").read_bytes()


def patched_glb(data: bytes, edit: Any) -> bytes:
    """``data`` with its JSON document changed by ``edit`` (same BIN chunk)."""
    size = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + size])
    edit(doc)
    body = json.dumps(doc).encode()
    body += b" " * (-len(body) % 4)
    rest = data[20 + size:]
    return struct.pack("<4sII", b"glTF", 2, 20 + len(body) + len(rest)) + struct.pack("<II", len(body), 0x4E4F534A) \
        + body + rest


def bad_index(doc: Dict[str, Any]) -> None:
    doc["meshes"][0]["primitives"][0]["indices"] = 0  # the POSITION accessor: wrong type
    doc["accessors"][0]["type"] = "SCALAR"


CORRUPT = {
    "truncated": (lambda d: d[:len(d) - 37], r"truncated GLB: header says \d+ bytes, file has \d+"),
    "header only": (lambda d: d[:7], r"truncated GLB: 7 bytes"),
    "junk": (lambda d: bytes(range(256)) * 3, r"not a GLB file"),
    "bad json": (lambda d: d[:20] + b"{\"asset\" 1" + d[30:], r"bad JSON: Expecting ':'"),
    "index out of range": (
        lambda d: patched_glb(d, lambda doc: [doc["accessors"][i].update(count=20) for i in range(3)]),
        r"mesh 'Cube' primitive 0: indices accessor 3: vertex index 23 out of range \(20 vertices\)"),
    "accessor beyond view": (
        lambda d: patched_glb(d, lambda doc: doc["accessors"][2].update(byteOffset=64)),
        r"mesh 'Cube' primitive 0: TEXCOORD_0 accessor 2 needs 256 bytes of bufferView 2, which has 192"),
    "view beyond buffer": (
        lambda d: patched_glb(d, lambda doc: doc["bufferViews"][3].update(byteLength=4000)),
        r"bufferView 3 \(bytes \d+ to \d+\) exceeds buffer 0"),
    "missing accessor": (
        lambda d: patched_glb(d, lambda doc: doc["meshes"][0]["primitives"][0].update(indices=99)),
        r"indices accessor 99 does not exist \(4 defined\)"),
    "bad index type": (lambda d: patched_glb(d, bad_index), r"indices accessor 0 is SCALAR FLOAT"),
}


@pytest.mark.parametrize("name", list(CORRUPT))
def test_corrupt_glb_raises_mesh_io_error_naming_the_file(tmp_path: Path, name: str) -> None:
    make, pattern = CORRUPT[name]
    path = tmp_path / "broken.glb"
    path.write_bytes(make(good_glb(tmp_path)))
    (tmp_path / "good.glb").unlink()
    with pytest.raises(MeshIOError) as e:
        io.load(path)
    message = str(e.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    assert re.search(pattern, message), message
    assert files(tmp_path) == ["broken.glb"]


def test_out_of_range_vertex_index_is_reported(tmp_path: Path) -> None:
    b = Builder()
    c = cube(b)
    c["prim"]["indices"] = b.accessor([0, 1, 24], USHORT, "SCALAR")
    b.mesh("Cube", [c["prim"]])
    with pytest.raises(MeshIOError, match=r"mesh 'Cube' primitive 0: indices accessor 4: vertex index 24 out of "
                                          r"range \(24 vertices\)"):
        io.load(b.save_glb(tmp_path / "c.glb"))


def test_gltf_with_missing_bin_or_bad_json(tmp_path: Path) -> None:
    b = Builder()
    b.mesh("Cube", [cube(b)["prim"]])
    path = b.save_gltf(tmp_path / "cube.gltf")
    (tmp_path / "cube-data.bin").unlink()
    with pytest.raises(MeshIOError, match=r"cube\.gltf: buffer 0 \('cube-data\.bin'\): cannot read"):
        io.load(path)
    path.write_text('{"asset": {"version": "2.0"}, "meshes": [')
    with pytest.raises(MeshIOError, match=r"cube\.gltf: bad JSON"):
        io.load(path)
    path.write_bytes(b"\x00\xff junk")
    with pytest.raises(MeshIOError, match=r"cube\.gltf: bad JSON"):
        io.load(path)
    path.write_text('{"asset": {"version": "1.0"}}')
    with pytest.raises(UnsupportedFormatError, match=r"glTF version 1\.0"):
        io.load(path)
    with pytest.raises(UnsupportedFormatError, match=r"scene\.fbx: unsupported file type '\.fbx'"):
        io.load(tmp_path / "scene.fbx")
