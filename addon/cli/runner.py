"""Running a batch of files on this machine: serially or in a process
pool, with Ctrl-C handling (the first stops cleanly, the second at once)."""
from __future__ import annotations

import functools
import multiprocessing
import signal
import threading
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from queue import Empty
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..options import cpu_cores
from .console import _Console
from .packfile import _StopSignal, pack_file
from .results import FAILED, INTERRUPTED, NOT_STARTED, FileResult, PackTask

def _cpu_count() -> int:
    """Cores this process may use."""
    return cpu_cores()


class _Interrupts:
    """SIGINT handling for a batch: the first Ctrl-C sets ``stop``, a second
    one raises ``KeyboardInterrupt``.  Only active in the main thread."""

    def __init__(self, stop: _StopSignal) -> None:
        self.stop = stop
        self.count = 0
        self._old: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        self.count += 1
        self.stop.set()
        if self.count > 1:
            raise KeyboardInterrupt

    def __enter__(self) -> "_Interrupts":
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)


OnResult = Callable[[FileResult], None]

_WORKER_STOP: Any = None
_WORKER_QUEUE: Any = None


def _init_worker(stop: Any, queue: Any) -> None:
    """Pool worker start-up: Ctrl-C is the parent's business (it sets ``stop``)."""
    global _WORKER_STOP, _WORKER_QUEUE
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    queue.cancel_join_thread()  # progress messages may be dropped at exit; never block on them
    _WORKER_STOP, _WORKER_QUEUE = stop, queue


def _worker_pack(task: PackTask) -> FileResult:
    return pack_file(task, _WORKER_STOP, _WORKER_QUEUE.put)


def _run_serial(tasks: Sequence[PackTask], stop: _StopSignal, console: _Console, on_result: OnResult) -> None:
    for task in tasks:
        if stop.is_set():
            on_result(_not_started(task))
            continue
        console.started(task.index, task.path)
        on_result(pack_file(task, stop, console.progress))


def _not_started(task: PackTask) -> FileResult:
    return FileResult(index=task.index, path=task.path, status=NOT_STARTED, seed=int(task.options.get("seed", 0)))


def _drain(queue: Any, console: _Console) -> None:
    while True:
        try:
            p = queue.get_nowait()
        except Empty:
            return
        console.progress(p)


def _run_pool(tasks: Sequence[PackTask], stop: _StopSignal, console: _Console, on_result: OnResult, *,
              jobs: int) -> None:
    """Pack ``tasks`` in ``jobs`` worker processes, at most ``jobs`` files in
    flight.  Workers ignore SIGINT; the parent turns ``stop`` into a shared
    event that cancels their searches, and starts no new file.  If a worker
    dies, the files in flight fail and a new pool takes the rest."""
    ctx = multiprocessing.get_context()
    shared_stop = ctx.Event()
    queue = ctx.Queue()
    todo = deque(tasks)
    while todo and not stop.is_set():
        with ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_init_worker,
                                 initargs=(shared_stop, queue)) as pool:
            try:
                _feed_pool(pool, todo, jobs, stop, shared_stop, queue, console, on_result)
            except BaseException:
                shared_stop.set()  # a second Ctrl-C: the pool's shutdown then waits only for cancelled searches
                raise
    for task in todo:
        on_result(_not_started(task))


def _feed_pool(pool: ProcessPoolExecutor, todo: "deque[PackTask]", jobs: int, stop: _StopSignal, shared_stop: Any,
               queue: Any, console: _Console, on_result: OnResult) -> None:
    """Keep ``jobs`` files in flight until ``todo`` is empty, ``stop`` is set
    or the pool breaks; returns when no file is in flight."""
    running: Dict[Future, PackTask] = {}
    broken = False
    while True:
        while todo and not broken and not stop.is_set() and len(running) < jobs:
            task = todo.popleft()
            console.started(task.index, task.path)
            running[pool.submit(_worker_pack, task)] = task
        if not running:
            return
        done, _ = wait(running, timeout=0.1, return_when=FIRST_COMPLETED)
        if stop.is_set() and not shared_stop.is_set():
            shared_stop.set()
        _drain(queue, console)
        for future in done:
            task = running.pop(future)
            try:
                result = future.result()
            except BrokenProcessPool:
                broken = True
                result = replace(_not_started(task), status=FAILED,
                                 error=f"{task.path}: the worker process packing it died")
            on_result(result)


Execute = Callable[[Sequence[PackTask], _StopSignal, _Console, OnResult], None]


def _run_batch(tasks: Sequence[PackTask], jobs: int, console: _Console, fail_fast: bool,
               execute: Optional[Execute] = None) -> Tuple[List[FileResult], bool]:
    """Pack ``tasks`` (serially, in a pool of ``jobs`` processes, or with
    ``execute``, e.g. on a cluster); returns the results in task order and
    whether Ctrl-C stopped the batch.  ``execute(tasks, stop, console,
    on_result)`` must report every task to ``on_result``, start no file
    once ``stop`` is set, and clean up when a second Ctrl-C raises
    ``KeyboardInterrupt`` in it."""
    stop = _StopSignal()
    results: Dict[int, FileResult] = {}

    def on_result(r: FileResult) -> None:
        results[r.index] = r
        console.finished(r)
        if fail_fast and r.status == FAILED:
            stop.set()

    if execute is None:
        execute = (functools.partial(_run_pool, jobs=min(jobs, len(tasks))) if jobs > 1 and len(tasks) > 1
                   else _run_serial)
    with _Interrupts(stop) as interrupts:
        try:
            execute(tasks, stop, console, on_result)
        except KeyboardInterrupt:  # a second Ctrl-C: give up on the files in progress at once
            interrupts.count = max(interrupts.count, 1)
            for task in tasks:  # reported too: every file gets its line and JSON record
                if task.index not in results:
                    r = _not_started(task)
                    on_result(replace(r, status=INTERRUPTED) if task.index in console.running else r)
    return [results[t.index] for t in tasks], interrupts.count > 0
