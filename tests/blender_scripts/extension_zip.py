"""The built extension zip inside Blender: Blender's own install path, and a plain import.

Usage: ``<bpy python> extension_zip.py MODE ZIP WORKDIR`` with PYTHONPATH
*not* pointing at the development package.

``install``: installs ZIP with Blender's extension manager
(``extensions.package_install_files`` into the ``user_default`` repository,
enabled on install - the code path of *Install from Disk*), which imports
the package as ``bl_ext.user_default.uvnest`` and calls its ``register()``.
Run it with ``BLENDER_USER_RESOURCES`` set to a scratch folder so that the
user's own Blender configuration is never touched.  Then packs a cube with
the installed operator, disables and re-enables the add-on, checks what
disabling leaves behind, and uninstalls it.

``unzip``: extracts ZIP into WORKDIR/uvnest, puts WORKDIR on ``sys.path``,
imports ``uvnest`` from there and calls ``register()``/``unregister()``
around a pack.
"""
from __future__ import annotations

import sys
import zipfile
from pathlib import Path
from typing import Any, Dict

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable
import _common
# isort: on

MODULE = "bl_ext.user_default.uvnest"


def registered() -> Dict[str, Any]:
    """Which of the add-on's traces exist."""
    def menu_entries(menu: Any) -> int:
        return sum(1 for f in menu._dyn_ui_initialize() if "uvnest" in getattr(f, "__module__", ""))

    return {"operator": hasattr(bpy.types, "UV_OT_uvnest_pack"), "panel": hasattr(bpy.types, "IMAGE_PT_uvnest_pack"),
            "scene_property": "uvnest" in bpy.types.Scene.bl_rna.properties.keys(),
            "menu_entries": menu_entries(bpy.types.IMAGE_MT_uvs) + menu_entries(bpy.types.VIEW3D_MT_uv_map)}


def pack_cube() -> Dict[str, Any]:
    """Pack a fresh subdivided cube with the registered operator."""
    _common.object_mode()
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    _common.subdivided_cube()
    result = bpy.ops.uv.uvnest_pack(margin=0.01, time_limit=0.5)
    _common.object_mode()
    return {"result": sorted(result)}


def install(zip_path: str) -> Dict[str, Any]:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    prefs = bpy.context.preferences
    prefs.use_preferences_save = False
    out: Dict[str, Any] = {"before": registered()}
    out["install"] = sorted(bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default",
                                                                     enable_on_install=True))
    out["enabled"] = MODULE in prefs.addons
    out["module_file"] = sys.modules[MODULE].__file__ if MODULE in sys.modules else ""
    out["installed"] = registered()
    out["pack"] = pack_cube()
    bpy.ops.preferences.addon_disable(module=MODULE)
    out["disabled"] = registered()
    bpy.ops.preferences.addon_enable(module=MODULE)
    out["re_enabled"] = registered()
    out["pack_again"] = pack_cube()
    bpy.ops.preferences.addon_disable(module=MODULE)
    out["disabled_again"] = registered()
    repo_index = [r.module for r in prefs.extensions.repos].index("user_default")
    out["uninstall"] = sorted(bpy.ops.extensions.package_uninstall(repo_index=repo_index, pkg_id="uvnest"))
    out["left_files"] = sorted(p.name for p in Path(prefs.extensions.repos[repo_index].directory).glob("uvnest*"))
    return out


def unzip(zip_path: str, work: Path) -> Dict[str, Any]:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    target = work / "uvnest"
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(target)
    sys.path.insert(0, str(work))
    import uvnest

    out: Dict[str, Any] = {"module_file": uvnest.__file__, "version": uvnest.__version__,
                           "before": registered()}
    uvnest.register()
    out["registered"] = registered()
    out["pack"] = pack_cube()
    uvnest.unregister()
    out["unregistered"] = registered()
    return out


def main() -> None:
    mode, zip_path, work = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    if mode == "install":
        _common.emit(install(zip_path))
    elif mode == "unzip":
        _common.emit(unzip(zip_path, work))
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
