"""Islands from meshes (issue 3): connectivity against an independent
union-find on the real corpus, stacked and overlapping islands, corner-stored
UVs joined through mesh edges, bad and degenerate input, and identity
transforms that write files back byte for byte."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import shapely

sys.path.insert(0, str(Path(__file__).parent))

import uvnest  # noqa: E402
from uvnest import io  # noqa: E402
from corpus import homedecor_models  # noqa: E402


# ------------------------------------------------------------ the oracle

class UnionFind:
    """Plain union-find with path halving, written for the tests."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, a: int) -> int:
        while self.parent[a] != a:
            self.parent[a] = self.parent[self.parent[a]]
            a = self.parent[a]
        return a

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def face_partition(faces, n_uvs: int):
    """Faces grouped by shared UV indices: a set of frozensets of face ids."""
    uf = UnionFind(n_uvs)
    for f in faces:
        for v in f[1:]:
            uf.union(int(f[0]), int(v))
    groups = {}
    for k, f in enumerate(faces):
        groups.setdefault(uf.find(int(f[0])), set()).add(k)
    return {frozenset(g) for g in groups.values()}


# ------------------------------------------------------------ the corpus

@pytest.mark.corpus
def test_island_counts_match_an_independent_union_find_on_the_corpus():
    models = homedecor_models()
    assert len(models) == 146
    total = crossing = 0
    for path in models:
        mesh = io.load(path)
        islands = uvnest.find_islands(mesh.uvs, mesh.faces, merge_overlapping=False)
        expected = face_partition(mesh.faces, len(mesh.uvs))
        got = {frozenset(isl.faces.tolist()) for isl in islands}
        assert got == expected, path.name
        total += len(islands)
        for isl in islands:
            # bbox and area against the island's own faces
            pts = mesh.uvs[np.unique(np.concatenate([mesh.faces[f] for f in isl.faces]))]
            assert np.allclose(isl.bbox, [*pts.min(axis=0), *pts.max(axis=0)])
            polys = [shapely.Polygon(mesh.uvs[mesh.faces[f]]) for f in isl.faces]
            union = shapely.union_all([shapely.make_valid(p) for p in polys])
            if all(p.is_valid or shapely.make_valid(p).area == 0 for p in polys):
                assert isl.area == pytest.approx(union.area, rel=1e-6, abs=1e-12), path.name
            else:
                # a self-intersecting face: the outline holds every reading of it
                crossing += 1
                outline = shapely.union_all([shapely.Polygon(r) for r in isl.outline if shapely.Polygon(r).exterior.is_ccw])
                area_part = shapely.union_all([g for g in shapely.get_parts(union) if g.area > 0])
                assert outline.buffer(1e-7).contains(area_part), path.name   # outlines are on a 2**-26 grid
                assert isl.area >= union.area * (1 - 1e-6)
    assert total > 1000
    assert crossing > 0   # the corpus has bow-tie faces (homedecor_desk_globe)


@pytest.mark.corpus
def test_identity_transforms_write_every_model_back_byte_for_byte(tmp_path):
    for path in homedecor_models():
        mesh = io.load(path)
        islands = uvnest.find_islands(mesh.uvs, mesh.faces, mesh_faces=mesh.mesh_faces)
        identity = [uvnest.IslandTransform(0.0, False, (0.0, 0.0), 1.0)] * len(islands)
        uvs = uvnest.apply_transforms(mesh.uvs, islands, identity)
        assert np.array_equal(uvs, mesh.uvs)
        out = tmp_path / path.name
        io.save(mesh, out, uvs=uvs)
        assert out.read_bytes() == path.read_bytes(), path.name


def test_apply_transforms_matches_the_packed_uvs():
    uvs, faces = _squares([(0, 0), (2, 0), (0, 2)])
    res = uvnest.pack(uvs, faces, iterations=20, time_limit=None)
    again = uvnest.apply_transforms(uvs, res.islands, res.transforms)
    assert np.array_equal(again, res.uvs)
    with pytest.raises(ValueError, match="3 islands but 2 transforms"):
        uvnest.apply_transforms(uvs, res.islands, res.transforms[:2])


# ------------------------------------------------------ building blocks

def _squares(corners, size=1.0):
    """Separate unit squares (two triangles each) at the given corners."""
    uvs, faces = [], []
    for x, y in corners:
        b = len(uvs)
        uvs += [[x, y], [x + size, y], [x + size, y + size], [x, y + size]]
        faces += [[b, b + 1, b + 2], [b, b + 2, b + 3]]
    return np.array(uvs, dtype=np.float64), np.array(faces)


