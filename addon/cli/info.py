"""The ``info`` command: islands, overlaps and coverage of mesh files."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Sequence

import numpy as np

from .. import io
from ..io import MeshIOError
from ..islands import find_islands, tile_coverage
from ..tiles import off_tile
from .inputs import collect_inputs
from .packfile import _reason
from .results import EXIT_FAILED, EXIT_OK



def _classify_group(member_areas: Sequence[float], union_area: float) -> str:
    """``stacked`` (every member lies within the largest: copies sharing
    texture space), ``nested`` (members do not overlap in area: an island in
    another's hole) or ``overlapping``."""
    total = float(sum(member_areas))
    largest = max(member_areas) if member_areas else 0.0
    tol = 1e-6 * max(total, 1e-300)
    if union_area <= largest + tol:
        return "stacked"
    if union_area >= total - tol:
        return "nested"
    return "overlapping"


def mesh_info(path: Path, uv_set: int = 0) -> Dict[str, Any]:
    """The UV statistics ``uvnest info`` prints for one file (raises
    ``MeshIOError``/``ValueError`` for files it cannot read)."""
    mesh = io.load(path, uv_set=uv_set)
    info: Dict[str, Any] = {"path": str(path), "format": mesh.format, "faces": len(mesh.faces),
                            "uvs": int(len(mesh.uvs)), "skipped_faces": mesh.skipped_faces,
                            "skipped_primitives": list(mesh.skipped_primitives)}
    if not mesh.faces:
        info.update(islands=0, groups=0, overlapping_groups=[], out_of_tile=[], coverage=0.0, island_area=0.0)
        return info
    single = find_islands(mesh.uvs, mesh.faces, mesh_faces=mesh.mesh_faces, merge_overlapping=False)
    merged = find_islands(mesh.uvs, mesh.faces, mesh_faces=mesh.mesh_faces, merge_overlapping=True)
    bbox = np.array([isl.bbox for isl in single], dtype=np.float64).reshape(-1, 4)
    outside = off_tile(bbox)
    groups = [{"group": g.index, "islands": list(g.members),
               "kind": _classify_group([single[m].area for m in g.members], g.area)}
              for g in merged if len(g.members) > 1]
    info.update(islands=len(single), groups=len(merged), overlapping_groups=groups,
                out_of_tile=[int(i) for i in outside], coverage=tile_coverage(merged),
                island_area=float(sum(isl.area for isl in single)))
    return info


def _info_text(info: Dict[str, Any]) -> str:
    lines = [f"{info['path']}: {info['format']}, {info['faces']} faces with UVs, {info['uvs']} UVs"
             + (f", {info['skipped_faces']} faces without UVs" if info["skipped_faces"] else "")]
    for reason in info["skipped_primitives"]:
        lines.append(f"  skipped {reason}")
    lines.append(f"  islands: {info['islands']} ({info['groups']} groups that move together)")
    groups = info["overlapping_groups"]
    if groups:
        kinds = {k: sum(g["kind"] == k for g in groups) for k in ("stacked", "overlapping", "nested")}
        detail = ", ".join(f"{n} {k}" for k, n in kinds.items() if n)
        lines.append(f"  overlapping groups: {len(groups)} ({detail}; "
                     f"{sum(len(g['islands']) for g in groups)} islands)")
    else:
        lines.append("  overlapping groups: none")
    lines.append(f"  outside the 0..1 tile: {len(info['out_of_tile'])} islands")
    lines.append(f"  coverage: {info['coverage']:.2%} of the tile (islands' total area {info['island_area']:.4g})")
    return "\n".join(lines)


def _cmd_info(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    files, errors, _ = collect_inputs(args.paths)
    entries: List[Dict[str, Any]] = [{"path": arg, "error": m} for arg, m in errors]
    for m in errors:
        print(f"error: {m[1]}", file=sys.stderr)
    for path, _root in files:
        try:
            entry = mesh_info(path, args.uv_set)
        except MeshIOError as e:
            entry = {"path": str(path), "error": str(e)}
        except (ValueError, IndexError, TypeError, MemoryError, OSError) as e:
            entry = {"path": str(path), "error": f"{path}: {_reason(e)}"}
        entries.append(entry)
        if "error" in entry:
            print(f"error: {entry['error']}", file=sys.stderr, flush=True)
        elif not args.json:
            print(_info_text(entry), flush=True)
    if args.json:
        json.dump(entries, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    if not entries:
        print("uvnest: no .obj, .gltf or .glb files found", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_FAILED if any("error" in e for e in entries) else EXIT_OK
