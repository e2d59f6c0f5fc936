"""Build and run the C unit tests in tests/csrc/ against the C core.

The library is every csrc/*.c except binding.c (the only file that needs
Python), so files added to csrc/ later are compiled in automatically.  Each
tests/csrc/test_*.c is linked against it and run, in two builds:

* ``O2``:   ``gcc -std=c99 -Wall -Wextra -Werror -pedantic -O2``
* ``asan``: the same flags with ``-O1 -g -fsanitize=address,undefined,
  float-cast-overflow -fno-sanitize-recover=all`` (LeakSanitizer on; gcc's
  ``undefined`` leaves out float-to-integer conversions out of range),

and each program is linked twice: with the library's exact.c using
``__int128`` and with the portable fallback (exact.c compiled with
``-DUN_NO_INT128``).  test_oom*.c are linked with ``--wrap`` for malloc,
realloc, calloc and free.  The fuzz target (tests/csrc/fuzz_core.c, with
the plain driver fuzz_main.c) runs seeded random inputs under ASan/UBSan in
both variants.  Separately, every source file must compile warning-free on
its own, binding.c included (against the Python and numpy headers, with the
flags of setup.py).
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sysconfig
from concurrent.futures import ThreadPoolExecutor

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSRC = os.path.join(ROOT, "csrc")
TESTS = os.path.join(ROOT, "tests", "csrc")
CC = os.environ.get("CC", "gcc")

WARN = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
CONFIGS = {
    "O2": ["-O2"],
    "asan": ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined,float-cast-overflow",
             "-fno-sanitize-recover=all"],
}
WRAP = ["-Wl,--wrap=malloc,--wrap=realloc,--wrap=calloc,--wrap=free"]
RUN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}

pytestmark = pytest.mark.skipif(shutil.which(CC) is None, reason=f"no C compiler ({CC})")


def library_sources():
    return sorted(p for p in glob.glob(os.path.join(CSRC, "*.c")) if os.path.basename(p) != "binding.c")


def program_files():
    return sorted(glob.glob(os.path.join(TESTS, "test_*.c")))


def _run(cmd, timeout=300, env=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=e)


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

    def link(self, test_src, variant, *more_sources):
        """Link test_src (and more_sources) against the library; variant
        'int128' or 'fallback'."""
        if self.errors:
            pytest.fail("the library does not compile warning-free:\n" +
                        "\n".join(f"{k}:\n{v}" for k, v in self.errors.items()))
        objs = [o for o in self.objs if o != self.exact_obj]
        objs.append(self.exact_obj if variant == "int128" else self.exact_fallback)
        exe = os.path.join(self.dir, f"{os.path.basename(test_src)[:-2]}_{variant}")
        extra = WRAP if os.path.basename(test_src).startswith("test_oom") else []
        r = _run([CC, *WARN, *self.flags, "-I", CSRC, "-I", TESTS, test_src, *more_sources, *objs, *extra, "-lm",
                  "-o", exe])
        if r.returncode != 0 or r.stderr.strip():
            pytest.fail(f"{os.path.basename(test_src)} does not build warning-free:\n{r.stderr}")
        return exe


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("c_units"))
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = Build(name, CONFIGS[name], root)
        return cache[name]

    return get


@pytest.mark.parametrize("variant", ["int128", "fallback"])
@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("program", [os.path.basename(p) for p in program_files()])
def test_c_unit_program(program, config, variant, builds):
    b = builds(config)
    exe = b.link(os.path.join(TESTS, program), variant)
    r = _run([exe], timeout=600, env=RUN_ENV)
    out = (r.stdout + r.stderr).strip()
    if r.returncode != 0 or " 0 failed" not in r.stdout:
        pytest.fail(f"{program} [{config}, {variant}] exited with {r.returncode}:\n{out[-20000:]}",
                    pytrace=False)


#: random inputs per variant: about 75 s each under ASan here
FUZZ_RANDOM_INPUTS = 1500


@pytest.mark.parametrize("variant", ["int128", "fallback"])
def test_fuzz_target(variant, builds):
    """The fuzz target under ASan/UBSan on seeded random inputs (a
    different seed per variant).  A broken promise aborts, and the last
    line names the input (``fuzz_main --save`` writes it to a file)."""
    exe = builds("asan").link(os.path.join(TESTS, "fuzz_core.c"), variant, os.path.join(TESTS, "fuzz_main.c"))
    seed = "1" if variant == "int128" else "2"
    r = _run([exe, "--random", str(FUZZ_RANDOM_INPUTS), "--seed", seed], timeout=900, env=RUN_ENV)
    if r.returncode != 0 or " 0 failed" not in r.stdout:
        pytest.fail(f"fuzz_core [{variant}, seed {seed}] exited with {r.returncode}:\n"
                    f"{(r.stdout + r.stderr).strip()[-6000:]}", pytrace=False)
    assert f"{FUZZ_RANDOM_INPUTS} random inputs" in r.stdout


@pytest.mark.parametrize("src", [os.path.basename(p) for p in library_sources()])
def test_library_file_compiles_warning_free(src, tmp_path):
    """Each core file on its own with -Wall -Wextra -Werror -pedantic, for
    both 128-bit variants of the predicates."""
    for extra in ([], ["-DUN_NO_INT128"]):
        r = _run([CC, *WARN, *extra, "-O2", "-I", CSRC, "-c", os.path.join(CSRC, src), "-o",
                  str(tmp_path / "x.o")])
        assert r.returncode == 0 and not r.stderr.strip(), r.stderr


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
