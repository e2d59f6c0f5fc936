"""The options professional packers have, measured (issue 31).

    python -m tests.bench.pro_options --models lamp,bathtub --seconds 10 --out /tmp/po
    python -m tests.bench.pro_options --count 20 --seconds 5
    python -m tests.bench.pro_options --quick        # 4 models, 2 s

Models: homedecor's, and game-like assets of repeated parts (turned and
mirrored copies, ``tests.bench.synthetic.repeated_parts``).  Per model,
``uvnest.pack`` with the same time limit and seed under each
variant: one common scale (the baseline), ``max_scale_ratio`` 1.5 and 2, and
``stack_similar``, and ``group_layout='together'`` with the islands dealt
into ``GROUPS`` groups in turn (the checker's island k in group k mod 3:
every group holds large and small islands; its islands' hulls must come out
at least the margin apart, ``groups_apart``).  Every layout goes through the benchmark's checker
(``checker.check_layout``), told which freedom the variant had: the scale
spread it allows, and which islands were stacked (they may overlap, as islands
overlapping in the input do).  Reported: coverage, its ratio to the
baseline, wall time, stacks and scale spread.  Writes ``pro_options.md`` and
``pro_options.json`` into ``--out``.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from .checker import analyse, check_layout
from .common import Model
from .corpus_islands import homedecor_models
from .synthetic import repeated_parts_model

#: variant name -> extra options of uvnest.pack
VARIANTS: Dict[str, Dict[str, Any]] = {
    "common": {},
    "ratio-1.5": {"max_scale_ratio": 1.5},
    "ratio-2": {"max_scale_ratio": 2.0},
    "stack": {"stack_similar": True},
    "together": {"group_layout": "together"},
}
#: groups the islands are dealt into for the ``together`` variant
GROUPS = 3


def island_stacks(model: Model, result, face_island: np.ndarray, n_islands: int) -> np.ndarray:
    """Per checker island its stack number in ``result.stacks`` (-1 for none)."""
    out = np.full(n_islands, -1, dtype=np.int64)
    for k, stack in enumerate(result.stacks):
        for member in stack.members:
            out[face_island[result.islands[member].faces]] = k
    return out


def groups_apart(model: Model, result, groups: np.ndarray, margin: float) -> bool:
    """Whether the convex hulls of the groups' islands (each of uvnest's
    islands in the group most of its faces have) are at least ``margin``
    apart (shapely, 1e-9 of slack)."""
    import shapely

    starts = np.concatenate(([0], np.cumsum(model.face_sizes)[:-1]))
    corners = np.asarray(result.uvs)[model.face_idx]
    hulls = {}
    for isl in result.islands:
        key = int(np.bincount(groups[isl.faces]).argmax())
        pts = np.concatenate([corners[starts[f]:starts[f] + model.face_sizes[f]] for f in isl.faces])
        hulls.setdefault(key, []).append(pts)
    shapes = [shapely.MultiPoint(np.concatenate(p)).convex_hull for p in hulls.values()]
    return all(shapely.distance(a, b) >= margin - 1e-9 for k, a in enumerate(shapes) for b in shapes[k + 1:])


def run_variant(model: Model, margin: float, seconds: float, seed: int, extra: Dict[str, Any]) -> Dict[str, Any]:
    """One ``uvnest.pack`` run of ``model``, checked."""
    import uvnest

    islands = analyse(model)
    groups = islands.face_island % GROUPS if "group_layout" in extra else None
    t0 = time.perf_counter()
    try:
        result = uvnest.pack(model.uvs, model.faces, margin=margin, time_limit=seconds, seed=seed, groups=groups,
                             **extra)
    except (ValueError, RuntimeError) as exc:
        return {"valid": False, "coverage": 0.0, "seconds": time.perf_counter() - t0, "error": str(exc)}
    wall = time.perf_counter() - t0
    stack_of = island_stacks(model, result, islands.face_island, islands.n_islands) if result.stacks else None
    check = check_layout(model, result.uvs, margin, packer="uvnest", islands=islands,
                         scale_ratio=float(extra.get("max_scale_ratio", 1.0)), island_stack=stack_of)
    return {"valid": check.valid, "coverage": check.coverage, "seconds": wall,
            "stacks": len(result.stacks), "stacked": sum(len(s.members) for s in result.stacks),
            "scale_ratio": float(result.scale_ratio), "scale": float(result.scale),
            "violation": None if check.valid else check.first_violation,
            "groups_apart": None if groups is None else groups_apart(model, result, groups, margin)}


def run(models: Sequence[Model], margin: float, seconds: float, seed: int) -> List[Dict[str, Any]]:
    rows = []
    for model in models:
        row: Dict[str, Any] = {"model": model.name}
        for name, extra in VARIANTS.items():
            row[name] = run_variant(model, margin, seconds, seed, extra)
        rows.append(row)
        print(model.name, " ".join(f"{n}={row[n]['coverage']:.4f}" for n in VARIANTS), flush=True)
    return rows


def report(rows: List[Dict[str, Any]], seconds: float) -> str:
    lines = [f"# Options of professional packers ({seconds:g} s per run, every core)", "",
             "Coverage (its ratio to one common scale); for `stack`, the common scale's ratio too: stacked",
             "copies share their texture, so the gain of stacking is in scale (texel density), not coverage.",
             "`together`: the islands dealt into 3 groups, each group in a region of its own.",
             "", "| model | " + " | ".join(VARIANTS) + " | stack: scale ratio | stacks (islands) | spread at ratio 2 |",
             "|---" * (len(VARIANTS) + 4) + "|"]
    for row in rows:
        base = row["common"]["coverage"]
        cells = [f"{row['common']['coverage']:.4f}"]
        for name in list(VARIANTS)[1:]:
            r = row[name]
            mark = "" if r["valid"] else " INVALID"
            cells.append(f"{r['coverage']:.4f} ({r['coverage'] / base:.3f}){mark}" if base > 0 else "-")
        st = row["stack"]
        gain = st["scale"] / row["common"]["scale"] if st.get("scale") and row["common"].get("scale") else float("nan")
        lines.append(f"| {row['model']} | " + " | ".join(cells) + f" | {gain:.3f}"
                     + f" | {st.get('stacks', 0)} ({st.get('stacked', 0)}) | {row['ratio-2'].get('scale_ratio', 1):.2f} |")
    lines.append("")
    for name in list(VARIANTS)[1:]:
        ratios = [row[name]["coverage"] / row["common"]["coverage"] for row in rows if row["common"]["coverage"] > 0]
        invalid = sum(not row[name]["valid"] for row in rows)
        if ratios:
            lines.append(f"- **{name}**: median coverage ratio to one common scale {statistics.median(ratios):.3f} "
                         f"(min {min(ratios):.3f}, max {max(ratios):.3f}); invalid layouts: {invalid}; median "
                         f"time {statistics.median(row[name]['seconds'] for row in rows):.2f} s")
    apart = [row["together"]["groups_apart"] for row in rows]
    lines.append(f"- **together**: groups' hulls at least the margin apart on {sum(bool(a) for a in apart)} of "
                 f"{len(apart)} models")
    return "\n".join(lines) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.pro_options", description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", help="comma-separated homedecor model names (default: the first --count)")
    parser.add_argument("--count", type=int, default=12,
                        help="how many homedecor models of two or more island groups, in name order (default 12)")
    parser.add_argument("--seconds", type=float, default=10.0, help="time limit of every run (default 10)")
    parser.add_argument("--margin", type=float, default=0.005, help="margin (default 0.005)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("bench-results"))
    parser.add_argument("--parts", default="12,40",
                        help="part counts of the game-like synthetic assets of repeated parts "
                             "(tests.bench.synthetic.repeated_parts; default 12,40; '' for none)")
    parser.add_argument("--quick", action="store_true", help="4 models, 2 s per run (a smoke run)")
    args = parser.parse_args(argv)
    if args.quick:
        args.count, args.seconds = 4, 2.0
    if args.models:
        models = homedecor_models(args.models.split(","))
    else:   # one group alone packs the same under every variant
        models = [m for m in homedecor_models() if analyse(m).n_area_groups >= 2][:args.count]
    models += [repeated_parts_model(int(n), args.seed) for n in args.parts.split(",") if n.strip()]
    rows = run(models, args.margin, args.seconds, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "pro_options.json").write_text(json.dumps(rows, indent=1))
    text = report(rows, args.seconds)
    (args.out / "pro_options.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
