"""counting.md §3-§7 on small inline exports.

Every expected number below is worked out by hand from the spec (the arithmetic
is in the comments), never by calling the code under test. Scores are chosen
as multiples of 1/8 or 1/16 so every sum, mean and midpoint is exact in binary
floating point and can be compared with ``==``.

``g(n, x)`` is a graded run whose two halves are both ``x``, so its overall is
exactly ``0.5*x + 0.5*x = x``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from exportkit import (
    BASE,
    agent_id,
    crash_fallback,
    env_failure,
    graded,
    grading,
    report_md,
    run_id,
)

from podium.count.summarize import summarize
from podium.load.export import load_export
from podium.model import COUNTED_KINDS, UNATTRIBUTED


def board_of(export, **kw):
    return summarize(load_export(export.root), **kw)


def g(n, x, **kw):
    return graded(run_id(n), det=x, judge=x, **kw)


def agent(board, name):
    found = [a for a in board.agents if a.name == name]
    assert len(found) == 1, [a.name for a in board.agents]
    return found[0]


def older(board, name):
    found = [a for a in board.agents_older if a.name == name]
    assert len(found) == 1, [a.name for a in board.agents_older]
    return found[0]


def mission(board, slug, version):
    found = [m for m in board.missions if m.mission == slug and m.version == version]
    assert len(found) == 1, [(m.mission, m.version) for m in board.missions]
    return found[0]


def record(board, rid):
    (found,) = [r for r in board.runs if r.run_id == rid]
    return found


def counts(**nonzero):
    out = dict.fromkeys(COUNTED_KINDS, 0)
    out.update(nonzero)
    return out


def headline_figures(export, name="osprey", **kw):
    export.sidecars()
    return agent(board_of(export, **kw), name).figures


# ================================================================ §3 figures


def test_runs_in_median_and_counts_sum_to_runs(export):
    export.run(g(1, 0.5))
    export.run(g(2, 0.75))
    export.run(graded(run_id(3), judge_status="partial", overall_upper=0.9, judge_upper=0.8))
    export.run(graded(run_id(4), partial_trigger="timeout"))
    export.run(graded(run_id(5), judge_status="unavailable", judge=0.0))
    export.run(graded(run_id(6), partial_trigger="operator"))
    export.run(env_failure(run_id(7), "crashed"))
    export.run(grading(run_id(8)))
    export.run(crash_fallback(run_id(9)))
    export.run(graded(run_id(10), overall=1.7))
    export.run(g(11, 1.0), trigger="cancelled", outcome="cancelled")  # not_a_run: nowhere
    fig = headline_figures(export)
    # 11 directories - 1 not_a_run = 10 runs; median population graded 2 + partial 1 + timeout 1 = 4
    assert fig.runs == 10
    assert fig.in_median == 4
    assert fig.counts == counts(
        graded=2,
        partial_judge=1,
        timed_out=1,
        no_judge=1,
        stopped=1,
        infra_failed=1,
        grading=1,
        grading_failed=1,
        unknown=1,
    )
    assert sum(fig.counts.values()) == fig.runs
    assert list(fig.counts) == list(COUNTED_KINDS)


def test_median_odd(export):
    for n, x in enumerate([1.0, 0.25, 0.5]):
        export.run(g(n, x))
    fig = headline_figures(export)
    # sorted 0.25, 0.5, 1.0 -> the middle one
    assert fig.median == 0.5
    assert fig.median_upper == 0.5


def test_median_even_is_mean_of_middle_two(export):
    for n, x in enumerate([0.75, 0.25, 1.0, 0.5]):
        export.run(g(n, x))
    fig = headline_figures(export)
    # sorted 0.25, 0.5, 0.75, 1.0 -> (0.5 + 0.75) / 2 = 0.625 (the "1,2,3,4 -> 2.5" rule)
    assert fig.median == 0.625
    assert fig.avg_overall == 0.625  # (0.25+0.5+0.75+1.0)/4 = 2.5/4


def test_empty_population_is_null_not_zero(export):
    export.run(graded(run_id(1), judge_status="model-not-configured", judge=0.0))
    export.run(env_failure(run_id(2)))
    fig = headline_figures(export)
    assert fig.runs == 2
    assert fig.in_median == 0
    assert fig.median is None
    assert fig.median_upper is None
    assert fig.median_ci is None
    assert fig.avg_overall is None
    assert fig.best_overall is None


def test_median_upper_with_a_partial_judge(export):
    export.run(g(1, 0.25))
    # partial judge: det 0.75, judge 0.25 -> overall 0.5 (lower bound); upper bound 0.875
    export.run(graded(run_id(2), det=0.75, judge=0.25, judge_status="partial", overall_upper=0.875, judge_upper=1.0))
    export.run(g(3, 0.75))
    fig = headline_figures(export)
    # lows 0.25, 0.5, 0.75 -> 0.5; uppers 0.25, 0.875, 0.75 -> sorted 0.25, 0.75, 0.875 -> 0.75
    assert fig.median == 0.5
    assert fig.median_upper == 0.75
    # avg and best use the lower bound: (0.25+0.5+0.75)/3 = 0.5, best 0.75 (not 0.875)
    assert fig.avg_overall == 0.5
    assert fig.best_overall == 0.75


def test_median_upper_old_grade_without_upper_bound(export):
    # overall_upper null on an old grade: treat it as equal to overall
    export.run(graded(run_id(1), det=0.5, judge=0.5, judge_status="partial", overall_upper=None, judge_upper=None))
    export.run(g(2, 1.0))
    fig = headline_figures(export)
    # lows 0.5, 1.0 -> 0.75; uppers 0.5, 1.0 -> 0.75
    assert fig.median == 0.75
    assert fig.median_upper == 0.75


def test_median_upper_equals_median_without_partial_judge(export):
    # A timed-out ok run and a graded run: no partial judge, so median_upper == median.
    export.run(g(1, 0.25, partial_trigger="timeout"))
    export.run(g(2, 0.5))
    fig = headline_figures(export)
    assert fig.median == 0.375  # (0.25+0.5)/2
    assert fig.median_upper == 0.375


def test_median_ci_null_below_six(export):
    # n = 5: P(B <= 0) = 1/32, 1 - 2/32 = 0.9375 < 0.95 -> no j qualifies
    for n, x in enumerate([0.0, 0.25, 0.5, 0.75, 1.0]):
        export.run(g(n, x))
    # runs outside the population never make it 6
    export.run(graded(run_id(90), judge_status="unavailable", judge=0.0))
    export.run(graded(run_id(91), partial_trigger="operator"))
    fig = headline_figures(export)
    assert fig.in_median == 5
    assert fig.median_ci is None


def test_median_ci_n6(export):
    # n = 6, 2^6 = 64. j=1: P(B<=0) = 1/64, 1 - 2/64 = 0.96875 >= 0.95.
    # j=2: P(B<=1) = (1+6)/64 = 7/64, 1 - 14/64 = 0.78125 < 0.95.  -> j = 1: [x(1), x(6)]
    values = [0.5, 0.125, 1.0, 0.25, 0.875, 0.375]
    for n, x in enumerate(values):
        export.run(g(n, x))
    fig = headline_figures(export)
    # sorted: 0.125 0.25 0.375 0.5 0.875 1.0
    assert fig.median_ci == (0.125, 1.0)
    assert fig.median == 0.4375  # (0.375 + 0.5) / 2


def test_median_ci_n9(export):
    # n = 9, 2^9 = 512. j=1: 1 - 2*1/512 = 0.99609 ok.
    # j=2: P(B<=1) = (1+9)/512 = 10/512; 1 - 20/512 = 0.96094 ok.
    # j=3: P(B<=2) = (1+9+36)/512 = 46/512; 1 - 92/512 = 0.82031 < 0.95. -> j = 2: [x(2), x(8)]
    values = [k / 8 for k in (3, 8, 0, 5, 1, 7, 2, 6, 4)]  # 0, 1/8, ..., 1 shuffled
    for n, x in enumerate(values):
        export.run(g(n, x))
    fig = headline_figures(export)
    # x(i) = (i-1)/8: x(2) = 1/8, x(8) = 7/8; median x(5) = 4/8
    assert fig.median_ci == (0.125, 0.875)
    assert fig.median == 0.5


def test_median_ci_n17(export):
    # n = 17, 2^17 = 131072. C(17,k), k=0..5: 1, 17, 136, 680, 2380, 6188
    # cumulative P(B<=j-1)*2^17: j=1:1  j=2:18  j=3:154  j=4:834  j=5:3214  j=6:9402
    # j=5: 1 - 2*3214/131072 = 1 - 0.049042 = 0.950958 >= 0.95 ok
    # j=6: 1 - 2*9402/131072 = 1 - 0.143463 = 0.856537 < 0.95   -> j = 5: [x(5), x(13)]
    order = [9, 2, 16, 0, 11, 5, 14, 7, 3, 12, 1, 8, 15, 6, 10, 4, 13]
    for n, k in enumerate(order):
        export.run(g(n, k / 16, partial_trigger="timeout" if k % 5 == 0 else None))  # timeouts count too
    fig = headline_figures(export)
    # x(i) = (i-1)/16: x(5) = 4/16 = 0.25, x(13) = 12/16 = 0.75; median x(9) = 0.5
    assert fig.in_median == 17
    assert fig.median_ci == (0.25, 0.75)
    assert fig.median == 0.5


def test_avg_overall_includes_timeouts_excludes_no_judge(export):
    export.run(g(1, 0.75))
    export.run(g(2, 0.25, partial_trigger="timeout"))
    export.run(graded(run_id(3), det=1.0, judge=0.0, judge_status="model-not-configured"))  # 0.5, no judge
    export.run(g(4, 1.0, partial_trigger="operator"))  # stopped at 1.0: not in it
    export.run(graded(run_id(5), det=1.0, judge=0.0, judge_status="unavailable", partial_trigger="timeout"))
    fig = headline_figures(export)
    # population: 0.75 and 0.25 -> avg (0.75+0.25)/2 = 0.5, best 0.75 (not the stopped 1.0)
    assert fig.avg_overall == 0.5
    assert fig.best_overall == 0.75
    assert fig.median == 0.5
    assert fig.in_median == 2


def test_best_overall_is_max_of_population(export):
    for n, x in enumerate([0.125, 0.875, 0.5]):
        export.run(g(n, x))
    export.run(graded(run_id(9), det=0.5, judge=0.75, judge_status="partial", overall_upper=1.0, judge_upper=1.0))
    fig = headline_figures(export)
    # partial judge low = 0.5*0.5 + 0.5*0.75 = 0.625; max(0.125, 0.875, 0.5, 0.625) = 0.875
    assert fig.best_overall == 0.875
    # avg = (0.125+0.875+0.5+0.625)/4 = 2.125/4 = 0.53125
    assert fig.avg_overall == 0.53125


def test_judge_degraded_is_no_judge_count(export):
    export.run(graded(run_id(1), judge_status="model-not-configured", judge=0.0))
    export.run(graded(run_id(2), judge_status="unavailable", judge=0.0))
    export.run(graded(run_id(3), judge_status="unavailable", judge=0.0, partial_trigger="timeout"))
    export.run(graded(run_id(4), judge_status="unavailable", judge=0.0, partial_trigger="operator"))  # stopped
    export.run(crash_fallback(run_id(5)))  # unavailable, but grading_failed
    export.run(g(6, 0.5))
    fig = headline_figures(export)
    assert fig.counts["no_judge"] == 3
    assert fig.judge_degraded == 3
    assert fig.counts["stopped"] == 1
    assert fig.counts["grading_failed"] == 1


def test_completion_and_partial_rate(export):
    export.run(g(1, 0.5))  # done
    export.run(graded(run_id(2), judge_status="model-not-configured", judge=0.0))  # no_judge, done
    export.run(g(3, 0.25, partial_trigger="timeout"))  # timeout
    export.run(g(4, 0.25, partial_trigger="operator"))  # stopped
    export.run(crash_fallback(run_id(5)))  # grading_failed, ended done
    export.run(env_failure(run_id(6), "deploy_failed"))  # not an attempt
    export.run(grading(run_id(7)))  # not an attempt
    export.run(graded(run_id(8), overall=1.7))  # unknown: not an attempt
    export.run(g(9, 1.0), trigger="cancelled", outcome="cancelled")  # not a run at all
    fig = headline_figures(export)
    # runs = 8; attempts = 8 - infra 1 - grading 1 - unknown 1 = 5
    # done: graded, no_judge, grading_failed = 3 -> 3/5; timeout + operator = 2 -> 2/5
    assert fig.runs == 8
    assert fig.completion_rate == 3 / 5
    assert fig.partial_rate == 2 / 5


def test_rates_null_without_attempts(export):
    export.run(env_failure(run_id(1), "deploy_failed"))
    export.run(grading(run_id(2)))
    export.run(graded(run_id(3), overall=-0.1))
    fig = headline_figures(export)
    # attempts = 3 - 1 - 1 - 1 = 0
    assert fig.runs == 3
    assert fig.completion_rate is None
    assert fig.partial_rate is None


def test_rates_stopped_by_run_list_trigger(export):
    export.run(g(1, 0.5), trigger="operator", outcome="partial")  # stopped per runs.json
    export.run(g(2, 0.5))
    fig = headline_figures(export)
    # attempts 2; done 1 -> 0.5; operator 1 -> 0.5
    assert fig.completion_rate == 0.5
    assert fig.partial_rate == 0.5


def test_judge_models_only_where_the_judge_ran(export):
    export.run(graded(run_id(1), judge_model="judge-b"))  # ok
    export.run(
        graded(run_id(2), judge_model="judge-a", judge_status="partial", overall_upper=0.9, judge_upper=0.8)
    )  # partial
    export.run(graded(run_id(3), judge_model="judge-e", partial_trigger="operator"))  # stopped, judge ok: ran
    export.run(graded(run_id(4), judge_model="judge-c", judge_status="unavailable", judge=0.0))  # did not run
    export.run(crash_fallback(run_id(5), judge_model="judge-d"))  # grading failed: did not run
    export.run(graded(run_id(6), judge_model=None))  # ok, but no model named
    export.run(graded(run_id(7), judge_model="judge-b"))  # duplicate
    fig = headline_figures(export)
    assert fig.judge_models == ("judge-a", "judge-b", "judge-e")


def test_models_reported_and_declared(export):
    export.run(graded(run_id(1), model="model-b", models_reported=["m-z", "m-a"]))
    export.run(graded(run_id(2), model="model-a", models_reported=["m-a"]))
    export.run(graded(run_id(3), model="model-b", models_reported=[]))
    fig = headline_figures(export)
    assert fig.models_reported == ("m-a", "m-z")
    assert fig.models_declared == ("model-a", "model-b")


def test_last_run_completed_else_started(export):
    # run 1 starts 09:00, its row says completed 11:00; run 2 starts 10:00 and has no completed time
    export.run(g(1, 0.5), at=0)
    export.rows[-1]["completed_at"] = "2026-10-01T11:00:00Z"
    export.run(g(2, 0.5), at=60)
    export.rows[-1]["completed_at"] = None
    fig = headline_figures(export)
    # when: run 1 = 11:00 (completed), run 2 = 10:00 (started) -> newest 11:00
    assert fig.last_run == "2026-10-01T11:00:00Z"


def test_last_run_started_when_newest(export):
    export.run(g(1, 0.5), at=0)  # 09:00 -> completed 09:20
    export.run(g(2, 0.5), at=180)  # 12:00, no completed time
    export.rows[-1]["completed_at"] = None
    export.run(env_failure(run_id(3)), at=90)  # 10:30 -> completed 10:50 (every kind counts)
    fig = headline_figures(export)
    assert fig.last_run == "2026-10-01T12:00:00Z"


def test_last_run_is_utc_iso_z(export):
    export.run(g(1, 0.5), at=0)
    export.rows[-1]["created_at"] = "2026-10-01T11:00:00+02:00"
    export.rows[-1]["completed_at"] = "2026-10-01T11:30:00+02:00"
    fig = headline_figures(export)
    assert fig.last_run == "2026-10-01T09:30:00Z"


# ================================================================ §4 versions


def on(export, n, version, x=0.5, agent="osprey", mission="m1", **kw):
    """One graded run of ``agent`` on ``mission`` ``version`` (SemVer or r<n>)."""
    if version.startswith("r"):
        body = g(n, x, mission_version=None, install_revision=int(version[1:]), **kw)
    else:
        body = g(n, x, mission_version=version, **kw)
    return export.run(body, agent=agent, mission=mission, version=version)


def currents(board):
    return {(m.mission, m.version): m.current for m in board.missions}


def test_current_is_highest_semver_numerically(export):
    on(export, 1, "1.2.0", 0.25)
    on(export, 2, "1.10.0", 0.75)
    on(export, 3, "1.9.0", 1.0)
    export.sidecars()
    board = board_of(export)
    # 1.10.0 > 1.9.0 > 1.2.0 (numeric, not text order)
    assert currents(board) == {("m1", "1.10.0"): True, ("m1", "1.9.0"): False, ("m1", "1.2.0"): False}
    assert [m.version for m in board.missions] == ["1.10.0", "1.9.0", "1.2.0"]
    fig = agent(board, "osprey").figures
    assert fig.runs == 1
    assert fig.median == 0.75
    assert older(board, "osprey").figures.runs == 2
    assert older(board, "osprey").figures.median == 0.625  # (0.25 + 1.0) / 2


def test_semver_ranks_above_revisions(export):
    on(export, 1, "r12", 1.0)
    on(export, 2, "0.1.0", 0.25)
    export.sidecars()
    board = board_of(export)
    assert record(board, run_id(1)).version == "r12"
    assert currents(board) == {("m1", "0.1.0"): True, ("m1", "r12"): False}
    assert agent(board, "osprey").figures.median == 0.25


def test_revisions_compare_by_number(export):
    on(export, 1, "r9", 1.0)
    on(export, 2, "r10", 0.25)
    export.sidecars()
    board = board_of(export)
    # r10 > r9 (by n, although "r10" < "r9" as text)
    assert currents(board) == {("m1", "r10"): True, ("m1", "r9"): False}
    assert agent(board, "osprey").figures.median == 0.25


def test_current_is_per_mission(export):
    on(export, 1, "2.0.0", 0.5, mission="m1")
    on(export, 2, "1.0.0", 0.25, mission="m1")
    on(export, 3, "1.0.0", 1.0, mission="m2")
    export.sidecars()
    board = board_of(export)
    assert currents(board) == {("m1", "2.0.0"): True, ("m1", "1.0.0"): False, ("m2", "1.0.0"): True}
    fig = agent(board, "osprey").figures
    assert fig.runs == 2
    assert fig.median == 0.75  # (0.5 + 1.0) / 2


def test_configured_current_overrides_highest(export):
    on(export, 1, "1.0.0", 0.25)
    on(export, 2, "2.0.0", 1.0)
    export.sidecars()
    board = board_of(export, configured_current={"m1": "1.0.0"})
    assert currents(board) == {("m1", "1.0.0"): True, ("m1", "2.0.0"): False}
    assert agent(board, "osprey").figures.median == 0.25
    assert older(board, "osprey").figures.median == 1.0
    assert record(board, run_id(2)).older is True
    assert record(board, run_id(1)).older is False
    assert board.problems == ()


def test_configured_current_without_runs_makes_everything_older(export):
    on(export, 1, "1.0.0", 0.25)
    export.sidecars()
    board = board_of(export, configured_current={"m1": "3.0.0", "m-absent": "1.0.0"})
    assert currents(board) == {("m1", "1.0.0"): False}
    assert agent(board, "osprey").figures.median is None
    assert [(p.path, p.field) for p in board.problems] == [("podium.yaml", "missions.m1.current")]


def test_older_runs_excluded_from_headline_present_in_agents_older(export):
    on(export, 1, "2.0.0", 0.25)
    on(export, 2, "1.0.0", 1.0)
    on(export, 3, "1.0.0", 0.75)
    export.run(env_failure(run_id(4)), version="1.0.0")  # older, from the runs.json row
    export.sidecars()
    board = board_of(export)
    head = agent(board, "osprey")
    assert head.scope == "current"
    assert head.figures.runs == 1
    assert head.figures.median == 0.25
    assert head.figures.counts == counts(graded=1)
    old = older(board, "osprey")
    assert old.scope == "older"
    assert old.rank is None
    assert old.figures.runs == 3
    assert old.figures.median == 0.875  # (1.0 + 0.75) / 2
    assert old.figures.counts == counts(graded=2, infra_failed=1)
    assert [(m.mission, m.version, m.current) for m in old.missions] == [("m1", "1.0.0", False)]
    assert [(m.mission, m.version, m.current) for m in head.missions] == [("m1", "2.0.0", True)]
    # the site totals still count every run
    assert board.totals.runs == 4


def test_agent_with_only_older_runs_has_null_median_and_ranks_last(export):
    on(export, 1, "1.0.0", 1.0, agent="alpha")  # alpha would win on the older version
    on(export, 2, "2.0.0", 0.125, agent="bravo")
    export.sidecars()
    board = board_of(export)
    assert [(a.name, a.rank) for a in board.agents] == [("bravo", 1), ("alpha", 2)]
    alpha = agent(board, "alpha").figures
    assert alpha.median is None
    assert alpha.runs == 0
    assert alpha.counts == counts()
    assert alpha.last_run is None
    assert alpha.completion_rate is None
    assert [a.name for a in board.agents_older] == ["alpha"]
    assert older(board, "alpha").figures.median == 1.0


def test_mission_version_from_conditions_else_runs_json_row(export):
    # graded: conditions.mission_version wins over the row
    a = export.run(g(1, 0.5, mission_version="2.0.0"), version="1.0.0")
    # graded pre-versioning: conditions install_revision 4 -> r4 (row says 1.0.0)
    b = export.run(g(2, 0.5, mission_version=None, install_revision=4), version="1.0.0")
    # no grade: the row's mission_version
    c = export.run(env_failure(run_id(3)), version="1.5.0")
    # no grade, row without mission_version: r<row install_revision> (exportkit rows have 1)
    d = export.run(env_failure(run_id(4)), version=None)
    e = export.run(grading(run_id(5)), version="1.6.0")
    export.sidecars()
    board = board_of(export)
    got = {rid: record(board, rid).version for rid in (a, b, c, d, e)}
    assert got == {a: "2.0.0", b: "r4", c: "1.5.0", d: "r1", e: "1.6.0"}


# ================================================================ §5 ranking


def ranked(board):
    return [(a.rank, a.name) for a in board.agents]


def test_rank_by_median_descending(export):
    export.run(g(1, 0.5), agent="aaa")
    export.run(g(2, 0.75), agent="zzz")
    export.run(g(3, 0.25), agent="mmm")
    export.sidecars()
    assert ranked(board_of(export)) == [(1, "zzz"), (2, "aaa"), (3, "mmm")]


def test_rank_tie_broken_by_avg_overall(export):
    # aaa: 0.5 -> median 0.5, avg 0.5
    export.run(g(1, 0.5), agent="aaa")
    # zzz: 0.25, 0.5, 1.0 -> median 0.5, avg 1.75/3 = 0.5833 > 0.5
    for n, x in enumerate([0.25, 0.5, 1.0]):
        export.run(g(10 + n, x), agent="zzz")
    export.sidecars()
    board = board_of(export)
    assert ranked(board) == [(1, "zzz"), (2, "aaa")]


def test_rank_tie_broken_by_in_median(export):
    # aaa: 0.5 (in_median 1); zzz: 0.5, 0.5 (in_median 2): same median 0.5 and avg 0.5
    export.run(g(1, 0.5), agent="aaa")
    export.run(g(2, 0.5), agent="zzz")
    export.run(g(3, 0.5), agent="zzz")
    export.sidecars()
    assert ranked(board_of(export)) == [(1, "zzz"), (2, "aaa")]


def test_rank_tie_broken_by_casefolded_name(export):
    # "alpha" < "bravo" case-folded, although "Bravo" < "alpha" by code point
    export.run(g(1, 0.5), agent="Bravo")
    export.run(g(2, 0.5), agent="alpha")
    export.sidecars()
    assert ranked(board_of(export)) == [(1, "alpha"), (2, "Bravo")]


def test_rank_tie_broken_by_exact_name(export):
    # "echo" and "Echo" fold alike; then exact: "Echo" (E = 0x45) < "echo" (e = 0x65)
    export.run(g(1, 0.5), agent="echo")
    export.run(g(2, 0.5), agent="Echo")
    export.sidecars()
    assert ranked(board_of(export)) == [(1, "Echo"), (2, "echo")]


def test_null_medians_last_by_name(export):
    export.run(env_failure(run_id(1)), agent="alpha")
    export.run(graded(run_id(2), judge_status="model-not-configured", judge=0.0), agent="Bravo")
    export.run(g(3, 0.0), agent="zulu")  # a real 0 median still ranks above no median
    export.run(grading(run_id(4)), agent="charlie")
    export.sidecars()
    board = board_of(export)
    assert ranked(board) == [(1, "zulu"), (2, "alpha"), (3, "Bravo"), (4, "charlie")]
    assert agent(board, "zulu").figures.median == 0.0


# ================================================================ §6 agreement


def test_judge_vs_checks_over_judge_status_ok_only(export):
    # graded ok: |0.75 - 0.5| = 0.25
    export.run(graded(run_id(1), det=0.75, judge=0.5))
    # timed out, judge ok: |0.0 - 0.5| = 0.5
    export.run(graded(run_id(2), det=0.0, judge=0.5, partial_trigger="timeout"))
    # stopped, judge ok ("whatever the run's trigger"): |1.0 - 0.25| = 0.75
    export.run(graded(run_id(3), det=1.0, judge=0.25, partial_trigger="operator"))
    # excluded: partial judge, no judge, grading failed, unknown
    export.run(graded(run_id(4), det=1.0, judge=0.0, judge_status="partial", overall_upper=1.0, judge_upper=1.0))
    export.run(graded(run_id(5), det=1.0, judge=0.0, judge_status="model-not-configured"))
    export.run(graded(run_id(6), det=1.0, judge=0.0, judge_status="unavailable", partial_trigger="timeout"))
    export.run(crash_fallback(run_id(7)))
    export.run(graded(run_id(8), det=1.0, judge=0.0, overall=1.7))
    export.run(env_failure(run_id(9)))
    export.sidecars()
    board = board_of(export)
    (card,) = board.missions
    # mean(0.25, 0.5, 0.75) = 1.5 / 3 = 0.5
    assert card.judge_vs_checks == 0.5


def test_judge_vs_checks_null_when_no_full_judge(export):
    export.run(graded(run_id(1), det=1.0, judge=0.5, judge_status="partial", overall_upper=1.0, judge_upper=1.0))
    export.run(graded(run_id(2), det=1.0, judge=0.0, judge_status="model-not-configured"))
    export.run(crash_fallback(run_id(3)))
    export.sidecars()
    (card,) = board_of(export).missions
    assert card.judge_vs_checks is None


def test_judge_vs_checks_per_version(export):
    export.run(graded(run_id(1), det=1.0, judge=0.75, mission_version="2.0.0"), version="2.0.0")  # 0.25
    export.run(graded(run_id(2), det=0.0, judge=1.0, mission_version="1.0.0"), version="1.0.0")  # 1.0
    export.run(graded(run_id(3), det=0.5, judge=0.25, mission_version="1.0.0"), version="1.0.0")  # 0.25
    export.sidecars()
    board = board_of(export)
    assert mission(board, "m1", "2.0.0").judge_vs_checks == 0.25
    assert mission(board, "m1", "1.0.0").judge_vs_checks == 0.625  # (1.0 + 0.25) / 2


def test_mission_chips_carry_each_agents_median_on_that_version(export):
    on(export, 1, "2.0.0", 0.25, agent="osprey")
    on(export, 2, "2.0.0", 0.75, agent="osprey")
    on(export, 3, "1.0.0", 0.0, agent="osprey")  # older version: not on the 2.0.0 chip
    on(export, 4, "2.0.0", 1.0, agent="kestrel")
    export.run(
        graded(run_id(5), judge_status="model-not-configured", judge=0.0, mission_version="2.0.0"),
        agent="hawk",
        version="2.0.0",
    )
    export.sidecars()
    board = board_of(export)
    card = mission(board, "m1", "2.0.0")
    # osprey on 2.0.0: (0.25 + 0.75) / 2 = 0.5; kestrel 1.0; hawk no median (last)
    assert [(c.name, c.median, c.in_median, c.runs) for c in card.agents] == [
        ("kestrel", 1.0, 1, 1),
        ("osprey", 0.5, 2, 2),
        ("hawk", None, 0, 1),
    ]
    assert card.figures.median == 0.75  # 0.25, 0.75, 1.0
    assert card.current is True
    old = mission(board, "m1", "1.0.0")
    assert old.current is False
    assert [(c.name, c.median) for c in old.agents] == [("osprey", 0.0)]


# ================================================================ §7 attribution


def test_runs_json_join(export):
    rid = export.run(g(1, 0.5), agent="osprey", mission="m3", at=30)
    export.sidecars()
    board = board_of(export)
    run = record(board, rid)
    assert run.agent == agent_id("osprey")
    assert run.agent_name == "osprey"
    assert run.mission == "m3"
    assert run.started == BASE + timedelta(minutes=30)
    assert run.completed == BASE + timedelta(minutes=50)
    assert agent(board, "osprey").agent == agent_id("osprey")
    assert agent(board, "osprey").figures.last_run == "2026-10-01T09:50:00Z"


def test_display_name_from_report_when_agents_json_lacks_it(export):
    rid = export.run(g(1, 0.5), agent="osprey", report=report_md(agent="Osprey Prime v3"))
    export.sidecars(agents=False)
    run = record(board_of(export), rid)
    assert run.agent == agent_id("osprey")
    assert run.agent_name == "Osprey Prime"


@pytest.mark.parametrize(
    "duration, completed",
    [
        ("12.3s", datetime(2026, 10, 2, 8, 0, 12, 300000, tzinfo=UTC)),
        ("19m 43s", datetime(2026, 10, 2, 8, 19, 43, tzinfo=UTC)),
        ("1h 2m 3s", datetime(2026, 10, 2, 9, 2, 3, tzinfo=UTC)),
    ],
)
def test_report_md_fallback(export, duration, completed):
    rid = run_id("report")
    export.run(
        graded(rid, det=0.5, judge=0.5, mission_version="1.2.0"),
        rid=rid,
        row=False,
        report=report_md(
            agent="gyr falcon v2",
            mission="web portal v1.2.0",
            started="2026-10-02 08:00:00 UTC",
            duration=duration,
            rid=rid,
        ),
    )
    board = board_of(export)  # no runs.json, no agents.json
    run = record(board, rid)
    # Agent "gyr falcon v2" split on the last " v": name "gyr falcon"; mission "web portal"
    assert run.agent == "gyr falcon"
    assert run.agent_name == "gyr falcon"
    assert run.mission == "web portal"
    assert run.version == "1.2.0"
    assert run.started == datetime(2026, 10, 2, 8, 0, 0, tzinfo=UTC)
    assert run.completed == completed
    assert [a.name for a in board.agents] == ["gyr falcon"]
    assert agent(board, "gyr falcon").figures.last_run == completed.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_report_md_gives_version_of_a_run_without_grade(export):
    rid = run_id("grading")
    export.run(grading(rid), rid=rid, row=False, report=report_md(agent="kite v1", mission="smb loot v3.4.5"))
    board = board_of(export)
    run = record(board, rid)
    assert (run.agent, run.mission, run.version) == ("kite", "smb loot", "3.4.5")
    assert record(board, rid).kind == "grading"


def test_report_only_run_joins_the_one_agent_of_that_name(export):
    a = export.run(g(1, 0.25), agent="osprey")
    b = export.run(g(2, 0.75), rid=run_id(2), row=False, report=report_md(agent="osprey v1"))
    export.sidecars()
    board = board_of(export)
    assert record(board, b).agent == agent_id("osprey")
    assert [a.name for a in board.agents] == ["osprey"]
    fig = agent(board, "osprey").figures
    assert fig.runs == 2
    assert fig.median == 0.5  # (0.25 + 0.75) / 2: one agent, not two
    assert record(board, a).agent == agent_id("osprey")


def test_report_only_run_with_an_ambiguous_name_stays_by_name(export):
    rid = export.run(g(1, 0.5), rid=run_id(1), row=False, report=report_md(agent="twin v1"))
    rows = [{"id": "1" * 32, "name": "twin"}, {"id": "2" * 32, "name": "twin"}]
    (export.root / "agents.json").write_text(json.dumps(rows))
    board = board_of(export)
    assert record(board, rid).agent == "twin"


def test_unattributed_env_failure(export):
    rid = export.run(env_failure(run_id(1), "crashed"), agent=None)
    board = board_of(export)
    run = record(board, rid)
    assert (run.agent, run.mission, run.version) == (UNATTRIBUTED, UNATTRIBUTED, UNATTRIBUTED)
    assert (run.agent_name, run.started, run.completed) == (UNATTRIBUTED, None, None)
    assert record(board, rid).kind == "infra_failed"
    assert board.totals.runs == 1
    assert board.totals.counts == counts(infra_failed=1)
    assert [a.name for a in board.agents] == [UNATTRIBUTED]
    assert agent(board, UNATTRIBUTED).figures.counts == counts(infra_failed=1)
    assert [(m.mission, m.version) for m in board.missions] == [(UNATTRIBUTED, UNATTRIBUTED)]


def test_prerelease_below_its_release_above_lower_versions(export):
    on(export, 1, "1.9.0", 0.125)
    on(export, 2, "2.0.0-rc.1", 0.25)
    export.sidecars()
    board = board_of(export)
    # SemVer: 1.9.0 < 2.0.0-rc.1 < 2.0.0
    assert currents(board) == {("m1", "2.0.0-rc.1"): True, ("m1", "1.9.0"): False}
    on(export, 3, "2.0.0", 0.5)
    export.sidecars()
    board = board_of(export)
    assert currents(board) == {("m1", "2.0.0"): True, ("m1", "2.0.0-rc.1"): False, ("m1", "1.9.0"): False}
    assert agent(board, "osprey").figures.median == 0.5
