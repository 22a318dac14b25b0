"""counting.md §2: every run has exactly one kind, decided by the first matching rule.

Each test writes a small export with ``ExportDir``, reads it with ``load_export``,
summarizes it and checks the run's ``kind`` in ``board.runs`` and the counts.
"""

from __future__ import annotations

import json

import pytest
from exportkit import agent_id, crash_fallback, env_failure, graded, grading, run_id

from podium.count.summarize import summarize
from podium.load.export import load_export
from podium.model import COUNTED_KINDS


def board_of(export, **kw):
    return summarize(load_export(export.root), **kw)


def record(board, rid):
    found = [r for r in board.runs if r.run_id == rid]
    assert len(found) == 1, f"run {rid} appears {len(found)} times in board.runs"
    return found[0]


def agent_summary(board, name):
    found = [a for a in board.agents if a.name == name]
    assert len(found) == 1, [a.name for a in board.agents]
    return found[0]


def only_count(kind):
    counts = dict.fromkeys(COUNTED_KINDS, 0)
    counts[kind] = 1
    return counts


def check_single(export, rid, kind, *, agent="osprey", in_median=None):
    """One counted run of ``kind``: its record, the agent's counts and the totals."""
    board = board_of(export)
    assert record(board, rid).kind == kind
    assert board.totals.runs == 1
    assert board.totals.not_a_run == 0
    assert board.totals.counts == only_count(kind)
    summary = agent_summary(board, agent)
    assert summary.figures.runs == 1
    assert summary.figures.counts == only_count(kind)
    expected_in_median = 1 if kind in ("graded", "partial_judge", "timed_out") else 0
    assert summary.figures.in_median == (expected_in_median if in_median is None else in_median)
    (mission,) = board.missions
    assert mission.figures.counts == only_count(kind)
    return board


# ---------------------------------------------------------------- 1 not_a_run


def check_not_a_run(export, rid):
    """not_a_run: listed in the ledger, in no count, no runs, no total, no agent list."""
    keep = run_id("keeper")
    export.run(graded(keep, det=0.5, judge=0.5), agent="kestrel", mission="m9")
    export.sidecars()
    board = board_of(export)
    assert record(board, rid).kind == "not_a_run"
    assert board.totals.runs == 1
    assert board.totals.not_a_run == 1
    assert board.totals.counts == only_count("graded")
    assert sum(board.totals.counts.values()) == 1
    # osprey has no other run: absent from the agent list (current and older)
    assert [a.name for a in board.agents] == ["kestrel"]
    assert board.agents_older == ()
    # its mission m1 has no counted run: no mission card either
    assert [(m.mission, m.version) for m in board.missions] == [("m9", "1.0.0")]
    kestrel = agent_summary(board, "kestrel")
    assert kestrel.figures.runs == 1
    assert kestrel.figures.counts == only_count("graded")
    return board


@pytest.mark.parametrize("outcome", ["cancelled", "never_started"])
def test_not_a_run_by_run_list_outcome(export, outcome):
    rid = run_id("nar-outcome")
    # A graded body: only the run-list outcome says the agent never started.
    export.run(graded(rid), trigger="done", outcome=outcome)
    check_not_a_run(export, rid)


@pytest.mark.parametrize("trigger", ["cancelled", "never_started"])
def test_not_a_run_by_run_list_terminal_trigger(export, trigger):
    rid = run_id("nar-trigger")
    export.run(graded(rid), trigger=trigger, outcome="partial")
    check_not_a_run(export, rid)


@pytest.mark.parametrize("trigger", ["cancelled", "never_started"])
def test_not_a_run_by_not_graded_result_trigger(export, trigger):
    rid = run_id("nar-result")
    # The run list still says infra_failed: rule 1 comes before rule 2.
    export.run(env_failure(rid, trigger), trigger="deploy_failed", outcome="infra_failed")
    check_not_a_run(export, rid)


def test_not_a_run_result_trigger_without_sidecars(export):
    rid = run_id("nar-bare")
    export.run(env_failure(rid, "cancelled"), agent=None)
    board = board_of(export)
    assert record(board, rid).kind == "not_a_run"
    assert board.totals.runs == 0
    assert board.totals.not_a_run == 1
    assert sum(board.totals.counts.values()) == 0
    assert board.agents == ()
    assert board.missions == ()


