"""xatlas (PyPI ``xatlas`` 0.0.11) as a benchmark peer: repack existing UV charts.

xatlas packs charts on a texel grid at a fixed ``texels_per_unit`` (tpu) and
opens more atlases when they do not fit; it has no scale search.  To get "the
largest scale at which everything fits in one tile", the peer searches tpu:
exponential bracketing, then bisection until the bracket is within
``TPU_RTOL``, keeping the largest tpu whose result has ``atlas_count == 1``.
The reported time is the whole search (that is what it costs to obtain the
layout); the last ``generate`` call alone is in ``info["last_call_seconds"]``.

Margin mapping (from xatlas's packer, and measured on squares and random
triangles): xatlas rasterises each chart conservatively (every texel the
chart touches), dilates that image by ``padding`` texels in all eight
directions, and places charts so that the dilated images do not overlap.
Two charts' rasters are thus at least ``2 * padding + 1`` texel indices
apart, so the charts themselves are at least ``2 * padding`` texels apart
(measured: exactly ``2 * padding + 1`` for axis-aligned edges).  For a
margin m the peer uses ``padding = max(1, round(m * 1024 / 2))`` and the
resolution ``R = round(2 * padding / m)``, so that ``2 * padding`` texels are
exactly m of the tile (m = 0.005: padding 3, R = 1200).  For m = 0: padding
0, R = 1024 (charts then keep up to one texel apart but never overlap).
``bilinear`` is off (it would add a texel); ``rotate_charts`` follows the
model's rotation freedom.

Whole-texel snapping: xatlas stretches each chart along the atlas axes to a
whole number of texels (measured: a 0.3 x 0.2 chart at 100 texels per unit
comes out 31 x 20 texels, at 101.3 as 31 x 21), which deforms islands by up
to a texel per axis.  The peer undoes that stretch per island (see
``_unstretch``) before the checker sees the layout, and reports the largest
stretch in ``info["max_texel_snap_stretch"]``; any other deformation is left
for the checker.  A search step where xatlas shrank a chart to make it fit
counts as "does not fit".

Input: faces are fan-triangulated, UVs scaled to a total area of 1 (xatlas
packs the same whatever the common scale, but decides degenerate faces with
absolute float32 epsilons; normalised by the model's extent instead, small
islands of the synthetic sets lost faces, left at the atlas origin - some
still do: sliver triangles of islands a few texels wide).  Output: the
per-new-vertex UVs divided by the atlas size come back through xatlas's
``xref`` (``vmapping``) to the model's UV indices; a vertex that xatlas split
(two new vertices of one original index placed apart) keeps the per-corner
layout in ``corner_uvs`` for the checker.
"""
from __future__ import annotations

import contextlib
import ctypes
import math
import os
import sys
import time
from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple

import numpy as np

from .checker import face_islands
from .common import Model, PackOutcome, corners_to_indices, repeat_timed

#: Resolution used to turn a margin into a whole number of padding texels.
BASE_RESOLUTION = 1024
#: Relative width of the final texels-per-unit bracket.
TPU_RTOL = 0.005
#: Largest number of ``generate`` calls in one search.
MAX_GENERATES = 40
#: Per-axis scale below ``1 - SHRINK_RTOL`` on a chart means xatlas shrank it (it did not fit).
SHRINK_RTOL = 1e-4
#: Charts smaller than this many texels are too coarse (float32 output) for the shrink test.
SHRINK_MIN_TEXELS = 10.0
#: Largest whole-texel snapping (texels added per axis) that is undone.
SNAP_TEXELS = 1.5
#: Distance between two corners of one UV index that still counts as one vertex.
SPLIT_TOL = 1e-6


def padding_and_resolution(margin: float) -> Tuple[int, int]:
    """xatlas ``(padding, resolution)`` whose guaranteed gap of ``2 * padding`` texels equals ``margin``."""
    if margin <= 0:
        return 0, BASE_RESOLUTION
    padding = max(1, round(margin * BASE_RESOLUTION / 2))
    return padding, int(round(2 * padding / margin))


