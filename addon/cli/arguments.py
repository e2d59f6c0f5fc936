"""The ``uvnest`` argument parser."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Callable, List, Optional

import numpy as np

from .. import __version__
from .demo_command import DEMO_OUTPUT, _cmd_demo
from .info import _cmd_info
from .pack import DEFAULT_TIME, _cmd_pack
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


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keep the descriptions' line breaks; wider option column."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=32)


def _udim_tiles(text: str) -> List[int]:
    """An argparse type for ``--udim``: a comma list of tiles and ranges
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
    return tiles


def build_parser() -> argparse.ArgumentParser:
    """The ``uvnest`` argument parser (subcommands ``pack``, ``info``, ``demo``)."""
    parser = argparse.ArgumentParser(
        prog="uvnest", formatter_class=_Formatter,
        description="Exact UV island packing for OBJ and glTF files.",
        epilog="Run 'uvnest COMMAND --help' for the options of a command. Start with: uvnest demo")
    parser.add_argument("--version", action="version", version=f"uvnest {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "pack", formatter_class=_Formatter, help="pack the UV islands of mesh files",
        description=(
            "Pack the UV islands of OBJ, glTF and GLB files into the 0..1 tile, as large as possible,\n"
            "at least --margin apart.  Only the UVs change.  Folders are searched recursively.\n\n"
            "Outputs: by default chair.obj -> chair_packed.obj next to it (--suffix); -o for one file;\n"
            "--out-dir mirrors folder structure; inputs are replaced only with --in-place.  Every file\n"
            "is written atomically.  A .gltf output gets its buffers as <name>.bin next to it; images\n"
            "it references are not copied."),
        epilog=(
            "exit status: 0 all files packed, 1 a file failed, 2 bad arguments, 130 interrupted.\n"
            "Ctrl-C stops cleanly: finished files stay, files in progress are dropped (or written\n"
            "with --keep-best); press it twice to abort at once.\n\n"
            "examples:\n"
            "  uvnest pack chair.obj\n"
            "  uvnest pack models/ --out-dir packed/ --margin-px 4 --texture-size 2048 --preview\n"
            "  uvnest pack scene.glb -o scene_packed.glb --time 10 --rotation 90 --flip\n"
            "  uvnest pack models/ --iterations 20000 --seed 1 --report report.json"))
    p.add_argument("paths", nargs="+", metavar="PATH", help="mesh files (.obj, .gltf, .glb) or folders")
    out = p.add_argument_group("output")
    where = out.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", metavar="OUT", help="output file (one input file only)")
    where.add_argument("--out-dir", metavar="DIR",
                       help="write outputs into DIR, mirroring the folders' structure (names kept unless "
                            "--suffix is given)")
    where.add_argument("--in-place", action="store_true", help="replace the input files")
    out.add_argument("--suffix", metavar="TEXT",
                     help="added to output names (default: _packed, or none with --out-dir); when searching "
                          "folders, files whose name already ends with it are left out as earlier outputs")
    out.add_argument("--preview", action="store_true",
                     help="also write a PNG of each layout next to its output (chair_packed.obj -> "
                          "chair_packed.png; needs Pillow)")
    out.add_argument("--preview-size", type=_number(int, 128, 16384), default=1024, metavar="PX",
                     help="preview side in pixels (default: %(default)s)")
    out.add_argument("--report", metavar="FILE.json",
                     help="write per-file results (coverage before and after, scale, time, status) as JSON")

    opt = p.add_argument_group("packing")
    opt.add_argument("--margin", type=_number(float, 0.0), default=0.001,
                     help="smallest gap between islands, in tile units (default: %(default)s)")
    opt.add_argument("--margin-px", type=_number(float, 0.0), metavar="PX",
                     help="margin in pixels of --texture-size (overrides --margin)")
    opt.add_argument("--texture-size", type=_number(int, 0, low_open=True), metavar="PX",
                     help="texture side in pixels, for --margin-px")
    opt.add_argument("--rotation", choices=("none", "90", "any"), default="any",
                     help="island rotations allowed (default: %(default)s)")
    opt.add_argument("--rotation-step", type=_number(float, 0.5, 360.0), default=5.0, metavar="DEG",
                     help="angle step for --rotation any, in degrees (default: %(default)s)")
    opt.add_argument("--flip", action="store_true", help="allow mirrored islands")
    opt.add_argument("--shape", choices=("concave", "convex", "box"), default="concave",
                     help="island shape used for packing (default: %(default)s)")
    opt.add_argument("--no-merge-overlapping", action="store_true",
                     help="pack overlapping (stacked) islands separately instead of moving them together")
    opt.add_argument("--padding", type=_number(float, 0.0), default=0.0,
                     help="smallest gap between islands and the tile border, in tile units (default: %(default)s)")
    opt.add_argument("--seed", type=_number(int, 0), default=0, help="random seed (default: %(default)s)")

    udim = p.add_argument_group("UDIM tiles and the texel grid")
    udim.add_argument("--udim", nargs="?", const="1001-1100", type=_udim_tiles, metavar="TILES",
                      help="keep the islands' size and use as few UDIM tiles as possible; optionally the tiles "
                           "to fill, in order, e.g. 1001-1010,1021 (default: 1001-1100)")
    udim.add_argument("--texel-density", type=_number(float, 0.0, low_open=True), metavar="PX_PER_UNIT",
                      help="give every island this many texels per unit of 3D length (needs --texture-size; "
                           "implies --udim)")
    udim.add_argument("--keep-groups", action="store_true",
                      help="with --udim, keep each OBJ object/group/material (glTF primitive) in one tile "
                           "whenever it fits")
    udim.add_argument("--pixel-perfect", action="store_true",
                      help="snap island positions to the texel grid of --texture-size (margins still hold)")
    udim.add_argument("--block-align", type=_number(int, 1), metavar="PX",
                      help="snap island positions to PX x PX blocks (4 for BCn/ETC) and keep every block to one "
                           "island (needs --texture-size)")

    run = p.add_argument_group("search and batch")
    run.add_argument("--time", type=_number(float, 0.0), metavar="SECONDS",
                     help=f"search time per file (default: {DEFAULT_TIME:g}, or no time limit with --iterations)")
    run.add_argument("--iterations", type=_number(int, 0), metavar="N",
                     help="search moves per file: with a fixed seed the result is the same on every run")
    run.add_argument("--uv-set", type=_number(int, 0), default=0, metavar="N",
                     help="glTF UV set to pack, TEXCOORD_N (default: %(default)s)")
    run.add_argument("-j", "--jobs", type=_number(int, 1), metavar="N",
                     help=f"files packed in parallel (default: all cores, here {_cpu_count()})")
    run.add_argument("--fail-fast", action="store_true", help="stop at the first file that fails")
    run.add_argument("--keep-best", action="store_true",
                     help="on Ctrl-C, write the best layout found so far for the files in progress")
    run.add_argument("-q", "--quiet", action="count", default=0,
                     help="no progress display: only errors and the summary; -qq: nothing")
    p.set_defaults(run=_cmd_pack)

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
    i.set_defaults(run=_cmd_info)

    d = sub.add_parser(
        "demo", formatter_class=_Formatter, help="pack the sample model shipped with uvnest",
        description=(
            "Pack the sample model shipped with uvnest (a UV-unwrapped gadget with badly laid out\n"
            f"islands) and write {DEMO_OUTPUT} and its preview {Path(DEMO_OUTPUT).with_suffix('.png')}\n"
            "(needs Pillow) into the current folder or --out-dir."))
    d.add_argument("--out-dir", metavar="DIR", help="where to write (default: the current folder)")
    d.add_argument("--time", type=_number(float, 0.0), default=2.0, metavar="SECONDS",
                   help="search time (default: %(default)s)")
    d.add_argument("--preview-size", type=_number(int, 128, 16384), default=1024, metavar="PX",
                   help="preview side in pixels (default: %(default)s)")
    d.set_defaults(run=_cmd_demo)
    return parser