def test_not_a_run_agent_with_other_runs_keeps_only_those(export):
    gone = export.run(graded(run_id("a"), det=1.0, judge=1.0), outcome="cancelled", trigger="cancelled")
    kept = export.run(graded(run_id("b"), det=0.25, judge=0.25))
    export.sidecars()
    board = board_of(export)
    assert record(board, gone).kind == "not_a_run"
    assert record(board, kept).kind == "graded"
    osprey = agent_summary(board, "osprey")
    assert osprey.figures.runs == 1
    assert osprey.figures.in_median == 1
    assert osprey.figures.median == 0.25  # the cancelled 1.0 is not in it
    assert osprey.figures.best_overall == 0.25


# ---------------------------------------------------------------- 2 infra_failed


@pytest.mark.parametrize("trigger", ["deploy_failed", "crashed"])
def test_infra_failed_by_not_graded_result(export, trigger):
    rid = export.run(env_failure(run_id(trigger), trigger))
    export.sidecars()
    board = check_single(export, rid, "infra_failed")
    assert record(board, rid).end == trigger


def test_infra_failed_by_not_graded_result_without_sidecars(export):
    rid = export.run(env_failure(run_id("bare"), "crashed"), agent=None)
    board = board_of(export)
    assert record(board, rid).kind == "infra_failed"
    assert board.totals.counts == only_count("infra_failed")


def test_infra_failed_by_run_list_outcome(export):
    # A graded, perfectly valid result, but the run list says the environment failed.
    rid = export.run(graded(run_id("g"), det=1.0, judge=1.0), trigger="crashed", outcome="infra_failed")
    export.sidecars()
    board = check_single(export, rid, "infra_failed")
    assert agent_summary(board, "osprey").figures.median is None


def test_infra_failed_by_run_list_outcome_beats_grading(export):
    rid = export.run(grading(run_id("g")), trigger="crashed", outcome="infra_failed")
    export.sidecars()
    check_single(export, rid, "infra_failed")


# ---------------------------------------------------------------- 3 grading


def test_grading(export):
    rid = export.run(grading(run_id("g")))
    export.sidecars()
    board = check_single(export, rid, "grading")
    assert record(board, rid).overall is None


# ---------------------------------------------------------------- 4 grading_failed


def test_grading_failed_crash_fallback(export):
    rid = export.run(crash_fallback(run_id("cf")))
    export.sidecars()
    board = check_single(export, rid, "grading_failed")
    # Its halves are missing (empty breakdown), yet it is not unknown and not a problem.
    assert [p for p in board.problems if "breakdown" in p.field or p.field == "grade.overall"] == []
    rec = record(board, rid)
    assert rec.overall is None  # a crash-fallback 0 is not a real zero


def test_grading_failed_beats_stopped(export):
    rid = export.run(crash_fallback(run_id("cf"), partial_trigger="operator"))
    export.sidecars()
    check_single(export, rid, "grading_failed")


# ---------------------------------------------------------------- 5 unknown


def _raw(rid, old, new):
    """A graded body's bytes with one literal replaced (for values json.dumps refuses)."""
    text = json.dumps(graded(rid, det=0.8, judge=0.6, overall=0.7), separators=(",", ":"))
    assert text.count(old) == 1
    return text.replace(old, new).encode()


def _body(rid, mutate):
    body = graded(rid)
    mutate(body)
    return body


