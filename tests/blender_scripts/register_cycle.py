"""register() and unregister() twice in a row, and the UI draw code, inside Blender.

Usage: ``<bpy python> register_cycle.py``.  Emits, for the state before,
after each register and after each unregister, which of the add-on's traces
exist (operator, panel, settings class, ``Scene.uvnest``, menu entries), and
whether the draw functions of the panel and menus ran against a recording
layout that checks every property name against Blender's RNA.  The bpy module
has no window to draw real UI in: this is the closest check of the draw code.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Dict, List

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable
import _common
# isort: on


def traces() -> Dict[str, Any]:
    """What of the add-on is registered now."""
    def menu_entries(menu: Any) -> int:
        return sum(1 for f in menu._dyn_ui_initialize() if "uvnest" in getattr(f, "__module__", ""))

    from uvnest.blender import operators, panels, props

    return {
        "operator": hasattr(bpy.types, "UV_OT_uvnest_pack"),
        "operator_registered": operators.UV_OT_uvnest_pack.is_registered,
        "operator_in_ops": "uvnest_pack" in dir(bpy.ops.uv),
        "panel": hasattr(bpy.types, "IMAGE_PT_uvnest_pack"),
        "panel_registered": panels.IMAGE_PT_uvnest_pack.is_registered,
        "settings_registered": props.UVNEST_PG_settings.is_registered,
        "scene_property": "uvnest" in bpy.types.Scene.bl_rna.properties.keys(),
        "uv_menu_entries": menu_entries(bpy.types.IMAGE_MT_uvs),
        "view3d_menu_entries": menu_entries(bpy.types.VIEW3D_MT_uv_map),
    }


class RecordingLayout:
    """Stands in for ``UILayout``: records calls and checks property names."""

    def __init__(self, log: List[str]) -> None:
        self.log = log
        self.use_property_split = False
        self.use_property_decorate = True
        self.operator_context = "INVOKE_DEFAULT"
        self.active = True

    def column(self, **_kw: Any) -> "RecordingLayout":
        return self

    def row(self, **_kw: Any) -> "RecordingLayout":
        return self

    def separator(self, **_kw: Any) -> None:
        pass

    def label(self, text: str = "", **_kw: Any) -> None:
        self.log.append(f"label:{text}")

    def prop(self, data: Any, name: str, **_kw: Any) -> None:
        assert name in data.bl_rna.properties.keys(), f"no property {name!r} on {data}"
        self.log.append(f"prop:{name}")

    def prop_search(self, data: Any, name: str, search_data: Any, search_property: str, **_kw: Any) -> None:
        assert name in data.bl_rna.properties.keys(), f"no property {name!r} on {data}"
        assert hasattr(search_data, search_property), f"nothing to search in {search_property!r}"
        self.log.append(f"prop_search:{name}:{search_property}")

    def operator(self, idname: str, **_kw: Any) -> Any:
        module, name = idname.split(".")
        rna = getattr(getattr(bpy.ops, module), name).get_rna_type()
        keys = set(rna.properties.keys())
        log = self.log
        log.append(f"operator:{idname}:{self.operator_context}")

        class Props:
            def __setattr__(self, key: str, value: Any) -> None:
                assert key in keys, f"{idname} has no property {key!r}"
                log.append(f"set:{key}")

        return Props()


def draw_everything() -> List[str]:
    """Run the panel and menu draw code against a recording layout (the panel
    three times: with the default options, with a pixel margin, and packing
    into the selected region of a UV map)."""
    from uvnest.blender import panels

    log: List[str] = []
    context = bpy.context
    panels.IMAGE_PT_uvnest_pack.draw(SimpleNamespace(layout=RecordingLayout(log)), context)
    panels.draw_uvs_menu(SimpleNamespace(layout=RecordingLayout(log)), context)
    panels.draw_uv_map_menu(SimpleNamespace(layout=RecordingLayout(log)), context)
    settings = context.scene.uvnest
    settings.margin_method = "PIXELS"
    settings.rotate_method = "NONE"
    panels.IMAGE_PT_uvnest_pack.draw(SimpleNamespace(layout=RecordingLayout(log)), context)
    settings.udim_source = "UV_REGION"
    panels.IMAGE_PT_uvnest_pack.draw(SimpleNamespace(layout=RecordingLayout(log)), context)
    return log


def main() -> None:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    import uvnest

    states = {"before": traces()}
    draws: List[List[str]] = []
    for round_ in (1, 2):
        uvnest.register()
        states[f"registered_{round_}"] = traces()
        draws.append(draw_everything())
        uvnest.unregister()
        states[f"unregistered_{round_}"] = traces()
    _common.emit({"states": states, "draws": draws})


if __name__ == "__main__":
    main()
