"""The turned puzzles: uvnest against sparrow on the Terashima bins with every piece turned.

    python -m tests.bench.turned --seconds 10                  # uvnest and sparrow, turned puzzles
    python -m tests.bench.turned --seconds 10 --given          # the puzzles as given instead
    python -m tests.bench.turned --packers uvnest --seconds 3 --seed 1
    python -m tests.bench.turned --packers uvnest --seconds 10 --move-kinds  # and the rotation moves by kind

Each piece of each Terashima bin is turned by its own seeded random angle
(:func:`tests.bench.puzzles.turned_puzzle_models`).  uvnest packs with
``rotation="any"`` (``uvnest.pack``, one call, the time limit counted from
the call, one thread: ``--threads`` for more); sparrow (:mod:`tests.bench.peers_sparrow`) gets the same seconds
as its total computation time and one worker.  Every layout goes through
the checker; the score is coverage over the known optimum (an invalid
layout scores 0).  Prints a Markdown table: per puzzle the pieces and both
scores, then the medians, the median over puzzles of 6 pieces or fewer, and
on how many puzzles uvnest is at least as good as sparrow.

``--move-kinds`` packs through ``uvnest.Packer`` (stepped until the same
time is up) instead of ``uvnest.pack``, to read its ``theta_moves`` stats,
and prints after the scores the rotation moves by kind summed over the
puzzles: each kind's share of the rotation moves, and the share of its
moves accepted, improving the current layout and completing one (a new
best container).
"""
from __future__ import annotations

import argparse
import inspect
import statistics
import time
from typing import Dict, List, Optional

from .checker import check_layout
from .common import Model, PackOutcome
from .peers_sparrow import pack_with_sparrow
from .peers_uvnest import uvnest_api, uvnest_options
from .puzzles import TURN_SEED, puzzle_models, turned_puzzle_models

#: Puzzles of this many pieces or fewer are the "small" ones of issue 28's targets.
SMALL = 6


def score(model: Model, outcome: PackOutcome) -> float:
    """Checked coverage over the optimum (0 for an invalid or missing layout)."""
    if not outcome.ok or outcome.uvs is None or not model.optimum:
        return 0.0
    return check_layout(model, outcome.uvs, 0.0, packer=outcome.packer).coverage / model.optimum


def pieces(model: Model) -> int:
    """Islands of a puzzle model (one per piece)."""
    from .checker import analyse

    return analyse(model).n_islands


def pack_uvnest(model: Model, seconds: float, seed: int, threads: int) -> PackOutcome:
    """One ``uvnest.pack`` call on ``threads`` threads (builds from before
    ``threads`` existed run on one)."""
    api = uvnest_api()
    options = uvnest_options(model, 0.0, seed)
    if "threads" in inspect.signature(api.pack).parameters:
        options["threads"] = threads
    t0 = time.perf_counter()
    result = api.pack(model.uvs, model.faces, time_limit=seconds, **options)
    wall = time.perf_counter() - t0
    return PackOutcome("uvnest", model.name, result.uvs, wall, times=[wall])


#: Rotation move kinds and counts of ``Packer.stats["theta_moves"]``.
MOVE_KINDS = ("wall", "neighbour", "refine", "random")
MOVE_COUNTS = ("proposed", "accepted", "improved", "completed", "no_pair")


def pack_uvnest_counted(model: Model, seconds: float, seed: int, threads: int,
                        kinds: Dict[str, List[int]]) -> PackOutcome:
    """Like :func:`pack_uvnest` through ``uvnest.Packer``, stepped until
    ``seconds`` after the call; adds its rotation moves by kind to ``kinds``
    (nothing when the build does not report them)."""
    api = uvnest_api()
    options = uvnest_options(model, 0.0, seed)
    t0 = time.perf_counter()
    packer = api.Packer(model.uvs, model.faces, time_limit=seconds, threads=threads, **options)
    while not packer.final and time.perf_counter() < t0 + seconds:
        packer.step(seconds=max(0.0, t0 + seconds - time.perf_counter()))
    result = packer.best
    wall = time.perf_counter() - t0
    for kind, counts in packer.stats.get("theta_moves", {}).items():
        total = kinds.setdefault(kind, [0] * len(MOVE_COUNTS))
        for i, c in enumerate(counts):
            total[i] += int(c)
    return PackOutcome("uvnest", model.name, result.uvs, wall, times=[wall])


