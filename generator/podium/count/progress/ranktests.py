"""Rank statistics for progress verdicts (progress rules §2-§3), on plain lists of floats.

Pure functions and small value classes: no I/O, no clock, nothing from the rest of podium.

- ``null_counts`` / ``p_at_most``: the exact null distribution of the Mann–Whitney count,
  as integer counts of rank arrangements (the spec's recurrence), for m + n ≤ 50.
- ``moses_k``: the rank k of the Moses interval [D(k), D(mn+1-k)] (exact up to 50 runs,
  the normal formula above).
- ``Sample`` / ``Differences``: order statistics D(k) of the m·n differences y[j] − x[i]
  *without forming them*, so a step between two segments of 10,000 runs each costs a few
  passes over 20,000 values, not a sort of 10⁸ differences. ``Differences.shift`` is the
  Hodges–Lehmann shift, ``Differences.interval`` the Moses interval.
- ``van_elteren``: the stratified Mann–Whitney test of §3 (U_s counted by bisection).

§4's search for a shift with no named cause is ``podium.count.progress.shifts``.

Why the fast selection is exact: float subtraction is monotone (x ≤ x' ⇒ fl(y − x) ≥
fl(y − x')), so with x and y sorted the float differences form a matrix sorted along rows
and columns, and "how many differences are ≤ t" is exact with two pointers on the float64
differences themselves. The k-th smallest is then the smallest difference whose count
reaches k, the same float the brute force (sort all m·n differences) finds at index k − 1.
Equal values are merged into (value, count) pairs first, so heavily tied scores (the
usual case: a mission's checks give a handful of distinct values) cost passes over the
distinct values only.

Readings (where the spec leaves a choice):
- Values must be finite (``ValueError`` otherwise); −0.0 reads as 0.0, so no difference
  is ever −0.0 and "bit-identical to the brute force" is well defined (the brute force's
  sort would otherwise keep whichever zero came first).
- ``moses_k`` for α outside §2's table (the shift search above 50 runs) uses
  ``NormalDist().inv_cdf(float(1 − α/2))``, 1 − α/2 formed exactly and rounded once.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate, repeat
from operator import mul, sub
from statistics import NormalDist

EXACT_MAX = 50  # m + n up to this: P(U ≤ u) from exact counts of arrangements
# §2's quantiles z at 1 − α/2 for its two levels (not NormalDist's, which differ in the last digits)
Z_TABLE = {Fraction(1, 100): 2.5758293035489004, Fraction(1, 10): 1.6448536269514722}
# A band of at most max(LIST_BAND, BAND_FACTOR · (distinct x + distinct y)) (value, count) pairs
# is listed and sorted outright (listing a pair costs about what one step of a counting pass
# does); two samples with at most LIST_ALL distinct pairs are listed whole at the first query,
# so every rank a step asks for is then a bisection (tuned with benchmarks/progress.py).
LIST_BAND = 1024
LIST_ALL = 2048
BAND_FACTOR = 1.0


# --- the exact null distribution -------------------------------------------------------------


@lru_cache(maxsize=2048)  # m ≤ n, m + n ≤ 50: 676 pairs
def null_counts(m: int, n: int) -> tuple[int, ...]:
    """f(m, n, u) for u = 0 … m·n: how many of the C(m+n, m) rank arrangements give U = u.

    The spec's recurrence f(i, j, u) = f(i−1, j, u−j) + f(i, j−1, u), one row of j at a
    time (f(i, ·) from f(i−1, ·)), memoised per (m, n). The distribution is symmetric in
    m and n, so (n, m) is the same tuple.
    """
    if m < 0 or n < 0:
        raise ValueError(f"null_counts: sizes must be >= 0, got m={m}, n={n}")
    if m > n:
        return null_counts(n, m)
    # row[j] = f(i, j, ·) as a list over u = 0 … i·j; start with i = 0: f(0, j, 0) = 1
    row: list[list[int]] = [[1] for _ in range(n + 1)]
    for i in range(1, m + 1):
        new: list[list[int]] = [[1]]  # f(i, 0, 0) = 1
        for j in range(1, n + 1):
            above = row[j]  # f(i−1, j, ·): shifted by j
            left = new[j - 1]  # f(i, j−1, ·)
            counts = [0] * (i * j + 1)
            for u, c in enumerate(left):
                counts[u] += c
            for u, c in enumerate(above):
                counts[u + j] += c
            new.append(counts)
        row = new
    return tuple(row[n])


def p_at_most(m: int, n: int, u: int) -> Fraction:
    """P(U ≤ u) under the null, exactly: Σ_{v ≤ u} f(m, n, v) / C(m+n, m)."""
    counts = null_counts(m, n)
    if u < 0:
        return Fraction(0)
    return Fraction(sum(counts[: u + 1]), math.comb(m + n, m))


def z_quantile(alpha: Fraction) -> float:
    """The standard normal quantile at 1 − α/2: §2's constant for its two levels, else NormalDist."""
    if alpha in Z_TABLE:
        return Z_TABLE[alpha]
    return NormalDist().inv_cdf(float(1 - alpha / 2))


