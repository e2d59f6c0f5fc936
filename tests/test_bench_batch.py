"""Smoke test of the batch throughput benchmark (tests/bench/batch_throughput.py)
on three homedecor models: both runs pack every file, write the same bytes,
and the figures are reported."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("distributed")

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bench import batch_throughput  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.corpus]


def test_batch_throughput_runs_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "throughput.json"
    assert batch_throughput.main(["--files", "3", "--iterations", "50", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["files"] == 3 and doc["outputs_identical"] and doc["differing_outputs"] == []
    for run in (doc["local_j2"], doc["dask_localcluster"]):
        assert run["exit"] == 0 and run["statuses"] == {"packed": 3}
        assert run["files_per_minute"] == pytest.approx(60 * 3 / run["wall_s"])
    assert "--scheduler tcp://" in doc["dask_localcluster"]["command"] and "-j 2" in doc["local_j2"]["command"]
    assert "files/min" in capsys.readouterr().out
