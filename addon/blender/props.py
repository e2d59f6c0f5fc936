"""Pack options: one set of properties for the operator and for the scene
settings that the sidebar panel shows (``scene.uvnest``).

Names and meanings follow Blender's Pack Islands where they overlap
(``shape_method``, ``rotate_method``, ``merge_overlap``, ``pin``,
``margin_method``, ``margin``, ``udim_source``).
"""
# No ``from __future__ import annotations``: Blender reads the property
# definitions from the class annotations, which must stay objects.
import math
from typing import Any, Optional

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, PointerProperty
from bpy.types import Context, PropertyGroup, SpaceImageEditor, UILayout

from ..live import Limits, PackSettings, udim_tile_at

SHAPE_METHODS = {"CONCAVE": "concave", "CONVEX": "convex", "AABB": "box"}
ROTATE_METHODS = {"NONE": "none", "CARDINAL": "90", "ANY": "any"}


class PackOptions:
    """Mixin holding the pack options as property annotations."""

    shape_method: EnumProperty(
        name="Shape Method",
        description="Which outline of each island is packed",
        items=(
            ("CONCAVE", "Exact Shape (Concave)", "Pack the exact outline of each island, holes and notches included"),
            ("CONVEX", "Boundary Shape (Convex)", "Pack the convex hull of each island"),
            ("AABB", "Bounding Box", "Pack the bounding box of each island"),
        ),
        default="CONCAVE",
    )
    rotate_method: EnumProperty(
        name="Rotation",
        description="Which rotations the islands may take",
        items=(
            ("NONE", "None", "Islands keep their orientation"),
            ("CARDINAL", "90\u00b0", "Islands turn by multiples of 90 degrees (the choice for straightened islands)"),
            ("ANY", "Any", "Islands turn by multiples of the rotation step, or stay as they are"),
        ),
        default="ANY",
    )
    rotation_step: FloatProperty(
        name="Rotation Step",
        description="Angle between the rotations tried with Any rotation "
                    "(measured from each island's smallest bounding box)",
        subtype="ANGLE",
        default=math.radians(5.0),
        min=math.radians(0.5),
        max=math.radians(180.0),
    )
    flip: BoolProperty(
        name="Flip",
        description="Allow mirrored islands (mirrors the texture on them)",
        default=False,
    )
    merge_overlap: BoolProperty(
        name="Merge Overlapping",
        description="Overlapping islands (stacked or mirrored copies) move together",
        default=True,
    )
    pin: BoolProperty(
        name="Lock Pinned Islands",
        description="Islands with a pinned UV stay where they are; the others are packed around them",
        default=False,
    )
    margin_method: EnumProperty(
        name="Margin Method",
        description="How the margin between islands is given",
        items=(
            ("FRACTION", "Fraction", "A fraction of the target (the UV tile, or the selection's bounding box)"),
            ("PIXELS", "Pixels", "Texture pixels, with the size of the image in the UV editor "
                                 "(or the Texture Size given here)"),
        ),
        default="FRACTION",
    )
    margin: FloatProperty(
        name="Margin",
        description="Smallest gap between islands, as a fraction of the target's side",
        default=0.001,
        min=0.0,
        max=1.0,
        soft_max=0.1,
        step=0.1,
        precision=4,
    )
    margin_pixels: FloatProperty(
        name="Margin",
        description="Smallest gap between islands, in texture pixels",
        subtype="PIXEL",
        default=2.0,
        min=0.0,
        soft_max=64.0,
    )
    texture_size: IntProperty(
        name="Texture Size",
        description="Texture side in pixels for a pixel margin, "
                    "used when the UV editor shows no image",
        subtype="PIXEL",
        default=1024,
        min=1,
        max=65536,
    )
    udim_source: EnumProperty(
        name="Pack to",
        description="Where the islands are packed",
        items=(
            ("CLOSEST_UDIM", "Closest UDIM", "The UDIM tile closest to the selection"),
            ("ACTIVE_UDIM", "Active UDIM", "The active tile of a UDIM image, "
                                           "or the UDIM grid tile holding the 2D cursor"),
            ("ORIGINAL_AABB", "Original Bounding Box", "The bounding box of the selected islands"),
            ("UDIM_TILES", "UDIM Tiles at Current Density",
             "Keep the islands' size and fill as few UDIM tiles as possible: the image's tiles in order, "
             "else 1001, 1002, ... in rows of 10"),
        ),
        default="CLOSEST_UDIM",
    )
    time_limit: FloatProperty(
        name="Time Limit",
        description="Stop the search after this many seconds (0: until stopped; "
                    "in scripts and the redo panel, 10 seconds)",
        subtype="TIME_ABSOLUTE",
        unit="TIME_ABSOLUTE",
        default=10.0,
        min=0.0,
        soft_max=600.0,
    )
    iteration_limit: IntProperty(
        name="Iteration Limit",
        description="Stop the search after this many annealing moves (0: no limit)",
        default=0,
        min=0,
    )
    stall_limit: FloatProperty(
        name="Stop Without Improvement",
        description="Stop the search after this many seconds without a better layout (0: never)",
        subtype="TIME_ABSOLUTE",
        unit="TIME_ABSOLUTE",
        default=3.0,
        min=0.0,
        soft_max=600.0,
    )
    seed: IntProperty(
        name="Seed",
        description="Random seed of the search (the same seed and iteration limit give the same layout)",
        default=0,
        min=0,
    )