@lru_cache(maxsize=4096)
def moses_k(m: int, n: int, alpha: Fraction) -> int | None:
    """The largest k ≥ 1 with P(U ≤ k − 1) ≤ α/2 (progress rules §2); None when there is none.

    Exact (integer counts against α as a fraction) when m + n ≤ 50; above, the normal
    formula k = ⌊mn/2 − z·√(mn(m+n+1)/12)⌋, none when k < 1.
    """
    alpha = Fraction(alpha)
    if not 0 < alpha < 1:
        raise ValueError(f"moses_k: alpha must be in (0, 1), got {alpha}")
    if m < 1 or n < 1:
        return None
    if m + n <= EXACT_MAX:
        counts = null_counts(m, n)
        total = math.comb(m + n, m)
        # P(U ≤ k−1) ≤ α/2  ⇔  2·den·cum ≤ num·total
        limit = alpha.numerator * total
        cum = 0
        k = 0
        for c in counts:
            cum += c
            if 2 * alpha.denominator * cum > limit:
                break
            k += 1
        return k if k >= 1 else None
    mn = m * n
    k = math.floor(mn / 2 - z_quantile(alpha) * math.sqrt(mn * (m + n + 1) / 12))
    return k if k >= 1 else None


# --- samples and the order statistics of their differences ----------------------------------


def finite(values: Iterable[float]) -> list[float]:
    """The values as floats, −0.0 as 0.0; a ValueError for NaN or infinity."""
    out = [float(v) + 0.0 for v in values]  # + 0.0: −0.0 reads as 0.0
    if not all(map(math.isfinite, out)):
        raise ValueError("rank statistics need finite values (found NaN or infinity)")
    return out


