"""The in-memory mesh that ``uvnest.io`` reads and writes, and its errors."""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, List, Optional

import numpy as np

from ..errors import MeshIOError, UnsupportedFormatError
from .atomic import file_kind

__all__ = ["Mesh", "MeshIOError", "UnsupportedFormatError", "MAX_FILE_BYTES"]

#: The largest file (mesh or glTF buffer) uvnest reads, in bytes: a larger
#: one is refused instead of filling the memory (parsing needs several times
#: a file's size).
MAX_FILE_BYTES = 2**31


@dataclass(eq=False, repr=False)
class Mesh:
    """UVs and faces of a mesh file, plus what is needed to write it back.

    ``uvs`` holds one row per stored texture coordinate (an OBJ ``vt`` line,
    a glTF TEXCOORD accessor element) and ``faces`` index those rows.  Faces
    that have no texture coordinates are not in ``faces``.

    Attributes:
        path: the file the mesh was read from.
        format: ``'obj'``, ``'gltf'`` or ``'glb'``.
        uvs: ``(N, 2)`` float64 texture coordinates (u, v).
        faces: per face an int64 array of row indices into ``uvs``
            (triangles, quads and n-gons).
        mesh_faces: per face the position (vertex) ids of its corners, with
            the same shapes as ``faces``: faces that share a mesh edge share
            these ids even where their UVs are stored per corner.
        positions: ``(V, 3)`` float64 vertex positions indexed by
            ``mesh_faces`` (OBJ ``v`` lines; glTF POSITION in mesh space,
            without node transforms), or None when the file has none usable.
            Rows of glTF primitives without POSITION are NaN.
        face_groups: per face an int key (OBJ: object/group/material
            combination; glTF: primitive ordinal), indexing ``group_names``.
        group_names: readable name of each group key.
        skipped_faces: faces dropped because they have no texture coordinates.
        skipped_primitives: glTF primitives that were not read, each with the
            reason (no such TEXCOORD set, points or lines).
        uv_step: spacing of the grid the file stores UVs on (normalized
            integer glTF UVs: 1/255, 1/65535, ...; 0 for float storage).
            Written UVs are rounded to it, so each coordinate may move by
            half of it.
    """

    path: Path
    format: str
    uvs: np.ndarray
    faces: List[np.ndarray]
    mesh_faces: Optional[List[np.ndarray]] = None
    positions: Optional[np.ndarray] = None
    face_groups: Optional[np.ndarray] = None
    group_names: List[str] = field(default_factory=list)
    skipped_faces: int = 0
    skipped_primitives: List[str] = field(default_factory=list)
    uv_step: float = 0.0
    _source: Any = field(default=None, repr=False)

    def __repr__(self) -> str:
        return (f"Mesh(path={str(self.path)!r}, format={self.format!r}, uvs={len(self.uvs)} rows, "
                f"faces={len(self.faces)}, groups={len(self.group_names)}, skipped_faces={self.skipped_faces}, "
                f"skipped_primitives={len(self.skipped_primitives)})")

    def face_array(self) -> Optional[np.ndarray]:
        """``faces`` as one ``(F, k)`` int64 array when every face has ``k``
        corners; ``None`` when face sizes differ or there are no faces."""
        if not self.faces:
            return None
        k = len(self.faces[0])
        if any(len(f) != k for f in self.faces):
            return None
        return np.stack(self.faces).astype(np.int64, copy=False)


def checked_uvs(mesh: Mesh, uvs: Any) -> np.ndarray:
    """The UVs to write: ``uvs`` (or ``mesh.uvs`` when None) as float64,
    after checking shape and finiteness (``ValueError`` naming the problem)."""
    if uvs is None:
        uvs = mesh.uvs
    arr = np.asarray(uvs)
    if arr.shape != mesh.uvs.shape:
        raise ValueError(f"uvs has shape {arr.shape}, expected {mesh.uvs.shape} (the mesh's UV rows)")
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"uvs must be real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    bad = ~np.isfinite(arr)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        raise ValueError(f"uvs has {int(bad.sum())} non-finite values (first in row {row}: {arr[row].tolist()})")
    return arr


def read_bytes(path: Path, limit: int = MAX_FILE_BYTES, limit_name: str = "") -> bytes:
    """The content of the regular file ``path``, at most ``limit`` bytes.

    ``MeshIOError`` with the reason for anything else: a file that cannot be
    opened, a FIFO, device, socket or folder (checked before opening and
    again on the open file, which is opened without blocking so that a FIFO
    cannot stall the read), or a file larger than ``limit`` (``limit_name``
    says where the limit comes from).
    """
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise MeshIOError(f"cannot read: {file_kind(mode)}, not a regular file")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as e:
        raise MeshIOError(f"cannot read: {e.strerror or e}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise MeshIOError(f"cannot read: {file_kind(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise MeshIOError(f"is {info.st_size} bytes, more than {limit_name or f'the {limit} allowed'}")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(info.st_size)  # a file growing meanwhile is read as it was
    except OSError as e:
        raise MeshIOError(f"cannot read: {e.strerror or e}") from None
    finally:
        os.close(fd)


def inside_folder(folder: Path, relative: str) -> Path:
    """``folder / relative`` when it stays inside ``folder``, else ``MeshIOError``.

    ``relative`` is a path with ``/`` (or ``\\``) separators as it comes from a
    file: absolute paths, drive letters, ``..`` components and NUL bytes are
    refused, and so is a path whose real location (symbolic links followed)
    leaves the real location of ``folder``.  The file need not exist.
    """
    parts = relative.replace("\\", "/").split("/")
    if not relative or "\0" in relative:
        raise MeshIOError(f"{relative!r} is not a file name")
    if relative[0] in "/\\" or relative[1:2] == ":" or ".." in parts:
        raise MeshIOError(f"{relative!r} is outside the model's folder (only paths inside it are read)")
    root = os.path.realpath(folder)
    real = os.path.realpath(os.path.join(root, *[p for p in parts if p not in ("", ".")]))
    if real == root or os.path.commonpath([root, real]) != root:
        raise MeshIOError(f"{relative!r} leads outside the model's folder (to {real}); only files inside it are read")
    return Path(real)
