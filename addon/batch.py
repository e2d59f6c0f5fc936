"""Packing many files, on this machine or on a Dask cluster.

::

    from distributed import Client
    import uvnest.batch

    results = uvnest.batch.pack_files(["/share/models"], out_dir="/share/packed",
                                      client=Client("tcp://head:8786"), iterations=20000, seed=1)
    [(r.path, r.status, r.coverage_before, r.coverage_after) for r in results]

One task per file (``Client.map`` with retries; ``as_completed`` for
progress).  Workers read the inputs and write the outputs themselves, so the
paths must name the same files on every worker (shared storage), and the
workers need the same uvnest version (the tasks are its functions); every
output is written atomically.  A file that fails is reported and the others
go on; a task whose worker is lost is run again on another worker by the
scheduler.  With a fixed ``seed`` and ``iterations`` every output is the
same, byte for byte, as a local run's.  Stopping (Ctrl-C in the command
line) sets a cluster-wide event: files not started are not started, files
in progress end their search and are not written, then the futures are
cancelled.

Needs the ``dask`` extra: ``pip install 'uvnest[dask]'`` (``distributed``).
"""
from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator, List, Optional, Sequence, Tuple, Union

from .cli.console import _Console
from .cli.inputs import _plan_outputs, collect_inputs
from .cli.pack import DEFAULT_TIME, _check_options
from .cli.packfile import _StopSignal, pack_file
from .cli.results import FAILED, INTERRUPTED, NOT_STARTED, FileResult, PackTask
from .cli.runner import OnResult, _cpu_count, _not_started, _run_batch

__all__ = ["pack_files", "run_on_cluster", "ClusterUnavailable", "FileResult", "RETRIES"]

#: Times a task is run again after it raised (pack_file reports bad files
#: itself, so this covers a worker that failed under it, e.g. out of memory).
#: A worker lost mid-task is the scheduler's business: it reruns the task
#: elsewhere (up to ``distributed.scheduler.allowed-failures`` times).
RETRIES = 2
#: Seconds between two looks at the cluster-wide stop event from a running
#: search: one scheduler round trip each, so not the local 50 ms.
STOP_POLL_S = 0.5
#: After a stop, seconds to wait for files in progress to report before
#: their futures are cancelled (a search sees the stop within
#: STOP_POLL_S; a file being written finishes it).
STOP_GRACE_S = 10.0
#: Seconds to connect to a scheduler.
CONNECT_TIMEOUT_S = 30.0


class ClusterUnavailable(Exception):
    """No cluster to run on: ``distributed`` is missing or the scheduler cannot be reached."""


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterUnavailable("needs Dask's distributed: pip install 'uvnest[dask]'") from None
    return distributed


class _ClusterStop:
    """A worker's view of the run's stop event (``is_set`` asks the
    scheduler at most every :data:`STOP_POLL_S` seconds)."""

    def __init__(self, name: str) -> None:
        self._event = _distributed().Event(name)
        self._checked = float("-inf")
        self._set = False

    def is_set(self) -> bool:
        now = time.monotonic()
        if not self._set and now - self._checked >= STOP_POLL_S:
            self._checked = now
            try:
                self._set = bool(self._event.is_set())
            except Exception:  # the scheduler is gone: the run is over
                self._set = True
        return self._set


def _pack_on_worker(task: PackTask, stop_event: str) -> FileResult:
    """The cluster task: pack one file (never raises for a bad file)."""
    return pack_file(task, _ClusterStop(stop_event))


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored while the block starts processes: they keep it
    ignored (an ignored signal survives exec, and Python and asyncio leave
    it so), as the local pool's workers do."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _open_client(scheduler: str) -> Tuple[Any, Any]:
    """A client of ``scheduler`` (``'local'``: a new ``LocalCluster`` of
    one single-threaded worker process per core), and the cluster to close
    (None for a remote one)."""
    distributed = _distributed()
    try:
        if scheduler == "local":
            with _sigint_ignored():  # the workers inherit it: Ctrl-C in a terminal is this process's business
                cluster = distributed.LocalCluster(n_workers=_cpu_count(), threads_per_worker=1, processes=True,
                                                   dashboard_address=":0", silence_logs=logging.ERROR)
            return distributed.Client(cluster), cluster
        return distributed.Client(scheduler, timeout=CONNECT_TIMEOUT_S), None
    except (OSError, TimeoutError, ValueError) as e:
        raise ClusterUnavailable(f"cannot reach the scheduler: {e}") from None


