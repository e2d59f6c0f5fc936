"""The ``pack`` command: arguments to tasks, the batch, the summary and the report."""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import __version__
from ..io import SUFFIXES, atomic_write_bytes
from ..errors import NO_ROOM, REQUIRES, InputError
from ..options import DEFAULT_TIME_LIMIT, OPTIONS, PackOptions
from ..preview import PreviewUnavailable, require_pillow
from .console import _Console
from .farm import farm_commands
from .inputs import _Plan, _plan_outputs, collect_inputs, unwritable_paths
from .packfile import engine_rotation
from .results import (EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, FAILED, INTERRUPTED, KEPT, NOT_STARTED, PACKED,
                      PLANNED, SKIPPED, UNCHANGED, WRITTEN, FileResult, PackTask)
from .runner import _cpu_count, _run_batch

#: Search time per file (seconds) when neither --time nor --iterations is given.
DEFAULT_TIME = DEFAULT_TIME_LIMIT


def _packer_options(args: argparse.Namespace) -> Dict[str, Any]:
    """The :class:`uvnest.Packer` options the arguments ask for."""
    options = {"margin": args.margin, "margin_px": args.margin_px,
               "texture_size": tuple(args.texture_size) if args.texture_size else None,
               "rotation": args.rotation, "rotation_step": args.rotation_step, "flip": args.flip,
               "shape": args.shape, "merge_overlapping": not args.no_merge_overlapping, "seed": args.seed,
               "padding": args.padding, "pixel_perfect": args.pixel_perfect, "block_align": args.block_align,
               "threads": args.threads}
    if args.target is not None:
        options["target"] = tuple(args.target)
    if args.target_region is not None:
        options["target"] = args.target_region
    if args.stack_similar is not False:
        options["stack_similar"] = args.stack_similar
    if args.max_scale_ratio != 1.0:
        options["max_scale_ratio"] = args.max_scale_ratio
    if args.group_layout != "tiles":
        options["group_layout"] = args.group_layout
    if _udim(args):
        options["scale"] = "fixed"
        options["tiles"] = list(args.tiles) if args.tiles is not None else None
    elif args.no_scale:
        options["scale"] = "fixed"
        options["tiles"] = [1001]
    if args.texel_density is not None:
        options["texel_density"] = args.texel_density
    return options


