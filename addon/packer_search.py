"""The search half of :class:`uvnest.packing.Packer`: ``step()``,
``improvements()``, ``cancel()``, the deadlines that cut a C call short,
and the best layout so far.

:class:`PackerSearch` is a base of ``Packer`` and not used alone: ``Packer``
builds the engine (``_core``, the exact first layout ``_start()``) and
reads its layouts (``_result()``, whose cost ``_search_deadline()`` keeps
free before each deadline); this class drives it.  The attributes it
reads are set in ``Packer.__init__``: ``_lock``, ``_core``, ``_running``,
``_chunk``, ``_cancelled``, ``_deadline_lock``, ``_deadline_generation``,
``_best``, ``_exact``, ``_user_cancel``, ``_opt``, ``_pow2`` and ``final``.
"""
from __future__ import annotations

import contextlib
import threading
import time
from typing import Any, Iterator, Optional

import numpy as np

from .cancel import Cancelled, call_in_c
from .errors import requirement, seconds as _seconds, whole as _whole
from .results import PackResult

#: The search runs in C calls of about this many seconds of moves (a time
#: limit or a cancel cuts a call short, in the middle of a move), so that
#: ``improvements()`` streams promptly ...
CALL_SECONDS = 0.02
#: ... and of this many with several threads, when the step has more than
#: 4 such calls to go (short steps, as the live session's 50 ms and
#: improvements()' slices, keep CALL_SECONDS: a call longer than its step
#: would be cut in the middle of a move): a call ends with the other
#: threads' chains stopped in the middle of a move and waited for.  Under
#: load on 2 cores (homedecor bottle, calendar, dighe2), 20 ms calls left
#: 64 to 87 % of the two cores' time in moves and 9 to 24 % waiting at the
#: join; 80 ms calls 85 to 96 % and 3 to 8 %.
CALL_SECONDS_THREADS = 0.08
#: Seconds of each step of ``improvements()``: a better layout is yielded
#: within about this long of being found (longer when a result takes more
#: than half of it to build, see ``_paced_seconds``).
IMPROVEMENT_SECONDS = 0.05

__all__ = ["PackerSearch"]


