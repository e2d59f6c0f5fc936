"""glTF 2.0 (.gltf with external or embedded buffers, .glb) reading and
write-back of one TEXCOORD set.

Reading (the document is parsed with pygltflib; the GLB container, buffers
and accessor data are read and bounds-checked here):

* every primitive of every mesh that has ``TEXCOORD_<uv_set>`` is read.
  TRIANGLES (with or without indices) are used as they are;
  TRIANGLE_STRIP and TRIANGLE_FAN are converted to triangles, dropping the
  degenerate ones that stitch strips.  POINTS and LINES primitives, and
  primitives without the UV set, are skipped and listed in
  ``Mesh.skipped_primitives``.
* UV accessors may be float, or normalized unsigned/signed byte or short
  (dequantized as c/255, c/65535, max(c/127, -1), max(c/32767, -1)); they
  may be interleaved (byteStride), offset, and sparse.
* ``Mesh.uvs`` has one block of rows per distinct TEXCOORD accessor, in
  order of first use, so primitives sharing an accessor share rows.
  ``Mesh.faces`` are triangles indexing those rows; ``Mesh.mesh_faces``
  number vertices by (POSITION accessor, element), so primitives sharing a
  POSITION accessor share vertex ids; ``Mesh.face_groups`` is the ordinal of
  the primitive (named in ``Mesh.group_names``).
* Draco (KHR_draco_mesh_compression) and meshopt (EXT/KHR_meshopt_compression)
  compressed data, and UV layouts of KHR_mesh_quantization that are not
  normalized (they only make sense with a texture transform), raise
  ``UnsupportedFormatError`` naming the mesh and primitive.

Reading is safe for untrusted files: buffer and image URIs must name files
inside the model's folder (the folder of the file a symbolic link leads
to): ``..``, absolute paths, drive letters and links that lead out of the
folder are refused.  Buffer files must be regular files (no FIFOs or
devices) of at most their ``byteLength`` plus 3 bytes of padding; images are
not read.  JSON may nest at most 100 levels.  Every failure is a
``MeshIOError`` naming the model.

Writing keeps the document and the buffer layout: the new UVs are stored in
the same accessors, with the same component type.  Normalized integer UVs
are re-quantized with rounding and clamping, so they keep only the precision
of their type (1/255 or 1/65535); float UVs are stored as float32.  An
accessor whose values did not change is not touched at all.  The ``min`` and
``max`` of a changed accessor are updated when present (they are optional
for TEXCOORD and are not added).  A changed sparse accessor (or one without
a bufferView) is made dense: its values go to a new bufferView appended to
the buffer that held its sparse values, and ``sparse`` is removed; its old
data stays in the buffer, unreferenced.  Everything else - other
attributes, extensions, extras, images, unknown properties and GLB chunks -
is kept.

Output: a .glb source gives a .glb.  A .gltf source gives the .gltf plus,
next to it, each buffer that was an external file: ``<stem>.bin`` (further
buffers ``<stem>_1.bin``, ...), with the buffer URIs updated; embedded
(data URI) buffers stay embedded.  Image files referenced by relative URI
are not copied.  Each file is replaced atomically, and only once all of
them have been written: a failure while writing changes none of them.
"""
from __future__ import annotations

import base64
import binascii
import copy
import json
import os
import re
import struct
import urllib.parse
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from .atomic import atomic_write_many, write_target
from .mesh import MAX_FILE_BYTES, Mesh, MeshIOError, UnsupportedFormatError, checked_uvs, inside_folder, read_bytes

__all__ = ["read", "write"]

_GLB_MAGIC = b"glTF"
_CHUNK_JSON = 0x4E4F534A
_CHUNK_BIN = 0x004E4942
_COMPONENT = {
    5120: np.dtype("i1"),
    5121: np.dtype("u1"),
    5122: np.dtype("<i2"),
    5123: np.dtype("<u2"),
    5125: np.dtype("<u4"),
    5126: np.dtype("<f4"),
}
_COMPONENT_NAME = {5120: "BYTE", 5121: "UNSIGNED_BYTE", 5122: "SHORT", 5123: "UNSIGNED_SHORT",
                   5125: "UNSIGNED_INT", 5126: "FLOAT"}
