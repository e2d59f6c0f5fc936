"""Benchmark results: their data model, ``results.json``, the markdown reports and the plots.

Files written into the output folder by :func:`write_reports`:

* ``results.json`` - every number of the run (NaN written as ``null``);
* ``summary.md`` - machine and date, invalid layouts first, then per packer
  the median and worst coverage ratio against Blender CONCAVE and the median
  time ratio (ratios hold on a noisy machine), puzzles as a fraction of the
  optimum, and the synthetic scaling table;
* ``models.md`` - one table per model: coverage of each packer, ratio to
  Blender CONCAVE, time, peak memory, validity;
* ``ratio.png``, ``curves.png``, ``scaling.png`` - coverage ratio per model,
  uvnest coverage against time with Blender's and xatlas's levels, and time
  against island count (matplotlib, Agg backend).
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import platform
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from .checker import CheckResult
from .common import PackOutcome

#: The reference every ratio is taken against.
REFERENCE = "blender-concave"
#: Packers in the order tables list them.
PACKER_ORDER = ("blender-concave", "blender-aabb", "xatlas", "uvnest-first", "uvnest-blender",
                "uvnest-2s", "uvnest-10s", "uvnest-box")
#: Relative coverage difference below which two packers count as tied.
TIE_RTOL = 1e-3


@dataclass
class PackerResult:
    """One packer on one model: its outcome and the checker's verdict."""

    packer: str
    status: str
    valid: bool
    coverage: float
    raw_coverage: float
    seconds: float
    times: List[float]
    peak_rss_mb: Optional[float]
    extra_rss_mb: Optional[float]
    min_distance: float
    scale: float
    violation: str
    message: str
    info: Dict[str, Any]

    @classmethod
    def of(cls, outcome: PackOutcome, check: CheckResult) -> "PackerResult":
        """Combine a packer's outcome with its check."""
        return cls(packer=outcome.packer, status=outcome.status, valid=check.valid, coverage=check.coverage,
                   raw_coverage=check.raw_coverage, seconds=outcome.seconds, times=list(outcome.times),
                   peak_rss_mb=outcome.peak_rss_mb, extra_rss_mb=outcome.extra_rss_mb,
                   min_distance=check.min_distance, scale=check.scale, violation=check.first_violation,
                   message=outcome.message, info=dict(outcome.info))


@dataclass
class ModelResult:
    """Every packer on one model, plus uvnest's coverage curve ``[(seconds, coverage), ...]``.

    ``n_islands`` and ``n_groups`` count islands of non-zero area only.
    """

    name: str
    kind: str
    n_uvs: int
    n_faces: int
    n_islands: int
    n_groups: int
    margin: float
    rotation: str
    optimum: Optional[float]
    packers: Dict[str, PackerResult] = field(default_factory=dict)
    curve: List[Tuple[float, float]] = field(default_factory=list)

    def ratio(self, packer: str, reference: str = REFERENCE) -> Optional[float]:
        """Coverage of ``packer`` over the reference's, or None when either is missing or invalid."""
        a, b = self.packers.get(packer), self.packers.get(reference)
        if a is None or b is None or not b.valid or b.coverage <= 0:
            return None
        return a.coverage / b.coverage

    def density_ratio(self, packer: str, reference: str = REFERENCE) -> Optional[float]:
        """Texel density of ``packer`` over the reference's: the ratio of their common scales, squared.

        0 for an invalid layout; None when the reference is invalid.  Equal to
        :meth:`ratio` for packers that keep merge groups stacked; a packer
        that unstacks them (xatlas cannot merge overlapping charts) covers
        more of the tile at the same scale, which this ratio does not reward.
        """
        a, b = self.packers.get(packer), self.packers.get(reference)
        if a is None or b is None or not b.valid or not _finite(b.scale) or b.scale <= 0:
            return None
        if not a.valid or not _finite(a.scale):
            return 0.0
        return (a.scale / b.scale) ** 2

    def time_ratio(self, packer: str, reference: str = REFERENCE) -> Optional[float]:
        """Time of ``packer`` over the reference's, or None when either has no time."""
        a, b = self.packers.get(packer), self.packers.get(reference)
        if a is None or b is None or not _finite(a.seconds) or not _finite(b.seconds) or b.seconds <= 0:
            return None
        return a.seconds / b.seconds


