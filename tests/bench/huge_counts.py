"""Huge island counts: the first layout's time, coverage and peak memory (issue 27).

    python -m tests.bench.huge_counts                       # synthetic-1000, synthetic-10000, triangles-100000
    python -m tests.bench.huge_counts --models synthetic-1000 --repeats 3 --threads 1

Each model runs in a child process of its own (``ru_maxrss`` is the peak of
that process: the input, finding the islands and the search), which times
``uvnest.pack(..., time_limit=None, iterations=0)`` from the call to the
exact first layout, the inputs built before the clock starts.  Margin 0.005
and rotation any, as the benchmark runs; the 100,000 triangle islands at
margin 0.001, since at 0.005 no layout exists (100,000 disks of diameter
0.005, one around a point of each island, cover 1.96 tiles: the pack says
so with ``CannotFitError``).  Targets (issue 27, default threads): 1 s at
1,000 islands, 10 s at 10,000, 60 s and 2 GB at 100,000.
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from typing import Dict, List, Optional, Sequence

#: model -> (margin, target seconds, target peak MiB or None)
MODELS: Dict[str, tuple] = {
    "synthetic-1000": (0.005, 1.0, None),
    "synthetic-10000": (0.005, 10.0, None),
    "triangles-100000": (0.001, 60.0, 2048.0),
}


def build(name: str):
    """``(uvs, faces)`` of a model of :data:`MODELS`."""
    from .synthetic import synthetic_model, triangle_islands
    kind, n = name.rsplit("-", 1)
    if kind == "triangles":
        return triangle_islands(int(n))
    model = synthetic_model(int(n))
    return model.uvs, model.faces


def first_layout(name: str, repeats: int, threads: Optional[int]) -> Dict[str, float]:
    """In this process: the median seconds of ``repeats`` first layouts of
    ``name``, its coverage and this process's peak resident memory (MiB)."""
    import uvnest
    uvs, faces = build(name)
    margin = MODELS[name][0]
    kw = {} if threads is None else {"threads": threads}
    times: List[float] = []
    coverage = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        result = uvnest.pack(uvs, faces, time_limit=None, iterations=0, margin=margin, **kw)
        times.append(time.perf_counter() - start)
        coverage = result.coverage
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0   # KiB on Linux
    return {"seconds": statistics.median(times), "coverage": coverage, "peak_mib": peak}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run each model in a child process; print a table (and JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--repeats", type=int, default=1, help="first layouts per model (median)")
    parser.add_argument("--threads", type=int, default=None, help="threads (default: uvnest's, every core)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(first_layout(args.child, args.repeats, args.threads)))
        return 0
    rows = {}
    for name in args.models:
        cmd = [sys.executable, "-m", "tests.bench.huge_counts", "--child", name, "--repeats", str(args.repeats)]
        if args.threads is not None:
            cmd += ["--threads", str(args.threads)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        rows[name] = json.loads(done.stdout.strip().splitlines()[-1])
        margin, target_s, target_mib = MODELS[name]
        r = rows[name]
        met = r["seconds"] <= target_s and (target_mib is None or r["peak_mib"] <= target_mib)
        print(f"{name:18s} margin {margin:<6g} {r['seconds']:7.2f} s  coverage {r['coverage']:.4f}  "
              f"peak {r['peak_mib']:6.0f} MiB  target {target_s:g} s{'' if target_mib is None else f', {target_mib:g} MiB'}: "
              f"{'met' if met else 'NOT met'}", flush=True)
    if args.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
