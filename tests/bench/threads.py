"""The parallel search against the serial one, side by side in one run (issue 27).

::

    python -m tests.bench.threads --quick                  # the benchmark's quick models, ~5 min on 2 cores
    python -m tests.bench.threads --full --threads 2       # every model
    python -m tests.bench.threads --models dighe,synthetic-100 --seconds 10 \\
        --blender-times bench-results/results.json         # Blender CONCAVE's time as a mark too

Per model, on the benchmark's islands (``run.select_models``) and options
(``peers_uvnest.uvnest_options``, margin 0.005 unless ``--margin``):

* **Moves per second.**  ``Packer(threads=1)`` and ``Packer(threads=N)``
  are built (not timed), then each searches ``--rate-seconds`` with
  ``step()``; moves are those of every chain together (``stats()['moves_all']``)
  over the wall time of the step calls.  The two run one after the other, in
  both orders (1, N, N, 1), and the rates are summed over both.
* **Where the time goes**, from the N-thread run's counters: the share of
  the N cores' time spent in the chains' moves (``chain_seconds`` over N x
  wall), the share of the wall time outside the parallel sections (Python
  between calls, results handed out), the share of the parallel sections'
  core time the chains waited at the join (the slowest chain of each call,
  ``1 - chain_seconds / (N x wall_seconds)``), and the migrations'
  (``serial_seconds``).  The no-fit polygon cache: bytes held and misses per
  move, one thread against N (each chain computes its own).
* **Coverage at equal wall time.**  ``uvnest.pack(time_limit=t)`` with 1 and
  with N threads for every mark t (``--seconds``, and Blender CONCAVE's
  wall time on the model when ``--blender-times`` names a benchmark
  ``results.json``); each layout goes through the benchmark's checker
  (``checker.check_layout``), and an invalid one scores 0.

Writes ``threads.md`` and ``threads.json`` into ``--out``.  Timings need a
quiet machine: a busy one starves the N-thread run more than the serial one.
"""
from __future__ import annotations

import argparse
import datetime
import json
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from .checker import analyse, check_layout
from .common import Model, PeakMemory
from .peers_uvnest import uvnest_api, uvnest_options
from .report import machine_info
from .run import Config, select_models

#: The issue's targets.
RATE_TARGET = 1.7
COVERAGE_SHARE_TARGET = 0.9
#: Coverages within this relative difference are the same layout's: the
#: checker sums island areas of the transformed outlines, whose last bits
#: depend on where a layout lies (terashima1-TA001 at 10 s: 0.9998166659714768
#: with one thread, ...766 with two, 2 units in the last place).  Counted
#: as "at least" and reported apart (``below_by_rounding``).
COVERAGE_ROUNDING = 1e-12


@dataclass
class RateRun:
    """One ``step()`` search of one packer."""

    threads: int
    moves: int                  # of every chain together
    seconds: float              # wall time of the step calls
    chain_seconds: float        # time the chains spent in their moves (summed over chains)
    parallel_seconds: float     # wall time of the parallel sections (0 with one thread)
    migration_seconds: float
    rounds: int
    cache_bytes: int
    cache_misses: int
    peak_rss_mb: Optional[float]

    @property
    def rate(self) -> float:
        """Moves per second."""
        return self.moves / self.seconds if self.seconds > 0 else 0.0


@dataclass
class ModelThreads:
    """One model: both searches' rates and the coverages at each mark."""

    name: str
    islands: int
    rates: List[RateRun] = field(default_factory=list)
    #: mark label -> {"seconds": t, "1": coverage, "N": coverage}
    coverage: Dict[str, Dict[str, float]] = field(default_factory=dict)
    error: str = ""

    def rate_of(self, threads: int) -> float:
        runs = [r for r in self.rates if r.threads == threads]
        seconds = sum(r.seconds for r in runs)
        return sum(r.moves for r in runs) / seconds if seconds > 0 else 0.0


