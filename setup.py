"""Build uvnest: the pure-C99 core in csrc/ plus its single Python binding.

The package lives in addon/ (it doubles as the Blender extension folder) and
is installed as ``uvnest``.  The extension is built against numpy >= 2 headers
but targets the numpy 1.22 C API, so one build imports under numpy 1.24-1.26
(Blender 4.2-5.0) and numpy 2.x.  The module carries no run-time library
search path (RPATH/RUNPATH), whatever the building Python's link command says.
"""
from __future__ import annotations

import glob
import os
from typing import List

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NUMPY_API_TARGET = "NPY_1_22_API_VERSION"
#: Linker options that set a run-time search path, alone or with the path joined.
RPATH_OPTIONS = ("-Wl,-rpath", "-Wl,-R")


def without_rpath(args: List[str]) -> List[str]:
    """``args`` less the run-time search paths some Pythons put in their link
    command (pyenv's ``-Wl,-rpath,<prefix>/lib``).  The extension links to no
    library that needs them (the Python it runs in provides the C API), and a
    module copied into Blender must not carry the build machine's paths."""
    kept: List[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in RPATH_OPTIONS:
            skip = True  # the path follows as the next argument, e.g. -Wl,-rpath -Wl,/lib
        elif not arg.startswith(tuple(o + c for o in RPATH_OPTIONS for c in ",=")):
            kept.append(arg)
    return kept


class BuildExt(build_ext):
    """Pick warning and standard flags that match the compiler in use.

    ``-ffp-contract=off``: no fused multiply-adds, so the same seed gives
    the same layout bytes with gcc and clang on every CPU (gcc's ISO C
    mode already has it off; clang contracts by default, and a contracted
    a*b+c rounds once instead of twice).  MSVC does not contract by
    default (/fp:precise without /fp:contract)."""

    def build_extensions(self) -> None:
        if self.compiler.compiler_type == "msvc":
            flags = ["/O2", "/W3"]
        else:
            flags = ["-std=c99", "-O2", "-Wall", "-Wextra", "-fvisibility=hidden", "-ffp-contract=off"]
            self.compiler.linker_so = without_rpath(self.compiler.linker_so)
        for ext in self.extensions:
            ext.extra_compile_args = flags
        super().build_extensions()


sources = sorted(glob.glob(os.path.join("csrc", "*.c")))

setup(
    packages=["uvnest", "uvnest.cli", "uvnest.io", "uvnest.blender"],
    package_dir={"uvnest": "addon"},
    package_data={"uvnest": ["blender_manifest.toml", "data/*", "py.typed"]},
    ext_modules=[
        Extension(
            "uvnest._core",
            sources=sources,
            include_dirs=["csrc", numpy.get_include()],
            define_macros=[
                ("NPY_NO_DEPRECATED_API", NUMPY_API_TARGET),
                ("NPY_TARGET_VERSION", NUMPY_API_TARGET),
            ],
        )
    ],
    cmdclass={"build_ext": BuildExt},
)
