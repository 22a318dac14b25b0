"""The agent's steps across missions (docs/rules/progress.md §3): agent segments, strata, van Elteren, the agent
verdict and tally.

Budgets are a mission's (§7.11): across missions a budget stands in an agent configuration as its epoch
on that mission. A stratum's step is the step between the two cell segments holding the two agent
segments' configurations on that mission version (the same runs), so a stratum and a cell step between
adjacent segments are one computation (``CellWork.step``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from operator import attrgetter

from podium.count import stats
from podium.count.progress.cells import CellWork
from podium.count.progress.ranktests import van_elteren
from podium.count.progress.series import N_MIN, P_CHANGE, SCORE_SERIES, SERIES, Series, no_zeros, rounded
from podium.model import CONFIGURATION_FIELDS, Configuration
from podium.model.progress import AgentSegment, AgentSeries, AgentStep, JudgeStrata, Stratum, paired_runs

Pair = tuple[CellWork, int, int]  # a cell and the indices of the two agent segments' cell segments in it


@dataclass(slots=True)
class AgentSegmentWork:
    key: tuple  # (agent_version, model, judge_model, the budget's epoch on each mission): agent_keys
    configuration: Configuration  # as published: budget_seconds when all its missions share one, else None
    first: tuple[datetime, str]  # (start, run id) of its first and last run
    last: tuple[datetime, str]
    budgets: set = field(default_factory=set)
    runs: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SCORE_SERIES, 0))
    cells: list[tuple[CellWork, int]] = field(default_factory=list)  # the current cells it runs on, in cell order

    def result(self) -> AgentSegment:
        overall = [v for cell, index in self.cells for v in cell.segments[index].sides["overall"].values]
        return AgentSegment(self.configuration, self.first[1], self.last[1], dict(self.runs), stats.median(overall))


def agent_keys(cell: CellWork) -> dict[tuple, int]:
    """The agent-level key of each of a cell's segments -> its index (one segment a key).

    A budget is a mission's (XORCISE sets ``budget_seconds`` per mission version): two runs on
    different missions never differ by budget. So across missions a budget stands in a key as its
    epoch on that mission (0 for the first budget the agent's runs there had, 1 for the next to
    appear, ...): a budget changed on one mission makes a new agent configuration there and only
    there, and an agent whose missions merely have budgets of their own stays one configuration.
    When every mission has the same budget, the epochs are exactly the budgets (the plain reading)."""
    epochs: dict = {}
    keys = {}
    firsts = [segment.first for segment in cell.segments]
    for index in sorted(range(len(firsts)), key=lambda i: firsts[i] or (datetime.min.replace(tzinfo=UTC), "")):
        conf = cell.segments[index].configuration
        epoch = epochs.setdefault(conf.budget_seconds, len(epochs))
        keys[(conf.agent_version, conf.model, conf.judge_model, epoch)] = index
    return keys


def agent_segments(cells: list[CellWork]) -> tuple[list[AgentSegmentWork], int | None]:
    """Configurations over all counted runs on current versions (budgets by their epoch on each mission:
    agent_keys), ordered by their first run; and which holds the newest run."""
    by_key: dict[tuple, AgentSegmentWork] = {}
    for cell in cells:
        if not cell.current:
            continue
        cell.agent_keys = agent_keys(cell)
        for key, index in cell.agent_keys.items():
            segment = cell.segments[index]
            assert segment.first is not None and segment.last is not None
            work = by_key.get(key)
            if work is None:
                work = by_key[key] = AgentSegmentWork(key, segment.configuration, segment.first, segment.last)
            else:
                work.first = min(work.first, segment.first)
                work.last = max(work.last, segment.last)
            work.budgets.add(segment.configuration.budget_seconds)
            work.cells.append((cell, index))
            for s in SCORE_SERIES:
                work.runs[s] += len(segment.sides[s])
    for work in by_key.values():
        if len(work.budgets) > 1:
            version, model, judge_model, _ = work.key
            work.configuration = Configuration(version, model, judge_model, None)
    ordered = sorted(by_key.values(), key=attrgetter("first"))
    newest = max(range(len(ordered)), key=lambda i: ordered[i].last) if ordered else None
    return ordered, newest


def _changed(old: AgentSegmentWork, new: AgentSegmentWork) -> tuple[str, ...]:
    """The fields two agent configurations differ in: the budget when its epochs differ."""
    return tuple(name for name, a, b in zip(CONFIGURATION_FIELDS, old.key, new.key) if a != b)


def _pairs(old: AgentSegmentWork, new: AgentSegmentWork) -> list[Pair]:
    """The current cells both agent segments run on, in cell order: found from the one on fewer cells, so
    that every step of an agent costs what its segments' cells do, not what all the agent's cells do."""
    fewer, other = (old, new) if len(old.cells) <= len(new.cells) else (new, old)
    pairs = []
    for cell, index in fewer.cells:
        there = cell.agent_keys.get(other.key)
        if there is not None:
            pairs.append((cell, index, there) if fewer is old else (cell, there, index))
    return pairs


def agent_step(old: AgentSegmentWork, new: AgentSegmentWork) -> AgentStep:
    judge_changed = old.key[2] != new.key[2]
    pairs = _pairs(old, new)
    series: dict[str, AgentSeries | JudgeStrata] = {}
    for s in SERIES:
        strata = [
            (cell, a, b)
            for cell, a, b in pairs
            if len(cell.segments[a].sides[s.name]) and len(cell.segments[b].sides[s.name])
        ]
        found = agent_series(s, judge_changed, strata)
        series[s.name] = found if s.agent_verdict else JudgeStrata(found.tally, found.strata)
    return AgentStep(
        from_=old.configuration,
        to=new.configuration,
        changed=_changed(old, new),
        **series,  # type: ignore[arg-type]  # each series is its declared type
    )


def agent_series(series: Series, judge_changed: bool, strata: list[Pair]) -> AgentSeries:
    """§3 for one series: van Elteren over the strata, the weighted shift, the verdict, the tally."""
    name = series.name
    steps = [cell.step(a, b)[name] for cell, a, b in strata]
    published = tuple(Stratum(cell.mission, cell.version, step) for (cell, _, _), step in zip(strata, steps))
    counts: dict[str, int] = defaultdict(int)
    for step in steps:
        counts[step.verdict] += 1
    tally = no_zeros(counts, series.verdicts)
    sides = [(cell.segments[a].sides[name], cell.segments[b].sides[name]) for cell, a, b in strata]
    test = van_elteren([(x.sample(), y.sample()) for x, y in sides])
    shift = weighted_shift([(step.m, step.n, step.shift) for step in steps])
    reasons: tuple[str, ...] = ()
    up, down = counts.get(series.says("improved")), counts.get(series.says("regressed"))
    if judge_changed and series.judge_sensitive:
        verdict = "not_comparable"
    elif paired_runs(steps) < N_MIN:
        verdict = "too_few_runs"
    elif up and down:
        verdict = "mixed"
    else:
        move = _agent_move(series.delta, test.p, shift, up, down)
        if move is not None:
            verdict = move
            if "partial_judge" in series.guards and any(x.has_upper or y.has_upper for x, y in sides):
                upper_test = van_elteren([(x.upper_sample(), y.upper_sample()) for x, y in sides])
                upper_shift = weighted_shift(
                    [(step.m, step.n, cell.upper_shift(a, b, name)) for (cell, a, b), step in zip(strata, steps)]
                )
                if _agent_move(series.delta, upper_test.p, upper_shift, up, down) != move:
                    verdict, reasons = "unclear", ("partial_judge",)
        else:
            decided = [step for step in steps if step.m >= N_MIN and step.n >= N_MIN]
            steady = decided and all(step.verdict == series.says("steady") for step in decided)
            verdict = "steady" if steady else "unclear"
    return AgentSeries(series.says(verdict), reasons, shift, test.z, test.p, tally, published)


def weighted_shift(strata: list[tuple[int, int, float | None]]) -> float | None:
    """Σ v_s·shift_s / Σ v_s with v_s = m_s n_s / N_s, summed exactly (then rounded once)."""
    num = den = Fraction(0)
    for m, n, shift in strata:
        if shift is None:
            continue
        v = Fraction(m * n, m + n)
        num += v * Fraction(shift)
        den += v
    return float(num / den) if den else None


def _agent_move(delta: float, p: float | None, shift: float | None, up: int | None, down: int | None) -> str | None:
    """A move of the agent step (§3.2 step 4), no stratum having moved the other way."""
    if p is None or shift is None or not rounded(p) < P_CHANGE:
        return None
    if rounded(shift) >= delta and not down:
        return "improved"
    if rounded(shift) <= -delta and not up:
        return "regressed"
    return None