@dataclass
class RunResult:
    """A whole benchmark run."""

    mode: str
    margin: float
    date: str
    machine: Dict[str, Any]
    versions: Dict[str, str]
    wall_seconds: float
    notes: List[str]
    models: List[ModelResult]


def _finite(x: Optional[float]) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def machine_info() -> Dict[str, Any]:
    """CPU model (from ``/proc/cpuinfo``), logical cores, RAM, OS and Python."""
    cpu = platform.processor() or "unknown"
    ram_gb: Optional[float] = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gb = round(int(line.split()[1]) / 1024**2, 1)
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gb": ram_gb, "os": platform.platform(),
            "python": platform.python_version()}


def software_versions(blender: str) -> Dict[str, str]:
    """Versions of everything measured: uvnest (with git commit), Blender, xatlas, numpy, shapely."""
    import shapely

    versions = {"blender": blender, "numpy": np.__version__, "shapely": shapely.__version__}
    try:
        from importlib.metadata import version

        versions["xatlas"] = version("xatlas")
    except Exception as exc:  # noqa: BLE001 - any metadata failure just means "unknown"
        versions["xatlas"] = f"unknown ({type(exc).__name__})"
    import uvnest

    versions["uvnest"] = getattr(uvnest, "__version__", "unknown")
    repo = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=repo, capture_output=True,
                                text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        versions["uvnest_commit"] = (commit or "unknown") + ("+dirty" if dirty else "")
    except (OSError, subprocess.TimeoutExpired):
        versions["uvnest_commit"] = "unknown"
    return versions


# ----------------------------------------------------------------- json