class PackerSearch:
    """Searching, cancelling and the best layout of a :class:`uvnest.Packer`
    (see the module's docstring)."""

    def _stopped(self) -> bool:
        """Whether the caller's :class:`Cancel` is set."""
        return self._user_cancel is not None and self._user_cancel.is_set()

    def _check_cancel(self) -> None:
        """Raise :class:`Cancelled` when the caller's :class:`Cancel` is set."""
        if self._stopped():
            raise Cancelled("the packer was cancelled")

    def _stop_running(self) -> None:
        """Stop the C calls under way, and the packer's own (from any thread)."""
        for core in [self._core, *self._running]:
            if core is not None:
                core.cancel()

    def _call(self, core, method: str, *args) -> Any:
        """``core.method(*args)``, reachable by cancels, deadlines and Ctrl-C."""
        self._running.append(core)
        try:
            if self._stopped():
                core.cancel()
            return call_in_c(lambda: getattr(core, method)(*args), core.cancel)
        finally:
            self._running.remove(core)

    @property
    def best(self) -> PackResult:
        """The best layout found so far (validated)."""
        assert self._best is not None
        return self._best

    @property
    def exact(self) -> bool:
        """Whether the exact first layout exists (False while ``best`` is
        the box or convex layout a time limit left; ``step()`` builds it).
        ``best`` stays that layout while it beats the engine's layouts."""
        return self._exact

    def _offer(self, result: PackResult) -> bool:
        """Make ``result`` the best layout: always over a layout of the
        packer's engine (the engine judged it better), over the box or
        convex layout when it beats it; True when it did."""
        old = self._best
        if old is not None and old.kind != "exact":
            if self._opt.fixed:
                if (result.tile_count, -result.tile_fill) >= (old.tile_count, -old.tile_fill):
                    return False
            elif result.coverage <= old.coverage:
                return False
        self._best = result
        return True

    @property
    def stats(self) -> dict:
        """Engine counters: moves (of each thread's search), layouts,
        rejected layouts (always 0 unless there is a bug), coverage, cache
        use (all threads), tiles used; and the threads' own: ``chains``,
        ``moves_all`` (every thread's moves), ``rounds`` (migrations of the
        best layout), ``chain_seconds`` (time in moves, summed over the
        threads), ``wall_seconds`` (of the parallel sections),
        ``serial_seconds`` (of the migrations) and ``serial_coverage``
        (the best coverage of the first thread's search, which takes no
        migration: the serial search's at the same moves); ``theta_moves``, the rotation
        moves by kind (all threads and side searches): ``wall`` (an edge on an
        axis: a candidate), ``neighbour`` (an edge against a touching
        neighbour's), ``refine`` (a small turn until an edge lies along a
        neighbour's or a wall) and ``random`` (a random step; also the
        neighbour and refinement moves that found no edge pair), each
        ``(proposed, accepted, improved, completed, no_pair)``: accepted,
        lowering the cost, making a layout with every island placed, and
        (neighbour and refine) tried but without an edge pair, so run as a
        random step (a random pin in the aligned search)."""
        if self._core is None:   # the power-of-two layout is final
            return {"moves": 0, "layouts": 1, "rejected": 0, "bins": int(np.unique(self._pow2[1]).size)}
        return self._core.stats()

    # ------------------------------------------------------------ search

    def step(self, seconds: Optional[float] = 0.1, iterations: Optional[int] = None) -> bool:
        """Search for up to ``seconds`` (wall time) and/or ``iterations``
        annealing moves; returns True when the best layout improved.
        Without the exact first layout (see ``exact``), it first goes on
        with that, within the same time."""
        seconds = _seconds(seconds, "seconds")
        if iterations is not None:
            iterations = _whole(iterations, "iterations", 0)
        if seconds is None and iterations is None:
            raise requirement("step", "seconds or iterations")
        return self._step(seconds, iterations, hard=True)

    def _step(self, seconds: Optional[float], iterations: Optional[int], hard: bool) -> bool:
        """``step()``; ``hard``: ``seconds`` is a time limit, so the result's
        cost is kept free before it and the move under way is cancelled at
        it (else ``seconds`` only paces a loop of steps: they stop between
        moves, and the moves made depend on the iterations alone, not on
        timing)."""
        if self.final:
            return False
        with self._lock:
            # a cancel() that came while nothing ran is over: this call runs
            self._core.reset_cancel()
            if self._stopped():
                return False
            deadline = None if seconds is None else time.perf_counter() + seconds
            if hard:   # a time limit: the result found by then must be built by then
                deadline = self._search_deadline(deadline)
            # when the moves alone decide (a move budget, no deadline cutting
            # a move short) every thread's search makes every move; else
            # no thread waits for another
            lockstep = iterations is not None and not (hard and deadline is not None)
            with self._stop_at(deadline if hard else None):
                return self._search(deadline, iterations, lockstep)

    def _search(self, deadline: Optional[float], left: Optional[int], lockstep: bool) -> bool:
        """The body of ``step()``, with the deadline armed."""
        improved = False
        if not self._exact:
            if not self._start():
                return False
            self._exact = True
            improved = self._offer(self._result())
        while True:
            if left is not None and left <= 0:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
            n = self._chunk if left is None else min(self._chunk, left)
            t0 = time.perf_counter()
            better, cancelled = self._call(self._core, "run", n, lockstep)
            spent = time.perf_counter() - t0
            if left is not None:
                left -= n
            if better:
                improved = self._offer(self._result()) or improved
            if cancelled:
                self._core.reset_cancel()
                break
            # aim for calls of about CALL_SECONDS (CALL_SECONDS_THREADS)
            long_step = deadline is None or deadline - time.perf_counter() > 4 * CALL_SECONDS_THREADS
            target = CALL_SECONDS_THREADS if self._opt.threads > 1 and long_step else CALL_SECONDS
            if spent < target / 2:
                self._chunk = min(self._chunk * 2, 1 << 20)
            elif spent > 2 * target and self._chunk > 1:
                self._chunk //= 2
        return improved

    @contextlib.contextmanager
    def _stop_at(self, deadline: Optional[float], core=None) -> Iterator[None]:
        """While active, cancel the running search (or first layout) at
        ``deadline`` (``time.perf_counter()`` seconds), in the middle of a
        move if need be: a move is a whole decode, which at thousands of
        islands takes seconds, and a time limit is a promise.  ``step()``
        keeps the best layout and searches again on its next call."""
        core = core or self._core
        if deadline is None or core is None:
            yield
            return
        with self._deadline_lock:
            generation = self._deadline_generation

        def fire() -> None:
            with self._deadline_lock:
                if generation == self._deadline_generation:
                    core.cancel()

        timer = threading.Timer(max(0.0, deadline - time.perf_counter()), fire)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            with self._deadline_lock:
                self._deadline_generation += 1
            timer.cancel()

    def improvements(self, time_limit: Optional[float] = None,
                     iterations: Optional[int] = None) -> Iterator[PackResult]:
        """Yield the current best layout, then each strictly better one,
        until ``time_limit`` seconds or ``iterations`` moves (both None:
        until cancelled).  Without the exact first layout the search first
        builds it (see ``step``)."""
        time_limit = _seconds(time_limit, "time_limit")
        if iterations is not None:
            iterations = _whole(iterations, "iterations", 0)
        # reset before the first yield: a cancel() after it must hold
        self._cancelled = False
        return self._improvements(time_limit, iterations)

    def _improvements(self, time_limit: Optional[float], iterations: Optional[int]) -> Iterator[PackResult]:
        yield self.best
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        done = 0
        while not self._cancelled and not self._stopped():
            if deadline is not None and time.perf_counter() >= deadline:
                return
            if iterations is not None and done >= iterations:
                return
            before = self.stats["moves"]
            seconds = self._paced_seconds(IMPROVEMENT_SECONDS,
                                          None if deadline is None else deadline - time.perf_counter())
            n = None if iterations is None else iterations - done
            with self._stop_at(deadline):
                better = self._step(seconds, n, hard=deadline is not None)
            if better:
                yield self.best
            done += self.stats["moves"] - before
            if self.final:
                return

    def cancel(self) -> None:
        """Stop a running ``step()`` or ``improvements()`` promptly (safe from
        any thread); a later call searches again."""
        self._cancelled = True
        self._stop_running()
