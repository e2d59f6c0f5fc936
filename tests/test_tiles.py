"""Multi-tile packing at fixed scale, texel density, the texel grid, boxes
and power-of-two squares (issue 8), checked with shapely and brute force."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import shapely
from shapely.geometry import Polygon, box
from shapely.ops import unary_union

import uvnest
import uvnest.packing

TOL = 1e-7
OVERHANG = uvnest.packing.FIXED_OVERHANG + TOL   # documented for scale='fixed'


# ----------------------------------------------------------------- inputs

def _quads(rects, gap=0.01):
    """UVs and faces of axis-aligned rectangles (w, h), laid out in a row
    below the unit square so that none overlap."""
    uvs, faces, x = [], [], 0.0
    for w, h in rects:
        b = len(uvs)
        uvs += [[x, -2], [x + w, -2], [x + w, -2 + h], [x, -2 + h]]
        faces.append([b, b + 1, b + 2, b + 3])
        x += w + gap
    return np.array(uvs, dtype=np.float64), np.array(faces)


def _ells(n, rng, lo=0.08, hi=0.3):
    """L-shaped islands (two triangles and a quad each), non-overlapping."""
    uvs, faces, x = [], [], 0.0
    for _ in range(n):
        w, h = rng.uniform(lo, hi, 2)
        t = rng.uniform(0.3, 0.7)
        pts = [[0, 0], [w, 0], [w, t * h], [t * w, t * h], [t * w, h], [0, h]]
        b = len(uvs)
        uvs += [[x + p[0], -3 + p[1]] for p in pts]
        faces += [[b, b + 1, b + 2, b + 3], [b, b + 3, b + 4, b + 5]]
        x += w + 0.01
    return np.array(uvs), faces


def _guillotine(rng, pieces):
    """Rectangles cut from the unit square by random guillotine cuts."""
    rects = [(0.0, 0.0, 1.0, 1.0)]
    while len(rects) < pieces:
        rects.sort(key=lambda r: (r[2] - r[0]) * (r[3] - r[1]))
        x0, y0, x1, y1 = rects.pop()
        c = rng.uniform(0.35, 0.65)
        if x1 - x0 >= y1 - y0:
            xm = x0 + c * (x1 - x0)
            rects += [(x0, y0, xm, y1), (xm, y0, x1, y1)]
        else:
            ym = y0 + c * (y1 - y0)
            rects += [(x0, y0, x1, ym), (x0, ym, x1, y1)]
    return [(r[2] - r[0], r[3] - r[1]) for r in rects]


# ----------------------------------------------------------------- checks

def _island_polygons(result, faces):
    """Per island the shapely union of its packed faces."""
    out = []
    for isl in result.islands:
        polys = [Polygon(result.uvs[np.asarray(faces[f])]) for f in isl.faces]
        out.append(unary_union([p.buffer(0) for p in polys]))
    return out


def _check_tiles(result, faces, margin, padding=0.0):
    """Independent check: each island inside its tile (less padding), every
    pair in a tile at least margin apart; returns the polygons."""
    polys = _island_polygons(result, faces)
    for i, poly in enumerate(polys):
        tile = int(result.tile_of_island[i])
        u0, v0 = (tile - 1001) % 10, (tile - 1001) // 10
        room = box(u0 + padding, v0 + padding, u0 + 1 - padding, v0 + 1 - padding).buffer(OVERHANG, join_style=2)
        assert room.contains(poly), f"island {i} leaves tile {tile}"
    for t in np.unique(result.tile_of_island):
        members = np.flatnonzero(result.tile_of_island == t)
        tree = shapely.STRtree([polys[i] for i in members])
        for a, b in zip(*tree.query([polys[i] for i in members], predicate="dwithin", distance=margin - TOL)):
            if a < b:
                d = polys[members[a]].distance(polys[members[b]])
                pytest.fail(f"islands {members[a]} and {members[b]} in tile {t} are {d} apart (< {margin})")
    return polys


def _shelf_tiles(result, margin):
    """Tiles an independent shelf first-fit of the islands' bounding boxes
    (as packed, rotated to lie flat) needs: a first-fit bound."""
    sizes = []
    for isl, t in zip(result.islands, result.transforms):
        w, h = isl.bbox[2] - isl.bbox[0], isl.bbox[3] - isl.bbox[1]
        sizes.append((max(w, h) * t.scale + margin, min(w, h) * t.scale + margin))
    sizes.sort(key=lambda s: -s[1])
    tiles = []     # per tile: list of shelves [y, height, x]
    for w, h in sizes:
        for shelves in tiles:
            placed = False
            for s in shelves:
                if h <= s[1] and s[2] + w <= 1 + margin:
                    s[2] += w
                    placed = True
                    break
            if not placed:
                top = sum(s[1] for s in shelves)
                if top + h <= 1 + margin:
                    shelves.append([top, h, w])
                    placed = True
            if placed:
                break
        else:
            tiles.append([[0.0, h, w]])
    return len(tiles)


# --------------------------------------------------- power-of-two squares

@pytest.mark.parametrize("seed", range(6))
def test_pow2_squares_zero_waste_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    layer = 64
    sizes = 2 ** rng.integers(0, 6, rng.integers(1, 300))
    xyl = uvnest.pack_pow2_squares(sizes, layer)
    assert xyl.shape == (len(sizes), 3)
    n_layers = int(xyl[:, 2].max()) + 1
    # brute force: paint every square into its layer's raster
    raster = np.zeros((n_layers, layer, layer), dtype=np.int32)
    for (x, y, l), s in zip(xyl, sizes):
        assert 0 <= x and x + s <= layer and 0 <= y and y + s <= layer
        raster[l, y:y + s, x:x + s] += 1
    assert raster.max() == 1, "two squares overlap"
    assert (raster[:-1] == 1).all(), "a layer before the last has a hole"
    assert n_layers == math.ceil(int((sizes.astype(np.int64) ** 2).sum()) / layer ** 2)


def test_pow2_squares_rejects_bad_sizes():
    with pytest.raises(ValueError):
        uvnest.pack_pow2_squares([4, 3], 16)
    with pytest.raises(ValueError):
        uvnest.pack_pow2_squares([32], 16)
    with pytest.raises(ValueError):
        uvnest.pack_pow2_squares([4], 12)
    assert uvnest.pack_pow2_squares([], 16).shape == (0, 3)


def test_pow2_path_in_pack_fills_tiles_exactly():
    rng = np.random.default_rng(7)
    texels = 128
    sizes = 2 ** rng.integers(2, 7, 120)
    uvs, faces = _quads([(s / texels, s / texels) for s in sizes])
    res = uvnest.pack(uvs, faces, scale="fixed", margin=0, texture_size=texels, time_limit=5)
    need = math.ceil(float((sizes.astype(float) ** 2).sum()) / texels ** 2)
    assert res.tile_count == need == res.tile_lower_bound
    polys = _check_tiles(res, faces, 0.0)
    # zero waste: every tile but the last completely covered
    last = max(res.tile_of_island)
    for t in np.unique(res.tile_of_island):
        if t != last:
            area = sum(polys[i].area for i in np.flatnonzero(res.tile_of_island == t))
            assert area == pytest.approx(1.0, abs=1e-9)
    # squares stay unrotated, their corners on the texel grid
    for tr, poly in zip(res.transforms, polys):
        assert tr.rotation == 0 and not tr.flipped
        corner = np.array(poly.bounds[:2]) * texels
        assert np.allclose(corner, np.round(corner), atol=1e-7)


# ------------------------------------------------------------- fixed scale

def test_fixed_scale_keeps_sizes_and_reaches_the_lower_bound_on_exact_sets():
    rng = np.random.default_rng(11)
    tiles = 3
    rects = [(w * 0.92, h * 0.92) for _ in range(tiles) for w, h in _guillotine(rng, 5)]
    rng.shuffle(rects)
    uvs, faces = _quads(rects)
    res = uvnest.pack(uvs, faces, scale="fixed", margin=0.002, rotation="90", iterations=3000, time_limit=None)
    _check_tiles(res, faces, 0.002)
    for t in res.transforms:
        assert t.scale == 1.0
    assert res.tile_lower_bound == tiles
    assert res.tile_count == tiles
    assert res.tile_count <= _shelf_tiles(res, 0.002)


@pytest.mark.parametrize("seed", range(3))
def test_fixed_scale_concave_islands_valid_and_within_first_fit_bound(seed):
    rng = np.random.default_rng(seed)
    uvs, faces = _ells(40, rng)
    res = uvnest.pack(uvs, faces, scale="fixed", margin=0.005, iterations=400, time_limit=None, seed=seed)
    polys = _check_tiles(res, faces, 0.005)
    assert res.tile_lower_bound <= res.tile_count <= _shelf_tiles(res, 0.005)
    # the reported lower bound is a true bound: at most the shapely one
    room = (1 + 0.005) ** 2
    grown = sum(p.buffer(0.0025, quad_segs=64).area for p in polys)
    assert res.tile_lower_bound <= math.ceil(grown / room - 1e-12)
    assert res.tile_lower_bound >= math.ceil(sum(p.area for p in polys) / room - 1e-12)
    # f = sum(U^2) / N, U each tile's covered share
    shares = [sum(polys[i].area for i in np.flatnonzero(res.tile_of_island == t))
              for t in np.unique(res.tile_of_island)]
    assert res.tile_fill == pytest.approx(sum(u * u for u in shares) / len(shares), rel=1e-6)
    for t in res.transforms:
        assert t.scale == pytest.approx(1.0)


def test_hundreds_of_islands_fill_several_tiles_validly():
    # above a few hundred islands only the largest are annealed and the rest
    # are filled tile by tile through windows (the path that keeps thousands
    # of islands fast); groups still stay whole where they fit
    rng = np.random.default_rng(4)
    n = 420
    uvs, faces = _ells(n, rng, lo=0.03, hi=0.12)
    island_keys = np.array(["chair", "table", "lamp"])[np.arange(n) % 3]
    keys = np.repeat(island_keys, 2)            # _ells: two faces per island
    res = uvnest.pack(uvs, faces, scale="fixed", margin=0.004, groups=keys, iterations=20, time_limit=None)
    polys = _check_tiles(res, faces, 0.004)
    assert len(polys) == n
    assert 2 <= res.tile_lower_bound <= res.tile_count <= _shelf_tiles(res, 0.004)
    by_island = np.array([keys[isl.faces[0]] for isl in res.islands])
    for key in ("chair", "table", "lamp"):
        tiles = np.unique(res.tile_of_island[by_island == key])
        assert (tiles.size > 1) == (key in res.split_groups), (key, tiles, res.split_groups)
    for t in res.transforms:
        assert t.scale == pytest.approx(1.0)


def test_filled_islands_keep_groups_whole_tile_by_tile():
    # anneal_max: only the largest islands are annealed, the rest go through
    # the windowed filler container by container (a full scan of windows
    # below 300 islands), with the groups of test_groups_stay_in_one_tile
    rng = np.random.default_rng(9)
    rects = [tuple(rng.uniform(0.05, 0.28, 2)) for _ in range(45)]
    uvs, faces = _quads(rects)
    keys = np.array(["chair", "table", "lamp"])[np.arange(45) % 3]
    res = uvnest.pack(uvs, faces, scale="fixed", margin=0.004, groups=keys, anneal_max=4, iterations=50,
                      time_limit=None)
    _check_tiles(res, faces, 0.004)
    annealed = uvnest.pack(uvs, faces, scale="fixed", margin=0.004, groups=keys, iterations=50, time_limit=None)
    assert res.tile_count <= annealed.tile_count
    assert res.split_groups == []
    for key in ("chair", "table", "lamp"):
        assert np.unique(res.tile_of_island[keys == key]).size == 1, key


def test_fixed_scale_is_deterministic():
    rng = np.random.default_rng(5)
    uvs, faces = _ells(25, rng)
    a = uvnest.pack(uvs, faces, scale="fixed", iterations=200, time_limit=None, seed=3)
    b = uvnest.pack(uvs, faces, scale="fixed", iterations=200, time_limit=None, seed=3)
    assert np.array_equal(a.uvs, b.uvs)
    assert np.array_equal(a.tile_of_island, b.tile_of_island)


def test_caller_given_tiles_are_used_in_order():
    rng = np.random.default_rng(2)
    rects = [tuple(rng.uniform(0.3, 0.45, 2)) for _ in range(14)]
    uvs, faces = _quads(rects)
    res = uvnest.pack(uvs, faces, scale="fixed", tiles=[1012, 1005, 1031, 1001], margin=0.004,
                      iterations=200, time_limit=None)
    _check_tiles(res, faces, 0.004)
    used = set(res.tile_of_island.tolist())
    assert used <= {1012, 1005, 1031, 1001}
    order = [1012, 1005, 1031, 1001]
    assert used == set(order[:len(used)]), "tiles are opened in the given order"
    with pytest.raises(ValueError, match="more than the 1 tiles"):
        uvnest.pack(uvs, faces, scale="fixed", tiles=[1001], margin=0.004, time_limit=None)


def test_an_island_exactly_one_tile_in_size_fits():
    uvs, faces = _quads([(1.0, 1.0), (0.5, 0.5), (1.0, 1.0)])
    res = uvnest.pack(uvs, faces, scale="fixed", rotation="none", time_limit=None)
    assert res.tile_count == 3
    _check_tiles(res, faces, 0.001)


def test_island_larger_than_a_tile_is_named():
    uvs, faces = _quads([(0.2, 0.2), (1.3, 1.2), (0.1, 0.3)])
    with pytest.raises(ValueError, match=r"island 1 .*larger than a tile"):
        uvnest.pack(uvs, faces, scale="fixed", time_limit=None)


def test_fixed_options_are_validated():
    uvs, faces = _quads([(0.2, 0.2)])
    with pytest.raises(ValueError, match="tiles needs scale='fixed'"):
        uvnest.pack(uvs, faces, tiles=[1001], time_limit=None)
    with pytest.raises(ValueError, match="UDIM"):
        uvnest.pack(uvs, faces, scale="fixed", tiles=[1000], time_limit=None)
    with pytest.raises(ValueError, match="repeats"):
        uvnest.pack(uvs, faces, scale="fixed", tiles=[1001, 1001], time_limit=None)
    with pytest.raises(ValueError, match="scale must be one of"):
        uvnest.pack(uvs, faces, scale="big", time_limit=None)
    with pytest.raises(ValueError, match="texel_density needs"):
        uvnest.pack(uvs, faces, scale="fixed", texel_density=512, time_limit=None)
    with pytest.raises(ValueError, match="block_align needs texture_size"):
        uvnest.pack(uvs, faces, block_align=4, time_limit=None)
    with pytest.raises(ValueError, match="block_align must be"):
        uvnest.pack(uvs, faces, block_align=0, texture_size=64, time_limit=None)


def test_locked_islands_must_lie_in_the_first_tile():
    uvs, faces = _quads([(0.2, 0.2), (0.3, 0.3)])
    uvs[4:] += [[5.0, 2.5]]    # island 1 at (5, 0.5): in tile 1006
    with pytest.raises(ValueError, match="not inside tile 1001"):
        uvnest.pack(uvs, faces, scale="fixed", locked=[1], time_limit=None)
    res = uvnest.pack(uvs, faces, scale="fixed", tiles=[1006, 1007], locked=[1], time_limit=None)
    assert np.array_equal(res.uvs[4:], uvs[4:])
    assert res.tile_of_island.tolist() == [1006, 1006]
    _check_tiles(res, faces, 0.001)


# ------------------------------------------------------------------ groups

def test_groups_stay_in_one_tile_when_they_fit():
    rng = np.random.default_rng(9)
    rects = [tuple(rng.uniform(0.05, 0.28, 2)) for _ in range(45)]
    uvs, faces = _quads(rects)
    keys = np.array(["chair", "table", "lamp"])[np.arange(45) % 3]
    res = uvnest.pack(uvs, faces, scale="fixed", margin=0.004, groups=keys, iterations=300, time_limit=None)
    _check_tiles(res, faces, 0.004)
    assert res.split_groups == []
    for key in ("chair", "table", "lamp"):
        assert np.unique(res.tile_of_island[keys == key]).size == 1, key


def test_a_group_larger_than_a_tile_is_split_and_reported():
    rects = [(0.45, 0.45)] * 6 + [(0.2, 0.2)] * 2
    uvs, faces = _quads(rects)
    keys = ["big"] * 6 + ["small"] * 2
    res = uvnest.pack(uvs, faces, scale="fixed", margin=0.004, groups=keys, iterations=100, time_limit=None)
    _check_tiles(res, faces, 0.004)
    assert res.split_groups == ["big"]
    small = res.tile_of_island[6:]
    assert small[0] == small[1]


# ------------------------------------------------------------ texel density

def test_texel_density_gives_every_island_the_density():
    rng = np.random.default_rng(4)
    n = 12
    rects = [tuple(rng.uniform(0.05, 0.2, 2)) for _ in range(n)]
    uvs, faces = _quads(rects)
    # 3D quads with their own sizes: UVs are stretched differently per island
    size3d = rng.uniform(0.5, 2.0, (n, 2))
    positions = np.zeros((4 * n, 3))
    for k, (sx, sy) in enumerate(size3d):
        positions[4 * k:4 * k + 4] = [[0, 0, k], [sx, 0, k], [sx, sy, k], [0, sy, k]]
    density, texels = 128.0, 1024
    res = uvnest.pack(uvs, faces, scale="fixed", texel_density=density, texture_size=texels, positions=positions,
                      margin_px=2, iterations=100, time_limit=None)
    _check_tiles(res, faces, 2 / texels)
    for k in range(n):
        uv_area = Polygon(res.uvs[faces[k]]).area
        got = texels * math.sqrt(uv_area / (size3d[k, 0] * size3d[k, 1]))
        assert got == pytest.approx(density, rel=1e-9)


# -------------------------------------------------------------- texel grid

def test_pixel_perfect_translations_on_the_texel_grid_and_margin_exact():
    rng = np.random.default_rng(12)
    uvs, faces = _ells(20, rng)
    texels, margin_px = 512, 3
    for scale in ("fit", "fixed"):
        res = uvnest.pack(uvs, faces, scale=scale, texture_size=texels, margin_px=margin_px, pixel_perfect=True,
                          iterations=100, time_limit=None)
        _check_tiles(res, faces, margin_px / texels)
        for t in res.transforms:
            assert np.allclose(np.array(t.translation) * texels, np.round(np.array(t.translation) * texels),
                               atol=1e-7)


def _blocks_of(poly, block):
    """Block cells (i, j) of side ``block`` that the polygon's interior meets."""
    x0, y0, x1, y1 = poly.bounds
    cells = set()
    for i in range(int(math.floor(x0 / block)), int(math.floor(x1 / block)) + 1):
        for j in range(int(math.floor(y0 / block)), int(math.floor(y1 / block)) + 1):
            cell = box(i * block, j * block, (i + 1) * block, (j + 1) * block)
            if poly.intersection(cell).area > 0 or poly.touches(cell) and False:
                cells.add((i, j))
            elif poly.intersects(cell) and poly.intersection(cell).length > 0:
                cells.add((i, j))
    return cells


