"""Rotation moves by kind (issue 28): an edge on an axis (a candidate), an
edge against a neighbour's, a refinement at contact, a random step.

``Packer.stats["theta_moves"]`` counts each kind's moves (proposed,
accepted, improving, completing a layout); the layouts the new kinds make
go through the exact placement and the final check, and the best one is
checked here again by the shapely oracle (``tests/pack_checker.py``).
"""
from __future__ import annotations

import numpy as np
import pytest

import uvnest
from tests.bench.puzzles import TURN_SEED, load_puzzle, puzzles_dir
from tests.pack_checker import assert_valid

KINDS = ("wall", "neighbour", "refine", "random")


def _turned(name: str):
    """A Terashima puzzle with every piece turned by its own random angle."""
    return load_puzzle(puzzles_dir() / f"{name}.json", turn_seed=TURN_SEED)


def _counts(packer) -> dict:
    kinds = packer.stats["theta_moves"]
    assert set(kinds) == set(KINDS)
    for kind, (proposed, accepted, improved, completed, no_pair) in kinds.items():
        assert 0 <= accepted <= proposed, kind
        assert 0 <= improved <= accepted, kind
        assert 0 <= completed <= accepted, kind
        assert no_pair >= 0 and (no_pair == 0 or kind in ("neighbour", "refine")), kind
    return kinds


def test_turned_pieces_get_every_kind_of_rotation_move_and_valid_layouts():
    """On a turned 6-piece puzzle (seeded, a fixed number of moves) every
    kind is proposed and accepted; nothing failed the engine's final check,
    and the best layout passes the shapely oracle."""
    m = _turned("terashima2-TO012C10-bin1")
    packer = uvnest.Packer(m.uvs, m.faces, margin=0.002, rotation="any", seed=3, threads=1)
    packer.step(seconds=None, iterations=500)
    kinds = _counts(packer)
    for kind in KINDS:
        assert kinds[kind][1] > 0, (kind, kinds)
    assert packer.stats["rejected"] == 0
    assert_valid(packer.best, m.uvs, m.faces, margin=0.002)


@pytest.mark.parametrize("rotation", ["none", "90"])
def test_without_free_rotation_there_are_no_contact_orientations(rotation):
    """Neighbour and refinement moves need free rotation: with none or
    quarter turns no move of theirs is made (and none of the others counts
    as one)."""
    m = _turned("terashima2-TO012C10-bin1")
    packer = uvnest.Packer(m.uvs, m.faces, margin=0.002, rotation=rotation, seed=3, threads=1)
    packer.step(seconds=None, iterations=300)
    kinds = _counts(packer)
    assert kinds["neighbour"] == (0, 0, 0, 0, 0)
    assert kinds["refine"] == (0, 0, 0, 0, 0)
    assert_valid(packer.best, m.uvs, m.faces, margin=0.002, rotation=rotation)


def test_threads_sum_their_rotation_moves():
    """With two threads the counts are every chain's: about twice what one
    chain makes in the same number of moves per chain (one chain's alone
    would be about as many)."""
    m = _turned("terashima1-TA001-bin0")
    one = uvnest.Packer(m.uvs, m.faces, margin=0.0, rotation="any", seed=1, threads=1)
    two = uvnest.Packer(m.uvs, m.faces, margin=0.0, rotation="any", seed=1, threads=2)
    for p in (one, two):
        p.step(seconds=None, iterations=200)
    total_one = sum(np.asarray(v)[0] for v in _counts(one).values())
    total_two = sum(np.asarray(v)[0] for v in _counts(two).values())
    assert two.stats["chains"] == 2
    assert total_two > 1.5 * total_one > 0
    assert_valid(two.best, m.uvs, m.faces, margin=0.0)


def test_benchmark_reports_the_rotation_moves_by_kind():
    """``python -m tests.bench.turned --move-kinds``: the scores as without
    it (checked layouts), and a row per kind whose shares sum to one."""
    from tests.bench import turned

    m = _turned("terashima1-TB003-bin0")
    kinds: dict = {}
    scores = turned.run([m], ["uvnest"], 0.5, 0, 1, kinds)
    assert 0.5 < scores[m.name]["uvnest"] <= 1.0 + 1e-9
    assert set(kinds) == set(KINDS) and sum(v[0] for v in kinds.values()) > 0
    rows = [r for r in turned.move_kinds_table(kinds).splitlines() if r.split("|")[1].strip() in KINDS]
    assert len(rows) == len(KINDS)
    assert sum(float(r.split("|")[3]) for r in rows) == pytest.approx(1.0, abs=0.003)
