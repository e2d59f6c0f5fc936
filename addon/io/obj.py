"""Wavefront OBJ reading and lossless write-back of texture coordinates.

Reading keeps the file's bytes.  ``Mesh.uvs`` are the ``vt`` values (u, v;
a missing v reads as 0, a third w value is kept in the file but not in
``uvs``), ``Mesh.faces`` the 0-based ``vt`` references of every face that
has them and ``Mesh.mesh_faces`` the matching ``v`` references.  Positions
themselves are not parsed.  All index forms (``v``, ``v/vt``, ``v//vn``,
``v/vt/vn``), negative (relative) indices, n-gons, ``o``/``g``/``usemtl``
groups, comments, CRLF line endings and ``\\`` line continuations are read;
statements uvnest does not need (``s``, ``mtllib``, ``l``, ...) are ignored.
Faces without ``vt`` references are skipped and counted in
``Mesh.skipped_faces``.  ``Mesh.face_groups`` numbers the distinct
(``o``, ``g``, ``usemtl``) states that faces were read under.

Files are classified and parsed with numpy: statement kinds come from the
first bytes of each line, ``vt`` numbers from one tokenisation of all ``vt``
lines, and faces whose corners all have the ``v/vt`` or ``v/vt/vn`` form
with plain integers are validated and converted without a Python loop.
Anything else (comments on face lines, mixed forms, ...) goes through a
per-line parser that also produces the error messages.

Writing changes nothing but the text of the u and v numbers on the ``vt``
lines whose values changed; every other byte (w values, spacing, comments,
line endings, face lines, statement order) is copied.  Unchanged UVs give a
byte-identical file.  New numbers are written in the shortest form that
reads back as exactly the same float64, without exponent.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import compress
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import numpy as np

from .atomic import atomic_write_bytes
from .mesh import Mesh, MeshIOError, UnsupportedFormatError, checked_uvs, read_bytes

__all__ = ["read", "write"]

_BOM = b"\xef\xbb\xbf"
_GROUP_KEYWORDS = {b"o": 0, b"g": 1, b"usemtl": 2}
_TOKEN = re.compile(rb"\S+")
_MAX_DIGITS = 15  # longer face numbers go through Python ints (no int64 overflow)
_HUGE_INDEX = 2**62  # no file has this many elements; keeps index arithmetic inside int64

# statement kinds
_IGNORE, _V, _VT, _VN, _F, _CHECK = range(6)
_KIND_OF_KEYWORD = {b"v": _V, b"vt": _VT, b"vn": _VN, b"f": _F}
_WS = np.zeros(256, dtype=bool)
_WS[[9, 10, 11, 12, 13, 32]] = True
_C = {c: ord(c) for c in "#ftvn/-09"}


@dataclass
class _ObjSource:
    """What ``write`` needs: the original bytes and where each vt statement is."""

    raw: bytes
    vt_line: np.ndarray  # 0-based physical line of each vt statement
    vt_extra: Optional[np.ndarray]  # continuation lines of each vt statement (None: file has none)
    uvs: np.ndarray  # the (u, v) values as read


class _Statements:
    """The statements of a file as one text with one statement per line.

    Without continuations this is the file itself.  With them, each
    statement's physical lines are joined with spaces; ``first_line`` maps
    statements back to physical lines (for messages and for writing).
    """

    def __init__(self, data: bytes) -> None:
        self.extra: Optional[np.ndarray] = None
        text = data
        if b"\\" in data:
            lines = data.split(b"\n")
            if any(_continues(line) for line in lines):
                stmts = _join_statements(lines)
                text = b"\n".join(s.replace(b"\n", b" ") for s in stmts)
                self.extra = np.array([s.count(b"\n") for s in stmts], dtype=np.int64)
        self.text = text
        arr = np.frombuffer(text, dtype=np.uint8)
        newlines = np.flatnonzero(arr == 10)
        self.starts = np.concatenate(([0], newlines + 1))
        self.ends = np.concatenate((newlines, [len(text)]))
        if self.extra is None:
            self.first_line = np.arange(len(self.starts))
        else:
            self.first_line = np.concatenate(([0], np.cumsum(self.extra + 1)[:-1]))
        self.kind = self._classify(arr)

    def line(self, i: int) -> bytes:
        """Statement ``i`` (without its newline and without a leading BOM)."""
        s = self.text[self.starts[i]:self.ends[i]]
        return s[len(_BOM):] if i == 0 and s.startswith(_BOM) else s

    def lines(self, idx: np.ndarray) -> List[bytes]:
        """Statements ``idx`` as a list."""
        return [self.line(i) for i in idx.tolist()]

    def blob(self, idx: np.ndarray) -> bytes:
        """The statements ``idx`` (sorted) joined by newlines, sliced in runs."""
        if idx.size == 0:
            return b""
        cut = np.flatnonzero(np.diff(idx) != 1) + 1
        firsts = idx[np.concatenate(([0], cut))].tolist()
        lasts = idx[np.concatenate((cut - 1, [len(idx) - 1]))].tolist()
        blob = b"\n".join(self.text[self.starts[a]:self.ends[b]] for a, b in zip(firsts, lasts))
        return blob[len(_BOM):] if idx[0] == 0 and blob.startswith(_BOM) else blob

    def _classify(self, arr: np.ndarray) -> np.ndarray:
        """Kind of each statement from its first three bytes; the rest
        (leading blanks, other keywords, ...) is marked ``_CHECK``."""
        padded = np.concatenate((arr, np.full(3, 10, dtype=np.uint8)))
        c0, c1, c2 = padded[self.starts], padded[self.starts + 1], padded[self.starts + 2]
        kind = np.full(len(self.starts), _CHECK, dtype=np.uint8)
        kind[(c0 == _C["#"]) | (c0 == 10) | ((c0 == 13) & (c1 == 10))] = _IGNORE
        is_v = c0 == _C["v"]
        kind[is_v & _WS[c1]] = _V
        kind[is_v & (c1 == _C["t"]) & _WS[c2]] = _VT
        kind[is_v & (c1 == _C["n"]) & _WS[c2]] = _VN
        kind[(c0 == _C["f"]) & _WS[c1]] = _F
        return kind


# --------------------------------------------------------------------------- reading


def read(path: Path, uv_set: int = 0) -> Mesh:
    """Read an OBJ file (see the module docstring); ``MeshIOError`` on a bad file."""
    if uv_set != 0:
        raise UnsupportedFormatError(f"OBJ files have a single UV set; uv_set={uv_set} does not exist")
    data = read_bytes(path)
    _check_text(data)
    st = _Statements(data)
    group_at, group_id, group_keys = _check_statements(st)
    kind = st.kind
    line_no = st.first_line + 1

    vt = np.flatnonzero(kind == _VT)
    if vt.size == 0:
        raise MeshIOError("has no UVs (no vt lines)")
    uvs = _parse_vt(st, vt, line_no[vt])
    f = np.flatnonzero(kind == _F)
    if f.size == 0:
        raise MeshIOError(f"has {len(uvs)} vt lines but no faces")
    face_lines = line_no[f]
    parsed = _parse_faces_fast(st.blob(f), len(f))
    if parsed is None:
        parsed = _parse_faces_slow([_body(s) for s in st.lines(f)], face_lines)
    k, rv, rvt, rvn, has_uv = parsed

    corner_face = np.repeat(np.arange(len(k)), k)
    corner_stmt = f[corner_face]

    def before(kind_id: int) -> np.ndarray:
        return np.cumsum(kind == kind_id)[corner_stmt]

    v_idx = _resolve(rv, before(_V), int(np.count_nonzero(kind == _V)), "v", corner_face, face_lines, None)
    vt_idx = _resolve(rvt, before(_VT), len(uvs), "vt", corner_face, face_lines, has_uv[corner_face])
    if rvn is not None:
        n_vn = int(np.count_nonzero(kind == _VN))
        _resolve(rvn, before(_VN), n_vn, "vn", corner_face, face_lines, rvn != 0)

    n_uv_faces = int(has_uv.sum())
    if n_uv_faces == 0:
        raise MeshIOError(f"no face has vt references ({len(k)} faces without UVs)")
    keep_corner = has_uv[corner_face]
    faces = _split_faces(vt_idx[keep_corner], k[has_uv])
    mesh_faces = _split_faces(v_idx[keep_corner], k[has_uv])
    face_key = group_id[np.searchsorted(group_at, f[has_uv], side="right") - 1]
    used, face_groups = np.unique(face_key, return_inverse=True)

    return Mesh(
        path=path,
        format="obj",
        uvs=uvs,
        faces=faces,
        mesh_faces=mesh_faces,
        positions=_parse_positions(st, np.flatnonzero(kind == _V)),
        face_groups=face_groups.reshape(-1).astype(np.int64),
        group_names=[_group_name(group_keys[g]) for g in used.tolist()],
        skipped_faces=len(k) - n_uv_faces,
        _source=_ObjSource(
            raw=data,
            vt_line=st.first_line[vt],
            vt_extra=None if st.extra is None else st.extra[vt],
            uvs=uvs.copy(),
        ),
    )


def _check_text(data: bytes) -> None:
    """Reject empty files, binary data and text that is not UTF-8."""
    if not data.strip():
        raise MeshIOError("empty file")
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise MeshIOError(f"line {line}: binary data (NUL byte), not an OBJ text file")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise MeshIOError(f"line {line}: not UTF-8 text (byte 0x{data[e.start]:02x})") from None


def _continues(line: bytes) -> bool:
    """True if a physical line ends with the ``\\`` continuation mark."""
    return line.rstrip(b" \t\r").endswith(b"\\")


def _join_continued(parts: Sequence[bytes]) -> bytes:
    """The physical lines of one statement as one text of the same length:
    continuation backslashes become spaces and the newlines stay, so token
    positions in it are positions in the original bytes."""
    out = []
    for p in parts[:-1]:
        cut = len(p.rstrip(b" \t\r")) - 1
        out.append(p[:cut] + b" " + p[cut + 1:])
    out.append(parts[-1])
    return b"\n".join(out)


def _join_statements(lines: List[bytes]) -> List[bytes]:
    """Statements: physical lines, continued ones joined by ``_join_continued``."""
    stmts: List[bytes] = []
    i = 0
    while i < len(lines):
        j = i
        while _continues(lines[j]) and j + 1 < len(lines):
            j += 1
        stmts.append(_join_continued(lines[i:j + 1]))
        i = j + 1
    return stmts


def _check_statements(st: _Statements) -> Tuple[np.ndarray, np.ndarray, List[Tuple[bytes, ...]]]:
    """Classify the ``_CHECK`` statements by their keyword and replay the
    ``o``/``g``/``usemtl`` state.  Returns the statements where the state
    changes (starting with -1 for the initial state), the group key from each
    on, and the (o, g, usemtl) of each key."""
    state = [b"", b"", b""]
    keys = {(b"", b"", b""): 0}
    at: List[int] = [-1]
    ids: List[int] = [0]
    for i in np.flatnonzero(st.kind == _CHECK).tolist():
        parts = st.line(i).split(None, 1)
        kw = parts[0] if parts else b""
        st.kind[i] = _KIND_OF_KEYWORD.get(kw, _IGNORE)
        if kw in _GROUP_KEYWORDS:
            state[_GROUP_KEYWORDS[kw]] = parts[1].strip() if len(parts) > 1 else b""
            at.append(i)
            ids.append(keys.setdefault(tuple(state), len(keys)))
    return np.array(at, dtype=np.int64), np.array(ids, dtype=np.int64), list(keys)


def _group_name(key: Tuple[bytes, ...]) -> str:
    """Readable name of an (o, g, usemtl) state, e.g. ``"o Chair, usemtl wood"``."""
    parts = [f"{kw} {name.decode('utf-8')}" for kw, name in zip(("o", "g", "usemtl"), key) if name]
    return ", ".join(parts) if parts else "(default)"


def _body(statement: bytes) -> bytes:
    """A statement without its keyword and without a trailing comment."""
    parts = statement.split(b"#", 1)[0].split(None, 1)
    return parts[1] if len(parts) > 1 else b""


def _tokens_per_line(blob: bytes, n_lines: int) -> np.ndarray:
    """Number of whitespace-separated tokens on each line of ``blob``."""
    a = np.frombuffer(blob, dtype=np.uint8)
    ws = _WS[a]
    start = ~ws
    start[1:] &= ws[:-1]
    line = np.searchsorted(np.flatnonzero(a == 10), np.flatnonzero(start))
    return np.bincount(line, minlength=n_lines)


def _parse_vt(st: _Statements, vt: np.ndarray, lines: np.ndarray) -> np.ndarray:
    """(N, 2) float64 (u, v) of the vt statements; checks count and finiteness."""
    blob = st.blob(vt)
    if b"#" in blob:
        blob = b"\n".join(s.split(b"#", 1)[0] for s in st.lines(vt))
    ntok = _tokens_per_line(blob, len(vt)) - 1
    bad = (ntok < 1) | (ntok > 3)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise MeshIOError(f"line {lines[i]}: vt needs 1 to 3 numbers, found {ntok[i]}")
    tokens = blob.split()
    keep = np.ones(len(tokens), dtype=bool)
    keep[np.cumsum(ntok + 1) - (ntok + 1)] = False  # the "vt" keywords
    numbers = list(compress(tokens, keep.tolist()))
    try:
        flat = np.fromiter(map(float, numbers), dtype=np.float64, count=len(numbers))
    except ValueError:
        flat = None
    if flat is None or not np.isfinite(flat).all():
        _raise_bad_vt(numbers, ntok, lines)
    start = np.cumsum(ntok) - ntok
    u = flat[start]
    v = np.where(ntok >= 2, flat[np.minimum(start + 1, len(flat) - 1)], 0.0)
    return np.stack([u, v], axis=1)


def _parse_positions(st: _Statements, v: np.ndarray) -> Optional[np.ndarray]:
    """(V, 3) float64 positions of the v statements (x y z, ignoring an
    optional w or vertex colour), or None when any is malformed: positions
    only serve texel density, so a file with odd v lines still packs."""
    if v.size == 0:
        return None
    blob = b"\n".join(s.split(b"#", 1)[0] for s in st.lines(v)) if b"#" in st.blob(v) else st.blob(v)
    ntok = _tokens_per_line(blob, len(v)) - 1
    if (ntok < 3).any():
        return None
    tokens = blob.split()
    keep = np.ones(len(tokens), dtype=bool)
    keep[np.cumsum(ntok + 1) - (ntok + 1)] = False  # the "v" keywords
    try:
        flat = np.fromiter(map(float, compress(tokens, keep.tolist())), dtype=np.float64, count=int(ntok.sum()))
    except ValueError:
        return None
    start = np.cumsum(ntok) - ntok
    xyz = flat[start[:, None] + np.arange(3)]
    return xyz if np.isfinite(xyz).all() else None


def _raise_bad_vt(numbers: List[bytes], ntok: np.ndarray, lines: np.ndarray) -> None:
    """Report the first vt statement with a malformed or non-finite number."""
    line_of_number = np.repeat(lines, ntok)
    for i, tok in enumerate(numbers):
        text = tok.decode("utf-8")
        try:
            value = float(tok)
        except ValueError:
            raise MeshIOError(f"line {line_of_number[i]}: malformed number {text!r} in vt") from None
        if not np.isfinite(value):
            raise MeshIOError(f"line {line_of_number[i]}: vt value {text!r} is not finite")
    raise AssertionError("unreachable: the vectorised parse failed on one of these numbers")


FaceData = Tuple[np.ndarray, np.ndarray, np.ndarray, Optional[np.ndarray], np.ndarray]


def _parse_faces_fast(blob: bytes, n_faces: int) -> Optional[FaceData]:
    """Vectorised parsing of ``n_faces`` face statements (one per line of
    ``blob``, keyword included) when every corner has the same ``v/vt`` or
    ``v/vt/vn`` form with plain integers; None otherwise (use the slow path).

    Returns (corners per face, raw v, raw vt, raw vn or None, has-UV per
    face); raw indices are as written (1-based or negative).
    """
    if blob.translate(None, b"0123456789/- \t\r\n\v\f") != b"f" * n_faces:
        return None  # other characters (comments, letters, BOM, ...)
    blob = blob.replace(b"f", b" ")
    a = np.frombuffer(blob, dtype=np.uint8)
    n = len(a)
    ws = a <= 32  # only digits, "/", "-" and whitespace are left
    starts = ~ws
    starts[1:] &= ws[:-1]
    ends = ~ws
    ends[:-1] &= ws[1:]
    ts = np.flatnonzero(starts)  # first byte of each corner token
    te = np.flatnonzero(ends) + 1  # one past its last byte
    sp = np.flatnonzero(a == _C["/"])
    mp = np.flatnonzero(a == _C["-"])
    n_tokens = len(ts)
    if n_tokens == 0 or len(sp) not in (n_tokens, 2 * n_tokens):
        return None
    slashes = len(sp) // n_tokens
    # each token holds exactly `slashes` slashes, none at its ends or doubled
    sp2 = sp.reshape(n_tokens, slashes)
    if np.any(sp2[:, 0] <= ts) or np.any(sp2[:, -1] >= te - 1):
        return None
    if slashes == 2 and np.any(sp2[:, 1] - sp2[:, 0] < 2):
        return None
    # a minus starts a number and is followed by a digit
    if mp.size:
        before = a[np.maximum(mp - 1, 0)]
        after = a[np.minimum(mp + 1, n - 1)]
        starts_number = (mp == 0) | (before <= 32) | (before == _C["/"])
        if not np.all(starts_number & (after >= _C["0"]) & (after <= _C["9"]) & (mp + 1 < n)):
            return None
    longest = max(int((sp2[:, 0] - ts).max()), int((te - sp2[:, -1]).max()) - 1)
    if slashes == 2:
        longest = max(longest, int((sp2[:, 1] - sp2[:, 0]).max()) - 1)
    if longest > _MAX_DIGITS:
        return None
    k = np.bincount(np.searchsorted(np.flatnonzero(a == 10), ts), minlength=n_faces)
    if k.min() < 3:
        return None
    numbers = np.fromstring(blob.replace(b"/", b" "), dtype=np.int64, sep=" ")
    numbers = numbers.reshape(n_tokens, slashes + 1)
    rvn = numbers[:, 2].copy() if slashes == 2 else None
    return k, numbers[:, 0].copy(), numbers[:, 1].copy(), rvn, np.ones(n_faces, dtype=bool)


def _parse_faces_slow(bodies: List[bytes], lines: np.ndarray) -> FaceData:
    """Face parsing for any mix of forms, with per-line error messages."""
    k: List[int] = []
    rv: List[int] = []
    rvt: List[int] = []
    rvn: List[int] = []
    has_uv: List[bool] = []
    for i, body in enumerate(bodies):
        tokens = body.split()
        if len(tokens) < 3:
            raise MeshIOError(f"line {lines[i]}: face has {len(tokens)} corner(s), needs at least 3")
        with_uv = 0
        for tok in tokens:
            fields = tok.split(b"/")
            try:
                if len(fields) > 3 or not fields[0]:
                    raise ValueError
                ints = [int(x) if x else 0 for x in fields] + [0] * (3 - len(fields))
            except ValueError:
                raise MeshIOError(f"line {lines[i]}: malformed face corner {tok.decode('utf-8')!r}") from None
            huge = [x for x in ints if abs(x) >= _HUGE_INDEX]
            if huge:
                raise MeshIOError(f"line {lines[i]}: face index {huge[0]} out of range")
            rv.append(ints[0])
            rvt.append(ints[1])
            rvn.append(ints[2])
            with_uv += ints[1] != 0
        if with_uv not in (0, len(tokens)):
            raise MeshIOError(f"line {lines[i]}: face mixes corners with and without vt references")
        k.append(len(tokens))
        has_uv.append(with_uv > 0)
    return (
        np.array(k, dtype=np.int64),
        np.array(rv, dtype=np.int64),
        np.array(rvt, dtype=np.int64),
        np.array(rvn, dtype=np.int64),
        np.array(has_uv, dtype=bool),
    )


def _resolve(
    raw: np.ndarray,
    before: np.ndarray,
    total: int,
    kind: str,
    corner_face: np.ndarray,
    face_lines: np.ndarray,
    used: Optional[np.ndarray],
) -> np.ndarray:
    """0-based indices from OBJ indices (1-based, or negative: relative to the
    ``before`` elements defined so far); ``MeshIOError`` on the first bad one
    among the ``used`` corners (all when None)."""
    idx = np.where(raw > 0, raw - 1, raw + before)
    bad = (idx < 0) | (idx >= total) | (raw == 0)
    if used is not None:
        bad &= used
    if bad.any():
        c = int(np.flatnonzero(bad)[0])
        r = int(raw[c])
        have = f"{int(before[c])} {kind} before this line" if r < 0 else f"{total} {kind}"
        raise MeshIOError(f"line {face_lines[corner_face[c]]}: face {kind} index {r} out of range ({have})")
    return idx


def _split_faces(flat: np.ndarray, k: np.ndarray) -> List[np.ndarray]:
    """Per-face arrays from the flat corner list and corners per face."""
    if k.min() == k.max():
        return list(flat.reshape(-1, int(k[0])))
    ends = np.cumsum(k).tolist()
    starts = [0] + ends[:-1]
    return [flat[s:e] for s, e in zip(starts, ends)]


# --------------------------------------------------------------------------- writing


def write(mesh: Mesh, path: Path, uvs: Optional[np.ndarray] = None) -> None:
    """Write ``mesh`` as OBJ to ``path`` with ``uvs`` (default ``mesh.uvs``):
    only the u/v text of vt lines whose values changed differs from the source."""
    src: _ObjSource = mesh._source
    new = checked_uvs(mesh, uvs)
    changed = new != src.uvs
    rows = np.flatnonzero(changed.any(axis=1))
    if rows.size == 0:
        atomic_write_bytes(path, src.raw)
        return
    lines = src.raw.split(b"\n")
    first = src.vt_line[rows].tolist()
    extra = [0] * len(rows) if src.vt_extra is None else src.vt_extra[rows].tolist()
    plain = not any(c in src.raw for c in (b"\t", b"\v", b"\f", b"#"))
    columns = (new[rows, 0].tolist(), new[rows, 1].tolist(), changed[rows, 0].tolist(), changed[rows, 1].tolist())
    for a, n, u, v, cu, cv in zip(first, extra, *columns):  # flat lists: no garbage-collector churn
        u_text = _format_number(u) if cu else None
        v_text = _format_number(v) if cv else None
        simple = _rewrite_simple(lines[a], u_text, v_text) if plain and n == 0 else None
        if simple is not None:
            lines[a] = simple
        else:
            lines[a:a + n + 1] = _rewrite_vt(lines[a:a + n + 1], u_text, v_text)
    atomic_write_bytes(path, b"\n".join(lines))


def _rewrite_simple(line: bytes, u: Optional[bytes], v: Optional[bytes]) -> Optional[bytes]:
    """Fast rewrite of a ``vt u v [w]`` line with single spaces and an
    optional CR (the caller checked that the file has no tabs or comments);
    None for any other layout."""
    cr = line.endswith(b"\r")
    body = line[:-1] if cr else line
    fields = body.split(b" ")
    if not (3 <= len(fields) <= 4 and fields[0] == b"vt" and all(fields)) or b"\r" in body:
        return None
    if u is not None:
        fields[1] = u
    if v is not None:
        fields[2] = v
    return b" ".join(fields) + (b"\r" if cr else b"")


def _rewrite_vt(parts: List[bytes], u: Optional[bytes], v: Optional[bytes]) -> List[bytes]:
    """The physical lines of any vt statement with the u and/or v text
    (None: keep) replaced in place."""
    raw = b"\n".join(parts)
    text = _join_continued(parts)
    comment = text.find(b"#")
    spans = [m.span() for m in _TOKEN.finditer(text, 0, len(text) if comment < 0 else comment)]
    if v is not None:
        if len(spans) > 2:
            s, e = spans[2]
            raw = raw[:s] + v + raw[e:]
        else:  # "vt u" had an implicit v of 0
            e = spans[1][1]
            raw = raw[:e] + b" " + v + raw[e:]
    if u is not None:
        s, e = spans[1]
        raw = raw[:s] + u + raw[e:]
    return raw.split(b"\n")


def _format_number(x: float) -> bytes:
    """Shortest text that reads back as exactly ``x``, without exponent."""
    text = repr(x)
    if "e" in text:
        text = np.format_float_positional(x, unique=True, trim="0")
    return text.encode("ascii")