@pytest.mark.parametrize("rotation", ["90", "any"])
def test_block_align_snaps_to_blocks_and_no_block_holds_two_islands(rotation):
    rng = np.random.default_rng(13)
    uvs, faces = _ells(18, rng, 0.1, 0.25)
    texels, b = 256, 4
    res = uvnest.pack(uvs, faces, scale="fixed", texture_size=texels, block_align=b, margin_px=1,
                      rotation=rotation, iterations=100, time_limit=None)
    polys = _check_tiles(res, faces, 1 / texels)
    for t in res.transforms:
        assert np.allclose(np.array(t.translation) * texels / b, np.round(np.array(t.translation) * texels / b),
                           atol=1e-7)
    owner = {}
    for i, poly in enumerate(polys):
        for cell in _blocks_of(poly, b / texels):
            key = (int(res.tile_of_island[i]), cell)
            assert key not in owner, f"block {cell} holds islands {owner[key]} and {i}"
            owner[key] = i


# -------------------------------------------------------------------- boxes

@pytest.mark.parametrize("scale", ["fit", "fixed"])
def test_box_shape_is_valid(scale):
    rng = np.random.default_rng(21)
    uvs, faces = _ells(60, rng, 0.03, 0.2)
    res = uvnest.pack(uvs, faces, shape="box", scale=scale, margin=0.003, time_limit=1)
    polys = _check_tiles(res, faces, 0.003)
    # boxes: the islands' rotated bounding boxes keep the margin as well
    for t in np.unique(res.tile_of_island):
        members = np.flatnonzero(res.tile_of_island == t)
        boxes = [shapely.envelope(polys[i]) if abs(math.sin(2 * res.transforms[i].rotation)) < 1e-9
                 else polys[i].minimum_rotated_rectangle for i in members]
        for a, c in itertools.combinations(range(len(members)), 2):
            assert boxes[a].distance(boxes[c]) >= 0.003 - 1e-6
