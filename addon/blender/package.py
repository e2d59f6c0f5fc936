"""Build the installable Blender extension zip of uvnest for this platform.

Usage (from the repository, after ``python setup.py build_ext --inplace``)::

    python -m uvnest.blender.package --out dist/

writes ``dist/uvnest-<version>-<platform>.zip`` (for example
``uvnest-0.1.0-linux_x64.zip``), which Blender installs with *Edit >
Preferences > Get Extensions > Install from Disk* or
``blender --command extension install-file -r user_default -e <zip>``.

The zip holds the package files at its root, as Blender's own
``blender --command extension build --split-platforms`` lays them out: the
manifest, ``__init__.py``, the Python modules and the compiled engine
``_core`` for the Python running this command; no tests, caches or builds
for other Pythons.  Its manifest is the source manifest with a
``[build.generated]`` section naming this platform (as Blender's build
writes it) and the Blender versions whose Python matches ``_core``:

* Python 3.11: Blender 4.2 up to (not including) 5.1;
* Python 3.13: Blender 5.1 and later.

So Blender 5.1+ needs a zip built with Python 3.13: build ``_core`` with a
CPython 3.13 (``python3.13 setup.py build_ext --inplace``, which needs
numpy >= 2 headers) and run this command with that interpreter.  The
extension needs numpy, which every Blender since 2.8 bundles.
"""
from __future__ import annotations

import argparse
import importlib.machinery
import os
import platform
import re
import sys
import zipfile
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from .. import __version__

#: Blender versions ``(min, max exclusive or None)`` whose Python is this ``(major, minor)``.
BLENDER_FOR_PYTHON: Dict[Tuple[int, int], Tuple[str, Optional[str]]] = {
    (3, 11): ("4.2.0", "5.1.0"),
    (3, 13): ("5.1.0", None),
}
MANIFEST = "blender_manifest.toml"
#: Folder and file names never packed.
EXCLUDED_NAMES = {"__pycache__", "tests", "build", "dist"}
EXCLUDED_SUFFIXES = (".pyc", ".pyo", ".zip")


def package_dir() -> Path:
    """The uvnest package folder (the extension's source)."""
    return Path(__file__).resolve().parents[1]


def blender_platform() -> str:
    """This system as a Blender extension platform, e.g. ``linux-x64``
    (the rule of Blender's own extension tool)."""
    system = platform.system().lower()
    machine = platform.machine().lower()
    system = {"darwin": "macos"}.get(system, system)
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "aarch32": "arm32"}.get(machine, machine)
    return f"{system}-{machine}"


def core_file(source: Path) -> Path:
    """The compiled ``_core`` of ``source`` for the running Python."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = source / f"_core{suffix}"
        if path.is_file():
            return path
    raise FileNotFoundError(f"no _core built for Python {sys.version_info[0]}.{sys.version_info[1]} in {source}: "
                            "run `python setup.py build_ext --inplace` with this Python first")


def _is_other_build(name: str) -> bool:
    """A compiled ``_core`` (for another Python) or other binary build output."""
    return name.startswith("_core.") and name.endswith((".so", ".pyd", ".dylib"))


def package_files(source: Path) -> Iterator[Tuple[Path, str]]:
    """``(path, name in the zip)`` of every file that goes into the extension,
    the manifest and ``_core`` excluded (they are added separately)."""
    for root, dirs, files in os.walk(source, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d not in EXCLUDED_NAMES and not d.startswith(".")
                         and not d.endswith(".egg-info"))
        for name in sorted(files):
            if name.startswith(".") or name.endswith(EXCLUDED_SUFFIXES) or name == MANIFEST:
                continue
            if _is_other_build(name):
                continue
            path = Path(root) / name
            yield path, path.relative_to(source).as_posix()


def built_manifest(text: str, target_platform: str, python: Tuple[int, int]) -> str:
    """The manifest for a zip built for ``target_platform`` with ``_core`` for ``python``."""
    if python not in BLENDER_FOR_PYTHON:
        known = ", ".join(f"{a}.{b}" for a, b in BLENDER_FOR_PYTHON)
        raise ValueError(f"Blender ships Python {known}; _core for Python {python[0]}.{python[1]} "
                         "would not import there")
    lo, hi = BLENDER_FOR_PYTHON[python]
    versions = f'blender_version_min = "{lo}"\n' + (f'blender_version_max = "{hi}"\n' if hi else "")
    text, count = re.subn(r'(?m)^blender_version_min\s*=.*\n(blender_version_max\s*=.*\n)?', versions, text)
    if count != 1:
        raise ValueError(f"{MANIFEST} must have one blender_version_min line")
    return (text.rstrip("\n") + "\n\n\n# BEGIN GENERATED CONTENT.\n# This must not be included in source manifests.\n"
            f'[build.generated]\nplatforms = ["{target_platform}"]\nwheels = []\n# END GENERATED CONTENT.\n')


def build(out_dir: Path, source: Optional[Path] = None) -> Path:
    """Write the extension zip for this platform and Python into ``out_dir``; return its path.

    Raises ``FileNotFoundError`` when ``_core`` is not built for this
    Python, and ``ValueError`` when the manifest's version differs from
    ``uvnest.__version__`` or this Python is not one Blender ships.
    """
    import tomllib  # Python 3.11+, as every Python Blender ships

    source = package_dir() if source is None else source
    text = (source / MANIFEST).read_text(encoding="utf-8")
    manifest = tomllib.loads(text)
    if manifest["version"] != __version__:
        raise ValueError(f"{MANIFEST} has version {manifest['version']}, uvnest is {__version__}")
    target_platform = blender_platform()
    if target_platform not in manifest.get("platforms", [target_platform]):
        raise ValueError(f"{MANIFEST} does not list this platform ({target_platform})")
    core = core_file(source)
    data = built_manifest(text, target_platform, sys.version_info[:2])
    tomllib.loads(data)  # must stay valid TOML
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{manifest['id']}-{manifest['version']}-{target_platform.replace('-', '_')}.zip"
    tmp = out.with_name("." + out.name)
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr(MANIFEST, data)
        for path, name in package_files(source):
            zf.write(path, name)
        zf.write(core, core.name)
    os.replace(tmp, out)
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command line: ``python -m uvnest.blender.package [--out DIR]``."""
    parser = argparse.ArgumentParser(prog="python -m uvnest.blender.package",
                                     description="Build the uvnest Blender extension zip for this platform.")
    parser.add_argument("--out", type=Path, default=Path("dist"), help="output folder (default: dist)")
    args = parser.parse_args(argv)
    try:
        out = build(args.out)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    names: List[str] = zipfile.ZipFile(out).namelist()
    print(f"{out} ({out.stat().st_size:,} bytes, {len(names)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
