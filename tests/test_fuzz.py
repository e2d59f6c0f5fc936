"""Property test: seeded random inputs (tests/fuzz_inputs.py) packed by
``uvnest.pack`` and judged by the independent shapely checker on the output
faces (tests/pack_checker.py: every face, zero-area ones as the segments or
points they are, at the documented tolerance of 2**-26 of the layout's
extent).  Every input either gives a valid layout or a
``uvnest.errors.CannotFitError`` (a ValueError) saying it cannot fit;
anything else fails and names the seed.

The fast tier runs 200 small inputs (up to 12 islands), the slow tier 2,000
inputs of 1 to 300 islands.  ``python -m tests.test_fuzz FIRST COUNT
[MAX_ISLANDS]`` runs a range of seeds and prints the counts.
"""
from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path
from typing import Optional, Tuple

import pytest

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvnest  # noqa: E402
from tests.background import seed_chunks  # noqa: E402
from tests.fuzz_inputs import Case, make_case  # noqa: E402
from uvnest.errors import CannotFitError  # noqa: E402
from tests.pack_checker import check_pack  # noqa: E402

#: annealing moves after the first layout (the seed picks 0 to this)
MOVES = 8


def run_case(case: Case, threads: Optional[int] = None) -> Tuple[str, Optional[str]]:
    """``('valid', None)``, ``('cannot fit', message)``, ``('invalid',
    problems)`` or ``('error', 'Type: message')`` for one input
    (``threads``: the packer's, default every core)."""
    opts = dict(case.options)
    if threads is not None:
        opts["threads"] = threads
    try:
        res = uvnest.pack(case.uvs, case.faces, time_limit=None, iterations=case.seed % (MOVES + 1), **opts)
    except CannotFitError as e:
        return "cannot fit", str(e)
    except Exception as e:  # noqa: BLE001 - every other error is a finding
        return "error", f"{type(e).__name__}: {e}"
    fixed = opts.get("scale") == "fixed"
    rep = check_pack(res, case.uvs, case.faces, margin=opts["margin"], padding=opts.get("padding", 0.0),
                     separated=False, flip=opts["flip"] or None, rotation=opts["rotation"], fit=not fixed,
                     tiles=fixed)
    return ("invalid", rep.describe(6)) if not rep.ok else ("valid", None)


def run_seeds(first: int, count: int, max_islands: int, report: bool = False, threads: Optional[int] = None):
    """Outcome counts, the failures (seed, outcome, detail, input) and the
    seconds taken; ``report`` prints each failure as it comes."""
    counts: Counter = Counter()
    failures = []
    t0 = time.perf_counter()
    for seed in range(first, first + count):
        case = make_case(seed, max_islands)
        outcome, detail = run_case(case, threads)
        counts[outcome if outcome != "error" else "error " + detail.split(":")[0]] += 1
        if outcome in ("invalid", "error"):
            failures.append((seed, outcome, detail, case.describe()))
            if report:
                print(f"seed {seed}: {outcome}: {detail}\n    {case.describe()}", flush=True)
        if report and (seed - first) % 100 == 99:
            print(f"{seed - first + 1} inputs: {dict(counts)}, {time.perf_counter() - t0:.0f} s", flush=True)
    return counts, failures, time.perf_counter() - t0


def _outcomes(first: int, count: int, max_islands: int, threads: Optional[int]):
    """:func:`run_seeds`'s counts and failures (a background process's work)."""
    counts, failures, _ = run_seeds(first, count, max_islands, threads=threads)
    return counts, failures


#: The runs: (first seed, inputs, most islands, the packer's threads: None
#: for every core).  The long run goes in chunks of one thread each, which
#: the background pool spreads over the cores.
SMALL = (0, 200, 12, None)
LONG = (100000, 2000, 300, 1)
LONG_CHUNKS = 8


def _chunks(run: Tuple[int, int, int, Optional[int]], parts: int):
    first, count, max_islands, threads = run
    return [(seeds.start, len(seeds), max_islands, threads) for seeds in seed_chunks(first, count, parts)]


#: Each test's runs, by test name.
FUZZ_TESTS = {"test_fuzz_small_inputs_give_valid_layouts_or_cannot_fit": [SMALL],
              "test_fuzz_two_thousand_inputs_give_valid_layouts_or_cannot_fit": _chunks(LONG, LONG_CHUNKS)}


def start_background(jobs, items) -> None:
    """Start the selected tests' inputs in the background pool
    (tests/background.py): packing is bounded by iterations, never by time."""
    for item in items:
        for chunk in FUZZ_TESTS[item.name]:
            jobs.in_process(("fuzz",) + chunk, _outcomes, *chunk)


def _assert_clean(jobs, name: str) -> None:
    """Every input of the test's runs valid or cannot-fit."""
    counts, failures, total = Counter(), [], 0
    for chunk in FUZZ_TESTS[name]:
        c, f = jobs.result(("fuzz",) + chunk)
        counts.update(c)
        failures += f
        total += chunk[1]
    assert sum(counts.values()) == total
    assert not failures, f"{len(failures)} of {total} inputs failed ({dict(counts)}): " + " | ".join(
        f"seed {s}: {o}: {d} ({c})" for s, o, d, c in failures[:5])


@pytest.mark.background
def test_fuzz_small_inputs_give_valid_layouts_or_cannot_fit(background_jobs):
    _assert_clean(background_jobs, "test_fuzz_small_inputs_give_valid_layouts_or_cannot_fit")


@pytest.mark.slow
@pytest.mark.background
def test_fuzz_two_thousand_inputs_give_valid_layouts_or_cannot_fit(background_jobs):
    _assert_clean(background_jobs, "test_fuzz_two_thousand_inputs_give_valid_layouts_or_cannot_fit")


if __name__ == "__main__":
    first, count = int(sys.argv[1]), int(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    counts, failures, secs = run_seeds(first, count, top, report=True)
    print(dict(counts), f"{secs:.1f} s")