def rate_run(model: Model, options: dict, threads: int, seconds: float) -> RateRun:
    """Build a packer (untimed), then search ``seconds`` and count the moves."""
    api = uvnest_api()
    memory = PeakMemory()
    with memory:
        packer = api.Packer(model.uvs, model.faces, threads=threads, **options)
        before = packer.stats
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds and not packer.final:
            packer.step(seconds=seconds - (time.perf_counter() - t0))
        wall = time.perf_counter() - t0
        after = packer.stats
    return RateRun(threads=threads, moves=int(after["moves_all"] - before["moves_all"]), seconds=wall,
                   chain_seconds=after["chain_seconds"] - before["chain_seconds"],
                   parallel_seconds=after["wall_seconds"] - before["wall_seconds"],
                   migration_seconds=after["serial_seconds"] - before["serial_seconds"],
                   rounds=int(after["rounds"] - before["rounds"]), cache_bytes=int(after["cache_bytes"]),
                   cache_misses=int(after["cache_misses"] - before["cache_misses"]), peak_rss_mb=memory.peak_mb)


def time_shares(run: RateRun) -> Dict[str, float]:
    """Where the N-thread search's time went (see the module's docstring)."""
    n, wall = run.threads, run.seconds
    if n < 2 or wall <= 0:
        return {}
    return {"in_moves": run.chain_seconds / (n * wall),
            "outside_parallel": 1 - run.parallel_seconds / wall,
            "join_wait": 1 - run.chain_seconds / (n * run.parallel_seconds) if run.parallel_seconds > 0 else 0.0,
            "migration": run.migration_seconds / wall}


def coverage_at(model: Model, options: dict, threads: int, seconds: float, margin: float, islands) -> float:
    """The checker's coverage of ``uvnest.pack(time_limit=seconds)`` (0 when invalid or failed)."""
    api = uvnest_api()
    try:
        result = api.pack(model.uvs, model.faces, time_limit=seconds, threads=threads, **options)
    except (ValueError, RuntimeError, MemoryError):
        return 0.0
    return check_layout(model, result.uvs, margin, packer=f"uvnest-t{threads}", islands=islands).coverage


def blender_times(path: Optional[Path]) -> Dict[str, float]:
    """Blender CONCAVE's wall time per model, from a benchmark ``results.json`` (valid layouts only)."""
    if path is None:
        return {}
    data = json.loads(path.read_text())
    times = {}
    for m in data.get("models", []):
        ref = m.get("packers", {}).get("blender-concave")
        if ref and ref.get("valid"):
            times[m["name"]] = float(ref["seconds"])
    return times


def bench_model(model: Model, cfg: "ThreadsConfig", blender: Dict[str, float]) -> ModelThreads:
    options = uvnest_options(model, cfg.margin, cfg.seed)
    isl = analyse(model)
    res = ModelThreads(model.name, isl.n_area_islands)
    margin = model.effective_margin(cfg.margin)
    try:
        for threads in (1, cfg.threads, cfg.threads, 1):
            res.rates.append(rate_run(model, options, threads, cfg.rate_seconds))
    except (ValueError, RuntimeError, MemoryError) as exc:
        res.error = f"{type(exc).__name__}: {exc}"
        return res
    marks = {f"{s:g}s": s for s in cfg.seconds}
    if model.name in blender:
        marks = {"blender": blender[model.name], **marks}
    for label, seconds in marks.items():
        res.coverage[label] = {"seconds": seconds,
                               "1": coverage_at(model, options, 1, seconds, margin, isl),
                               "N": coverage_at(model, options, cfg.threads, seconds, margin, isl)}
    return res


