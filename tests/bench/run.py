"""The benchmark runner: every packer on the same islands, one checker, one report.

::

    python -m tests.bench --quick            # a few models, under 5 minutes on 2 cores
    python -m tests.bench --full             # whole corpus + puzzles + synthetic scaling
    python -m tests.bench --quick --models lamp,dighe --out /tmp/bench --margin 0.003

Order of work: all models go to Blender first (one process for the batch,
CONCAVE and AABB, per-task timeout), because uvnest is measured at
Blender CONCAVE's wall time on each model; then per model xatlas and the
uvnest curve (first layout, Blender's time, 2 s, 10 s).  Every layout is
checked by ``checker.py``; an invalid one scores 0 and is listed first in
``summary.md``.  A peer that cannot run (no Blender venv, uvnest.pack not
there yet) is reported in the notes and left out; the run goes on.
"""
from __future__ import annotations

import argparse
import datetime
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from .. import blender_env
from .checker import analyse, check_outcome
from .common import Model, PackOutcome
from .corpus_islands import CorpusUnavailable, homedecor_models
from .peers_blender import METHODS, pack_with_blender
from .peers_uvnest import UvnestUnavailable, pack_with_uvnest, uvnest_curve
from .peers_xatlas import pack_with_xatlas
from .puzzles import puzzle_models
from .report import ModelResult, PackerResult, RunResult, machine_info, software_versions, write_reports
from .synthetic import SCALING_SIZES, synthetic_model

#: Homedecor models of ``--quick``: several merge groups each, yet quick for every packer.
QUICK_HOMEDECOR = ("homedecor_bottle", "homedecor_4_bottles", "homedecor_banister_horizontal",
                   "homedecor_calendar")
#: Puzzles of ``--quick`` (file names without ``.json``).
QUICK_PUZZLES = ("dighe2", "terashima1-TA001-bin0")
#: Synthetic set sizes of ``--quick``.
QUICK_SYNTHETIC = (10,)
#: uvnest time marks besides Blender's time (seconds).
UVNEST_MARKS = {"2s": 2.0, "10s": 10.0}
PACKERS = ("blender", "xatlas", "uvnest")


@dataclass
class Config:
    """What to run; see :func:`parse_args` for the command line."""

    mode: str = "quick"
    out: Path = Path("bench-results")
    margin: float = 0.005
    models: Optional[List[str]] = None
    packers: Sequence[str] = PACKERS
    timeout: float = 300.0
    seed: int = 0
    max_repeats: int = 5
    repeat_budget: float = 2.0
    synthetic_seed: int = 0
    uvnest_marks: Dict[str, float] = field(default_factory=lambda: dict(UVNEST_MARKS))
    log: Callable[[str], None] = field(default=print)


def select_models(cfg: Config) -> tuple[List[Model], List[str]]:
    """The models of the run, and notes about corpora that could not be loaded.

    ``--quick``: :data:`QUICK_HOMEDECOR`, :data:`QUICK_PUZZLES` and the
    :data:`QUICK_SYNTHETIC` sets; ``--full``: every homedecor model, every
    puzzle and the :data:`SCALING_SIZES` sets.  ``cfg.models`` instead picks
    from all of these the models named exactly, or containing one of the
    items that is not itself a full name (so ``synthetic-100`` is one set,
    ``synthetic`` all of them).
    """
    notes: List[str] = []
    full = cfg.mode == "full" or cfg.models is not None
    models: List[Model] = []
    try:
        models += homedecor_models(None if full else list(QUICK_HOMEDECOR))
    except CorpusUnavailable as exc:
        notes.append(f"homedecor corpus unavailable: {exc}")
    puzzles = puzzle_models()
    if not puzzles:
        notes.append("no puzzles found (set UVNEST_PUZZLES to the puzzles folder)")
    models += puzzles if full else [p for p in puzzles if p.name.removeprefix("puzzle-") in QUICK_PUZZLES]
    if cfg.models is None:
        sizes = SCALING_SIZES if cfg.mode == "full" else QUICK_SYNTHETIC
        models += [synthetic_model(n, cfg.synthetic_seed) for n in sizes]
        return models, notes
    wanted = [w for w in cfg.models if w]
    all_sizes = sorted(set(SCALING_SIZES) | set(QUICK_SYNTHETIC))
    names = [m.name for m in models] + [f"synthetic-{n}" for n in all_sizes]
    models += [synthetic_model(n, cfg.synthetic_seed) for n in all_sizes
               if any(_matches(w, f"synthetic-{n}", names) for w in wanted)]
    return [m for m in models if any(_matches(w, m.name, names) for w in wanted)], notes


def _matches(item: str, name: str, names: Sequence[str]) -> bool:
    """``--models`` rule: a full model name matches only itself, anything else matches as a substring."""
    return item == name if item in names else item in name


