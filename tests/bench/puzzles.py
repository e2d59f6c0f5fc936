"""Puzzles with a known optimum (``tests/data/puzzles/*.json``) as packing inputs.

Each piece becomes one island: the polygon scaled by ``1 / container side``
(so the optimum fills the unit tile exactly) and triangulated with shapely's
constrained Delaunay triangulation, triangles sharing UV indices.  Pieces are
laid out side by side on a grid so that none overlap in the input (the files
translate every piece to the origin; left there, all pieces would form one
merge group).  Puzzles are packed with margin 0; ``rotation`` is "none" for
instances whose file says "0 degrees only" (the Dighe jigsaws) and "any"
otherwise.  The score is coverage divided by ``known_optimal_density``.

The turned puzzles (:func:`turned_puzzle_models`) are the Terashima bins with
every piece turned about its centroid by an angle drawn uniformly from
[0, 2 pi) by a seeded generator: islands as an unwrap leaves them, which
``rotation="any"`` has to straighten to reach the optimum.
"""
from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import List, Optional

import numpy as np
import shapely

from .common import Model

#: Environment variable that may point at another puzzles folder.
PUZZLES_ENV = "UVNEST_PUZZLES"

#: The puzzles shipped with the tests (public ESICUP data; see the README there).
VENDORED = Path(__file__).resolve().parents[1] / "data" / "puzzles"


def puzzles_dir() -> Path:
    """The puzzles folder: ``$UVNEST_PUZZLES`` when set, else the vendored :data:`VENDORED`."""
    env = os.environ.get(PUZZLES_ENV)
    return Path(env) if env else VENDORED


def rotation_of(spec: str) -> str:
    """Map a puzzle file's ``rotation`` text to the benchmark's "any" / "none"."""
    return "none" if "only" in spec.lower() else "any"


#: Seed of the turned puzzles' angles (the benchmark's set).
TURN_SEED = 2026


def _turned(piece: np.ndarray, angle: float) -> np.ndarray:
    """``piece`` turned by ``angle`` about its vertices' mean, moved back to start at (0, 0)."""
    c, s = np.cos(angle), np.sin(angle)
    centred = piece - piece.mean(axis=0)
    out = centred @ np.array([[c, s], [-s, c]])
    return out - out.min(axis=0)


def load_puzzle(path: Path, turn_seed: Optional[int] = None) -> Model:
    """One puzzle file as a :class:`Model` (margin 0, optimum from the file).

    With ``turn_seed``, every piece is turned by its own random angle
    (numpy's generator seeded with ``turn_seed`` and the file name's CRC-32,
    uniform over a whole turn) and
    the model is named ``turned-<name>``.
    """
    data = json.loads(Path(path).read_text())
    width, height = (float(v) for v in data["container"])
    side = max(width, height)
    pieces = [np.asarray(p, dtype=np.float64) / side for p in data["pieces"]]
    if turn_seed is not None:
        rng = np.random.default_rng([turn_seed, zlib.crc32(path.stem.encode())])
        angles = rng.uniform(0.0, 2 * np.pi, len(pieces))
        pieces = [_turned(p, float(a)) for p, a in zip(pieces, angles)]
    cell = 1.05 * max(float(p.max()) for p in pieces)
    cols = int(np.ceil(np.sqrt(len(pieces))))
    uvs: List[np.ndarray] = []
    faces: List[np.ndarray] = []
    base = 0
    for k, piece in enumerate(pieces):
        poly = shapely.Polygon(piece)
        if not poly.is_valid:
            raise ValueError(f"{path.name}: piece {k} is not a simple polygon")
        tris = shapely.get_parts(shapely.constrained_delaunay_triangles(poly))
        coords = shapely.get_coordinates(tris).reshape(len(tris), 4, 2)[:, :3]
        verts, inv = np.unique(coords.reshape(-1, 2), axis=0, return_inverse=True)
        offset = np.array([(k % cols) * cell, (k // cols) * cell])
        uvs.append(verts + offset)
        faces.extend(inv.reshape(-1, 3).astype(np.int64) + base)
        base += len(verts)
    density = float(data.get("known_optimal_density", 1.0))
    container_area = width * height / side**2
    prefix = "puzzle" if turn_seed is None else "turned"
    return Model.from_faces(
        f"{prefix}-{data.get('name', path.stem)}", "puzzle", np.concatenate(uvs), faces,
        rotation=rotation_of(str(data.get("rotation", ""))), margin=0.0,
        optimum=density * container_area, source=str(data.get("source", path.name)))


def puzzle_models(folder: Optional[Path] = None) -> List[Model]:
    """Every ``*.json`` puzzle in ``folder`` (default :func:`puzzles_dir`), sorted by name."""
    root = Path(folder) if folder is not None else puzzles_dir()
    return [load_puzzle(p) for p in sorted(root.glob("*.json"))]


def turned_puzzle_models(folder: Optional[Path] = None, seed: int = TURN_SEED) -> List[Model]:
    """The Terashima puzzles of ``folder`` with every piece turned (see :func:`load_puzzle`)."""
    root = Path(folder) if folder is not None else puzzles_dir()
    return [load_puzzle(p, turn_seed=seed) for p in sorted(root.glob("terashima*.json"))]
