"""The whole benchmark pipeline on one small homedecor model, so that the yardstick cannot rot.

Runs real Blender 5.0.1 (CONCAVE and AABB), xatlas and uvnest through
``tests.bench.run`` exactly as ``python -m tests.bench`` does, then checks the
numbers and files it produced.  The uvnest parts are skipped, with the
reason, only while ``uvnest.pack`` does not exist.
"""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

if __package__ in (None, ""):  # plain `pytest` puts tests/ first on sys.path, not the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bench.checker import check_outcome  # noqa: E402
from tests.bench.common import Model  # noqa: E402
from tests.bench.corpus_islands import CorpusUnavailable, homedecor_files  # noqa: E402
from tests.bench.peers_blender import pack_with_blender  # noqa: E402
from tests.bench.peers_uvnest import UvnestUnavailable, uvnest_api  # noqa: E402
from tests.bench.report import RunResult  # noqa: E402
from tests.bench.run import Config, run  # noqa: E402
from tests.bench.synthetic import synthetic_model  # noqa: E402
from tests.blender_env import require_bpy_python, run_in_blender  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.blender, pytest.mark.corpus]

#: Small, several merge groups, a second or so for Blender CONCAVE.
SMOKE_MODEL = "homedecor_bottle"


def _uvnest_missing() -> str:
    try:
        uvnest_api()
    except UvnestUnavailable as exc:
        return str(exc)
    return ""


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunResult, Path]:
    require_bpy_python()
    try:
        homedecor_files()
    except CorpusUnavailable as exc:
        pytest.skip(str(exc))
    out = tmp_path_factory.mktemp("bench")
    packers = ("blender", "xatlas") + (() if _uvnest_missing() else ("uvnest",))
    cfg = Config(mode="quick", out=out, models=[SMOKE_MODEL], packers=packers, timeout=300.0,
                 max_repeats=2, repeat_budget=0.5, uvnest_marks={"2s": 2.0}, log=lambda _msg: None)
    return run(cfg), out


def test_blender_and_xatlas_layouts_are_valid_and_measured(bench: tuple[RunResult, Path]) -> None:
    result, _ = bench
    assert [m.name for m in result.models] == [SMOKE_MODEL]
    model = result.models[0]
    assert model.n_groups >= 2
    for packer in ("blender-concave", "blender-aabb", "xatlas"):
        r = model.packers[packer]
        assert r.status == "ok", (packer, r.message)
        assert r.valid, (packer, r.violation)
        assert 0.2 < r.coverage < 1.0
        assert r.seconds > 0 and r.times
        assert r.min_distance >= result.margin - 1e-6
    concave, aabb = model.packers["blender-concave"], model.packers["blender-aabb"]
    assert concave.peak_rss_mb is not None and concave.peak_rss_mb > 50  # the Blender process
    assert concave.coverage >= aabb.coverage * 0.98  # shapes pack at least about as well as boxes
    assert model.ratio("blender-concave") == pytest.approx(1.0)
    assert model.packers["xatlas"].info["padding"] == 3 and model.packers["xatlas"].info["resolution"] == 1200


def test_reports_are_written(bench: tuple[RunResult, Path]) -> None:
    result, out = bench
    data = json.loads((out / "results.json").read_text())
    assert data["models"][0]["name"] == SMOKE_MODEL
    assert data["machine"]["cores"] >= 1 and data["versions"]["blender"] == "5.0.1"
    summary = (out / "summary.md").read_text()
    assert "## Invalid layouts and failed runs" in summary and result.machine["cpu"] in summary
    assert SMOKE_MODEL in (out / "models.md").read_text()
    for plot in ("ratio.png", "scaling.png"):
        assert (out / plot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_uvnest_layouts_are_valid(bench: tuple[RunResult, Path]) -> None:
    missing = _uvnest_missing()
    if missing:
        pytest.skip(f"uvnest.pack does not exist yet: {missing}")
    result, out = bench
    model = result.models[0]
    assert model.curve, "no uvnest improvements recorded"
    for packer in ("uvnest-first", "uvnest-blender", "uvnest-2s"):
        r = model.packers[packer]
        assert r.status in ("ok", "late"), (packer, r.message)
        if r.status == "ok":
            assert r.valid, (packer, r.violation)
            assert r.coverage > 0.2
    assert model.packers["uvnest-first"].status == "ok"
    assert (out / "curves.png").exists()


def test_uvnest_imports_inside_blender_under_numpy_1(tmp_path: Path) -> None:
    """The compiled ``_core`` (built against numpy 2 headers) must work in Blender's numpy 1.26."""
    require_bpy_python()
    script = tmp_path / "probe.py"
    script.write_text(textwrap.dedent("""
        import bpy, numpy, uvnest
        from uvnest import geometry
        square = numpy.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
        rings = geometry.outline(square, [[0, 1, 2, 3]])
        print(bpy.app.version_string, numpy.__version__, len(rings), float(abs(numpy.asarray(rings[0])).sum()))
    """))
    proc = run_in_blender(script, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    version, np_version, n_rings, total = proc.stdout.split()[-4:]
    assert version == "5.0.1" and np_version.startswith("1.")
    assert n_rings == "1" and float(total) == pytest.approx(4.0)


def test_blender_task_timeout_kills_and_goes_on() -> None:
    """A Blender call over its timeout is recorded as such and the batch continues in a new process."""
    require_bpy_python()
    slow = synthetic_model(100, seed=0)  # Blender CONCAVE needs about a minute on it
    # one island: CONCAVE takes milliseconds (two small squares can already take seconds)
    square = Model.from_faces("square", "test", np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float),
                              [[0, 1, 2, 3]])
    outcomes = pack_with_blender([slow, square], 0.01, methods=("AABB", "CONCAVE"), timeout=3.0,
                                 max_repeats=1)
    status = {(o.model, o.packer): o.status for o in outcomes}
    assert status == {("synthetic-100", "blender-aabb"): "ok", ("synthetic-100", "blender-concave"): "timeout",
                      ("square", "blender-aabb"): "ok", ("square", "blender-concave"): "ok"}
    result = check_outcome(square, outcomes[3], 0.01)
    assert result.valid
    assert result.raw_coverage == pytest.approx((1 - 0.01) ** 2, rel=1e-4)  # Blender keeps m/2 off the border