def _jsonable(obj: Any) -> Any:
    """Replace NaN/inf by None and numpy scalars by Python ones, recursively."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.floating, float)):
        return float(obj) if math.isfinite(float(obj)) else None
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj


def write_json(run: RunResult, path: Path) -> None:
    """All numbers of ``run`` as JSON."""
    path.write_text(json.dumps(_jsonable(dataclasses.asdict(run)), indent=1))


# ------------------------------------------------------------- markdown


def _fmt(x: Optional[float], digits: int = 4) -> str:
    return f"{x:.{digits}f}" if _finite(x) else "-"


def _fmt_sig(x: Optional[float]) -> str:
    """Three significant digits (for ratios spanning orders of magnitude)."""
    return f"{x:.3g}" if _finite(x) else "-"


def _fmt_time(x: Optional[float]) -> str:
    if not _finite(x):
        return "-"
    assert x is not None
    return f"{x * 1000:.1f} ms" if x < 1 else f"{x:.2f} s"


def _packers_in(models: Iterable[ModelResult]) -> List[str]:
    seen = {p for m in models for p in m.packers}
    return [p for p in PACKER_ORDER if p in seen] + sorted(seen - set(PACKER_ORDER))


def _invalid_lines(run: RunResult) -> List[str]:
    lines = []
    for m in run.models:
        for p in _packers_in([m]):
            r = m.packers[p]
            if not r.valid:
                lines.append(f"- **{p}** on `{m.name}`: {r.violation or r.status}")
    return lines


def models_markdown(run: RunResult) -> str:
    """One table per model."""
    out = ["# Per-model results", "",
           f"Margin {run.margin} (puzzles: 0). Coverage = area of the packed islands inside the tile; "
           f"ratio = coverage / Blender CONCAVE coverage; density ratio = (scale / Blender CONCAVE's "
           f"scale)^2; time = median wall time of the packing call "
           f"(uvnest marks: when the layout was found); RSS = peak resident memory of the packing "
           f"process during the call (+ the increase over its size before the call).", ""]
    for m in run.models:
        out += [f"## {m.name}", "",
                f"{m.kind}; {m.n_islands} islands in {m.n_groups} merge groups, {m.n_faces} faces, "
                f"{m.n_uvs} UVs; margin {m.margin}; rotation {m.rotation}"
                + (f"; optimum {m.optimum}" if m.optimum is not None else ""), "",
                "| packer | valid | coverage | ratio | density ratio | time | peak RSS MB (+extra) | min gap | note |",
                "|---|---|---|---|---|---|---|---|---|"]
        for p in _packers_in([m]):
            r = m.packers[p]
            rss = (f"{r.peak_rss_mb:.0f} (+{r.extra_rss_mb:.1f})"
                   if _finite(r.peak_rss_mb) and _finite(r.extra_rss_mb) else "-")
            note = r.violation or r.message
            out.append(f"| {p} | {'yes' if r.valid else '**NO**'} | {_fmt(r.coverage)} | "
                       f"{_fmt(m.ratio(p), 3)} | {_fmt(m.density_ratio(p), 3)} | {_fmt_time(r.seconds)} | {rss} | "
                       f"{_fmt(r.min_distance, 5)} | "
                       f"{note.replace('|', '/')[:160]} |")
        out.append("")
    return "\n".join(out)


def _median(values: Sequence[float]) -> Optional[float]:
    return float(np.median(values)) if len(values) else None


def _aggregate_table(models: List[ModelResult]) -> List[str]:
    rows = ["| packer | models | valid | median ratio | worst ratio (model) | best ratio | "
            "wins / ties / losses | median density ratio | median time ratio | median time |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for p in _packers_in(models):
        have = [m for m in models if p in m.packers]
        valid = sum(1 for m in have if m.packers[p].valid)
        ratios = [(r, m.name) for m in have for r in [m.ratio(p)] if r is not None]
        values = [r for r, _ in ratios]
        worst = min(ratios) if ratios else None
        wins = sum(1 for r in values if r > 1 + TIE_RTOL)
        losses = sum(1 for r in values if r < 1 - TIE_RTOL)
        ties = len(values) - wins - losses
        time_ratios = [t for t in (m.time_ratio(p) for m in have) if t is not None]
        densities = [d for d in (m.density_ratio(p) for m in have) if d is not None]
        times = [m.packers[p].seconds for m in have if _finite(m.packers[p].seconds)]
        rows.append(f"| {p} | {len(have)} | {valid} | {_fmt(_median(values), 3)} | "
                    + (f"{worst[0]:.3f} (`{worst[1]}`)" if worst else "-")
                    + f" | {_fmt(max(values) if values else None, 3)} | {wins} / {ties} / {losses} | "
                    f"{_fmt(_median(densities), 3)} | {_fmt_sig(_median(time_ratios))} | "
                    f"{_fmt_time(_median(times))} |")
    return rows


def summary_markdown(run: RunResult, plots: Sequence[str]) -> str:
    """The run's summary: machine, invalid layouts, aggregates per corpus, puzzles, scaling."""
    mc = run.machine
    out = ["# uvnest benchmark summary", "",
           f"- date: {run.date}; mode: {run.mode}; margin: {run.margin} (puzzles 0); "
           f"run time {run.wall_seconds:.0f} s",
           f"- machine: {mc.get('cpu')}, {mc.get('cores')} logical cores, {mc.get('ram_gb')} GB RAM; "
           f"{mc.get('os')}; Python {mc.get('python')}",
           "- software: " + ", ".join(f"{k} {v}" for k, v in run.versions.items()), ""]
    invalid = _invalid_lines(run)
    out += ["## Invalid layouts and failed runs", ""]
    out += (invalid or ["None: every packer produced a valid layout on every model."]) + [""]
    if run.notes:
        out += ["## Notes", ""] + [f"- {n}" for n in run.notes] + [""]
    out += ["## Coverage against Blender CONCAVE", "",
            "Ratio = coverage / Blender CONCAVE coverage on the same model (invalid layouts count 0; "
            f"models where Blender CONCAVE failed are left out). Wins/ties/losses: ratio above / within / "
            f"below 1 +- {TIE_RTOL}. Density ratio = (common island scale / Blender CONCAVE's)^2, "
            "the texel density: it equals the coverage ratio for packers that keep stacked islands "
            "stacked, but not for one that spreads them out (xatlas cannot merge overlapping charts, so "
            "it covers more of the tile than its scale earns). Time ratio = packer time / Blender "
            "CONCAVE time.", ""]
    for kind in ("homedecor", "puzzle", "synthetic"):
        models = [m for m in run.models if m.kind == kind]
        if models:
            out += [f"### {kind} ({len(models)} models)", ""] + _aggregate_table(models) + [""]
    puzzles = [m for m in run.models if m.kind == "puzzle" and m.optimum]
    if puzzles:
        out += ["## Puzzles: density as a fraction of the known optimum", "",
                "| puzzle | rotation | " + " | ".join(_packers_in(puzzles)) + " |",
                "|---|---|" + "---|" * len(_packers_in(puzzles))]
        for m in puzzles:
            assert m.optimum is not None
            cells = [_fmt(m.packers[p].coverage / m.optimum, 3) if p in m.packers else "-"
                     for p in _packers_in(puzzles)]
            out.append(f"| {m.name} | {m.rotation} | " + " | ".join(cells) + " |")
        out.append("")
    synth = sorted((m for m in run.models if m.kind == "synthetic"), key=lambda m: m.n_islands)
    if synth:
        packers = _packers_in(synth)
        out += ["## Synthetic scaling: coverage (time)", "",
                "| islands | " + " | ".join(packers) + " |", "|---|" + "---|" * len(packers)]
        for m in synth:
            cells = [f"{_fmt(m.packers[p].coverage)} ({_fmt_time(m.packers[p].seconds)})"
                     if p in m.packers else "-" for p in packers]
            out.append(f"| {m.n_islands} | " + " | ".join(cells) + " |")
        out.append("")
    out += ["## Files", "", "- `models.md`: one table per model", "- `results.json`: every number"]
    out += [f"- `{p}`" for p in plots] + [""]
    return "\n".join(out)


