"""Face lists as compressed arrays, and UV arrays, validated once for every
entry point (errors: ``uvnest.errors.InputError`` naming the argument)."""
from __future__ import annotations

from typing import Sequence, Tuple, Union

import numpy as np

from .errors import InputError

FacesLike = Union[np.ndarray, Sequence[Sequence[int]]]

# The magnitudes of UV coordinates uvnest packs: island areas (squares of
# coordinates) and the scales between them must stay normal float64 numbers
# (1e-150 squared underflows, 1e155 squared times the margin arithmetic
# overflows).  Beyond them, scale the UVs first.
UV_MAGNITUDE_RANGE = (1e-140, 1e150)


def _integer_rows(faces, name: str) -> list:
    """The faces of a sequence of index sequences, each as a 1-D integer array."""
    try:
        rows = [np.asarray(f) for f in faces]
    except (TypeError, ValueError):
        raise InputError(f"{name} must be an (F, k) integer array or a list of index sequences", name) from None
    # rows come in a few dtypes: judge each dtype once (31,000 issubdtype
    # calls took a fifth of a second), then find the first bad row
    ok = {dt: np.issubdtype(dt, np.integer) for dt in {r.dtype for r in rows}}
    for i, r in enumerate(rows):
        if r.ndim != 1 or (r.size and not ok[r.dtype]):
            raise InputError(f"{name}: face {i} must be a sequence of integer indices, got {r.tolist()!r}", name)
    return rows


def faces_csr(faces: FacesLike, n_uvs: int, name: str = "faces") -> Tuple[np.ndarray, np.ndarray]:
    """Faces as ``(start, indices)`` int32 arrays: face ``f`` is
    ``indices[start[f]:start[f + 1]]``.

    ``faces`` is an ``(F, k)`` integer array or a sequence of index sequences
    (triangles, quads and n-gons mixed).  Raises an ``InputError`` that
    names ``name`` and the first bad face (wrong type, fewer than 3 corners,
    an index outside ``0 .. n_uvs - 1``).
    """
    if isinstance(faces, np.ndarray) and faces.ndim == 2:
        if not np.issubdtype(faces.dtype, np.integer):
            raise InputError(f"{name} must hold integers, not {faces.dtype}", name)
        f = np.ascontiguousarray(faces, dtype=np.int64)
        k = f.shape[1]
        if k < 3 and f.shape[0]:
            raise InputError(f"{name}: face 0 has {k} corner(s); a face needs at least 3", name)
        start = np.arange(0, f.shape[0] * k + 1, k, dtype=np.int64)
        idx = f.reshape(-1)
    else:
        if isinstance(faces, (str, bytes)) or faces is None:
            raise InputError(f"{name} must be an (F, k) integer array or a list of index sequences, "
                             f"not {type(faces).__name__}", name)
        rows = _integer_rows(faces, name)
        lens = np.fromiter((r.size for r in rows), dtype=np.int64, count=len(rows))
        start = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lens, out=start[1:])
        idx = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, dtype=np.int64)
    n_faces = start.size - 1
    if n_faces == 0:
        raise InputError(f"there are no faces ({name} is empty)", name)
    sizes = np.diff(start)
    short = np.flatnonzero(sizes < 3)
    if short.size:
        f = int(short[0])
        raise InputError(f"{name}: face {f} has {int(sizes[f])} corner(s); a face needs at least 3", name)
    bad = np.flatnonzero((idx < 0) | (idx >= n_uvs))
    if bad.size:
        f = int(np.searchsorted(start, bad[0], side="right") - 1)
        raise InputError(f"{name}: face {f} refers to index {int(idx[bad[0]])}, outside 0..{n_uvs - 1}", name)
    return start.astype(np.int32), idx.astype(np.int32)


def corners_of(start: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """The corner positions of the faces ``faces`` (face ``f`` has corners
    ``start[f] .. start[f + 1] - 1``), face after face."""
    sizes = start[faces + 1] - start[faces]
    return np.repeat(start[faces] - (np.cumsum(sizes) - sizes), sizes) + np.arange(int(sizes.sum()))


def check_uvs(uvs, name: str = "uvs", columns: int = 2) -> np.ndarray:
    """``uvs`` as a float64 ``(N, columns)`` array of real numbers, or an
    ``InputError`` naming ``name`` (complex numbers are refused, not cut
    to their real part)."""
    try:
        a = np.asarray(uvs)
    except ValueError:  # ragged nesting
        raise InputError(f"{name} must be a numeric (N, {columns}) array; its rows differ in length", name) from None
    if a.dtype == object or not (np.issubdtype(a.dtype, np.number) or a.dtype == bool) \
            or np.issubdtype(a.dtype, np.complexfloating):
        raise InputError(f"{name} must be a real (N, {columns}) array of numbers, not dtype {a.dtype}", name)
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 2 or a.shape[1] != columns:
        raise InputError(f"{name} must have shape (N, {columns}), got {a.shape}", name)
    return a


def check_finite(uvs: np.ndarray, start: np.ndarray, idx: np.ndarray) -> None:
    """Raise an ``InputError`` naming the first face that uses a NaN or
    infinite UV, or when the UVs the faces use lie outside
    ``UV_MAGNITUDE_RANGE`` (the largest magnitude among them; all zero is
    fine: every island is then a point).

    UVs no face refers to are not checked: files may carry unused junk.
    """
    if not np.isfinite(uvs).all():   # the common case passes without gathering every corner
        bad = np.flatnonzero(~np.isfinite(uvs[idx]).all(axis=1))
        if bad.size:
            f = int(np.searchsorted(start, bad[0], side="right") - 1)
            u = int(idx[bad[0]])
            raise InputError(f"uvs: face {f} uses UV {u}, which is not finite: {uvs[u].tolist()}", "uvs")
    magnitude = float(np.abs(uvs[idx]).max()) if idx.size else 0.0
    low, high = UV_MAGNITUDE_RANGE
    if magnitude > high or 0 < magnitude < low:
        raise InputError(f"uvs: the largest coordinate magnitude is {magnitude:.3g}; uvnest packs UVs whose "
                         f"largest magnitude lies from {low:g} to {high:g} (scale them into that range)", "uvs")