@contextlib.contextmanager
def _quiet_c_stdout() -> Iterator[None]:
    """Silence C-level stdout for the block (xatlas prints ``ASSERT: ...`` lines for
    oversized charts, which it then shrinks; the search treats those as misfits)."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 1)
            try:
                yield
            finally:
                if os.name == "posix":
                    ctypes.CDLL(None).fflush(None)
                os.dup2(saved, 1)
    finally:
        os.close(saved)


def _area(uvs: np.ndarray, tris: np.ndarray) -> float:
    """Total (unsigned) area of triangles ``tris`` over points ``uvs``."""
    p = uvs[tris.astype(np.int64)]
    e1, e2 = p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]
    return float(np.abs(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]).sum() / 2)


def _corner_of_triangles(model: Model) -> np.ndarray:
    """For every face corner, the flat position (3 * triangle + k) of that corner in the fan triangulation."""
    n_tri = model.face_sizes - 2
    tri_start = np.concatenate([[0], np.cumsum(n_tri)[:-1]])
    corner_face = np.repeat(np.arange(model.n_faces), model.face_sizes)
    j = np.arange(model.face_idx.size) - model.face_start[:-1][corner_face]
    tri = tri_start[corner_face] + np.maximum(j - 2, 0)
    k = np.where(j == 0, 0, np.where(j == 1, 1, 2))
    return 3 * tri + k


def _axis_stretch(island: np.ndarray, n: int, a: np.ndarray,
                  b: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Per island, the per-axis scale of the best affine map ``a -> b`` (corner arrays).

    For a map ``D R`` (rotation, then an axis-aligned stretch D) the rows of
    the fitted matrix M have lengths D, so ``D = sqrt(diag(M M^T))``.  Returns
    ``(D (n, 2), ok (n,))``; ``ok`` is False where the fit is singular (all
    corners collinear) and D is then 1.
    """
    count = np.maximum(np.bincount(island, minlength=n), 1).astype(np.float64)
    mean_a = np.stack([np.bincount(island, a[:, k], n) for k in range(2)], axis=1) / count[:, None]
    mean_b = np.stack([np.bincount(island, b[:, k], n) for k in range(2)], axis=1) / count[:, None]
    da, db = a - mean_a[island], b - mean_b[island]
    saa = np.stack([np.stack([np.bincount(island, da[:, i] * da[:, j], n) for j in range(2)], axis=-1)
                    for i in range(2)], axis=-2)
    sba = np.stack([np.stack([np.bincount(island, db[:, i] * da[:, j], n) for j in range(2)], axis=-1)
                    for i in range(2)], axis=-2)
    det = saa[:, 0, 0] * saa[:, 1, 1] - saa[:, 0, 1] * saa[:, 1, 0]
    ok = det > 1e-9 * saa[:, 0, 0] * saa[:, 1, 1]
    inv = np.zeros_like(saa)
    inv[ok] = np.linalg.inv(saa[ok])
    m = sba @ inv
    d = np.ones((n, 2))
    d[ok] = np.sqrt(np.einsum("nij,nij->ni", m[ok], m[ok]))
    return d, ok


class _Search:
    """One model's tpu search: the model prepared for xatlas, and its island structure."""

    def __init__(self, model: Model, margin: float) -> None:
        self.tris = model.triangles().astype(np.uint32)
        # total area 1: xatlas decides in float32 with absolute epsilons, and tiny islands of a
        # model normalised by its extent lose faces as "degenerate" (seen on synthetic sets)
        raw_area = _area(model.uvs, self.tris)
        self.unit = 1.0 / math.sqrt(raw_area) if raw_area > 0 else 1.0
        self.unit_uvs = (model.uvs - model.uvs.min(axis=0)) * self.unit
        self.uvs = self.unit_uvs.astype(np.float32)
        self.padding, self.resolution = padding_and_resolution(margin)
        self.rotate = model.rotation == "any"
        self.area = max(_area(self.unit_uvs, self.tris), 1e-12)
        island_of_face, self.n_islands = face_islands(model.face_sizes, model.face_idx, len(model.uvs))
        self.island = np.repeat(island_of_face, model.face_sizes)
        self.face_idx = model.face_idx
        self.corner_order = _corner_of_triangles(model)
        self.generates = 0
        self.last_call = 0.0

    def generate(self, tpu: float) -> Optional[Layout]:
        """Pack at ``tpu``; the layout, or None unless every chart landed unshrunk in one R x R atlas.

        The layout's corner UVs have xatlas's whole-texel stretch undone
        (see :func:`_unstretch`).
        """
        import xatlas

        atlas = xatlas.Atlas()
        atlas.add_uv_mesh(self.uvs, self.tris)
        opts = xatlas.PackOptions()
        opts.bruteForce = True
        opts.bilinear = False
        opts.padding = self.padding
        opts.resolution = self.resolution
        opts.texels_per_unit = float(tpu)
        opts.rotate_charts = self.rotate
        opts.rotate_charts_to_axis = self.rotate
        with _quiet_c_stdout():
            t0 = time.perf_counter()
            atlas.generate(pack_options=opts)
            self.last_call = time.perf_counter() - t0
        self.generates += 1
        if atlas.atlas_count != 1 or max(atlas.width, atlas.height) > self.resolution:
            # more than one atlas, or a chart too big for the tile (xatlas then grows the atlas)
            return None
        vmapping, indices, uvs = atlas[0]
        if indices.shape != self.tris.shape or not np.array_equal(vmapping[indices], self.tris):
            raise RuntimeError("xatlas changed the triangles (cannot map its UVs back)")
        # the binding divides by the atlas size; rescale to the R x R tile
        uvs = uvs.astype(np.float64) * (np.array([atlas.width, atlas.height], dtype=np.float64)
                                        / self.resolution)
        corners = uvs[indices].reshape(-1, 2)[self.corner_order]
        expected = self.unit_uvs[self.face_idx] * (tpu / self.resolution)
        d, ok = _axis_stretch(self.island, self.n_islands, expected, corners)
        bmin = np.full((self.n_islands, 2), np.inf)
        bmax = np.full((self.n_islands, 2), -np.inf)
        np.minimum.at(bmin, self.island, corners)
        np.maximum.at(bmax, self.island, corners)
        size = (bmax - bmin) * self.resolution  # texels
        big = ok & (size.max(axis=1) > SHRINK_MIN_TEXELS)
        if (d[big] < 1.0 - SHRINK_RTOL).any():
            return None  # xatlas silently shrank a chart that did not fit: not a fit at this tpu
        fixed, stretch = _unstretch(self.island, corners, d, ok, bmin, size)
        return Layout(tpu, fixed, stretch)

    def run(self) -> Layout:
        """The layout at the largest tpu (within ``TPU_RTOL``) that fits one atlas."""
        tpu = self.resolution * math.sqrt(0.5 / self.area)
        best: Optional[Layout] = None
        lo, hi = 0.0, math.inf
        while self.generates < MAX_GENERATES:
            layout = self.generate(tpu)
            if layout is not None:
                lo = tpu
                if best is None or tpu > best.tpu:
                    best = layout
            else:
                hi = tpu
            if math.isinf(hi):
                tpu *= 2.0
            elif lo == 0.0:
                tpu /= 2.0
            elif hi / lo <= 1.0 + TPU_RTOL:
                break
            else:
                tpu = math.sqrt(lo * hi)
        if best is None:
            raise RuntimeError(f"no texels_per_unit fits one atlas after {self.generates} calls")
        return best


