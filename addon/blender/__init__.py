"""Blender integration: the Pack Islands (uvnest) operator, its sidebar panel
and its menu entries.

Importing this package does not import ``bpy`` (so that the packaging
command, ``python addon/blender/package.py``, runs outside Blender);
:func:`register` and :func:`unregister` import the Blender modules.
"""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import Tuple

#: Modules registered in this order and unregistered in reverse: the
#: settings first, then the operator, then the panel and menus that use both.
_MODULES = ("props", "operators", "panels")


def _modules() -> Tuple[ModuleType, ...]:
    return tuple(importlib.import_module(f".{name}", __name__) for name in _MODULES)


def register() -> None:
    """Register the settings, the operator, the panel and the menu entries."""
    for module in _modules():
        module.register()


def unregister() -> None:
    """Remove everything :func:`register` added."""
    for module in reversed(_modules()):
        module.unregister()
