"""Groups packed together (``group_layout='together'``): each group of
islands in a compact region of its own.

With ``groups`` (one key per face) and ``scale='fit'``, the islands of each
group are first packed among themselves into a *cluster*, and the clusters
are then packed into the target as rigid pieces, each as its convex hull.
So every group occupies a convex region of its own (the hull of its
islands), the regions are at least the margin apart, and all islands keep
one common scale (texel density).

**The margin inside a cluster.**  The margin is a distance in the final
layout, but the final scale is only known once the clusters are packed.
Islands are packed at their own size (island units) and the final layout
scales everything by ``s``; a cluster whose islands are ``gap`` apart in
island units keeps ``s * gap`` in the final layout.  A cluster is built for
a scale ``s_k``: each island grown by ``margin / (2 s_k)`` (a Minkowski sum
with a polygon around the disk) and the grown shapes packed without margin,
so its islands are at least ``margin / s_k`` apart whatever scale its own
packing found.  Any final layout at a scale ``s >= s_k`` then keeps the
margin inside every cluster, and the engine keeps it between clusters.  The
search on the scale runs in rounds: clusters built for an estimate ``s_k``,
their first layout in the target reaches ``s``; when ``s >= s_k`` the round
holds (every later layout of the search only grows ``s``), else the next
round builds them for ``s * (1 - ROUND_SLACK)``.  A round that holds with
``s`` well above ``s_k`` is followed by one for ``s`` (tighter gaps, smaller
clusters), and the best round that holds is kept.  The packer refuses a
layout below its round's scale (a box layout cut short by a time limit),
and every returned layout is checked exactly on every island at the real
margin (:func:`check_islands`), on top of the packer's checks of the
clusters.

**The clusters' shapes.**  A group is packed (fit mode, the packer's
rotation and flip options) into a rectangle of the target's box cut
proportionally to the groups' areas (a slice-and-dice treemap), so clusters
come out in shapes that tile the target rather than as squares that would
not (two squares of half the target's area do not fit side by side).  The
packer turns and places them as it turns and places islands.

What this costs: the room between clusters' hulls, and between a cluster
and the target's border, stays empty; a group of one island packs as its
convex hull (no other group nests in its pockets).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from . import _core
from .errors import CannotFitError
from .islands import Island, ring_areas
from .region import _grown
from .stacking import IDENTITY_ALIGNMENT, Alignment

__all__ = ["GROUP_LAYOUTS", "Clusters", "build_clusters", "check_islands", "treemap"]

#: accepted values of ``group_layout``: ``'tiles'`` is the affinity of
#: groups to UDIM tiles (``scale='fixed'``), ``'together'`` this module
GROUP_LAYOUTS = ("tiles", "together")
#: rounds of the search on the scale at most
MAX_ROUNDS = 4
#: a round that failed (its layout's scale s below the scale its clusters
#: were built for) builds the next for s less this share: the gaps grow a
#: little, the clusters by a tiny share of that, so the next one holds
ROUND_SLACK = 0.02
#: a round that holds with its layout's scale more than this share above its
#: clusters' is followed by a round built for that scale
ROUND_CLOSE = 0.08
#: share of the packer's time limit the clusters may take (the clusters'
#: layout in the target, a few hulls, takes milliseconds)
TIME_SHARE = 0.6
#: annealing moves per cluster without a time limit (deterministic; the
#: packer's constructor returns with its first layout, so a few): 120 boxes
#: in 4 groups, margin 0.005, one loaded core: 50 moves 0.814 coverage in
#: 3.8 s, 200 moves 0.828 in 19 s, 800 moves 0.838 in 73 s
CLUSTER_MOVES = 50
#: moves the clusters' layout in the target anneals before its scale is
#: read, without a time limit (its first fill of a few hulls is a poor guide:
#: 0.83 where 300 moves reached 1.08 on 40 boxes in 3 groups)
PROBE_MOVES = 200
#: share of the area bound of the scale the first round's clusters are built
#: for (islands rarely cover more than this share of a target)
FIRST_FILL = 0.7
#: the same with a time limit, where a second round may not fit in time:
#: gaps up to sqrt(0.7 / 0.5) = 1.18 times wider than needed, in one round
#: more often (150 boxes in 5 groups, 0.3 s: 0.36 s with two rounds)
QUICK_FILL = 0.5


@dataclass(frozen=True)
class Clusters:
    """Groups packed among themselves.

    Attributes:
        units: one island per group: its outline the convex hull of the
            group's placed islands (in island units), its area their sum,
            its faces, UV indices and members theirs.
        cluster_of: per island given its cluster.
        motions: per island given the rigid motion that puts it in its
            cluster.
        scale: the smallest final scale at which the margin holds inside
            every cluster (0 with a zero margin).
        core: the C packer of the clusters in the target, started (its best
            layout at ``scale`` or above), for the packer to go on with.
    """

    units: List[Island]
    cluster_of: np.ndarray
    motions: List[Alignment]
    scale: float
    core: Any


#: a rectangle ``(x0, y0, x1, y1)``
Box = Tuple[float, float, float, float]
#: ``(core, deadline or None, method, *args)`` -> the result of
#: ``core.method(*args)``, cancelled at the deadline and by the packer's
#: cancel (the packer's own call path)
CallCore = Callable[..., Any]
#: ``(box, as_boxes)`` -> an empty C packer in fit mode filling ``box``
#: without margin or padding, with the packer's rotation, flip, seed, cache
#: and threads (``as_boxes``: the skyline of bounding rectangles)
NewCore = Callable[[Box, bool], Any]
#: ``(clusters, deadline)`` -> a C packer of the clusters in the target,
#: started and annealed ``PROBE_MOVES`` moves (or until the deadline), and
#: the scale of its best layout; None when they cannot fit
Probe = Callable[[List[Island], Optional[float]], Optional[Tuple[Any, float]]]


def treemap(weights: Sequence[float], box: Box) -> List[Box]:
    """``box`` cut into one rectangle per weight, each's area proportional to
    its weight: the weights (heaviest first) split into two halves of about
    equal weight, the box cut across its longer side in that proportion,
    and each half cut the same way."""
    out: List[Box] = [box] * len(weights)
    w = np.maximum(np.asarray(weights, dtype=np.float64), 1e-300)

    def cut(items: np.ndarray, b: Box) -> None:
        if items.size == 1:
            out[int(items[0])] = b
            return
        total = w[items].sum()
        share = np.cumsum(w[items]) / total
        k = int(np.clip(np.searchsorted(share, 0.5) + 1, 1, items.size - 1))
        f = float(share[k - 1])
        x0, y0, x1, y1 = b
        if x1 - x0 >= y1 - y0:
            xm = x0 + f * (x1 - x0)
            cut(items[:k], (x0, y0, xm, y1))
            cut(items[k:], (xm, y0, x1, y1))
        else:
            ym = y0 + f * (y1 - y0)
            cut(items[:k], (x0, y0, x1, ym))
            cut(items[k:], (x0, ym, x1, y1))

    if len(weights):
        cut(np.argsort(-w, kind="stable"), box)
    return out


def _cluster_unit(index: int, members: Sequence[Island], shapes: Sequence[List[np.ndarray]],
                  motions: Sequence[Alignment]) -> Island:
    """The island a group packs as: the hull of its members' placed shapes."""
    hull = _core.hull([m.apply(r) for shape, m in zip(shapes, motions) for r in shape])
    lo, hi = hull[0].min(axis=0), hull[0].max(axis=0)
    return Island(index=index, faces=np.sort(np.concatenate([isl.faces for isl in members])),
                  uv_indices=np.unique(np.concatenate([isl.uv_indices for isl in members])), outline=hull,
                  area=float(sum(isl.area for isl in members)),
                  bbox=(float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])),
                  members=tuple(i for isl in members for i in isl.members))


