"""The Blender add-on as users get it: the zips that ``addon/blender/package.py`` builds.

The zips are built as the README says, from a copy of this checkout that
holds what a fresh clone holds (nothing compiled, nothing installed), by
running ``python addon/blender/package.py --out DIR [--legacy]`` in it.
Then Blender's own tools take them: for the extension, Blender 5.0.1 (the
bpy module from PyPI, ``tests.blender_env``) validates, installs, enables,
disables and uninstalls it, and imports it unzipped; for the legacy add-on,
the ``blender`` program on ``PATH`` (Debian's Blender 3.4.1 in CI) installs
it through *Preferences > Add-ons > Install*, enables, disables and removes
it.  Scripts in ``tests/blender_scripts/`` print one ``UVNEST-RESULT {json}``
line.
"""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Dict, List

import pytest

if __package__ in (None, ""):  # plain `pytest` puts tests/ first on sys.path, not the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvnest  # noqa: E402
from tests.blender_env import blender_env, require_bpy_python, without_venv  # noqa: E402

pytestmark = pytest.mark.blender

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = Path(__file__).with_name("blender_scripts")
MARKER = "UVNEST-RESULT "
MANIFEST = "blender_manifest.toml"
#: What the add-on never imports, so no zip may hold it.
NOT_SHIPPED = ("cli/", "batch.py", "demo.py", "__main__.py", "io/", "data/", "blender/package.py", "py.typed", "tests/")


def _result(proc: subprocess.CompletedProcess) -> dict:
    """The result line of a finished Blender script, which must have succeeded."""
    assert proc.returncode == 0, f"Blender script failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    lines = [line for line in proc.stdout.splitlines() if line.startswith(MARKER)]
    assert lines, f"no result line in:\n{proc.stdout[-2000:]}"
    return json.loads(lines[-1][len(MARKER):])


# --------------------------------------------------------------- building


def _files(root: Path) -> List[str]:
    """Every file below ``root``, relative, sorted."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout as a fresh clone holds it: the files git tracks or would track, as
    they are in the working tree, so no ``_core`` built.  ``live.py`` ends with a marker
    line that the installed uvnest does not have."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("the package command is tested in a git checkout")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, check=True).stdout.decode().split("\0")
    root = tmp_path_factory.mktemp("clone")
    for name in filter(None, listed):
        if (REPO / name).is_file():  # a tracked file deleted in the working tree is not in it
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    assert not list(root.glob("addon/_core*")), "git should ignore the compiled module"
    with open(root / "addon" / "live.py", "a", encoding="utf-8") as f:
        f.write(f"# packaged from {root}\n")
    return root


def _package(clone: Path, *args: str) -> Path:
    """Run the package command in ``clone`` as the README says; return the one zip it wrote."""
    out = clone / "dist" / ("legacy" if args else "extension")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    proc = subprocess.run([sys.executable, "addon/blender/package.py", "--out", str(out), *args], cwd=clone,
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    zips = list(out.glob("*.zip"))
    assert len(zips) == 1 and proc.stdout.startswith(str(zips[0])), (proc.stdout, zips)
    return zips[0]


@pytest.fixture(scope="module")
def built(clone: Path) -> Dict[str, Path]:
    """The extension and the legacy zip, built in ``clone``."""
    before = _files(clone)
    zips = {"extension": _package(clone), "legacy": _package(clone, "--legacy")}
    after = [name for name in _files(clone) if not name.startswith("dist/")]
    assert after == before, "the package command changed the checkout"
    return zips


@pytest.fixture(scope="module")
def extension_zip(built: Dict[str, Path]) -> Path:
    return built["extension"]


@pytest.fixture(scope="module")
def legacy_zip(built: Dict[str, Path]) -> Path:
    return built["legacy"]


def _package_names(zip_path: Path, prefix: str = "") -> List[str]:
    """The zip's package files, relative to the package folder ``prefix``; the manifest aside."""
    names = zipfile.ZipFile(zip_path).namelist()
    assert all(n.startswith(prefix) for n in names), names
    return sorted(n[len(prefix):] for n in names if n != MANIFEST)


@pytest.mark.parametrize("kind, prefix", [("extension", ""), ("legacy", "uvnest/")])
def test_zips_hold_the_clones_sources_and_nothing_the_addon_does_not_import(
        built: Dict[str, Path], clone: Path, kind: str, prefix: str) -> None:
    names = _package_names(built[kind], prefix)
    assert zipfile.ZipFile(built[kind]).read(prefix + "live.py") == (clone / "addon" / "live.py").read_bytes()
    for name in names:
        if not name.startswith("_core."):
            assert zipfile.ZipFile(built[kind]).read(prefix + name) == (clone / "addon" / name).read_bytes(), name
    assert not [n for n in names if n.startswith(NOT_SHIPPED)], names
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)
    assert sum(1 for n in names if n.startswith("_core.")) == 1
    assert {"__init__.py", "blender/__init__.py", "blender/operators.py", "live.py"} <= set(names)


