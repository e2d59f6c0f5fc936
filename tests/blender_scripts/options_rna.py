"""The add-on's properties that are options of ``uvnest.PackOptions``, as
Blender's RNA defines them once registered: default, range, soft maximum
and description, for ``tests/test_blender_options.py`` to compare with the
model.  Usage: ``<bpy python> options_rna.py``."""
from __future__ import annotations

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable
import _common
# isort: on

PROPERTIES = ("rotation_step", "flip", "stack_similar", "max_scale_ratio", "margin_pixels", "padding", "seed",
              "threads", "merge_overlap")


def main() -> None:
    _common.setup()
    rna = bpy.context.scene.uvnest.bl_rna.properties
    out = {}
    for name in PROPERTIES:
        p = rna[name]
        d = {"default": p.default, "description": p.description, "type": p.type}
        if p.type in ("INT", "FLOAT"):
            d.update(min=p.hard_min, max=p.hard_max, soft_max=p.soft_max)
        out[name] = d
    _common.emit(out)


main()
