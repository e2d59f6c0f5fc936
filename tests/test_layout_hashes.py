"""The search's layouts, bit for bit: a guard for refactoring the C core.

Each case packs one of the benchmark's quick models that ship in the
repository (the puzzles ``dighe2`` and ``terashima1-TA001-bin0`` of
``tests/data/puzzles/`` and the seeded set ``synthetic-10``, loaded as
``tests/bench`` loads them) with a fixed seed, one thread and a fixed
number of annealing moves (no time limit, so the run is deterministic),
under one option set, and compares the SHA-256 of the exact bytes of the
packed UVs, the transforms and the tiles with ``tests/data/layout_hashes.json``.

**The hashes change only when the search changes on purpose.**  A refactor
(moving code between files, renaming knobs, grouping structs) must leave
every hash as it is.  A commit that changes the search on purpose
regenerates the file, and the regenerated file is part of that commit::

    python -m tests.test_layout_hashes --write

The inputs are hashed too: shapely triangulates the puzzle pieces and the
synthetic islands, so another shapely/GEOS may build other inputs.  Then
the layouts cannot be compared, and the test says so and skips (it fails
when the inputs are the ones recorded and a layout is not).  The recorded
layouts are those of a gcc x86-64 build with setup.py's flags
(``-ffp-contract=off``: no fused multiply-adds, which would change the
roundings on another compiler or CPU).
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import json
import struct
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy as np
import pytest

import uvnest
from tests.bench.common import Model
from tests.bench.puzzles import VENDORED, load_puzzle
from tests.bench.synthetic import synthetic_model

#: Where the recorded hashes live.
HASHES = Path(__file__).resolve().parent / "data" / "layout_hashes.json"
#: Annealing moves of every case (few, so the whole file runs in a few seconds).
MOVES = 150
SEED = 0


def _unit_synthetic() -> Model:
    """``synthetic-10`` scaled into the unit tile (locked islands and fixed scale need islands that fit a tile)."""
    model = copy.copy(synthetic_model(10, 0))
    model.uvs = model.uvs / float(model.uvs.max())
    model.name = "synthetic-10-unit"
    return model


@lru_cache(maxsize=None)
def model(name: str) -> Model:
    """One of the quick models by its short name."""
    if name == "synthetic-10":
        return synthetic_model(10, 0)
    if name == "synthetic-10-unit":
        return _unit_synthetic()
    return load_puzzle(VENDORED / f"{name}.json")


#: (case name, model, options): rotation none / any / quarter turns with flips,
#: the shapes, fixed scale on UDIM tiles, boxes, locked islands.
CASES: List[Tuple[str, str, Dict[str, Any]]] = [
    ("dighe2-none", "dighe2", dict(rotation="none", margin=0.0)),
    ("ta001-any", "terashima1-TA001-bin0", dict(rotation="any", margin=0.0)),
    ("ta001-locked", "terashima1-TA001-bin0", dict(rotation="any", margin=0.002, locked=[2])),
    ("synthetic-any", "synthetic-10", dict(rotation="any", margin=0.005)),
    ("synthetic-convex", "synthetic-10", dict(rotation="any", margin=0.005, shape="convex")),
    ("unit-90-flip", "synthetic-10-unit", dict(rotation="90", flip=True, margin=0.005)),
    ("unit-locked", "synthetic-10-unit", dict(rotation="any", margin=0.005, locked=[0])),
    ("unit-box-locked", "synthetic-10-unit", dict(margin=0.005, shape="box", locked=[3])),
    ("dighe2-box-fixed", "dighe2", dict(rotation="none", margin=0.0, shape="box", scale="fixed")),
    ("dighe2-tiles", "dighe2", dict(rotation="none", margin=0.0, scale="fixed", tiles=[1001, 1002, 1011])),
]


def input_hash(m: Model) -> str:
    """SHA-256 of the model's UVs and faces."""
    h = hashlib.sha256()
    for a in (m.uvs, m.face_sizes, m.face_idx):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def layout(case: str) -> Tuple[str, float]:
    """Pack one case; the SHA-256 of its layout's exact bytes, and its coverage (for people reading the file)."""
    _, name, options = next(c for c in CASES if c[0] == case)
    m = model(name)
    packer = uvnest.Packer(m.uvs, m.faces, seed=SEED, threads=1, **options)
    if not packer.final:
        packer.step(seconds=None, iterations=MOVES)
    best = packer.best
    h = hashlib.sha256(np.ascontiguousarray(best.uvs, dtype=np.float64).tobytes())
    for t in best.transforms:
        h.update(struct.pack("<d?3d", t.rotation, t.flipped, *t.translation, t.scale))
    tiles = best.tile_of_island if best.tile_of_island is not None else []
    h.update(np.asarray(tiles, dtype=np.int64).tobytes())
    return h.hexdigest(), float(best.coverage)


def record() -> Dict[str, Any]:
    """Every case's input and layout hashes, as the JSON file holds them."""
    out: Dict[str, Any] = {"moves": MOVES, "seed": SEED, "inputs": {}, "layouts": {}}
    for case, name, _ in CASES:
        out["inputs"][name] = input_hash(model(name))
        digest, coverage = layout(case)
        out["layouts"][case] = {"sha256": digest, "coverage": coverage}
    return out


@lru_cache(maxsize=None)
def recorded() -> Dict[str, Any]:
    return json.loads(HASHES.read_text())


@pytest.mark.parametrize("case", [c[0] for c in CASES])
def test_layout_is_bit_identical_to_the_recorded_one(case: str) -> None:
    rec = recorded()
    assert rec["moves"] == MOVES and rec["seed"] == SEED, "regenerate the hashes: the cases changed"
    name = next(c[1] for c in CASES if c[0] == case)
    if input_hash(model(name)) != rec["inputs"][name]:
        import shapely
        pytest.skip(f"input {name} differs from the recorded one (shapely {shapely.__version__}, "
                    f"GEOS {shapely.geos_version_string}): layouts cannot be compared")
    digest, coverage = layout(case)
    want = rec["layouts"][case]
    assert digest == want["sha256"], (
        f"{case}: the layout changed (coverage {coverage!r}, recorded {want['coverage']!r}); if the search "
        f"changed on purpose, run `python -m tests.test_layout_hashes --write` and commit the file with it")


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description="check or regenerate tests/data/layout_hashes.json")
    ap.add_argument("--write", action="store_true", help="record the current layouts' hashes")
    args = ap.parse_args(argv)
    now = record()
    if args.write:
        tmp = HASHES.with_suffix(".tmp")
        tmp.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
        tmp.replace(HASHES)
        print(f"wrote {HASHES}")
        return 0
    old = json.loads(HASHES.read_text())
    bad = [c for c in now["layouts"] if old["layouts"].get(c, {}).get("sha256") != now["layouts"][c]["sha256"]]
    print("identical" if not bad else "changed: " + ", ".join(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
