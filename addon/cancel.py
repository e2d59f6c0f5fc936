"""Cancelling a packer: the thread-safe :class:`Cancel` flag, the
:class:`Cancelled` error, and :func:`call_in_c`, which runs a C call so that
Ctrl-C reaches the caller at once (see :mod:`uvnest.packing`)."""
from __future__ import annotations

import threading
from typing import Any, Callable, Dict

__all__ = ["Cancel", "Cancelled", "call_in_c"]


class Cancelled(Exception):
    """Raised by :class:`Packer` (and :func:`pack`) when the :class:`Cancel`
    passed in was set before the first layout was ready."""


class Cancel:
    """A thread-safe cancel flag for :class:`Packer` and :func:`pack`.

    ``set()`` from any thread stops what the packers it was passed to are
    doing within a few tens of milliseconds: construction raises
    :class:`Cancelled`, ``step()`` returns False and ``improvements()``
    ends.  A flag once set stays set.
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._hooks: Dict[int, Callable[[], Any]] = {}
        self._next = 0

    def set(self) -> None:
        """Set the flag and stop every packer it was passed to."""
        with self._lock:
            self._event.set()
            hooks = list(self._hooks.values())
        for hook in hooks:
            hook()

    def is_set(self) -> bool:
        """Whether ``set()`` was called."""
        return self._event.is_set()

    def _add(self, hook: Callable[[], Any]) -> int:
        """Call ``hook()`` on ``set()`` (at once when set already); returns a key for :meth:`_remove`."""
        with self._lock:
            key = self._next
            self._next += 1
            self._hooks[key] = hook
            now = self._event.is_set()
        if now:
            hook()
        return key

    def _remove(self, key: int) -> None:
        with self._lock:
            self._hooks.pop(key, None)


def call_in_c(call: Callable[[], Any], stop: Callable[[], Any]) -> Any:
    """``call()``, a C call that releases the GIL and stops when ``stop()``
    is called.  In the main thread it runs in a helper thread, so that a
    KeyboardInterrupt (Ctrl-C) reaches the caller at once: then ``stop()``,
    wait for the call to end (milliseconds), and re-raise."""
    if threading.current_thread() is not threading.main_thread():
        return call()
    out: Dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = call()
        except BaseException as e:  # noqa: B036 - handed to the caller
            out["error"] = e

    worker = threading.Thread(target=run, name="uvnest-c", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.05)
    except BaseException:
        stop()
        worker.join()
        raise
    if "error" in out:
        raise out["error"]
    return out["value"]
