"""Blender 5.0.1's Pack Islands as a benchmark peer (CONCAVE, and AABB as the box baseline).

Many models go to one Blender process (``blender_pack_script.py``), which
saves the Blender start-up per model; data goes in and out as ``.npz`` files
in a temporary job folder.  Each (model, method) task has its own timeout:
the driver watches the task markers the script writes, kills the process
when a task runs too long, records the timeout and starts a fresh process on
the remaining tasks.

Before handing a model over, the driver

* maps its UVs into the unit tile by one similarity transform (Blender packs
  into the UDIM tile closest to the selection, and packing does not depend on
  where the islands start or on a common scale), and
* drops corners that repeat the previous corner of a face, and faces left
  with fewer than three distinct corners (Blender's mesh cannot hold a
  polygon that uses a vertex twice).  Dropped corners and faces get the UV
  their index received elsewhere.

Blender's per-corner result is folded back onto the model's UV indices.  If
two corners that share an index end up apart (Blender calls islands
edge-connected, so faces meeting at a single UV vertex may be moved
separately), the per-corner layout is kept as ``corner_uvs`` for the checker
and the split is recorded in ``info["vertex_split"]``.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import blender_env
from .common import Model, PackOutcome, corners_to_indices

SCRIPT = Path(__file__).with_name("blender_pack_script.py")
#: Blender methods benchmarked, and the packer name each is reported under.
METHODS: Dict[str, str] = {"CONCAVE": "blender-concave", "AABB": "blender-aabb"}
#: Largest distance between corners of one UV index that still counts as one vertex.
SPLIT_TOL = 1e-6
#: Blender's ``margin`` for a benchmark margin m is ``m * BLENDER_MARGIN_FACTOR``.  With
#: ``margin_method='FRACTION'`` Blender keeps every island ``margin`` away from everything,
#: so two islands end up ``2 * margin`` apart (and ``margin`` from the tile border): measured
#: on squares and on homedecor models.  Halving it asks Blender for the same minimum gap m
#: between islands that every other packer is held to.
BLENDER_MARGIN_FACTOR = 0.5
#: Seconds a Blender process may spend outside any task (starting, building a model's mesh).
STARTUP_TIMEOUT = 300.0


@dataclass
class BlenderInput:
    """A model prepared for Blender: unit-tile UVs and faces without repeated corners."""

    uvs: np.ndarray
    face_sizes: np.ndarray
    face_idx: np.ndarray
    kept_faces: np.ndarray  # (F_kept,) original face of each Blender face
    exact_faces: np.ndarray  # (F_kept,) bool, face kept unchanged
    corner_src: np.ndarray  # (C_kept,) original corner of each Blender corner


def prepare(model: Model) -> BlenderInput:
    """Normalise ``model`` into the unit tile and clean its faces for a Blender mesh."""
    lo = model.uvs.min(axis=0) if len(model.uvs) else np.zeros(2)
    extent = float(np.max(model.uvs.max(axis=0) - lo)) if len(model.uvs) else 1.0
    uvs = (model.uvs - lo) * (0.98 / (extent if extent > 0 else 1.0)) + 0.01
    start = model.face_start
    sizes: List[int] = []
    idx: List[np.ndarray] = []
    src: List[np.ndarray] = []
    kept: List[int] = []
    exact: List[bool] = []
    for f in range(model.n_faces):
        corners = np.arange(start[f], start[f + 1])
        ids = model.face_idx[corners]
        keep = ids != np.roll(ids, 1)
        ids, corners = ids[keep], corners[keep]
        if ids.size < 3 or np.unique(ids).size != ids.size:
            continue
        sizes.append(ids.size)
        idx.append(ids)
        src.append(corners)
        kept.append(f)
        exact.append(bool(keep.all()))
    return BlenderInput(uvs=uvs, face_sizes=np.array(sizes, dtype=np.int64), face_idx=_concat(idx),
                        kept_faces=np.array(kept, dtype=np.int64), exact_faces=np.array(exact, dtype=bool),
                        corner_src=_concat(src))


def _concat(parts: List[np.ndarray]) -> np.ndarray:
    """Concatenate int arrays (an empty int64 array for none)."""
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _fold(model: Model, prep: BlenderInput, corner_uvs: np.ndarray) -> Tuple[np.ndarray, Optional[np.ndarray], float]:
    """Blender's per-corner UVs as (per-index UVs, per-corner UVs if a vertex was split, spread)."""
    uvs, spread = corners_to_indices(prep.face_idx, corner_uvs, len(model.uvs))
    if spread <= SPLIT_TOL:
        return uvs, None, spread
    full = uvs[model.face_idx]
    exact_corners = np.repeat(prep.exact_faces, prep.face_sizes)
    full[prep.corner_src[exact_corners]] = corner_uvs[exact_corners]
    return uvs, full, spread


def _write_job(job_dir: Path, tasks: Sequence[dict], max_repeats: int, repeat_budget: float) -> None:
    (job_dir / "job.json").write_text(json.dumps(
        {"tasks": list(tasks), "max_repeats": max_repeats, "repeat_budget": repeat_budget}))