#: The option names, in the order they are declared.
OPTION_NAMES = tuple(PackOptions.__annotations__)


class UVNEST_PG_settings(PackOptions, PropertyGroup):
    """The pack options kept with the scene, edited in the sidebar panel."""


def copy_options(source: Any, target: Any) -> None:
    """Copy every pack option from ``source`` to ``target`` (settings or
    operator properties)."""
    for name in OPTION_NAMES:
        setattr(target, name, getattr(source, name))


def draw_options(layout: UILayout, data: Any, image_size: Optional[int]) -> None:
    """Draw the pack options of ``data`` (settings or an operator).

    ``image_size`` is the texture size read from the UV editor's image, shown
    instead of the Texture Size field when known.
    """
    layout.use_property_split = True
    layout.use_property_decorate = False
    col = layout.column()
    col.prop(data, "shape_method")
    col.prop(data, "rotate_method")
    sub = col.column()
    sub.active = data.rotate_method == "ANY"
    sub.prop(data, "rotation_step")
    col.prop(data, "flip")
    col.prop(data, "merge_overlap")
    col.prop(data, "pin")

    col = layout.column()
    col.prop(data, "margin_method")
    if data.margin_method == "PIXELS":
        col.prop(data, "margin_pixels")
        if image_size is None:
            col.prop(data, "texture_size")
        else:
            col.label(text=f"Texture Size: {image_size} px (from the image)")
    else:
        col.prop(data, "margin")
    col.prop(data, "udim_source")

    col = layout.column(heading="Stop")
    col.prop(data, "time_limit")
    col.prop(data, "iteration_limit")
    col.prop(data, "stall_limit")
    col.prop(data, "seed")


def uv_editor(context: Context) -> Optional[SpaceImageEditor]:
    """The UV editor to take the image, 2D cursor and tile grid from: the
    current space, else the first image editor of the screen showing UVs."""
    space = context.space_data
    if space is not None and space.type == "IMAGE_EDITOR":
        return space
    screen = context.screen
    for area in screen.areas if screen is not None else ():
        if area.type == "IMAGE_EDITOR" and area.spaces.active.show_uvedit:
            return area.spaces.active
    return None


def image_size(context: Context) -> Optional[int]:
    """Side in pixels of the image in the UV editor (the larger one), if any."""
    space = uv_editor(context)
    image = space.image if space is not None else None
    if image is None or image.size[0] <= 0:
        return None
    return int(max(image.size))


def settings_from(options: Any, context: Context) -> PackSettings:
    """The session settings for pack options ``options`` in ``context``."""
    space = uv_editor(context)
    image = space.image if space is not None else None
    tiles: tuple = ()
    grid = None
    active = 1001
    if image is not None and image.source == "TILED":
        tiles = tuple(tile.number for tile in image.tiles)
        active = image.tiles.active.number if image.tiles.active else tiles[0]
    elif space is not None:
        grid = (int(space.uv_editor.tile_grid_shape[0]), int(space.uv_editor.tile_grid_shape[1]))
        active = udim_tile_at(space.cursor_location[0], space.cursor_location[1], grid)
    margin_px = None
    texture_size = None
    if options.margin_method == "PIXELS":
        margin_px = float(options.margin_pixels)
        texture_size = image_size(context) or int(options.texture_size)
    return PackSettings(margin=float(options.margin), margin_px=margin_px, texture_size=texture_size,
                        rotation=ROTATE_METHODS[options.rotate_method],
                        # the property is a float32 angle in radians: round off its float noise in degrees
                        rotation_step=round(math.degrees(options.rotation_step), 4), flip=bool(options.flip),
                        shape=SHAPE_METHODS[options.shape_method], merge_overlapping=bool(options.merge_overlap),
                        lock_pinned=bool(options.pin), target=options.udim_source, active_tile=int(active),
                        udim_tiles=tiles, udim_grid=grid, seed=int(options.seed))


def limits_from(options: Any) -> Limits:
    """The session limits for pack options ``options`` (0: no limit)."""
    return Limits(time_limit=float(options.time_limit), iterations=int(options.iteration_limit),
                  stall=float(options.stall_limit))


classes = (UVNEST_PG_settings,)


def register() -> None:
    """Register the settings group and attach it to every scene as ``scene.uvnest``."""
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.Scene.uvnest = PointerProperty(type=UVNEST_PG_settings)


def unregister() -> None:
    """Remove ``scene.uvnest`` and the settings group."""
    del bpy.types.Scene.uvnest
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
