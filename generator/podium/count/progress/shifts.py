"""§4 of the progress rules: shifts with no named cause inside one segment's overall series.

Pure functions on plain lists of floats. For each split k = 5 … n − 5 of a series in time order, U_k
is the Mann–Whitney count of the rest over the first k (ties ½); the split with the largest |z_k| is a
shift when the Moses interval of the rest against the first k (α = 0.01/(n − 9)) excludes 0 and the
Hodges–Lehmann shift is at least delta; then each side of at least 10 runs is searched again.

Readings (where the spec leaves a choice): the largest |z_k| is decided exactly (integers:
(2U_k − k(n−k))² / (k(n−k)) compared by cross-multiplication), so "the smallest k on a tie" means an
exact tie, not one of floating-point rounding. The search stops at SHIFTS_MAX shifts, searching the
larger parts first (progress rules §7, reading 18): a series made to peel a few runs off at each level
would otherwise cost a pass over the whole series per shift (21 s at 32,000 runs).
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate
from operator import sub

from podium.count.progress.ranktests import Differences, finite, moses_k

SHIFT_MIN_RUNS = 10  # a segment's overall series of at least this many runs is searched
SHIFT_SIDE_MIN = 5  # splits k = 5 … n − 5
SHIFTS_MAX = 16  # a segment's search stops at this many shifts (progress.md §4, reading 18): it stays O(n log n)


@dataclass(frozen=True, slots=True)
class FoundShift:
    """A shift inside one series: it starts at index ``start`` (the first run of the later part)."""

    start: int
    shift: float
    interval: tuple[float, float]


def split_scores(values: Sequence[float]) -> list[int]:
    """2·U_k for every k = 0 … n: U_k the Mann–Whitney count of values[k:] over values[:k] (ties ½).

    Moving value t from the later part to the earlier one changes 2U by
    2·(n − 1 − t) − R_t, with R_t = 2·#{v < v_t} + #{v = v_t} − 1 over *all* values: what
    v_t loses against the values before it and gains against those after it add up to a
    count against everything (the before-part cancels). So the sweep is one sort and
    running sums, O(n log n) in all.
    """
    vals = list(map(float, values))
    if not all(map(math.isfinite, vals)):
        raise ValueError("rank statistics need finite values (found NaN or infinity)")
    n = len(vals)
    tally = Counter(vals)
    rank: dict[float, int] = {}
    below = 0
    for v in sorted(tally):
        count = tally[v]
        rank[v] = 2 * below + count - 1
        below += count
    return list(accumulate(map(sub, range(2 * n - 2, -1, -2), map(rank.__getitem__, vals)), initial=0))


def best_split(values: Sequence[float]) -> tuple[int, int] | None:
    """(k, 2·U_k) for the k in 5 … n − 5 with the largest |z_k| (the smallest k on an exact tie);
    None below 10 runs."""
    n = len(values)
    if n < SHIFT_MIN_RUNS:
        return None
    scores = split_scores(values)
    # |z_k| ∝ |2U_k − k(n−k)| / √(k(n−k)): find the largest in floating point, then decide
    # among the splits within rounding of it exactly, on the integers
    ks = range(SHIFT_SIDE_MIN, n - SHIFT_SIDE_MIN + 1)
    approx = [(scores[k] - k * (n - k)) ** 2 / (k * (n - k)) for k in ks]
    top = max(approx)
    best: tuple[int, int] | None = None
    best_a, best_b = 0, 1
    for k, score in zip(ks, approx):
        if score < top * (1 - 1e-9):
            continue
        b = k * (n - k)
        a = (scores[k] - b) ** 2
        if best is None or a * best_b > best_a * b:
            best, best_a, best_b = (k, scores[k]), a, b
    return best


def shift_alpha(n: int) -> Fraction:
    """§4's level: α = 0.01/(n − 9) for a series of n runs."""
    return Fraction(1, 100 * (n - 9))


def may_exclude_zero(twice_u: int, mn: int, rank: int) -> bool:
    """Whether [D(rank), D(mn+1−rank)] can exclude 0, told from 2U alone.

    D(rank) > 0 needs #{y ≤ x} ≤ rank − 1, so U ≥ mn − rank + 1; D(mn+1−rank) < 0 needs
    #{y < x} ≥ mn + 1 − rank, so U ≤ rank − 1. Strictly between the two the interval holds
    0, and the shift search skips finding it.
    """
    return not 2 * (rank - 1) < twice_u < 2 * (mn - rank + 1)


@dataclass(frozen=True, slots=True)
class Search:
    """What §4's search found in one series, and what it cost."""

    found: tuple[FoundShift, ...]  # in time order
    cut: bool  # it stopped at its limit with parts left to search
    work: int  # values it read: the sizes of the parts it searched summed (each costs O(size · log size))


def search(values: Sequence[float], delta: float = 0.05, limit: int = SHIFTS_MAX) -> Search:
    """§4 on ``values`` (one series in time order), the larger parts first, stopping at ``limit`` shifts.

    The best split is a shift when the Moses interval of the later part against the earlier one, at
    α = 0.01/(n − 9), exists and excludes 0, and |shift| ≥ delta (both on values rounded to 6 places); then
    each side of at least 10 runs is searched again. The parts are searched breadth first (a part before the
    parts inside it), so the search reads at most 2·limit + 1 parts: O(limit · n log n), however the series
    is made (one that peels off ten runs at a time would otherwise cost n²).
    """
    vals = finite(values)
    found: list[FoundShift] = []
    todo = deque([(0, len(vals))])
    work = 0
    while todo and len(found) < limit:
        lo, hi = todo.popleft()
        work += hi - lo
        shift = _shift_in(vals[lo:hi], delta)
        if shift is None:
            continue
        k = shift.start
        found.append(FoundShift(lo + k, shift.shift, shift.interval))
        if k >= SHIFT_MIN_RUNS:
            todo.append((lo, lo + k))
        if hi - lo - k >= SHIFT_MIN_RUNS:
            todo.append((lo + k, hi))
    found.sort(key=lambda s: s.start)
    return Search(tuple(found), bool(todo), work)


def _shift_in(part: list[float], delta: float) -> FoundShift | None:
    """The best split of ``part`` when it is a shift (its start counted from the part's first value)."""
    split = best_split(part)
    if split is None:
        return None
    k, twice_u = split
    n = len(part)
    rank = moses_k(k, n - k, shift_alpha(n))
    if rank is None:
        return None
    if not may_exclude_zero(twice_u, k * (n - k), rank):
        return None  # no need to find the interval: it holds 0
    diffs = Differences.of(part[:k], part[k:])
    shift = diffs.shift()
    assert shift is not None
    if round(abs(shift), 6) < delta:
        return None
    interval = diffs.order_statistic(rank), diffs.order_statistic(diffs.total + 1 - rank)
    if not (round(interval[0], 6) > 0 or round(interval[1], 6) < 0):
        return None
    return FoundShift(k, shift, interval)


def shift_search(values: Sequence[float], delta: float = 0.05, limit: int = SHIFTS_MAX) -> list[FoundShift]:
    """Every shift :func:`search` finds in ``values`` (at most ``limit``), in time order."""
    return list(search(values, delta, limit).found)