def _run_tasks(job_dir: Path, tasks: List[dict], timeout: float, max_repeats: int,
               repeat_budget: float) -> Dict[str, Tuple[str, str]]:
    """Run ``tasks`` in Blender processes; return ``{task: (status, message)}`` for failures.

    A task that runs longer than ``timeout`` seconds is recorded as
    "timeout"; a process that dies records its current task as "error" with
    the tail of its stderr.  Either way a new process continues with the
    tasks after it.
    """
    python = blender_env.bpy_python()
    failures: Dict[str, Tuple[str, str]] = {}
    remaining = list(tasks)
    with tempfile.TemporaryDirectory(prefix="uvnest-bpy-") as shim:
        env = blender_env.blender_env(shim_dir=blender_env.make_uvnest_shim(Path(shim)))
        while remaining:
            _write_job(job_dir, remaining, max_repeats, repeat_budget)
            log = (job_dir / "stderr.log").open("w")
            proc = subprocess.Popen([str(python), str(SCRIPT), str(job_dir)], stdout=subprocess.DEVNULL,
                                    stderr=log, env=env)
            idle_since = time.time()  # start-up, or building the next model's mesh
            current: Optional[str] = None
            killed = False
            try:
                while proc.poll() is None:
                    time.sleep(0.1)
                    running = next((t["task"] for t in remaining
                                    if (job_dir / f"{t['task']}.started").exists()
                                    and not (job_dir / f"{t['task']}.npz").exists()), None)
                    if running != current:
                        current, idle_since = running, time.time()
                    if current is not None:
                        started = float((job_dir / f"{current}.started").read_text() or idle_since)
                        limit = timeout
                    else:
                        started, limit = idle_since, STARTUP_TIMEOUT
                    if time.time() - started > limit:
                        proc.kill()
                        proc.wait()
                        killed = True
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                log.close()
            done = {t["task"] for t in remaining if (job_dir / f"{t['task']}.npz").exists()}
            pending = [t for t in remaining if t["task"] not in done]
            if not pending:
                break
            stuck = next((t for t in pending if (job_dir / f"{t['task']}.started").exists()), pending[0])
            if killed and current is not None:
                failures[stuck["task"]] = ("timeout", f"no result after {timeout:.0f} s")
            else:
                tail = (job_dir / "stderr.log").read_text(errors="replace").strip()[-1500:]
                failures[stuck["task"]] = ("error", f"Blender exited {proc.returncode}: {tail}")
            remaining = pending[pending.index(stuck) + 1:]
    return failures


def pack_with_blender(models: Sequence[Model], run_margin: float,
                      methods: Sequence[str] = ("AABB", "CONCAVE"), timeout: float = 300.0,
                      max_repeats: int = 5, repeat_budget: float = 2.0,
                      keep_dir: Optional[Path] = None) -> List[PackOutcome]:
    """Pack every model with each Blender shape method, all in as few Blender processes as possible.

    Every call is ``uv.pack_islands(shape_method=method, rotate=model.rotation
    == "any", rotate_method='ANY', scale=True, merge_overlap=True,
    margin_method='FRACTION', margin=m * BLENDER_MARGIN_FACTOR)`` with the
    model's effective margin m (see :data:`BLENDER_MARGIN_FACTOR`).
    A call is repeated until ``max_repeats`` runs or ``repeat_budget``
    seconds, whichever comes first (so short calls report a median, long ones
    a single run).  ``timeout`` is per (model, method).  Returns one
    :class:`PackOutcome` per model and method, in that order, named as in
    :data:`METHODS`.  ``keep_dir`` keeps the job folder for inspection.
    Raises ``blender_env.BlenderUnavailable`` when there is no Blender.
    """
    job_dir = Path(tempfile.mkdtemp(prefix="uvnest-blender-job-")) if keep_dir is None else Path(keep_dir)
    job_dir.mkdir(parents=True, exist_ok=True)
    try:
        preps: List[BlenderInput] = []
        tasks: List[dict] = []
        for k, model in enumerate(models):
            prep = prepare(model)
            preps.append(prep)
            np.savez(job_dir / f"m{k}.npz", uvs=prep.uvs, face_sizes=prep.face_sizes,
                     face_idx=prep.face_idx)
            for method in methods:
                tasks.append({"task": f"m{k}-{method}", "model": f"m{k}", "method": method,
                              "margin": model.effective_margin(run_margin) * BLENDER_MARGIN_FACTOR,
                              "rotate": model.rotation == "any"})
        failures = _run_tasks(job_dir, tasks, timeout, max_repeats, repeat_budget)
        outcomes: List[PackOutcome] = []
        for k, model in enumerate(models):
            for method in methods:
                task = f"m{k}-{method}"
                packer = METHODS.get(method, f"blender-{method.lower()}")
                if task in failures:
                    status, message = failures[task]
                    outcomes.append(PackOutcome(packer, model.name, None, float("nan"), status=status,
                                                message=message))
                    continue
                data = np.load(job_dir / f"{task}.npz")
                uvs, corner_uvs, spread = _fold(model, preps[k], data["corner_uvs"])
                times = data["times"].tolist()
                before = data["rss_before_kb"] / 1024.0
                peak = data["peak_kb"] / 1024.0
                info = {"repeats": len(times), "faces_dropped": int(model.n_faces - preps[k].kept_faces.size),
                        "vertex_split": spread if corner_uvs is not None else 0.0}
                outcomes.append(PackOutcome(packer, model.name, uvs, float(np.median(times)), times=times,
                                            corner_uvs=corner_uvs, peak_rss_mb=float(peak.max()),
                                            extra_rss_mb=float(np.max(peak - before)), info=info))
        return outcomes
    finally:
        if keep_dir is None:
            shutil.rmtree(job_dir, ignore_errors=True)
