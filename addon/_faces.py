"""Face lists as compressed arrays, validated once for every entry point."""
from __future__ import annotations

from typing import Sequence, Tuple, Union

import numpy as np

FacesLike = Union[np.ndarray, Sequence[Sequence[int]]]


def faces_csr(faces: FacesLike, n_uvs: int) -> Tuple[np.ndarray, np.ndarray]:
    """Faces as ``(start, indices)`` int32 arrays: face ``f`` is
    ``indices[start[f]:start[f + 1]]``.

    ``faces`` is an ``(F, k)`` integer array or a sequence of index sequences
    (triangles, quads and n-gons mixed).  Raises a ``ValueError`` or
    ``IndexError`` that names the first bad face.
    """
    if isinstance(faces, np.ndarray) and faces.ndim == 2:
        if not np.issubdtype(faces.dtype, np.integer):
            raise TypeError(f"faces must hold integers, not {faces.dtype}")
        f = np.ascontiguousarray(faces, dtype=np.int64)
        k = f.shape[1]
        if k < 3 and f.shape[0]:
            raise ValueError(f"face 0 has {k} corner(s); a face needs at least 3")
        start = np.arange(0, f.shape[0] * k + 1, k, dtype=np.int64)
        idx = f.reshape(-1)
    else:
        try:
            rows = [np.asarray(f) for f in faces]
        except TypeError:
            raise TypeError("faces must be an (F, k) integer array or a list of index sequences") from None
        for i, r in enumerate(rows):
            if r.ndim != 1 or (r.size and not np.issubdtype(r.dtype, np.integer)):
                raise TypeError(f"face {i} must be a sequence of integer indices")
        lens = np.fromiter((r.size for r in rows), dtype=np.int64, count=len(rows))
        start = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lens, out=start[1:])
        idx = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, dtype=np.int64)
    n_faces = start.size - 1
    if n_faces == 0:
        raise ValueError("there are no faces")
    sizes = np.diff(start)
    short = np.flatnonzero(sizes < 3)
    if short.size:
        f = int(short[0])
        raise ValueError(f"face {f} has {int(sizes[f])} corner(s); a face needs at least 3")
    bad = np.flatnonzero((idx < 0) | (idx >= n_uvs))
    if bad.size:
        f = int(np.searchsorted(start, bad[0], side="right") - 1)
        raise IndexError(f"face {f} refers to UV index {int(idx[bad[0]])}, outside 0..{n_uvs - 1}")
    return start.astype(np.int32), idx.astype(np.int32)


def check_uvs(uvs, name: str = "uvs") -> np.ndarray:
    """``uvs`` as a float64 ``(N, 2)`` array, or a clear error."""
    a = np.asarray(uvs)
    if a.dtype == object or not (np.issubdtype(a.dtype, np.number) or a.dtype == bool):
        raise TypeError(f"{name} must be a numeric (N, 2) array, not dtype {a.dtype}")
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 2 or a.shape[1] != 2:
        raise ValueError(f"{name} must have shape (N, 2), got {a.shape}")
    return a


def check_finite(uvs: np.ndarray, start: np.ndarray, idx: np.ndarray) -> None:
    """Raise a ``ValueError`` naming the first face that uses a NaN or infinite UV.

    UVs no face refers to are not checked: files may carry unused junk.
    """
    if np.isfinite(uvs).all():   # the common case, without gathering every corner
        return
    bad = np.flatnonzero(~np.isfinite(uvs[idx]).all(axis=1))
    if bad.size:
        f = int(np.searchsorted(start, bad[0], side="right") - 1)
        u = int(idx[bad[0]])
        raise ValueError(f"face {f} uses UV {u}, which is not finite: {uvs[u].tolist()}")