UNKNOWN_CASES = {
    "overall missing": (lambda rid: _body(rid, lambda b: b["grade"].pop("overall")), "grade.overall"),
    "judge half missing": (
        lambda rid: _body(rid, lambda b: b["grade"]["breakdown"].pop("judge")),
        "grade.breakdown.judge",
    ),
    "deterministic half missing": (
        lambda rid: _body(rid, lambda b: b["grade"]["breakdown"].pop("deterministic")),
        "grade.breakdown.deterministic",
    ),
    "overall NaN": (lambda rid: _raw(rid, '"overall":0.7,', '"overall":NaN,'), "grade.overall"),
    "overall Infinity": (lambda rid: _raw(rid, '"overall":0.7,', '"overall":Infinity,'), "grade.overall"),
    "overall 1e999": (lambda rid: _raw(rid, '"overall":0.7,', '"overall":1e999,'), "grade.overall"),
    "judge NaN": (lambda rid: _raw(rid, '"judge":0.6}', '"judge":NaN}'), "grade.breakdown.judge"),
    "overall 1.7": (lambda rid: graded(rid, overall=1.7), "grade.overall"),
    "overall -0.1": (lambda rid: graded(rid, overall=-0.1), "grade.overall"),
    "overall string": (lambda rid: _body(rid, lambda b: b["grade"].__setitem__("overall", "0.9")), "grade.overall"),
    "overall true": (lambda rid: _body(rid, lambda b: b["grade"].__setitem__("overall", True)), "grade.overall"),
    "deterministic 1.5": (
        lambda rid: _body(rid, lambda b: b["grade"]["breakdown"].__setitem__("deterministic", 1.5)),
        "grade.breakdown.deterministic",
    ),
    "unknown judge_status": (lambda rid: graded(rid, judge_status="superb"), "grade.judge_status"),
    "judge_status missing": (lambda rid: _body(rid, lambda b: b["grade"].pop("judge_status")), "grade.judge_status"),
    "judge_status not a string": (
        lambda rid: _body(rid, lambda b: b["grade"].__setitem__("judge_status", 7)),
        "grade.judge_status",
    ),
    "unknown partial_trigger": (lambda rid: graded(rid, partial_trigger="meteor"), "partial_trigger"),
    "unknown top-level status": (lambda rid: {"run_id": rid, "status": "exploded"}, "status"),
}


@pytest.mark.parametrize("case", sorted(UNKNOWN_CASES))
def test_unknown(export, case):
    make, field = UNKNOWN_CASES[case]
    rid = run_id(case)
    export.run(make(rid), rid=rid)
    export.sidecars()
    board = check_single(export, rid, "unknown")
    rec = record(board, rid)
    assert rec.overall is None
    assert rec.agent == agent_id("osprey")
    assert rec.mission == "m1"
    named = [p for p in board.problems if p.path == f"{rid[:8]}/result.json" and p.field == field]
    assert named, [str(p) for p in board.problems]


WRONG_TYPE_CASES = {
    "partial_trigger 5": (lambda b: b.__setitem__("partial_trigger", 5), "partial_trigger"),
    "partial_trigger array": (lambda b: b.__setitem__("partial_trigger", ["timeout"]), "partial_trigger"),
    "top-level status 5": (lambda b: b.__setitem__("status", 5), "status"),
}


@pytest.mark.parametrize("case", sorted(WRONG_TYPE_CASES))
def test_unknown_wrong_type_trigger_or_status(export, case):
    mutate, field = WRONG_TYPE_CASES[case]
    rid = run_id(case)
    body = graded(rid)
    mutate(body)
    export.run(body, rid=rid, trigger="done", outcome="completed")
    export.sidecars()
    board = board_of(export)
    assert [p for p in board.problems if p.path == f"{rid[:8]}/result.json" and p.field == field]
    check_single(export, rid, "unknown")


def test_unknown_beats_stopped_and_no_judge(export):
    rid = run_id("x")
    export.run(graded(rid, overall=1.7, partial_trigger="operator", judge_status="unavailable"))
    export.sidecars()
    check_single(export, rid, "unknown")


@pytest.mark.parametrize("data", [b"{not json", b"", b"[1, 2]", b"\xff\xfe{}"])
def test_unknown_unreadable_result_identified_by_runs_json(export, data):
    rid = run_id("broken")
    export.run(data, rid=rid, mission="m7", version="3.1.0")
    export.sidecars()
    board = check_single(export, rid, "unknown")
    rec = record(board, rid)
    assert rec.agent == agent_id("osprey")
    assert rec.mission == "m7"
    assert rec.version == "3.1.0"  # no grade: the runs.json row's version
    named = [p for p in board.problems if p.path == f"{rid[:8]}/result.json" and p.field == ""]
    assert len(named) == 1, [str(p) for p in board.problems]


