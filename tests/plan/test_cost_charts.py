"""The chart "What each score costs" (plan/cost_charts.py; docs/rules/cost.md §6): agents placed by median score
(up) and median tokens a run (across, log scale), the frontier first and joined by a staircase, provisional agents
hollow, bounded, and a sentence for screen readers."""

from __future__ import annotations

import math
import re

from podium.model.cost import Cost, Measure
from podium.plan import cost_charts
from podium.plan.cost_charts import Entry, cost_chart

NONE = Measure(0, None, None, None)


def _cost(tokens: float | None) -> Cost:
    measure = Measure(5, tokens, tokens, tokens) if tokens is not None else NONE
    return Cost(5, measure, NONE, NONE, Measure(5, 600.0, 600.0, 600.0), NONE, 0, 0, 5, {})


def _entry(agent: str, median: float | None, tokens: float | None, provisional: bool = False) -> Entry:
    return Entry(agent, agent, f"agents/{agent}/", 0, median, _cost(tokens), provisional, agent)


def test_points_ticks_and_the_staircase():
    entries = [
        _entry("a", 0.9, 80_000),
        _entry("b", 0.6, 20_000, provisional=True),
        _entry("c", 0.5, 50_000),  # dominated by b
        _entry("d", None, 10_000),  # no median: not placed
        _entry("e", 0.4, None),  # no tokens reported: not placed
    ]
    chart = cost_chart(entries, ["b", "a"])
    assert [p.agent for p in chart.points] == ["a", "b", "c"]  # the frontier first, then the rest, each in rank order
    assert (chart.placed, chart.unplaced, chart.shown) == (3, 2, 3)
    by = {p.agent: p for p in chart.points}
    assert by["b"].hollow and not by["a"].hollow and by["a"].frontier and not by["c"].frontier
    assert [label for label, _ in chart.x_ticks] == ["10k", "100k"]
    low, high = chart.x_ticks[0][1], chart.x_ticks[-1][1]
    for p, tokens in ((by["a"], 80_000), (by["b"], 20_000), (by["c"], 50_000)):  # log scale between the decades
        assert math.isclose((p.x - low) / (high - low), math.log10(tokens / 10_000), abs_tol=1e-9)
    assert by["a"].y < by["b"].y < by["c"].y  # a higher score is drawn higher (SVG y grows downwards)
    moves = re.findall(r"([MHV])([0-9.]+)(?: ([0-9.]+))?", chart.staircase)
    assert moves[0][0] == "M" and math.isclose(float(moves[0][1]), by["b"].x, abs_tol=0.01)  # from the cheapest
    assert [m[0] for m in moves[1:]] == ["H", "V", "H"]  # across to the next agent, up to it, then to the edge
    assert math.isclose(float(moves[1][1]), by["a"].x, abs_tol=0.01)
    assert math.isclose(float(moves[2][1]), by["a"].y, abs_tol=0.01)
    assert "3 agents placed" in chart.desc and "2 on the frontier" in chart.desc and "2 not placed" in chart.desc


def test_at_most_points_agents_are_drawn_the_frontier_kept(monkeypatch):
    monkeypatch.setattr(cost_charts, "POINTS", 3)
    entries = [_entry(f"a{i}", 0.5, 1000.0 + i) for i in range(6)] + [_entry("top", 0.9, 50_000)]
    chart = cost_chart(entries, ["a0", "top"])
    assert [p.agent for p in chart.points] == ["a0", "top", "a1"] and chart.shown == 3 and chart.placed == 7
    assert "(3 of 7: the frontier, then by rank)" in chart.desc


def test_no_agent_with_tokens_draws_no_point():
    chart = cost_chart([_entry("a", 0.5, None)], [])
    assert (chart.points, chart.staircase, chart.placed, chart.unplaced) == ((), "", 0, 1)
