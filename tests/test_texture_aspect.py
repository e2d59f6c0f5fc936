"""Non-square textures (issue 31, point 2): packing in texel space.

With ``texture_size=(W, H)`` and W != H, islands must keep their shape in
texels, ``margin_px`` and ``padding`` must hold on both axes, and
``pixel_perfect`` / ``block_align`` must snap to the texel grid.  The oracle is
tests/pack_checker.py run on the layout in pixel coordinates (uv * (W, H)):
there the transforms must be similarities (rigid in pixels), the gaps at
least ``margin_px`` and the islands inside the W x H texture.
"""
from __future__ import annotations

import math
from typing import Tuple

import numpy as np
import pytest

import uvnest
from tests.pack_checker import assert_valid, in_pixels


def turned_boxes(count: int, seed: int) -> Tuple[np.ndarray, list]:
    """Rectangles of random aspect, each turned by a random angle, on a grid."""
    rng = np.random.default_rng(seed)
    uvs, faces = [], []
    for k in range(count):
        w, h = rng.uniform(0.05, 0.3, 2)
        a = rng.uniform(0, 2 * math.pi)
        c, s = math.cos(a), math.sin(a)
        box = np.array([[0, 0], [w, 0], [w, h], [0, h]]) @ np.array([[c, s], [-s, c]])
        faces.append(list(range(len(uvs) * 4, len(uvs) * 4 + 4)))
        uvs.append(box + [k % 4 * 0.6, k // 4 * 0.6])   # apart: a box's diagonal is < 0.43
    return np.concatenate(uvs), faces


@pytest.mark.parametrize("size", [(2048, 1024), (512, 2048), (1024, 1024)])
@pytest.mark.parametrize("snap", [{}, {"pixel_perfect": True}, {"block_align": 4}])
def test_islands_are_rigid_in_texels_and_keep_margin_and_padding_in_pixels(size, snap) -> None:
    uvs, faces = turned_boxes(12, seed=sum(size))
    margin_px, padding_px = 4.0, 6.0
    side = max(size)
    result = uvnest.pack(uvs, faces, texture_size=size, margin_px=margin_px, padding=padding_px / side,
                         iterations=60, time_limit=None, **snap)
    gap = math.hypot(4, 4) if "block_align" in snap else margin_px   # blocks: a block diagonal apart
    assert_valid(in_pixels(result, size), uvs * np.array(size), faces, margin=gap, padding=padding_px,
                 target=(0, 0, *size))
    if snap:
        step = snap.get("block_align", 1)
        corners = np.array([t.translation for t in result.transforms]) * side / step
        assert np.abs(corners - np.round(corners)).max() < 1e-6   # whole texels (blocks) of the texture
        # and so every island's UVs sit on the texel grid of the texture as
        # they sat on it in the input (rigid moves by whole texels)


def test_apply_transforms_reproduces_a_non_square_layout() -> None:
    uvs, faces = turned_boxes(6, seed=4)
    result = uvnest.pack(uvs, faces, texture_size=(2048, 512), iterations=20, time_limit=None)
    again = uvnest.apply_transforms(uvs, result.islands, result.transforms, texture_size=(2048, 512))
    assert np.array_equal(again, result.uvs)
    assert not np.allclose(uvnest.apply_transforms(uvs, result.islands, result.transforms), result.uvs)


def test_fixed_scale_tiles_with_a_non_square_texture() -> None:
    """UDIM tiles of a 2:1 texture: every island inside its tile, margins in
    pixels, the texel density of the input kept (islands rigid in pixels,
    scale 1)."""
    uvs, faces = turned_boxes(24, seed=7)
    size = (2048, 1024)
    result = uvnest.pack(uvs, faces, texture_size=size, margin_px=2, scale="fixed", tiles=[1001, 1002, 1011],
                         iterations=20, time_limit=None)
    assert all(t.scale == 1.0 for t in result.transforms)
    for tile in np.unique(result.tile_of_island):
        u0, v0 = (tile - 1001) % 10, (tile - 1001) // 10
        members = np.flatnonzero(result.tile_of_island == tile)
        idx = np.concatenate([result.islands[i].uv_indices for i in members])
        pts = (result.uvs[idx] - [u0, v0]) * size   # pixels of the tile
        # the fixed-scale overhang: 2**-20 of the larger side (packing.FIXED_OVERHANG)
        slack = 2.0 ** -20 * max(size) * 1.001
        assert pts.min() >= -slack and (pts.max(axis=0) <= np.array(size) + slack).all()
    # rigid in pixels: every island's pixel-space distances kept
    for isl in result.islands:
        a = uvs[isl.uv_indices] * size
        b = result.uvs[isl.uv_indices] * size
        da = np.linalg.norm(a - a[0], axis=1)
        db = np.linalg.norm(b - b[0], axis=1)
        assert np.allclose(da, db, rtol=1e-9, atol=1e-6)
