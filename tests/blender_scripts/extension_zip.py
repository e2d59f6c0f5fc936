"""The built add-on zips inside Blender: Blender's own install paths, and a plain import.

Usage: ``<bpy python> extension_zip.py MODE ZIP WORKDIR`` (modes ``install``
and ``unzip``, Blender 4.2+) or ``blender -b --factory-startup --python
extension_zip.py -- legacy ZIP WORKDIR`` (any Blender from 3.4), with
PYTHONPATH *not* pointing at the development package.

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

``legacy``: installs the legacy add-on ZIP as *Preferences > Add-ons >
Install* does (``preferences.addon_install``), enables the module
``uvnest``, packs a cube, disables and removes it.  Run it with
``BLENDER_USER_CONFIG`` and ``BLENDER_USER_SCRIPTS`` set to scratch folders.

``install`` and ``legacy`` also report which files of the installed package
were imported by then (``imported``), to compare with the zip's contents.
"""
from __future__ import annotations

import sys
import zipfile
from pathlib import Path
from typing import Any, Dict, List

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable
import addon_utils  # Blender's own module: importable once bpy is
sys.path.insert(0, str(Path(__file__).resolve().parent))  # Blender's --python does not add it
import _common
# isort: on

MODULE = "bl_ext.user_default.uvnest"
LEGACY_MODULE = "uvnest"


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


def imported(module: str) -> List[str]:
    """Files of the package ``module`` that are imported now, relative to its folder."""
    root = Path(sys.modules[module].__file__).parent
    return sorted(Path(m.__file__).relative_to(root).as_posix() for name, m in list(sys.modules.items())
                  if (name == module or name.startswith(module + ".")) and getattr(m, "__file__", None))


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
    out["imported"] = imported(MODULE)
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


def legacy(zip_path: str) -> Dict[str, Any]:
    prefs = bpy.context.preferences
    prefs.use_preferences_save = False
    out: Dict[str, Any] = {"blender": bpy.app.version_string, "before": registered()}
    out["install"] = sorted(bpy.ops.preferences.addon_install(filepath=zip_path))
    out["enable"] = sorted(bpy.ops.preferences.addon_enable(module=LEGACY_MODULE))
    out["enabled"] = LEGACY_MODULE in prefs.addons
    module = sys.modules.get(LEGACY_MODULE)
    out["module_file"] = module.__file__ if module is not None else ""
    out["bl_info"] = {k: list(v) if isinstance(v, tuple) else v for k, v in addon_utils.module_bl_info(module).items()
                      if k in ("name", "version", "blender", "category")} if module is not None else {}
    out["installed"] = registered()
    settings = getattr(bpy.context.scene, "uvnest", None)
    out["settings"] = type(settings).__name__ if settings is not None else ""
    out["pack"] = pack_cube()
    out["imported"] = imported(LEGACY_MODULE) if module is not None else []
    bpy.ops.preferences.addon_disable(module=LEGACY_MODULE)
    out["disabled"] = registered()
    # addon_remove redraws the area it runs in, and in background mode there is none: lend it one
    with bpy.context.temp_override(area=bpy.context.screen.areas[0]):
        out["remove"] = sorted(bpy.ops.preferences.addon_remove(module=LEGACY_MODULE))
    addons = Path(bpy.utils.user_resource("SCRIPTS", path="addons"))
    out["addons_dir"] = str(addons)
    out["left_files"] = sorted(p.name for p in addons.glob("uvnest*"))
    return out


def main() -> None:
    args = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    mode, zip_path, work = args[0], args[1], Path(args[2])
    if mode == "install":
        _common.emit(install(zip_path))
    elif mode == "unzip":
        _common.emit(unzip(zip_path, work))
    elif mode == "legacy":
        _common.emit(legacy(zip_path))
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
