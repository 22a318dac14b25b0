"""podium.count.verdicts: cells, segments, steps, verdicts, guards, attribution, agent steps, the document.

One small fixture per verdict and per guard (progress rules §2, §3), the counting of §1,
the readings of §7 and of the module docstring, the mission-mix trap, and the whole step
against the rule written out with brute force (hypothesis).
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from fractions import Fraction
from itertools import count
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podium.count import verdicts as vd
from podium.count.ranktests import Differences, moses_k
from podium.count.verdicts import Configuration, ProgressRun, agent_progress, headline, progress_document

T0 = datetime(2026, 9, 1, tzinfo=UTC)
A = Configuration("v1", "model-a", "judge-1", 1800.0)
B = Configuration("v2", "model-a", "judge-1", 1800.0)
C = Configuration("v3", "model-a", "judge-1", 1800.0)
B_NEW_JUDGE = Configuration("v2", "model-a", "judge-2", 1800.0)
_serial = count(1)
_clock = count(0)


def run(
    score=None,
    *,
    det=None,
    judge=None,
    conf=A,
    kind="graded",
    mission="jwt",
    version="1.0.0",
    current=True,
    started="next",
    judge_upper=None,
    run_id=None,
    **extra,
) -> ProgressRun:
    """A run at the next minute; ``score`` sets both halves (and so the overall) alike."""
    scored = kind in ("graded", "partial_judge", "timed_out", "no_judge", "stopped")
    if scored and score is None and det is None:
        score = 0.5
    det = score if det is None else det
    judge = score if judge is None else judge
    if kind == "no_judge":
        judge = None
    overall = None
    if scored:
        overall = 0.5 * det + 0.5 * (judge or 0.0)
    partial = judge_upper is not None
    fields = dict(
        run_id=run_id or f"{next(_serial):032x}",
        mission=mission,
        version=version,
        current=current,
        started=T0 + timedelta(minutes=next(_clock)) if started == "next" else started,
        kind=kind,
        overall=overall,
        overall_upper=(0.5 * det + 0.5 * judge_upper) if partial else overall,
        deterministic=det if scored else None,
        judge=judge if scored else None,
        judge_upper=judge_upper,
        judge_status="partial" if partial else ("unavailable" if kind == "no_judge" else "ok"),
        configuration=conf,
    )
    fields.update(extra)
    return ProgressRun(**fields)


def runs_of(scores, **kw) -> list[ProgressRun]:
    return [run(s, **kw) for s in scores]


def only_cell(progress):
    assert len(progress.cells) == 1
    return progress.cells[0]


def progress_of(runs, agent="a1"):
    return agent_progress(agent, "Kestrel", "kestrel", runs)


LOW = [0.30, 0.32, 0.28, 0.31, 0.29, 0.33, 0.30, 0.27]
HIGH = [0.60, 0.62, 0.58, 0.61, 0.59, 0.63, 0.60, 0.57]


# --- verdicts of one series at one step (§2) --------------------------------------------------


def test_improved():
    cell = only_cell(progress_of(runs_of(LOW, conf=A) + runs_of(HIGH, conf=B)))
    step = cell.newest_step
    for name in vd.SERIES:
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
    assert [step.series(s).verdict for s in vd.SERIES] == ["regressed"] * 3
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
    for name in vd.SERIES:
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
    for name in vd.SERIES:
        s = step.series(name)
        assert (s.verdict, s.reasons, s.steady_within) == ("unclear", ("just_crossed",), None)
        assert round(s.shift, 6) >= vd.DELTA[name] and s.ci99[0] > 0  # a move before the guard


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


# --- §1: cells, segments, counting ------------------------------------------------------------------


def test_left_out_runs_counted_in_their_segment_or_unplaced():
    runs = (
        runs_of(LOW, conf=A)
        + [run(0.2, conf=A, kind="stopped"), run(kind="infra_failed", conf=A), run(kind="infra_failed", conf=A)]
        + runs_of(HIGH, conf=B)
        + [run(kind="grading", conf=B)]
        + [run(kind="unknown", conf=None), run(kind="grading_failed", conf=C), run(kind="infra_failed", conf=None)]
    )
    cell = only_cell(progress_of(runs))
    assert [dict(s.left_out) for s in cell.segments] == [{"stopped": 1, "infra_failed": 2}, {"grading": 1}]
    assert dict(cell.left_out_unplaced) == {"infra_failed": 1, "grading_failed": 1, "unknown": 1}
    assert [dict(s.runs) for s in cell.segments] == [{"overall": 8, "checks": 8, "judge": 8}] * 2


def test_a_left_out_run_before_its_configurations_first_counted_run_is_still_placed():
    runs = [run(kind="infra_failed", conf=B)] + runs_of(LOW, conf=A) + runs_of(HIGH, conf=B)
    cell = only_cell(progress_of(runs))
    assert dict(cell.segments[1].left_out) == {"infra_failed": 1} and not cell.left_out_unplaced


def test_counted_runs_without_conditions_are_one_null_configuration():
    runs = runs_of(LOW, conf=None) + [run(kind="stopped", conf=None), run(kind="stopped", conf=vd.NO_CONDITIONS)]
    cell = only_cell(progress_of(runs))
    assert cell.segments[0].configuration == Configuration(None, None, None, None)
    # the left-out run with no readable conditions is unplaced; the one with null fields is placed
    assert dict(cell.segments[0].left_out) == {"stopped": 1} and dict(cell.left_out_unplaced) == {"stopped": 1}
    doc = progress_document(progress_of(runs))
    assert doc["cells"][0]["segments"][0]["configuration"] == {
        "agent_version": None,
        "model": None,
        "judge_model": None,
        "budget_seconds": None,
    }


def test_series_membership_by_kind():
    runs = runs_of([0.5] * 3, conf=A) + [
        run(0.4, conf=A, kind="timed_out"),
        run(0.4, conf=A, kind="partial_judge", judge_upper=0.6),
        run(0.9, conf=A, kind="no_judge"),
        run(0.9, conf=A, kind="stopped"),
    ]
    seg = only_cell(progress_of(runs)).segments[0]
    assert dict(seg.runs) == {"overall": 5, "checks": 6, "judge": 5}
    assert dict(seg.left_out) == {"stopped": 1}
    assert seg.median == 0.5  # the overall series' plain median: 0.4, 0.4, 0.5, 0.5, 0.5


def test_undated_runs_are_in_no_segment_and_no_left_out_count():
    runs = runs_of(LOW, conf=A) + [
        run(0.9, conf=A, started=None),
        run(kind="infra_failed", started=None),
        run(0.1, conf=B, started=None),
    ]
    cell = only_cell(progress_of(runs))
    assert cell.undated == 3
    assert len(cell.segments) == 1 and cell.segments[0].runs["overall"] == 8
    assert not cell.segments[0].left_out and not cell.left_out_unplaced


def test_a_cell_with_only_undated_or_left_out_runs_exists():
    p = progress_of([run(kind="infra_failed", mission="m2"), run(0.5, mission="m3", started=None)])
    assert [(c.mission, len(c.segments), dict(c.left_out_unplaced), c.undated) for c in p.cells] == [
        ("m2", 0, {"infra_failed": 1}, 0),
        ("m3", 0, {}, 1),
    ]
    assert p.segments == () and p.steps == () and p.newest_segment is None
    assert headline(p)["reason"] == "no_counted_runs"


def test_rollback_adds_to_the_earlier_segment():
    runs = runs_of(LOW, conf=A) + runs_of(HIGH, conf=B) + runs_of([0.31, 0.3], conf=A)
    cell = only_cell(progress_of(runs))
    assert [s.configuration for s in cell.segments] == [A, B]
    assert cell.segments[0].runs["overall"] == 10
    assert cell.segments[0].last_run_id == runs[-1].run_id and cell.segments[0].first_run_id == runs[0].run_id
    assert cell.newest_segment == 0  # the page says the newest run belongs to an earlier segment
    assert cell.newest_step.to == B and len(cell.steps) == 1


def test_alternating_models_make_two_segments_not_forty():
    one, two = replace(A, model="model-x"), replace(A, model="model-y")
    runs = [run(0.3 + 0.01 * (i % 3), conf=one if i % 2 else two) for i in range(40)]
    cell = only_cell(progress_of(runs))
    assert [s.configuration.model for s in cell.segments] == ["model-y", "model-x"]
    assert [s.runs["overall"] for s in cell.segments] == [20, 20]
    assert len(cell.steps) == 1 and cell.steps[0].changed == ("model",)


def test_older_versions_are_cells_of_their_own_and_no_part_of_agent_segments():
    runs = (
        runs_of(LOW, conf=A, version="1.0.0", current=False)
        + runs_of(HIGH, conf=B, version="1.0.0", current=False)
        + runs_of(LOW, conf=C, version="1.2.0")
    )
    p = progress_of(runs)
    assert [(c.version, c.current, len(c.steps)) for c in p.cells] == [("1.0.0", False, 1), ("1.2.0", True, 0)]
    assert [s.configuration for s in p.segments] == [C]  # only current versions
    assert headline(p)["reason"] == "one_configuration" and headline(p)["verdict"] is None


def test_cells_sorted_by_mission_then_version_oldest_first():
    runs = [
        run(0.5, mission=m, version=v, current=cur)
        for m, v, cur in [
            ("b", "1.10.0", True),
            ("b", "1.9.0", False),
            ("a", "r3", False),
            ("a", "2.0.0", True),
            ("b", "1.9.1", False),
        ]
    ]
    assert [(c.mission, c.version) for c in progress_of(runs).cells] == [
        ("a", "r3"),
        ("a", "2.0.0"),
        ("b", "1.9.0"),
        ("b", "1.9.1"),
        ("b", "1.10.0"),
    ]


def test_runs_are_ordered_by_start_then_run_id():
    t = T0 + timedelta(hours=1)
    late = run(0.9, conf=B, started=t, run_id="f" * 32)
    early = run(0.9, conf=A, started=t, run_id="0" * 32)  # the same instant: the run id decides
    other_zone = run(0.5, conf=C, started=(t - timedelta(microseconds=1)).astimezone(timezone(timedelta(hours=5))))
    cell = only_cell(progress_of([late, early, other_zone]))
    assert [s.configuration for s in cell.segments] == [C, A, B]


def test_instants_one_float_apart_keep_their_order():
    """In the year 9000 a float timestamp cannot tell two microseconds apart: the exact start decides."""
    t = datetime(9000, 1, 1, tzinfo=UTC)
    assert (t + timedelta(microseconds=1)).timestamp() == t.timestamp()
    later = run(0.5, conf=A, started=t + timedelta(microseconds=1), run_id="0" * 32)
    earlier = run(0.5, conf=B, started=t, run_id="f" * 32)
    cell = only_cell(progress_of([later, earlier]))
    assert [s.configuration for s in cell.segments] == [B, A]


def test_agent_segments_ordered_by_first_run_over_all_current_cells():
    runs = (
        runs_of([0.5] * 3, conf=B, mission="m2")
        + runs_of([0.5] * 3, conf=A, mission="m2")
        + runs_of([0.5] * 3, conf=A, mission="m1")
        + runs_of([0.5] * 3, conf=C, mission="m1")
    )
    p = progress_of(runs)
    assert [s.configuration for s in p.segments] == [B, A, C]
    assert [dict(s.runs) for s in p.segments] == [
        {"overall": 3, "checks": 3, "judge": 3},
        {"overall": 6, "checks": 6, "judge": 6},
        {"overall": 3, "checks": 3, "judge": 3},
    ]
    # A's first run is in m2, its last in m1 (cells are read m1 first)
    assert p.segments[1].first_run_id == runs[3].run_id and p.segments[1].last_run_id == runs[8].run_id
    # m2's cell has B before A; the agent step A → C has m1 only as a stratum, B → A has m2 only
    assert [[(s.mission) for s in step.overall.strata] for step in p.steps] == [["m2"], ["m1"]]
    assert p.newest_segment == 2


# --- §4: shifts in a cell --------------------------------------------------------------------------------


def test_a_shift_with_no_named_cause_is_published_with_its_start_run():
    rng = random.Random(15)
    runs = runs_of(
        [round(rng.uniform(0.3, 0.4), 3) for _ in range(15)] + [round(rng.uniform(0.6, 0.7), 3) for _ in range(15)],
        conf=A,
    )
    cell = only_cell(progress_of(runs))
    assert [(s.segment, s.start_run_id) for s in cell.shifts] == [(0, runs[15].run_id)]
    assert cell.shifts[0].interval[0] > 0 and cell.shifts[0].shift >= 0.2
    doc = progress_document(progress_of(runs))["cells"][0]["shifts"][0]
    assert doc["unexplained"] is True and doc["segment"] == 0 and len(doc["interval"]) == 2


def test_shifts_are_searched_on_the_overall_series_per_segment_and_listed_in_time_order():
    rng = random.Random(4)
    low = [round(rng.uniform(0.3, 0.4), 3) for _ in range(12)]
    high = [round(rng.uniform(0.6, 0.7), 3) for _ in range(12)]
    first_a, first_b = runs_of(low, conf=A), runs_of(low, conf=B)
    # A jumps late, B jumps early (B's jump comes first in time)
    runs = first_a[:6] + first_b + runs_of(high, conf=B) + first_a[6:] + runs_of(high, conf=A)
    runs = [replace(r, started=T0 + timedelta(minutes=i)) for i, r in enumerate(runs)]
    cell = only_cell(progress_of(runs))
    assert [(s.segment, s.start_run_id) for s in cell.shifts] == [(1, runs[18].run_id), (0, runs[36].run_id)]


def test_no_shift_in_a_flat_segment_or_on_the_checks_alone():
    rng = random.Random(9)
    runs = [run(det=0.5 + rng.uniform(-0.05, 0.05), judge=0.5 if i < 20 else 0.52, conf=A) for i in range(40)]
    assert only_cell(progress_of(runs)).shifts == ()


# --- §3: agent steps ---------------------------------------------------------------------------------------


def agent_fixture(per_mission):
    """per_mission: {mission: (old scores, new scores)} for configurations A → B, interleaved in time."""
    runs = []
    for mission, (old, _) in per_mission.items():
        runs += runs_of(old, conf=A, mission=mission)
    for mission, (_, new) in per_mission.items():
        runs += runs_of(new, conf=B, mission=mission)
    return progress_of(runs)


def test_agent_step_improved_with_its_tally():
    p = agent_fixture({"m1": (LOW, HIGH), "m2": (LOW, HIGH), "m3": (HIGH, HIGH)})
    step = p.newest_step
    assert (step.overall.verdict, step.overall.reasons) == ("improved", ())
    assert dict(step.overall.tally) == {"improved": 2, "steady": 1}
    assert step.overall.p < 0.01 and step.overall.z > 0
    assert [s.mission for s in step.overall.strata] == ["m1", "m2", "m3"]
    # the shift: Σ v_s shift_s / Σ v_s, v_s = 8·8/16 alike
    shifts = [s.step.shift for s in step.overall.strata]
    assert step.overall.shift == pytest.approx(sum(shifts) / 3)
    # the strata are the cells' own steps
    for stratum in step.overall.strata:
        assert stratum.step == p.cell(stratum.mission, "1.0.0").newest_step.overall
    assert dict(step.judge.tally) == {"improved": 2, "steady": 1}
    h = headline(p)
    assert (h["verdict"], h["changed"], h["tally"], h["strata"], h["segments"]) == (
        "improved",
        ["agent_version"],
        {"improved": 2, "steady": 1},
        3,
        2,
    )
    assert h["to"]["agent_version"] == "v2" and h["from"]["agent_version"] == "v1" and h["reason"] is None


def test_agent_step_mixed_names_the_strata():
    step = agent_fixture({"m1": (LOW, HIGH), "m2": (HIGH, LOW), "m3": (LOW, HIGH)}).newest_step
    assert step.overall.verdict == "mixed" and step.checks.verdict == "mixed"
    assert dict(step.overall.tally) == {"improved": 2, "regressed": 1}
    assert [s.mission for s in step.overall.strata if s.step.verdict == "regressed"] == ["m2"]


def test_agent_step_regressed_and_steady():
    assert agent_fixture({"m1": (HIGH, LOW), "m2": (HIGH, LOW)}).newest_step.overall.verdict == "regressed"
    rng = random.Random(5)
    flat = {
        f"m{i}": (
            [round(0.5 + rng.uniform(-0.03, 0.03), 3) for _ in range(30)],
            [round(0.5 + rng.uniform(-0.03, 0.03), 3) for _ in range(30)],
        )
        for i in range(3)
    }
    flat["m9"] = ([0.5] * 3, [0.2] * 3)  # too few runs: not one of "every such stratum"
    step = agent_fixture(flat).newest_step
    assert step.overall.verdict == "steady"
    assert dict(step.overall.tally) == {"steady": 3, "too_few_runs": 1}


def test_agent_step_improved_with_no_single_stratum_improved():
    """§7: the stratified test pools evidence that no one mission has enough of."""
    step = agent_fixture({f"m{i}": ([0.3, 0.31, 0.29], [0.6, 0.61, 0.59]) for i in range(6)}).newest_step
    assert dict(step.overall.tally) == {"too_few_runs": 6}
    assert step.overall.verdict == "improved" and step.overall.p < 0.01


def test_agent_step_too_few_runs():
    step = agent_fixture({"m1": ([0.3, 0.3], LOW), "m2": (LOW, [0.6, 0.6])}).newest_step
    assert step.overall.verdict == "too_few_runs"  # Σ min(m_s, n_s) = 2 + 2 < 5
    assert dict(step.overall.tally) == {"too_few_runs": 2}


def test_agent_step_unclear_when_p_is_not_small():
    step = agent_fixture({"m1": ([0.1, 0.9, 0.5, 0.3, 0.7], [0.2, 0.8, 0.6, 0.4, 0.95])}).newest_step
    assert step.overall.verdict == "unclear" and step.overall.p > 0.01


def test_agent_step_not_comparable_on_the_overall_only():
    runs = runs_of(LOW, conf=A) + runs_of(HIGH, conf=B_NEW_JUDGE)
    step = progress_of(runs).newest_step
    assert (step.overall.verdict, step.checks.verdict) == ("not_comparable", "improved")
    assert step.changed == ("agent_version", "judge_model")


def test_agent_step_partial_judge():
    runs = [run(s, conf=A, judge_upper=0.95) for s in LOW] + runs_of(HIGH, conf=B)
    runs += [run(s, conf=A, mission="m2", judge_upper=0.95) for s in LOW] + runs_of(HIGH, conf=B, mission="m2")
    step = progress_of(runs).newest_step
    assert (step.overall.verdict, step.overall.reasons) == ("unclear", ("partial_judge",))
    assert step.checks.verdict == "improved"


def test_the_judge_series_publishes_strata_and_tally_only():
    doc = progress_document(agent_fixture({"m1": (LOW, HIGH)}))
    assert set(doc["steps"][0]["judge"]) == {"strata", "tally"}


def test_the_mission_mix_trap():
    """The new configuration ran mostly on an easy mission, the old one mostly on a hard one;
    on each mission nothing changed. Pooled, it looks like a big improvement; stratified, not."""
    rng = random.Random(11)

    def hard():
        return round(rng.uniform(0.15, 0.30), 3)

    def easy():
        return round(rng.uniform(0.75, 0.90), 3)

    old = {"hard": [hard() for _ in range(30)], "easy": [easy() for _ in range(6)]}
    new = {"hard": [hard() for _ in range(6)], "easy": [easy() for _ in range(30)]}
    runs = []
    for mission, scores in old.items():
        runs += runs_of(scores, conf=A, mission=mission)
    for mission, scores in new.items():
        runs += runs_of(scores, conf=B, mission=mission)
    # the pooled comparison of all runs, written out: every verdict of §2 says improved
    pooled_x = [0.5 * s + 0.5 * s for s in old["hard"] + old["easy"]]
    pooled_y = [0.5 * s + 0.5 * s for s in new["hard"] + new["easy"]]
    pooled = Differences.of(pooled_x, pooled_y)
    lo, _ = pooled.interval(Fraction(1, 100))
    assert lo > 0 and pooled.shift() >= 0.05  # "improved", pooled
    step = progress_of(runs).newest_step
    assert step.overall.verdict != "improved" and step.checks.verdict != "improved"
    assert step.overall.p > 0.01
    assert abs(step.overall.shift) < 0.05
    assert "improved" not in step.overall.tally


# --- order, guards against input, the document ---------------------------------------------------------------


def mixed_fixture():
    rng = random.Random(21)
    runs = []
    for mission in ("m1", "m2", "m3"):
        for conf, base in ((A, 0.3), (B, 0.5), (C, 0.45)):
            for _ in range(14):
                kind = rng.choice(
                    ["graded"] * 6 + ["timed_out", "no_judge", "stopped", "infra_failed", "partial_judge"]
                )
                s = round(min(1, max(0, base + rng.uniform(-0.1, 0.1))), 3)
                runs.append(
                    run(
                        s,
                        conf=conf,
                        mission=mission,
                        kind=kind,
                        judge_upper=min(1, s + 0.2) if kind == "partial_judge" else None,
                    )
                )
    runs += [run(0.4, mission="m1", started=None), run(kind="unknown", conf=None, mission="m2")]
    return runs


def test_the_order_of_the_runs_changes_nothing():
    runs = mixed_fixture()
    expected = json.dumps(progress_document(progress_of(runs)), sort_keys=True)
    for seed in range(3):
        shuffled = runs[:]
        random.Random(seed).shuffle(shuffled)
        assert json.dumps(progress_document(progress_of(shuffled)), sort_keys=True) == expected


def test_shuffling_runs_inside_a_segment_changes_only_what_time_order_decides():
    """Values reordered inside a segment (same times, values permuted): shift, intervals and
    verdicts before the guards are the same; the series are kept in time order."""
    base = runs_of(LOW, conf=A) + runs_of(HIGH, conf=B)
    permuted = base[:]
    values = [r.overall for r in base[8:]]
    random.Random(3).shuffle(values)
    for i, v in enumerate(values):
        permuted[8 + i] = replace(base[8 + i], overall=v, overall_upper=v, deterministic=v, judge=v)
    one = only_cell(progress_of(base)).newest_step.overall
    two = only_cell(progress_of(permuted)).newest_step.overall
    assert (one.shift, one.ci99, one.ci90, one.delta_median) == (two.shift, two.ci99, two.ci90, two.delta_median)
    assert one.verdict == two.verdict == "improved"


@pytest.mark.parametrize(
    "change, field",
    [
        (dict(started=datetime(2026, 9, 1)), "started"),
        (dict(overall=None), "overall"),
        (dict(judge=1.5), "judge"),
        (dict(deterministic="0.5"), "deterministic"),
        (dict(kind="not_a_run"), "kind"),
        (dict(run_id=None), "run_id"),
        (dict(current=False), "current"),
        (dict(judge_upper=0.1, judge_status="partial"), "judge_upper"),
    ],
)
def test_bad_input_names_the_run_and_the_field(change, field):
    runs = runs_of(LOW, conf=A)
    runs[3] = replace(runs[3], **change)
    with pytest.raises(ValueError) as caught:
        progress_of(runs)
    message = str(caught.value)
    assert f": {field}:" in message and "jwt 1.0.0" in message
    if field != "current":
        assert repr(runs[3].run_id) in message


def test_any_run_id_is_counted():
    """A run the export identifies only by its directory has the directory's 8 hex digits for an id, and two
    exports may each hold a run of one id: both are counted, never refused (the build must not stop)."""
    runs = runs_of(LOW, conf=A)
    runs[0] = replace(runs[0], run_id="dc8ffdbf")
    twin = replace(runs[2], started=T0 + timedelta(days=3))
    cell = only_cell(progress_of(runs + [twin]))
    assert cell.segments[0].runs["overall"] == len(LOW) + 1
    assert cell.segments[0].first_run_id == "dc8ffdbf"


def test_the_document_has_the_keys_of_section_6():
    p = progress_of(mixed_fixture())
    doc = progress_document(p)
    json.dumps(doc, allow_nan=False)
    assert set(doc) == {"schema", "agent", "name", "slug", "method", "headline", "segments", "steps", "cells"}
    assert doc["schema"] == "podium.progress/1" and (doc["agent"], doc["name"], doc["slug"]) == (
        "a1",
        "Kestrel",
        "kestrel",
    )
    assert doc["method"] == {
        "alpha_change": 0.01,
        "alpha_steady": 0.1,
        "n_min": 5,
        "exact_max": 50,
        "delta": {"overall": 0.05, "checks": 0.1, "judge": 0.1},
        "steady_bands": {"overall": [0.05, 0.1], "checks": [0.1, 0.2], "judge": [0.1, 0.2]},
        "shift_alpha": "0.01/(n-9)",
        "shift_delta": 0.05,
    }
    assert set(doc["headline"]) == {"verdict", "shift", "changed", "tally"}
    conf = {"agent_version", "model", "judge_model", "budget_seconds"}
    step_keys = {"verdict", "reasons", "shift", "delta_median", "ci99", "ci90", "steady_within", "m", "n"}
    for seg in doc["segments"]:
        assert (
            set(seg) == {"configuration", "first_run_id", "last_run_id", "runs"} and set(seg["configuration"]) == conf
        )
    for step in doc["steps"]:
        assert set(step) == {"from", "to", "changed", "overall", "checks", "judge"}
        for name in ("overall", "checks"):
            assert set(step[name]) == {"verdict", "reasons", "shift", "z", "p", "tally", "strata"}
            for stratum in step[name]["strata"]:
                assert set(stratum) == {"mission", "version"} | step_keys
    for cell in doc["cells"]:
        assert set(cell) == {
            "mission",
            "version",
            "current",
            "segments",
            "steps",
            "shifts",
            "left_out_unplaced",
            "undated",
        }
        for seg in cell["segments"]:
            assert set(seg) == {"configuration", "first_run_id", "last_run_id", "runs", "left_out", "median"}
        for step in cell["steps"]:
            assert set(step) == {"from", "to", "changed", "overall", "checks", "judge", "attribution"}
            for name in vd.SERIES:
                assert set(step[name]) == step_keys
                for pair in ("ci99", "ci90"):
                    assert step[name][pair] is None or isinstance(step[name][pair], list)
    assert doc["headline"] == {k: headline(p)[k] for k in ("verdict", "shift", "changed", "tally")}
    assert len(doc["steps"]) == len(doc["segments"]) - 1


SCHEMA = json.loads((Path(vd.__file__).parents[1] / "progress.schema.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("fixture", ["mixed", "agent", "partial", "empty", "one"])
def test_the_document_matches_progress_schema_json(fixture):
    runs = {
        "mixed": mixed_fixture,
        "agent": lambda: [
            r for m in ("m1", "m2") for r in runs_of(LOW, conf=A, mission=m) + runs_of(HIGH, conf=B, mission=m)
        ],
        "partial": lambda: [run(s, conf=A, judge_upper=0.95) for s in LOW[:5]] + runs_of(HIGH[:5], conf=B_NEW_JUDGE),
        "empty": lambda: [run(kind="infra_failed", conf=None)],
        "one": lambda: runs_of(LOW, conf=A),
    }[fixture]()
    doc = json.loads(json.dumps(progress_document(progress_of(runs)), allow_nan=False))
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)


def test_the_schema_refuses_what_the_document_never_holds():
    doc = json.loads(json.dumps(progress_document(progress_of(mixed_fixture()))))
    validator = jsonschema.Draft202012Validator(SCHEMA)
    doc["cells"][0]["steps"][0]["overall"]["verdict"] = "mixed"  # a cell step is never mixed
    assert not validator.is_valid(doc)


def test_counts_of_zero_are_omitted():
    doc = progress_document(progress_of(runs_of(LOW, conf=A) + runs_of(HIGH, conf=B)))
    cell = doc["cells"][0]
    assert cell["left_out_unplaced"] == {} and cell["segments"][0]["left_out"] == {}
    assert doc["steps"][0]["overall"]["tally"] == {"improved": 1}


def test_headline_with_one_configuration_or_none():
    one = headline(progress_of(runs_of(LOW, conf=A)))
    assert one == {
        "verdict": None,
        "shift": None,
        "changed": [],
        "tally": {},
        "reason": "one_configuration",
        "reasons": [],
        "from": None,
        "to": A.as_json(),
        "strata": 0,
        "segments": 1,
    }
    assert headline(progress_of([]))["reason"] == "no_counted_runs"


def test_glyphs_and_words():
    assert {v: g for v, (g, _) in vd.VERDICT_SIGNS.items()} == {
        "improved": "▲",
        "regressed": "▼",
        "steady": "=",
        "mixed": "◆",
        "unclear": "?",
        "too_few_runs": "…",
        "not_comparable": "≠",
    }
    assert all(word for _, word in vd.VERDICT_SIGNS.values())
    assert set(vd.VERDICT_SIGNS) == set(vd.VERDICTS)


# --- the whole step against the rule written out -----------------------------------------------------------------


def ref_verdict(series, judge_changed, x, y):
    """§2 steps 1–5 by brute force: (verdict, steady_within, shift, ci99, ci90)."""
    m, n = len(x), len(y)
    d = sorted(b - a for a in x for b in y)
    shift = ci99 = ci90 = None
    if d:
        t = len(d)
        shift = d[t // 2] if t % 2 else (d[t // 2 - 1] + d[t // 2]) / 2
        for alpha in (Fraction(1, 100), Fraction(1, 10)):
            k = moses_k(m, n, alpha)
            interval = None if k is None else (d[k - 1], d[t - k])
            if alpha == Fraction(1, 100):
                ci99 = interval
            else:
                ci90 = interval
    delta = vd.DELTA[series]
    if judge_changed and series != "checks":
        return "not_comparable", None, shift, ci99, ci90
    if m < 5 or n < 5:
        return "too_few_runs", None, shift, ci99, ci90
    if ci99 and round(ci99[0], 6) > 0 and round(shift, 6) >= delta:
        return "improved", None, shift, ci99, ci90
    if ci99 and round(ci99[1], 6) < 0 and round(shift, 6) <= -delta:
        return "regressed", None, shift, ci99, ci90
    for within in (delta, 2 * delta):
        if ci90 and round(ci90[0], 6) >= -within and round(ci90[1], 6) <= within:
            return "steady", within, shift, ci99, ci90
    return "unclear", None, shift, ci99, ci90


def ref_step(series, x, y, xu, yu):
    verdict, within, shift, ci99, ci90 = ref_verdict(series, False, x, y)
    reasons = []
    if verdict in ("improved", "regressed"):
        if series != "checks" and ref_verdict(series, False, xu, yu)[0] != verdict:
            reasons.append("partial_judge")
        if ref_verdict(series, False, x, y[:-1])[0] != verdict or ref_verdict(series, False, x[:-1], y)[0] != verdict:
            reasons.append("just_crossed")
        if reasons:
            verdict, within = "unclear", None
    return verdict, tuple(reasons), shift, ci99, ci90, within


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


def ref_move(series, x, y):
    verdict = ref_verdict(series, False, x, y)[0]
    return verdict if verdict in ("improved", "regressed") else None


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.integers(0, 12).map(lambda i: i / 12), min_size=5, max_size=12),
    st.lists(st.integers(0, 12).map(lambda i: i / 12), min_size=5, max_size=12),
    st.sampled_from(vd.SERIES),
    st.booleans(),
)
def test_a_guard_settled_from_the_steps_own_bounds_is_the_recomputation(x, y, series, from_newer):
    """_kept decides "the move stays without this run" from D(j) ≤ D'(j) ≤ D(j + r) when it can:
    whatever it decides must be what computing the smaller step decides."""
    from podium.count.ranktests import Sample

    xs, ys = Sample.of(x), Sample.of(y)
    diffs = Differences(xs, ys)
    for verdict in ("improved", "regressed"):
        if from_newer:
            smaller, m, n, expect = (lambda: (xs, ys.without(y[-1]))), len(x), len(y) - 1, ref_move(series, x, y[:-1])
        else:
            smaller, m, n, expect = (lambda: (xs.without(x[-1]), ys)), len(x) - 1, len(y), ref_move(series, x[:-1], y)
        assert vd._kept(series, diffs, verdict, m, n, smaller) == (expect == verdict)


def test_a_guard_settled_without_recomputing():
    """A clear move keeps its verdict from the step's own order statistics, never building the smaller step."""
    from podium.count.ranktests import Sample

    xs, ys = Sample.of(LOW), Sample.of(HIGH)

    def never():
        raise AssertionError("recomputed")

    diffs = Differences(xs, ys)
    assert vd._kept("overall", diffs, "improved", 8, 7, never)
    assert vd._kept("overall", Differences(ys, xs), "regressed", 7, 8, never)