def _pack_group(grown: List[List[np.ndarray]], areas: np.ndarray, rect: Box,
                new_core: NewCore, call: CallCore, deadline: Optional[float]) -> List[Alignment]:
    """Per grown shape its motion in island units: the shapes packed without
    margin into ``rect`` (the skyline of their boxes when the exact first
    layout is not ready by ``deadline``), then annealed ``CLUSTER_MOVES``
    moves, or until ``deadline``."""
    core = new_core(rect, False)
    for rings, area in zip(grown, areas):
        core.add_island(rings, float(area))
    ready = call(core, deadline, "start")
    if ready is None:
        raise RuntimeError("internal error: a group's islands did not fit a rectangle of their own")
    if ready:
        while deadline is None or time.perf_counter() < deadline:
            _, cancelled = call(core, deadline, "run", CLUSTER_MOVES if deadline is None else 16,
                                deadline is None)
            if deadline is None or cancelled:
                break
    else:   # out of time: the boxes' skyline, milliseconds
        core = new_core(rect, True)
        for rings, area in zip(grown, areas):
            core.add_island(rings, float(area))
        if not call(core, None, "start"):
            raise RuntimeError("internal error: a group's boxes did not fit a rectangle of their own")
    angle, flip, scale, trans, _ = core.best()
    if np.ptp(scale) > 0:
        raise RuntimeError("internal error: a group's islands came out at different scales")
    return [Alignment(float(a), bool(f), (float(t[0] / s), float(t[1] / s)))
            for a, f, s, t in zip(angle, flip, scale, trans)]