def test_faces_sharing_uv_indices_form_islands_with_outline_area_and_bbox():
    uvs, faces = _squares([(0, 0), (3, 0)])
    islands = uvnest.find_islands(uvs, faces)
    assert [isl.faces.tolist() for isl in islands] == [[0, 1], [2, 3]]
    for isl, x in zip(islands, (0, 3)):
        assert isl.area == pytest.approx(1.0)
        assert isl.bbox == (x, 0, x + 1, 1)
        assert len(isl.outline) == 1 and shapely.Polygon(isl.outline[0]).area == pytest.approx(1.0)
        assert shapely.Polygon(isl.outline[0]).exterior.is_ccw
        assert isl.uv_indices.tolist() == list(range(4 * (x // 3), 4 * (x // 3) + 4))


def test_mixed_ngons_and_a_hole():
    # a square ring of four quads around a hole, plus a pentagon
    o = [[0, 0], [3, 0], [3, 3], [0, 3]]
    i = [[1, 1], [2, 1], [2, 2], [1, 2]]
    uvs = np.array(o + i + [[5, 0], [6, 0], [6.5, 1], [5.5, 2], [4.5, 1]], dtype=np.float64)
    faces = [[0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7], [8, 9, 10, 11, 12]]
    islands = uvnest.find_islands(uvs, faces)
    assert len(islands) == 2
    ring = islands[0]
    assert ring.area == pytest.approx(8.0)
    areas = sorted(shapely.Polygon(r).area * (1 if shapely.Polygon(r).exterior.is_ccw else -1)
                   for r in ring.outline)
    assert areas == pytest.approx([-1.0, 9.0])   # the hole is clockwise
    assert islands[1].area == pytest.approx(shapely.Polygon(uvs[8:13]).area)


def test_stacked_and_mirrored_islands_are_grouped():
    a, fa = _squares([(0, 0)])
    b, fb = _squares([(0, 0)])               # a stacked copy
    c = a[:, ::-1] * [1, 1] + [0.5, 0]       # a mirrored copy overlapping half of it
    d, fd = _squares([(5, 5)])               # far away
    uvs = np.concatenate([a, b, c, d])
    faces = np.concatenate([fa, fb + 4, fa[:, ::-1] + 8, fd + 12])
    merged = uvnest.find_islands(uvs, faces)
    assert [isl.members for isl in merged] == [(0, 1, 2), (3,)]
    assert merged[0].faces.tolist() == [0, 1, 2, 3, 4, 5]
    assert merged[0].area == pytest.approx(1.5)
    apart = uvnest.find_islands(uvs, faces, merge_overlapping=False)
    assert len(apart) == 4 and all(isl.members == (k,) for k, isl in enumerate(apart))


def test_many_islands_with_a_few_stacked_pairs_keep_their_faces_and_outlines():
    # 4,000 separate unit squares, squares 10, 500 and 3,000 with a stacked
    # copy each: only those three groups are joined; every island's faces
    # and outline area agree with shapely's union of its faces
    rng = np.random.default_rng(7)
    cells = rng.permutation(80 * 80)[:4000]
    places = [(2.0 * (c % 80), 2.0 * (c // 80)) for c in cells] + [(2.0 * (cells[k] % 80), 2.0 * (cells[k] // 80))
                                                                   for k in (10, 500, 3000)]
    uvs, faces = _squares(places)
    merged = uvnest.find_islands(uvs, faces)
    assert len(merged) == 4000
    joined = {isl.members: isl for isl in merged if len(isl.members) > 1}
    assert set(joined) == {(10, 4000), (500, 4001), (3000, 4002)}
    for k, isl in enumerate(merged):
        assert isl.index == k
        union = shapely.union_all([shapely.Polygon(uvs[f]) for f in faces[isl.faces]])
        assert isl.area == pytest.approx(union.area)
        outline = shapely.union_all([shapely.Polygon(r) for r in isl.outline if shapely.Polygon(r).exterior.is_ccw])
        assert outline.symmetric_difference(union).area < 1e-9
        assert isl.faces.tolist() == sorted(f for m in isl.members for f in (2 * m, 2 * m + 1))


def test_corner_stored_uvs_join_through_mesh_edges_when_uvs_match():
    # two triangles sharing mesh edge 1-2; each corner has its own UV row
    mesh_faces = np.array([[0, 1, 2], [2, 1, 3]])
    uvs = np.array([[0, 0], [1, 0], [0, 1], [0, 1], [1, 0], [1, 1]], dtype=np.float64)
    faces = np.arange(6).reshape(2, 3)
    assert len(uvnest.find_islands(uvs, faces)) == 2          # without mesh_faces: no shared index
    joined = uvnest.find_islands(uvs, faces, mesh_faces=mesh_faces)
    assert len(joined) == 1 and joined[0].area == pytest.approx(1.0)
    seam = uvs.copy()
    seam[3:] += [2.0, 0.0]                                    # a UV seam along that edge
    assert len(uvnest.find_islands(seam, faces, mesh_faces=mesh_faces, merge_overlapping=False)) == 2
    with pytest.raises(ValueError, match="same shape"):
        uvnest.find_islands(uvs, faces, mesh_faces=mesh_faces[:1])


# ------------------------------------------------------------ bad input

@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_uvs_name_the_face(bad):
    uvs, faces = _squares([(0, 0), (3, 0)])
    uvs[6, 1] = bad
    with pytest.raises(ValueError, match=r"face 2 uses UV 6, which is not finite"):
        uvnest.find_islands(uvs, faces)
    uvs = np.concatenate([uvs[:6], [[np.nan, np.nan]]])  # an unused NaN row is fine
    uvnest.find_islands(uvs, faces[:2])


def test_bad_indices_and_short_faces_name_the_face():
    uvs, faces = _squares([(0, 0)])
    with pytest.raises(ValueError, match="faces: face 1"):
        uvnest.find_islands(uvs, [[0, 1, 2], [0, 2, 9]])
    with pytest.raises(ValueError, match="faces: face 0"):
        uvnest.find_islands(uvs, [[0, -1, 2]])
    with pytest.raises(ValueError, match="face 1 has 2 corner"):
        uvnest.find_islands(uvs, [[0, 1, 2], [0, 2]])
    with pytest.raises(ValueError, match="no faces|empty"):
        uvnest.find_islands(uvs, [])
    with pytest.raises(ValueError, match=r"shape \(N, 2\)"):
        uvnest.find_islands(uvs[:, :1], faces)
    with pytest.raises(ValueError, match="faces: face 0 must be a sequence of integer indices"):
        uvnest.find_islands(uvs, [[0, 1.5, 2]])


def test_zero_area_faces_and_islands_are_kept_and_packed():
    uvs, faces = _squares([(0, 0)])
    # a sliver face inside the square's island, and an island that is a
    # single collapsed triangle (three equal points)
    uvs = np.concatenate([uvs, [[0.5, 0.5], [5, 5], [5, 5], [5, 5]]])
    faces = np.concatenate([faces, [[0, 1, 4], [5, 6, 7]]])
    islands = uvnest.find_islands(uvs, faces)
    assert [isl.faces.tolist() for isl in islands] == [[0, 1, 2], [3]]
    assert islands[0].area == pytest.approx(1.0)
    assert islands[1].area == 0.0 and islands[1].bbox == (5, 5, 5, 5)
    # the collapsed island's outline is a square a few 1e-9 wide around
    # its point, which it holds
    ring, = islands[1].outline
    assert shapely.Polygon(ring).contains(shapely.Point(5, 5)) and np.abs(ring - 5).max() < 1e-7
    res = uvnest.pack(uvs, faces, iterations=20, time_limit=None)
    assert np.isfinite(res.uvs).all()
    assert (res.uvs >= -1e-9).all() and (res.uvs <= 1 + 1e-9).all()


@pytest.mark.slow
def test_a_million_faces():
    """Correct on a million quads (its speed is measured in tests/bench)."""
    n = 1000
    ys, xs = np.mgrid[0:n + 1, 0:n + 1]
    uv = np.column_stack([xs.ravel(), ys.ravel()]).astype(np.float64) / n
    idx = np.arange((n + 1) ** 2).reshape(n + 1, n + 1)
    quads = np.stack([idx[:-1, :-1], idx[:-1, 1:], idx[1:, 1:], idx[1:, :-1]], -1).reshape(-1, 4)
    # corner-stored UVs, cut into 10 x 10-quad islands moved apart; mesh
    # edges join the quads of each island
    block = (np.arange(n) // 10)
    shift = (block[:, None] * 100 + block[None, :]).ravel()
    uvs = (uv[quads] + shift[:, None, None] * np.array([1.5, 0.0])).reshape(-1, 2)
    islands = uvnest.find_islands(uvs, np.arange(len(uvs)).reshape(-1, 4), mesh_faces=quads)
    assert len(islands) == 10_000
    assert all(isl.faces.size == 100 for isl in islands)
    assert sum(isl.area for isl in islands) == pytest.approx(1.0)
