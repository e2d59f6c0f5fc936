"""Real assets: every OBJ of Debian's ``minetest-mod-homedecor`` as one packing input per model.

The files come from the project's shared fetcher ``tests.corpus`` (146 OBJ
models, fetched once with apt into ``$UVNEST_CACHE/homedecor``).  That
module calls ``pytest.skip`` when the corpus cannot be fetched; outside
pytest (the benchmark runner) this module turns that into
:class:`CorpusUnavailable`.

Each OBJ is read with ``uvnest.io.load`` and packed whole: all its faces
with texture coordinates form one model, unreferenced UVs are dropped, and
faces with fewer than three corners are skipped.  Overlapping islands are
merged by the packers (``merge_overlap`` / ``merge_overlapping``) and by the
checker's merge groups.
"""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Sequence

import numpy as np

from .common import Model

PACKAGE = "minetest-mod-homedecor"


class CorpusUnavailable(RuntimeError):
    """The homedecor corpus could not be fetched."""


def homedecor_files() -> List[Path]:
    """The homedecor ``.obj`` files, sorted by name (fetched on first use)."""
    import pytest

    from .. import corpus

    try:
        return corpus.homedecor_models()
    except pytest.skip.Exception as exc:
        raise CorpusUnavailable(str(exc)) from None


def load_obj_model(path: Path) -> Model:
    """One OBJ file as a :class:`Model` named after the file (without ``.obj``)."""
    from uvnest import io

    mesh = io.load(path)
    faces = [np.asarray(f, dtype=np.int64) for f in mesh.faces if len(f) >= 3]
    used = np.unique(np.concatenate(faces)) if faces else np.zeros(0, dtype=np.int64)
    remap = np.full(len(mesh.uvs), -1, dtype=np.int64)
    remap[used] = np.arange(used.size)
    return Model.from_faces(path.stem, "homedecor", mesh.uvs[used], [remap[f] for f in faces],
                            source=f"{PACKAGE}: {path.name}")


def homedecor_models(names: Optional[Sequence[str]] = None) -> List[Model]:
    """The homedecor models, all (sorted by name) or those in ``names`` (in that order)."""
    files = homedecor_files()
    if names is None:
        return [load_obj_model(p) for p in files]
    by_name = {p.stem: p for p in files}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise CorpusUnavailable(f"not in the homedecor corpus: {', '.join(missing)}")
    return [load_obj_model(by_name[n]) for n in names]
