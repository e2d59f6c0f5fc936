"""The dense-mesh benchmark's input (issue 27): a subdivided Suzanne made in
real Blender, cached, and packed through the benchmark's checker."""
from __future__ import annotations

import pytest

from tests.bench.checker import check_layout
from tests.blender_env import require_bpy_python

pytestmark = [pytest.mark.blender, pytest.mark.slow]


def test_level_2_suzanne_is_made_in_blender_and_its_first_layout_is_valid(tmp_path) -> None:
    require_bpy_python()
    import uvnest
    from tests.bench.dense_meshes import dense_suzanne, mesh_faces

    model = dense_suzanne(2, tmp_path)
    assert model.n_faces == 7872   # Suzanne's 500 faces (468 quads, 32 triangles) subdivided twice
    assert (tmp_path / "suzanne-2.npz").exists()
    packer = uvnest.Packer(model.uvs, model.faces, mesh_faces=mesh_faces(model), margin=0.002)
    result = check_layout(model, packer.best.uvs, 0.002)
    assert result.valid, result.first_violation
    assert len(packer.islands) > 20 and result.coverage > 0.4