_N_COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}
# UV storage that can be read and written back: (componentType, normalized) -> integer scale
_UV_SCALE: Dict[Tuple[int, bool], Optional[float]] = {
    (5126, False): None,
    (5121, True): 255.0,
    (5123, True): 65535.0,
    (5120, True): 127.0,
    (5122, True): 32767.0,
}
_INDEX_TYPES = (5121, 5123, 5125)
_MODES = {0: "POINTS", 1: "LINES", 2: "LINE_LOOP", 3: "LINE_STRIP",
          4: "TRIANGLES", 5: "TRIANGLE_STRIP", 6: "TRIANGLE_FAN"}
_DRACO = "KHR_draco_mesh_compression"
# Deepest JSON nesting read: glTF itself needs about 8 levels; the limit keeps
# hostile documents away from Python's recursion limit (parsing, copying).
_MAX_JSON_DEPTH = 100
# A buffer file may end with up to 3 bytes of padding to a multiple of 4 after byteLength.
_BUFFER_PADDING = 3
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_MESHOPT = ("EXT_meshopt_compression", "KHR_meshopt_compression")


@dataclass
class _UvAccessor:
    """One TEXCOORD accessor: where its rows are in Mesh.uvs and its storage."""

    index: int
    start: int  # first row in Mesh.uvs
    values: np.ndarray  # (count, 2) float64 as read
    component: int
    scale: Optional[float]  # None for float
    buffer: Optional[int]  # dense storage: buffer index, byte offset, stride
    offset: int
    stride: int
    dense: bool  # False when sparse or without bufferView (written by densifying)
    sparse_buffer: Optional[int]  # buffer of the sparse values (where a dense copy is appended)


@dataclass
class _GltfSource:
    """What ``write`` needs: the original document, buffers and accessors."""

    container: str  # "gltf" or "glb"
    raw: bytes
    doc: Dict[str, Any]
    buffers: List[Optional[bytes]]  # None: a meshopt fallback buffer without data
    buffer_kind: List[str]  # "glb" (GLB binary chunk), "data" (data URI), "file", "none"
    glb_extra_chunks: List[Tuple[int, bytes]]
    accessors: List[_UvAccessor]


# --------------------------------------------------------------------------- reading


def read(path: Path, uv_set: int = 0) -> Mesh:
    """Read the ``TEXCOORD_<uv_set>`` UVs and triangles of a .gltf or .glb file."""
    try:
        import pygltflib
    except ImportError:
        raise UnsupportedFormatError("reading glTF needs the pygltflib package (pip install pygltflib)") from None
    raw = read_bytes(path)
    container = "glb" if path.suffix.lower() == ".glb" else "gltf"
    extra_chunks: List[Tuple[int, bytes]] = []
    bin_chunk: Optional[bytes] = None
    if container == "glb":
        json_bytes, bin_chunk, extra_chunks = _parse_glb(raw)
    elif raw[:4] == _GLB_MAGIC:
        raise MeshIOError("is a binary glTF (GLB) file; give it the .glb suffix")
    else:
        json_bytes = raw
    doc, text = _parse_json(json_bytes)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gltf = pygltflib.GLTF2.from_json(text, infer_missing=True)
    except Exception as e:  # pygltflib reports malformed documents with arbitrary exceptions
        raise MeshIOError(f"invalid glTF document: {type(e).__name__}: {e}") from None
    version = str(getattr(gltf.asset, "version", "") or "")
    if not version.startswith("2."):
        raise UnsupportedFormatError(f"glTF version {version or '(missing)'} is not supported (only 2.x)")
    _check_image_uris(gltf, path)
    buffers, kinds = _load_buffers(gltf, path, container, bin_chunk)
    reader = _MeshReader(gltf, buffers, uv_set)
    try:
        mesh = reader.mesh(path, container)
    except MeshIOError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError) as e:
        # values of the wrong JSON type that the checks above let through
        raise MeshIOError(f"invalid glTF document: {type(e).__name__}: {e}") from None
    mesh._source = _GltfSource(container, raw, doc, buffers, kinds, extra_chunks, list(reader.uv_accessors.values()))
    return mesh


