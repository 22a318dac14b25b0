"""What each score costs (docs/rules/cost.md), against references written from the rule file, not the code.

- The three "not reported" rules (§1), each on its own, then all of them on random in-memory exports
  (hypothesis, the runs of test_properties.py with Telemetry values, harnesses and budgets added).
- Every scope's figures (§2) against a reference in exact fractions: median, quartiles by the rule's
  linear interpolation, reported counts, the spend by kind.
- Quartiles against ``statistics.quantiles(method="inclusive")``; the frontier (§3) against brute force.
- Dollars (§5): the sum in the rule's order, never a silent 0, a cache field not reported marks the run.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import tempfile
from fractions import Fraction
from pathlib import Path

import pytest
from exportkit import run_id
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import EXPORTS, SETTINGS, make_export, to_run

from podium.count import cost
from podium.count.compare import model_key
from podium.count.kinds import record_of
from podium.count.summarize import summarize
from podium.errors import ConfigError
from podium.model import MEDIAN_KINDS, Configuration, Run
from podium.model.cost import SPENT_FIELDS, Price, Prices, Spent

N = None
BLANK = dict.fromkeys(SPENT_FIELDS)


def spent(**values) -> Spent | None:
    return Spent.of(tuple({**BLANK, **values}[name] for name in SPENT_FIELDS))


def one(**values):
    return cost.reported(spent(**values))


# ---------------------------------------------------------------- §1 the three rules, one at a time


def test_rule_1_a_total_of_zero_means_no_token_field_is_reported():
    got = one(input_tokens=0, output_tokens=0, cache_read_tokens=0, total_tokens=0, model_calls=0, tool_calls=3)
    assert got.as_dict() == {**BLANK, "tool_calls": 3}  # tool calls keep their value, zero or not


def test_rule_1_leaves_a_reported_total_and_its_zeros():
    got = one(input_tokens=0, output_tokens=5, total_tokens=5, tool_calls=0)
    assert got.as_dict() == {**BLANK, "input_tokens": 0, "output_tokens": 5, "total_tokens": 5, "tool_calls": 0}


def test_rule_2_zero_model_calls_are_not_reported():
    got = one(total_tokens=40, model_calls=0)
    assert (got.get("model_calls"), got.get("total_tokens")) == (None, 40)
    assert one(model_calls=0) is None  # nothing left at all: no object kept


def _runs(*specs):
    """Counted records with a harness and values: (harness, kind, values)."""
    out = []
    for n, (harness, kind, values) in enumerate(specs):
        record = dataclasses.replace(_BLANK_RECORD, run_id=f"{n:032x}", kind=kind, harness=harness)
        out.append(dataclasses.replace(record, spent=cost.reported(spent(**values))))
    return out


def test_rule_3_a_field_zero_on_every_run_of_a_harness_is_not_reported():
    zeros = dict(cache_read_tokens=0, cache_creation_tokens=0, reasoning_tokens=0)
    runs = _runs(
        ("codex", "graded", {**zeros, "total_tokens": 10, "reasoning_tokens": 4}),
        ("codex", "stopped", {**zeros, "total_tokens": 20}),
        ("codex", "graded", dict(total_tokens=0, cache_read_tokens=7)),  # tokens not reported: not looked at
        ("claude", "graded", {**zeros, "total_tokens": 30}),
        ("claude", "graded", {**zeros, "total_tokens": 31, "cache_read_tokens": 2}),
        (None, "graded", {**zeros, "total_tokens": 5}),  # runs with no harness: one group
        (None, "graded", {**zeros, "total_tokens": 6, "reasoning_tokens": None}),  # missing is not 0
        ("codex", "not_a_run", {**zeros, "total_tokens": 9}),  # not counted: keeps its zeros
    )
    never = cost.never_reported(runs)
    assert never == {
        "codex": frozenset({"cache_read_tokens", "cache_creation_tokens"}),
        "claude": frozenset({"cache_creation_tokens", "reasoning_tokens"}),
        None: frozenset({"cache_read_tokens", "cache_creation_tokens"}),
    }
    after = [cost.without_never_reported(r, never) for r in runs]
    assert after[0].as_dict() == {**BLANK, "total_tokens": 10, "reasoning_tokens": 4}
    assert after[1].as_dict() == {**BLANK, "total_tokens": 20, "reasoning_tokens": 0}  # 4 on another run: kept
    assert after[4].get("cache_read_tokens") == 2 and after[3].get("cache_read_tokens") == 0  # claude reports it
    assert after[5].get("reasoning_tokens") == 0  # a row missing on one run is not "0 on every run"
    assert after[7].as_dict() == {**BLANK, **zeros, "total_tokens": 9}


def test_rules_in_the_summary_step(export):
    """End to end: record_of applies rules 1 and 2, the summary step rule 3 over the whole build."""
    from exportkit import graded

    def report(rows: str) -> str:
        from exportkit import report_md

        return report_md().replace(
            "## Conditions", f"## Telemetry\n\n| Field | Value |\n| --- | --- |\n{rows}\n\n## Conditions"
        )

    export.run(
        graded("a" * 32), rid="a" * 32, report=report("| Total tokens | 0 |\n| Model calls | 0 |\n| Tool calls | 4 |")
    )
    export.run(graded("b" * 32), rid="b" * 32, report=report("| Total tokens | 1,000 |\n| Reasoning tokens | 0 |"))
    export.sidecars()
    from podium.load.export import load_export

    runs = {r.run_id[0]: r for r in summarize(load_export(export.root)).runs}
    assert runs["a"].spent.as_dict() == {**BLANK, "tool_calls": 4}
    assert (runs["b"].total_tokens, runs["b"].spent_value("reasoning_tokens")) == (1000, None)  # codex never does


_BLANK_RECORD = record_of(Run(run_id="0" * 32, directory="00000000", shape="unreadable"))


# ---------------------------------------------------------------- §1-§2 on random exports, against a reference

VALUES = st.sampled_from([N, 0, 0, 1, 2, 3, 5, 8, 1000, 2**32 - 1, 2**32 + 7])  # both packings


@st.composite
def telemetry(draw) -> dict:
    return {
        "harness": draw(st.sampled_from([None, "codex", "claude-code"])),
        "values": {name: draw(VALUES) for name in SPENT_FIELDS},
        "budget": draw(st.sampled_from([None, 0.0, 600.0, 1800.0])),
    }


def with_cost(index: int, spec: dict, extra: dict) -> Run:
    run = to_run(index, spec)
    values = extra["values"]
    configuration = run.conditions
    if configuration is not None:
        configuration = dataclasses.replace(configuration, budget_seconds=extra["budget"])
    return dataclasses.replace(
        run,
        harness=extra["harness"],
        spent=Spent.of(tuple(values[n] for n in SPENT_FIELDS)),
        conditions=configuration,
    )


def ref_values(pairs) -> dict[int, dict]:
    """The three rules of cost.md §1, literally: pairs of (record as summarized, the values as read)."""
    out = {}
    for index, (_, raw) in pairs.items():
        v = dict(raw["values"])
        if v["total_tokens"] == 0:
            for name in SPENT_FIELDS[:6]:
                v[name] = None
        if v["model_calls"] == 0:
            v["model_calls"] = None
        out[index] = v
    groups: dict = {}
    for index, (record, raw) in pairs.items():
        if record.kind != "not_a_run" and out[index]["total_tokens"] is not None:
            groups.setdefault(raw["harness"], []).append(index)
    for members in groups.values():
        for name in ("cache_read_tokens", "cache_creation_tokens", "reasoning_tokens"):
            if all(out[i][name] == 0 for i in members):
                for i in members:
                    out[i][name] = None
    return out


def ref_quartile(xs: list[Fraction], p: Fraction) -> Fraction:
    h = (len(xs) - 1) * p
    low = math.floor(h)
    frac = h - low
    return xs[low] if frac == 0 else xs[low] + frac * (xs[low + 1] - xs[low])


def ref_measure(values: list) -> tuple:
    xs = sorted(Fraction(v) for v in values)
    if not xs:
        return (0, None, None, None)
    n = len(xs)
    med = xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
    return (n, med, ref_quartile(xs, Fraction(1, 4)), ref_quartile(xs, Fraction(3, 4)))


def ref_cost(records: list, values: dict[str, dict]) -> dict:
    counted = [r for r in records if r.kind != "not_a_run"]
    population = [r for r in counted if r.kind in MEDIAN_KINDS]
    out = {}
    for name in ("total_tokens", "model_calls", "tool_calls"):
        out[name] = ref_measure([values[r.run_id][name] for r in population if values[r.run_id][name] is not None])
    durations = [r for r in population if r.started and r.completed and r.completed >= r.started]
    out["duration_seconds"] = ref_measure([(r.completed - r.started).total_seconds() for r in durations])
    out["budget_share"] = ref_measure(
        [
            Fraction((r.completed - r.started).total_seconds()) / Fraction(r.configuration.budget_seconds)
            for r in durations
            if r.configuration is not None and r.configuration.budget_seconds
        ]
    )
    by_kind: dict = {}
    for r in counted:
        if values[r.run_id]["total_tokens"] is not None:
            by_kind[r.kind] = by_kind.get(r.kind, 0) + values[r.run_id]["total_tokens"]
    reported = sum(1 for r in counted if values[r.run_id]["total_tokens"] is not None)
    out["spent"] = (sum(by_kind.values()), reported, len(counted), by_kind)
    out["runs"] = len(population)
    return out


def got_cost(c) -> dict:
    def m(x):
        return (x.reported, x.median, x.q1, x.q3)

    out = {name: m(getattr(c, name)) for name in ("total_tokens", "model_calls", "tool_calls", "duration_seconds")}
    out["budget_share"] = m(c.budget_share)
    out["spent"] = (c.spent_tokens, c.spent_reported, c.spent_runs, c.spent_by_kind)
    out["runs"] = c.runs
    return out


def same(got: dict, ref: dict) -> None:
    for key, want in ref.items():
        have = got[key]
        if key in ("spent", "runs"):
            assert have == want, key
            continue
        assert have[0] == want[0], key
        for g, w in zip(have[1:], want[1:]):
            if w is None:
                assert g is None, key
            elif key == "budget_share":  # a ratio of floats: the rule's arithmetic, to the last few bits
                assert g == pytest.approx(float(w), rel=1e-12), key
            else:  # whole numbers and whole seconds: exactly the rounded fraction
                assert g == float(w), key


@SETTINGS
@given(EXPORTS, st.data())
def test_values_and_figures_match_the_reference(specs, data):
    extras = [data.draw(telemetry()) for _ in specs]
    runs = [with_cost(i, s, extras[i]) for i, s in enumerate(specs)]
    board = summarize(make_export(runs))
    by_id = {r.run_id: r for r in board.runs}
    pairs = {i: (by_id[run.run_id], extras[i]) for i, run in enumerate(runs)}
    expected = ref_values(pairs)
    values = {}
    for i, run in enumerate(runs):
        record = by_id[run.run_id]
        got = {name: record.spent_value(name) for name in SPENT_FIELDS}
        assert got == expected[i]
        assert record.harness == extras[i]["harness"]
        values[run.run_id] = expected[i]
    for agent in board.agents + board.agents_older:
        own = [r for r in board.runs if r.agent == agent.agent and r.kind != "not_a_run"]
        own = [r for r in own if r.older == (agent.scope == "older")]
        same(got_cost(agent.cost), ref_cost(own, values))
        for m in agent.missions:
            cell = [r for r in own if (r.mission, r.version) == (m.mission, m.version)]
            same(got_cost(m.cost), ref_cost(cell, values))
    for m in board.missions:
        mine = [r for r in board.runs if (r.mission, r.version) == (m.mission, m.version) and r.kind != "not_a_run"]
        same(got_cost(m.cost), ref_cost(mine, values))
        if m.current:
            cells = {a.agent: next(x for x in agents_missions(board, a.agent, m)) for a in m.agents}
            points = [(a, cells[a].figures.median, cells[a].cost.total_tokens.median) for a in cells]
            assert m.frontier.total_tokens == brute_frontier(points)
        else:
            assert m.frontier is None
    for model in board.by_model:
        mine = [board.runs[i] for i in model.runs]
        same(got_cost(model.cost), ref_cost(mine, values))
        assert {model_key(r) for r in mine} == {model.model}
    overall = [(a.agent, a.figures.median, a.cost.total_tokens.median) for a in board.agents]
    assert board.frontier.total_tokens == brute_frontier(overall)
    durations = [(a.agent, a.figures.median, a.cost.duration_seconds.median) for a in board.agents]
    assert board.frontier.duration_seconds == brute_frontier(durations)


def agents_missions(board, agent, mission):
    summary = next(a for a in board.agents if a.agent == agent)
    return (m for m in summary.missions if (m.mission, m.version) == (mission.mission, mission.version))


# ---------------------------------------------------------------- quartiles and the frontier


@given(st.lists(st.integers(0, 10**12), min_size=2, max_size=40))
def test_quartiles_of_whole_numbers_are_statistics_inclusive_exactly(values):
    got = cost.measure(values)
    q1, med, q3 = statistics.quantiles(values, n=4, method="inclusive")
    assert (got.q1, got.median, got.q3) == (q1, med, q3)
    assert got.median == statistics.median(values)


@given(st.lists(st.floats(0, 1e6, allow_nan=False), min_size=2, max_size=40))
def test_quartiles_of_numbers_are_the_rules_interpolation(values):
    got = cost.measure(values)
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    assert got.q1 == pytest.approx(q1, rel=1e-12, abs=1e-9) and got.q3 == pytest.approx(q3, rel=1e-12, abs=1e-9)
    xs = sorted(Fraction(v) for v in values)
    assert got.q1 == pytest.approx(float(ref_quartile(xs, Fraction(1, 4))), rel=1e-15, abs=1e-12)


def test_one_value_is_its_own_quartiles_and_none_is_nothing():
    assert cost.measure([7]) == cost.Measure(1, 7.0, 7.0, 7.0)
    assert cost.measure([]) == cost.Measure(0, None, None, None)


def brute_frontier(points) -> tuple[str, ...]:
    placed = [(a, s, c) for a, s, c in points if s is not None and c is not None]
    keep = [
        (c, a)
        for a, s, c in placed
        if not any(cb <= c and sb >= s and (cb < c or sb > s) for b, sb, cb in placed if b != a)
    ]
    return tuple(a for _, a in sorted(keep))


GRIDDED = st.lists(
    st.tuples(
        st.text("abcdef", min_size=1, max_size=3),
        st.none() | st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]),
        st.none() | st.sampled_from([10.0, 20.0, 30.0, 40.0]),
    ),
    max_size=12,
    unique_by=lambda p: p[0],
)


@given(GRIDDED)
def test_the_frontier_is_the_agents_no_one_dominates(points):
    assert cost.frontier(points) == brute_frontier(points)


def test_the_frontier_keeps_two_agents_on_one_point_and_orders_by_cost_then_id():
    points = [("z", 0.8, 20.0), ("a", 0.8, 20.0), ("m", 0.5, 10.0), ("x", 0.5, 15.0), ("q", 0.9, None)]
    assert cost.frontier(points) == ("m", "a", "z")


# ---------------------------------------------------------------- §5 dollars


PRICES = Prices("2026-11-01", "provider price pages", {"gpt-5.5": Price(1.25, 10.0, 0.125, 1.25)})


def priced(models=("gpt-5.5",), **values):
    record = dataclasses.replace(_BLANK_RECORD, kind="graded", models_reported=models)
    return dataclasses.replace(record, spent=spent(**values))


def test_dollars_are_the_rules_sum_in_its_order():
    record = priced(input_tokens=80_070, output_tokens=1_013, cache_read_tokens=18_010, cache_creation_tokens=9)
    got = cost.run_dollars(record, PRICES)
    assert got.cost_usd == (80_070 * 1.25 + 1_013 * 10.0 + 18_010 * 0.125 + 9 * 1.25) / 1e6
    assert not got.cache_unpriced


def test_a_cache_field_not_reported_adds_nothing_and_marks_the_run():
    got = cost.run_dollars(priced(input_tokens=1_000_000, output_tokens=0, cache_read_tokens=10), PRICES)
    assert got == cost.RunDollars(1.25 + 10 * 0.125 / 1e6, True)


@pytest.mark.parametrize(
    "record",
    [
        priced(models=("claude-x",), input_tokens=5, output_tokens=5),  # no price for its key
        priced(output_tokens=5),  # input not reported
        priced(input_tokens=5),  # output not reported
        priced(),  # nothing reported
    ],
)
def test_never_a_silent_zero(record):
    assert cost.run_dollars(record, PRICES).cost_usd is None


def test_spent_usd_is_none_when_no_run_has_a_price_and_absent_without_a_table():
    unpriced = cost.cost([priced(models=("claude-x",), input_tokens=5, output_tokens=5, total_tokens=10)], PRICES)
    assert (unpriced.spent_usd, unpriced.spent_usd_reported, unpriced.cost_usd.reported) == (None, 0, 0)
    assert cost.cost([priced(input_tokens=5, output_tokens=5)]).cost_usd is None


def test_a_price_for_a_model_key_no_run_has_is_a_configuration_error():
    runs = [to_run(0, _graded_spec())]
    board = summarize(make_export(runs))  # without prices: fine
    key = model_key(board.runs[0])
    prices = Prices("2026-11-01", "x", {key: Price(1, 1, 1, 1), "gpt-9": Price(1, 1, 1, 1)})
    with pytest.raises(ConfigError, match=r"podium.yaml: prices.models.gpt-9: no run has this model key"):
        summarize(make_export(runs), prices=prices)
    assert summarize(make_export(runs), prices=Prices("2026-11-01", "x", {key: Price(1, 1, 1, 1)})).prices


def _graded_spec() -> dict:
    return {
        "shape": "graded",
        "agent": "alpha",
        "mission": "m1",
        "version": "1.0.0",
        "result_trigger": None,
        "list_outcome": None,
        "list_trigger": None,
        "start": 0,
        "duration": 5,
        "judge_status": "ok",
        "judge_detail": None,
        "partial_trigger": None,
        "valid": True,
        "overall": Fraction(1, 2),
        "overall_upper": None,
        "det": Fraction(1, 2),
        "judge": Fraction(1, 2),
        "judge_model": None,
        "models_reported": ("ma",),
        "model": None,
    }


# ---------------------------------------------------------------- the packed values


@given(st.lists(st.none() | st.integers(0, 10**18 - 1), min_size=8, max_size=8))
def test_a_spent_gives_back_what_it_was_given(values):
    packed = Spent.of(values)
    if all(v is None for v in values):
        assert packed is None
        return
    assert packed.values() == tuple(values)
    assert [packed.get(name) for name in SPENT_FIELDS] == values
    assert len(packed) == (32 if all(v is None or v < 2**32 - 1 for v in values) else 64)


@pytest.mark.parametrize("data", [b"", b"x" * 31, b"\xfe" * 64, b"x" * 65])
def test_a_damaged_spent_is_refused(data):
    with pytest.raises(ValueError):
        Spent(data)


def test_budget_share_needs_a_positive_budget():
    record = dataclasses.replace(_BLANK_RECORD, configuration=Configuration(None, None, None, 0.0))
    assert record.budget_seconds is None and record.budget_share is None


# ---------------------------------------------------------------- §4 the tokens series, from what reports say

CELLS = st.sampled_from([None, "—", "0", "800", "1,000", "1,000", "1,250", "1600", "2,000", "2,500", "4,000"])
SIDE = st.lists(st.tuples(CELLS, st.sampled_from(["graded", "graded", "timeout", "operator"])), min_size=1, max_size=8)


def _spec_total(cell: str | None) -> int | None:
    """``total_tokens`` as cost.md §1 reads a Telemetry cell: a missing row or "—" is not reported, and so (rule 1)
    is a total of 0."""
    if cell is None or cell == "—" or int(cell.replace(",", "")) == 0:
        return None
    return int(cell.replace(",", ""))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SIDE, SIDE, st.sampled_from([1, 2, 3]))
def test_the_tokens_series_reads_the_telemetry_tables_as_the_progress_reference(old, new, scale):
    """End to end: reports whose Telemetry tables say the total (with separators, "—", 0 or no row), read and counted
    by the build; each cell step's tokens entry is progresskit's reference over ln(total_tokens) of the median
    population's runs that report it (cost.md §1 rule 1 and §4), the newer model's runs spending ``scale`` times."""
    from exportkit import ExportDir, graded, report_md
    from progresskit import ref_step

    from podium.load.export import load_export

    def cell(text: str | None, times: int) -> str | None:
        if text is None or text == "—" or times == 1:
            return text
        return f"{int(text.replace(',', '')) * times:,}"

    with tempfile.TemporaryDirectory() as tmp:
        export = ExportDir(Path(tmp) / "export")
        expected: dict[str, list[float]] = {"model-a": [], "model-b": []}
        sides = [("model-a", item, 1) for item in old] + [("model-b", item, scale) for item in new]
        for n, (model, (text, trigger), times) in enumerate(sides):
            total = cell(text, times)
            rows = "" if total is None else f"| Total tokens | {total} |\n| Model calls | 3 |\n"
            report = report_md().replace(
                "## Conditions", f"## Telemetry\n\n| Field | Value |\n| --- | --- |\n{rows}\n## Conditions"
            )
            partial = None if trigger == "graded" else trigger
            body = graded(run_id(("tokens", n)), model=model, partial_trigger=partial)
            export.run(body, report=report, trigger=partial, at=10 * n)
            if trigger in ("graded", "timeout") and (value := _spec_total(total)) is not None:
                expected[model].append(math.log(value))
        export.sidecars()
        board = summarize(load_export(export.root))
    (cell_progress,) = next(iter(board.progress.values())).cells
    if not cell_progress.steps:
        return
    x, y = expected["model-a"], expected["model-b"]
    got = cell_progress.newest_step.tokens
    assert (got.verdict, got.reasons, got.shift, got.ci99, got.ci90, got.steady_within) == ref_step(
        "tokens", x, y, x, y
    )
    assert (got.m, got.n) == (len(x), len(y))