def test_agent_step_with_no_decided_stratum_is_not_steady():
    # every stratum too small for a verdict, and nothing moves: not steady (steady must be earned)
    step = agent_fixture({f"m{i}": ([0.5, 0.52, 0.48], [0.5, 0.51, 0.49]) for i in range(3)}).newest_step
    assert dict(step.overall.tally) == {"too_few_runs": 3}
    assert step.overall.verdict == "unclear"


def test_agent_shift_weights_strata_by_mn_over_n():
    step = agent_fixture({"m1": (LOW, HIGH), "m2": (LOW[:5], [0.35] * 3), "m3": ([0.5] * 7, [0.52] * 9)}).newest_step
    strata = step.overall.strata
    v = [s.step.m * s.step.n / (s.step.m + s.step.n) for s in strata]
    assert step.overall.shift == pytest.approx(sum(w * s.step.shift for w, s in zip(v, strata)) / sum(v), rel=1e-12)
    assert step.overall.shift != pytest.approx(sum(s.step.shift for s in strata) / 3, rel=1e-3)


def test_agent_step_no_improvement_while_a_stratum_regressed():
    """Pooled evidence says improved (p < 0.01, shift ≥ delta), but one mission regressed: unclear."""
    per = {f"m{i}": ([0.3, 0.31, 0.29], [0.6, 0.61, 0.59]) for i in range(8)}
    per["z"] = (HIGH, LOW)
    step = agent_fixture(per).newest_step
    assert dict(step.overall.tally) == {"too_few_runs": 8, "regressed": 1}
    assert step.overall.p < 0.01 and step.overall.shift >= 0.05
    assert step.overall.verdict == "unclear"