def _parse_glb(raw: bytes) -> Tuple[bytes, Optional[bytes], List[Tuple[int, bytes]]]:
    """Split a GLB container into (JSON chunk, BIN chunk or None, other chunks)."""
    if len(raw) < 12:
        raise MeshIOError(f"truncated GLB: {len(raw)} bytes, the header alone needs 12")
    magic, version, length = struct.unpack_from("<4sII", raw)
    if magic != _GLB_MAGIC:
        raise MeshIOError("not a GLB file (bad magic bytes)")
    if version != 2:
        raise UnsupportedFormatError(f"GLB version {version} is not supported (only 2)")
    if length > len(raw):
        raise MeshIOError(f"truncated GLB: header says {length} bytes, file has {len(raw)}")
    if length < len(raw):
        raise MeshIOError(f"corrupt GLB: header says {length} bytes, file has {len(raw)}")
    chunks: List[Tuple[int, bytes]] = []
    pos = 12
    while pos < length:
        if pos + 8 > length:
            raise MeshIOError(f"truncated GLB: chunk header at byte {pos} cut off")
        size, kind = struct.unpack_from("<II", raw, pos)
        if pos + 8 + size > length:
            raise MeshIOError(f"truncated GLB: chunk {len(chunks)} needs {size} bytes at byte {pos + 8}, "
                              f"file ends at {length}")
        chunks.append((kind, raw[pos + 8:pos + 8 + size]))
        pos += 8 + size
    if not chunks or chunks[0][0] != _CHUNK_JSON:
        raise MeshIOError("corrupt GLB: the first chunk is not JSON")
    rest = chunks[1:]
    bin_chunk = None
    if rest and rest[0][0] == _CHUNK_BIN:
        bin_chunk = rest.pop(0)[1]
    return chunks[0][1], bin_chunk, rest


def _parse_json(data: bytes) -> Tuple[Dict[str, Any], str]:
    """The JSON document as a dict, and its text."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise MeshIOError(f"bad JSON: not UTF-8 text (byte {e.start})") from None
    depth = _json_depth(text)
    if depth > _MAX_JSON_DEPTH:
        raise MeshIOError(f"bad JSON: nested {depth} levels deep, more than the {_MAX_JSON_DEPTH} uvnest reads")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise MeshIOError(f"bad JSON: {e.msg} (line {e.lineno} column {e.colno})") from None
    except RecursionError:
        raise MeshIOError("bad JSON: nested too deeply") from None
    if not isinstance(doc, dict):
        raise MeshIOError("bad JSON: the document is not an object")
    return doc, text


def _json_depth(text: str) -> int:
    """Deepest nesting of arrays and objects in a JSON text (strings do not count)."""
    brackets = np.frombuffer(_JSON_STRING.sub("", text).encode("utf-8"), dtype=np.uint8)
    step = np.isin(brackets, (ord("["), ord("{"))).astype(np.int64) - np.isin(brackets, (ord("]"), ord("}")))
    return int(np.cumsum(step).max(initial=0))


def _int(value: Any, what: str, minimum: int = 0) -> int:
    """``value`` as an int >= minimum, else ``MeshIOError`` naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise MeshIOError(f"{what} is {value!r}, expected an integer >= {minimum}")
    return value


def _item(items: Optional[Sequence[Any]], index: Any, what: str) -> Any:
    """``items[index]`` for a glTF reference, else ``MeshIOError``."""
    items = items or []
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(items):
        raise MeshIOError(f"{what} {index!r} does not exist ({len(items)} defined)")
    return items[index]


def _load_buffers(gltf: Any, path: Path, container: str, bin_chunk: Optional[bytes]
                  ) -> Tuple[List[Optional[bytes]], List[str]]:
    """Data of every buffer (GLB chunk, data URI or file next to ``path``)."""
    data: List[Optional[bytes]] = []
    kinds: List[str] = []
    for i, buf in enumerate(gltf.buffers or []):
        length = _int(buf.byteLength, f"buffer {i} byteLength", 1)
        if length > MAX_FILE_BYTES:
            raise MeshIOError(f"buffer {i} byteLength {length} is more than the {MAX_FILE_BYTES} bytes uvnest reads")
        uri = buf.uri
        ext = buf.extensions or {}
        if uri is None:
            if container == "glb" and i == 0 and bin_chunk is not None:
                content, kind = bin_chunk, "glb"
            elif any(ext.get(name, {}).get("fallback") for name in _MESHOPT):
                data.append(None)
                kinds.append("none")
                continue
            else:
                raise MeshIOError(f"buffer {i} has no uri and there is no GLB binary chunk for it")
        elif not isinstance(uri, str):
            raise MeshIOError(f"buffer {i} uri is {uri!r}, expected a string")
        elif uri.startswith("data:"):
            content, kind = _decode_data_uri(uri, i), "data"
        else:
            content, kind = _read_buffer_file(path, uri, i, length), "file"
        if len(content) < length:
            raise MeshIOError(f"buffer {i} is truncated: {len(content)} bytes, byteLength says {length}")
        data.append(content)
        kinds.append(kind)
    return data, kinds


