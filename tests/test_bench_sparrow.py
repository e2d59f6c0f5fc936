"""The sparrow peer (tests/bench/peers_sparrow.py): its strip layout becomes a valid unit-tile layout.

Needs ``spyrrow`` (the ``test`` extra); slow: sparrow runs for a whole second.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

if __package__ in (None, ""):  # plain `pytest` puts tests/ first on sys.path, not the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bench.checker import check_layout  # noqa: E402
from tests.bench.puzzles import load_puzzle, puzzles_dir  # noqa: E402

pytest.importorskip("spyrrow")
from tests.bench.peers_sparrow import pack_with_sparrow  # noqa: E402


@pytest.mark.slow
def test_sparrow_strip_becomes_a_tile_layout_scored_by_its_width():
    """A turned 3-piece puzzle: the checker (shapely, independent of the
    peer) finds the converted layout valid in the unit tile, and its coverage
    over the optimum is min(1, 1 / W)^2 for the strip width W sparrow
    reports (the pieces fill the unit square exactly)."""
    model = load_puzzle(puzzles_dir() / "terashima1-TB003-bin0.json", turn_seed=5)
    out = pack_with_sparrow(model, time_limit=1, seed=0)
    check = check_layout(model, out.uvs, 0.0, packer="sparrow")
    assert check.valid, check.first_violation
    width = out.info["strip_width"]
    assert width > 0.99
    assert check.coverage / model.optimum == pytest.approx(min(1.0, 1.0 / width) ** 2, rel=1e-6)
