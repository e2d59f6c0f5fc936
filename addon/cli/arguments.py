"""The ``uvnest`` argument parser."""
from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from .. import __version__
from ..demo import demo_path
from ..options import AXIS_ROTATIONS, OPTIONS, ROTATIONS
from ..region import load_region
from .demo_command import DEMO_OUTPUT, _cmd_demo
from .info import _cmd_info
from .pack import DEFAULT_TIME, _cli_name, _cmd_pack
from .runner import _cpu_count

def _number(kind: Callable[[str], Any], low: Optional[float] = None, high: Optional[float] = None,
            low_open: bool = False) -> Callable[[str], Any]:
    """An argparse type: ``kind`` within bounds, with a clear message."""

    def convert(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a{'n integer' if kind is int else ' number'}: {text!r}") \
                from None
        if kind is float and not np.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be finite: {text!r}")
        if low is not None and (value <= low if low_open else value < low):
            raise argparse.ArgumentTypeError(f"must be {'>' if low_open else '>='} {low:g}: {text!r}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"must be <= {high:g}: {text!r}")
        return value

    convert.__name__ = kind.__name__
    return convert


def _add_option(group: Any, name: str, **overrides: Any) -> None:
    """Add the packing option ``name`` of :data:`uvnest.options.OPTIONS` to
    ``group``: its flag, default, choices, range and help text from the
    model (``overrides`` where the command line spells it otherwise)."""
    option = OPTIONS[name]
    kw: Dict[str, Any] = {"default": option.default, "help": option.describe(_cli_name)}
    if option.kind == "flag":
        kw["action"] = "store_true"
    elif option.kind == "choice":
        kw["choices"] = option.choices
    elif option.kind in ("number", "whole"):
        kw["type"] = _number(float if option.kind == "number" else int, option.low, option.high, option.low_open)
    kw.update(overrides)
    if kw["default"] is not None and kw["default"] is not False and "%(default)" not in kw["help"]:
        kw["help"] += " (default: %(default)s)"
    group.add_argument(option.cli, **kw)


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keep the descriptions' line breaks; wider option column."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=32)


class TileList(list):
    """UDIM tile numbers as ``--tiles`` gave them (``str`` gives the text back)."""

    def __init__(self, tiles: List[int], text: str) -> None:
        super().__init__(tiles)
        self.text = text

    def __str__(self) -> str:
        return self.text


def _udim_tiles(text: str) -> TileList:
    """An argparse type for ``--tiles``: a comma list of tiles and ranges
    such as ``1001-1010,1021``."""
    tiles: List[int] = []
    try:
        for part in text.split(","):
            lo, _, hi = part.strip().partition("-")
            tiles += list(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a tile list such as 1001-1010,1021: {text!r}") from None
    if not tiles:
        raise argparse.ArgumentTypeError(f"no tiles in {text!r}")
    return TileList(tiles, text)


class RegionFile(list):
    """The rings ``--target-region`` read (``str`` gives the file's absolute path back)."""

    def __init__(self, rings: List[List[List[float]]], path: str) -> None:
        super().__init__(rings)
        self.path = os.path.abspath(path)

    def __str__(self) -> str:
        return self.path


def _region_file(path: str) -> RegionFile:
    """An argparse type for ``--target-region``: the rings of a JSON or SVG file."""
    try:
        return RegionFile([ring.tolist() for ring in load_region(path)], path)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


class TextureSize(tuple):
    """``--texture-size``: ``(width, height)`` in pixels (``str`` gives ``WxH`` or ``N``)."""

    def __str__(self) -> str:
        return str(self[0]) if self[0] == self[1] else f"{self[0]}x{self[1]}"


def _texture_size(text: str) -> TextureSize:
    """An argparse type for ``--texture-size``: ``2048`` or ``2048x1024``."""
    side = _number(int, 0, low_open=True)
    parts = text.lower().split("x")
    if len(parts) > 2:
        raise argparse.ArgumentTypeError(f"not a size such as 2048 or 2048x1024: {text!r}")
    sizes = [side(p.strip()) for p in parts]
    return TextureSize((sizes[0], sizes[-1]))


def build_parser() -> argparse.ArgumentParser:
    """The ``uvnest`` argument parser (subcommands ``pack``, ``info``, ``demo``)."""
    parser = argparse.ArgumentParser(
        prog="uvnest", formatter_class=_Formatter,
        description="Exact UV island packing for OBJ and glTF files.",
        epilog="Run 'uvnest COMMAND --help' for the options of a command. Start with: uvnest demo")
    parser.add_argument("--version", action="version", version=f"uvnest {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "pack", formatter_class=_Formatter, allow_abbrev=False, help="pack the UV islands of mesh files",
        description=(
            "Pack the UV islands of OBJ, glTF and GLB files into the 0..1 tile, as large as possible,\n"
            "at least --margin apart.  Only the UVs change.  Folders are searched recursively.\n\n"
            "Outputs: by default chair.obj -> chair_packed.obj next to it (--suffix); -o for one file;\n"
            "--out-dir mirrors folder structure; inputs are replaced only with --in-place.  Every file\n"
            "is written atomically.  A .gltf output gets its buffers as <name>.bin next to it; images\n"
            "it references are not copied."),
        epilog=(
            "exit status: 0 all files packed (or kept), 1 a file failed, 2 bad arguments or paths (found\n"
            "before any search), 130 interrupted.  A packed layout that covers less of the tile than the\n"
            "input is reported as worse (a warning, and \"worse\": true in --json and --report).\n"
            "Ctrl-C stops cleanly: finished files stay, files in progress are dropped (or written\n"
            "with --keep-best); press it twice to abort at once.\n\n"
            "examples:\n"
            "  uvnest pack chair.obj\n"
            "  uvnest pack models/ --out-dir packed/ --margin-px 4 --texture-size 2048 --preview\n"
            "  uvnest pack scene.glb -o scene_packed.glb --time 10 --rotation 90 --flip\n"
            "  uvnest pack models/ --iterations 20000 --seed 1 --report report.json\n"
            "  uvnest pack models/ --out-dir packed/ --only-if-better --json > results.jsonl\n"
            "  uvnest pack /share/models --out-dir /share/packed --scheduler tcp://head:8786\n"
            "  uvnest pack models/ --out-dir packed/ --emit-commands jobs.txt --chunk 20"))
    p.add_argument("paths", nargs="+", metavar="PATH", help="mesh files (.obj, .gltf, .glb) or folders")
    out = p.add_argument_group("inputs and outputs")
    out.add_argument("--include", action="append", metavar="GLOB",
                     help="in folders, only files matching GLOB (repeatable; matched from the right against the "
                          "path inside the folder, like pathlib's match: '*_lod0.obj', 'chairs/*')")
    out.add_argument("--exclude", action="append", metavar="GLOB",
                     help="in folders, leave out files matching GLOB (repeatable; applied after --include)")
    where = out.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", metavar="OUT", help="output file (one input file only)")
    where.add_argument("--out-dir", metavar="DIR",
                       help="write outputs into DIR, mirroring the folders' structure (names kept unless "
                            "--suffix is given)")
    where.add_argument("--in-place", action="store_true", help="replace the input files")
    out.add_argument("--suffix", metavar="TEXT",
                     help="added to output names (default: _packed, or none with --out-dir); when searching "
                          "folders, files whose name already ends with it are left out as earlier outputs")
    out.add_argument("--skip-existing", action="store_true",
                     help="leave out files whose output exists already (to resume or rerun a batch)")
    out.add_argument("--only-if-better", action="store_true",
                     help="when packing would lower a file's coverage, its output gets the input's layout "
                          "(status unchanged; an input packed --in-place is not touched)")
    out.add_argument("--preview", action="store_true",
                     help="also write a PNG of each layout next to its output (chair_packed.obj -> "
                          "chair_packed.png; needs Pillow)")
    out.add_argument("--preview-size", type=_number(int, 128, 16384), default=1024, metavar="PX",
                     help="preview side in pixels (default: %(default)s)")
    out.add_argument("--report", metavar="FILE.json",
                     help="write per-file results (coverage before and after, scale, time, status) as JSON "
                          "(- for standard output)")

    opt = p.add_argument_group("packing (the Python API's and Blender's names)")
    _add_option(opt, "margin")
    _add_option(opt, "margin_px", metavar="PX")
    _add_option(opt, "texture_size", type=_texture_size, metavar="PX|WxH")
    _add_option(opt, "rotation", choices=ROTATIONS + tuple(AXIS_ROTATIONS),
                help="island rotations allowed: none, quarter turns, any (by --rotation-step), or Blender's "
                     "axis-aligned methods: each island turned to its smallest bounding box, then quarter "
                     "turns (axis), lying (axis_x) or standing (axis_y) (default: %(default)s)")
    _add_option(opt, "rotation_step", metavar="DEG")
    _add_option(opt, "flip")
    _add_option(opt, "shape")
    _add_option(opt, "merge_overlapping", action="store_true", default=False,
                help="pack overlapping (stacked) islands separately instead of moving them together")
    _add_option(opt, "padding")
    _add_option(opt, "target", type=_number(float), nargs=4, metavar=("X0", "Y0", "X1", "Y1"), default=None,
                help="pack into this rectangle of UV space (default: the 0..1 tile; with --udim or "
                     "--no-scale, the part of every tile to use)")
    opt.add_argument("--target-region", type=_region_file, metavar="FILE",
                     help="pack into a region instead: a JSON list of rings of [u, v] points, or the paths of an "
                          "SVG (lines only; its viewBox is the 0..1 tile); inner rings are keep-out zones")
    _add_option(opt, "stack_similar", type=_number(float, 0.0, 0.5), nargs="?", const=True, metavar="TOL",
                help="pack copies of one island shape (turned, or mirrored with --flip) stacked as one; TOL: "
                     "how similar, a share of the island's size (default 0.001)")
    _add_option(opt, "max_scale_ratio", metavar="R")
    _add_option(opt, "group_layout",
                help="what each OBJ object/group/material (glTF primitive) keeps to: with --udim and "
                     "--keep-groups one tile (tiles); or a compact region of its own each, the regions at least "
                     "the margin apart, at one scale (together)")
    opt.add_argument("--no-scale", action="store_true",
                     help="keep the islands' size (Blender's Scale off): pack them into the 0..1 tile as they are")
    opt.add_argument("--locked", action="append", metavar="NAME",
                     help="islands of this OBJ object, group or material (glTF mesh/primitive name; globs "
                          "allowed) stay where they are and are packed around (repeatable)")
    _add_option(opt, "seed")

    udim = p.add_argument_group("UDIM tiles and the texel grid")
    udim.add_argument("--udim", action="store_true",
                      help="keep the islands' size and use as few UDIM tiles as possible")
    _add_option(udim, "tiles", type=_udim_tiles, metavar="TILES",
                help="the UDIM tiles to fill, in order, e.g. 1001-1010,1021 (default: 1001-1100; implies --udim)")
    _add_option(udim, "texel_density", metavar="PX_PER_UNIT",
                help="give every island this many texels per unit of 3D length (needs --texture-size; "
                     "implies --udim)")
    udim.add_argument("--keep-groups", action="store_true",
                      help="with --udim, keep each OBJ object/group/material (glTF primitive) in one tile "
                           "whenever it fits")
    _add_option(udim, "pixel_perfect")
    _add_option(udim, "block_align", metavar="PX")

    run = p.add_argument_group("search and batch")
    run.add_argument("--time", type=_number(float, 0.0), metavar="SECONDS",
                     help=f"search time per file (default: {DEFAULT_TIME:g}, or no time limit with --iterations)")
    run.add_argument("--iterations", type=_number(int, 0), metavar="N",
                     help="search moves per file: with a fixed seed the result is the same on every run")
    run.add_argument("--uv-set", type=_number(int, 0), default=0, metavar="N",
                     help="glTF UV set to pack, TEXCOORD_N (default: %(default)s)")
    run.add_argument("-j", "--jobs", type=_number(int, 1), metavar="N",
                     help=f"files packed in parallel on this machine (default: all cores, here {_cpu_count()})")
    _add_option(run, "threads", metavar="N",
                help="cores each file's search runs on; the layout depends on it, as on --seed (default: "
                     "this machine's cores divided between the files packed at once, all of them for one "
                     "file; 1 with --scheduler local; with another --scheduler each worker's cores)")
    run.add_argument("--scheduler", metavar="ADDRESS",
                     help="pack on a Dask cluster instead: a scheduler address such as tcp://head:8786, or "
                          "'local' for a LocalCluster on this machine (needs uvnest[dask]; paths must be on "
                          "storage the workers share)")
    run.add_argument("--emit-commands", metavar="FILE",
                     help="pack nothing: write one 'uvnest pack' command per file (or per --chunk files) to "
                          "FILE for a render farm ('-' for stdout)")
    run.add_argument("--chunk", type=_number(int, 1), metavar="N",
                     help="with --emit-commands, N files per command (default: 1)")
    run.add_argument("--dry-run", action="store_true",
                     help="pack nothing: list each file and where its output would go")
    run.add_argument("--fail-fast", action="store_true", help="stop at the first file that fails")
    run.add_argument("--keep-best", action="store_true",
                     help="on Ctrl-C, write the best layout found so far for the files in progress")

    shown = p.add_argument_group("what is printed")
    shown.add_argument("-v", "--verbose", action="count", default=0,
                       help="also a line when a file starts, and more detail per file")
    shown.add_argument("-q", "--quiet", action="count", default=0,
                       help="only warnings, errors and the summary; -qq: nothing")
    shown.add_argument("--json", action="store_true",
                       help="print one JSON object per file on stdout as each file finishes (JSON lines)")
    p.set_defaults(run=_cmd_pack, command_parser=p)

    i = sub.add_parser(
        "info", formatter_class=_Formatter, help="show the UV islands of mesh files",
        description=(
            "Per file: islands, groups of overlapping islands (stacked copies, islands in another's\n"
            "hole, partial overlaps) that move together when packing, islands outside the 0..1 tile,\n"
            "UV coverage of the tile (area of the union of the islands inside it), faces and UVs."))
    i.add_argument("paths", nargs="+", metavar="PATH", help="mesh files (.obj, .gltf, .glb) or folders")
    i.add_argument("--json", action="store_true", help="print a JSON list, one object per file")
    i.add_argument("--uv-set", type=_number(int, 0), default=0, metavar="N",
                   help="glTF UV set, TEXCOORD_N (default: %(default)s)")
    i.set_defaults(run=_cmd_info, command_parser=i)

    d = sub.add_parser(
        "demo", formatter_class=_Formatter, help="pack the sample model shipped with uvnest",
        description=(
            "Pack the sample model shipped with uvnest (a UV-unwrapped gadget with badly laid out\n"
            f"islands) and write {DEMO_OUTPUT} and its preview {Path(DEMO_OUTPUT).with_suffix('.png')}\n"
            "(needs Pillow) into the current folder or --out-dir.  The sample is\n"
            f"{demo_path()}."))
    d.add_argument("--out-dir", metavar="DIR", help="where to write (default: the current folder)")
    d.add_argument("--time", type=_number(float, 0.0), default=DEFAULT_TIME, metavar="SECONDS",
                   help="search time (default: %(default)s)")
    d.add_argument("--preview-size", type=_number(int, 128, 16384), default=1024, metavar="PX",
                   help="preview side in pixels (default: %(default)s)")
    d.set_defaults(run=_cmd_demo, command_parser=d)
    return parser
