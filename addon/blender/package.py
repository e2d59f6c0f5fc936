"""Build the Blender add-on zips of uvnest from the checkout this file is in.

Usage, from a clone of the repository (nothing needs to be built or
installed first; the command compiles the engine itself)::

    python addon/blender/package.py --out dist/             # Blender 4.2+ extension
    python addon/blender/package.py --out dist/ --legacy    # Blender 3.4 to 4.1 add-on

``python -m uvnest.blender.package`` runs the same code when uvnest is
installed in editable mode (``pip install -e .``); an installed copy that is
not a checkout is refused, so a zip always holds the sources it was run from.

The Python running the command is the Python the zip is for: it compiles
``_core`` from ``csrc/`` with ``setup.py build_ext`` into a temporary folder
(so it needs a C compiler, setuptools and numpy, as ``pip install .`` does)
and never touches the checkout.  Blender bundles its own Python, and
``_core`` imports only there when their versions match:

* the extension (``uvnest-<version>-<platform>.zip``, installed with *Edit >
  Preferences > Get Extensions > Install from Disk* or ``blender --command
  extension install-file -r user_default -e <zip>``) needs Python 3.11 for
  Blender 4.2 up to 5.1, or 3.13 for Blender 5.1 and later; its manifest gets
  that version range and a ``[build.generated]`` section naming this
  platform, as Blender's own ``extension build --split-platforms`` writes it;
* the legacy add-on (``uvnest-<version>-legacy-cp<XY>-<platform>.zip``,
  installed with *Edit > Preferences > Add-ons > Install*, module ``uvnest``,
  described by ``bl_info``) needs Python 3.10 for official Blender 3.4 to 4.0,
  3.11 for Blender 4.1 and for Linux distributions' Blender that runs the
  system Python (Debian 12's Blender 3.4.1 runs Python 3.11).

Either zip holds only what the add-on imports: ``__init__.py``, the
``blender`` modules but this one, the uvnest modules they import (followed
through every ``import`` statement, ``if TYPE_CHECKING:`` blocks aside) and
``_core`` (stripped on Linux); the extension adds its manifest.  The add-on needs numpy, which
every Blender since 2.8 bundles.
"""
from __future__ import annotations

import argparse
import ast
import importlib.machinery
import os
import platform
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

PACKAGE = "uvnest"
MANIFEST = "blender_manifest.toml"
#: Blender versions ``(min, max exclusive or None)`` of the extension whose Python is this ``(major, minor)``.
BLENDER_FOR_PYTHON: Dict[Tuple[int, int], Tuple[str, Optional[str]]] = {
    (3, 11): ("4.2.0", "5.1.0"),
    (3, 13): ("5.1.0", None),
}
#: Official Blender releases before 4.2 (legacy add-ons) by the Python they bundle.
LEGACY_BLENDER_FOR_PYTHON: Dict[Tuple[int, int], str] = {(3, 10): "3.4 to 4.0", (3, 11): "4.1"}


class PackageError(Exception):
    """The zip cannot be built: not a checkout, inconsistent versions, or ``_core`` does not compile."""


def checkout_dir() -> Path:
    """The root of the checkout holding this file (it has ``setup.py``, ``csrc/`` and ``addon/``)."""
    root = Path(__file__).resolve().parents[2]
    if not ((root / "setup.py").is_file() and (root / "csrc").is_dir() and (root / "addon").is_dir()):
        raise PackageError(f"{Path(__file__).resolve()} is not in a uvnest checkout (no setup.py, csrc/ and "
                           "addon/ above it): run `python addon/blender/package.py` in a clone of the repository")
    return root


def blender_platform() -> str:
    """This system as a Blender extension platform, e.g. ``linux-x64``
    (the rule of Blender's own extension tool)."""
    system = platform.system().lower()
    machine = platform.machine().lower()
    system = {"darwin": "macos"}.get(system, system)
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "aarch32": "arm32"}.get(machine, machine)
    return f"{system}-{machine}"


