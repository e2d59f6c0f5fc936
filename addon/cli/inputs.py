"""Which files ``uvnest pack`` reads and where their outputs go."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Dict, List, Optional, Sequence, Tuple

from ..io import SUFFIXES, unwritable
from ..preview import is_uvnest_preview

Found = List[Tuple[Path, Optional[Path]]]


def collect_inputs(paths: Sequence[str], skip_dir: Optional[Path] = None, skip_stem_suffix: str = "",
                   include: Sequence[str] = (), exclude: Sequence[str] = ()) -> Tuple[Found, List[Tuple[str, str]], int]:
    """Expand files and folders into mesh files.

    Returns ``(files, errors, skipped)``: ``files`` are ``(path, root)``
    pairs in a stable order, ``root`` being the folder argument a file was
    found in (``None`` for files given directly); ``errors`` are
    ``(argument, one-line message)`` pairs for arguments that are neither
    files nor folders; ``skipped`` counts files left out because their name
    ends with ``skip_stem_suffix`` (outputs of an earlier run).  Folders are
    searched recursively for .obj, .gltf and .glb files, leaving out hidden
    files and folders and ``skip_dir``, and keeping only files whose path
    inside the folder matches a glob of ``include`` (when given) and none of
    ``exclude`` (matched from the right, as ``PurePath.match``).  A file
    named twice is taken once.
    """
    skip = skip_dir.resolve() if skip_dir is not None else None
    seen = set()
    files: Found = []
    errors: List[Tuple[str, str]] = []
    skipped = 0

    def add(p: Path, root: Optional[Path]) -> None:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            files.append((p, root))

    for arg in paths:
        p = Path(arg)
        if p.is_dir():
            found = []
            for folder, dirs, names in os.walk(p):
                here = Path(folder)
                dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                                 and (skip is None or (here / d).resolve() != skip))
                for name in names:
                    f = here / name
                    if name.startswith(".") or f.suffix.lower() not in SUFFIXES:
                        continue
                    if skip_stem_suffix and f.stem.endswith(skip_stem_suffix):
                        skipped += 1
                        continue
                    found.append(f)
            for f in sorted(found, key=lambda f: f.relative_to(p).as_posix()):
                if _selected(PurePosixPath(f.relative_to(p).as_posix()), include, exclude):
                    add(f, p)
        elif p.is_file():
            add(p, None)
        elif p.exists():
            errors.append((arg, f"{p}: not a regular file or folder"))
        else:
            errors.append((arg, f"{p}: no such file or folder"))
    return files, errors, skipped


def _selected(rel: PurePosixPath, include: Sequence[str], exclude: Sequence[str]) -> bool:
    """Whether a file at ``rel`` inside a folder passes ``--include`` and ``--exclude``."""
    if include and not any(rel.match(g) for g in include):
        return False
    return not any(rel.match(g) for g in exclude)


@dataclass
class _Plan:
    """One input file and where its results go (or why it cannot be packed)."""

    path: Path
    output: Path
    preview: Optional[Path] = None
    error: Optional[str] = None


def _plan_outputs(files: Found, *, output: Optional[Path], out_dir: Optional[Path],
                  suffix: str, in_place: bool, preview: bool) -> List[_Plan]:
    """Output (and preview) path of every input, with per-file errors for
    outputs that would replace an input, collide with each other, or
    previews that would replace a PNG uvnest did not write."""
    plans: List[_Plan] = []
    for path, root in files:
        if in_place:
            out = path
        elif output is not None:
            out = output
        else:
            rel = path.relative_to(root) if root is not None else Path(path.name)
            folder = (out_dir / rel.parent) if out_dir is not None else path.parent
            out = folder / f"{path.stem}{suffix}{path.suffix}"
        plans.append(_Plan(path, out, out.with_suffix(".png") if preview else None))

    inputs = {p.path.resolve() for p in plans}
    claimed: Dict[Path, Path] = {}
    for plan in plans:
        out = plan.output.resolve()
        if plan.path.suffix.lower() in SUFFIXES and \
                SUFFIXES.get(plan.output.suffix.lower()) != SUFFIXES[plan.path.suffix.lower()]:
            plan.error = (f"{plan.path}: output {plan.output} must have the input's format "
                          f"({plan.path.suffix.lower()})")
        elif out in inputs and not in_place:
            plan.error = (f"{plan.path}: output {plan.output} would replace an input file "
                          "(use --in-place to pack files in place)")
        elif out in claimed:
            plan.error = f"{plan.path}: output {plan.output} is also the output of {claimed[out]}"
        elif plan.preview is not None and plan.preview.resolve() in claimed:
            plan.error = f"{plan.path}: preview {plan.preview} is also written for {claimed[plan.preview.resolve()]}"
        if plan.error is None:
            claimed[out] = plan.path
            if plan.preview is not None:
                claimed[plan.preview.resolve()] = plan.path
    if preview:
        for plan in plans:
            if plan.error is None and plan.preview is not None and plan.preview.exists() \
                    and not is_uvnest_preview(plan.preview):
                plan.error = (f"{plan.path}: the preview would replace {plan.preview}, which uvnest did not write "
                              "(a texture?); choose other output names with --suffix or --out-dir")
    return plans


def unwritable_paths(plans: Sequence[_Plan], report: Optional[str], out_dir: Optional[Path]) -> List[str]:
    """Why outputs, previews, ``--out-dir`` or ``--report`` (``-``: standard
    output) cannot be written, one message each, found before any search:
    a device, FIFO or folder in the way (also behind a symbolic link), or a
    folder that is missing under a file or takes no new files."""
    errors: List[str] = []
    if report and report != "-":
        problem = unwritable(report)
        if problem:
            special = os.path.exists(report) and not os.path.isfile(report)
            errors.append(f"--report {report}: {problem}" + ("; use --report - for standard output" if special else ""))
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        errors.append(f"--out-dir {out_dir}: is not a folder")
    folders: Dict[Path, Optional[str]] = {}
    for plan in plans:
        for target in (plan.output, plan.preview):
            if plan.error is not None or target is None:
                continue
            if target.exists() or target.is_symlink():  # a file, link or device of its own
                problem = unwritable(target)
            else:  # a new file: its folder decides, once per folder
                problem = folders.setdefault(target.parent, unwritable(target))
            if problem:
                errors.append(f"{plan.path}: cannot write {target}: {problem}")
    return errors
