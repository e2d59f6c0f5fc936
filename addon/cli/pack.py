"""The ``pack`` command: arguments to tasks, the batch, the summary and the report."""
from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import __version__
from ..io import atomic_write_bytes
from ..packing import Packer
from ..preview import PreviewUnavailable, require_pillow
from .console import _Console
from .inputs import _plan_outputs, collect_inputs
from .results import (EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, FAILED, INTERRUPTED, KEPT, NOT_STARTED, PACKED,
                      FileResult, PackTask)
from .runner import _cpu_count, _not_started, _run_batch

#: Search time per file (seconds) when neither --time nor --iterations is given.
DEFAULT_TIME = 2.0


def _packer_options(args: argparse.Namespace) -> Dict[str, Any]:
    options = {"margin": args.margin, "margin_px": args.margin_px, "texture_size": args.texture_size,
               "rotation": args.rotation, "rotation_step": args.rotation_step, "flip": args.flip,
               "shape": args.shape, "merge_overlapping": not args.no_merge_overlapping, "seed": args.seed,
               "padding": args.padding, "pixel_perfect": args.pixel_perfect, "block_align": args.block_align}
    if args.udim is not None or args.texel_density is not None:
        options["scale"] = "fixed"
        options["tiles"] = args.udim
    if args.texel_density is not None:
        options["texel_density"] = args.texel_density
    return options


def _check_options(options: Dict[str, Any]) -> Optional[str]:
    """The packer's own complaint about ``options`` (checked once on a
    single triangle), or None when they are fine."""
    try:
        Packer(np.array([[0.0, 0.0], [0.01, 0.0], [0.0, 0.01]]), [[0, 1, 2]],
               positions=np.eye(3) * 1e-9 if "texel_density" in options else None, **options)
    except ValueError as e:
        return str(e)
    return None


def _summary(results: Sequence[FileResult], elapsed: float, interrupted: bool, skipped_outputs: int) -> str:
    count = {s: sum(r.status == s for r in results) for s in (PACKED, KEPT, INTERRUPTED, FAILED, NOT_STARTED)}
    n = len(results)
    parts = [f"packed {count[PACKED]} of {n} file{'s' if n != 1 else ''}"]
    if count[KEPT]:
        parts.append(f"{count[KEPT]} stopped early and written with the best layout so far")
    if count[INTERRUPTED]:
        parts.append(f"{count[INTERRUPTED]} stopped and not written")
    if count[FAILED]:
        parts.append(f"{count[FAILED]} failed")
    if count[NOT_STARTED]:
        parts.append(f"{count[NOT_STARTED]} not started")
    text = ", ".join(parts) + f" in {elapsed:.1f} s"
    written = [r for r in results if r.status in (PACKED, KEPT)]
    if written:
        before = sum(r.coverage_before or 0.0 for r in written) / len(written)
        after = sum(r.coverage_after or 0.0 for r in written) / len(written)
        text += f"; mean coverage {before:.1%} -> {after:.1%}"
    if skipped_outputs:
        text += f" (left out {skipped_outputs} earlier output{'s' if skipped_outputs != 1 else ''})"
    return f"uvnest: {'interrupted: ' if interrupted else ''}{text}"


def _write_report(path: Path, results: Sequence[FileResult], args: argparse.Namespace, elapsed: float,
                  interrupted: bool) -> None:
    doc = {
        "uvnest_version": __version__,
        "interrupted": interrupted,
        "time": elapsed,
        "options": {**_packer_options(args), "time": args.time, "iterations": args.iterations,
                    "uv_set": args.uv_set},
        "files": [{k: v for k, v in asdict(r).items() if k != "index"} for r in results],
    }
    atomic_write_bytes(path, (json.dumps(doc, indent=2, allow_nan=False) + "\n").encode("utf-8"))


def _budget(args: argparse.Namespace, default_time: float) -> Tuple[Optional[float], Optional[int]]:
    """(time limit, iterations): ``--time`` defaults to ``default_time``
    unless ``--iterations`` is given (then there is no time limit)."""
    if args.time is None and args.iterations is None:
        return default_time, None
    return args.time, args.iterations


def _cmd_pack(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    t0 = time.perf_counter()
    if args.output is not None and (len(args.paths) != 1 or Path(args.paths[0]).is_dir()):
        parser.error("-o/--output needs exactly one input file (use --out-dir for several files or folders)")
    if args.suffix is not None and (args.in_place or args.output is not None):
        parser.error("--suffix cannot be combined with --in-place or -o/--output")
    if args.keep_groups and args.udim is None and args.texel_density is None:
        parser.error("--keep-groups needs --udim")
    if args.margin_px is not None and args.texture_size is None:
        parser.error("--margin-px needs --texture-size")
    if args.preview:
        try:
            require_pillow()
        except PreviewUnavailable as e:
            parser.error(f"--preview: {e}")
    options = _packer_options(args)
    problem = _check_options(options)
    if problem:
        parser.error(problem)
    suffix = args.suffix if args.suffix is not None else ("" if args.out_dir is not None else "_packed")
    out_dir = Path(args.out_dir) if args.out_dir is not None else None
    files, missing, skipped = collect_inputs(
        args.paths, skip_dir=out_dir, skip_stem_suffix=suffix if not args.in_place and args.output is None else "")
    plans = _plan_outputs(files, output=Path(args.output) if args.output else None, out_dir=out_dir,
                          suffix=suffix, in_place=args.in_place, preview=args.preview)
    time_limit, iterations = _budget(args, DEFAULT_TIME)

    console = _Console(args.quiet, len(missing) + len(plans))
    # one index space in input order: arguments that do not exist, then the planned files
    early: List[FileResult] = [FileResult(index=k, path=arg, status=FAILED, error=m)
                               for k, (arg, m) in enumerate(missing)]
    tasks: List[PackTask] = []
    for k, plan in enumerate(plans, start=len(missing)):
        if plan.error is not None:
            early.append(FileResult(index=k, path=str(plan.path), status=FAILED, error=plan.error))
            continue
        tasks.append(PackTask(index=k, path=str(plan.path), output=str(plan.output), options=options,
                              time_limit=time_limit, iterations=iterations, uv_set=args.uv_set,
                              preview=str(plan.preview) if plan.preview else None, preview_size=args.preview_size,
                              keep_best=args.keep_best, keep_groups=args.keep_groups))
    if not early and not tasks:
        console.summary("uvnest: no .obj, .gltf or .glb files found")
        return EXIT_FAILED
    for r in early:
        console.finished(r)
    if early and args.fail_fast:
        tasks_run: List[FileResult] = [_not_started(t) for t in tasks]
        interrupted = False
    else:
        tasks_run, interrupted = _run_batch(tasks, args.jobs or _cpu_count(), console, args.fail_fast)
    results = sorted(early + tasks_run, key=lambda r: r.index)
    elapsed = time.perf_counter() - t0
    status = EXIT_INTERRUPTED if interrupted else (EXIT_FAILED if any(r.status == FAILED for r in results)
                                                   else EXIT_OK)
    if args.report:
        try:
            _write_report(Path(args.report), results, args, elapsed, interrupted)
        except OSError as e:
            console.error(f"{args.report}: cannot write the report: {e.strerror or e}")
            status = status or EXIT_FAILED
    console.summary(_summary(results, elapsed, interrupted, skipped))
    return status