# --- budgets are a mission's (the reading in verdicts._agent_keys) -----------------------------


def _on(budget: float, version: str) -> Configuration:
    return Configuration(version, "model-a", "judge-1", budget)


def test_missions_with_budgets_of_their_own_are_one_agent_configuration():
    """XORCISE sets the budget per mission: an agent whose two missions have 1,800 s and 3,600 s is one
    configuration across them, and its version change is one step compared on both missions."""
    runs = (
        runs_of(LOW, conf=_on(1800.0, "v1"), mission="jwt")
        + runs_of(LOW, conf=_on(3600.0, "v1"), mission="smb")
        + runs_of(HIGH, conf=_on(1800.0, "v2"), mission="jwt")
        + runs_of(HIGH, conf=_on(3600.0, "v2"), mission="smb")
    )
    progress = progress_of(runs)
    assert len(progress.segments) == 2 and len(progress.steps) == 1
    step = progress.steps[0]
    assert step.changed == ("agent_version",)
    assert [(s.mission, s.step.verdict) for s in step.overall.strata] == [("jwt", "improved"), ("smb", "improved")]
    assert step.overall.verdict == "improved"
    # the published configuration has no one budget: its missions have two
    assert step.from_.budget_seconds is None and step.to.budget_seconds is None
    assert progress_document(progress)["segments"][0]["configuration"]["budget_seconds"] is None


