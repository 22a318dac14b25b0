"""podium.count.progress.verdict: one series at one step (progress rules §2): verdicts, guards, attribution, and the
whole step against the rule written out with brute force (hypothesis)."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from progresskit import B_NEW_JUDGE, HIGH, LOW, A, B, only_cell, progress_of, ref_move, ref_step, run, runs_of

from podium.count.progress.ranktests import Differences, Sample, moses_k
from podium.count.progress.series import DELTA, SCORE_SERIES
from podium.count.progress.verdict import _kept
from podium.model import Configuration

# --- verdicts of one series at one step (§2) --------------------------------------------------


def test_improved():
    cell = only_cell(progress_of(runs_of(LOW, conf=A) + runs_of(HIGH, conf=B)))
    step = cell.newest_step
    for name in SCORE_SERIES:
        s = step.series(name)
        assert (s.verdict, s.reasons, s.m, s.n) == ("improved", (), 8, 8)
        assert s.ci99[0] > 0 and s.shift == pytest.approx(0.3)
        assert s.steady_within is None
    assert step.changed == ("agent_version",) and step.from_ == A and step.to == B
    assert step.attribution == "both"
    lo, hi = sorted(LOW), sorted(HIGH)
    assert step.overall.delta_median == pytest.approx((hi[3] + hi[4]) / 2 - (lo[3] + lo[4]) / 2)


def test_regressed():
    step = only_cell(progress_of(runs_of(HIGH, conf=A) + runs_of(LOW, conf=B))).newest_step
    assert [step.series(s).verdict for s in SCORE_SERIES] == ["regressed"] * 3
    assert step.overall.ci99[1] < 0 and step.overall.shift == pytest.approx(-0.3)
    assert step.attribution == "both"


def test_published_figures_are_the_brute_forces():
    step = only_cell(progress_of(runs_of(LOW, conf=A) + runs_of(HIGH, conf=B))).newest_step.overall
    d = sorted(b - a for a in [0.5 * v + 0.5 * v for v in LOW] for b in [0.5 * v + 0.5 * v for v in HIGH])
    k99, k90 = moses_k(8, 8, Fraction(1, 100)), moses_k(8, 8, Fraction(1, 10))
    assert step.shift == (d[31] + d[32]) / 2
    assert step.ci99 == (d[k99 - 1], d[64 - k99]) and step.ci90 == (d[k90 - 1], d[64 - k90])
    lo, hi = sorted(LOW), sorted(HIGH)
    assert step.delta_median == (hi[3] + hi[4]) / 2 - (lo[3] + lo[4]) / 2


def steady_fixture(spread: float, n: int = 40):
    rng = random.Random(int(spread * 1000))
    a = [round(0.5 + rng.uniform(-spread, spread), 3) for _ in range(n)]
    b = [round(0.5 + rng.uniform(-spread, spread), 3) for _ in range(n)]
    return only_cell(progress_of(runs_of(a, conf=A) + runs_of(b, conf=B))).newest_step


def test_steady_within_delta():
    step = steady_fixture(0.05)
    s = step.overall
    assert (s.verdict, s.steady_within) == ("steady", 0.05)
    assert -0.05 <= s.ci90[0] and s.ci90[1] <= 0.05
    assert step.attribution is None


def test_steady_within_twice_delta():
    s = steady_fixture(0.16).overall
    assert (s.verdict, s.steady_within) == ("steady", 0.1)
    assert not (-0.05 <= round(s.ci90[0], 6) and round(s.ci90[1], 6) <= 0.05)
    assert -0.1 <= s.ci90[0] and s.ci90[1] <= 0.1


def test_unclear_when_nothing_is_earned():
    # five a side, wide spread: no move, and the 90% interval is far wider than 2·delta
    step = only_cell(
        progress_of(runs_of([0.1, 0.9, 0.5, 0.3, 0.7], conf=A) + runs_of([0.2, 0.8, 0.6, 0.4, 0.95], conf=B))
    ).newest_step
    for name in SCORE_SERIES:
        s = step.series(name)
        assert (s.verdict, s.reasons, s.steady_within) == ("unclear", (), None)
        assert s.shift is not None and s.ci90 is not None  # published whatever the verdict
    assert step.attribution is None


def test_too_few_runs_says_how_many():
    step = only_cell(progress_of(runs_of(LOW, conf=A) + runs_of([0.9, 0.9, 0.9], conf=B))).newest_step
    s = step.overall
    assert (s.verdict, s.m, s.n) == ("too_few_runs", 8, 3)
    assert s.shift == pytest.approx(0.9 - 0.3, abs=0.05) and s.delta_median is not None
    assert s.ci99 is None  # 8 against 3 has no 99% interval
    assert s.ci90 is not None  # but a 90% one: published
    assert step.attribution is None


def test_not_comparable_when_the_judge_model_changed_and_the_checks_still_decide():
    step = only_cell(progress_of(runs_of(LOW, conf=A) + runs_of(HIGH, conf=B_NEW_JUDGE))).newest_step
    assert (step.overall.verdict, step.judge.verdict, step.checks.verdict) == (
        "not_comparable",
        "not_comparable",
        "improved",
    )
    assert step.changed == ("agent_version", "judge_model")
    assert step.attribution is None
    assert step.overall.shift is not None  # figures are still published


def test_not_comparable_comes_before_too_few_runs():
    """§7: a judge configured partway makes the overall step not_comparable even with no judged run before."""
    no_judge = Configuration("v1", "model-a", None, 1800.0)
    runs = runs_of([0.3] * 6, conf=no_judge, kind="no_judge") + runs_of(HIGH, conf=replace(no_judge, judge_model="j"))
    step = only_cell(progress_of(runs)).newest_step
    assert step.overall.verdict == "not_comparable" and step.overall.m == 0
    assert step.overall.shift is None and step.overall.ci99 is None and step.overall.delta_median is None
    assert step.checks.verdict in ("improved", "unclear", "steady")  # the checks ran on both sides
    assert step.checks.m == 6


def test_thresholds_are_compared_on_six_places():
    # 0.35 − 0.30 is 0.04999999999999999 in floating point: it counts as 0.05
    assert 0.35 - 0.30 < 0.05
    step = only_cell(progress_of(runs_of([0.30] * 8, conf=A) + runs_of([0.35] * 8, conf=B))).newest_step
    assert step.overall.shift < 0.05
    assert step.overall.verdict == "improved"
    assert step.checks.verdict == "steady" and step.checks.steady_within == 0.1  # 0.05 < delta 0.1: [0.05, 0.05]


# --- the guards ------------------------------------------------------------------------------------


def test_partial_judge_turns_a_move_unclear():
    """The older side's judge was partial with a high upper bound: on the upper values it is no move."""
    old = [run(s, conf=A, judge_upper=0.95) for s in LOW]
    step = only_cell(progress_of(old + runs_of(HIGH, conf=B))).newest_step
    assert (step.overall.verdict, step.overall.reasons) == ("unclear", ("partial_judge",))
    assert (step.judge.verdict, step.judge.reasons) == ("unclear", ("partial_judge",))
    assert (step.checks.verdict, step.checks.reasons) == ("improved", ())  # no upper values
    assert step.attribution is None
    # shift and intervals are still published from the lower values
    assert step.overall.shift == pytest.approx(0.3) and step.overall.ci99[0] > 0


