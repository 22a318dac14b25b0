"""How what a score costs reads (words/cost_text.py; docs/rules/cost.md §6): every number rounded for a reader,
"not reported" never written as 0, and no silent $0."""

from __future__ import annotations

import dataclasses

import pytest

from podium.count.kinds import record_of
from podium.model import Configuration, Run
from podium.model.cost import Cost, Measure, Prices, Spent
from podium.words import cost_text

NONE = Measure(0, None, None, None)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "—"),
        (950, "950"),
        (999.4, "999"),
        (999.5, "1.0k"),
        (12_500, "12.5k"),
        (99_949, "99.9k"),
        (99_950, "100k"),
        (106_000, "106k"),
        (999_499, "999k"),
        (999_500, "1.0M"),
        (1_234_567, "1.2M"),
        (3_000_000_000, "3.0G"),
    ],
)
def test_tokens_read_as_people_read_them(value, text):
    assert cost_text.tokens(value) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(None, "—"), (0, "0 s"), (45, "45 s"), (89, "89 s"), (90, "2 min"), (840, "14 min"), (7200, "2.0 h")],
)
def test_durations(seconds, text):
    assert cost_text.duration(seconds) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(None, "—"), (0.0, "$0.000"), (0.0001, "<$0.001"), (0.042, "$0.042"), (1.25, "$1.25"), (1240.4, "$1,240")],
)
def test_dollars_never_round_a_sliver_to_nothing(value, text):
    assert cost_text.usd(value) == text


def _cost(tokens=NONE, duration=NONE, share=NONE, runs=20, spent_by_kind=None):
    by_kind = spent_by_kind or {}
    return Cost(
        runs=runs,
        total_tokens=tokens,
        model_calls=NONE,
        tool_calls=NONE,
        duration_seconds=duration,
        budget_share=share,
        spent_tokens=sum(by_kind.values()),
        spent_reported=runs,
        spent_runs=runs,
        spent_by_kind=by_kind,
    )


def test_the_card_line_says_how_many_runs_report_tokens():
    full = _cost(Measure(20, 106_000, 81_000, 140_000), Measure(20, 840, 600, 900), Measure(20, 0.78, 0.5, 0.9))
    assert cost_text.cost_line(full) == "106k tokens · 14 min a run (median) · 78% of budget"
    some = dataclasses.replace(full, total_tokens=Measure(12, 106_000, 81_000, 140_000))
    assert cost_text.cost_line(some).endswith(" · tokens for 12 of 20 runs")
    none = dataclasses.replace(full, total_tokens=NONE)
    assert cost_text.cost_line(none) == "14 min a run (median) · 78% of budget · tokens not reported"
    assert cost_text.cost_line(_cost()) == "not reported"
    assert cost_text.cost_line(_cost(runs=0)) == "" and cost_text.cost_line(None) == ""


def test_quartiles_beside_the_median_unless_they_are_one_value():
    assert cost_text.quartiles(Measure(9, 106_000, 81_000, 140_000)) == "106k (81.0k–140k)"
    assert cost_text.quartiles(Measure(1, 840.0, 840.0, 840.0), cost_text.duration) == "14 min"
    assert cost_text.quartiles(NONE) == "—"


def test_the_spend_names_the_largest_kinds_cut_short():
    spend = cost_text.spend_line(_cost(spent_by_kind={"graded": 690, "timed_out": 310}, runs=10))
    assert spend == "1.0k tokens spent over 10 runs: 31% went to timed-out runs."
    only = cost_text.spend_line(_cost(spent_by_kind={"graded": 5}, runs=2))
    assert only == "5 tokens spent over 2 runs, all by graded runs."
    many = {"graded": 600, "timed_out": 200, "stopped": 100, "infra_failed": 60, "no_judge": 40}
    text = cost_text.spend_line(_cost(spent_by_kind=many), most=2)
    assert text.endswith(": 20% went to timed-out runs, 10% to stopped runs, 10% to runs of other kinds.")
    assert cost_text.spend_line(_cost()) == ""


def _record(values, harness="codex", budget=1800.0, seconds=1800.0):
    base = record_of(Run(run_id="0" * 32, directory="00000000", shape="unreadable"))
    return dataclasses.replace(
        base,
        harness=harness,
        spent=Spent.of(values),
        configuration=Configuration(None, None, None, budget),
        started=None,
    )


def test_a_run_page_says_not_reported_by_its_harness_and_keeps_zeros():
    record = _record((43_630, 1_013, None, 0, None, 44_643, None, 0))
    (tokens, line), (calls, said) = cost_text.spent_rows(record)
    assert (tokens, calls) == ("tokens", "calls")
    assert line == (
        "44,643 in all: 43,630 input · 1,013 output · cache read not reported (by codex) · 0 cache creation"
        " · reasoning not reported (by codex)"
    )
    assert said == "model calls not reported (by codex) · 0 tool calls"
    nothing = dataclasses.replace(record, spent=None, harness=None)
    assert cost_text.spent_rows(nothing) == (
        ("tokens", "not reported"),
        ("calls", "model calls not reported · tool calls not reported"),
    )


def test_time_against_the_budget_says_when_it_ran_out():
    from datetime import UTC, datetime, timedelta

    start = datetime(2026, 10, 1, tzinfo=UTC)
    ran_out = dataclasses.replace(_record((None,) * 7 + (1,)), started=start, completed=start + timedelta(minutes=30))
    assert cost_text.against_budget(ran_out) == "30 min of a 30 min budget (100%: it ran out)"
    part = dataclasses.replace(ran_out, completed=start + timedelta(minutes=14))
    assert cost_text.against_budget(part) == "14 min of a 30 min budget (47%)"
    assert cost_text.against_budget(dataclasses.replace(part, configuration=None)) == "14 min (no budget known)"
    assert cost_text.against_budget(dataclasses.replace(part, started=None)) == "not known"


def test_dollars_are_always_dated():
    prices = Prices("2026-11-01", "provider price pages", {})
    assert cost_text.at_prices(prices) == "at prices of 2026-11-01" and cost_text.at_prices(None) == ""
    priced = dataclasses.replace(_cost(), cost_usd=Measure(3, 0.42, 0.3, 0.5))
    assert cost_text.dollars_line(priced, prices) == "$0.420 a run (median) at prices of 2026-11-01"
    unpriced = dataclasses.replace(_cost(), cost_usd=NONE)
    assert cost_text.dollars_line(unpriced, prices) == "" and cost_text.dollars_line(priced, None) == ""
    rows = dict((what, value) for what, value, _ in cost_text.cost_rows(unpriced, prices))
    assert rows["dollars a run, at prices of 2026-11-01"] == "no price"