# ---------------------------------------------------------------- plots


def plot_ratios(run: RunResult, path: Path) -> bool:
    """Coverage ratio to Blender CONCAVE per model and packer (models sorted by uvnest's best ratio)."""
    import matplotlib.pyplot as plt

    packers = [p for p in _packers_in(run.models) if p != REFERENCE]
    models = [m for m in run.models if m.ratio(REFERENCE) is not None]
    if not models or not packers:
        return False
    key = next((p for p in ("uvnest-blender", "uvnest-10s", "uvnest-first") if p in packers), packers[0])
    models.sort(key=lambda m: m.ratio(key) or 0.0)
    fig, ax = plt.subplots(figsize=(max(8.0, 0.12 * len(models) + 4), 5))
    x = np.arange(len(models))
    for p in packers:
        y = [m.ratio(p) for m in models]
        ax.plot(x, [np.nan if v is None else v for v in y], marker="o", ms=3, lw=0.8, label=p)
    ax.axhline(1.0, color="k", lw=1)
    ax.set_xlabel("model (sorted by %s ratio)" % key)
    ax.set_ylabel("coverage / Blender CONCAVE coverage")
    ax.set_title(f"Coverage ratio per model (margin {run.margin})")
    if len(models) <= 40:
        ax.set_xticks(x, [m.name for m in models], rotation=90, fontsize=6)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_curves(run: RunResult, path: Path, max_models: int = 12) -> bool:
    """uvnest coverage against time, with Blender's and xatlas's coverage as levels (small multiples).

    Shows the models with the most merge groups (where packing has the most
    room), at most ``max_models``.
    """
    import matplotlib.pyplot as plt

    models = [m for m in run.models if m.curve]
    if not models:
        return False
    models = sorted(models, key=lambda m: -m.n_groups)[:max_models]
    cols = min(4, len(models))
    rows = int(math.ceil(len(models) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3 * rows), squeeze=False)
    for ax, m in zip(axes.ravel(), models):
        t = [p[0] for p in m.curve]
        c = [p[1] for p in m.curve]
        ax.step(t + [max(t[-1], 10.0)], c + [c[-1]], where="post", color="C0", label="uvnest (reported)")
        for p, colour in (("blender-concave", "C3"), ("blender-aabb", "C1"), ("xatlas", "C2")):
            r = m.packers.get(p)
            if r is not None and r.valid:
                ax.axhline(r.coverage, color=colour, ls="--", lw=1, label=p)
        ref = m.packers.get(REFERENCE)
        if ref is not None and _finite(ref.seconds):
            ax.axvline(ref.seconds, color="C3", ls=":", lw=1)
        for p in ("uvnest-first", "uvnest-blender", "uvnest-2s", "uvnest-10s"):
            r = m.packers.get(p)
            if r is not None and r.valid:
                ax.plot([r.seconds], [r.coverage], "o", color="C0", ms=4)
        ax.set_xscale("symlog", linthresh=0.1)
        ax.set_title(f"{m.name} ({m.n_groups} groups)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_xlabel("seconds", fontsize=7)
        ax.set_ylabel("coverage", fontsize=7)
    for ax in axes.ravel()[len(models):]:
        ax.axis("off")
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8)
    fig.suptitle("uvnest coverage over time (dots: checked layouts; dotted: Blender CONCAVE's time)")
    fig.tight_layout(rect=(0, 0.05, 1, 0.96))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_scaling(run: RunResult, path: Path) -> bool:
    """Time against island count, every packer, log-log."""
    import matplotlib.pyplot as plt

    packers = [p for p in _packers_in(run.models) if p not in ("uvnest-blender", "uvnest-2s", "uvnest-10s")]
    fig, ax = plt.subplots(figsize=(7, 5))
    drawn = False
    for k, p in enumerate(packers):
        pts = sorted((m.n_islands, m.packers[p].seconds) for m in run.models
                     if p in m.packers and m.packers[p].status == "ok" and _finite(m.packers[p].seconds)
                     and m.packers[p].seconds > 0)
        if not pts:
            continue
        drawn = True
        xs, ys = zip(*pts)
        ax.scatter(xs, ys, s=12, color=f"C{k}", label=p, alpha=0.7)
        synth = sorted((m.n_islands, m.packers[p].seconds) for m in run.models
                       if m.kind == "synthetic" and p in m.packers and m.packers[p].status == "ok"
                       and _finite(m.packers[p].seconds) and m.packers[p].seconds > 0)
        if len(synth) > 1:
            sx, sy = zip(*synth)
            ax.plot(sx, sy, color=f"C{k}", lw=1)
    if not drawn:
        plt.close(fig)
        return False
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("islands")
    ax.set_ylabel("seconds (median wall time of one call)")
    ax.set_title("Time against island count (lines: synthetic sets)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def write_reports(run: RunResult, out: Path) -> List[Path]:
    """Write ``results.json``, ``summary.md``, ``models.md`` and the plots into ``out``; return the paths."""
    import matplotlib

    matplotlib.use("Agg")
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "results.json", out / "models.md", out / "summary.md"]
    write_json(run, written[0])
    written[1].write_text(models_markdown(run))
    plots = []
    for name, fn in (("ratio.png", plot_ratios), ("curves.png", plot_curves), ("scaling.png", plot_scaling)):
        if fn(run, out / name):
            plots.append(name)
            written.append(out / name)
    written[2].write_text(summary_markdown(run, plots))
    return written
