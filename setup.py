"""Build uvnest: the pure-C99 core in csrc/ plus its single Python binding.

The package lives in addon/ (it doubles as the Blender extension folder) and
is installed as ``uvnest``.  The extension is built against numpy >= 2 headers
but targets the numpy 1.22 C API, so one build imports under numpy 1.24-1.26
(Blender 4.2-5.0) and numpy 2.x.
"""
from __future__ import annotations

import glob
import os

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NUMPY_API_TARGET = "NPY_1_22_API_VERSION"


class BuildExt(build_ext):
    """Pick warning and standard flags that match the compiler in use."""

    def build_extensions(self) -> None:
        if self.compiler.compiler_type == "msvc":
            flags = ["/O2", "/W3"]
        else:
            flags = ["-std=c99", "-O2", "-Wall", "-Wextra", "-fvisibility=hidden"]
        for ext in self.extensions:
            ext.extra_compile_args = flags
        super().build_extensions()


sources = sorted(glob.glob(os.path.join("csrc", "*.c")))

setup(
    packages=["uvnest", "uvnest.io", "uvnest.blender"],
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
