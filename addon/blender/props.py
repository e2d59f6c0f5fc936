"""Pack options: one set of properties for the operator and for the scene
settings that the sidebar panel shows (``scene.uvnest``).

The first properties are those of Blender's own Pack Islands
(``uv.pack_islands`` in Blender 5.0), with its names, types, enum items and
defaults, so that a script may call ``uv.uvnest_pack`` with the arguments it
gives ``uv.pack_islands``.  uvnest's own options follow; enum items that
only uvnest has (``PIXELS``, ``UDIM_TILES``, rotation ``NONE``) come after
Blender's.  Those of uvnest's own that are options of
:class:`uvnest.PackOptions` (Rotation Step, Flip, Stack Similar, Max Scale
Ratio, the pixel Margin, Padding, Seed, Threads) take their default, range
and description from it (:func:`model_property`).
"""
# No ``from __future__ import annotations``: Blender reads the property
# definitions from the class annotations, which must stay objects.
import math
from typing import Any, Dict, Optional, Tuple

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable outside Blender
import bmesh
# isort: on
from bpy.props import (BoolProperty, EnumProperty, FloatProperty, FloatVectorProperty, IntProperty, PointerProperty,
                       StringProperty)
from bpy.types import Context, PropertyGroup, SpaceImageEditor, UILayout

from ..live_settings import Limits, PackError, PackSettings
from ..options import BLENDER_DEFAULTS, OPTIONS
from ..tiles import udim_tile_at
from .regions import SOURCES, region_rings

SHAPE_METHODS = {"CONCAVE": "concave", "CONVEX": "convex", "AABB": "box"}
ROTATE_METHODS = {"ANY": "any", "CARDINAL": "90", "AXIS_ALIGNED": "axis", "AXIS_ALIGNED_X": "axis_x",
                  "AXIS_ALIGNED_Y": "axis_y", "NONE": "none"}


#: Blender's largest IntProperty value (a C int).
INT_MAX = 2**31 - 1
#: The options' names in the add-on's interface.
_UI_NAMES = {"rotation": "Rotation Method", "margin_px": "Margin", "texture_size": "Texture Size",
             "rotation_step": "Rotation Step", "flip": "Flip", "scale": "Scale", "seed": "Seed"}


def model_property(name: str, **blender: Any) -> Dict[str, Any]:
    """The ``bpy.props`` arguments of option ``name`` of
    :data:`uvnest.options.OPTIONS`: its description (Blender's style: a
    capital, no full stop), default and range (``min``, ``max``,
    ``soft_max``; angles in radians); ``blender`` overrides them where the
    add-on must differ (said at the call)."""
    option = OPTIONS[name]
    text = option.describe(lambda other: _UI_NAMES.get(other, other))
    angle = name == "rotation_step"
    value = math.radians if angle else (lambda v: v)
    kw: Dict[str, Any] = {"description": text[:1].upper() + text[1:],
                          "default": value(BLENDER_DEFAULTS.get(name, option.default))}
    if option.low is not None:
        kw["min"] = value(option.low)
    if option.high is not None:
        kw["max"] = value(min(option.high, INT_MAX) if option.kind == "whole" else option.high)
    if option.soft_high is not None:
        kw["soft_max"] = option.soft_high
    kw.update(blender)
    return kw