def _on_cluster(client: Any, tasks: Sequence[PackTask], stop: _StopSignal, console: _Console,
                on_result: OnResult) -> None:
    """Run ``tasks`` on ``client``'s cluster, reporting each as it completes;
    after ``stop``, let files in progress stop and cancel the rest."""
    distributed = _distributed()
    run = uuid.uuid4().hex
    event = distributed.Event(f"uvnest-stop-{run}", client=client)
    futures = client.map(_pack_on_worker, tasks, stop_event=event.name, retries=RETRIES, pure=False,
                         key=[f"uvnest-pack-{run}-{t.index}" for t in tasks])
    of = {f.key: t for f, t in zip(futures, tasks)}
    pending = set(of)
    grace: Optional[float] = None
    try:
        done = distributed.as_completed(futures)
        while pending:
            if stop.is_set() and grace is None:
                event.set()  # files not started return at once, searches end within STOP_POLL_S
                grace = time.monotonic() + STOP_GRACE_S
            if grace is not None and time.monotonic() > grace:
                break
            batch = done.next_batch(block=False)
            if not batch:
                time.sleep(0.05)
                continue
            for future in batch:
                pending.discard(future.key)
                on_result(_cluster_result(future, of[future.key]))
    finally:
        left = [f for f in futures if f.key in pending]
        if left:
            client.cancel(left)
            for f in left:
                task = of[f.key]
                on_result(replace(_not_started(task), status=INTERRUPTED if grace is not None else NOT_STARTED))
        event.set()


def _cluster_result(future: Any, task: PackTask) -> FileResult:
    """The result of a completed future; a task that raised (after its
    retries) or lost its workers is a failed file."""
    if future.status == "finished":
        return future.result()
    try:
        error = future.exception()
        reason = f"{type(error).__name__}: {error}"
    except Exception as e:  # cancelled by someone else
        reason = f"{type(e).__name__}"
    return replace(_not_started(task), status=FAILED, error=f"{task.path}: failed on the cluster ({reason})")


def run_on_cluster(tasks: Sequence[PackTask], scheduler: Union[str, Any], console: _Console,
                   fail_fast: bool = False) -> Tuple[List[FileResult], bool]:
    """Pack ``tasks`` on a Dask cluster: ``scheduler`` is an address
    (``tcp://host:8786``), ``'local'`` or a ``distributed.Client``.
    Returns the results in task order and whether Ctrl-C stopped the run.
    Raises :class:`ClusterUnavailable` before packing anything when there
    is no cluster."""
    if isinstance(scheduler, str):
        client, cluster = _open_client(scheduler)
    else:
        client, cluster = scheduler, None
    try:
        return _run_batch(tasks, 1, console, fail_fast,
                          execute=lambda ts, stop, con, on_result: _on_cluster(client, ts, stop, con, on_result))
    finally:
        if isinstance(scheduler, str):
            client.close()
            if cluster is not None:
                cluster.close()


def pack_files(paths: Sequence[Union[str, Path]], out_dir: Union[str, Path, None] = None, client: Any = None, *,
               suffix: Optional[str] = None, in_place: bool = False, time_limit: Optional[float] = None,
               iterations: Optional[int] = None, uv_set: int = 0, only_if_better: bool = False,
               keep_groups: bool = False, locked: Sequence[str] = (), jobs: Optional[int] = None,
               **options: Any) -> List[FileResult]:
    """Pack mesh files and folders (searched recursively), as ``uvnest pack``.

    Outputs go to ``out_dir`` (mirroring folders; names kept unless
    ``suffix``), else next to the inputs with ``suffix`` (default
    ``_packed``), or replace the inputs with ``in_place``.  ``client`` is a
    ``distributed.Client`` to pack on its cluster, one task per file (or a
    scheduler address, or ``'local'``, for a client opened and closed
    here); None packs here in ``jobs`` processes (default: every core).  The search per
    file runs for ``time_limit`` seconds and/or ``iterations`` moves (2 s
    when neither is given); ``options`` are :class:`uvnest.Packer` options
    (``margin``, ``rotation``, ``seed``, ``scale``, ...).  ``locked`` names
    objects, groups or materials whose islands stay put;
    ``only_if_better`` keeps a file's layout when packing would lower its
    coverage.

    Returns one :class:`FileResult` per file in a stable order (status,
    coverage before and after, ``worse``, warnings, error message).  Bad
    options, missing paths and clashing outputs raise ``ValueError`` before
    anything is packed; a file that cannot be packed is a result with
    status ``error``.
    """
    problem = _check_options(options)
    if problem:
        raise ValueError(problem)
    out = Path(out_dir) if out_dir is not None else None
    suffix = suffix if suffix is not None else ("" if out is not None or in_place else "_packed")
    files, missing, _ = collect_inputs([str(p) for p in paths], skip_dir=out,
                                       skip_stem_suffix="" if in_place else suffix)
    plans = _plan_outputs(files, output=None, out_dir=out, suffix=suffix, in_place=in_place, preview=False)
    errors = [m for _arg, m in missing] + [p.error for p in plans if p.error]
    if errors:
        raise ValueError("; ".join(errors))
    if time_limit is None and iterations is None:
        time_limit = DEFAULT_TIME
    tasks = [PackTask(index=k, path=str(p.path), output=str(p.output), options=dict(options),
                      time_limit=time_limit, iterations=iterations, uv_set=uv_set, keep_groups=keep_groups,
                      only_if_better=only_if_better, locked_groups=tuple(locked))
             for k, p in enumerate(plans)]
    console = _Console(-2, len(tasks))
    if client is None:
        results, _ = _run_batch(tasks, jobs or _cpu_count(), console, fail_fast=False)
    else:
        results, _ = run_on_cluster(tasks, client, console)
    return results
