"""Batch throughput: files per minute of ``uvnest pack`` on the homedecor
corpus, in a local pool of 2 processes (``-j 2``) and on a 2-worker Dask
``LocalCluster`` (``--scheduler tcp://...``), run side by side.

::

    python -m tests.bench.batch_throughput                    # all 146 models, 300 moves each
    python -m tests.bench.batch_throughput --files 5 --out throughput.json

Both runs are the real command line on a copy of the same files with the
same fixed ``--iterations`` and ``--seed``, so they do the same work; the
outputs are then compared byte for byte (a difference is reported and makes
the exit status 1).  The cluster is started before its run is timed (its
start-up is reported apart): the figure is the steady state a long batch
sees.  Run it on a quiet machine with at least 2 free cores; the numbers
of a loaded machine say little.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from .corpus_islands import CorpusUnavailable, homedecor_files

#: Work per file: fixed, so that both runs do the same and write the same bytes.
DEFAULT_ITERATIONS = 300
WORKERS = 2


def _uvnest() -> List[str]:
    script = Path(sys.executable).with_name("uvnest")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "uvnest"]


def _timed_pack(src: Path, out: Path, extra: Sequence[str], iterations: int, seed: int) -> Dict[str, Any]:
    """Run ``uvnest pack`` on ``src`` into ``out``; wall time and the report's statuses."""
    report = out.with_suffix(".json")
    cmd = _uvnest() + ["pack", str(src), "--out-dir", str(out), "--iterations", str(iterations), "--seed",
                       str(seed), "-qq", "--report", str(report), *extra]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    files = json.loads(report.read_text())["files"] if report.exists() else []
    statuses: Dict[str, int] = {}
    for f in files:
        statuses[f["status"]] = statuses.get(f["status"], 0) + 1
    return {"command": " ".join(cmd[len(_uvnest()):]), "exit": done.returncode, "wall_s": wall,
            "files": len(files), "files_per_minute": 60.0 * len(files) / wall if wall > 0 else None,
            "statuses": statuses, "stderr": done.stderr[-2000:]}


def _differences(a: Path, b: Path) -> List[str]:
    names = sorted({p.relative_to(a).as_posix() for p in a.rglob("*.obj")}
                   | {p.relative_to(b).as_posix() for p in b.rglob("*.obj")})
    return [n for n in names if not ((a / n).is_file() and (b / n).is_file()
                                     and (a / n).read_bytes() == (b / n).read_bytes())]


def measure(models: Sequence[Path], iterations: int = DEFAULT_ITERATIONS, seed: int = 0,
            work: Optional[Path] = None) -> Dict[str, Any]:
    """Pack ``models`` with ``-j 2`` and on a 2-worker LocalCluster; the figures as a dict."""
    import distributed

    with tempfile.TemporaryDirectory(prefix="uvnest-throughput-", dir=work) as tmp:
        root = Path(tmp)
        src = root / "in"
        src.mkdir()
        for m in models:
            shutil.copyfile(m, src / m.name)
        local = _timed_pack(src, root / "local", ["-j", str(WORKERS)], iterations, seed)
        t0 = time.perf_counter()
        with distributed.LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                                      dashboard_address=":0", silence_logs=40) as cluster:
            startup = time.perf_counter() - t0
            where = ["--scheduler", cluster.scheduler_address]
            warm = _timed_pack(src / models[0].name, root / "warm", where, iterations, seed)  # workers import uvnest
            dask = _timed_pack(src, root / "dask", where, iterations, seed)
        differ = _differences(root / "local", root / "dask")
    return {
        "machine": {"platform": platform.platform(), "python": platform.python_version(),
                    "cpus": os.cpu_count(), "load_1min": os.getloadavg()[0] if hasattr(os, "getloadavg") else None},
        "files": len(models), "iterations": iterations, "seed": seed, "workers": WORKERS,
        "local_j2": local, "dask_localcluster": {**dask, "cluster_startup_s": startup, "warm_up_s": warm["wall_s"]},
        "outputs_identical": not differ, "differing_outputs": differ,
    }


def _table(doc: Dict[str, Any]) -> str:
    rows = [("-j 2 (process pool)", doc["local_j2"]), ("Dask LocalCluster, 2 workers", doc["dask_localcluster"])]
    lines = [f"{doc['files']} homedecor files, --iterations {doc['iterations']} --seed {doc['seed']}, "
             f"load {doc['machine']['load_1min']:.2f} on {doc['machine']['cpus']} CPUs",
             f"{'run':<30} {'wall s':>8} {'files/min':>10}  statuses"]
    for name, r in rows:
        lines.append(f"{name:<30} {r['wall_s']:>8.1f} {r['files_per_minute']:>10.1f}  {r['statuses']}")
    d = doc["dask_localcluster"]
    lines.append(f"not timed above: cluster start-up {d['cluster_startup_s']:.1f} s, a one-file warm-up run "
                 f"{d['warm_up_s']:.1f} s; outputs identical: {doc['outputs_identical']}")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.bench.batch_throughput",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, help="only the first N models (by name; default all 146)")
    ap.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS,
                    help=f"search moves per file (default {DEFAULT_ITERATIONS})")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, help="also write the figures as JSON")
    args = ap.parse_args(argv)
    try:
        models = homedecor_files()
    except CorpusUnavailable as e:
        print(f"batch_throughput: {e}", file=sys.stderr)
        return 2
    doc = measure(models[:args.files] if args.files else models, args.iterations, args.seed)
    print(_table(doc))
    if args.out is not None:
        args.out.write_text(json.dumps(doc, indent=2) + "\n")
    runs = (doc["local_j2"], doc["dask_localcluster"])
    return 0 if doc["outputs_identical"] and all(r["exit"] == 0 for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