def package_version(source: Path) -> str:
    """``__version__`` of the package in ``source``, checked against the version in its
    ``bl_info``; both read as Blender reads ``bl_info``: from the text of
    ``__init__.py``, without importing it."""
    values = {}
    for node in ast.parse((source / "__init__.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("__version__", "bl_info"):
                values[node.targets[0].id] = ast.literal_eval(node.value)
    if set(values) != {"__version__", "bl_info"}:
        raise PackageError(f"{source / '__init__.py'} must assign __version__ and bl_info as literals")
    version, bl_info = values["__version__"], values["bl_info"]
    if ".".join(map(str, bl_info.get("version", ()))) != version:
        raise PackageError(f"bl_info version {bl_info.get('version')} differs from __version__ {version}")
    return version


def _is_type_checking(test: ast.expr) -> bool:
    """Whether an ``if`` test is ``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported_names(path: Path, module: str) -> Iterator[str]:
    """Absolute names that the module ``module`` in ``path`` may import at run time: each
    ``import`` and ``from ... import`` at any depth, with ``from X import y`` giving
    both ``X`` and ``X.y`` (``y`` may be a submodule)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    nodes: List[ast.AST] = [ast.parse(path.read_text(encoding="utf-8"), str(path))]
    while nodes:
        node = nodes.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            nodes.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            target = ".".join(part for part in (base, node.module) if part)
            yield target
            yield from (f"{target}.{alias.name}" for alias in node.names)
        nodes.extend(ast.iter_child_nodes(node))


def _module_file(source: Path, name: str) -> Optional[Path]:
    """The source file of the uvnest module ``name`` in ``source``, or None (not uvnest's, or no such file)."""
    parts = name.split(".")
    if parts[0] != PACKAGE:
        return None
    folder = source.joinpath(*parts[1:])
    for path in (folder / "__init__.py", folder.with_suffix(".py")):
        if path.is_file():
            return path
    return None


def addon_modules(source: Path) -> List[str]:
    """Paths, relative to ``source``, of the Python files the add-on imports: ``__init__.py``
    and ``blender/*.py`` (this packaging module aside), then every uvnest module they
    import, transitively, with the packages that hold them."""
    roots = [PACKAGE] + [f"{PACKAGE}.blender" + ("" if p.stem == "__init__" else f".{p.stem}")
                         for p in sorted((source / "blender").glob("*.py")) if p.name != Path(__file__).name]
    found: Dict[str, Path] = {}
    todo = list(roots)
    while todo:
        name = todo.pop()
        path = _module_file(source, name)
        if name in found or path is None:
            continue
        found[name] = path
        parents = [name.rsplit(".", k)[0] for k in range(1, name.count(".") + 1)]
        todo.extend(parents + list(imported_names(path, name)))
    return sorted(path.relative_to(source).as_posix() for path in found.values())


def compile_core(checkout: Path, build_dir: Path) -> Path:
    """Compile ``_core`` from ``checkout/csrc`` for the running Python into ``build_dir``; return its path.

    On Linux the module is linked stripped (``-s``): Pythons built with
    ``-g`` would put 0.6 MB of debug sections into every zip.
    """
    cmd = [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(build_dir / "lib"),
           "--build-temp", str(build_dir / "temp")]
    env = dict(os.environ)
    if platform.system() == "Linux":
        env["LDFLAGS"] = f"{env.get('LDFLAGS', '')} -s".strip()  # setuptools appends LDFLAGS to the link command
    proc = subprocess.run(cmd, cwd=checkout, capture_output=True, text=True, env=env)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        core = build_dir / "lib" / PACKAGE / f"_core{suffix}"
        if proc.returncode == 0 and core.is_file():
            return core
    raise PackageError(f"`{' '.join(cmd)}` in {checkout} failed (exit {proc.returncode}); it needs a C compiler, "
                       f"setuptools and numpy for this Python ({sys.executable}):\n"
                       f"{(proc.stderr or proc.stdout).strip()[-3000:]}")


def built_manifest(text: str, target_platform: str, python: Tuple[int, int]) -> str:
    """The manifest for a zip built for ``target_platform`` with ``_core`` for ``python``."""
    if python not in BLENDER_FOR_PYTHON:
        known = ", ".join(f"{a}.{b}" for a, b in BLENDER_FOR_PYTHON)
        raise PackageError(f"Blender 4.2+ ships Python {known}; _core for Python {python[0]}.{python[1]} "
                           "would not import there (build with one of those, or pass --legacy)")
    lo, hi = BLENDER_FOR_PYTHON[python]
    versions = f'blender_version_min = "{lo}"\n' + (f'blender_version_max = "{hi}"\n' if hi else "")
    text, count = re.subn(r'(?m)^blender_version_min\s*=.*\n(blender_version_max\s*=.*\n)?', versions, text)
    if count != 1:
        raise PackageError(f"{MANIFEST} must have one blender_version_min line")
    return (text.rstrip("\n") + "\n\n\n# BEGIN GENERATED CONTENT.\n# This must not be included in source manifests.\n"
            f'[build.generated]\nplatforms = ["{target_platform}"]\nwheels = []\n# END GENERATED CONTENT.\n')


def extension_manifest(source: Path, version: str, target_platform: str) -> str:
    """The extension's manifest, checked against ``version`` and this platform."""
    import tomllib  # Python 3.11+, as every Python of Blender 4.2+

    text = (source / MANIFEST).read_text(encoding="utf-8")
    manifest = tomllib.loads(text)
    if manifest["id"] != PACKAGE or manifest["version"] != version:
        raise PackageError(f"{MANIFEST} has id {manifest['id']} version {manifest['version']}, "
                           f"the package is {PACKAGE} {version}")
    if target_platform not in manifest.get("platforms", [target_platform]):
        raise PackageError(f"{MANIFEST} does not list this platform ({target_platform})")
    data = built_manifest(text, target_platform, sys.version_info[:2])
    tomllib.loads(data)  # must stay valid TOML
    return data


def build(out_dir: Path, legacy: bool = False) -> Path:
    """Compile ``_core`` and write the zip for this platform and Python into ``out_dir``; return its path.

    ``legacy`` builds the add-on for Blender 3.4 to 4.1 (the package in a
    ``uvnest/`` folder, described by its ``bl_info``) instead of the
    extension (the package files at the root, with the manifest).  Raises
    :class:`PackageError` when this file is not in a checkout, the versions
    of ``__init__.py`` and the manifest disagree, this Python cannot run in
    Blender 4.2+ (extension only) or ``_core`` does not compile.
    """
    checkout = checkout_dir()
    source = checkout / "addon"
    version = package_version(source)
    target_platform = blender_platform()
    tag = target_platform.replace("-", "_")
    if legacy:
        prefix, manifest = f"{PACKAGE}/", None
        out_name = f"{PACKAGE}-{version}-legacy-cp{sys.version_info[0]}{sys.version_info[1]}-{tag}.zip"
    else:
        prefix, manifest = "", extension_manifest(source, version, target_platform)
        out_name = f"{PACKAGE}-{version}-{tag}.zip"
    modules = addon_modules(source)
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / out_name
    tmp = out.with_name("." + out.name)
    with tempfile.TemporaryDirectory(prefix="uvnest-package-") as build_dir:
        core = compile_core(checkout, Path(build_dir))
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
            if manifest is not None:
                zf.writestr(MANIFEST, manifest)
            for name in modules:
                zf.write(source / name, prefix + name)
            zf.write(core, prefix + core.name)
    os.replace(tmp, out)
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command line: ``python addon/blender/package.py [--out DIR] [--legacy]``."""
    parser = argparse.ArgumentParser(prog="python addon/blender/package.py",
                                     description="Build the uvnest Blender add-on zip for this platform and "
                                                 "Python from this checkout.")
    parser.add_argument("--out", type=Path, default=Path("dist"), help="output folder (default: dist)")
    parser.add_argument("--legacy", action="store_true",
                        help="build the legacy add-on for Blender 3.4 to 4.1 instead of the 4.2+ extension")
    args = parser.parse_args(argv)
    try:
        out = build(args.out, legacy=args.legacy)
    except PackageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    python = sys.version_info[:2]
    if args.legacy:
        official = LEGACY_BLENDER_FOR_PYTHON.get(python)
        blender = f"Blender builds that run Python {python[0]}.{python[1]}"
        blender = f"Blender {official} and {blender}" if official else blender
    else:
        lo, hi = BLENDER_FOR_PYTHON[python]
        blender = f"Blender {lo} and later" if hi is None else f"Blender {lo} up to (not including) {hi}"
    names = zipfile.ZipFile(out).namelist()
    print(f"{out} ({out.stat().st_size:,} bytes, {len(names)} files) for {blender}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