def _decode_data_uri(uri: str, i: int) -> bytes:
    header, comma, payload = uri.partition(",")
    if not comma or not header.endswith(";base64"):
        raise MeshIOError(f"buffer {i}: data URI is not base64 encoded")
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as e:
        raise MeshIOError(f"buffer {i}: bad base64 data URI ({e})") from None


def _read_buffer_file(path: Path, uri: str, i: int, length: int) -> bytes:
    """A buffer's file: inside the model's folder (``inside_folder``), a
    regular file, and at most ``length`` bytes plus padding."""
    if urllib.parse.urlparse(uri).scheme:
        raise UnsupportedFormatError(f"buffer {i} uri {uri!r} is not a relative file path")
    try:
        file = inside_folder(_folder(path), urllib.parse.unquote(uri))
        return read_bytes(file, length + _BUFFER_PADDING, f"its byteLength {length} (+ up to 3 bytes of padding)")
    except MeshIOError as e:
        raise MeshIOError(f"buffer {i} ({uri!r}): {e}") from None


def _folder(path: Path) -> Path:
    """The folder a model's relative URIs start from: that of the file
    itself, at the end of any symbolic links (as writing puts buffers
    next to the file a link leads to)."""
    return Path(os.path.realpath(path)).parent


def _check_image_uris(gltf: Any, path: Path) -> None:
    """Image URIs must name files inside the model's folder, as buffers do
    (images are not read, but a written .gltf keeps pointing at them)."""
    for i, image in enumerate(gltf.images or []):
        uri = image.uri
        if uri is None or (isinstance(uri, str) and uri.startswith("data:")):
            continue
        if not isinstance(uri, str) or urllib.parse.urlparse(uri).scheme:
            raise UnsupportedFormatError(f"image {i} uri {uri!r} is not a relative file path")
        try:
            file = inside_folder(_folder(path), urllib.parse.unquote(uri))
        except MeshIOError as e:
            raise MeshIOError(f"image {i} ({uri!r}): {e}") from None
        if file.exists() and not file.is_file():
            raise MeshIOError(f"image {i} ({uri!r}) is not a regular file")


