"""Real Blender for tests and benchmarks: the ``bpy`` module from PyPI in its own venv.

Blender 5.0 ships as the ``bpy`` wheel on PyPI for CPython 3.11.  It pins
``numpy<2``, so it cannot share the test environment (numpy 2.x).  This module
creates a separate virtual environment on first use and runs scripts in it:

* :func:`bpy_python` returns the interpreter of a venv holding ``bpy==5.0.1``
  (or another version: ``4.2.23``, the LTS line, is tested too), ``numpy<2``
  and ``shapely``.  The venv lives in ``$UVNEST_CACHE/bpy-<version>``
  (default ``~/.cache/uvnest/bpy-5.0.1``).  Creation (about 400 MB of
  downloads, roughly a minute) is serialised with an exclusive file lock, so
  parallel pytest workers wait for one another instead of racing, and it is
  marked complete only after ``import bpy`` succeeds in the new venv; a
  half-built venv from an interrupted run is deleted and rebuilt.
* :func:`require_bpy_python` is the same for tests: it calls ``pytest.skip``
  with the reason when the venv cannot be built (offline machine, no wheel
  for this platform).
* :func:`run_in_blender` runs a script with that interpreter, with
  ``PYTHONPATH`` set so that ``import uvnest`` inside the script imports the
  package of *this* environment - the same compiled ``_core`` extension, which
  is built against numpy 2 headers for the numpy 1.22 C API and therefore must
  import under Blender's numpy 1.26 as well.

``UVNEST_BPY_PYTHON`` may name an existing interpreter that already has
``bpy==5.0.1`` (a developer's own env); it is checked the same way and then
used instead of the cache venv.
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional, Sequence, Union

BPY_VERSION = "5.0.1"
#: Blender's long-term-support line before 5.0 (the first with extensions), tested too.
BPY_LTS_VERSION = "4.2.23"
#: Seconds allowed for ``pip install`` of the requirements (a ~400 MB download).
INSTALL_TIMEOUT = 1800
_COMPLETE_MARKER = ".uvnest-complete"


def bpy_requirements(version: str = BPY_VERSION) -> tuple[str, ...]:
    """Requirements of a Blender venv: Blender itself, the numpy it is built
    for, and shapely for scripts that check geometry inside Blender."""
    return (f"bpy=={version}", "numpy<2", "shapely>=2")


def _check_snippet(version: str) -> str:
    return ("import bpy, numpy, shapely; "
            f"assert bpy.app.version_string.split()[0] == {version!r}, bpy.app.version_string; "
            "assert int(numpy.__version__.split('.')[0]) < 2, numpy.__version__; "
            "print(bpy.app.version_string, numpy.__version__, shapely.__version__)")

PathLike = Union[str, os.PathLike]


class BlenderUnavailable(RuntimeError):
    """The Blender venv could not be created or does not work."""


def cache_root() -> Path:
    """The uvnest cache folder: ``$UVNEST_CACHE`` or ``~/.cache/uvnest``."""
    env = os.environ.get("UVNEST_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "uvnest"


def bpy_env_dir(version: str = BPY_VERSION) -> Path:
    """Folder of the cached Blender venv (it may not exist yet)."""
    return cache_root() / f"bpy-{version}"


def _venv_python(env_dir: Path) -> Path:
    """Interpreter path inside a venv, on POSIX or Windows."""
    if os.name == "nt":
        return env_dir / "Scripts" / "python.exe"
    return env_dir / "bin" / "python"


def _check_interpreter(python: Path, version: str = BPY_VERSION) -> str:
    """Import bpy, numpy and shapely with ``python``; return their versions.

    Raises :class:`BlenderUnavailable` with the interpreter's error output when
    any import fails or a version is wrong.
    """
    try:
        proc = subprocess.run([str(python), "-c", _check_snippet(version)], capture_output=True,
                              text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BlenderUnavailable(f"cannot run {python}: {exc}") from exc
    if proc.returncode != 0:
        raise BlenderUnavailable(f"{python} cannot import bpy {version}:\n"
                                 f"{proc.stderr.strip()[-2000:]}")
    return proc.stdout.strip()


class FileLock:
    """Exclusive advisory lock on a file, held for the ``with`` block.

    Uses ``fcntl.flock`` on POSIX and ``msvcrt.locking`` on Windows; either
    blocks until the lock is free, so concurrent creators queue up.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: Optional[int] = None

    def __enter__(self) -> "FileLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if sys.platform == "win32":
            import msvcrt

            msvcrt.locking(self._fd, msvcrt.LK_LOCK, 1)
        else:
            import fcntl

            fcntl.flock(self._fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._fd is not None
        if sys.platform == "win32":
            import msvcrt

            msvcrt.locking(self._fd, msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None


def _create_venv(env_dir: Path, version: str) -> None:
    """Build the Blender venv in ``env_dir`` (caller holds the lock)."""
    if env_dir.exists():
        shutil.rmtree(env_dir)  # a half-built venv from an interrupted run
    steps: list[list[str]] = [
        [sys.executable, "-m", "venv", str(env_dir)],
        [str(_venv_python(env_dir)), "-m", "pip", "install", "--disable-pip-version-check",
         "--no-input", "--progress-bar", "off", *bpy_requirements(version)],
    ]
    for cmd in steps:
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            shutil.rmtree(env_dir, ignore_errors=True)
            raise BlenderUnavailable(f"{' '.join(cmd[:4])} ... failed: {exc}") from exc
        if proc.returncode != 0:
            shutil.rmtree(env_dir, ignore_errors=True)
            raise BlenderUnavailable(f"{' '.join(cmd[:4])} ... exited {proc.returncode}:\n"
                                     f"{(proc.stderr or proc.stdout).strip()[-2000:]}")
    _check_interpreter(_venv_python(env_dir), version)
    (env_dir / _COMPLETE_MARKER).write_text(f"{' '.join(bpy_requirements(version))}\n")


_failures: dict[str, BlenderUnavailable] = {}


def bpy_python(version: str = BPY_VERSION) -> Path:
    """Path to a Python interpreter that has ``bpy==5.0.1``, ``numpy<2`` and ``shapely``.

    On first use this creates a venv with ``sys.executable -m venv`` in
    :func:`bpy_env_dir` and pip-installs :func:`bpy_requirements` into it,
    under an exclusive lock on ``<cache>/bpy-5.0.1.lock``, so that parallel
    processes create it once.  A venv counts as ready only once the marker
    file written after a successful ``import bpy`` is present.  The answer is
    cached for the process, and so is a failure (every test after the first
    skips at once instead of trying the download again).
    ``UVNEST_BPY_PYTHON`` overrides the venv with an existing interpreter
    (checked, not modified).

    Raises :class:`BlenderUnavailable` when the venv cannot be built (for
    example without network access) or does not import bpy.
    """
    if version in _failures:
        raise _failures[version]
    try:
        return _bpy_python(version)
    except BlenderUnavailable as exc:
        _failures[version] = exc
        raise


@functools.lru_cache(maxsize=None)
def _bpy_python(version: str) -> Path:
    """The work of :func:`bpy_python`, without the failure memo."""
    override = os.environ.get("UVNEST_BPY_PYTHON")
    if override and version == BPY_VERSION:
        python = Path(override)
        _check_interpreter(python, version)
        return python
    env_dir = bpy_env_dir(version)
    python = _venv_python(env_dir)
    if (env_dir / _COMPLETE_MARKER).exists():
        return python
    with FileLock(env_dir.with_name(env_dir.name + ".lock")):
        if not (env_dir / _COMPLETE_MARKER).exists():
            _create_venv(env_dir, version)
    return python


def require_bpy_python(version: str = BPY_VERSION) -> Path:
    """:func:`bpy_python` for tests: ``pytest.skip`` with the reason if Blender is unavailable."""
    import pytest

    try:
        return bpy_python(version)
    except BlenderUnavailable as exc:
        pytest.skip(f"real Blender (bpy {version}) unavailable: {exc}")


def uvnest_package_dir() -> Path:
    """Folder of the installed ``uvnest`` package (holds the compiled ``_core``)."""
    import uvnest

    return Path(uvnest.__file__).resolve().parent


def blender_env(extra_paths: Sequence[PathLike] = (), base: Optional[dict[str, str]] = None,
                shim_dir: Optional[Path] = None) -> dict[str, str]:
    """Environment for a Blender subprocess whose ``PYTHONPATH`` makes ``import uvnest`` work.

    ``shim_dir`` must contain a symlink ``uvnest`` to :func:`uvnest_package_dir`
    (see :func:`make_uvnest_shim`); it comes first on ``PYTHONPATH``, followed by
    ``extra_paths``.  The parent's ``PYTHONPATH`` is dropped, as is
    ``PYTHONHOME``, so nothing from the numpy-2 environment leaks in.
    """
    env = dict(os.environ if base is None else base)
    env.pop("PYTHONHOME", None)
    paths = ([str(shim_dir)] if shim_dir is not None else []) + [str(p) for p in extra_paths]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["PYTHONNOUSERSITE"] = "1"
    return env


def without_venv(env: dict[str, str]) -> dict[str, str]:
    """``env`` less this virtual environment, for Debian's ``blender``.

    Blender finds the prefix of its embedded (system) Python through the
    first ``python3.X`` on ``PATH``: run from an activated venv (as
    ``.ci/run`` runs the tests), it would take the venv's site-packages,
    numpy 2 and the installed uvnest included, instead of its own.
    """
    env = dict(env)
    env.pop("VIRTUAL_ENV", None)
    if sys.prefix != sys.base_prefix:
        venv = Path(sys.prefix).resolve()
        keep = [p for p in env.get("PATH", "").split(os.pathsep)
                if p and venv not in (Path(p).resolve(), *Path(p).resolve().parents)]
        env["PATH"] = os.pathsep.join(keep)
    return env


def make_uvnest_shim(folder: Path) -> Path:
    """Create ``folder/uvnest`` as a symlink to the installed uvnest package; return ``folder``.

    Falls back to a copy of the package where symlinks are not permitted
    (Windows without developer mode).
    """
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / "uvnest"
    target = uvnest_package_dir()
    try:
        link.symlink_to(target, target_is_directory=True)
    except OSError:
        shutil.copytree(target, link, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def run_in_blender(script_path: PathLike, *args: str, timeout: Optional[float] = 600,
                   extra_paths: Sequence[PathLike] = (), cwd: Optional[PathLike] = None,
                   version: str = BPY_VERSION) -> subprocess.CompletedProcess[str]:
    """Run ``script_path`` with the Blender interpreter and return the finished process.

    ``args`` are passed on the command line (``sys.argv[1:]`` in the script).
    Inside the script ``import bpy`` gives Blender 5.0.1 and ``import uvnest``
    gives the package installed in the calling environment, through a
    temporary folder holding a ``uvnest`` symlink that is put on
    ``PYTHONPATH`` together with ``extra_paths``.  stdout and stderr are
    captured as text; the return code is not checked (look at
    ``returncode``).  ``timeout`` (seconds, ``None`` for no limit) raises
    ``subprocess.TimeoutExpired`` after killing the process.  Raises
    :class:`BlenderUnavailable` when there is no Blender venv.
    """
    python = bpy_python(version)
    with tempfile.TemporaryDirectory(prefix="uvnest-bpy-") as tmp:
        env = blender_env(extra_paths, shim_dir=make_uvnest_shim(Path(tmp)))
        return subprocess.run([str(python), str(script_path), *args], capture_output=True,
                              text=True, timeout=timeout, env=env, cwd=cwd)
