"""Mesh file input and output: Wavefront OBJ and glTF 2.0 (.gltf, .glb).

::

    from uvnest import io
    mesh = io.load("chair.obj")           # Mesh: uvs, faces, mesh_faces, ...
    io.save(mesh, "chair_packed.obj", uvs=new_uvs)

``load`` reads the texture coordinates and faces of a file; ``save`` writes
the same file again with new UVs and nothing else changed (OBJ: byte for
byte apart from the changed ``vt`` numbers; glTF: the same accessors are
rewritten in place, see ``uvnest.io.gltf``).  Every file is written
atomically: a failed or interrupted save leaves the target as it was.
Reading never modifies anything.

Errors (``uvnest.errors``): ``MeshIOError`` for files that cannot be read
(the one-line message names the file and the reason), ``UnsupportedFormatError``
(a subclass) for formats and features uvnest does not handle, both
subclasses of ``ValueError``, which ``save`` raises for bad arguments.  Reading
opens regular files only, and a glTF's buffers and images only inside its
folder (``uvnest.io.gltf``); writing through a symbolic link replaces the
file it leads to (``uvnest.io.atomic``).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Dict, Optional, Union

import numpy as np

from .atomic import atomic_open, atomic_write_bytes, atomic_write_many, unwritable, write_target
from .mesh import Mesh, MeshIOError, UnsupportedFormatError

__all__ = [
    "load",
    "save",
    "Mesh",
    "MeshIOError",
    "UnsupportedFormatError",
    "SUFFIXES",
    "atomic_open",
    "atomic_write_bytes",
    "atomic_write_many",
    "unwritable",
    "write_target",
]

PathLike = Union[str, "os.PathLike[str]"]

#: file suffix (lower case) -> format name
SUFFIXES: Dict[str, str] = {".obj": "obj", ".gltf": "gltf", ".glb": "glb"}


def _reader(fmt: str) -> Callable[[Path, int], Mesh]:
    if fmt == "obj":
        from .obj import read
    else:
        from .gltf import read
    return read


def _writer(fmt: str) -> Callable[[Mesh, Path, Optional[np.ndarray]], None]:
    if fmt == "obj":
        from .obj import write
    else:
        from .gltf import write
    return write


def load(path: PathLike, uv_set: int = 0) -> Mesh:
    """Read the UVs and faces of an OBJ, glTF or GLB file.

    ``uv_set`` selects the glTF ``TEXCOORD_<uv_set>`` attribute (OBJ files
    have only set 0).  The format is chosen by the file suffix.  Raises
    ``UnsupportedFormatError`` for other suffixes and unsupported features,
    ``MeshIOError`` for unreadable or corrupt files; messages start with the
    path.
    """
    p = Path(path)
    fmt = SUFFIXES.get(p.suffix.lower())
    if fmt is None:
        known = ", ".join(SUFFIXES)
        raise UnsupportedFormatError(f"{p}: unsupported file type {p.suffix or '(no suffix)'!r} (supported: {known})")
    if not isinstance(uv_set, (int, np.integer)) or isinstance(uv_set, bool) or uv_set < 0:
        raise ValueError(f"uv_set must be a non-negative integer, not {uv_set!r}")
    try:
        return _reader(fmt)(p, int(uv_set))
    except MeshIOError as e:
        raise type(e)(f"{p}: {e}") from None


def save(mesh: Mesh, path: PathLike, uvs: Optional[np.ndarray] = None) -> None:
    """Write ``mesh`` to ``path`` in its source format, with ``uvs`` if given.

    ``uvs`` must have the shape of ``mesh.uvs`` and be finite (else
    ``ValueError``); without it ``mesh.uvs`` is written.  Only the UVs
    change; the rest of the source file is kept.  ``path`` may be the source
    file itself; a suffix of another format (e.g. ``.glb`` for an OBJ mesh)
    is a ``ValueError``.  For ``.gltf`` the buffers are written next to
    ``path`` as ``<stem>.bin`` (see ``uvnest.io.gltf``).  Writes are atomic.
    """
    if not isinstance(mesh, Mesh) or mesh._source is None:
        raise ValueError("save needs a Mesh returned by uvnest.io.load (it writes back into the source file's data)")
    p = Path(path)
    target_fmt = SUFFIXES.get(p.suffix.lower())
    if target_fmt is not None and target_fmt != mesh.format:
        raise ValueError(f"cannot write a {mesh.format} mesh to {p} ({target_fmt}): save keeps the source format")
    _writer(mesh.format)(mesh, p, uvs)