class _MeshReader:
    """Collects the faces of all primitives that have the UV set."""

    def __init__(self, gltf: Any, buffers: List[Optional[bytes]], uv_set: int) -> None:
        self.gltf = gltf
        self.buffers = buffers
        self.uv_set = uv_set
        self.uv_accessors: Dict[int, _UvAccessor] = {}
        self.n_rows = 0
        self.vertex_offsets: Dict[Any, int] = {}
        self.n_vertices = 0
        self.positions: List[np.ndarray] = []

    def mesh(self, path: Path, container: str) -> Mesh:
        """The Mesh of all primitives with the UV set (without its write-back state)."""
        attr = f"TEXCOORD_{self.uv_set}"
        faces: List[np.ndarray] = []
        mesh_faces: List[np.ndarray] = []
        groups: List[np.ndarray] = []
        names: List[str] = []
        skipped: List[str] = []
        for mi, mesh in enumerate(self.gltf.meshes or []):
            label = repr(mesh.name) if isinstance(mesh.name, str) else str(mi)
            for pi, prim in enumerate(mesh.primitives or []):
                where = f"mesh {label} primitive {pi}"
                try:
                    result = self._primitive(mi, pi, prim, attr)
                except MeshIOError as e:
                    raise type(e)(f"{where}: {e}") from None
                if isinstance(result, str):
                    skipped.append(f"{where}: {result}")
                    continue
                uv_tris, vertex_tris = result
                groups.append(np.full(len(uv_tris), len(names), dtype=np.int64))
                names.append(where)
                faces.append(uv_tris)
                mesh_faces.append(vertex_tris)
        if not names:
            raise MeshIOError(f"no primitive has {attr}" + (f" ({len(skipped)} skipped)" if skipped else ""))
        uv_tris = np.concatenate(faces)
        if len(uv_tris) == 0:
            raise MeshIOError(f"the primitives with {attr} have no triangles")
        return Mesh(
            path=path,
            format=container,
            uvs=np.concatenate([a.values for a in self.uv_accessors.values()]),
            faces=list(uv_tris),
            mesh_faces=list(np.concatenate(mesh_faces)),
            positions=np.concatenate(self.positions),
            face_groups=np.concatenate(groups),
            group_names=names,
            skipped_primitives=skipped,
            uv_step=max((1.0 / a.scale for a in self.uv_accessors.values() if a.scale), default=0.0),
        )

    def _primitive(self, mi: int, pi: int, prim: Any, attr: str) -> Any:
        """(uv triangles, vertex-id triangles) of a primitive, or the reason it is skipped."""
        if _DRACO in (prim.extensions or {}):
            raise UnsupportedFormatError(f"Draco-compressed primitives ({_DRACO}) are not supported")
        mode = 4 if prim.mode is None else prim.mode
        if mode not in _MODES:
            raise MeshIOError(f"invalid primitive mode {mode!r}")
        if mode < 4:
            return f"{_MODES[mode]} primitive (no faces)"
        uv_index = getattr(prim.attributes, attr, None)
        if uv_index is None:
            return f"no {attr}"
        uv = self._uv_accessor(uv_index, attr)
        n = len(uv.values)
        position = getattr(prim.attributes, "POSITION", None)
        if position is not None:
            count = _item(self.gltf.accessors, position, "POSITION accessor").count
            if count != n:
                raise MeshIOError(f"POSITION has {count!r} elements but {attr} has {n}")
            key: Any = position
        else:
            key = ("primitive", mi, pi)
        if prim.indices is None:
            indices = np.arange(n, dtype=np.int64)
        else:
            indices = self._indices(prim.indices, n)
        tris = _triangles(indices, mode)
        if key not in self.vertex_offsets:
            self.vertex_offsets[key] = self.n_vertices
            self.n_vertices += n
            self.positions.append(self._positions(position, n))
        return uv.start + tris, self.vertex_offsets[key] + tris

    def _positions(self, index: Any, n: int) -> np.ndarray:
        """(n, 3) float64 POSITION values; NaN rows when the primitive has
        none or they are not plain VEC3 floats (positions only serve texel
        density, so such a file still packs)."""
        acc = None if index is None else self.gltf.accessors[index]
        if acc is None or acc.type != "VEC3" or acc.componentType != 5126:
            return np.full((n, 3), np.nan)
        values = self._read(index, f"POSITION accessor {index}")[0].astype(np.float64)
        values[~np.isfinite(values).all(axis=1)] = np.nan
        return values

    def _uv_accessor(self, index: Any, attr: str) -> _UvAccessor:
        if isinstance(index, int) and index in self.uv_accessors:
            return self.uv_accessors[index]
        acc = _item(self.gltf.accessors, index, f"{attr} accessor")
        what = f"{attr} accessor {index}"
        if acc.type != "VEC2":
            raise MeshIOError(f"{what} has type {acc.type!r}, expected VEC2")
        normalized = bool(acc.normalized)
        key = (acc.componentType, normalized)
        if key not in _UV_SCALE:
            kind = _COMPONENT_NAME.get(acc.componentType, repr(acc.componentType))
            raise UnsupportedFormatError(
                f"{what} stores {'normalized ' if normalized else ''}{kind} UVs "
                "(a KHR_mesh_quantization layout that cannot be written back)"
            )
        stored, location = self._read(index, what)
        scale = _UV_SCALE[key]
        if scale is None:
            values = stored.astype(np.float64)
            if not np.isfinite(values).all():
                raise MeshIOError(f"{what} has non-finite values")
        else:
            values = np.maximum(stored / scale, -1.0)
        sparse_buffer = None
        if acc.sparse is not None:
            sparse_buffer = _item(self.gltf.bufferViews, acc.sparse.values.bufferView, "bufferView").buffer
        uv = _UvAccessor(
            index=index,
            start=self.n_rows,
            values=values,
            component=acc.componentType,
            scale=scale,
            buffer=location[0] if location else None,
            offset=location[1] if location else 0,
            stride=location[2] if location else 0,
            dense=location is not None and acc.sparse is None,
            sparse_buffer=sparse_buffer,
        )
        self.uv_accessors[index] = uv
        self.n_rows += len(values)
        return uv

    def _indices(self, index: Any, n_vertices: int) -> np.ndarray:
        acc = _item(self.gltf.accessors, index, "indices accessor")
        what = f"indices accessor {index}"
        if acc.type != "SCALAR" or acc.componentType not in _INDEX_TYPES:
            kind = _COMPONENT_NAME.get(acc.componentType, repr(acc.componentType))
            raise MeshIOError(f"{what} is {acc.type} {kind}, expected SCALAR unsigned integers")
        indices = self._read(index, what)[0][:, 0].astype(np.int64)
        if indices.size and indices.max() >= n_vertices:
            bad = int(indices.max())
            raise MeshIOError(f"{what}: vertex index {bad} out of range ({n_vertices} vertices)")
        return indices

    def _view(self, index: Any, what: str) -> Tuple[Any, bytes, int]:
        """(bufferView, its buffer's data, its byte offset) after bounds checks."""
        view = _item(self.gltf.bufferViews, index, f"{what}: bufferView")
        for name in _MESHOPT:
            if name in (view.extensions or {}):
                raise UnsupportedFormatError(f"meshopt-compressed data ({name}) is not supported")
        data = _item(self.buffers, view.buffer, f"bufferView {index}: buffer")
        if data is None:
            raise MeshIOError(f"bufferView {index} refers to buffer {view.buffer}, which has no data")
        offset = _int(view.byteOffset or 0, f"bufferView {index} byteOffset")
        length = _int(view.byteLength, f"bufferView {index} byteLength", 1)
        if offset + length > len(data):
            raise MeshIOError(f"bufferView {index} (bytes {offset} to {offset + length}) exceeds buffer "
                              f"{view.buffer} ({len(data)} bytes)")
        return view, data, offset

    def _read(self, index: int, what: str) -> Tuple[np.ndarray, Optional[Tuple[int, int, int]]]:
        """Stored values of an accessor, (count, components) in its component
        type with sparse substitution applied, and the (buffer, byte offset,
        stride) of its dense storage (None without a bufferView)."""
        acc = self.gltf.accessors[index]
        dtype = _COMPONENT.get(acc.componentType)
        ncomp = _N_COMPONENTS.get(acc.type)
        if dtype is None or ncomp is None:
            raise MeshIOError(f"{what} has an invalid componentType/type ({acc.componentType!r}, {acc.type!r})")
        count = _int(acc.count, f"{what} count", 1)
        element = dtype.itemsize * ncomp
        values = np.zeros((count, ncomp), dtype=dtype)
        location = None
        if acc.bufferView is not None:
            view, data, base = self._view(acc.bufferView, what)
            stride = element if view.byteStride is None else _int(view.byteStride, "byteStride", element)
            offset = _int(acc.byteOffset or 0, f"{what} byteOffset")
            need = offset + stride * (count - 1) + element
            if need > view.byteLength:
                raise MeshIOError(f"{what} needs {need} bytes of bufferView {acc.bufferView}, "
                                  f"which has {view.byteLength}")
            values[:] = np.ndarray((count, ncomp), dtype=dtype, buffer=data, offset=base + offset,
                                   strides=(stride, dtype.itemsize))
            location = (view.buffer, base + offset, stride)
        if acc.sparse is not None:
            self._apply_sparse(acc.sparse, values, what)
        return values, location

    def _apply_sparse(self, sparse: Any, values: np.ndarray, what: str) -> None:
        n = _int(sparse.count, f"{what} sparse count", 1)
        if sparse.indices is None or sparse.values is None:
            raise MeshIOError(f"{what}: sparse needs indices and values")
        index_type = _COMPONENT.get(sparse.indices.componentType)
        if sparse.indices.componentType not in _INDEX_TYPES:
            raise MeshIOError(f"{what}: sparse indices componentType {sparse.indices.componentType!r} is invalid")
        rows = self._packed(sparse.indices.bufferView, sparse.indices.byteOffset, index_type, (n,),
                            f"{what} sparse indices").astype(np.int64)
        if rows.max() >= len(values):
            raise MeshIOError(f"{what}: sparse index {int(rows.max())} out of range ({len(values)} elements)")
        values[rows] = self._packed(sparse.values.bufferView, sparse.values.byteOffset, values.dtype,
                                    (n, values.shape[1]), f"{what} sparse values")

    def _packed(self, view_index: Any, byte_offset: Any, dtype: np.dtype, shape: Tuple[int, ...],
                what: str) -> np.ndarray:
        """Tightly packed array from a bufferView (sparse indices and values)."""
        view, data, base = self._view(view_index, what)
        offset = _int(byte_offset or 0, f"{what} byteOffset")
        size = int(np.prod(shape)) * dtype.itemsize
        if offset + size > view.byteLength:
            raise MeshIOError(f"{what} needs {offset + size} bytes of bufferView {view_index}, "
                              f"which has {view.byteLength}")
        return np.frombuffer(data, dtype=dtype, count=int(np.prod(shape)), offset=base + offset).reshape(shape)


