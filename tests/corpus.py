"""Real-world test data fetched at test time: the homedecor OBJ corpus.

``homedecor_dir()`` gives a folder with the 146 Wavefront OBJ models of
Debian's ``minetest-mod-homedecor`` package (LGPL-3.0 code, CC-BY-SA models;
the package's copyright file is kept next to them).  The package is fetched
once with ``apt-get download`` and unpacked with ``dpkg-deb -x`` into
``$UVNEST_CACHE/homedecor`` (default ``~/.cache/uvnest/homedecor``), outside
the repository.  Several test processes may call it at once: one fetches
under a file lock and publishes the folder by an atomic rename, the others
wait and reuse it.  Where it cannot be fetched (no apt tools, offline, no
package lists) the calling test is skipped with the reason.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import List

import pytest

try:
    import fcntl
except ImportError:  # not POSIX: there is no apt-get either
    fcntl = None

PACKAGE = "minetest-mod-homedecor"
N_MODELS = 146
FETCH_TIMEOUT_S = 300


def cache_dir() -> Path:
    """The folder the corpus is kept in (created on demand)."""
    root = os.environ.get("UVNEST_CACHE")
    base = Path(root) if root else Path.home() / ".cache" / "uvnest"
    return base / "homedecor"


def homedecor_dir() -> Path:
    """Folder with the 146 homedecor ``.obj`` models, fetched on first use.

    Calls ``pytest.skip`` with the reason when the package cannot be fetched.
    """
    cache = cache_dir()
    models = cache / "models"
    if not models.is_dir():
        if fcntl is None:
            pytest.skip("homedecor corpus unavailable: fetching needs a POSIX system with apt-get")
        try:
            cache.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            pytest.skip(f"homedecor corpus unavailable: cannot create {cache}: {e.strerror}")
        with open(cache / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one fetch at a time; waiters then find it done
            if not models.is_dir():
                _fetch(cache, models)
    count = len(list(models.glob("*.obj")))
    assert count == N_MODELS, f"{models} holds {count} .obj models, expected {N_MODELS}"
    return models


def homedecor_models() -> List[Path]:
    """The 146 homedecor ``.obj`` files, sorted by name."""
    return sorted(homedecor_dir().glob("*.obj"))


def _fetch(cache: Path, models: Path) -> None:
    """Download and unpack the package, then publish ``models`` atomically."""
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            pytest.skip(f"homedecor corpus unavailable: {tool} not found")
    work = Path(tempfile.mkdtemp(prefix=".fetch-", dir=cache))
    try:
        _run(["apt-get", "download", PACKAGE], work)
        debs = sorted(work.glob(f"{PACKAGE}_*.deb"))
        if not debs:
            pytest.skip(f"homedecor corpus unavailable: apt-get download produced no {PACKAGE} .deb")
        _run(["dpkg-deb", "-x", str(debs[0]), "root"], work)
        staged = work / "models"
        staged.mkdir()
        for obj in (work / "root").rglob("*.obj"):
            target = staged / obj.name
            assert not target.exists(), f"two homedecor models are named {obj.name}"
            shutil.copyfile(obj, target)
        for copyright_file in (work / "root").rglob("copyright"):
            shutil.copyfile(copyright_file, staged / "copyright")
        os.replace(staged, models)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run(cmd: List[str], cwd: Path) -> None:
    """Run a fetch command; skip the test with its error output if it fails."""
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=FETCH_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"homedecor corpus unavailable: {' '.join(cmd)}: {e}")
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if line.startswith("E:")] or done.stderr.splitlines()
        reason = errors[-1] if errors else f"exit status {done.returncode}"
        pytest.skip(f"homedecor corpus unavailable: {' '.join(cmd)} failed: {reason}")
