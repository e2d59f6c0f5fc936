"""The sidebar panel (UV editor, "uvnest" tab) and the menu entries.

The panel edits the scene's pack options (``scene.uvnest``); its Pack
button and both menu entries start the operator with those options.
"""
# No ``from __future__ import annotations``, as in the other Blender modules.
import bpy
from bpy.types import Context, Menu, Panel

from .operators import UV_OT_uvnest_pack
from .props import copy_options, draw_options, image_size


class IMAGE_PT_uvnest_pack(Panel):
    """Pack options and the Pack button in the UV editor's sidebar."""

    bl_space_type = "IMAGE_EDITOR"
    bl_region_type = "UI"
    bl_category = "uvnest"
    bl_label = "Pack Islands"

    @classmethod
    def poll(cls, context: Context) -> bool:
        space = context.space_data
        return space is not None and space.show_uvedit and context.mode == "EDIT_MESH"

    def draw(self, context: Context) -> None:
        settings = context.scene.uvnest
        layout = self.layout
        draw_options(layout, settings, image_size(context))
        layout.separator()
        layout.operator_context = "INVOKE_DEFAULT"
        op = layout.operator(UV_OT_uvnest_pack.bl_idname, text="Pack", icon="UV_ISLANDSEL")
        copy_options(settings, op)


def _draw_menu_entry(menu: Menu, context: Context) -> None:
    """The operator entry, started interactively with the scene's options."""
    layout = menu.layout
    layout.operator_context = "INVOKE_REGION_WIN"
    op = layout.operator(UV_OT_uvnest_pack.bl_idname)
    copy_options(context.scene.uvnest, op)


def draw_uvs_menu(menu: Menu, context: Context) -> None:
    """Entry in the UV editor's UV menu (IMAGE_MT_uvs), which holds Blender's Pack Islands."""
    menu.layout.separator()
    _draw_menu_entry(menu, context)


def draw_uv_map_menu(menu: Menu, context: Context) -> None:
    """Entry in the 3D viewport's edit-mode UV menu (VIEW3D_MT_uv_map)."""
    menu.layout.separator()
    _draw_menu_entry(menu, context)


classes = (IMAGE_PT_uvnest_pack,)


def register() -> None:
    """Register the panel and add the menu entries."""
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.IMAGE_MT_uvs.append(draw_uvs_menu)
    bpy.types.VIEW3D_MT_uv_map.append(draw_uv_map_menu)


def unregister() -> None:
    """Remove the menu entries and the panel."""
    bpy.types.VIEW3D_MT_uv_map.remove(draw_uv_map_menu)
    bpy.types.IMAGE_MT_uvs.remove(draw_uvs_menu)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