def summarise(results: Sequence[ModelThreads], n: int) -> Dict[str, object]:
    """Medians over the models, and the targets' verdicts."""
    ok = [r for r in results if not r.error]
    ratios = [r.rate_of(n) / r.rate_of(1) for r in ok if r.rate_of(1) > 0]
    out: Dict[str, object] = {"models": len(results), "failed": [r.name for r in results if r.error]}
    if ratios:
        out["rate_ratio_median"] = statistics.median(ratios)
        out["rate_ratio_min"] = min(ratios)
        out["rate_target_met"] = statistics.median(ratios) >= RATE_TARGET
    shares = [time_shares(run) for r in ok for run in r.rates if run.threads == n]
    for key in ("in_moves", "outside_parallel", "join_wait", "migration"):
        values = [s[key] for s in shares if key in s]
        if values:
            out[f"{key}_median"] = statistics.median(values)
    labels = sorted({label for r in ok for label in r.coverage})
    for label in labels:
        pairs = [r.coverage[label] for r in ok if label in r.coverage]
        at_least = sum(p["N"] >= p["1"] * (1 - COVERAGE_ROUNDING) for p in pairs)
        by_rounding = sum(p["1"] * (1 - COVERAGE_ROUNDING) <= p["N"] < p["1"] for p in pairs)
        gains = [p["N"] / p["1"] - 1 for p in pairs if p["1"] > 0]
        out[f"coverage_{label}"] = {"models": len(pairs), "at_least_serial": at_least,
                                    "below_by_rounding": by_rounding,
                                    "share": at_least / len(pairs) if pairs else 0.0,
                                    "median_gain": statistics.median(gains) if gains else 0.0,
                                    "target_met": bool(pairs) and at_least >= COVERAGE_SHARE_TARGET * len(pairs)}
    return out


def write_report(results: Sequence[ModelThreads], cfg: "ThreadsConfig", wall: float) -> List[Path]:
    n = cfg.threads
    summary = summarise(results, n)
    cfg.out.mkdir(parents=True, exist_ok=True)
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    machine = machine_info()
    data = {"date": date, "machine": machine, "threads": n, "margin": cfg.margin, "seed": cfg.seed,
            "rate_seconds": cfg.rate_seconds, "seconds": list(cfg.seconds), "wall_seconds": wall,
            "summary": summary, "models": [asdict(r) for r in results]}
    json_path = cfg.out / "threads.json"
    json_path.write_text(json.dumps(data, indent=1))
    lines = [f"# threads={n} against threads=1", "",
             f"{date}, {machine['cpu']}, {machine['cores']} cores; margin {cfg.margin}, seed {cfg.seed}; "
             f"{wall:.0f} s in all.", ""]
    if "rate_ratio_median" in summary:
        lines.append(f"* Moves per second, threads={n} over threads=1: median {summary['rate_ratio_median']:.2f}x "
                     f"(lowest {summary['rate_ratio_min']:.2f}x; target {RATE_TARGET}x: "
                     f"{'met' if summary['rate_target_met'] else 'NOT met'}).")
    if "in_moves_median" in summary:
        lines.append(f"* Time of the {n} cores in the chains' moves: median {summary['in_moves_median']:.1%}; "
                     f"wall time outside the parallel sections {summary['outside_parallel_median']:.1%}; "
                     f"core time waiting at the join {summary['join_wait_median']:.1%}; "
                     f"migrations {summary['migration_median']:.3%}.")
    for key, value in summary.items():
        if key.startswith("coverage_") and isinstance(value, dict):
            lines.append(f"* Coverage at {key.removeprefix('coverage_')}: threads={n} at least threads=1 on "
                         f"{value['at_least_serial']} of {value['models']} models"
                         + (f" ({value['below_by_rounding']} of them below by rounding, relative "
                            f"{COVERAGE_ROUNDING:g} at most)" if value["below_by_rounding"] else "")
                         + f" ({value['share']:.0%}; target "
                         f"{COVERAGE_SHARE_TARGET:.0%}: {'met' if value['target_met'] else 'NOT met'}), median "
                         f"gain {value['median_gain']:+.2%}.")
    if summary["failed"]:
        lines.append(f"* Failed: {', '.join(summary['failed'])}.")
    lines += ["", f"| model | islands | moves/s t=1 | moves/s t={n} | ratio | in moves | cache MB t=1 / t={n} "
              f"| misses/move t=1 / t={n} | coverage t=1 / t={n} |",
              "|---|---:|---:|---:|---:|---:|---|---|---|"]
    for r in results:
        if r.error:
            lines.append(f"| {r.name} | {r.islands} | {r.error} | | | | | | |")
            continue
        one = [x for x in r.rates if x.threads == 1]
        many = [x for x in r.rates if x.threads == n]
        shares = [time_shares(x).get("in_moves", 0.0) for x in many]
        miss = [sum(x.cache_misses for x in runs) / max(1, sum(x.moves for x in runs)) for runs in (one, many)]
        cover = "; ".join(f"{label} {c['1']:.4f} / {c['N']:.4f}" for label, c in r.coverage.items())
        lines.append(f"| {r.name} | {r.islands} | {r.rate_of(1):.1f} | {r.rate_of(n):.1f} | "
                     f"{r.rate_of(n) / r.rate_of(1) if r.rate_of(1) else 0:.2f} | "
                     f"{statistics.mean(shares) if shares else 0:.0%} | "
                     f"{one[-1].cache_bytes / 2**20:.1f} / {many[-1].cache_bytes / 2**20:.1f} | "
                     f"{miss[0]:.2f} / {miss[1]:.2f} | {cover} |")
    md_path = cfg.out / "threads.md"
    md_path.write_text("\n".join(lines) + "\n")
    return [md_path, json_path]


