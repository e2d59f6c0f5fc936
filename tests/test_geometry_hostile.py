"""Hostile input to uvnest.geometry from Python.

Every bad argument must raise a clear ValueError (uvnest's error policy,
uvnest.errors) whose message names the offending argument; nothing may crash the
interpreter or hang.  Each call runs in a forked child process, so a
segmentation fault or an endless loop fails the test (with the signal or
the timeout in the message) instead of killing pytest.
"""
from __future__ import annotations

import os
import pickle
import re
import select
import signal
import time

import numpy as np
import pytest

from uvnest import geometry as G

SQ = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
TRI = np.array([[0, 0], [1, 0], [0, 1]], float)
CLEAR = (ValueError,)


# --------------------------------------------------------------- isolation

def call_isolated(fn, timeout: float = 30.0):
    """Run fn() in a forked child.  Returns ("ok", summary) or
    ("raise", type name, message, names of the exception's classes).
    Fails the test on a crash (signal), an abnormal exit or a timeout."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        code = 0
        try:
            os.close(r)
            try:
                res = fn()
                out = ("ok", _summary(res))
            except BaseException as e:  # noqa: BLE001 - report everything
                out = ("raise", type(e).__name__, str(e)[:2000], [c.__name__ for c in type(e).__mro__])
            data = pickle.dumps(out)
            while data:
                n = os.write(w, data)
                data = data[n:]
        except BaseException:
            code = 3
        finally:
            os._exit(code)
    os.close(w)
    chunks = []
    deadline = time.monotonic() + timeout
    status = None
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                pytest.fail(f"call did not finish within {timeout:.0f} s (hang)")
            ready, _, _ = select.select([r], [], [], min(left, 0.5))
            if ready:
                chunk = os.read(r, 1 << 16)
                if chunk:
                    chunks.append(chunk)
                    continue
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
                while True:
                    chunk = os.read(r, 1 << 16)
                    if not chunk:
                        break
                    chunks.append(chunk)
                break
    finally:
        os.close(r)
    if os.WIFSIGNALED(status):
        pytest.fail(f"the call crashed the interpreter with signal {os.WTERMSIG(status)}")
    if os.WEXITSTATUS(status) != 0 or not chunks:
        pytest.fail(f"child exited abnormally (status {os.WEXITSTATUS(status)})")
    return pickle.loads(b"".join(chunks))


def _summary(res):
    if isinstance(res, tuple):
        return tuple(_summary(x) for x in res)
    if isinstance(res, list):
        return [_summary(x) for x in res]
    if isinstance(res, np.ndarray):
        return ("array", res.shape)
    return res


def expect_clear_error(fn, name_pattern: str, types=CLEAR, timeout: float = 30.0):
    out = call_isolated(fn, timeout)
    assert out[0] == "raise", f"expected an exception naming {name_pattern!r}, got result {out[1]!r}"
    _, tname, msg, mro = out
    assert any(t.__name__ in mro for t in types), f"{tname}: {msg} is not one of {[t.__name__ for t in types]}"
    assert re.search(name_pattern, msg), f"message {msg!r} does not name {name_pattern!r}"
    return tname, msg


def ring_with(value, where=(1, 0)):
    r = SQ.copy()
    r[where] = value
    return r


# --------------------------------------------------------------- rings

BAD_RINGS = {
    "nan": [ring_with(np.nan)],
    "inf": [ring_with(np.inf)],
    "-inf": [ring_with(-np.inf)],
    "strings": [np.array([["a", "b"], ["c", "d"], ["e", "f"]])],
    "string-list": [[["a", "b"], ["c", "d"], ["e", "f"]]],
    "objects": [np.array([[0, 0], [1, 0], [1, 1]], dtype=object)],
    "objects-none": [np.array([[0, None], [1, 0], [1, 1]], dtype=object)],
    "shape-n3": [np.zeros((4, 3))],
    "shape-1d": [np.zeros(8)],
    "shape-3d": [np.zeros((2, 4, 2))],
    "empty-ring": [np.zeros((0, 2))],
    "one-point": [np.zeros((1, 2))],
    "two-points": [np.array([[0, 0], [1, 1]], float)],
    "ragged-ring": [[[0, 0], [1, 0, 5], [1, 1]]],
    "empty-list": [],
    "none": None,
    "int": 5,
    "str": "abc",
    "dict": {"a": SQ},
    "single-array": SQ,
    "nested-none": [None],
}


@pytest.mark.parametrize("case", sorted(BAD_RINGS))
def test_nfp_rejects_bad_first_polygon(case):
    bad = BAD_RINGS[case]
    expect_clear_error(lambda: G.nfp(bad, [SQ]), r"\ba\b")


@pytest.mark.parametrize("case", sorted(BAD_RINGS))
def test_nfp_rejects_bad_second_polygon(case):
    bad = BAD_RINGS[case]
    expect_clear_error(lambda: G.nfp([SQ], bad), r"\bb\b")


@pytest.mark.parametrize("case", ["nan", "strings", "shape-n3", "empty-ring", "two-points", "empty-list",
                                  "none", "single-array"])
def test_simplify_rejects_bad_rings(case):
    bad = BAD_RINGS[case]
    expect_clear_error(lambda: G.simplify(bad, 0.1, 10), r"rings")


@pytest.mark.parametrize("case", ["nan", "inf", "objects", "shape-1d", "one-point", "empty-list", "int"])
def test_ifp_and_cfr_reject_bad_container_and_piece(case):
    bad = BAD_RINGS[case]
    expect_clear_error(lambda: G.ifp(bad, [SQ]), r"container")
    expect_clear_error(lambda: G.ifp([SQ * 4], bad), r"piece")
    expect_clear_error(lambda: G.cfr(bad, [], [SQ]), r"container")
    expect_clear_error(lambda: G.cfr([SQ * 4], [], bad), r"piece")
    expect_clear_error(lambda: G.cfr([SQ * 4], [[SQ], bad], [SQ]), r"placed\[1\]")
    expect_clear_error(lambda: G.cfr_from_nfps(bad, [], [SQ]), r"container")
    expect_clear_error(lambda: G.cfr_from_nfps([SQ * 4], [], bad), r"piece")
    expect_clear_error(lambda: G.cfr_from_nfps([SQ * 4], [[SQ], bad], [SQ]), r"nfps\[1\]")


@pytest.mark.parametrize("case", ["nan", "strings", "shape-3d", "two-points", "empty-list", "none"])
def test_overlaps_rejects_bad_polygons(case):
    bad = BAD_RINGS[case]
    expect_clear_error(lambda: G.overlaps(bad, [SQ]), r"\ba\b")
    expect_clear_error(lambda: G.overlaps([SQ], bad), r"\bb\b")


@pytest.mark.parametrize("placed", [5, None, "abc", SQ], ids=["int", "none", "str", "single-array"])
def test_cfr_rejects_placed_that_is_not_a_list_of_polygons(placed):
    expect_clear_error(lambda: G.cfr([SQ * 4], placed, [SQ]), r"placed")
    expect_clear_error(lambda: G.cfr_from_nfps([SQ * 4], placed, [SQ]), r"nfps")


# --------------------------------------------------------------- numbers

BAD_NUMBERS = [-1.0, -1e-300, float("nan"), float("inf"), float("-inf")]


@pytest.mark.parametrize("tol", BAD_NUMBERS)
def test_simplify_rejects_bad_tolerance(tol):
    expect_clear_error(lambda: G.simplify([SQ], tol, 10), r"tolerance")


@pytest.mark.parametrize("tol", ["a", None, [0.1]], ids=["str", "none", "list"])
def test_simplify_rejects_non_numeric_tolerance(tol):
    expect_clear_error(lambda: G.simplify([SQ], tol, 10), r"tolerance")


@pytest.mark.parametrize("mv", [3, 0, -1, -(2 ** 31)])
def test_simplify_rejects_max_vertices_below_4(mv):
    expect_clear_error(lambda: G.simplify([SQ], 0.1, mv), r"max_vertices")


@pytest.mark.parametrize("mv", [2 ** 31, 10 ** 12, 10 ** 30])
def test_simplify_huge_max_vertices_works_or_names_it(mv):
    out = call_isolated(lambda: G.simplify([SQ], 0.1, mv))
    if out[0] == "raise":
        assert out[3] in ("InputError", "ValueError") and "max_vertices" in out[2], out


@pytest.mark.parametrize("margin", BAD_NUMBERS)
def test_cfr_and_overlaps_reject_bad_margin(margin):
    expect_clear_error(lambda: G.cfr([SQ * 4], [[SQ]], [SQ], margin), r"margin")
    expect_clear_error(lambda: G.overlaps([SQ], [SQ + 3], margin), r"margin")


@pytest.mark.parametrize("r", [1.0, -0.1, 2.0, float("nan"), float("inf")])
def test_point_at_rejects_fraction_outside_0_1(r):
    expect_clear_error(lambda: G.point_at([SQ], r), r"\br\b")


@pytest.mark.parametrize("case", ["empty-list", "nan", "none", "strings"])
def test_point_at_rejects_bad_region(case):
    bad = BAD_RINGS[case]
    expect_clear_error(lambda: G.point_at(bad, 0.5), r"region")


# --------------------------------------------------------------- outline

UV = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)


@pytest.mark.parametrize("faces", [[[0, 1, 4]], [[0, 1, -1]], [[0, 1, 2], [2, 3, 2 ** 40]],
                                   np.array([[0, 1, 7]])], ids=["4", "-1", "2**40", "array"])
def test_outline_rejects_face_index_out_of_range(faces):
    expect_clear_error(lambda: G.outline(UV, faces), r"face", types=(IndexError, ValueError))


@pytest.mark.parametrize("faces", [[[0, 1]], [[0, 1, 2], [3]], [[]], np.array([[0, 1]]), np.zeros((2, 0), int)],
                         ids=["two", "one", "empty-face", "array-two", "array-zero"])
def test_outline_rejects_faces_with_fewer_than_3_corners(faces):
    expect_clear_error(lambda: G.outline(UV, faces), r"face")


@pytest.mark.parametrize("faces", [None, 5, "abc", [["a", "b", "c"]], [[0.5, 1, 2]], [[0, 1, None]],
                                   np.array([[0.0, 1.0, 2.0]]), [{0: 1}]],
                         ids=["none", "int", "str", "strings", "floats", "none-index", "float-array", "dict"])
def test_outline_rejects_non_integer_faces(faces):
    expect_clear_error(lambda: G.outline(UV, faces), r"face")


@pytest.mark.parametrize("faces", [[], np.zeros((0, 3), int)], ids=["list", "array"])
def test_outline_rejects_no_faces(faces):
    expect_clear_error(lambda: G.outline(UV, faces), r"face")


@pytest.mark.parametrize("uvs", [np.zeros((4, 3)), np.zeros(8), np.zeros((2, 4, 2)), "abc",
                                 np.array([["a", "b"]] * 4), np.array([[0, 0]] * 4, dtype=object), None],
                         ids=["n3", "1d", "3d", "str", "strings", "objects", "none"])
def test_outline_rejects_bad_uvs(uvs):
    expect_clear_error(lambda: G.outline(uvs, [[0, 1, 2]]), r"uvs")


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_outline_rejects_non_finite_uvs_used_by_a_face(value):
    uv = UV.copy()
    uv[2, 1] = value
    expect_clear_error(lambda: G.outline(uv, [[0, 1, 2]]), r"(face|uv)")


# --------------------------------------------------------------- extremes

def test_extreme_coordinates_work_or_raise_clearly():
    for s in (1e300, 1e-300, 1e-310, 1e200):
        out = call_isolated(lambda: G.nfp([SQ * s], [SQ * s]))
        if out[0] == "raise":
            assert out[1] in ("ValueError",), out
        out = call_isolated(lambda: G.cfr([SQ * 4 * s], [[SQ * s]], [SQ * s], 0.0))
        if out[0] == "raise":
            assert out[1] in ("ValueError",), out


def test_too_many_points_is_a_clear_error():
    big = np.zeros((3_000_000, 2))
    big[:, 0] = np.arange(3_000_000)
    expect_clear_error(lambda: G.simplify([big], 0.1, 10), r"rings")
    expect_clear_error(lambda: G.nfp([SQ], [big]), r"\bb\b")


def _grid_triangles(m):
    xs = np.linspace(0.0, 1.0, m + 1)
    X, Y = np.meshgrid(xs, xs)
    uv = np.c_[X.ravel(), Y.ravel()]
    i = np.arange(m)
    I, J = np.meshgrid(i, i)
    a = (J * (m + 1) + I).ravel()
    faces = np.r_[np.c_[a, a + 1, a + m + 2], np.c_[a, a + m + 2, a + m + 1]]
    return uv, faces


def _wavy_ring(n):
    th = np.linspace(0, 2 * np.pi, n, endpoint=False)
    r = 1 + 0.3 * np.sin(7 * th) + 0.05 * np.sin(97 * th)
    return np.c_[r * np.cos(th), r * np.sin(th)]


@pytest.mark.slow
def test_outline_of_a_million_faces_finishes():
    def run():
        uv, faces = _grid_triangles(708)  # 1,002,528 triangles
        out = G.outline(uv, faces)
        return len(out), float(sum(0.5 * np.sum(r[:, 0] * np.roll(r[:, 1], -1) - np.roll(r[:, 0], -1) * r[:, 1])
                                   for r in out))
    out = call_isolated(run, timeout=60)
    if out[0] == "raise":
        assert "ValueError" in out[3], out
    else:
        n, area = out[1]
        assert n == 1 and abs(area - 1.0) < 1e-9


@pytest.mark.slow
def test_simplify_of_a_million_point_ring_finishes():
    def run():
        out, dev = G.simplify([_wavy_ring(1_000_000)], 0.01, 64)
        return sum(len(r) for r in out), dev
    out = call_isolated(run, timeout=60)
    if out[0] == "raise":
        assert "ValueError" in out[3], out
    else:
        assert out[1][0] <= 64


@pytest.mark.slow
def test_nfp_of_a_million_point_ring_finishes():
    out = call_isolated(lambda: len(G.nfp([_wavy_ring(1_000_000)], [TRI * 0.01])), timeout=60)
    if out[0] == "raise":
        assert "ValueError" in out[3], out


@pytest.mark.slow
def test_cfr_with_a_million_point_placed_ring_finishes():
    big = _wavy_ring(1_000_000) + 2
    out = call_isolated(lambda: len(G.cfr([SQ * 4], [[big]], [TRI * 0.01], 0.0)), timeout=60)
    if out[0] == "raise":
        assert "ValueError" in out[3], out


@pytest.mark.slow
def test_overlaps_of_a_million_point_ring_finishes():
    out = call_isolated(lambda: G.overlaps([_wavy_ring(1_000_000)], [TRI * 0.01 + 3], 0.01), timeout=60)
    if out[0] == "raise":
        assert "ValueError" in out[3], out
    else:
        assert out[1][0] is False