def test_unreadable_result_without_identity_is_a_problem_only(export):
    rid = run_id("lost")
    export.run(b"{not json", rid=rid, agent=None)
    board = board_of(export)
    assert [r for r in board.runs if r.run_id == rid] == []
    assert board.totals.runs == 0
    assert [p.path for p in board.problems] == [f"{rid[:8]}/result.json"]


# ---------------------------------------------------------------- 6 stopped


def test_stopped_by_partial_trigger(export):
    rid = export.run(graded(run_id("s"), partial_trigger="operator"))
    export.sidecars()
    board = check_single(export, rid, "stopped")
    assert record(board, rid).end == "operator"
    assert agent_summary(board, "osprey").figures.median is None


def test_stopped_by_run_list_terminal_trigger(export):
    # result.json says the agent finished; the run list says an operator stopped it.
    rid = export.run(graded(run_id("s")), trigger="operator", outcome="partial")
    export.sidecars()
    board = check_single(export, rid, "stopped")
    assert record(board, rid).end == "operator"


def test_stopped_beats_no_judge(export):
    rid = export.run(graded(run_id("s"), judge_status="unavailable", judge=0.0, partial_trigger="operator"))
    export.sidecars()
    board = check_single(export, rid, "stopped")
    assert agent_summary(board, "osprey").figures.judge_degraded == 0


# ---------------------------------------------------------------- 7 no_judge


@pytest.mark.parametrize("status", ["model-not-configured", "unavailable"])
def test_no_judge(export, status):
    rid = export.run(graded(run_id(status), det=1.0, judge=0.0, judge_status=status, judge_model=None))
    export.sidecars()
    board = check_single(export, rid, "no_judge")
    osprey = agent_summary(board, "osprey")
    assert osprey.figures.judge_degraded == 1
    assert osprey.figures.median is None
    assert osprey.figures.avg_overall is None
    rec = record(board, rid)
    assert rec.overall == 0.5
    assert rec.judge is None and rec.no_judge_ran is True


def test_timed_out_without_judge_is_no_judge(export):
    """Precedence note: rule 7 comes before rule 8."""
    rid = export.run(
        graded(run_id("t"), det=0.5, judge=0.0, judge_status="model-not-configured", partial_trigger="timeout")
    )
    export.sidecars()
    board = check_single(export, rid, "no_judge")
    assert record(board, rid).end == "timeout"
    osprey = agent_summary(board, "osprey")
    assert osprey.figures.judge_degraded == 1
    assert osprey.figures.partial_rate == 1.0  # still a timeout for the rates


# ---------------------------------------------------------------- 8 timed_out


def test_timed_out(export):
    rid = export.run(graded(run_id("t"), det=0.25, judge=0.25, partial_trigger="timeout"))
    export.sidecars()
    board = check_single(export, rid, "timed_out")
    assert agent_summary(board, "osprey").figures.median == 0.25  # at what it earned


def test_timed_out_with_partial_judge_is_timed_out(export):
    """Precedence note: a timed-out run with a partial judge is timed_out (rule 8 before 9)."""
    rid = export.run(
        graded(
            run_id("t"),
            det=0.5,
            judge=0.25,
            judge_status="partial",
            partial_trigger="timeout",
            overall_upper=0.625,
            judge_upper=0.75,
        )
    )
    export.sidecars()
    board = check_single(export, rid, "timed_out")
    osprey = agent_summary(board, "osprey")
    # overall = 0.5*0.5 + 0.5*0.25 = 0.375 (lower bound); upper bound 0.625
    assert osprey.figures.median == 0.375
    assert osprey.figures.median_upper == 0.625
    assert osprey.figures.counts["partial_judge"] == 0


# ---------------------------------------------------------------- 9 partial_judge


def test_partial_judge(export):
    rid = export.run(
        graded(run_id("p"), det=1.0, judge=0.5, judge_status="partial", overall_upper=0.875, judge_upper=0.75)
    )
    export.sidecars()
    board = check_single(export, rid, "partial_judge")
    osprey = agent_summary(board, "osprey")
    assert osprey.figures.median == 0.75  # its lower bound 0.5*1 + 0.5*0.5
    assert osprey.figures.median_upper == 0.875


# ---------------------------------------------------------------- 10 graded


