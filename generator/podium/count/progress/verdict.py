"""One series at one step (docs/rules/progress.md §2): shift, intervals, verdict, the guards; the attribution.

The machinery decides in its own terms (``improved``: a move up, ``regressed``: a move down, ``steady``,
``unclear``, ``too_few_runs``, ``not_comparable``) and publishes each through the series' words
(``Series.says``): a score series says them as they are, another series in its own words.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from podium.count.progress.ranktests import Differences, Sample, moses_k
from podium.count.progress.series import ALPHA_CHANGE, ALPHA_STEADY, MOVES, N_MIN, Series, rounded
from podium.model.progress import StepSeries

if TYPE_CHECKING:
    from podium.count.progress.cells import Side


def series_step(series: Series, old: Side, new: Side, judge_changed: bool) -> StepSeries:
    """The verdict of one series between two segments, with its guards and published figures."""
    xs, ys = old.sample(), new.sample()
    m, n = xs.size, ys.size
    shift = ci99 = ci90 = delta_median = None
    if m and n:
        diffs = Differences(xs, ys)
        shift = diffs.shift()
        ci99 = diffs.interval(ALPHA_CHANGE)
        ci90 = diffs.interval(ALPHA_STEADY)
        delta_median = ys.median() - xs.median()  # type: ignore[operator]  # both sides are non-empty
    verdict, within = _verdict(series, judge_changed, m, n, shift, ci99, ci90)
    reasons = []
    if verdict in MOVES:
        delta = series.delta
        if "partial_judge" in series.guards and (old.has_upper or new.has_upper):
            if _move(delta, old.upper_sample(), new.upper_sample()) != verdict:
                reasons.append("partial_judge")
        # §7: the newest run of a side is the newest in this series
        if "just_crossed" in series.guards and not (
            _kept(delta, diffs, verdict, m, n - 1, lambda: (xs, ys.without(new.values[-1])))
            and _kept(delta, diffs, verdict, m - 1, n, lambda: (xs.without(old.values[-1]), ys))
        ):
            reasons.append("just_crossed")
        if reasons:
            verdict, within = "unclear", None
    return StepSeries(series.says(verdict), tuple(reasons), shift, delta_median, ci99, ci90, within, m, n)


def _kept(
    delta: float, diffs: Differences, verdict: str, m: int, n: int, smaller: Callable[[], tuple[Sample, Sample]]
) -> bool:
    """Whether the move ``verdict`` stays with one run removed from a side (m, n: the sizes left).

    Removing a run removes its r = total − m·n differences, and that can only move the j-th
    smallest difference up to at most the (j + r)-th of the whole step: D(j) ≤ D'(j) ≤ D(j + r).
    So the step's own order statistics often settle it (a clear move stays a move); only
    when they cannot is the step computed again without the run (``smaller``).
    """
    if m < N_MIN or n < N_MIN:
        return False  # too_few_runs: no move
    k = moses_k(m, n, ALPHA_CHANGE)
    if k is None:
        return False
    total = m * n
    r = diffs.total - total
    if verdict == "improved":  # the lower bounds suffice: every figure can only be higher
        low_shift = _middle(diffs, (total + 1) // 2, total // 2 + 1, total % 2)
        if rounded(low_shift) >= delta and rounded(diffs.order_statistic(k)) > 0:
            return True
    else:
        high_shift = _middle(diffs, (total + 1) // 2 + r, total // 2 + 1 + r, total % 2)
        if rounded(high_shift) <= -delta and rounded(diffs.order_statistic(total + 1 - k + r)) < 0:
            return True
    return _move(delta, *smaller()) == verdict


def _middle(diffs: Differences, a: int, b: int, odd: int) -> float:
    """(D(a) + D(b)) / 2, or D(a) alone when the multiset it stands for has an odd size."""
    return diffs.order_statistic(a) if odd else (diffs.order_statistic(a) + diffs.order_statistic(b)) / 2


def _verdict(
    series: Series,
    judge_changed: bool,
    m: int,
    n: int,
    shift: float | None,
    ci99: tuple[float, float] | None,
    ci90: tuple[float, float] | None,
) -> tuple[str, float | None]:
    """§2 steps 1–5: (verdict in the machinery's terms, steady_within)."""
    if judge_changed and series.judge_sensitive:
        return "not_comparable", None
    if m < N_MIN or n < N_MIN:
        return "too_few_runs", None
    delta = series.delta
    if ci99 is not None and shift is not None:
        if rounded(ci99[0]) > 0 and rounded(shift) >= delta:
            return "improved", None
        if rounded(ci99[1]) < 0 and rounded(shift) <= -delta:
            return "regressed", None
    if ci90 is not None:
        lo, hi = rounded(ci90[0]), rounded(ci90[1])
        for within in (delta, 2 * delta):
            if lo >= -within and hi <= within:
                return "steady", within
    return "unclear", None


def _move(delta: float, xs: Sample, ys: Sample) -> str | None:
    """Steps 1–5 again for a guard, computing only what tells a move: "improved", "regressed" or None.

    A guard is only asked about a step whose judge model did not change (it is a move), so
    step 1 cannot apply; a side below n_min is too_few_runs, which is no move.
    """
    if xs.size < N_MIN or ys.size < N_MIN:
        return None
    diffs = Differences(xs, ys)
    shift = diffs.shift()
    assert shift is not None
    k = moses_k(xs.size, ys.size, ALPHA_CHANGE)
    if k is None:
        return None
    if rounded(shift) >= delta and rounded(diffs.order_statistic(k)) > 0:
        return "improved"
    if rounded(shift) <= -delta and rounded(diffs.order_statistic(diffs.total + 1 - k)) < 0:
        return "regressed"
    return None


def attribution(series: Mapping[str, StepSeries]) -> str | None:
    """§2.6: which half carries an overall move."""
    verdict = series["overall"].verdict
    if verdict not in MOVES:
        return None
    checks, judge = series["checks"].verdict == verdict, series["judge"].verdict == verdict
    return "both" if checks and judge else "checks" if checks else "judge" if judge else "neither alone"
