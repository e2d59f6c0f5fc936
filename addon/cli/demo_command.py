"""The ``demo`` command: pack the sample model shipped with uvnest."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Dict, Optional

from ..demo import demo_path
from ..preview import PreviewUnavailable, require_pillow
from .console import _Console
from .results import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, KEPT, PACKED, PackTask
from .runner import _run_batch

DEMO_OUTPUT = "uvnest_demo_packed.obj"
DEMO_OPTIONS: Dict[str, Any] = {"margin_px": 4.0, "texture_size": 1024}


def _cmd_demo(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    out_dir = Path(args.out_dir) if args.out_dir is not None else Path.cwd()
    output = out_dir / DEMO_OUTPUT
    try:
        require_pillow()
        png: Optional[Path] = output.with_suffix(".png")
        no_png = ""
    except PreviewUnavailable as e:
        png, no_png = None, str(e)
    task = PackTask(index=0, path=str(demo_path()), output=str(output), options=dict(DEMO_OPTIONS),
                    time_limit=args.time, iterations=None, preview=str(png) if png else None,
                    preview_size=args.preview_size, keep_best=True)
    console = _Console(0, 1, file_lines=False)
    (result,), interrupted = _run_batch([task], 1, console, fail_fast=False)
    console.close()
    if result.status not in (PACKED, KEPT):
        print(f"error: {result.error or result.status}", file=sys.stderr)
        return EXIT_INTERRUPTED if interrupted else EXIT_FAILED
    print(f"packed the uvnest demo model ({result.islands} islands, margin {DEMO_OPTIONS['margin_px']:g} px on a "
          f"{DEMO_OPTIONS['texture_size']} px texture, {result.time:.1f} s{', stopped early' if interrupted else ''})")
    print(f"coverage: {result.coverage_before:.1%} before -> {result.coverage_after:.1%} after "
          f"(scale {result.scale:.3f})")
    print(f"wrote {result.output}")
    if result.preview:
        print(f"wrote {result.preview}")
    else:
        print(f"no preview image: {no_png}")
    return EXIT_INTERRUPTED if interrupted else EXIT_OK
