"""Data shared by every part of the benchmark: one packing input and one packer's answer.

A model's faces are stored in CSR form - ``face_sizes`` (corners per face) and
``face_idx`` (the UV index of every corner, face after face) - because that is
what every consumer needs: shapely wants flat coordinate arrays, Blender wants
loop arrays, xatlas wants triangles, and the ``.npz`` hand-over to the Blender
process wants plain arrays.  ``Model.faces`` gives the list-of-arrays form that
``uvnest.pack`` takes.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Sequence, Tuple, TypeVar, Union

import numpy as np

T = TypeVar("T")

#: Rotation freedom of a model: "any" angle, or "none" (keep the given orientation).
ROTATIONS = ("any", "none")


@dataclass
class Model:
    """One packing problem: islands given as indexed UVs and faces.

    ``margin`` overrides the run's margin when set (puzzles use 0);
    ``optimum`` is the best coverage known to be reachable (puzzles: 1.0), or
    ``None`` when unknown.
    """

    name: str
    kind: str  # "homedecor", "puzzle" or "synthetic"
    uvs: np.ndarray  # (N, 2) float64
    face_sizes: np.ndarray  # (F,) int64, corners per face (>= 3)
    face_idx: np.ndarray  # (C,) int64, UV index per corner
    rotation: str = "any"
    margin: Optional[float] = None
    optimum: Optional[float] = None
    source: str = ""

    def __post_init__(self) -> None:
        self.uvs = np.ascontiguousarray(self.uvs, dtype=np.float64).reshape(-1, 2)
        self.face_sizes = np.ascontiguousarray(self.face_sizes, dtype=np.int64)
        self.face_idx = np.ascontiguousarray(self.face_idx, dtype=np.int64)
        if self.rotation not in ROTATIONS:
            raise ValueError(f"rotation must be one of {ROTATIONS}, not {self.rotation!r}")
        if int(self.face_sizes.sum()) != self.face_idx.size:
            raise ValueError("face_sizes do not add up to the number of corners")
        if self.face_sizes.size and self.face_sizes.min() < 3:
            raise ValueError("every face needs at least 3 corners")
        if self.face_idx.size and (self.face_idx.min() < 0 or self.face_idx.max() >= len(self.uvs)):
            raise ValueError("face index out of range")

    @classmethod
    def from_faces(cls, name: str, kind: str, uvs: np.ndarray, faces: Sequence[Union[Sequence[int], np.ndarray]],
                   **kwargs: Any) -> "Model":
        """Build a model from a list of faces (each a sequence of UV indices)."""
        sizes = np.fromiter((len(f) for f in faces), dtype=np.int64, count=len(faces))
        idx = (np.concatenate([np.asarray(f, dtype=np.int64) for f in faces])
               if len(faces) else np.zeros(0, dtype=np.int64))
        return cls(name=name, kind=kind, uvs=uvs, face_sizes=sizes, face_idx=idx, **kwargs)

    @property
    def face_start(self) -> np.ndarray:
        """(F+1,) offsets of each face's corners in ``face_idx``."""
        start = np.zeros(self.face_sizes.size + 1, dtype=np.int64)
        np.cumsum(self.face_sizes, out=start[1:])
        return start

    @property
    def faces(self) -> List[np.ndarray]:
        """Faces as a list of UV-index arrays (the form ``uvnest.pack`` takes)."""
        return np.split(self.face_idx, self.face_start[1:-1]) if self.face_sizes.size else []

    @property
    def n_faces(self) -> int:
        """Number of faces."""
        return int(self.face_sizes.size)

    def triangles(self) -> np.ndarray:
        """(T, 3) fan triangulation of every face (n-gons split from their first corner)."""
        start = self.face_start[:-1]
        n_tri = self.face_sizes - 2
        face_of_tri = np.repeat(np.arange(self.n_faces), n_tri)
        k = np.arange(int(n_tri.sum())) - np.repeat(np.cumsum(n_tri) - n_tri, n_tri)
        first = self.face_idx[start[face_of_tri]]
        second = self.face_idx[start[face_of_tri] + k + 1]
        third = self.face_idx[start[face_of_tri] + k + 2]
        return np.stack([first, second, third], axis=1)

    def effective_margin(self, run_margin: float) -> float:
        """The margin this model is packed with: its own override, else the run's."""
        return run_margin if self.margin is None else self.margin


