"""uvnest.batch and ``uvnest pack --scheduler`` on a real Dask cluster:
``distributed.LocalCluster(processes=True)``, worker processes that import
uvnest and read and write the files themselves.

Outputs are compared byte for byte with a local run, layouts are checked by
the benchmark's independent shapely checker, and a worker process is killed
with SIGKILL mid-run.  Each test starts a cluster (seconds): all are slow.
"""
from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

distributed = pytest.importorskip("distributed")

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvnest.batch  # noqa: E402
from tests.test_cli import (assert_obj_packed, copy_files, corpus_subset, popen_uvnest, run_uvnest,  # noqa: E402
                            temp_files)

pytestmark = [pytest.mark.slow, pytest.mark.corpus]


def _cluster(workers: int = 2) -> Any:
    return distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                    dashboard_address=":0", silence_logs=50)


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with _cluster() as cluster, distributed.Client(cluster) as c:
        yield c


def _fields(results: List[uvnest.batch.FileResult], root: Path) -> List[Dict[str, Any]]:
    """What a rerun reproduces: every field but the time, outputs relative to ``root``."""
    out = []
    for r in results:
        d = {k: v for k, v in vars(r).items() if k != "time"}
        d["output"] = os.path.relpath(r.output, root) if r.output else None
        out.append(d)
    return out


def test_cluster_outputs_are_bit_identical_to_a_local_run(tmp_path: Path, client: Any) -> None:
    src = copy_files(corpus_subset(), tmp_path / "in")
    options = dict(iterations=300, seed=7, margin=0.004)
    local = uvnest.batch.pack_files([tmp_path / "in"], out_dir=tmp_path / "local", client=None, jobs=2, **options)
    remote = uvnest.batch.pack_files([tmp_path / "in"], out_dir=tmp_path / "remote", client=client, **options)
    assert [r.status for r in local] == ["packed"] * len(src)
    assert _fields(local, tmp_path / "local") == _fields(remote, tmp_path / "remote")
    for p in src:
        assert (tmp_path / "local" / p.name).read_bytes() == (tmp_path / "remote" / p.name).read_bytes()
        assert_obj_packed(p, tmp_path / "remote" / p.name, margin=0.004)

    # the command line against the same scheduler: same bytes, same report but for the times
    reports = {}
    for name, where in (("cli-local", ["-j", "2"]), ("cli-dask", ["--scheduler", client.scheduler.address])):
        done = run_uvnest("pack", tmp_path / "in", "--out-dir", tmp_path / name, "--iterations", 300, "--seed", 7,
                          "--margin", 0.004, "--report", tmp_path / f"{name}.json", *where)
        assert done.returncode == 0, done.stderr
        doc = json.loads((tmp_path / f"{name}.json").read_text())
        for f in doc["files"]:
            f.pop("time")
            f["output"] = os.path.relpath(f["output"], tmp_path / name)
        doc.pop("time")
        reports[name] = doc
    assert reports["cli-local"] == reports["cli-dask"]
    for p in src:
        assert (tmp_path / "cli-dask" / p.name).read_bytes() == (tmp_path / "remote" / p.name).read_bytes()


def test_a_broken_file_is_reported_while_the_others_are_written(tmp_path: Path, client: Any) -> None:
    good = copy_files(corpus_subset()[:3], tmp_path / "in")
    (tmp_path / "in" / "broken.obj").write_bytes(b"v 0 0 0\nv 1 0 0\nvt 0 0\nvt nan 1\nf 1/1 2/2 1/1\n")
    (tmp_path / "in" / "garbage.obj").write_bytes(b"\x00\xff" * 100)
    results = uvnest.batch.pack_files([tmp_path / "in"], out_dir=tmp_path / "out", client=client, iterations=50)
    status = {Path(r.path).name: r for r in results}
    for name in ("broken.obj", "garbage.obj"):
        assert status[name].status == "error" and name in status[name].error
        assert not (tmp_path / "out" / name).exists()
    for p in good:
        assert status[p.name].status == "packed"
        assert_obj_packed(p, tmp_path / "out" / p.name)