def _threads_per_file(args: argparse.Namespace, files: int) -> Optional[int]:
    """The cores of each file's search without --threads: this machine's
    divided between the files packed at once (a local cluster packs one
    file per core); None on another cluster: each worker's."""
    if args.scheduler:
        return 1 if args.scheduler == "local" else None
    return max(1, _cpu_count() // min(args.jobs or _cpu_count(), max(1, files)))


def _udim(args: argparse.Namespace) -> bool:
    """UDIM packing: ``--udim``, or an option that implies it."""
    return bool(args.udim or args.tiles is not None or args.texel_density is not None)


#: What the packer's errors require (``InputError.requires``) that has no flag of its own.
_CLI_REQUIREMENTS = {"scale='fixed'": "--udim or --no-scale", "max_scale_ratio=1": "--max-scale-ratio 1",
                     "scale='fit'": "packing into the tile (no --udim or --no-scale)"}


def _cli_name(name: str) -> str:
    """An option of the Python API as the command line spells it."""
    option = OPTIONS.get(name)
    return option.cli if option is not None and option.cli else _CLI_REQUIREMENTS.get(name, name)


def _cli_message(error: InputError) -> str:
    """The packer's ``error`` in the command line's names, by its code."""
    flag = _cli_name(error.argument)
    if error.code == REQUIRES:   # errors.requirement's message: "<argument> needs <requires><why>"
        why = str(error)[len(f"{error.argument} needs {error.requires}"):]
        return f"{flag} needs {_cli_name(error.requires)}{why}"
    if error.code == NO_ROOM:
        return f"--margin and --padding: {error}"
    text = str(error)
    return flag + text[len(error.argument):] if text.startswith(error.argument) else f"{flag}: {text}"


def _check_options(options: Dict[str, Any]) -> Optional[str]:
    """The packer's complaint about ``options`` (checked by building
    :class:`uvnest.PackOptions`, nothing is packed) in the command line's
    names, or None when they are fine."""
    try:
        PackOptions(**engine_rotation(options)[0])
    except InputError as e:
        return _cli_message(e)
    return None


def _argument_errors(args: argparse.Namespace) -> List[str]:
    """Mistakes in the arguments alone (no file is looked at)."""
    errors = []
    if args.output is not None and (len(args.paths) != 1 or Path(args.paths[0]).is_dir()):
        errors.append("-o/--output needs exactly one input file (use --out-dir for several files or folders)")
    if args.suffix is not None and (args.in_place or args.output is not None):
        errors.append("--suffix cannot be combined with --in-place or -o/--output")
    if args.keep_groups and not _udim(args):
        errors.append("--keep-groups needs --udim")
    if args.target is not None and args.target_region is not None:
        errors.append("--target and --target-region exclude each other")
    if args.no_scale and _udim(args):
        errors.append("--no-scale: --udim, --tiles and --texel-density keep the islands' size already")
    for option, given in (("--margin-px", args.margin_px is not None), ("--texel-density", args.texel_density),
                          ("--pixel-perfect", args.pixel_perfect), ("--block-align", args.block_align)):
        if given and args.texture_size is None:
            errors.append(f"{option} needs --texture-size")
    if args.skip_existing and args.in_place:
        errors.append("--skip-existing cannot be combined with --in-place (the output is the input)")
    if args.verbose and args.quiet:
        errors.append("-v/--verbose and -q/--quiet exclude each other")
    if args.report == "-" and args.json:
        errors.append("--report - and --json both write to standard output")
    if args.chunk is not None and args.emit_commands is None:
        errors.append("--chunk needs --emit-commands")
    modes = [name for name, on in (("--scheduler", args.scheduler), ("--emit-commands", args.emit_commands),
                                   ("--dry-run", args.dry_run)) if on]
    if len(modes) > 1:
        errors.append(f"{' and '.join(modes)} exclude each other")
    if args.scheduler and args.jobs is not None:
        errors.append("-j/--jobs is for this machine; with --scheduler the cluster's workers decide")
    if args.udim and any(_looks_like_tiles(p) for p in args.paths):
        errors.append("--udim takes no value: give the tiles with --tiles, e.g. --udim --tiles 1001-1010")
    if args.preview:
        try:
            require_pillow()
        except PreviewUnavailable as e:
            errors.append(f"--preview: {e}")
    if not errors:
        problem = _check_options(_packer_options(args))
        if problem:
            errors.append(problem)
    return errors


def _looks_like_tiles(path: str) -> bool:
    """``1001``, ``1001-1010,1021``: a tile list given where a path was expected."""
    return bool(re.fullmatch(r"\d{4}(-\d{4})?(,\d{4}(-\d{4})?)*", path)) and not Path(path).exists()


#: How the summary counts files of each status but packed, in this order.
_SUMMARY_NOTES = ((UNCHANGED, "unchanged (packing would lower coverage)"),
                  (KEPT, "stopped early and written with the best layout so far"),
                  (SKIPPED, "skipped (output exists)"), (INTERRUPTED, "stopped and not written"),
                  (FAILED, "failed"), (NOT_STARTED, "not started"))


def _summary(results: Sequence[FileResult], elapsed: float, interrupted: bool, left_out: int) -> str:
    count = {s: sum(r.status == s for r in results)
             for s in (PACKED, KEPT, UNCHANGED, INTERRUPTED, FAILED, NOT_STARTED, SKIPPED, PLANNED)}
    n = len(results)
    files = f"{n} file{'s' if n != 1 else ''}"
    if count[PLANNED]:
        return f"uvnest: dry run: would pack {count[PLANNED]} of {files}" + (
            f", {count[SKIPPED]} skipped (output exists)" if count[SKIPPED] else "")
    parts = [f"packed {count[PACKED]} of {files}"]
    worse = sum(bool(r.worse) for r in results if r.status in (PACKED, KEPT))
    if worse:
        parts.append(f"{worse} worse than the input (written; --only-if-better keeps the input's layout)")
    parts += [f"{count[status]} {what}" for status, what in _SUMMARY_NOTES if count[status]]
    text = ", ".join(parts) + f" in {elapsed:.1f} s"
    written = [r for r in results if r.status in WRITTEN]
    if written:
        before = sum(r.coverage_before or 0.0 for r in written) / len(written)
        after = sum((r.coverage_before if r.status == UNCHANGED else r.coverage_after) or 0.0
                    for r in written) / len(written)
        text += f"; mean coverage {before:.1%} -> {after:.1%}"
    if left_out:
        text += f" (left out {left_out} earlier output{'s' if left_out != 1 else ''})"
    return f"uvnest: {'interrupted: ' if interrupted else ''}{text}"


def _report_options(args: argparse.Namespace) -> Dict[str, Any]:
    return {**_packer_options(args), "time": args.time, "iterations": args.iterations, "uv_set": args.uv_set,
            "locked": args.locked or [], "only_if_better": args.only_if_better}


def report_document(results: Sequence[FileResult], options: Dict[str, Any], elapsed: float,
                    interrupted: bool) -> Dict[str, Any]:
    """The ``--report`` JSON document."""
    return {
        "uvnest_version": __version__,
        "interrupted": interrupted,
        "time": elapsed,
        "options": options,
        "files": [{k: v for k, v in asdict(r).items() if k != "index"} for r in results],
    }


def _budget(args: argparse.Namespace, default_time: float) -> Tuple[Optional[float], Optional[int]]:
    """(time limit, iterations): ``--time`` defaults to ``default_time``
    unless ``--iterations`` is given (then there is no time limit)."""
    if args.time is None and args.iterations is None:
        return default_time, None
    return args.time, args.iterations


def _plans(args: argparse.Namespace) -> Tuple[List[_Plan], int, List[str]]:
    """The files to pack with their outputs, how many earlier outputs were
    left out, and the path errors (missing inputs, clashing outputs)."""
    suffix = args.suffix if args.suffix is not None else ("" if args.out_dir is not None else "_packed")
    out_dir = Path(args.out_dir) if args.out_dir is not None else None
    files, missing, left_out = collect_inputs(
        args.paths, skip_dir=out_dir, skip_stem_suffix=suffix if not args.in_place and args.output is None else "",
        include=args.include or (), exclude=args.exclude or ())
    plans = _plan_outputs(files, output=Path(args.output) if args.output else None, out_dir=out_dir,
                          suffix=suffix, in_place=args.in_place, preview=args.preview)
    known = ", ".join(SUFFIXES)
    errors = [m for _arg, m in missing] + [
        f"{p.path}: unsupported file type {p.path.suffix or '(no suffix)'!r} (supported: {known})"
        if p.path.suffix.lower() not in SUFFIXES else p.error
        for p in plans if p.error is not None or p.path.suffix.lower() not in SUFFIXES]
    if not errors and not plans:
        errors.append("no .obj, .gltf or .glb files found" + (" (after --include/--exclude)"
                                                               if args.include or args.exclude else ""))
    if not errors and args.emit_commands is None:  # farm commands write on the machines that run them
        errors = unwritable_paths([] if args.dry_run else plans, None if args.dry_run else args.report, out_dir)
    return plans, left_out, errors


def _cmd_pack(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    t0 = time.perf_counter()
    errors = _argument_errors(args)
    plans: List[_Plan] = []
    left_out = 0
    if not errors:
        plans, left_out, errors = _plans(args)
    if errors:
        parser.error("\n  ".join(errors))
    options = _packer_options(args)
    if options["threads"] is None:
        options["threads"] = _threads_per_file(args, len(plans))
    time_limit, iterations = _budget(args, DEFAULT_TIME)
    tasks = [PackTask(index=k, path=str(plan.path), output=str(plan.output), options=options,
                      time_limit=time_limit, iterations=iterations, uv_set=args.uv_set,
                      preview=str(plan.preview) if plan.preview else None, preview_size=args.preview_size,
                      keep_best=args.keep_best, keep_groups=args.keep_groups, only_if_better=args.only_if_better,
                      locked_groups=tuple(args.locked or ()))
             for k, plan in enumerate(plans)]
    early: List[FileResult] = []
    if args.skip_existing:
        early = [FileResult(index=t.index, path=t.path, status=SKIPPED, output=t.output)
                 for t in tasks if Path(t.output).exists()]
        tasks = [t for t in tasks if not Path(t.output).exists()]
    if args.emit_commands is not None:
        return _emit(args, parser, tasks)
    console = _Console(args.verbose - args.quiet, len(plans), records=sys.stdout if args.json else None)
    for r in early:
        console.finished(r)
    if args.dry_run:
        ran = [FileResult(index=t.index, path=t.path, status=PLANNED, output=t.output) for t in tasks]
        for r in ran:
            console.finished(r)
        interrupted = False
    elif args.scheduler:
        from ..batch import ClusterUnavailable, run_on_cluster
        try:
            ran, interrupted = run_on_cluster(tasks, args.scheduler, console, fail_fast=args.fail_fast)
        except ClusterUnavailable as e:
            console.close()
            parser.error(f"--scheduler {args.scheduler}: {e}")
    else:
        ran, interrupted = _run_batch(tasks, args.jobs or _cpu_count(), console, args.fail_fast)
    results = sorted(early + ran, key=lambda r: r.index)
    elapsed = time.perf_counter() - t0
    status = EXIT_INTERRUPTED if interrupted else (EXIT_FAILED if any(r.status == FAILED for r in results)
                                                   else EXIT_OK)
    if args.report and not args.dry_run:
        text = json.dumps(report_document(results, _report_options(args), elapsed, interrupted), indent=2,
                          allow_nan=False) + "\n"
        try:
            if args.report == "-":
                sys.stdout.write(text)
                sys.stdout.flush()
            else:
                Path(args.report).parent.mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(Path(args.report), text.encode())
        except OSError as e:
            console.error(f"{args.report}: cannot write the report: {e.strerror or e}")
            status = status or EXIT_FAILED
    console.summary(_summary(results, elapsed, interrupted, left_out))
    return status


def _emit(args: argparse.Namespace, parser: argparse.ArgumentParser, tasks: Sequence[PackTask]) -> int:
    """``--emit-commands``: write the farm commands, pack nothing."""
    text = "".join(line + "\n" for line in farm_commands(parser, args, tasks, args.chunk or 1))
    if args.emit_commands == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        try:
            atomic_write_bytes(Path(args.emit_commands), text.encode())
        except OSError as e:
            print(f"error: {args.emit_commands}: cannot write: {e.strerror or e}", file=sys.stderr)
            return EXIT_FAILED
    if args.quiet < 2:
        n = text.count("\n")
        print(f"uvnest: wrote {n} command{'s' if n != 1 else ''} for {len(tasks)} file{'s' if len(tasks) != 1 else ''}"
              + ("" if args.emit_commands == "-" else f" to {args.emit_commands}"), file=sys.stderr)
    return EXIT_OK