def _triangles(indices: np.ndarray, mode: int) -> np.ndarray:
    """(T, 3) triangles of a TRIANGLES, TRIANGLE_STRIP or TRIANGLE_FAN index list."""
    n = len(indices)
    if mode == 4:
        if n % 3:
            raise MeshIOError(f"TRIANGLES primitive has {n} indices, not a multiple of 3")
        return indices.reshape(-1, 3)
    i = np.arange(max(n - 2, 0))
    if mode == 5:  # strip: every other triangle flips to keep the winding
        odd = i % 2
        tris = np.stack([indices[i], indices[i + 1 + odd], indices[i + 2 - odd]], axis=1)
    else:  # fan
        tris = np.stack([indices[i + 1], indices[i + 2], np.full(len(i), indices[0] if n else 0)], axis=1)
    degenerate = (tris[:, 0] == tris[:, 1]) | (tris[:, 1] == tris[:, 2]) | (tris[:, 0] == tris[:, 2])
    return tris[~degenerate]


# --------------------------------------------------------------------------- writing


def write(mesh: Mesh, path: Path, uvs: Optional[np.ndarray] = None) -> None:
    """Write ``mesh`` back as glTF/GLB to ``path`` with ``uvs`` (default
    ``mesh.uvs``); see the module docstring for what changes."""
    src: _GltfSource = mesh._source
    new = checked_uvs(mesh, uvs)
    path = write_target(path)  # a link's target, so that its buffers land next to it
    doc = copy.deepcopy(src.doc)
    buffers: List[Any] = list(src.buffers)
    modified: Set[int] = set()  # buffers whose bytes changed
    grown: Set[int] = set()  # buffers that got a new bufferView appended
    for acc in src.accessors:
        values = new[acc.start:acc.start + len(acc.values)]
        if np.array_equal(values, acc.values):
            continue
        stored = _encode(values, acc, mesh.path)
        if acc.dense:
            target = acc.buffer
            buffers[target] = buf = _mutable(buffers[target])
            view = np.ndarray(stored.shape, dtype=stored.dtype, buffer=buf, offset=acc.offset,
                              strides=(acc.stride, stored.dtype.itemsize))
            view[:] = stored
        else:
            target = acc.sparse_buffer if acc.sparse_buffer is not None else _densify_target(src, acc, mesh.path)
            buffers[target] = _mutable(buffers[target])
            _densify(doc, acc.index, target, buffers[target], stored)
            grown.add(target)
        modified.add(target)
        _update_bounds(doc["accessors"][acc.index], stored)

    files: List[Tuple[Path, bytes]] = []
    n_files = 0
    for i, kind in enumerate(src.buffer_kind):
        entry = doc["buffers"][i]
        if i in grown:
            entry["byteLength"] = len(buffers[i])
        if kind == "file":
            name = f"{path.stem}.bin" if n_files == 0 else f"{path.stem}_{n_files}.bin"
            n_files += 1
            entry["uri"] = urllib.parse.quote(name)
            files.append((path.with_name(name), bytes(buffers[i])))
        elif kind == "data" and i in modified:
            header = src.doc["buffers"][i]["uri"].partition(",")[0]
            entry["uri"] = f"{header},{base64.b64encode(bytes(buffers[i])).decode('ascii')}"

    unchanged = doc == src.doc and not modified
    if src.container == "glb":
        if unchanged:
            main = src.raw
        else:
            glb_index = src.buffer_kind.index("glb") if "glb" in src.buffer_kind else None
            bin_data = None if glb_index is None else bytes(buffers[glb_index])
            main = _glb_bytes(json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8"),
                              bin_data, src.glb_extra_chunks)
    else:
        main = src.raw if unchanged else (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    atomic_write_many(files + [(path, main)])


def _mutable(data: Any) -> bytearray:
    return data if isinstance(data, bytearray) else bytearray(data)


def _densify_target(src: _GltfSource, acc: _UvAccessor, source: Path) -> int:
    """Buffer for the values of an accessor that had no storage at all (all
    zeros): the GLB binary chunk, else the first buffer with data."""
    for kind in ("glb", "file", "data"):
        if kind in src.buffer_kind:
            return src.buffer_kind.index(kind)
    raise ValueError(f"{source}: no buffer to store the new values of accessor {acc.index} in")


def _encode(values: np.ndarray, acc: _UvAccessor, source: Path) -> np.ndarray:
    """UVs in the accessor's storage type (float32, or rounded and clamped integers)."""
    dtype = _COMPONENT[acc.component]
    if acc.scale is None:
        if np.abs(values).max() > np.finfo(np.float32).max:
            raise ValueError(f"{source}: uvs too large for the float32 TEXCOORD accessor {acc.index}")
        return values.astype(dtype)
    low = 0.0 if dtype.kind == "u" else -acc.scale
    return np.clip(np.rint(values * acc.scale), low, acc.scale).astype(dtype)


def _densify(doc: Dict[str, Any], index: int, buffer: int, data: bytearray, stored: np.ndarray) -> None:
    """Store an accessor's values in a new bufferView at the end of ``buffer``
    and drop its ``sparse``: its elements 4-byte aligned, as vertex data needs."""
    element = stored.dtype.itemsize * stored.shape[1]
    stride = -(-element // 4) * 4
    data.extend(b"\0" * (-len(data) % 4))
    offset = len(data)
    block = np.zeros((len(stored), stride), dtype=np.uint8)
    block[:, :element] = np.ascontiguousarray(stored).view(np.uint8).reshape(len(stored), element)
    data.extend(block.tobytes())
    view: Dict[str, Any] = {"buffer": buffer, "byteOffset": offset, "byteLength": block.size}
    if stride != element:
        view["byteStride"] = stride
    doc.setdefault("bufferViews", []).append(view)
    accessor = doc["accessors"][index]
    accessor["bufferView"] = len(doc["bufferViews"]) - 1
    accessor.pop("byteOffset", None)
    accessor.pop("sparse", None)


def _update_bounds(accessor: Dict[str, Any], stored: np.ndarray) -> None:
    """Set ``min``/``max`` (if present) to the stored values (raw integers for normalized types)."""
    for key, reduce in (("min", np.min), ("max", np.max)):
        if key in accessor:
            accessor[key] = reduce(stored, axis=0).tolist()


def _glb_bytes(json_bytes: bytes, bin_data: Optional[bytes], extra: List[Tuple[int, bytes]]) -> bytes:
    """A GLB container: JSON chunk (space padded), BIN chunk (zero padded), other chunks."""
    chunks = [(_CHUNK_JSON, json_bytes + b" " * (-len(json_bytes) % 4))]
    if bin_data is not None:
        chunks.append((_CHUNK_BIN, bin_data + b"\0" * (-len(bin_data) % 4)))
    chunks += extra
    total = 12 + sum(8 + len(c) for _, c in chunks)
    parts = [struct.pack("<4sII", _GLB_MAGIC, 2, total)]
    for kind, content in chunks:
        parts += [struct.pack("<II", len(content), kind), content]
    return b"".join(parts)