def test_graded(export):
    rid = export.run(graded(run_id("g"), det=0.75, judge=0.25))
    export.sidecars()
    board = check_single(export, rid, "graded")
    osprey = agent_summary(board, "osprey")
    assert osprey.figures.median == 0.5
    assert record(board, rid).end == "done"
    assert record(board, rid).status == "Completed"


def test_every_kind_in_one_export_each_once(export):
    """All ten kinds side by side; every run in exactly one kind, not_a_run in no count."""
    made = {
        "not_a_run": export.run(graded(run_id(1)), outcome="cancelled", trigger="cancelled"),
        "infra_failed": export.run(env_failure(run_id(2), "deploy_failed")),
        "grading": export.run(grading(run_id(3))),
        "grading_failed": export.run(crash_fallback(run_id(4))),
        "unknown": export.run(graded(run_id(5), overall=1.7)),
        "stopped": export.run(graded(run_id(6), partial_trigger="operator")),
        "no_judge": export.run(graded(run_id(7), judge_status="model-not-configured", judge=0.0)),
        "timed_out": export.run(graded(run_id(8), partial_trigger="timeout")),
        "partial_judge": export.run(graded(run_id(9), judge_status="partial", overall_upper=0.9, judge_upper=0.8)),
        "graded": export.run(graded(run_id(10))),
    }
    export.sidecars()
    board = board_of(export)
    assert {kind: record(board, rid).kind for kind, rid in made.items()} == {k: k for k in made}
    assert len(board.runs) == 10
    assert board.totals.runs == 9
    assert board.totals.not_a_run == 1
    assert board.totals.counts == dict.fromkeys(COUNTED_KINDS, 1)
    osprey = agent_summary(board, "osprey")
    assert osprey.figures.runs == 9
    assert osprey.figures.in_median == 3


# ---------------------------------------------------------------- how each run ended (ledger status)


@pytest.mark.parametrize(
    "body, trigger, outcome, end, status",
    [
        # the run list says cancelled, though result.json looks like a finished graded run
        (lambda rid: graded(rid), "done", "cancelled", "cancelled", "Cancelled"),
        (lambda rid: graded(rid), "never_started", "partial", "never_started", "Never started"),
        (lambda rid: env_failure(rid, "cancelled"), "deploy_failed", "infra_failed", "cancelled", "Cancelled"),
        (
            lambda rid: env_failure(rid, "never_started"),
            "never_started",
            "never_started",
            "never_started",
            "Never started",
        ),
    ],
)
def test_not_a_run_is_never_labelled_completed(export, body, trigger, outcome, end, status):
    rid = run_id("end")
    export.run(body(rid), rid=rid, trigger=trigger, outcome=outcome)
    export.sidecars()
    rec = record(board_of(export), rid)
    assert (rec.kind, rec.end, rec.status) == ("not_a_run", end, status)


def test_infra_failed_by_run_list_ends_as_the_run_list_says(export):
    rid = export.run(graded(run_id("i")), trigger="crashed", outcome="infra_failed")
    export.sidecars()
    rec = record(board_of(export), rid)
    assert (rec.kind, rec.end, rec.status) == ("infra_failed", "crashed", "Crashed")


@pytest.mark.parametrize(
    "body, kind, end, status",
    [
        (lambda rid: graded(rid), "graded", "done", "Completed"),
        (lambda rid: graded(rid, partial_trigger="timeout"), "timed_out", "timeout", "Timed out"),
        (lambda rid: graded(rid, partial_trigger="operator"), "stopped", "operator", "Stopped"),
        (lambda rid: env_failure(rid, "deploy_failed"), "infra_failed", "deploy_failed", "Deploy failed"),
        (lambda rid: env_failure(rid, "crashed"), "infra_failed", "crashed", "Crashed"),
        (lambda rid: grading(rid), "grading", "done", "Grading"),
        (lambda rid: crash_fallback(rid), "grading_failed", "done", "Grading failed"),
        (lambda rid: graded(rid, overall=1.7), "unknown", "done", "Unknown"),
    ],
)
def test_end_and_status_label(export, body, kind, end, status):
    rid = run_id("label")
    export.run(body(rid), rid=rid)
    export.sidecars()
    rec = record(board_of(export), rid)
    assert (rec.kind, rec.end, rec.status) == (kind, end, status)
