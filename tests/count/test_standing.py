"""How clear a rank is (docs/rules/counting.md §9) and what a pair says beyond its verdicts
(docs/rules/compare.md §1.5): the rank range (LMArena's 1 + the agents clearly better), whether the leader's
interval lies above the next agent's, who wins head to head, and configuration changes inside compared runs.

Scores are multiples of 1/16; with 6 to 8 runs a median's 95% interval is [min, max] (counting.md §3.2)."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import count

from exportkit import graded, run_id

from podium.count.compare import head_to_head
from podium.count.figures import figures
from podium.count.standing import rank_clarity
from podium.count.summarize import summarize
from podium.load.export import load_export
from podium.model import AgentSummary

_ids = count(1)


def add(export, agent, values, *, mission="m1", version="1.0.0", agent_version=1, budget=3600):
    for x in values:
        n = next(_ids)
        body = graded(run_id(f"st{n}"), det=x, judge=x, mission_version=version)
        body["conditions"].update(agent_version=agent_version, budget_seconds=budget)
        export.run(body, rid=run_id(f"st{n}"), agent=agent, mission=mission, version=version)


def board_of(export):
    export.sidecars()
    return summarize(load_export(export.root))


def test_rank_ranges_count_the_agents_clearly_better_and_worse(export):
    add(export, "top", [0.875, 0.9375, 1.0, 1.0, 0.9375, 0.875])  # CI [0.875, 1.0]
    add(export, "mid", [0.5, 0.625, 0.75, 0.5, 0.625, 0.75])  # CI [0.5, 0.75]
    add(export, "wide", [0.0625, 0.5, 0.5625, 0.5625, 0.8125, 0.9375])  # CI [0.0625, 0.9375]: overlaps every one
    add(export, "low", [0.125, 0.1875, 0.25, 0.125, 0.1875, 0.25])  # CI [0.125, 0.25]
    add(export, "few", [0.4375])  # provisional: no interval
    board = board_of(export)
    ranks = {a.name: (a.rank, a.rank_range, a.ahead_of_next) for a in board.agents}
    # the order stays counting.md §5's (median desc): top 0.9375, mid 0.625, wide 0.5625, few 0.4375, low 0.1875
    assert [a.name for a in board.agents] == ["top", "mid", "wide", "few", "low"]
    # top: none clearly better; mid and low clearly worse (0.75 and 0.25 < 0.875): #1 to 5 - 2 = #3, as wide
    # overlaps it and few has no interval to tell; its interval lies above the next one's (0.875 > 0.75)
    assert ranks["top"] == (1, (1, 3), True)
    assert ranks["mid"] == (2, (2, 4), False)  # top clearly better (0.875 > 0.75); low clearly worse (0.25 < 0.5)
    assert ranks["wide"] == (3, (1, 5), None)  # apart from no interval; the next (few) has none
    assert ranks["few"] == (4, None, None)  # no interval: no range (its rank is provisional)
    assert ranks["low"] == (5, (3, 5), None)  # top and mid clearly better; nobody after it


def test_ahead_of_next_is_false_when_the_next_interval_overlaps(export):
    add(export, "a", [0.5, 0.625, 0.75, 0.5, 0.625, 0.75])
    add(export, "b", [0.4375, 0.5, 0.5625, 0.4375, 0.5, 0.5625])
    a, b = board_of(export).agents
    assert (a.ahead_of_next, a.rank_range, b.rank_range) == (False, (1, 2), (1, 2))
    assert b.ahead_of_next is None  # nobody after it


def test_rank_clarity_matches_counting_every_pair():
    """The bisection counts what comparing every pair counts, on random intervals with ties."""
    rng = random.Random(36)
    for _ in range(200):
        agents = []
        for i in range(rng.randint(1, 12)):
            ci = None
            if rng.random() < 0.8:
                low = rng.choice([k / 8 for k in range(9)])
                ci = (low, rng.choice([k / 8 for k in range(9) if k / 8 >= low]))
            median = None if ci is None and rng.random() < 0.3 else (ci[0] if ci else 0.5)
            fig = replace(figures([]), median=median, median_ci=ci)
            agents.append(AgentSummary(str(i), str(i), str(i), "", "current", i + 1, fig, ()))
        with_median = sum(a.figures.median is not None for a in agents)
        for agent, got in zip(agents, rank_clarity(tuple(agents)), strict=True):
            ci = agent.figures.median_ci
            if ci is None:
                assert got.rank_range is None
                continue
            others = [o.figures.median_ci for o in agents if o is not agent and o.figures.median_ci]
            better = sum(o[0] > ci[1] for o in others)
            worse = sum(o[1] < ci[0] for o in others)
            assert got.rank_range == (1 + better, with_median - worse)


def test_head_to_head_reads_the_superiority_as_published():
    assert head_to_head(0.625) == "a" and head_to_head(0.4375) == "b" and head_to_head(0.5) == "even"
    assert head_to_head((0.1 + 0.2 + 0.2) / 1.0 - 0.0000000000000001) == "even"  # 0.49999999999999994: noise


def test_a_pair_names_an_agent_whose_compared_runs_span_configurations(export):
    add(export, "ab", [0.5, 0.625, 0.75], agent_version=1)
    add(export, "ab", [0.5, 0.625, 0.75], agent_version=2)  # a new agent version on the same mission version
    add(export, "cd", [0.25, 0.375, 0.5, 0.25, 0.375, 0.5])
    add(export, "cd", [0.25, 0.375, 0.5, 0.25, 0.375, 0.5], mission="m2", budget=1800)  # another mission's budget
    add(export, "ab", [0.5, 0.625, 0.75, 0.5, 0.625, 0.75], mission="m2", budget=1800, agent_version=2)
    (pair,) = board_of(export).pairs
    assert (pair.a_name, pair.b_name) == ("ab", "cd")
    assert pair.configuration_fields_a == ("agent_version",)  # within m1: versions 1 and 2
    assert pair.configuration_fields_b == ()  # cd's budgets differ between missions, never within one
    assert pair.flags.configuration_changed == (pair.a,)
    assert pair.head_to_head == "a"


def test_the_matrix_and_the_pair_page_say_when_the_higher_ranked_agent_loses(export, tmp_path):
    import sitekit as kit

    add(export, "hi", [0.5] * 6)  # on the mission they share, hi scores 50%…
    add(export, "hi", [1.0] * 7, mission="m2")  # …but its median over both missions is 100%
    add(export, "lo", [0.75] * 6)
    export.sidecars()
    files = kit.site_files(kit.build(export.root, tmp_path / "site", root=tmp_path))
    matrix = kit.parse_html(files["compare/index.html"].decode())
    (cell,) = [td for td in matrix.all("td") if "cell" in (td.get("class") or "").split()]
    assert "h2h-b" in cell.get("class").split()
    assert "0.0%" in cell.text() and "loses head to head" in cell.text()
    pair = kit.parse_html(files["compare/hi/lo/index.html"].decode())
    (loses,) = [p for p in pair.all("p") if p.get("class") == "loses"]
    assert "hi is ranked above lo but loses head to head" in " ".join(loses.text().split())