@pytest.mark.parametrize("kind", ["extension", "legacy"])
def test_compiled_module_has_no_run_time_search_path(built: Dict[str, Path], kind: str, tmp_path: Path) -> None:
    """No RPATH or RUNPATH (pyenv's Python puts one in its link command): the module must not
    look for libraries in the build machine's folders.  No debug sections either (stripped)."""
    if platform.system() != "Linux" or shutil.which("readelf") is None:
        pytest.skip("needs Linux and readelf (binutils)")
    with zipfile.ZipFile(built[kind]) as zf:
        name = next(n for n in zf.namelist() if n.rpartition("/")[2].startswith("_core."))
        core = Path(zf.extract(name, tmp_path))
    dynamic = subprocess.run(["readelf", "-d", str(core)], capture_output=True, text=True, check=True).stdout
    assert "(NEEDED)" in dynamic  # readelf did read the dynamic section
    assert not re.search(r"\((RPATH|RUNPATH)\)", dynamic), dynamic
    sections = subprocess.run(["readelf", "-S", "-W", str(core)], capture_output=True, text=True, check=True).stdout
    assert ".dynsym" in sections and ".debug_" not in sections and ".symtab" not in sections, sections


def test_package_command_refuses_a_copy_outside_a_checkout(tmp_path: Path) -> None:
    """An installed copy (no setup.py and csrc/ above it) is not packed: a zip always holds
    the checkout the command runs from."""
    script = tmp_path / "site-packages" / "uvnest" / "blender" / "package.py"
    script.parent.mkdir(parents=True)
    shutil.copy2(REPO / "addon" / "blender" / "package.py", script)
    proc = subprocess.run([sys.executable, str(script), "--out", str(tmp_path / "dist")], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1 and "not in a uvnest checkout" in proc.stderr, proc.stderr
    assert not (tmp_path / "dist").exists()


def test_import_uvnest_needs_no_bpy() -> None:
    """The package, its Blender subpackage and ``bl_info`` import where there is no Blender
    (this test environment has no ``bpy``)."""
    code = ("import sys, uvnest, uvnest.blender; "
            "print(uvnest.bl_info['version'], [m for m in ('bpy', 'bmesh', 'mathutils') if m in sys.modules])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"{tuple(int(v) for v in uvnest.__version__.split('.'))} []"


# -------------------------------------------------- extension: Blender 5.0


def test_extension_zip_layout(extension_zip: Path) -> None:
    import tomllib  # Python 3.11+, as every Python Blender ships

    assert extension_zip.name.startswith(f"uvnest-{uvnest.__version__}-") and extension_zip.suffix == ".zip"
    names = zipfile.ZipFile(extension_zip).namelist()
    assert MANIFEST in names and "__init__.py" in names  # at the root, as Blender expects
    manifest = tomllib.loads(zipfile.ZipFile(extension_zip).read("blender_manifest.toml").decode())
    assert manifest["schema_version"] == "1.0.0" and manifest["id"] == "uvnest"
    assert manifest["version"] == uvnest.__version__ and manifest["type"] == "add-on"
    assert manifest["license"] == ["SPDX:GPL-3.0-or-later"]
    assert manifest["blender_version_min"] == "4.2.0" and manifest["blender_version_max"] == "5.1.0"
    assert len(manifest["build"]["generated"]["platforms"]) == 1
    source = tomllib.loads((REPO / "addon" / MANIFEST).read_text())
    assert source["version"] == uvnest.__version__


def _run_zip_script(mode: str, zip_path: Path, work: Path) -> dict:
    """Run extension_zip.py without the development package on PYTHONPATH, in a scratch Blender user folder."""
    python = require_bpy_python()
    base = dict(os.environ, BLENDER_USER_RESOURCES=str(work / "blender-user"))
    proc = subprocess.run([str(python), str(SCRIPTS / "extension_zip.py"), mode, str(zip_path), str(work)],
                          capture_output=True, text=True, timeout=600, env=blender_env(base=base), cwd=work)
    return _result(proc)


def test_blender_validates_the_zip(extension_zip: Path) -> None:
    """Blender's own extension tool (``blender --command extension validate``) accepts the zip."""
    python = require_bpy_python()
    proc = subprocess.run([str(python), "-c", "import bpy; print(bpy.utils.system_resource('SCRIPTS'))"],
                          capture_output=True, text=True, timeout=300, env=blender_env())
    assert proc.returncode == 0, proc.stderr
    tool = Path(proc.stdout.strip().splitlines()[-1]) / "addons_core" / "bl_pkg" / "cli" / "blender_ext.py"
    check = subprocess.run([str(python), str(tool), "validate", str(extension_zip)], capture_output=True, text=True,
                           timeout=300, env=blender_env())
    assert check.returncode == 0 and "Success" in check.stdout, check.stdout + check.stderr


def test_blender_installs_enables_and_removes_the_zip(extension_zip: Path, tmp_path: Path) -> None:
    out = _run_zip_script("install", extension_zip, tmp_path)
    nothing = {"operator": False, "panel": False, "scene_property": False, "menu_entries": 0}
    assert out["before"] == nothing
    assert out["install"] == ["FINISHED"] and out["enabled"]
    assert out["module_file"].startswith(str(tmp_path / "blender-user"))
    assert out["installed"] == {"operator": True, "panel": True, "scene_property": True, "menu_entries": 2}
    assert out["pack"]["result"] == ["FINISHED"] and out["pack_again"]["result"] == ["FINISHED"]
    assert out["imported"] == _package_names(extension_zip), "a shipped module went unused"
    assert out["disabled"] == nothing and out["disabled_again"] == nothing
    assert out["re_enabled"] == out["installed"]
    assert out["uninstall"] == ["FINISHED"] and out["left_files"] == []


def test_unzipped_package_imports_and_registers(extension_zip: Path, tmp_path: Path) -> None:
    out = _run_zip_script("unzip", extension_zip, tmp_path)
    assert out["module_file"] == str(tmp_path / "uvnest" / "__init__.py")
    assert out["version"] == uvnest.__version__
    assert out["registered"]["operator"] and out["registered"]["menu_entries"] == 2
    assert out["pack"]["result"] == ["FINISHED"]
    assert out["unregistered"] == out["before"]


# ----------------------------------------- legacy add-on: Blender 3.4 to 4.1


def test_legacy_zip_layout(legacy_zip: Path) -> None:
    """One folder, the module ``uvnest``, as *Install* unpacks it into the add-ons folder; no manifest."""
    python = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    assert legacy_zip.name.startswith(f"uvnest-{uvnest.__version__}-legacy-{python}-")
    names = zipfile.ZipFile(legacy_zip).namelist()
    assert {n.split("/")[0] for n in names} == {"uvnest"} and "uvnest/__init__.py" in names
    assert not any(n.endswith(MANIFEST) for n in names)


@pytest.fixture(scope="module")
def system_blender() -> Path:
    """The ``blender`` program on ``PATH`` (Debian's Blender 3.4.1 in CI), if it is 3.4 or later,
    has numpy and runs this Python, for which the legacy zip's ``_core`` is built."""
    exe = shutil.which("blender")
    if exe is None:
        pytest.skip("real Blender (the blender program, Debian's package in CI) unavailable: no blender on PATH")
    expr = "import bpy, sys, numpy; print('UVNEST-VERSIONS', *bpy.app.version[:2], *sys.version_info[:2])"
    proc = subprocess.run([exe, "-b", "--factory-startup", "--python-expr", expr], capture_output=True, text=True,
                          timeout=300, env=without_venv(blender_env()))
    found = re.search(r"^UVNEST-VERSIONS (\d+) (\d+) (\d+) (\d+)$", proc.stdout, re.M)
    if found is None:
        pytest.skip(f"real Blender ({exe}) does not run or has no numpy: {(proc.stdout + proc.stderr)[-1000:]}")
    blender, python = tuple(map(int, found.groups()[:2])), tuple(map(int, found.groups()[2:]))
    if blender < (3, 4) or python != sys.version_info[:2]:
        pytest.skip(f"real Blender {blender} with Python {python} cannot take a legacy zip built here "
                    f"(Blender 3.4+ running Python {sys.version_info[0]}.{sys.version_info[1]})")
    return Path(exe)


def test_legacy_addon_installs_enables_and_removes_in_blender(system_blender: Path, legacy_zip: Path,
                                                               tmp_path: Path) -> None:
    """Preferences > Add-ons > Install, enable, pack, disable, remove, in a scratch user folder."""
    base = dict(os.environ, BLENDER_USER_CONFIG=str(tmp_path / "config"),
                BLENDER_USER_SCRIPTS=str(tmp_path / "scripts"))
    proc = subprocess.run([str(system_blender), "-b", "--factory-startup", "--python-exit-code", "1",
                           "--python", str(SCRIPTS / "extension_zip.py"), "--", "legacy", str(legacy_zip),
                           str(tmp_path)], capture_output=True, text=True, timeout=600,
                          env=without_venv(blender_env(base=base)), cwd=tmp_path)
    out = _result(proc)
    nothing = {"operator": False, "panel": False, "scene_property": False, "menu_entries": 0}
    assert out["before"] == nothing
    assert out["install"] == ["FINISHED"] and out["enable"] == ["FINISHED"] and out["enabled"]
    assert out["addons_dir"] == str(tmp_path / "scripts" / "addons")
    assert out["module_file"] == str(tmp_path / "scripts" / "addons" / "uvnest" / "__init__.py")
    assert out["bl_info"] == {"name": "uvnest", "version": [int(v) for v in uvnest.__version__.split(".")],
                              "blender": [3, 4, 0], "category": "UV"}
    assert out["installed"] == {"operator": True, "panel": True, "scene_property": True, "menu_entries": 2}
    assert out["settings"] == "UVNEST_PG_settings"
    assert out["pack"]["result"] == ["FINISHED"]
    assert out["imported"] == _package_names(legacy_zip, "uvnest/"), "a shipped module went unused"
    assert out["disabled"] == nothing
    assert out["remove"] == ["FINISHED"] and out["left_files"] == []
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout[-3000:] + proc.stderr[-3000:]