@dataclass
class Layout:
    """An xatlas layout at ``tpu``: per-corner UVs in the unit tile, and the largest stretch undone."""

    tpu: float
    corner_uvs: np.ndarray
    stretch: float


def _unstretch(island: np.ndarray, corners: np.ndarray, d: np.ndarray, ok: np.ndarray,
               bmin: np.ndarray, size: np.ndarray) -> Tuple[np.ndarray, float]:
    """Undo xatlas's snapping of each chart's extent to whole texels.

    xatlas stretches every chart along the atlas axes so that its width and
    height are whole texels (up to a texel per axis: 5 % on a 20-texel
    chart), which changes the island's shape.  Where the fitted per-axis
    scale ``d`` (see :func:`_axis_stretch`) is such a stretch - at least 1,
    adding at most ``SNAP_TEXELS`` texels - the island's corners are shrunk
    by ``1 / d`` towards its bounding-box minimum, which xatlas keeps fixed.
    Anything else (a collapsed or otherwise deformed chart) is left for the
    checker to see.  ``bmin`` and ``size`` (texels) are the islands' output
    bounding boxes.  Returns the corners and the largest stretch undone
    (``max d - 1``).
    """
    n = d.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):   # d = 0: a collapsed chart, never a snap
        added = (1.0 - 1.0 / d) * size
    snap = ok & (d >= 1.0 - 1e-9).all(axis=1) & (added <= SNAP_TEXELS).all(axis=1)
    factor = np.where(snap[:, None], d, 1.0)
    fixed = bmin[island] + (corners - bmin[island]) / factor[island]
    return fixed, float((factor - 1.0).max()) if n else 0.0


def pack_with_xatlas(model: Model, run_margin: float, max_repeats: int = 5,
                     repeat_budget: float = 2.0) -> PackOutcome:
    """Pack ``model`` with xatlas into one tile at the largest scale found by the tpu search.

    The search is repeated (for a median time) while it is short, see
    :func:`common.repeat_timed`.  Errors become an outcome with status
    "error".
    """
    margin = model.effective_margin(run_margin)
    searches: List[_Search] = []

    def one_search() -> Layout:
        search = _Search(model, margin)
        searches.append(search)
        return search.run()

    try:
        layout, times, memory = repeat_timed(one_search, max_repeats, repeat_budget)
    except (RuntimeError, ValueError) as exc:
        return PackOutcome("xatlas", model.name, None, float("nan"), status="error", message=str(exc))
    search = searches[-1]
    uvs, spread = corners_to_indices(model.face_idx, layout.corner_uvs, len(model.uvs))
    info = {"texels_per_unit": layout.tpu, "padding": search.padding, "resolution": search.resolution,
            "generate_calls": search.generates, "last_call_seconds": search.last_call,
            "repeats": len(times), "max_texel_snap_stretch": layout.stretch,
            "vertex_split": spread if spread > SPLIT_TOL else 0.0}
    return PackOutcome("xatlas", model.name, uvs, float(np.median(times)), times=times,
                       corner_uvs=layout.corner_uvs if spread > SPLIT_TOL else None,
                       peak_rss_mb=memory.peak_mb, extra_rss_mb=memory.extra_mb, info=info)