def move_kinds_table(kinds: Dict[str, List[int]]) -> str:
    """Markdown table of the rotation moves by kind: share of all rotation
    moves, then of the kind's own moves accepted, improving, completing;
    and how many of its tries found no edge pair (ran as random steps)."""
    if not kinds:
        return "(this build does not report its rotation moves)"
    all_moves = sum(kinds[k][0] for k in kinds) or 1
    lines = ["| kind | moves | share | accepted | improved | completed | no pair |",
             "|---|---|---|---|---|---|---|"]
    for kind in MOVE_KINDS:
        proposed, accepted, improved, completed, no_pair = (list(kinds.get(kind, [])) + [0] * 5)[:5]
        per = max(proposed, 1)
        lines.append(f"| {kind} | {proposed} | {proposed / all_moves:.3f} | {accepted / per:.3f} | "
                     f"{improved / per:.3f} | {completed / per:.4f} | {no_pair} |")
    return "\n".join(lines)


def run(models: List[Model], packers: List[str], seconds: float, seed: int,
        threads: int = 1, kinds: Optional[Dict[str, List[int]]] = None) -> Dict[str, Dict[str, float]]:
    """Scores per model and packer, printed as they come; with ``kinds``
    uvnest packs through :func:`pack_uvnest_counted` into it."""
    scores: Dict[str, Dict[str, float]] = {}
    for m in models:
        row: Dict[str, float] = {}
        for p in packers:
            if p == "uvnest" and kinds is not None:
                out = pack_uvnest_counted(m, seconds, seed, threads, kinds)
            elif p == "uvnest":
                out = pack_uvnest(m, seconds, seed, threads)
            else:
                out = pack_with_sparrow(m, time_limit=seconds, seed=seed)
            row[p] = score(m, out)
        scores[m.name] = row
        print(m.name, " ".join(f"{p} {v:.4f}" for p, v in row.items()), flush=True)
    return scores


def table(models: List[Model], scores: Dict[str, Dict[str, float]], packers: List[str]) -> str:
    """The Markdown table of :func:`run`'s scores."""
    lines = ["| puzzle | pieces | " + " | ".join(packers) + " |", "|---|---|" + "---|" * len(packers)]
    n_of = {m.name: pieces(m) for m in models}
    for m in models:
        lines.append(f"| {m.name} | {n_of[m.name]} | " + " | ".join(f"{scores[m.name][p]:.4f}" for p in packers) + " |")
    lines.append("| **median** | | " + " | ".join(
        f"**{statistics.median(scores[m.name][p] for m in models):.4f}**" for p in packers) + " |")
    small = [m for m in models if n_of[m.name] <= SMALL]
    if small:
        lines.append(f"| median, {SMALL} pieces or fewer | | " + " | ".join(
            f"{statistics.median(scores[m.name][p] for m in small):.4f}" for p in packers) + " |")
    if "uvnest" in packers and "sparrow" in packers:
        wins = sum(scores[m.name]["uvnest"] >= scores[m.name]["sparrow"] for m in models)
        lines.append(f"\nuvnest at least as good as sparrow on {wins} of {len(models)}.")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> None:
    """Command line: see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="time per run (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=0, help="packers' seed (default: %(default)s)")
    ap.add_argument("--turn-seed", type=int, default=TURN_SEED, help="seed of the turns (default: %(default)s)")
    ap.add_argument("--packers", default="uvnest,sparrow", help="comma-separated: uvnest, sparrow")
    ap.add_argument("--given", action="store_true", help="the Terashima puzzles as given, not turned")
    ap.add_argument("--only", default="", help="comma-separated parts of puzzle names to keep")
    ap.add_argument("--threads", type=int, default=1, help="uvnest's threads (default: %(default)s)")
    ap.add_argument("--move-kinds", action="store_true",
                    help="pack through uvnest.Packer and report its rotation moves by kind")
    args = ap.parse_args(argv)
    packers = [p for p in args.packers.split(",") if p]
    for p in packers:
        if p not in ("uvnest", "sparrow"):
            ap.error(f"unknown packer {p!r}")
    models = ([m for m in puzzle_models() if "terashima" in m.name] if args.given
              else turned_puzzle_models(seed=args.turn_seed))
    if args.only:
        models = [m for m in models if any(s in m.name for s in args.only.split(","))]
    kinds: Optional[Dict[str, List[int]]] = {} if args.move_kinds else None
    scores = run(models, packers, args.seconds, args.seed, args.threads, kinds)
    print()
    print(table(models, scores, packers))
    if kinds is not None:
        print()
        print(move_kinds_table(kinds))


if __name__ == "__main__":
    main()
