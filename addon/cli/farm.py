"""Farm job files (``--emit-commands``): one ``uvnest pack`` command per file
or per chunk of files, each complete on its own, for OpenCue/Deadline-style
farms that run a list of shell commands."""
from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path
from typing import Any, List, Sequence, Tuple

from .results import PackTask

__all__ = ["farm_commands"]

#: Options a farm command does not repeat: it names its files and their
#: outputs itself, packs them, and writes no shared report.
_NOT_REPEATED = {"paths", "output", "out_dir", "in_place", "suffix", "include", "exclude", "report",
                 "emit_commands", "chunk", "scheduler", "dry_run", "help"}


def _option_tokens(parser: argparse.ArgumentParser, args: argparse.Namespace) -> List[str]:
    """The packing options of ``args`` that differ from their defaults, as
    command-line tokens (each value's ``str`` is what was given)."""
    tokens: List[str] = []
    for action in parser._actions:  # argparse has no public list of a parser's options
        if not action.option_strings or action.dest in _NOT_REPEATED:
            continue
        value: Any = getattr(args, action.dest, None)
        if value is None or value is False or value == action.default:
            continue
        flag = action.option_strings[-1]
        if isinstance(action, argparse._CountAction):
            tokens += [flag] * int(value)
        elif action.nargs == 0 or (action.nargs == "?" and value == action.const):
            tokens.append(flag)
        elif isinstance(action, argparse._AppendAction):
            for v in value:
                tokens += [flag, str(v)]
        elif isinstance(action.nargs, int):
            tokens += [flag, *(str(v) for v in value)]
        else:
            tokens += [flag, str(value)]
    return tokens


def _destination(task: PackTask, args: argparse.Namespace) -> Tuple[str, ...]:
    """How a command names where ``task``'s output goes: ``--in-place``,
    ``-o FILE``, or the output's folder and the suffix of its name."""
    if args.in_place:
        return ("--in-place",)
    if args.output is not None:
        return ("-o", os.path.abspath(task.output))
    src, out = Path(task.path), Path(task.output)
    suffix = out.stem[len(src.stem):]  # the planner named it <stem><suffix><ext>
    return ("--out-dir", os.path.abspath(out.parent), "--suffix", suffix)


def farm_commands(parser: argparse.ArgumentParser, args: argparse.Namespace, tasks: Sequence[PackTask],
                  chunk: int) -> List[str]:
    """One shell command line per chunk of up to ``chunk`` consecutive
    tasks with the same destination folder.  Paths are absolute (a farm
    job's working folder is unknown), quoted for POSIX shells, and come
    after ``--``; the packing options are those of ``args``.  Each command
    writes exactly the outputs this run would have written."""
    options = _option_tokens(parser, args)
    lines: List[str] = []
    group: List[PackTask] = []
    where: Tuple[str, ...] = ()

    def flush() -> None:
        if group:
            words = ["uvnest", "pack", *options, *where, "--", *(os.path.abspath(t.path) for t in group)]
            lines.append(" ".join(shlex.quote(w) for w in words))
            group.clear()

    for task in tasks:
        dest = _destination(task, args)
        if dest != where or len(group) >= chunk:
            flush()
            where = dest
        group.append(task)
    flush()
    return lines
