"""The Blender add-on as users install it: the extension zip in real Blender 5.0.1.

Each test builds the zip with ``uvnest.blender.package`` and hands it to
Blender's own tools (the bpy module from PyPI, ``tests.blender_env``): the
extension validator, the extension manager's install, enable, disable and
uninstall, and a plain import of the unzipped package.  Scripts in
``tests/blender_scripts/`` print one ``UVNEST-RESULT {json}`` line.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

if __package__ in (None, ""):  # plain `pytest` puts tests/ first on sys.path, not the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvnest  # noqa: E402
from tests.blender_env import blender_env, require_bpy_python  # noqa: E402

pytestmark = pytest.mark.blender

SCRIPTS = Path(__file__).with_name("blender_scripts")
MARKER = "UVNEST-RESULT "


def _result(proc: subprocess.CompletedProcess) -> dict:
    """The result line of a finished Blender script, which must have succeeded."""
    assert proc.returncode == 0, f"Blender script failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    lines = [line for line in proc.stdout.splitlines() if line.startswith(MARKER)]
    assert lines, f"no result line in:\n{proc.stdout[-2000:]}"
    return json.loads(lines[-1][len(MARKER):])


@pytest.fixture(scope="module")
def extension_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from uvnest.blender.package import build

    return build(tmp_path_factory.mktemp("dist"), source=Path(uvnest.__file__).resolve().parent)


def test_extension_zip_layout(extension_zip: Path) -> None:
    import tomllib  # Python 3.11+, as every Python Blender ships

    assert extension_zip.name.startswith(f"uvnest-{uvnest.__version__}-") and extension_zip.suffix == ".zip"
    names = zipfile.ZipFile(extension_zip).namelist()
    assert "blender_manifest.toml" in names and "__init__.py" in names  # at the root, as Blender expects
    assert "blender/__init__.py" in names and "live.py" in names
    assert sum(1 for n in names if n.startswith("_core.")) == 1
    assert not any("__pycache__" in n or n.endswith(".pyc") or n.startswith("tests/") for n in names)
    manifest = tomllib.loads(zipfile.ZipFile(extension_zip).read("blender_manifest.toml").decode())
    assert manifest["schema_version"] == "1.0.0" and manifest["id"] == "uvnest"
    assert manifest["version"] == uvnest.__version__ and manifest["type"] == "add-on"
    assert manifest["license"] == ["SPDX:GPL-3.0-or-later"]
    assert manifest["blender_version_min"] == "4.2.0" and manifest["blender_version_max"] == "5.1.0"
    assert len(manifest["build"]["generated"]["platforms"]) == 1
    source = tomllib.loads((Path(uvnest.__file__).resolve().parent / "blender_manifest.toml").read_text())
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