def test_partial_judge_whatever_the_kind():
    """§7: a timed-out run with a partial judge uses its upper bounds too."""
    old = [run(s, conf=A, kind="timed_out", judge_upper=0.95) for s in LOW]
    step = only_cell(progress_of(old + runs_of(HIGH, conf=B))).newest_step
    assert step.overall.reasons == ("partial_judge",)


def test_partial_judge_that_keeps_the_verdict_is_no_reason():
    old = [run(s, conf=A, judge_upper=s + 0.01) for s in LOW]
    step = only_cell(progress_of(old + runs_of(HIGH, conf=B))).newest_step
    assert (step.overall.verdict, step.overall.reasons) == ("improved", ())


def test_just_crossed_the_newest_run_made_the_move():
    # A constant: the shift is the median of y − 0.3; without B's newest 0.7 it drops to 0.02
    old = runs_of([0.3] * 6, conf=A)
    new = runs_of([0.32, 0.32, 0.32, 0.7, 0.7, 0.7], conf=B)
    step = only_cell(progress_of(old + new)).newest_step
    for name in SCORE_SERIES:
        s = step.series(name)
        assert (s.verdict, s.reasons, s.steady_within) == ("unclear", ("just_crossed",), None)
        assert round(s.shift, 6) >= DELTA[name] and s.ci99[0] > 0  # a move before the guard


