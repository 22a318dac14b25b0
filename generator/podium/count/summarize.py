"""The one summary step: an Export in, the Leaderboard every output reads (counting.md).

Pure: no I/O, no clock. Classifies each run once (``kinds``), decides current
and older mission versions (``versions``), computes every figure of §3 per
agent, per mission version and per agent on each mission version, ranks agents
(§5) and measures grader agreement (§6).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import replace

from podium import routes
from podium.count import compare, cost, ledger, standing, stats
from podium.count.figures import figures, kind_counts, rank_key
from podium.count.kinds import record_of
from podium.count.progress import agent_progress
from podium.count.versions import current_versions, version_key
from podium.errors import ConfigError
from podium.model import (
    SCORED_KINDS,
    AgentMission,
    AgentSummary,
    Cost,
    Coverage,
    Export,
    Figures,
    Leaderboard,
    MissionAgent,
    MissionVersionSummary,
    ModelSummary,
    Prices,
    Problem,
    RunGroups,
    RunRecord,
    Totals,
    iso_utc,
    provisional,
)


def summarize(
    export: Export,
    configured_current: dict[str, str] | None = None,
    config_name: str = "podium.yaml",
    run_pages: int | None = None,
    prices: Prices | None = None,
) -> Leaderboard:
    """Count every run of ``export`` exactly once (its runs: compact records, or whole runs to make them of).

    ``run_pages`` (``run_pages: {newest: N}``): only the newest N counted runs of each agent on each mission
    version keep a page of their own; every other run links to its row on its ledger page (its record's url).
    A cancelled or never-started run is in no group and keeps its page.

    ``prices`` (``prices:``): the price table dollars are counted from (docs/rules/cost.md §5); a price for a
    model key no run has is a ConfigError."""
    configured_current = configured_current or {}
    records = [run if isinstance(run, RunRecord) else record_of(run) for run in export.runs]
    problems, notes = list(export.problems), export.notes
    runs_read, inputs_digest = export.runs_read, export.inputs_digest
    del export  # the reader's records are replaced one by one below: a history is never held twice
    seen: dict[str, set[str]] = defaultdict(set)
    for record in records:
        if record.kind != "not_a_run":
            seen[record.mission].add(record.version)
    current = current_versions(seen, configured_current)
    problems += _config_problems(seen, configured_current, config_name)
    if errors := cost.price_errors(prices, records, config_name):
        raise ConfigError("\n".join(errors))
    urls = _Urls(records, seen)
    never = cost.never_reported(records)  # docs/rules/cost.md §1 rule 3: over the whole build, applied below
    for index, record in enumerate(records):
        records[index] = _placed(record, current, urls, never)
    records.sort(key=_newest_first)
    groups = _groups(records)
    layout = ledger.layout(records, urls.agent_slugs)
    if run_pages is not None:  # in place, each record replaced once: a history is never held twice
        for indices in groups.by_agent_version.values():
            for index in indices[run_pages:]:
                records[index] = replace(records[index], url=layout.anchor(index, records[index].run_id))
    counted_records = [r for r in records if r.kind != "not_a_run"]
    cell_runs = {key: [records[i] for i in group] for key, group in groups.by_agent_version.items()}
    cells = {key: figures(own) for key, own in cell_runs.items()}
    missions = _missions(records, groups, current, urls, cells)
    agents, agents_older = _agents(records, groups, current, urls, cells)
    pairs = compare.pairs(agents, cell_runs, cells, current, urls.mission)
    by_model = compare.by_model(records, urls.agent_names, urls.agent)
    costs = _Costs(records, groups, prices)
    agents, agents_older = costs.agents(agents, groups), costs.agents(agents_older, groups)
    missions, by_model = costs.missions(missions, groups), costs.models(by_model)
    progress = {
        agent: agent_progress(agent, urls.agent_names[agent], urls.agent_slugs[agent], [records[i] for i in indices])
        for agent, indices in groups.by_agent.items()
    }
    return Leaderboard(
        totals=Totals(
            runs=len(counted_records),
            not_a_run=len(records) - len(counted_records),
            counts=kind_counts(counted_records),
            last_run=iso_utc(max((r.when for r in counted_records if r.when), default=None)),
        ),
        agents=agents,
        agents_older=agents_older,
        missions=missions,
        runs=tuple(records),
        problems=tuple(sorted(set(problems))),
        runs_read=runs_read,
        inputs_digest=inputs_digest,
        notes=notes,
        groups=groups,
        pairs=pairs,
        by_model=by_model,
        ledger=layout,
        progress=progress,
        frontier=cost.frontiers((a.agent, a.figures.median, a.cost) for a in agents),
        prices=prices,
    )


def _config_problems(seen: dict[str, set[str]], configured: dict[str, str], config_name: str) -> list[Problem]:
    out = []
    for mission, version in sorted(configured.items()):
        if mission in seen and version not in seen[mission]:
            out.append(
                Problem(
                    config_name,
                    f"missions.{mission}.current",
                    f"version {version!r} has no runs in this export; all runs of {mission} are older",
                )
            )
    return out


class _Urls:
    """Slugs and page paths for every agent, mission version and run."""

    def __init__(self, records: list[RunRecord], seen: dict[str, set[str]]):
        self.agent_names: dict[str, str] = {}
        for record in sorted((r for r in records if r.kind != "not_a_run"), key=lambda r: r.run_id):
            self.agent_names.setdefault(record.agent, record.agent_name)
        self.agent_slugs = routes.unique_slugs(self.agent_names)
        self.mission_slugs = routes.mission_slugs({m: m for m in seen})
        self.version_segments = {
            mission: routes.unique_slugs({v: v for v in versions}, make=routes.version_segment)
            for mission, versions in seen.items()
        }
        self.made: dict = {}  # the paths made so far

    def agent(self, agent: str) -> str | None:  # one string per agent: every record of it shares it
        if agent not in self.made:
            slug = self.agent_slugs.get(agent)
            self.made[agent] = routes.agent_path(slug) if slug else None
        return self.made[agent]

    def mission(self, mission: str, version: str) -> str | None:
        key = (mission, version)
        if key not in self.made:
            known = mission in self.mission_slugs and version in self.version_segments[mission]
            self.made[key] = (
                routes.mission_path(self.mission_slugs[mission], self.version_segments[mission][version])
                if known
                else None
            )
        return self.made[key]


def _placed(
    record: RunRecord, current: dict[str, str], urls: _Urls, never: dict[str | None, frozenset[str]]
) -> RunRecord:
    """The record with what the whole board decides: older version or not, its page and its links, and the
    values its harness never reports made "not reported" (docs/rules/cost.md §1 rule 3)."""
    return replace(
        record,
        older=record.kind != "not_a_run" and current.get(record.mission) != record.version,
        url=routes.run_path(record.run_id),
        agent_url=urls.agent(record.agent),
        mission_url=urls.mission(record.mission, record.version),
        spent=cost.without_never_reported(record, never),
    )


class _Costs:
    """What each scope's runs cost (docs/rules/cost.md §2) and the frontier of each current mission version
    (§3), added to the summaries the summary step made: cells, agents, mission versions, model keys. What a scope
    reads of a run is made once per run (count/cost.py ``run_facts``), and each scope sums its runs' by index."""

    def __init__(self, records: list[RunRecord], groups: RunGroups, prices: Prices | None):
        self.records, self.priced = records, prices is not None
        self.facts = [cost.run_facts(r, prices) if r.kind != "not_a_run" else None for r in records]
        self.cells = {key: self.of(indices) for key, indices in groups.by_agent_version.items()}

    def of(self, indices) -> Cost:
        facts = self.facts
        return cost.figures_of((f for i in indices if (f := facts[i]) is not None), self.priced)

    def agents(self, agents: tuple[AgentSummary, ...], groups: RunGroups) -> tuple[AgentSummary, ...]:
        out = []
        for a in agents:
            older = a.scope == "older"
            own = [i for i in groups.by_agent[a.agent] if self.records[i].older == older]
            missions = tuple(replace(m, cost=self.cells[(a.agent, m.mission, m.version)]) for m in a.missions)
            out.append(replace(a, cost=self.of(own), missions=missions))
        return tuple(out)

    def missions(
        self, missions: tuple[MissionVersionSummary, ...], groups: RunGroups
    ) -> tuple[MissionVersionSummary, ...]:
        out = []
        for m in missions:
            frontier = None
            if m.current:
                frontier = cost.frontiers(
                    (a.agent, a.median, self.cells[(a.agent, m.mission, m.version)]) for a in m.agents
                )
            out.append(replace(m, cost=self.of(groups.by_version[(m.mission, m.version)]), frontier=frontier))
        return tuple(out)

    def models(self, models: tuple[ModelSummary, ...]) -> tuple[ModelSummary, ...]:
        return tuple(replace(m, cost=self.of(m.runs)) for m in models)


def _newest_first(record: RunRecord) -> tuple:
    when = record.when.timestamp() if record.when else -math.inf
    return (-when, record.run_id)


Cells = dict[tuple[str, str, str], Figures]  # (agent, mission, version) -> figures, computed once


def _groups(records: list[RunRecord]) -> RunGroups:
    """Counted runs by agent, by mission version and by both (indices, newest first as ``records``)."""
    by_agent: dict[str, list[int]] = defaultdict(list)
    by_version: dict[tuple[str, str], list[int]] = defaultdict(list)
    by_agent_version: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for index, record in enumerate(records):
        if record.kind == "not_a_run":
            continue
        by_agent[record.agent].append(index)
        by_version[(record.mission, record.version)].append(index)
        by_agent_version[(record.agent, record.mission, record.version)].append(index)

    def frozen(groups: dict) -> dict:
        return {key: tuple(value) for key, value in groups.items()}

    return RunGroups(frozen(by_agent), frozen(by_version), frozen(by_agent_version))


def _agent_missions(
    agent: str, records: list[RunRecord], current: dict[str, str], urls: _Urls, cells: Cells
) -> tuple[AgentMission, ...]:
    versions = {(r.mission, r.version) for r in records}
    ordered = sorted(sorted(versions, key=lambda mv: version_key(mv[1]), reverse=True), key=lambda mv: mv[0])
    return tuple(
        AgentMission(
            mission,
            version,
            current.get(mission) == version,
            urls.mission(mission, version),
            cells[(agent, mission, version)],
            provisional(cells[(agent, mission, version)].in_median),
        )
        for mission, version in ordered
    )


def _agents(records: list[RunRecord], groups: RunGroups, current: dict[str, str], urls: _Urls, cells: Cells):
    headline, older = [], []
    current_versions = sum(current.get(mission) == version for mission, version in groups.by_version)
    for agent, indices in groups.by_agent.items():
        own = [records[i] for i in indices]
        name = urls.agent_names[agent]
        slug = urls.agent_slugs[agent]
        mine = [r for r in own if not r.older]
        theirs = [r for r in own if r.older]
        missions = _agent_missions(agent, mine, current, urls, cells)
        reported = compare.reported_models(own)
        headline.append(
            AgentSummary(
                agent,
                name,
                slug,
                urls.agent(agent),
                "current",
                None,
                figures(mine),
                missions,
                coverage=Coverage(
                    tuple(sorted({m.mission for m in missions if m.current and m.figures.in_median})),
                    current_versions,
                ),
                # the agent page warns only when its harness reported more than one model over its runs, current
                # and older versions (docs/rules/site.md §13), decided on the names as recorded (two that redact
                # alike are still two)
                reported_models=reported[0],
                reported_models_more=reported[1] - len(reported[0]),
                models_changed=reported[1] > 1,
            )
        )
        if theirs:
            older.append(
                AgentSummary(
                    agent,
                    name,
                    slug,
                    urls.agent(agent),
                    "older",
                    None,
                    figures(theirs),
                    _agent_missions(agent, theirs, current, urls, cells),
                )
            )
    headline.sort(key=lambda a: rank_key(a.name, a.agent, a.figures))
    ranked = standing.rank_clarity(
        tuple(replace(a, rank=i + 1, provisional=provisional(a.figures.in_median)) for i, a in enumerate(headline))
    )
    order = {a.agent: i for i, a in enumerate(ranked)}
    return ranked, tuple(sorted(older, key=lambda a: order[a.agent]))


def _missions(
    records: list[RunRecord], groups: RunGroups, current: dict[str, str], urls: _Urls, cells: Cells
) -> tuple[MissionVersionSummary, ...]:
    out = []
    for (mission, version), indices in groups.by_version.items():
        own = [records[i] for i in indices]
        chips = []
        for agent in {r.agent for r in own}:
            fig = cells[(agent, mission, version)]
            name = urls.agent_names[agent]
            chips.append(
                (
                    rank_key(name, agent, fig),
                    MissionAgent(
                        agent, name, urls.agent(agent), fig.median, fig.in_median, fig.runs, provisional(fig.in_median)
                    ),
                )
            )
        full = [abs(r.deterministic - r.judge) for r in own if r.judge is not None and r.judge_status == "ok"]
        whole = figures(own)
        out.append(
            MissionVersionSummary(
                mission=mission,
                version=version,
                current=current.get(mission) == version,
                url=urls.mission(mission, version),
                figures=whole,
                judge_vs_checks=stats.mean(full),
                agents=tuple(chip for _, chip in sorted(chips, key=lambda c: c[0])),
                scored=sum(whole.counts[kind] for kind in SCORED_KINDS),
            )
        )
    out.sort(key=lambda m: version_key(m.version), reverse=True)
    out.sort(key=lambda m: (not m.current, m.mission))
    return tuple(out)
