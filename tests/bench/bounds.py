"""An upper bound on coverage that no packer can beat: the largest island alone.

All islands share one scale s, and each must fit in the unit tile, so s is at
most 1 / (the side of the island's smallest bounding square over the allowed
rotations).  Coverage is s^2 times the islands' area, so it is at most
``area / side^2`` for the island with the largest such side (and at most 1).
Where a packer reaches this bound, nothing can beat it by more than the
bound's margin over the other packer - which is how the README explains the
homedecor ratios near 1.01.

With free rotation the smallest side is searched on a grid of angles and
then lowered by what the grid can miss (a bounding box's width changes by at
most 2 r per radian for points within r of the centre), so the bound stays a
bound.

    python -m tests.bench.bounds bench-results/results.json

prints per homedecor model the bound, uvnest's 10 s coverage and Blender
CONCAVE's.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Dict, List, Sequence

import numpy as np

#: Angle grid of the free-rotation search (degrees).
STEP_DEG = 0.05


def smallest_square_side(rings: Sequence[np.ndarray], rotate: bool = True) -> float:
    """A lower bound on the side of the smallest square around ``rings``,
    over all rotations (or unrotated when ``rotate`` is False)."""
    pts = np.vstack([np.asarray(r, dtype=np.float64) for r in rings])
    pts = pts - pts.mean(axis=0)
    if not rotate:
        return float((pts.max(axis=0) - pts.min(axis=0)).max())
    step = np.radians(STEP_DEG)
    ang = np.arange(0.0, np.pi / 2, step)
    c, s = np.cos(ang)[:, None], np.sin(ang)[:, None]
    u = c * pts[None, :, 0] - s * pts[None, :, 1]
    v = s * pts[None, :, 0] + c * pts[None, :, 1]
    side = np.maximum(u.max(axis=1) - u.min(axis=1), v.max(axis=1) - v.min(axis=1)).min()
    # the true minimum lies within step / 2 of a grid angle, where the side
    # is at most r * step smaller (r: the largest distance from the centre)
    r = float(np.hypot(pts[:, 0], pts[:, 1]).max())
    return max(float(side) - r * step, 0.0)


def coverage_bound(outlines: Sequence[Sequence[np.ndarray]], areas: Sequence[float], rotate: bool = True) -> float:
    """Largest coverage any packer can reach with one common scale: the
    islands' total area over the square of the largest smallest-square side."""
    sides = [smallest_square_side(rings, rotate) for rings in outlines if len(rings)]
    largest = max(sides, default=0.0)
    if largest <= 0:
        return 1.0
    return min(1.0, float(sum(areas)) / largest ** 2)


def homedecor_bounds(results: Dict) -> List[Dict]:
    """Per homedecor model of a benchmark ``results.json``: the bound and the
    coverages of uvnest at 10 s and Blender CONCAVE."""
    import uvnest
    from .corpus_islands import homedecor_models

    rows = []
    measured = {m["name"]: m for m in results["models"] if m["kind"] == "homedecor"}
    for model in homedecor_models(sorted(measured)):
        islands = uvnest.find_islands(model.uvs, model.faces, merge_overlapping=True)
        bound = coverage_bound([i.outline for i in islands], [i.area for i in islands],
                               rotate=model.rotation != "none")
        packers = measured[model.name]["packers"]
        rows.append({"model": model.name, "islands": len(islands), "bound": bound,
                     "uvnest_10s": packers["uvnest-10s"]["coverage"],
                     "blender": packers["blender-concave"]["coverage"]})
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.bounds", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="results.json of a benchmark run")
    args = parser.parse_args(argv)
    rows = homedecor_bounds(json.loads(args.results.read_text()))
    print(f"{'model':45s} {'islands':>7s} {'bound':>7s} {'uvnest 10 s':>11s} {'of bound':>8s} "
          f"{'Blender':>7s} {'bound / Blender':>15s}")
    for r in rows:
        ratio = f"{r['bound'] / r['blender']:.3f}" if r["blender"] > 0 else "-"
        print(f"{r['model']:45s} {r['islands']:7d} {r['bound']:7.4f} {r['uvnest_10s']:11.4f} "
              f"{r['uvnest_10s'] / r['bound']:8.3f} {r['blender']:7.4f} {ratio:>15s}")
    near = sum(r["uvnest_10s"] >= 0.995 * r["bound"] for r in rows)
    print(f"uvnest within 0.5 % of the bound on {near} of {len(rows)} models")
    return 0


if __name__ == "__main__":
    sys.exit(main())
