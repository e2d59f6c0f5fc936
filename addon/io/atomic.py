"""Atomic file writes: a file is either replaced whole or left untouched.

Every writer in ``uvnest.io`` goes through these helpers.  Data is written to
a temporary file in the target's own folder (so the final rename never
crosses file systems), flushed and ``fsync``-ed, and only then moved over the
target with ``os.replace``.  On any exception - ``KeyboardInterrupt``
included - the temporary file is removed and the target keeps its old
content (or stays absent).
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator, Sequence, Tuple, Union

PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["atomic_open", "atomic_write_bytes", "atomic_write_many"]


def _new_mode(target: Path) -> int:
    """Permission bits for the new file: the target's if it exists, else 0o666 less the umask."""
    try:
        return os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _make_temp(target: Path) -> Tuple[int, Path]:
    """Create an empty temporary file next to ``target``: (descriptor, path)."""
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    return fd, Path(name)


def _sync_dir(folder: Path) -> None:
    """fsync a folder so that a rename in it is durable (best effort: some
    platforms and file systems cannot sync a folder, and the rename is done)."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _discard(temp: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temp)


@contextlib.contextmanager
def atomic_open(path: PathLike, mode: str = "wb", **kwargs) -> Iterator[IO]:
    """Open ``path`` for writing so that it is replaced only if the block succeeds.

    ``mode`` is ``'wb'`` or ``'w'`` (text; ``encoding``/``newline`` and other
    ``open`` keywords pass through).  Yields the file object of a temporary
    file in the same folder; on normal exit it is flushed, fsync-ed and
    renamed over ``path``.  If the block raises anything (including
    ``KeyboardInterrupt``), the temporary file is deleted, ``path`` is left
    as it was, and the exception propagates.
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"atomic_open: mode must be 'wb' or 'w', not {mode!r}")
    target = Path(path)
    fd, temp = _make_temp(target)
    try:
        with os.fdopen(fd, mode, **kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temp, _new_mode(target))
        os.replace(temp, target)
    except BaseException:
        _discard(temp)
        raise
    _sync_dir(target.parent)


def atomic_write_bytes(path: PathLike, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (see ``atomic_open``)."""
    with atomic_open(path, "wb") as f:
        f.write(data)


def atomic_write_many(items: Sequence[Tuple[PathLike, bytes]]) -> None:
    """Write several files, each atomically, committing them together.

    All contents are first written and fsync-ed to temporary files; only when
    every one of them succeeded are they renamed over their targets, in the
    given order (put the file that references the others last).  A failure
    while writing leaves every target untouched and removes all temporary
    files.
    """
    staged = []
    try:
        for path, data in items:
            target = Path(path)
            fd, temp = _make_temp(target)
            staged.append((temp, target))
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(temp, _new_mode(target))
        while staged:
            temp, target = staged[0]
            os.replace(temp, target)
            staged.pop(0)
    except BaseException:
        for temp, _ in staged:
            _discard(temp)
        raise
    for folder in {Path(p).parent for p, _ in items}:
        _sync_dir(folder)