def test_just_crossed_a_regression_too():
    # the mirror image: without B's newest 0.3 the shift rises from −0.21 to −0.02
    old = runs_of([0.7] * 6, conf=A)
    new = runs_of([0.68, 0.68, 0.68, 0.3, 0.3, 0.3], conf=B)
    step = only_cell(progress_of(old + new)).newest_step
    assert (step.overall.verdict, step.overall.reasons) == ("unclear", ("just_crossed",))
    assert step.overall.ci99[1] < 0 and step.overall.shift == pytest.approx(-0.21)


def test_just_crossed_the_newest_run_of_the_older_side_counts_too():
    # the older side's newest run is a low one: without it the older side is higher and the
    # shift drops from 0.2 to 0.04
    old = runs_of([0.62, 0.62, 0.62, 0.3, 0.3, 0.3], conf=A)
    new = runs_of([0.66] * 6, conf=B)
    step = only_cell(progress_of(old + new)).newest_step
    assert (step.overall.verdict, step.overall.reasons) == ("unclear", ("just_crossed",))
    assert step.overall.shift == pytest.approx(0.2)
    # with the older side's newest run a high one, removing it keeps the move
    reordered = runs_of([0.3, 0.3, 0.3, 0.62, 0.62, 0.62], conf=A) + runs_of([0.66] * 6, conf=B)
    assert only_cell(progress_of(reordered)).newest_step.overall.verdict == "improved"


def test_just_crossed_a_side_left_with_fewer_than_5_runs_fails():
    step = only_cell(progress_of(runs_of(LOW[:5], conf=A) + runs_of(HIGH[:5], conf=B))).newest_step
    assert (step.overall.verdict, step.overall.reasons) == ("unclear", ("just_crossed",))
    assert (step.overall.m, step.overall.n) == (5, 5) and step.overall.ci99[0] > 0
    step6 = only_cell(progress_of(runs_of(LOW[:6], conf=A) + runs_of(HIGH[:6], conf=B))).newest_step
    assert step6.overall.verdict == "improved"  # §7: a move needs 6 runs on each side


def test_both_guards_fail_in_order():
    old = [run(s, conf=A, judge_upper=0.95) for s in LOW[:5]]
    step = only_cell(progress_of(old + runs_of(HIGH[:5], conf=B))).newest_step
    assert step.overall.reasons == ("partial_judge", "just_crossed")


# --- attribution --------------------------------------------------------------------------------------


def attribution_of(old_det, old_judge, new_det, new_judge):
    rng = random.Random(1)
    noise = [rng.uniform(-0.01, 0.01) for _ in range(16)]
    old = [run(det=old_det + noise[i], judge=old_judge - noise[i], conf=A) for i in range(8)]
    new = [run(det=new_det + noise[8 + i], judge=new_judge - noise[8 + i], conf=B) for i in range(8)]
    return only_cell(progress_of(old + new)).newest_step