def _build(units: Sequence[Island], shapes: Sequence[List[np.ndarray]], group_of: np.ndarray, gap: float,
           box: Box, new_core: NewCore, call: CallCore,
           deadline: Optional[float]) -> Tuple[List[Island], List[Alignment]]:
    """The clusters for islands ``gap`` apart (island units), and per island
    its motion."""
    groups = int(group_of.max()) + 1
    grown = [_grown(shape, 0.5 * gap) if gap > 0 else shape for shape in shapes]
    grown_area = np.array([max(float(ring_areas(g).sum()), 1e-300) for g in grown])
    weights = np.bincount(group_of, weights=grown_area, minlength=groups)
    rects = treemap(weights, box)
    motions: List[Alignment] = [IDENTITY_ALIGNMENT] * len(units)
    clusters = []
    start = time.perf_counter()
    for g in range(groups):
        members = np.flatnonzero(group_of == g)
        if members.size > 1:
            # the time left shared out by the groups' areas
            end = None if deadline is None else \
                start + (deadline - start) * float(weights[:g + 1].sum() / weights.sum())
            for k, m in zip(members, _pack_group([grown[k] for k in members], grown_area[members], rects[g],
                                                 new_core, call, end)):
                motions[k] = m
        clusters.append(_cluster_unit(g, [units[k] for k in members], [shapes[k] for k in members],
                                      [motions[k] for k in members]))
    return clusters, motions


def build_clusters(units: Sequence[Island], shapes: Sequence[List[np.ndarray]], group_of: np.ndarray,
                   margin: float, box: Box, target_area: float,
                   new_core: NewCore, call: CallCore, probe: Probe, deadline: Optional[float] = None) -> Clusters:
    """Pack each group's islands into a cluster, the rounds of the search on
    the scale included (see the module docstring).

    ``units`` are the islands to pack and ``shapes`` what the engine packs of
    each (in island units, holding all of the island); ``group_of`` per
    island its group (0 .. G-1, every island in one); ``margin`` the
    margin the engine keeps in the final layout; ``box`` and
    ``target_area`` the target's box and area.  ``deadline``
    (``time.perf_counter()`` seconds) bounds the clusters' annealing,
    shared out between the rounds; without one each cluster anneals
    ``CLUSTER_MOVES`` moves (deterministic).  Raises ``CannotFitError``
    when the first round's clusters do not fit the target at all.
    """
    group_of = np.asarray(group_of, dtype=np.int64)
    if margin <= 0:
        clusters, motions = _build(units, shapes, group_of, 0.0, box, new_core, call, deadline)
        probed = probe(clusters, deadline)
        if probed is None:
            raise CannotFitError()
        return Clusters(clusters, group_of, motions, 0.0, probed[0])
    total = float(sum(max(isl.area, 0.0) for isl in units))
    fill = FIRST_FILL if deadline is None else QUICK_FILL
    aim = math.sqrt(fill * target_area / total) if total > 0 else 1.0
    best: Optional[Tuple[float, Clusters]] = None
    for k in range(MAX_ROUNDS):
        began = time.perf_counter()
        end = None if deadline is None else began + (deadline - began) / (MAX_ROUNDS - k)
        clusters, motions = _build(units, shapes, group_of, margin / aim, box, new_core, call, end)
        probed = probe(clusters, end)
        if probed is None:   # these clusters do not fit at all (a tiny target, a wide margin)
            if best is None:
                raise CannotFitError()
            break
        core, reached = probed
        holds = reached >= aim
        if holds and (best is None or reached > best[0]):
            best = (reached, Clusters(clusters, group_of, motions, aim, core))
        now = time.perf_counter()
        if best is not None and (not holds or reached <= aim * (1 + ROUND_CLOSE) or k > 0 and best[0] > reached
                                 or deadline is not None and 2 * now - began >= deadline):
            break   # one round held and this one is close to it, failed, did worse, or another would be late
        # held well above its aim: tighter gaps; failed: looser ones
        aim = reached if holds else reached * (1 - ROUND_SLACK * 2 ** k)
    if best is None:
        raise RuntimeError("internal error: no round of the group layout kept the margin inside its groups")
    return best[1]


def check_islands(placed: Sequence[List[np.ndarray]], fixed: Sequence[List[np.ndarray]], margin: float,
                  box: Box) -> None:
    """The exact check of every island of a group layout at the real margin
    (``csrc/validate.c``): ``placed`` the islands' outlines where they went,
    ``fixed`` the obstacles (locked islands, a region's outside), ``box``
    the target less the padding.  Raises RuntimeError (an engine bug)."""
    bad_a, bad_b = _core.validate(list(placed) + list(fixed), len(fixed), margin, box)
    if bad_a >= 0:
        raise RuntimeError(f"internal error: a group layout failed its check (islands {bad_a} and {bad_b}); "
                           "please report this input")