@dataclass
class ThreadsConfig:
    """What to run; see :func:`parse_args`."""

    mode: str = "quick"
    models: Optional[List[str]] = None
    out: Path = Path("bench-results")
    margin: float = 0.005
    seed: int = 0
    threads: int = 2
    rate_seconds: float = 3.0
    seconds: Sequence[float] = (10.0,)
    blender_times: Optional[Path] = None


def parse_args(argv: Optional[Sequence[str]] = None) -> ThreadsConfig:
    ap = argparse.ArgumentParser(prog="python -m tests.bench.threads", description=__doc__.split("\n\n")[0])
    modes = ap.add_mutually_exclusive_group()
    modes.add_argument("--quick", action="store_const", dest="mode", const="quick",
                       help="the benchmark's quick models (default)")
    modes.add_argument("--full", action="store_const", dest="mode", const="full", help="every model")
    ap.add_argument("--models", type=lambda s: s.split(","), default=None,
                    help="comma-separated model names or name parts (as python -m tests.bench)")
    ap.add_argument("--out", type=Path, default=Path("bench-results"), help="output folder (default bench-results/)")
    ap.add_argument("--margin", type=float, default=0.005, help="margin, a fraction of the tile (default 0.005)")
    ap.add_argument("--seed", type=int, default=0, help="uvnest seed (default 0)")
    ap.add_argument("--threads", type=int, default=2, help="threads against one (default 2)")
    ap.add_argument("--rate-seconds", type=float, default=3.0,
                    help="search time of each moves-per-second run (4 per model; default 3)")
    ap.add_argument("--seconds", type=lambda s: [float(v) for v in s.split(",")], default=[10.0],
                    help="comma-separated time limits the coverages are compared at (default 10)")
    ap.add_argument("--blender-times", type=Path, default=None,
                    help="a benchmark results.json: Blender CONCAVE's wall time per model is a mark too")
    ns = ap.parse_args(argv)
    if ns.threads < 2:
        ap.error("--threads must be at least 2")
    return ThreadsConfig(mode=ns.mode or "quick", models=ns.models, out=ns.out, margin=ns.margin, seed=ns.seed,
                         threads=ns.threads, rate_seconds=ns.rate_seconds, seconds=ns.seconds,
                         blender_times=ns.blender_times)


def main(argv: Optional[Sequence[str]] = None) -> int:
    cfg = parse_args(argv)
    started = time.perf_counter()
    models, notes = select_models(Config(mode=cfg.mode, models=cfg.models))
    for note in notes:
        print(note)
    if not models:
        raise SystemExit("no models selected")
    blender = blender_times(cfg.blender_times)
    results = []
    for k, model in enumerate(models, 1):
        r = bench_model(model, cfg, blender)
        results.append(r)
        ratio = r.rate_of(cfg.threads) / r.rate_of(1) if not r.error and r.rate_of(1) else 0.0
        print(f"[{k}/{len(models)}] {model.name}: moves/s x{ratio:.2f}; "
              + (r.error or ", ".join(f"{label} {c['1']:.4f} -> {c['N']:.4f}" for label, c in r.coverage.items())),
              flush=True)
    for path in write_report(results, cfg, time.perf_counter() - started):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