class PackProperties:
    """Mixin holding the pack options as property annotations."""

    # Blender's Pack Islands, in its order.
    udim_source: EnumProperty(
        name="Pack to",
        description="Where the islands are packed",
        items=(
            ("CLOSEST_UDIM", "Closest UDIM", "Pack islands to closest UDIM"),
            ("ACTIVE_UDIM", "Active UDIM",
             "Pack islands to active UDIM image tile or UDIM grid tile where 2D cursor is located"),
            ("ORIGINAL_AABB", "Original bounding box", "Pack to starting bounding box of islands"),
            ("CUSTOM_REGION", "Custom Region", "Pack islands to custom region (the Custom Region option)"),
            ("UDIM_TILES", "UDIM Tiles at Current Density",
             "Keep the islands' size and fill as few UDIM tiles as possible: the image's tiles in order, "
             "else 1001, 1002, ... in rows of 10"),
            ("UV_REGION", "Selected Region of a UV Map",
             "Pack into the outline of the selected faces of the Region Object in its UV map Region UV Map "
             "(holes are kept out of)"),
            ("CURVE_REGION", "Curve Shape",
             "Pack into the shape of the Region Object, a curve, seen from above: its closed splines, "
             "inner ones kept out of"),
        ),
        default="CLOSEST_UDIM",
    )
    rotate: BoolProperty(
        name="Rotate",
        description="Rotate islands to improve layout",
        default=True,
    )
    rotate_method: EnumProperty(
        name="Rotation Method",
        description="Which rotations the islands may take",
        items=(
            ("ANY", "Any", "Any angle is allowed for rotation (by multiples of the Rotation Step)"),
            ("CARDINAL", "Cardinal", "Only 90 degree rotations are allowed"),
            None,
            ("AXIS_ALIGNED", "Axis-aligned", "Rotated to a minimal rectangle, either vertical or horizontal"),
            ("AXIS_ALIGNED_X", "Axis-aligned (Horizontal)", "Rotate islands to be aligned horizontally"),
            ("AXIS_ALIGNED_Y", "Axis-aligned (Vertical)", "Rotate islands to be aligned vertically"),
            ("NONE", "None", "Islands keep their orientation (as with Rotate off)"),
        ),
        default="ANY",
    )
    scale: BoolProperty(
        name="Scale",
        description="Scale islands to fill unit square (off: islands keep their size)",
        default=True,
    )
    merge_overlap: BoolProperty(
        name="Merge Overlapping",
        description="Overlapping islands stick together",
        default=False,
    )
    margin_method: EnumProperty(
        name="Margin Method",
        description="How the margin between islands is given",
        items=(
            ("SCALED", "Scaled", "Use scale of existing UVs to multiply margin"),
            ("ADD", "Add", "Just add the margin, ignoring any UV scale"),
            ("FRACTION", "Fraction", "Specify a precise fraction of final UV output"),
            ("PIXELS", "Pixels", "Gap between islands in texture pixels, with the size of the image "
                                 "in the UV editor (or the Texture Size given here)"),
        ),
        default="SCALED",
    )
    margin: FloatProperty(
        name="Margin",
        description="Space between islands (kept around each island and from the border, as Blender does)",
        subtype="FACTOR",
        default=0.001,
        min=0.0,
        max=1.0,
        step=0.1,
        precision=4,
    )
    pin: BoolProperty(
        name="Lock Pinned Islands",
        description="Constrain islands containing any pinned UV's",
        default=False,
    )
    pin_method: EnumProperty(
        name="Pin Method",
        description="What islands with a pinned UV keep",
        items=(
            ("SCALE", "Scale", "Pinned islands won't rescale"),
            ("ROTATION", "Rotation", "Pinned islands won't rotate"),
            ("ROTATION_SCALE", "Rotation and Scale", "Pinned islands will translate only"),
            ("LOCKED", "All", "Pinned islands are locked in place"),
        ),
        default="LOCKED",
    )
    shape_method: EnumProperty(
        name="Shape Method",
        description="Which outline of each island is packed",
        items=(
            ("CONCAVE", "Exact Shape (Concave)", "Uses exact geometry"),
            ("CONVEX", "Boundary Shape (Convex)", "Uses convex hull"),
            None,
            ("AABB", "Bounding Box", "Uses bounding boxes"),
        ),
        default="CONCAVE",
    )

    # uvnest's own options.
    obstacles: BoolProperty(
        name="Unselected as Obstacles",
        description="Islands of the unselected faces shown in the UV editor stay where they are, "
                    "and the packed islands keep the margin from them",
        default=True,
    )
    custom_region: FloatVectorProperty(
        name="Custom Region",
        description="The region to pack into with Pack to Custom Region: minimum U, minimum V, "
                    "maximum U, maximum V",
        size=4,
        default=(0.0, 0.0, 1.0, 1.0),
    )
    region_object: StringProperty(
        name="Region Object",
        description="The object whose shape is the region to pack into: a mesh (Selected Region of a UV Map) "
                    "or a curve (Curve Shape)",
        default="",
    )
    region_uv_map: StringProperty(
        name="Region UV Map",
        description="The Region Object's UV map whose selected faces outline the region (empty: its active one)",
        default="",
    )
    keep_together: EnumProperty(
        name="Keep Together",
        description="Pack the islands of each object, or of each material, in a compact region of their own, "
                    "at least the margin from the others, all at one scale (needs Scale); with UDIM Tiles at "
                    "Current Density, in one tile whenever it fits",
        items=(
            ("NONE", "None", "Islands of every object and material mix"),
            ("OBJECT", "Objects", "The islands of each object in a region of their own"),
            ("MATERIAL", "Materials", "The islands of each material in a region of their own"),
        ),
        default="NONE",
    )
    rotation_step: FloatProperty(name="Rotation Step", subtype="ANGLE", **model_property("rotation_step"))
    flip: BoolProperty(name="Flip", **model_property("flip"))
    stack_similar: BoolProperty(
        name="Stack Similar",
        **model_property("stack_similar",
                         description="Pack islands of one shape (turned, or mirrored with Flip) on top of each "
                                     "other, sharing their texture: repeated parts take the room of one"),
    )
    max_scale_ratio: FloatProperty(name="Max Scale Ratio", step=10, precision=2, **model_property("max_scale_ratio"))
    margin_pixels: FloatProperty(
        name="Margin",
        subtype="PIXEL",
        # the model has no pixel margin by default: Blender's field needs a number
        soft_max=64.0,
        **model_property("margin_px", default=2.0),
    )
    padding: FloatProperty(name="Padding", step=0.1, precision=4, **model_property("padding"))
    padding_pixels: FloatProperty(
        name="Padding",
        description="Space between the islands and the border of the target, in texture pixels",
        subtype="PIXEL",
        default=0.0,
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
    seed: IntProperty(name="Seed", **model_property("seed"))
    threads: IntProperty(
        name="Threads",
        # 0 stands for the model's None
        **model_property("threads", default=0, min=0,
                         description="CPU cores the search runs on, one search each, sharing their best layout "
                                     "(0: every core; the layout depends on it, as on the seed)"),
    )


#: The option names, in the order they are declared.
OPTION_NAMES = tuple(PackProperties.__annotations__)


class UVNEST_PG_settings(PackProperties, PropertyGroup):
    """The pack options kept with the scene, edited in the sidebar panel."""


def copy_options(source: Any, target: Any) -> None:
    """Copy every pack option from ``source`` to ``target`` (settings or
    operator properties)."""
    for name in OPTION_NAMES:
        setattr(target, name, getattr(source, name))


def draw_options(layout: UILayout, data: Any, image_size: Optional[int]) -> None:
    """Draw the pack options of ``data`` (settings or an operator), Blender's
    first in the order of its Pack Islands panel, then uvnest's.

    ``image_size`` is the texture size read from the UV editor's image, shown
    instead of the Texture Size field when known.
    """
    layout.use_property_split = True
    layout.use_property_decorate = False
    col = layout.column()
    col.prop(data, "shape_method")
    col.prop(data, "scale")
    col.prop(data, "rotate")
    sub = col.column()
    sub.active = data.rotate
    sub.prop(data, "rotate_method")
    step = sub.column()
    step.active = data.rotate and data.rotate_method == "ANY"
    step.prop(data, "rotation_step")
    col.prop(data, "flip")

    col = layout.column()
    col.prop(data, "margin_method")
    if data.margin_method == "PIXELS":
        col.prop(data, "margin_pixels")
        col.prop(data, "padding_pixels")
        if image_size is None:
            col.prop(data, "texture_size")
        else:
            col.label(text=f"Texture Size: {image_size} px (from the image)")
    else:
        col.prop(data, "margin")
        col.prop(data, "padding")

    col = layout.column()
    col.prop(data, "pin")
    sub = col.column()
    sub.active = data.pin
    sub.prop(data, "pin_method", text="Lock Method")
    col.prop(data, "merge_overlap")
    col.prop(data, "stack_similar")
    sub = col.column()
    sub.active = data.scale
    sub.prop(data, "max_scale_ratio")
    sub = col.column()
    sub.active = data.scale or data.udim_source == "UDIM_TILES"
    sub.prop(data, "keep_together")
    col.prop(data, "obstacles")
    col.prop(data, "udim_source")
    if data.udim_source == "CUSTOM_REGION":
        col.prop(data, "custom_region")
    if data.udim_source in SOURCES:
        col.prop_search(data, "region_object", bpy.data, "objects")
    if data.udim_source == "UV_REGION":
        col.prop(data, "region_uv_map")

    col = layout.column(heading="Stop")
    col.prop(data, "time_limit")
    col.prop(data, "iteration_limit")
    col.prop(data, "stall_limit")
    col.prop(data, "seed")
    col.prop(data, "threads")


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


def uv_aspect(context: Context) -> Tuple[float, float]:
    """Width and height, over the larger, of the image Blender's Pack Islands
    corrects the aspect for: the active image texture of the material of the
    edit object's active face (else of the face last selected); ``(1, 1)``
    without one."""
    obj = context.edit_object
    if obj is None or obj.type != "MESH":
        return (1.0, 1.0)
    bm = bmesh.from_edit_mesh(obj.data)
    face = bm.faces.active
    if face is None:
        face = next((e for e in reversed(bm.select_history) if isinstance(e, bmesh.types.BMFace)), None)
    if face is None or face.material_index >= len(obj.material_slots):
        return (1.0, 1.0)
    material = obj.material_slots[face.material_index].material
    tree = material.node_tree if material is not None and material.use_nodes else None
    node = tree.nodes.active if tree is not None else None
    if node is None or node.type != "TEX_IMAGE":
        images = [n for n in tree.nodes if n.type == "TEX_IMAGE"] if tree is not None else []
        node = images[0] if len(images) == 1 else None
    image = node.image if node is not None else None
    if image is None or image.size[0] <= 0 or image.size[1] <= 0:
        return (1.0, 1.0)
    longer = float(max(image.size))
    return (image.size[0] / longer, image.size[1] / longer)


def settings_from(options: Any, context: Context) -> PackSettings:
    """The session settings for pack options ``options`` in ``context``."""
    space = uv_editor(context)
    image = space.image if space is not None else None
    tiles: tuple = ()
    grid = None
    active = 1001
    if space is not None:
        grid = (int(space.uv_editor.tile_grid_shape[0]), int(space.uv_editor.tile_grid_shape[1]))
    if image is not None and image.source == "TILED":
        tiles = tuple(tile.number for tile in image.tiles)
        active = image.tiles.active.number if image.tiles.active else tiles[0]
    elif space is not None:
        active = udim_tile_at(space.cursor_location[0], space.cursor_location[1], grid)
    target, region = options.udim_source, ()
    if target in SOURCES:
        try:
            target, region = "REGION", tuple(region_rings(options.udim_source, options.region_object,
                                                          options.region_uv_map))
        except ValueError as exc:
            raise PackError(str(exc)) from None
    margin_px = None
    texture_size = None
    padding = float(options.padding)
    if options.margin_method == "PIXELS":
        margin_px = float(options.margin_pixels)
        texture_size = image_size(context) or int(options.texture_size)
        padding = float(options.padding_pixels) / texture_size
    return PackSettings(margin=float(options.margin), margin_method=options.margin_method, margin_px=margin_px,
                        texture_size=texture_size, padding=padding,
                        rotation=ROTATE_METHODS[options.rotate_method] if options.rotate else "none",
                        # the property is a float32 angle in radians: round off its float noise in degrees
                        rotation_step=round(math.degrees(options.rotation_step), 4), flip=bool(options.flip),
                        shape=SHAPE_METHODS[options.shape_method], scale=bool(options.scale),
                        merge_overlapping=bool(options.merge_overlap), lock_pinned=bool(options.pin),
                        stack_similar=bool(options.stack_similar),
                        max_scale_ratio=float(options.max_scale_ratio),
                        pin_method=options.pin_method, obstacles=bool(options.obstacles),
                        target=target, custom_region=tuple(float(v) for v in options.custom_region),
                        region=region, keep_together=options.keep_together,
                        active_tile=int(active), udim_tiles=tiles, udim_grid=grid, seed=int(options.seed),
                        threads=int(options.threads) or None, aspect=uv_aspect(context))


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