class Sample:
    """One side's values, sorted and merged: distinct ``values`` ascending with their ``counts``."""

    __slots__ = ("values", "counts", "size")

    def __init__(self, values: list[float], counts: list[int]):
        self.values = values
        self.counts = counts
        self.size = sum(counts)

    @classmethod
    def of(cls, data: Iterable[float]) -> Sample:
        tally = Counter(data)  # merged first: the checks below run on the distinct values only
        values = sorted(tally)
        counts = [tally[v] for v in values]
        # floats, and 0.0 rather than −0.0 (they are one key; the key is whichever came first)
        values = finite(values)
        return cls(values, counts)

    def without(self, value: float) -> Sample:
        """The same sample with one occurrence of ``value`` fewer (it must be there)."""
        value = float(value) + 0.0
        i = bisect_left(self.values, value)
        if i == len(self.values) or self.values[i] != value:
            raise ValueError(f"Sample.without: {value!r} is not in the sample")
        values, counts = self.values[:], self.counts[:]
        if counts[i] == 1:
            del values[i], counts[i]
        else:
            counts[i] -= 1
        return Sample(values, counts)

    def __len__(self) -> int:
        return self.size

    def iqr(self) -> float:
        """The distance between the values a quarter and three quarters of the way up (0 for none)."""
        if not self.size:
            return 0.0
        cum = list(accumulate(self.counts))
        low = self.values[bisect_left(cum, (self.size + 3) // 4)]
        high = self.values[bisect_left(cum, (3 * self.size + 3) // 4)]
        return high - low

    def median(self) -> float | None:
        """The plain median (mean of the two middle values when the size is even)."""
        if not self.size:
            return None
        cum = list(accumulate(self.counts))
        lo = self.values[bisect_left(cum, (self.size + 1) // 2)]
        hi = self.values[bisect_left(cum, self.size // 2 + 1)]
        return lo if self.size % 2 else (lo + hi) / 2


@dataclass(frozen=True, slots=True)
class _Pivot:
    """One counting pass at t: per distinct x, how many distinct y give a difference ≤ t."""

    value: float
    le_total: int  # #{(i, j): y[j] − x[i] ≤ t}, with multiplicities
    le: list[int]
    le_pairs: int  # sum(le): distinct pairs, what a band's listing costs


@dataclass(frozen=True, slots=True)
class _Band:
    """Every difference with rank in (start, end], listed and sorted."""

    start: int
    end: int
    values: list[float]
    cum: list[int] | None  # cumulative counts in value order; None: every count is 1

    def at(self, k: int) -> float:
        if self.cum is None:
            return self.values[k - self.start - 1]
        return self.values[bisect_left(self.cum, k - self.start)]


class Differences:
    """The multiset {y[j] − x[i]} of two samples (x the older side), queried by rank.

    ``order_statistic(k)`` is D(k), the k-th smallest float64 difference (1-based), exactly
    the brute force's ``sorted(all differences)[k − 1]``. Found by bracketing: a counting
    pass at a pivot t says how many differences are ≤ t, so D(k) lies in (lo, hi] between
    the last pivot counting fewer than k and the first counting k or more. Pivots come from
    the medians first, then from reading the counts as linear in value (between the
    bracket's ends, or along the two passes nearest the aim while one end is still the whole
    range's), aimed a little past k so the bracket closes from both sides; a guess that
    misses badly is followed by the weighted median of the rows' middle candidates
    (Johnson–Mizoguchi), which removes at least a quarter of the band. When the band holds
    few enough pairs it is listed and sorted. Passes and listed bands are kept, so the few
    ranks a step needs (the shift, two intervals) share their work: about two passes a rank
    once the middle is found.
    """

    def __init__(self, x: Sample, y: Sample):
        self.x, self.y = x, y
        self.total = x.size * y.size
        self._cum_y = list(accumulate(y.counts, initial=0))
        self._enumerate_max = max(LIST_BAND, int(BAND_FACTOR * (len(x.values) + len(y.values))))
        self._list_all = len(x.values) * len(y.values) <= LIST_ALL
        self._pivots: list[_Pivot] = []  # sorted by value (so by both totals)
        self._bands: list[_Band] = []
        self._unit = x.size == len(x.values) and y.size == len(y.values)  # no ties: no counts to carry
        self.passes = 0  # counting passes made (for tests and measurements)

    @classmethod
    def of(cls, x: Iterable[float], y: Iterable[float]) -> Differences:
        return cls(Sample.of(x), Sample.of(y))

    # the published statistics

    def shift(self) -> float | None:
        """Hodges–Lehmann: the median of the m·n differences (mean of the middle two when even)."""
        total = self.total
        if total == 0:
            return None
        if total % 2:
            return self.order_statistic((total + 1) // 2)
        return (self.order_statistic(total // 2) + self.order_statistic(total // 2 + 1)) / 2

    def interval(self, alpha: Fraction) -> tuple[float, float] | None:
        """Moses: [D(k), D(mn + 1 − k)] at level 1 − α; None when no k exists."""
        k = moses_k(self.x.size, self.y.size, alpha)
        if k is None:
            return None
        return self.order_statistic(k), self.order_statistic(self.total + 1 - k)

    # selection

    def order_statistic(self, k: int) -> float:
        if not 1 <= k <= self.total:
            raise ValueError(f"order_statistic: rank {k} outside 1 … {self.total}")
        for band in self._bands:
            if band.start < k <= band.end:
                return band.at(k)
        if self._list_all:
            return self._list_band(None, None).at(k)
        interpolate = True
        aim = k
        stalled = False
        while True:
            lo, hi = self._bracket(k)
            lo_rows = lo.le if lo is not None else None
            hi_rows = hi.le if hi is not None else None
            size = self._band_size(lo, hi)
            if size <= self._enumerate_max or stalled:
                return self._list_band(lo, hi).at(k)
            if not self._pivots:  # the first pass: where the medians say the middle is
                t = self._seed()
            else:
                t = self._interpolated(lo, hi, aim) if interpolate else None
            guessed = t is not None
            if t is None:
                t = self._middle_pivot(lo_rows, hi_rows)
                if hi is not None and t == hi.value:  # the band is mostly ties at its top: count below them
                    t = math.nextafter(t, -math.inf)
                    # no float between the ends: every pair left is a tie at the top (listed next)
                    stalled = lo is not None and t <= lo.value
                    if stalled:
                        continue
            pivot = self._count(t)
            if guessed:
                # how far the interpolation landed from where it aimed: the next guess aims
                # that far (twice, plus one) past k on the side where the bracket is still
                # wide, so the band closes from both sides instead of creeping in from one;
                # a guess that missed by more than an eighth of the band is not tried again
                # at once (the next pivot is the middle one)
                err = abs(pivot.le_total - aim)
                interpolate = err * 8 <= size
            else:
                err, interpolate = 0, True
            lo, hi = self._bracket(k)
            low_gap = k - (lo.le_total if lo else 0)
            high_gap = (hi.le_total if hi else self.total) - k
            if low_gap > high_gap:
                aim = max(k - 2 * err - 1, k - low_gap // 2)
            else:
                aim = min(k + 2 * err + 1, k + high_gap // 2)

    def _bracket(self, k: int) -> tuple[_Pivot | None, _Pivot | None]:
        """The last pivot counting fewer than k differences and the first counting k or more
        (None: the whole range's end), so D(k) lies in (lo, hi]."""
        pivots = self._pivots
        lo_i = _last_below(pivots, k)
        hi_i = lo_i + 1
        return (pivots[lo_i] if lo_i >= 0 else None), (pivots[hi_i] if hi_i < len(pivots) else None)

    def _band_size(self, lo: _Pivot | None, hi: _Pivot | None) -> int:
        """How many distinct (x, y) pairs lie in (lo, hi]."""
        upper = hi.le_pairs if hi is not None else len(self.x.values) * len(self.y.values)
        return upper - (lo.le_pairs if lo is not None else 0)

    def _rows(self, lo_rows: list[int] | None, hi_rows: list[int] | None):
        p, q = len(self.x.values), len(self.y.values)
        return zip(lo_rows if lo_rows is not None else repeat(0, p), hi_rows if hi_rows is not None else repeat(q, p))

    def _list_band(self, lo: _Pivot | None, hi: _Pivot | None) -> _Band:
        xv, xc = self.x.values, self.x.counts
        yv, yc = self.y.values, self.y.counts
        values: list[float] = []
        weights: list[int] = []
        unit = self._unit
        for i, (a, b) in enumerate(self._rows(lo.le if lo else None, hi.le if hi else None)):
            if a < b:
                values.extend(map(sub, yv[a:b], repeat(xv[i])))
                if not unit:
                    weights.extend(map(mul, yc[a:b], repeat(xc[i])))
        cum = None
        if unit:
            values.sort()
        else:
            order = sorted(range(len(values)), key=values.__getitem__)
            values = list(map(values.__getitem__, order))
            cum = list(accumulate(map(weights.__getitem__, order)))
        band = _Band(lo.le_total if lo else 0, hi.le_total if hi else self.total, values, cum)
        self._bands.append(band)
        return band

    def _seed(self) -> float | None:
        median_x, median_y = self.x.median(), self.y.median()
        assert median_x is not None and median_y is not None
        return median_y - median_x

    def _interpolated(self, lo: _Pivot | None, hi: _Pivot | None, aim: int) -> float | None:
        """A pivot where the ranks between the bracket's ends, read as linear in value, reach ``aim``."""
        xv, yv = self.x.values, self.y.values
        lo_v = lo.value if lo else yv[0] - xv[-1]
        hi_v = hi.value if hi else yv[-1] - xv[0]
        lo_r = lo.le_total if lo else 0
        hi_r = hi.le_total if hi else self.total
        aim = min(max(aim, lo_r + 1), hi_r)
        if hi_r <= lo_r or not hi_v > lo_v:
            return None
        if (lo is None or hi is None) and len(self._pivots) == 1:
            # one pass so far: step from it by the normal density of y − x at its middle
            t = self._stepped(self._pivots[0], aim)
            if t is not None and (lo is None or t > lo_v) and (hi is None or t < hi_v) and lo_v <= t <= hi_v:
                return t
        if (lo is None or hi is None) and len(self._pivots) >= 2:
            # one end is the whole range's: extend the line through the two passes nearest
            # the aim instead (the middle of the differences is close to linear, their tails not)
            t = self._extrapolated(aim)
            if t is not None and (lo is None or t > lo_v) and (hi is None or t < hi_v) and lo_v <= t <= hi_v:
                return t
        t = lo_v + (hi_v - lo_v) * ((aim - lo_r - 0.5) / (hi_r - lo_r))
        if not (lo is None or t > lo_v) or not (hi is None or t < hi_v) or not math.isfinite(t):
            return None
        return t

    def _stepped(self, pivot: _Pivot, aim: int) -> float | None:
        spread = math.hypot(self.x.iqr(), self.y.iqr()) / 1.349  # the sd of y − x, were both normal
        if not spread > 0:
            return None
        slope = self.total / (spread * math.sqrt(2 * math.pi))  # differences per unit of value
        t = pivot.value + (aim - 0.5 - pivot.le_total) / slope
        return t if math.isfinite(t) else None

    def _extrapolated(self, aim: int) -> float | None:
        pivots = self._pivots
        j = _last_below(pivots, aim) + 1  # the first pivot reaching the aim (or len)
        j = min(max(j, 1), len(pivots) - 1)
        a, b = pivots[j - 1], pivots[j]
        ra, rb = a.le_total, b.le_total
        if not rb > ra:
            return None
        t = a.value + (b.value - a.value) * ((aim - 0.5 - ra) / (rb - ra))
        return t if math.isfinite(t) else None

    def _middle_pivot(self, lo_rows: list[int] | None, hi_rows: list[int] | None) -> float:
        """The weighted median of each row's middle candidate (Johnson–Mizoguchi): a band value
        with at least a quarter of the band's weight on each side."""
        xv, xc = self.x.values, self.x.counts
        yv, cy = self.y.values, self._cum_y
        middles: list[tuple[float, int]] = []
        for i, (a, b) in enumerate(self._rows(lo_rows, hi_rows)):
            if a < b:
                low, high = cy[a], cy[b]
                u = bisect_left(cy, low + (high - low + 1) // 2, a + 1, b + 1) - 1
                middles.append((yv[u] - xv[i], xc[i] * (high - low)))
        middles.sort()
        half = (sum(w for _, w in middles) + 1) // 2
        cum = 0
        for value, weight in middles:
            cum += weight
            if cum >= half:
                return value
        raise AssertionError("empty band")  # pragma: no cover - callers check the band first

    def _count(self, t: float) -> _Pivot:
        """One pass: for each distinct x (ascending) how many distinct y give y − x ≤ t.

        As x grows every difference of its row shrinks, so the boundary only moves right:
        one pointer over y for all of x.
        """
        self.passes += 1
        yv = self.y.values
        q = len(yv)
        le: list[int] = []
        append = le.append
        b = 0
        for xi in self.x.values:
            while b < q and yv[b] - xi <= t:
                b += 1
            append(b)
        pairs = sum(le)
        if self._unit:  # every count 1: the pairs are the differences
            pivot = _Pivot(t, pairs, le, pairs)
        else:
            cy, xc = self._cum_y, self.x.counts
            pivot = _Pivot(t, sum(map(mul, xc, map(cy.__getitem__, le))), le, pairs)
        pivots = self._pivots
        at = bisect_left([p.value for p in pivots], t)
        pivots.insert(at, pivot)
        return pivot


def _last_below(pivots: list[_Pivot], k: int) -> int:
    lo, hi = 0, len(pivots)
    while lo < hi:
        mid = (lo + hi) // 2
        if pivots[mid].le_total < k:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


def hodges_lehmann(x: Iterable[float], y: Iterable[float]) -> float | None:
    """The median of all y[j] − x[i]; None when a side is empty."""
    return Differences.of(x, y).shift()


def moses_interval(x: Iterable[float], y: Iterable[float], alpha: Fraction) -> tuple[float, float] | None:
    """[D(k), D(mn+1−k)] of y − x at level 1 − α; None when there is no such k."""
    return Differences.of(x, y).interval(alpha)


# --- van Elteren ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stratified:
    """The van Elteren statistic: Z and its two-sided p (None when the variance is 0)."""

    z: float | None
    p: float | None


def _sample(side: Sample | Iterable[float]) -> Sample:
    return side if isinstance(side, Sample) else Sample.of(side)


def mann_whitney_twice_u(x: Sample | Iterable[float], y: Sample | Iterable[float]) -> int:
    """2·U with U = #{y > x} + ½·#{y = x}: over the distinct y, #{x < y} + #{x ≤ y} by bisection."""
    xs, ys = _sample(x), _sample(y)
    cum_x = list(accumulate(xs.counts, initial=0))
    xv = xs.values
    return sum(c * (cum_x[bisect_left(xv, v)] + cum_x[bisect_right(xv, v)]) for v, c in zip(ys.values, ys.counts))


def van_elteren(strata: Iterable[tuple[Sample | Iterable[float], Sample | Iterable[float]]]) -> Stratified:
    """Z = Σ w_s(U_s − m_s n_s/2) / √(Σ w_s² Var_s), w_s = 1/(N_s + 1), tie-corrected Var_s.

    Sums are exact fractions (so the result does not depend on float summation order) and
    Z is rounded once. p = erfc(|Z|/√2). A stratum with an empty side adds nothing.
    """
    num = Fraction(0)
    den = Fraction(0)
    for x, y in strata:
        xs, ys = _sample(x), _sample(y)
        m, n = xs.size, ys.size
        if not m or not n:
            continue
        big_n = m + n
        twice_u = mann_whitney_twice_u(xs, ys)
        pooled = dict(zip(xs.values, xs.counts))
        for v, c in zip(ys.values, ys.counts):
            pooled[v] = pooled.get(v, 0) + c
        ties = sum(t * t * t - t for t in pooled.values())
        var = Fraction(m * n, 12) * (big_n + 1 - Fraction(ties, big_n * (big_n - 1)))
        w = Fraction(1, big_n + 1)
        num += w * Fraction(twice_u - m * n, 2)
        den += w * w * var
    if den == 0:
        return Stratified(None, None)
    z = math.copysign(math.sqrt(num * num / den), num)
    return Stratified(z, math.erfc(abs(z) / math.sqrt(2)))