def test_a_worker_killed_mid_run_does_not_stop_the_run(tmp_path: Path) -> None:
    src = copy_files(corpus_subset(step=12)[:8], tmp_path / "in")
    with _cluster() as cluster, distributed.Client(cluster) as c:
        victim, pid = next(iter(c.run(os.getpid).items()))
        killed: Dict[str, float] = {}

        def kill_one() -> None:  # while it packs a file
            while not c.processing().get(victim):
                time.sleep(0.05)
            time.sleep(0.3)
            os.kill(pid, signal.SIGKILL)
            killed["at"] = time.monotonic()

        killer = threading.Thread(target=kill_one, daemon=True)
        killer.start()
        results = uvnest.batch.pack_files([tmp_path / "in"], out_dir=tmp_path / "out", client=c, time_limit=1.0)
        ended = time.monotonic()
        killer.join(timeout=5)
    assert "at" in killed and killed["at"] < ended  # killed while the run went on
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert [r.status for r in results] == ["packed"] * len(src), [r.error for r in results]
    for p in src:
        assert_obj_packed(p, tmp_path / "out" / p.name)
    assert not temp_files(tmp_path)


def test_ctrl_c_cancels_the_cluster_run_and_leaves_no_partial_outputs(tmp_path: Path, client: Any) -> None:
    src = copy_files(corpus_subset(step=12)[:8], tmp_path / "in")
    proc = popen_uvnest("pack", tmp_path / "in", "--out-dir", tmp_path / "out", "--time", 3,
                        "--scheduler", client.scheduler.address, "--report", tmp_path / "report.json")
    deadline = time.monotonic() + 60
    while not sum(map(len, client.processing().values())):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert time.monotonic() - t0 < 10  # searches in progress stop within a poll, not at their 3 s
    files = json.loads((tmp_path / "report.json").read_text())["files"]
    assert {f["status"] for f in files} <= {"packed", "interrupted", "not started"}
    assert any(f["status"] == "interrupted" for f in files)  # searches in progress were stopped
    for f in files:  # only whole outputs: those reported packed, each valid
        out = tmp_path / "out" / Path(f["path"]).name
        assert out.exists() == (f["status"] == "packed"), f
        if out.exists():
            assert_obj_packed(Path(f["path"]), out)
    assert not temp_files(tmp_path)
    deadline = time.monotonic() + 10
    while sum(map(len, client.processing().values())):  # the futures were cancelled
        assert time.monotonic() < deadline, client.processing()
        time.sleep(0.1)
    assert len(src) == len(files)


@pytest.mark.skipif(os.name == "nt", reason="process groups are POSIX")
def test_ctrl_c_in_a_terminal_with_a_local_cluster(tmp_path: Path) -> None:
    """A terminal's Ctrl-C reaches the whole process group, the LocalCluster's
    worker processes included: they ignore it, and the run stops as on one
    machine (exit 130, files stopped or not started, no tracebacks)."""
    copy_files(corpus_subset(step=12)[:6], tmp_path / "in")
    proc = popen_uvnest("pack", tmp_path / "in", "--out-dir", tmp_path / "out", "--time", 5, "--scheduler", "local",
                        "--json", start_new_session=True)
    first = proc.stdout.readline()  # a file was packed: the cluster runs, the others are in flight or waiting
    assert first, proc.communicate()
    os.killpg(proc.pid, signal.SIGINT)
    t0 = time.monotonic()
    rest, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert time.monotonic() - t0 < 10
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    records = [json.loads(line) for line in (first + rest).splitlines()]
    assert len(records) == 6
    assert {r["status"] for r in records[1:]} <= {"packed", "interrupted", "not started"}
    assert any(r["status"] in ("interrupted", "not started") for r in records)
    for r in records:
        assert Path(r["output"] or tmp_path / "none").exists() == (r["status"] == "packed")
    assert not temp_files(tmp_path)
