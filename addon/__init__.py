"""uvnest: exact, search-based UV island packing.

Python API::

    import uvnest
    result = uvnest.pack(uvs, faces, margin=0.005, time_limit=5)
    result.uvs          # (N, 2) packed UVs; the input is never modified
    result.transforms   # per-island rotation, flip, translation, scale

See ``uvnest.pack``, ``uvnest.Packer``, ``uvnest.find_islands``,
``uvnest.geometry`` and ``uvnest.io``.  This folder is also a Blender
extension (Blender 4.2+) and a legacy add-on (``bl_info``, Blender 3.4 to
4.1): ``register()`` and ``unregister()`` import the Blender parts lazily,
so ``import uvnest`` never needs ``bpy``.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, List

if TYPE_CHECKING:   # the lazy names below, for type checkers and IDEs
    from . import geometry, io
    from .islands import Island, find_islands
    from .cancel import Cancel, Cancelled
    from .options import PackOptions, cpu_cores
    from .packing import Packer, pack
    from .results import IslandTransform, PackResult, apply_transforms
    from .tiles import pack_pow2_squares

__version__ = "0.1.0"

#: The legacy add-on's description for Blender 3.4 to 4.1, which reads it
#: from this file's text without importing it (so: literals only, version
#: equal to ``__version__``); Blender 4.2+ reads ``blender_manifest.toml``.
bl_info = {
    "name": "uvnest",
    "author": "uvnest developers",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "UV Editor > UV > Pack Islands (uvnest), and Sidebar > uvnest",
    "description": "Exact UV island packing that keeps improving while you watch",
    "category": "UV",
}

# public name -> submodule that defines it (imported on first use)
_LAZY = {
    "geometry": None,
    "io": None,
    "find_islands": "islands",
    "Island": "islands",
    "PackOptions": "options",
    "pack": "packing",
    "Packer": "packing",
    "Cancel": "cancel",
    "Cancelled": "cancel",
    "PackResult": "results",
    "IslandTransform": "results",
    "pack_pow2_squares": "tiles",
    "apply_transforms": "results",
    "cpu_cores": "options",
}

__all__ = ["__version__", "register", "unregister", *_LAZY]


def __dir__() -> List[str]:
    """The public names, the lazy ones included (PEP 562)."""
    return sorted({*__all__, "bl_info"})


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'uvnest' has no attribute {name!r}")
    module = _LAZY[name]
    if module is None:
        return importlib.import_module(f".{name}", __name__)
    return getattr(importlib.import_module(f".{module}", __name__), name)


def register() -> None:
    """Register the Blender operator, panel and menu entries."""
    from .blender import register as _register

    _register()


def unregister() -> None:
    """Unregister everything ``register`` added."""
    from .blender import unregister as _unregister

    _unregister()
