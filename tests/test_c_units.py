"""Build and run the C unit tests in tests/csrc/ against the C core.

The library is every csrc/*.c except binding.c (the only file that needs
Python), so files added to csrc/ later are compiled in automatically.  Each
tests/csrc/test_*.c is linked against it and run, in two builds:

* ``O2``:   ``gcc -std=c99 -Wall -Wextra -Werror -pedantic -O2``
* ``asan``: the same flags with ``-O1 -g -fsanitize=address,undefined,
  float-cast-overflow -fno-sanitize-recover=all`` (LeakSanitizer on; gcc's
  ``undefined`` leaves out float-to-integer conversions out of range),

with the library's exact.c using ``__int128``.  The programs of the
threaded search (tests/csrc/test_threads*.c) also run in a third build,

* ``tsan``: ``-O2 -g -fsanitize=thread`` (ThreadSanitizer, which cannot be
  combined with ASan; -O1 there makes gcc see an uninitialised variable in
  decode.c that is not), in the slow tier (30 s of CPU for the program, and
  the library compiled once more),

  The fast tier (``-m "not
slow"``) runs every program but the allocation-failure ones once in each
build, and the fuzz target (tests/csrc/fuzz_core.c with the plain driver
fuzz_main.c) on a few hundred seeded random inputs under ASan/UBSan.  The
builds and runs are background work (tests/background.py): they start
when collection ends, one per core at the lowest priority, while the
serial tests run, and each test reports its own run at the end.  The slow tier adds:

* the portable fallback arithmetic (exact.c compiled with
  ``-DUN_NO_INT128``, the only file that reads it) for the programs whose
  code it changes: test_exact.c and test_arrange.c, which test the
  predicates and the arrangement built on them, and the fuzz target;
* the allocation-failure injection, test_oom*.c, linked with ``--wrap`` for
  malloc, realloc, calloc and free, which fails every allocation in turn
  (under ASan only);
* the long fuzz runs (:data:`FUZZ_LONG` inputs per variant).

Separately, every source file must compile warning-free on its own,
binding.c included (against the Python and numpy headers, with the flags
of setup.py).
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sysconfig
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple, Tuple

import pytest

from tests.background import nice_command

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSRC = os.path.join(ROOT, "csrc")
TESTS = os.path.join(ROOT, "tests", "csrc")
CC = os.environ.get("CC", "gcc")

WARN = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
CONFIGS = {
    "O2": ["-O2"],
    "asan": ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined,float-cast-overflow",
             "-fno-sanitize-recover=all"],
    "tsan": ["-O2", "-g", "-fno-omit-frame-pointer", "-fsanitize=thread"],
}
#: Builds every program runs in; the threaded programs (THREADED) run in
#: every build, tsan included.
PLAIN_CONFIGS = ("O2", "asan")
THREADED = "test_threads"
WRAP = ["-Wl,--wrap=malloc,--wrap=realloc,--wrap=calloc,--wrap=free"]
RUN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
    "TSAN_OPTIONS": "halt_on_error=1:second_deadlock_stack=1",
}

pytestmark = pytest.mark.skipif(shutil.which(CC) is None, reason=f"no C compiler ({CC})")


def library_sources():
    return sorted(p for p in glob.glob(os.path.join(CSRC, "*.c")) if os.path.basename(p) != "binding.c")


def program_files():
    return sorted(glob.glob(os.path.join(TESTS, "test_*.c")))


def _run(cmd, timeout=900, env=None):
    """``cmd`` at the lowest priority (it runs in the background); the
    timeout only guards against a hang, and allows for the wait of a
    nice-19 process behind the serial tests."""
    e = dict(os.environ)
    if env:
        e.update(env)
    return subprocess.run(nice_command(cmd), capture_output=True, text=True, timeout=timeout, env=e)


def _compile(src, obj, flags):
    r = _run([CC, *WARN, *flags, "-I", CSRC, "-I", TESTS, "-c", src, "-o", obj])
    return src, r


class Build:
    """One configuration: library objects (with both exact.c variants)."""

    def __init__(self, name, flags, root):
        self.name = name
        self.flags = flags
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir, exist_ok=True)
        self.errors = {}
        self.objs = []
        jobs = []
        for src in library_sources():
            obj = os.path.join(self.dir, os.path.basename(src)[:-2] + ".o")
            jobs.append((src, obj, flags))
            self.objs.append(obj)
        exact = os.path.join(CSRC, "exact.c")
        self.exact_fallback = os.path.join(self.dir, "exact_noint128.o")
        jobs.append((exact, self.exact_fallback, flags + ["-DUN_NO_INT128"]))
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            for src, r in ex.map(lambda j: _compile(*j), jobs):
                if r.returncode != 0 or r.stderr.strip():
                    self.errors[src] = r.stderr
        self.exact_obj = os.path.join(self.dir, "exact.o")
        self._links = {}   # exe -> (lock, linker errors or None once linked)
        self._links_lock = threading.Lock()

    def link(self, test_src, variant, *more_sources):
        """Link test_src (and more_sources) against the library, once per
        program and variant ('int128' or 'fallback'), from any thread."""
        if self.errors:
            pytest.fail("the library does not compile warning-free:\n" +
                        "\n".join(f"{k}:\n{v}" for k, v in self.errors.items()))
        exe = os.path.join(self.dir, f"{os.path.basename(test_src)[:-2]}_{variant}")
        with self._links_lock:
            entry = self._links.setdefault(exe, [threading.Lock(), None])
        with entry[0]:
            if entry[1] is None:
                objs = [o for o in self.objs if o != self.exact_obj]
                objs.append(self.exact_obj if variant == "int128" else self.exact_fallback)
                extra = WRAP if os.path.basename(test_src).startswith("test_oom") else []
                r = _run([CC, *WARN, *self.flags, "-I", CSRC, "-I", TESTS, test_src, *more_sources, *objs, *extra,
                          "-lm", "-pthread", "-o", exe])
                entry[1] = r.stderr.strip() if r.returncode == 0 else r.stderr.strip() or f"exit {r.returncode}"
            if entry[1]:
                pytest.fail(f"{os.path.basename(test_src)} does not build warning-free:\n{entry[1]}")
        return exe


#: The programs whose code the fallback arithmetic changes (the predicates
#: and the arrangement built on them); the others run with __int128 only.
FALLBACK_PROGRAMS = ("test_exact.c", "test_arrange.c")

#: random inputs of the fast run, and of each long run (about 75 s under
#: ASan on 2 cores)
FUZZ_SHORT = 200
FUZZ_LONG = 1500


class Run(NamedTuple):
    """One run of a test program: ``source`` (with ``extra`` sources, in
    tests/csrc) linked in build ``config`` with exact.c's ``variant``, and
    started with ``args``."""

    config: str
    source: str
    variant: str
    extra: Tuple[str, ...] = ()
    args: Tuple[str, ...] = ()
    timeout: int = 1800


def program_params():
    """(program, config, variant) of every unit program run: the fallback
    arithmetic and the allocation-failure programs are marked slow.  Those
    run under ASan only: the same allocations fail at -O2, and ASan adds
    the memory checks of every failure path.  The threaded programs also
    run under TSan (slow)."""
    params = []
    for program in (os.path.basename(p) for p in program_files()):
        if program.startswith(OOM):
            continue   # test_allocation_failures runs them, in shards
        variants = ["int128", "fallback"] if program in FALLBACK_PROGRAMS else ["int128"]
        configs = [*PLAIN_CONFIGS, "tsan"] if program.startswith(THREADED) else PLAIN_CONFIGS
        for config in configs:
            for variant in variants:
                slow = variant == "fallback" or config == "tsan"
                params.append(pytest.param(program, config, variant, marks=[pytest.mark.slow] if slow else [],
                                           id=f"{program}-{config}-{variant}"))
    return params


#: The allocation-failure programs (test_oom*.c) run in this many shards,
#: each failing every OOM_SHARDS-th allocation (``--shard i/n``), which the
#: batch spreads over the cores: whole, the engine's was the slow tier's
#: longest run (about 5 minutes of one core while the other idled).
OOM = "test_oom"
OOM_SHARDS = 3


def oom_run(program, shard):
    return Run("asan", program, "int128", args=("--shard", f"{shard}/{OOM_SHARDS}"))


def fuzz_run(variant, seed, inputs):
    return Run("asan", "fuzz_core.c", variant, ("fuzz_main.c",), ("--random", str(inputs), "--seed", str(seed)),
               timeout=2700)


def run_of(item):
    """The run a collected test of this module reports, or None."""
    function = getattr(item, "function", None)
    if function is test_c_unit_program:
        return Run(item.callspec.params["config"], item.callspec.params["program"], item.callspec.params["variant"])
    if function is test_fuzz_target:
        return fuzz_run(**item.callspec.params)
    if function is test_allocation_failures:
        return oom_run(**item.callspec.params)
    return None


def _execute(build, run):
    """The finished run, or the failure of its link (or its timeout) for its
    test to raise."""
    try:
        exe = build.link(os.path.join(TESTS, run.source), run.variant, *(os.path.join(TESTS, e) for e in run.extra))
        return _run([exe, *run.args], timeout=run.timeout, env=RUN_ENV)
    except (pytest.fail.Exception, subprocess.TimeoutExpired) as e:
        return e


def _execute_when_built(build, run):
    return _execute(build.result(), run)


def start_background(jobs, items):
    """Start every selected build and run (tests/background.py): a build
    compiles on a background thread, then its runs start, one per core, at
    the lowest priority; each test then reports its own run (the programs
    measure CPU time, not wall time)."""
    root = jobs.temporary_directory("uvnest-c-units-")
    wanted = {}
    for item in items:
        run = run_of(item)
        config = run.config if run is not None else "O2"   # the warning-free check reads the O2 build
        wanted.setdefault(config, [])
        if run is not None and run not in wanted[config]:
            wanted[config].append(run)
    for config, runs in wanted.items():
        build = jobs.in_thread(("build", config), Build, config, CONFIGS[config], root)
        for run in sorted(runs, key=lambda r: not r.args):   # the long ones (with arguments) first
            jobs.in_thread(run, _execute_when_built, build, run)


def _outcome(jobs, run):
    outcome = jobs.result(run)
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome


def _assert_passed(r, label):
    out = (r.stdout + r.stderr).strip()
    if r.returncode != 0 or " 0 failed" not in r.stdout:
        pytest.fail(f"{label} exited with {r.returncode}:\n{out[-20000:]}", pytrace=False)


@pytest.mark.background
@pytest.mark.parametrize("program, config, variant", program_params())
def test_c_unit_program(program, config, variant, background_jobs):
    _assert_passed(_outcome(background_jobs, Run(config, program, variant)), f"{program} [{config}, {variant}]")


@pytest.mark.slow
@pytest.mark.background
@pytest.mark.parametrize("program, shard", [(os.path.basename(p), shard) for p in program_files()
                                            if os.path.basename(p).startswith(OOM)
                                            for shard in range(1, OOM_SHARDS + 1)])
def test_allocation_failures(program, shard, background_jobs):
    """Allocation-failure injection under ASan (see tests/csrc/oom.h):
    shard ``shard`` of the allocations of every scenario fails in turn."""
    r = _outcome(background_jobs, oom_run(program, shard))
    _assert_passed(r, f"{program} [asan, shard {shard}/{OOM_SHARDS}]")
    assert f"shard {shard} of {OOM_SHARDS}" in r.stdout


@pytest.mark.background
@pytest.mark.parametrize("variant, seed, inputs", [
    pytest.param("int128", 3, FUZZ_SHORT, id="int128-short"),
    pytest.param("int128", 1, FUZZ_LONG, marks=pytest.mark.slow, id="int128-long"),
    pytest.param("fallback", 2, FUZZ_LONG, marks=pytest.mark.slow, id="fallback-long"),
])
def test_fuzz_target(variant, seed, inputs, background_jobs):
    """The fuzz target under ASan/UBSan on seeded random inputs (a
    different seed per run).  A broken promise aborts, and the last
    line names the input (``fuzz_main --save`` writes it to a file)."""
    r = _outcome(background_jobs, fuzz_run(variant, seed, inputs))
    if r.returncode != 0 or " 0 failed" not in r.stdout:
        pytest.fail(f"fuzz_core [{variant}, seed {seed}] exited with {r.returncode}:\n"
                    f"{(r.stdout + r.stderr).strip()[-6000:]}", pytrace=False)
    assert f"{inputs} random inputs" in r.stdout


@pytest.mark.background
@pytest.mark.parametrize("src", [os.path.basename(p) for p in library_sources()])
def test_library_file_compiles_warning_free(src, background_jobs):
    """Each core file on its own with -Wall -Wextra -Werror -pedantic -O2,
    as the O2 build compiles it (exact.c also with -DUN_NO_INT128)."""
    path = os.path.join(CSRC, src)
    errors = background_jobs.result(("build", "O2")).errors
    assert path not in errors, errors[path] if path in errors else ""


def test_only_exact_c_reads_the_fallback_switch():
    """The builds compile only exact.c with -DUN_NO_INT128: a file or header
    that read it too would have a fallback variant no test builds."""
    readers = []
    for path in sorted(glob.glob(os.path.join(CSRC, "*.[ch]"))):
        with open(path, encoding="utf-8") as f:
            if "UN_NO_INT128" in f.read():
                readers.append(os.path.basename(path))
    assert readers == ["exact.c"]


def test_binding_compiles_warning_free(tmp_path):
    """binding.c with the flags of setup.py (-std=c99 -O2 -Wall -Wextra)."""
    np = pytest.importorskip("numpy")
    src = os.path.join(CSRC, "binding.c")
    if not os.path.exists(src):
        pytest.skip("no binding.c")
    inc = sysconfig.get_paths()["include"]
    r = _run([CC, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden", "-fPIC",
              "-I", CSRC, "-I", inc, "-I", np.get_include(),
              "-DNPY_NO_DEPRECATED_API=NPY_1_22_API_VERSION", "-DNPY_TARGET_VERSION=NPY_1_22_API_VERSION",
              "-c", src, "-o", str(tmp_path / "binding.o")])
    assert r.returncode == 0 and not r.stderr.strip(), r.stderr