def test_a_budget_changed_on_one_mission_is_a_step_there_only():
    runs = (
        runs_of(LOW, conf=_on(1800.0, "v1"), mission="jwt")
        + runs_of(LOW, conf=_on(3600.0, "v1"), mission="smb")
        + runs_of(HIGH, conf=_on(2700.0, "v1"), mission="jwt")
    )
    progress = progress_of(runs)
    assert len(progress.steps) == 1
    step = progress.steps[0]
    assert step.changed == ("budget_seconds",)
    assert [s.mission for s in step.overall.strata] == ["jwt"]
    assert step.to.budget_seconds == 2700.0  # the new configuration runs on one mission: its budget


def test_one_budget_everywhere_reads_as_the_plain_rule():
    """With the same budget on every mission, the budget's epochs are the budgets: a change of it everywhere
    is a step with budget_seconds changed, its values published."""
    runs = (
        runs_of(LOW, conf=_on(1800.0, "v1"), mission="jwt")
        + runs_of(LOW, conf=_on(1800.0, "v1"), mission="smb")
        + runs_of(HIGH, conf=_on(3600.0, "v1"), mission="jwt")
        + runs_of(HIGH, conf=_on(3600.0, "v1"), mission="smb")
    )
    step = progress_of(runs).steps[0]
    assert step.changed == ("budget_seconds",)
    assert (step.from_.budget_seconds, step.to.budget_seconds) == (1800.0, 3600.0)
    assert len(step.overall.strata) == 2