@dataclass
class PackOutcome:
    """One packer's answer on one model, before checking.

    ``uvs`` is (N, 2) in the model's UV indexing (``None`` when the packer
    failed or timed out).  ``corner_uvs`` is set only when the packer moved
    corners that share a UV index to different places (it split a vertex), so
    that the per-index form cannot hold its layout; the checker then uses it.
    ``seconds`` is the median wall time of the packing call over ``repeats``
    runs; ``times`` holds every run.
    """

    packer: str
    model: str
    uvs: Optional[np.ndarray]
    seconds: float
    times: List[float] = field(default_factory=list)
    status: str = "ok"  # "ok", "timeout", "error", "skipped"
    message: str = ""
    corner_uvs: Optional[np.ndarray] = None
    peak_rss_mb: Optional[float] = None
    extra_rss_mb: Optional[float] = None
    info: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when the packer returned a layout."""
        return self.status == "ok" and self.uvs is not None


def corners_to_indices(face_idx: np.ndarray, corner_uvs: np.ndarray, n_uvs: int) -> Tuple[np.ndarray, float]:
    """Fold per-corner UVs back onto UV indices.

    Returns ``(uvs, spread)``: ``uvs[i]`` is the UV of the first corner that
    uses index ``i`` (NaN for indices no corner uses) and ``spread``
    is the largest distance between two corners that share an index (0 when
    the packer kept every shared vertex whole).
    """
    out = np.full((n_uvs, 2), np.nan)
    order = np.argsort(face_idx, kind="stable")
    idx_sorted = face_idx[order]
    first = np.ones(idx_sorted.size, dtype=bool)
    first[1:] = idx_sorted[1:] != idx_sorted[:-1]
    out[idx_sorted[first]] = corner_uvs[order[first]]
    spread = (float(np.max(np.linalg.norm(corner_uvs - out[face_idx], axis=1)))
              if face_idx.size else 0.0)
    return out, spread


def _status_mb(field: str) -> Optional[float]:
    """A ``kB`` field of ``/proc/self/status`` in MB (None off Linux)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


class PeakMemory:
    """Peak resident memory of this process during a ``with`` block (Linux).

    Resets the kernel's high-water mark (``/proc/self/clear_refs`` 5) on
    entry and reads ``VmHWM`` on exit: ``peak_mb`` is the process's peak RSS
    during the block, ``extra_mb`` that peak minus the RSS on entry.  Both
    stay ``None`` where ``/proc`` is not available or not writable.
    """

    def __init__(self) -> None:
        self.peak_mb: Optional[float] = None
        self.extra_mb: Optional[float] = None
        self._before: Optional[float] = None
        self._armed = False

    def __enter__(self) -> "PeakMemory":
        self._before = _status_mb("VmRSS")
        try:
            with open("/proc/self/clear_refs", "w") as fh:
                fh.write("5")
            self._armed = True
        except OSError:
            self._armed = False
        return self

    def __exit__(self, *exc: object) -> None:
        if self._armed and self._before is not None:
            self.peak_mb = _status_mb("VmHWM")
            if self.peak_mb is not None:
                self.extra_mb = max(0.0, self.peak_mb - self._before)


def repeat_timed(call: Callable[[], T], max_repeats: int, budget: float) -> Tuple[T, List[float], PeakMemory]:
    """Run ``call`` until ``max_repeats`` runs or ``budget`` seconds in total, whichever first.

    Returns the last result, the wall time of every run (``perf_counter``
    around the call only) and the peak memory over all runs.  Short calls are
    thus repeated for a median; a call longer than the budget runs once.
    """
    times: List[float] = []
    memory = PeakMemory()
    with memory:
        while True:
            t0 = time.perf_counter()
            result = call()
            times.append(time.perf_counter() - t0)
            if len(times) >= max_repeats or sum(times) >= budget:
                return result, times, memory
