"""Atomic file writes: a file is either replaced whole or left untouched.

Every writer in ``uvnest.io`` goes through these helpers.  Data is written to
a temporary file in the target's own folder (so the final rename never
crosses file systems), flushed and ``fsync``-ed, and only then moved over the
target with ``os.replace``.  On any exception - ``KeyboardInterrupt``
included - the temporary file is removed and the target keeps its old
content (or stays absent).

Writing to a symbolic link replaces the file the link leads to (through
any chain of links) and leaves the link a link.  Only regular files are
replaced: a folder, device, FIFO or socket at the path (``/dev/stdout``,
``/dev/null``) is refused with an ``OSError`` that says so.
"""
from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import IO, Iterator, Optional, Sequence, Tuple, Union

PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["atomic_open", "atomic_write_bytes", "atomic_write_many", "write_target", "unwritable"]

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO or pipe"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is (from ``st_mode``), for messages."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def write_target(path: PathLike) -> Path:
    """The file that writing ``path`` replaces: ``path`` itself, or for a
    symbolic link the file at the end of its chain of links (which need
    not exist yet).  ``OSError`` when something other than a regular file
    is there (checked through the links, so ``/dev/stdout`` is the
    terminal, pipe or file it stands for)."""
    p = Path(path)
    try:
        mode = os.stat(p).st_mode
    except (FileNotFoundError, NotADirectoryError):  # nothing there (yet), or a link to nothing yet
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, f"is {file_kind(mode)}; uvnest writes only regular files", str(p))
    return Path(os.path.realpath(p)) if p.is_symlink() else p


def unwritable(path: PathLike) -> Optional[str]:
    """Why ``path`` cannot be written (``write_target``'s refusal, or its
    folder, or the nearest existing folder above a missing one, is not a
    folder or does not take new files), or None.  It writes and removes a
    probe file, so it answers for read-only file systems and for root alike."""
    try:
        folder = write_target(path).parent
    except OSError as e:
        return e.strerror
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is not a folder"
    try:
        fd, probe = tempfile.mkstemp(prefix=".uvnest-probe.", dir=folder)
    except OSError as e:
        return f"cannot create files in {folder}: {e.strerror or e}"
    os.close(fd)
    _discard(Path(probe))
    return None


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
    target = write_target(path)
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
    folders = set()
    try:
        for path, data in items:
            target = write_target(path)
            fd, temp = _make_temp(target)
            staged.append((temp, target))
            folders.add(target.parent)
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
    for folder in folders:
        _sync_dir(folder)
