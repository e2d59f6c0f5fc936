"""The final check of :class:`uvnest.packing.Packer`: no layout is handed
out before it passed.

On top of the engine's exact check of the placed shapes (margin and
target), every output UV of every moved island must lie in its placed
shape and in the target less the padding, within :data:`FINAL_TOLERANCE`;
layouts made outside the engine (snapped to a texel grid, power-of-two
squares) and the islands of a group layout are checked again, exactly, at
the requested margin.  A layout that fails raises RuntimeError (an engine
bug).

:class:`FinalCheck` is a base of ``Packer`` and not used alone: it reads
the packer's ``_opt``, ``_shapes``, ``_units``, ``_moving``, ``_prescale``,
``_fixed_shapes``, ``_clustered``, ``_flat`` and ``_engine_target()``.
"""
from __future__ import annotations

from typing import List

import numpy as np

from . import _core, tiles as _tiles
from .group_layout import check_islands
from .results import IslandTransform, apply_transform, compose_transforms

__all__ = ["FINAL_TOLERANCE", "FinalCheck"]

#: The final check's tolerance, relative to the target's size: a returned
#: layout keeps the margin and the target (less the padding) on every face,
#: vertex and edge within this (the engine's exact check allows two grid
#: steps of its grid, 2**-26 of the layout's extent).
FINAL_TOLERANCE = 2.0 ** -26


class FinalCheck:
    """The exact checks a :class:`uvnest.Packer` runs on every layout before
    handing it out (see the module's docstring)."""

    def _check_islands(self, cluster_transforms: List[IslandTransform]) -> None:
        """The exact check of every moved island of a group layout at the
        requested margin (``group_layout='together'``): each unit the
        clusters were made of (an island, or a stack of similar ones) where
        its cluster's transform (``cluster_transforms``, per unit) took it."""
        o = self._opt
        units, cluster_of, motions = self._clustered
        placed = [[apply_transform(compose_transforms(cluster_transforms[self._moving[c]], m), r) for r in isl.outline]
                  for isl, c, m in zip(units, cluster_of, motions)]
        x0, y0, x1, y1 = self._engine_target()
        check_islands(placed, self._fixed_shapes, o.check_margin,
                      (x0 + o.padding, y0 + o.padding, x1 - o.padding, y1 - o.padding))

    def _check_output(self, uvs: np.ndarray, angle, flip, scale, trans, bins) -> None:
        """The final check on what is returned, on top of the engine's exact
        check of the placed shapes (margin and target): every output UV of
        every moved island lies in its placed shape (which holds its faces,
        needles and collapsed islands too) and in the target less the
        padding, within ``FINAL_TOLERANCE`` of the target's size.  Raises
        RuntimeError (an engine bug) rather than hand the layout out."""
        o = self._opt
        flat = self._flat_shapes()
        ring_xy, ring_start, poly_ring, point_island, uv_index, uv_start = flat
        n = len(self._moving)
        k = scale / self._prescale
        c, s, f = np.cos(angle), np.sin(angle), np.where(np.asarray(flip, bool), -1.0, 1.0)
        x, y = ring_xy[:, 0] * f[point_island], ring_xy[:, 1]
        placed = np.column_stack([k[point_island] * (c[point_island] * x - s[point_island] * y) + trans[point_island, 0],
                                  k[point_island] * (s[point_island] * x + c[point_island] * y) + trans[point_island, 1]])
        pts = uvs[uv_index] * np.array(o.aspect)
        x0, y0, x1, y1 = self._engine_target()
        tol = FINAL_TOLERANCE * max(x1 - x0, y1 - y0)
        bad = _core.validate_holds(placed, ring_start, poly_ring, n, pts, uv_start, tol)
        if bad < 0 and pts.size:
            # every UV in the target (less the padding), in its own tile
            origin = np.zeros((n, 2))
            if o.fixed:
                tiles = np.array(o.tiles, dtype=np.int64)[np.asarray(bins, dtype=np.int64)]
                origin = np.array([_tiles.udim_origin(t) for t in tiles], dtype=np.float64).reshape(-1, 2) * o.aspect
            nonempty = np.flatnonzero(np.diff(uv_start) > 0)
            lo = np.minimum.reduceat(pts, uv_start[nonempty], axis=0) - origin[nonempty]
            hi = np.maximum.reduceat(pts, uv_start[nonempty], axis=0) - origin[nonempty]
            out = ((lo < np.array([x0, y0]) + o.padding - tol) | (hi > np.array([x1, y1]) - o.padding + tol)).any(axis=1)
            if out.any():
                bad = int(nonempty[np.flatnonzero(out)[0]])
        if bad >= 0:
            raise RuntimeError(f"internal error: the layout failed the final check of its output (island "
                               f"{int(self._moving[bad])}); please report this input")

    def _flat_shapes(self):
        """The moving islands' shapes and output UV indices as flat arrays
        for ``_check_output`` (built once): ring points, ring and polygon
        offsets, per point its moving island; UV indices and their offsets."""
        if self._flat is None:
            # one pass over 100,000 islands takes a tenth of a second: no more
            rings = [r for shape in self._shapes for r in shape]
            ring_len = np.fromiter(map(len, rings), dtype=np.int64, count=len(rings))
            ring_start = np.concatenate(([0], np.cumsum(ring_len))).astype(np.int32)
            poly_ring = np.concatenate(([0], np.cumsum(np.fromiter(map(len, self._shapes), dtype=np.int64,
                                                                     count=len(self._shapes))))).astype(np.int32)
            point_island = np.repeat(np.arange(len(self._shapes)), np.diff(ring_start[poly_ring]))
            uv_lists = [self._units[i].uv_indices for i in self._moving]
            uv_len = np.fromiter((u.size for u in uv_lists), dtype=np.int64, count=len(uv_lists))
            uv_start = np.concatenate(([0], np.cumsum(uv_len))).astype(np.int32)
            self._flat = (np.concatenate(rings), ring_start, poly_ring, point_island,
                          np.concatenate(uv_lists).astype(np.int64), uv_start)
        return self._flat

    def _check_layout(self, angle, flip, scale, trans, bins) -> None:
        """Exact check of a layout made outside the engine (snapped, or
        power-of-two) at the requested margin (and, with block_align, the
        block diagonal), tile by tile."""
        o = self._opt
        x0, y0, x1, y1 = self._engine_target()
        box = (x0 + o.padding, y0 + o.padding, x1 - o.padding, y1 - o.padding)
        bins = np.asarray(bins)
        for b in np.unique(bins):
            members = np.flatnonzero(bins == b)
            polys = []
            for j in members:
                t = IslandTransform(float(angle[j]), bool(flip[j]), (float(trans[j, 0]), float(trans[j, 1])),
                                    float(scale[j] / self._prescale[j]))
                polys.append([apply_transform(t, r) for r in self._shapes[j]])
            fixed = self._fixed_shapes if b == 0 else []
            bad_a, bad_b = _core.validate(polys + fixed, len(fixed), o.check_margin, box)
            if bad_a >= 0:
                raise RuntimeError(f"internal error: a snapped layout failed its check (islands {bad_a} and {bad_b} "
                                   "of a tile); please report this input")