def test_attribution_checks_judge_both_neither_and_null():
    step = attribution_of(0.3, 0.5, 0.6, 0.5)
    assert (step.overall.verdict, step.checks.verdict, step.judge.verdict) == ("improved", "improved", "steady")
    assert step.attribution == "checks"
    assert attribution_of(0.5, 0.3, 0.5, 0.6).attribution == "judge"
    assert attribution_of(0.3, 0.3, 0.6, 0.6).attribution == "both"
    neither = attribution_of(0.3, 0.3, 0.37, 0.37)  # +0.07 each: the overall moves, neither half by 0.1
    assert neither.overall.verdict == "improved"
    assert neither.checks.verdict != "improved" and neither.judge.verdict != "improved"
    assert neither.attribution == "neither alone"
    assert attribution_of(0.5, 0.5, 0.5, 0.5).attribution is None
    regressed = attribution_of(0.6, 0.5, 0.3, 0.5)
    assert (regressed.overall.verdict, regressed.attribution) == ("regressed", "checks")


# --- the whole step against the rule written out -----------------------------------------------------------------


side = st.lists(st.tuples(st.integers(0, 20).map(lambda i: i / 20), st.integers(0, 4)), min_size=3, max_size=9)


@settings(max_examples=400, deadline=None)
@given(side, side, st.integers(-6, 6).map(lambda i: i / 20))
def test_the_step_is_the_rule_written_out(old, new, lift):
    """Random segments (a lift on the newer side makes moves common; an upper bound on some runs)."""
    a = [run(v, conf=A, judge_upper=min(1.0, v + u / 10) if u == 4 else None) for v, u in old]
    b = [
        run(min(1.0, max(0.0, v + lift)), conf=B, judge_upper=min(1.0, max(0.0, v + lift) + u / 10) if u == 4 else None)
        for v, u in new
    ]
    step = only_cell(progress_of(a + b)).newest_step
    for series, values, uppers in (
        ("overall", "overall", "overall_upper"),
        ("checks", "deterministic", "deterministic"),
        ("judge", "judge", "judge"),
    ):
        x, y = [getattr(r, values) for r in a], [getattr(r, values) for r in b]
        if series == "judge":
            xu = [r.judge_upper if r.judge_upper is not None else r.judge for r in a]
            yu = [r.judge_upper if r.judge_upper is not None else r.judge for r in b]
        else:
            xu, yu = [getattr(r, uppers) for r in a], [getattr(r, uppers) for r in b]
        got = step.series(series)
        assert (got.verdict, got.reasons, got.shift, got.ci99, got.ci90, got.steady_within) == ref_step(
            series, x, y, xu, yu
        )


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.integers(0, 12).map(lambda i: i / 12), min_size=5, max_size=12),
    st.lists(st.integers(0, 12).map(lambda i: i / 12), min_size=5, max_size=12),
    st.sampled_from(SCORE_SERIES),
    st.booleans(),
)
def test_a_guard_settled_from_the_steps_own_bounds_is_the_recomputation(x, y, series, from_newer):
    """_kept decides "the move stays without this run" from D(j) ≤ D'(j) ≤ D(j + r) when it can:
    whatever it decides must be what computing the smaller step decides."""
    xs, ys = Sample.of(x), Sample.of(y)
    diffs = Differences(xs, ys)
    for verdict in ("improved", "regressed"):
        if from_newer:
            smaller, m, n, expect = (lambda: (xs, ys.without(y[-1]))), len(x), len(y) - 1, ref_move(series, x, y[:-1])
        else:
            smaller, m, n, expect = (lambda: (xs.without(x[-1]), ys)), len(x) - 1, len(y), ref_move(series, x[:-1], y)
        assert _kept(DELTA[series], diffs, verdict, m, n, smaller) == (expect == verdict)


def test_a_guard_settled_without_recomputing():
    """A clear move keeps its verdict from the step's own order statistics, never building the smaller step."""
    xs, ys = Sample.of(LOW), Sample.of(HIGH)

    def never():
        raise AssertionError("recomputed")

    diffs = Differences(xs, ys)
    assert _kept(DELTA["overall"], diffs, "improved", 8, 7, never)
    assert _kept(DELTA["overall"], Differences(ys, xs), "regressed", 7, 8, never)
