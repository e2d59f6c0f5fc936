"""Heavy test work started when collection ends, at the lowest CPU priority.

Most of the suite runs one test at a time on one core, and many of its tests
measure wall-clock time limits, so the tests cannot simply run in parallel.
But a few tests are long batches whose outcome does not depend on time: the
C unit programs (they measure CPU time), the fuzz inputs and the stress
cases (bounded by iterations, never by seconds).  Their modules mark them
``@pytest.mark.background`` and define::

    def start_background(jobs: Jobs, items: list[pytest.Item]) -> None

which ``conftest.py`` calls once, with the module's selected marked items,
right after collection.  The work then runs at ``nice 19`` on whatever core
the serial tests leave idle (the kernel gives a nice-19 task about 1.5 % of
a core a nice-0 task wants, so the timed tests barely notice it), and the
marked items are moved to the end of the session, where each test waits
for its own result.  A test run on its own (``pytest file::test``) starts
only its own work, and waits for it at once.
"""
from __future__ import annotations

import multiprocessing
import os
import shutil
import tempfile
import threading
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, Callable, Dict, Hashable, List, Optional

import pytest

#: The priority background work runs at (``nice``'s lowest).
NICENESS = 19


def lower_priority() -> None:
    """Lower this process's CPU priority to :data:`NICENESS` (a pool
    process's initializer)."""
    try:
        os.nice(NICENESS - os.nice(0))
    except OSError:
        pass   # not permitted here: run at normal priority


def nice_command(command: List[str]) -> List[str]:
    """``command`` run at :data:`NICENESS` (unchanged where there is no
    ``nice`` program)."""
    nice = shutil.which("nice")
    return [nice, "-n", str(NICENESS), *command] if nice else command


def seed_chunks(first: int, count: int, parts: int) -> List[range]:
    """The seeds ``first .. first + count`` in at most ``parts`` ranges of
    one length (the last may be shorter): jobs the pool spreads over the
    cores."""
    step = -(-count // parts)
    return [range(s, min(s + step, first + count)) for s in range(first, first + count, step)]


class Jobs:
    """The session's background work, by key.

    ``in_thread`` work drives its own subprocesses (which it should start
    through :func:`nice_command`); ``in_process`` work runs in a pool of
    ``spawn`` processes at :data:`NICENESS`, one per core.
    """

    def __init__(self, workers: Optional[int] = None) -> None:
        self.workers = workers or os.cpu_count() or 2
        self._threads = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="background")
        self._processes: Optional[ProcessPoolExecutor] = None
        self._futures: Dict[Hashable, Future] = {}
        self._directories: List[str] = []
        self._lock = threading.Lock()

    def temporary_directory(self, prefix: str) -> str:
        """A new directory, removed at :meth:`close`."""
        path = tempfile.mkdtemp(prefix=prefix)
        self._directories.append(path)
        return path

    def in_thread(self, key: Hashable, fn: Callable[..., Any], *args: Any) -> Future:
        """Start ``fn(*args)`` on a background thread (once per key)."""
        return self._submit(key, lambda: self._threads.submit(fn, *args))

    def in_process(self, key: Hashable, fn: Callable[..., Any], *args: Any) -> Future:
        """Start ``fn(*args)`` (picklable) in a low-priority pool process
        (once per key)."""
        def submit() -> Future:
            if self._processes is None:
                self._processes = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                                      initializer=lower_priority)
            return self._processes.submit(fn, *args)
        return self._submit(key, submit)

    def _submit(self, key: Hashable, submit: Callable[[], Future]) -> Future:
        with self._lock:
            if key not in self._futures:
                self._futures[key] = submit()
            return self._futures[key]

    def result(self, key: Hashable) -> Any:
        """The result of the work started under ``key`` (waiting for it);
        its exception is raised here, in the test that asked."""
        with self._lock:
            future = self._futures.get(key)
        if future is None:
            pytest.fail(f"no background work was started for {key!r}: start_background must start it")
        return future.result()

    def close(self) -> None:
        """Drop work not started yet, wait for the running work, and remove
        the temporary directories."""
        self._threads.shutdown(wait=True, cancel_futures=True)
        if self._processes is not None:
            self._processes.shutdown(wait=True, cancel_futures=True)
        for path in self._directories:
            shutil.rmtree(path, ignore_errors=True)


JOBS_KEY = pytest.StashKey[Jobs]()