def run(cfg: Config) -> RunResult:
    """Run the benchmark described by ``cfg`` and write its reports into ``cfg.out``."""
    started = time.perf_counter()
    models, notes = select_models(cfg)
    if not models:
        raise SystemExit("no models selected")
    cfg.log(f"{len(models)} models: " + ", ".join(m.name for m in models))
    islands = {m.name: analyse(m) for m in models}
    outcomes: Dict[str, Dict[str, PackOutcome]] = {m.name: {} for m in models}
    curves: Dict[str, list] = {m.name: [] for m in models}

    if "blender" in cfg.packers:
        cfg.log("Blender: packing every model (CONCAVE and AABB) ...")
        try:
            for o in pack_with_blender(models, cfg.margin, methods=tuple(METHODS), timeout=cfg.timeout,
                                       max_repeats=cfg.max_repeats, repeat_budget=cfg.repeat_budget):
                outcomes[o.model][o.packer] = o
        except blender_env.BlenderUnavailable as exc:
            notes.append(f"Blender left out: {exc}")

    uvnest_ok = "uvnest" in cfg.packers
    for k, m in enumerate(models, 1):
        if "xatlas" in cfg.packers:
            outcomes[m.name]["xatlas"] = pack_with_xatlas(m, cfg.margin, cfg.max_repeats, cfg.repeat_budget)
        if uvnest_ok:
            marks = dict(cfg.uvnest_marks)
            ref = outcomes[m.name].get("blender-concave")
            if ref is not None and ref.ok:
                marks = {"blender": ref.seconds, **marks}
            try:
                curve = uvnest_curve(m, cfg.margin, marks, seed=cfg.seed, max_repeats=cfg.max_repeats,
                                     repeat_budget=cfg.repeat_budget)
            except UvnestUnavailable as exc:
                notes.append(f"uvnest left out: {exc}")
                uvnest_ok = False
            else:
                curves[m.name] = curve.points
                for o in curve.outcomes.values():
                    outcomes[m.name][o.packer] = o
                # the box fast path, beside Blender's AABB (it is final at once)
                outcomes[m.name]["uvnest-box"] = pack_with_uvnest(m, cfg.margin, seed=cfg.seed, shape="box")
        summary = ", ".join(f"{p} {o.seconds:.2f}s" for p, o in outcomes[m.name].items() if o.ok)
        cfg.log(f"[{k}/{len(models)}] {m.name}: {summary}")

    results: List[ModelResult] = []
    for m in models:
        isl = islands[m.name]
        margin = m.effective_margin(cfg.margin)
        res = ModelResult(name=m.name, kind=m.kind, n_uvs=len(m.uvs), n_faces=m.n_faces,
                          n_islands=isl.n_area_islands, n_groups=isl.n_area_groups, margin=margin, rotation=m.rotation,
                          optimum=m.optimum, curve=curves[m.name])
        for name, o in outcomes[m.name].items():
            res.packers[name] = PackerResult.of(o, check_outcome(m, o, margin, islands=isl))
        results.append(res)
    run_result = RunResult(mode=cfg.mode, margin=cfg.margin,
                           date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                           machine=machine_info(), versions=software_versions(blender_env.BPY_VERSION),
                           wall_seconds=time.perf_counter() - started, notes=notes, models=results)
    for path in write_reports(run_result, cfg.out):
        cfg.log(f"wrote {path}")
    return run_result


def parse_args(argv: Optional[Sequence[str]] = None) -> Config:
    """Command line -> :class:`Config`."""
    ap = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__.split("\n\n")[0])
    modes = ap.add_mutually_exclusive_group()
    modes.add_argument("--quick", action="store_const", dest="mode", const="quick",
                      help="a few models, under 5 minutes (default)")
    modes.add_argument("--full", action="store_const", dest="mode", const="full",
                      help="whole homedecor corpus, every puzzle, synthetic 10 to 10,000 islands")
    ap.add_argument("--out", type=Path, default=Path("bench-results"), help="output folder (default bench-results/)")
    ap.add_argument("--margin", type=float, default=0.005, help="margin, a fraction of the tile (default 0.005)")
    ap.add_argument("--models", type=lambda s: s.split(","), default=None,
                    help="comma-separated model names or name parts: run only those models")
    ap.add_argument("--packers", type=lambda s: s.split(","), default=list(PACKERS),
                    help="comma-separated subset of blender,xatlas,uvnest (default all)")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds per Blender call before it is killed (default 300 quick, 1800 full)")
    ap.add_argument("--seed", type=int, default=0, help="uvnest seed (default 0)")
    ns = ap.parse_args(argv)
    mode = ns.mode or "quick"
    unknown = set(ns.packers) - set(PACKERS)
    if unknown:
        ap.error(f"unknown packers: {', '.join(sorted(unknown))}")
    return Config(mode=mode, out=ns.out, margin=ns.margin, models=ns.models, packers=ns.packers,
                  timeout=ns.timeout if ns.timeout is not None else (300.0 if mode == "quick" else 1800.0),
                  seed=ns.seed)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``python -m tests.bench``."""
    run(parse_args(argv))
    return 0
