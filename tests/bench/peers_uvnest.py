"""uvnest as a benchmark packer: one layout via ``uvnest.pack``, and its coverage-over-time curve.

Both go through the public API only:

* ``uvnest.pack(uvs, faces, margin=m, rotation=..., merge_overlapping=True,
  time_limit=t, seed=s)`` -> result with ``.uvs`` and ``.elapsed``
  (:func:`pack_with_uvnest`);
* ``uvnest.Packer(uvs, faces, **options).improvements(time_limit=...)``
  yielding results with ``.uvs``, ``.coverage`` and ``.elapsed`` (seconds
  since the packer was created) (:func:`uvnest_curve`).

The curve gives the layouts the benchmark reports: the first layout (what
``Packer(...)`` computes before any search), and the best layout found by
each time mark - Blender CONCAVE's wall time on the same model, 2 s and
10 s.  Every one of them goes through the independent checker like any other
packer; the coverage uvnest reports about itself is only drawn as the curve.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple

import numpy as np

from .common import Model, PackOutcome, PeakMemory, repeat_timed

#: The benchmark's rotation freedom -> uvnest's ``rotation`` option.
ROTATION: Dict[str, str] = {"any": "any", "none": "none"}


class UvnestUnavailable(RuntimeError):
    """``uvnest.pack`` / ``uvnest.Packer`` cannot be imported (not written or not built yet)."""


def uvnest_api() -> Any:
    """The ``uvnest`` module, after checking that ``pack`` and ``Packer`` exist.

    Raises :class:`UvnestUnavailable` with the import error otherwise.
    """
    import uvnest

    try:
        for name in ("pack", "Packer"):
            getattr(uvnest, name)
    except (ImportError, AttributeError) as exc:
        raise UvnestUnavailable(f"uvnest.pack / uvnest.Packer are not available: {exc!r}") from exc
    return uvnest


def uvnest_options(model: Model, run_margin: float, seed: int, shape: str = "concave") -> Dict[str, Any]:
    """Keyword options for ``uvnest.pack`` / ``uvnest.Packer`` on ``model``."""
    return {"margin": model.effective_margin(run_margin), "rotation": ROTATION[model.rotation],
            "merge_overlapping": True, "seed": seed, "shape": shape}


def pack_with_uvnest(model: Model, run_margin: float, time_limit: float = 2.0, seed: int = 0,
                     shape: str = "concave") -> PackOutcome:
    """One ``uvnest.pack`` call; ``seconds`` is the wall time around it.

    The outcome is named ``uvnest``, or ``uvnest-<shape>`` for another
    shape (``uvnest-box``: the skyline rectangle packer, the peer of
    Blender's AABB).  Engine errors become an outcome with status "error";
    a missing API raises :class:`UvnestUnavailable`.
    """
    api = uvnest_api()
    name = "uvnest" if shape == "concave" else f"uvnest-{shape}"
    memory = PeakMemory()
    t0 = time.perf_counter()
    try:
        with memory:
            result = api.pack(model.uvs, model.faces, time_limit=time_limit,
                              **uvnest_options(model, run_margin, seed, shape))
    except (ValueError, RuntimeError, MemoryError) as exc:
        return PackOutcome(name, model.name, None, time.perf_counter() - t0, status="error",
                           message=f"{type(exc).__name__}: {exc}")
    wall = time.perf_counter() - t0
    return PackOutcome(name, model.name, result.uvs, wall, times=[wall], peak_rss_mb=memory.peak_mb,
                       extra_rss_mb=memory.extra_mb,
                       info={"elapsed": float(result.elapsed), "reported_coverage": float(result.coverage),
                             "time_limit": time_limit})


@dataclass
class UvnestCurve:
    """uvnest's improvements on one model.

    ``points`` holds ``(elapsed, reported coverage)`` of every improvement;
    ``outcomes`` maps each mark label ("first", "blender", "2s", "10s") to
    the layout in force at that time, named ``uvnest-<label>``.
    """

    points: List[Tuple[float, float]] = field(default_factory=list)
    outcomes: Dict[str, PackOutcome] = field(default_factory=dict)


def uvnest_curve(model: Model, run_margin: float, marks: Dict[str, float], seed: int = 0,
                 max_repeats: int = 5, repeat_budget: float = 2.0) -> UvnestCurve:
    """Run ``uvnest.Packer`` on ``model`` up to the last time mark and take a layout at each mark.

    ``marks`` maps labels to seconds since the packer was created.  The
    first layout is timed separately over repeated ``Packer(...)``
    constructions (for a median); the curve run then searches until the
    largest mark.  A mark reached before any improvement uses the first
    layout; the layout at a mark is the last one whose ``elapsed`` is within
    it; a mark before the first layout was ready gets status "late".
    Engine errors turn every mark into an "error" outcome.
    """
    api = uvnest_api()
    options = uvnest_options(model, run_margin, seed)
    curve = UvnestCurve()
    try:
        first, times, first_mem = repeat_timed(lambda: api.Packer(model.uvs, model.faces, **options).best,
                                               max_repeats, repeat_budget)
    except (ValueError, RuntimeError, MemoryError) as exc:
        for label in ["first", *marks]:
            curve.outcomes[label] = PackOutcome(f"uvnest-{label}", model.name, None, float("nan"),
                                                status="error", message=f"{type(exc).__name__}: {exc}")
        return curve
    curve.outcomes["first"] = PackOutcome("uvnest-first", model.name, first.uvs, float(np.median(times)),
                                          times=times, peak_rss_mb=first_mem.peak_mb,
                                          extra_rss_mb=first_mem.extra_mb,
                                          info={"reported_coverage": float(first.coverage)})
    horizon = max(marks.values()) if marks else 0.0
    at_mark: Dict[str, Any] = {}
    memory = PeakMemory()
    with memory:
        packer = api.Packer(model.uvs, model.faces, **options)
        for result in packer.improvements(time_limit=max(0.0, horizon - packer.best.elapsed)):
            curve.points.append((float(result.elapsed), float(result.coverage)))
            for label, limit in marks.items():
                if result.elapsed <= limit:
                    at_mark[label] = result
    for label, limit in marks.items():
        result = at_mark.get(label)
        if result is None:
            curve.outcomes[label] = PackOutcome(f"uvnest-{label}", model.name, None, float(limit),
                                                status="late",
                                                message=f"no layout within {limit:.3g} s")
            continue
        curve.outcomes[label] = PackOutcome(
            f"uvnest-{label}", model.name, result.uvs, float(result.elapsed), times=[float(result.elapsed)],
            peak_rss_mb=memory.peak_mb, extra_rss_mb=memory.extra_mb,
            info={"mark_seconds": float(limit), "reported_coverage": float(result.coverage),
                  "iterations": int(result.iterations)})
    return curve
