"""The huge-count benchmark (issue 27): its triangle islands and its runner."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import shapely

if __package__ in (None, ""):  # plain `pytest` puts tests/ first on sys.path, not the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bench import huge_counts  # noqa: E402
from tests.bench.synthetic import triangle_islands  # noqa: E402


def test_triangle_islands_are_separate_seeded_triangles() -> None:
    """Every island is one valid triangle of area > 0, none overlaps or
    touches another (shapely), and a seed gives the same set."""
    uvs, faces = triangle_islands(2000, seed=3)
    assert uvs.shape == (6000, 2) and faces.shape == (2000, 3)
    assert np.array_equal(np.unique(faces), np.arange(6000))   # no shared corners: 2000 islands
    polys = shapely.polygons(uvs[faces])
    assert shapely.is_valid(polys).all() and (shapely.area(polys) > 0).all()
    left, right = shapely.STRtree(polys).query(polys, predicate="intersects")
    assert (left == right).all()
    again, _ = triangle_islands(2000, seed=3)
    other, _ = triangle_islands(2000, seed=4)
    assert np.array_equal(uvs, again) and not np.array_equal(uvs, other)


@pytest.mark.slow
def test_runner_measures_a_first_layout(capsys) -> None:
    """The runner packs in a child process and reports seconds, coverage and peak memory."""
    assert huge_counts.main(["--models", "synthetic-1000", "--threads", "1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    row = rows["synthetic-1000"]
    assert row["seconds"] > 0 and 0 < row["coverage"] <= 1 and row["peak_mib"] > 10
