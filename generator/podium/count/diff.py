"""What changed between two summary bundles (``podium diff``, the change report), and the gates.

Pure: two bundles (count/bundle.py) in, one report (a JSON-ready dict) out; words/diff_text.py
writes it as Markdown for a pull-request comment or job summary.
The report holds names, ids, versions, kinds and numbers only: no free text an
agent or a judge wrote ever reaches it. The numbers it adds (rank moves, median
changes, run deltas) are differences of the two bundles' published figures.

A median move is "inside both intervals" when the new median lies inside the old
95% CI and the old median inside the new one: the two bundles do not disagree,
so the move is not evidence of a change.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from podium.count.bundle import AgentView, Bundle, load_bundle
from podium.count.stats import published
from podium.errors import PodiumError
from podium.load.published import REPORT_SCHEMA
from podium.load.shape import (
    AMOUNT,
    BOOL,
    DIGEST,
    INT,
    NUMBER,
    PAIR,
    TEXT,
    TIME_TEXT,
    URL,
    Map,
    Maybe,
    OneOf,
    Opt,
)
from podium.model import CONFIGURATION_FIELDS, LEFT_OUT_KINDS, agents_named, provisional
from podium.model.jsonable import jsonable
from podium.model.progress import COST_VERDICTS, SCORE_VERDICTS

LEFT_OUT = LEFT_OUT_KINDS  # the kinds a report counts apart: model/__init__.py
ANY_AGENT = "*"


# ------------------------------------------------------------------ comparing


@dataclass(frozen=True, slots=True)
class Side:
    """One bundle as the report names it."""

    runs: int
    agents: int
    mission_versions: int
    digest: str | None
    newest_run: str | None


@dataclass(frozen=True, slots=True)
class ReportTotals:
    """The change in counted runs, not-a-run entries, problems and each left-out kind (``agents`` and ``moved``
    are added by :func:`with_counts`)."""

    runs: int
    not_a_run: int
    problems: int
    left_out: dict[str, int]


@dataclass(frozen=True, slots=True)
class ProgressRow:
    """An agent's headline progress verdict now and in the old bundle, with what changed (field names, the new
    agent version and budget: numbers only)."""

    verdict: str | None
    old_verdict: str | None
    known_before: bool
    changed: tuple[str, ...]
    agent_version: int | None
    budget_seconds: float | None


@dataclass(frozen=True, slots=True)
class CostRow:
    """What an agent's runs cost now and before (docs/rules/cost.md §6): its median tokens a run, whether it is on
    the cost frontier by tokens (``old_frontier`` None: the old bundle had no frontier, or no such agent), and the
    tokens verdict of its newest step (cost.md §4; ``old_tokens_verdict`` is read only from a summary that has it:
    ``tokens_known_before``)."""

    median_tokens: float | None
    old_median_tokens: float | None
    frontier: bool
    old_frontier: bool | None
    tokens_verdict: str | None
    old_tokens_verdict: str | None
    tokens_known_before: bool


@dataclass(frozen=True, slots=True)
class AgentRow:
    """A ranked agent now, beside what the old bundle said of it."""

    agent: str
    name: str
    url: str | None
    rank: int | None
    old_rank: int | None
    median: float | None
    old_median: float | None
    ci: tuple[float, ...] | None
    old_ci: tuple[float, ...] | None
    in_median: int
    old_in_median: int | None
    provisional: bool
    new_runs: int
    left_out: dict[str, int]
    is_new: bool
    progress: ProgressRow | None
    cost: CostRow
    delta: float | None  # the median's change, written without float noise as every figure (docs/rules/site.md §3)
    verdict: str  # ROW_VERDICTS


@dataclass(frozen=True, slots=True)
class AgentBrief:
    """An agent added or gone."""

    agent: str
    name: str
    url: str | None
    rank: int | None
    median: float | None
    runs: int
    provisional: bool


@dataclass(frozen=True, slots=True)
class Renamed:
    agent: str
    old_name: str
    name: str


@dataclass(frozen=True, slots=True)
class MissionAdded:
    mission: str
    version: str
    current: bool
    url: str | None
    runs: int


@dataclass(frozen=True, slots=True)
class MissionGone:
    mission: str
    version: str
    runs: int


@dataclass(frozen=True, slots=True)
class MissionOlder:
    """A mission version that was current and is older now (``current``: its mission's current version)."""

    mission: str
    version: str
    url: str | None
    runs: int
    current: str | None


@dataclass(frozen=True, slots=True)
class MissionRuns:
    """A mission version whose runs changed."""

    mission: str
    version: str
    url: str | None
    current: bool
    runs: int
    new_runs: int


@dataclass(frozen=True, slots=True)
class MissionChanges:
    added: tuple[MissionAdded, ...]
    gone: tuple[MissionGone, ...]
    became_older: tuple[MissionOlder, ...]
    runs: tuple[MissionRuns, ...]


@dataclass(frozen=True, slots=True)
class CellRuns:
    """Runs gained or lost by one agent on one mission version."""

    agent: str
    name: str
    mission: str
    version: str
    new_runs: int


@dataclass(frozen=True, slots=True)
class Report:
    """The change report (REPORT_SHAPE; ``changed`` and the totals' own counts are added when it is published:
    :func:`compare`)."""

    schema: str
    old: Side
    new: Side
    totals: ReportTotals
    agents: tuple[AgentRow, ...]
    agents_added: tuple[AgentBrief, ...]
    agents_gone: tuple[AgentBrief, ...]
    agents_renamed: tuple[Renamed, ...]
    missions: MissionChanges
    new_runs: tuple[CellRuns, ...]


def compare(old: Bundle, new: Bundle) -> dict:
    """The change report: every difference between ``old`` and ``new``, published (model/jsonable.py) with
    ``changed`` and its own counts read off it as off a report read back (:func:`with_counts`)."""
    report: dict = jsonable(
        Report(
            schema=REPORT_SCHEMA,
            old=_side(old),
            new=_side(new),
            totals=ReportTotals(
                runs=new.runs - old.runs,
                not_a_run=new.not_a_run - old.not_a_run,
                problems=new.problems - old.problems,
                left_out=_left_out_delta(old.counts, new.counts),
            ),
            agents=tuple(_agent_row(old, new, a) for a in new.agents.values()),
            agents_added=tuple(_agent_brief(a) for a in new.agents.values() if a.agent not in old.agents),
            agents_gone=tuple(_agent_brief(a) for a in old.agents.values() if a.agent not in new.agents),
            agents_renamed=tuple(
                Renamed(a.agent, old.agents[a.agent].name, a.name)
                for a in new.agents.values()
                if a.agent in old.agents and old.agents[a.agent].name != a.name
            ),
            missions=_missions(old, new),
            new_runs=_cell_runs(old, new),
        )
    )  # type: ignore[assignment]  # a dataclass is published as an object
    report["changed"] = _changed(report)
    return with_counts(report)


def with_counts(report: dict) -> dict:
    """``report`` with its own counts in ``totals``, made here once and read by its Markdown, its headline
    and its page: ``agents``, the change in ranked agents, and ``moved``, how many agents moved in rank.
    A report read back from a changes.json an older podium wrote gets them here too."""
    t = report["totals"]
    t.setdefault("agents", report["new"]["agents"] - report["old"]["agents"])
    t.setdefault("moved", sum(1 for a in report["agents"] if a["old_rank"] is not None and a["old_rank"] != a["rank"]))
    return report


def _side(b: Bundle) -> Side:
    return Side(
        runs=b.runs, agents=len(b.agents), mission_versions=len(b.missions), digest=b.digest, newest_run=b.newest
    )


def _provisional(a: AgentView) -> bool:
    """Whether the agent's rank is provisional (docs/rules/site.md "Ranks on few runs"): as its summary says;
    from its runs in the median for a summary an older podium wrote, which does not say."""
    return a.provisional if a.provisional is not None else provisional(a.in_median)


def _agent_brief(a: AgentView) -> AgentBrief:
    return AgentBrief(a.agent, a.name, a.url, a.rank, a.median, a.runs, _provisional(a))


def _all_runs(b: Bundle, agent: str) -> tuple[int, dict[str, int]]:
    """An agent's runs and counts over both scopes (runs move between them when a version goes old)."""
    views = [v for v in (b.agents.get(agent), b.older.get(agent)) if v is not None]
    counts: dict[str, int] = {}
    for v in views:
        for kind, n in v.counts.items():
            counts[kind] = counts.get(kind, 0) + n
    return sum(v.runs for v in views), counts


def _agent_row(old: Bundle, new: Bundle, a: AgentView) -> AgentRow:
    before = old.agents.get(a.agent)
    runs_new, counts_new = _all_runs(new, a.agent)
    runs_old, counts_old = _all_runs(old, a.agent)
    return AgentRow(
        agent=a.agent,
        name=a.name,
        url=a.url,
        rank=a.rank,
        old_rank=before.rank if before else None,
        median=a.median,
        old_median=before.median if before else None,
        ci=tuple(a.ci) if a.ci else None,
        old_ci=tuple(before.ci) if before and before.ci else None,
        in_median=a.in_median,
        old_in_median=before.in_median if before else None,
        provisional=_provisional(a),
        new_runs=runs_new - runs_old,
        left_out=_left_out_delta(counts_old, counts_new),
        is_new=before is None,
        progress=_progress_row(before, a),
        cost=_cost_row(old, new, before, a),
        delta=(
            published(a.median - before.median)
            if before and a.median is not None and before.median is not None
            else None
        ),
        verdict=_verdict(before, a),
    )


def _progress_row(before: AgentView | None, after: AgentView) -> ProgressRow | None:
    """The agent's headline progress row; None when the new bundle has no progress headline."""
    now = after.progress
    if now is None:
        return None
    old = before.progress if before is not None else None
    return ProgressRow(
        verdict=now.verdict,
        old_verdict=old.verdict if old is not None else None,
        known_before=old is not None,
        changed=tuple(now.changed),
        agent_version=now.agent_version,
        budget_seconds=now.budget_seconds,
    )


def _cost_row(old: Bundle, new: Bundle, before: AgentView | None, after: AgentView) -> CostRow:
    now, then = after.progress, before.progress if before is not None else None
    return CostRow(
        median_tokens=after.median_tokens,
        old_median_tokens=before.median_tokens if before is not None else None,
        frontier=new.frontier is not None and after.agent in new.frontier,
        old_frontier=(after.agent in old.frontier) if before is not None and old.frontier is not None else None,
        tokens_verdict=now.tokens if now is not None else None,
        old_tokens_verdict=then.tokens if then is not None else None,
        tokens_known_before=bool(then is not None and then.tokens_known and now is not None and now.tokens_known),
    )


def frontier_changed(row: dict) -> bool:
    """Whether an agent joined or left the cost frontier since the old bundle (one that had a frontier)."""
    cost = row.get("cost")
    return bool(cost and cost["old_frontier"] is not None and cost["frontier"] != cost["old_frontier"])


def tokens_changed(row: dict) -> bool:
    """Whether the tokens verdict of an agent's newest step changed since the old bundle (one that had it): a cost
    verdict that changed, like a score verdict (docs/rules/cost.md §6)."""
    cost = row.get("cost")
    return bool(
        cost and cost.get("tokens_known_before") and cost.get("tokens_verdict") != cost.get("old_tokens_verdict")
    )


def cost_changed(row: dict) -> bool:
    """Whether what an agent's score costs changed in a way a change report names: the frontier or the verdict."""
    return frontier_changed(row) or tokens_changed(row)


def _verdict(before: AgentView | None, after: AgentView) -> str:
    """new / unchanged / no_median / no_ci / inside_both_cis / outside_a_ci."""
    if before is None:
        return "new"
    if before.median is None or after.median is None:
        return "unchanged" if before.median == after.median else "no_median"
    if before.median == after.median:
        return "unchanged"
    if before.ci is None or after.ci is None:
        return "no_ci"
    inside = before.ci[0] <= after.median <= before.ci[1] and after.ci[0] <= before.median <= after.ci[1]
    return "inside_both_cis" if inside else "outside_a_ci"


def _left_out_delta(old: dict[str, int], new: dict[str, int]) -> dict[str, int]:
    return {k: new.get(k, 0) - old.get(k, 0) for k in LEFT_OUT if new.get(k, 0) != old.get(k, 0)}


def _missions(old: Bundle, new: Bundle) -> MissionChanges:
    current_now = {m.mission: m.version for m in new.missions.values() if m.current}
    return MissionChanges(
        added=tuple(
            MissionAdded(m.mission, m.version, m.current, m.url, m.runs)
            for key, m in new.missions.items()
            if key not in old.missions
        ),
        gone=tuple(
            MissionGone(m.mission, m.version, m.runs) for key, m in old.missions.items() if key not in new.missions
        ),
        became_older=tuple(
            MissionOlder(m.mission, m.version, m.url, m.runs, current_now.get(m.mission))
            for key, m in new.missions.items()
            if key in old.missions and old.missions[key].current and not m.current
        ),
        runs=tuple(
            MissionRuns(m.mission, m.version, m.url, m.current, m.runs, m.runs - _had(old, key))
            for key, m in new.missions.items()
            if m.runs != _had(old, key)
        ),
    )


def _had(old: Bundle, key: tuple[str, str]) -> int:
    """The runs a mission version had in the old bundle (0: none there)."""
    return old.missions[key].runs if key in old.missions else 0


def _cell_runs(old: Bundle, new: Bundle) -> tuple[CellRuns, ...]:
    """Runs gained or lost per agent on each mission version (both scopes); none for an agent whose runs per
    mission version one side does not hold (a summary in parts whose part was not read: its warning says so)."""

    unknown = {a.agent for b in (old, new) for scope in (b.agents, b.older) for a in scope.values() if a.cells is None}

    def cells(b: Bundle) -> dict[tuple[str, str, str], tuple[str, int]]:
        out: dict[tuple[str, str, str], tuple[str, int]] = {}
        for scope in (b.agents, b.older):
            for a in scope.values():
                if a.cells is None or a.agent in unknown:  # a part not read (count/bundle.py): rows unknown
                    continue
                for (mission, version), n in a.cells.items():
                    name, had = out.get((a.agent, mission, version), (a.name, 0))
                    out[(a.agent, mission, version)] = (name, had + n)
        return out

    before, after = cells(old), cells(new)
    order = {a: i for i, a in enumerate(list(new.agents) + list(new.older) + list(old.agents) + list(old.older))}
    rows = []
    for key in sorted(set(after) | set(before), key=lambda k: (order.get(k[0], len(order)), k)):
        name, n = after.get(key) or (before[key][0], 0)
        delta = n - before.get(key, ("", 0))[1]
        if delta:
            rows.append(CellRuns(key[0], name, key[1], key[2], delta))
    return tuple(rows)


def _changed(report: dict) -> bool:
    t = report["totals"]
    m = report["missions"]
    return bool(
        t["runs"]
        or t["not_a_run"]
        or t["left_out"]
        or report["agents_added"]
        or report["agents_gone"]
        or report["agents_renamed"]
        or m["added"]
        or m["gone"]
        or m["became_older"]
        or m["runs"]
        or report["new_runs"]
        or any(
            r["rank"] != r["old_rank"]
            or r["verdict"] not in ("unchanged", "new")
            or progress_changed(r)
            or cost_changed(r)
            for r in report["agents"]
        )
    )


def progress_changed(row: dict) -> bool:
    """Whether an agent's headline progress verdict changed since the old bundle (one that had verdicts)."""
    progress = row.get("progress")
    return bool(progress and progress["known_before"] and progress["verdict"] != progress["old_verdict"])


ROW_VERDICTS = ("new", "unchanged", "no_median", "no_ci", "inside_both_cis", "outside_a_ci")  # a row's (_verdict);
# how each reads is words/diff_text.py's ROW_VERDICT_WORDS
_LEFT_OUT = Map(INT, frozenset(LEFT_OUT))
_AGENT_BRIEF = {
    "agent": TEXT,
    "name": TEXT,
    "url": Maybe(Opt(URL)),
    "rank": Opt(INT),
    "median": Opt(NUMBER),
    "runs": INT,
    "provisional": Maybe(BOOL),
}
_VERSION = {"mission": TEXT, "version": TEXT}
_SIDE = {
    "runs": INT,
    "agents": INT,
    "mission_versions": Maybe(INT),
    "digest": Maybe(Opt(DIGEST)),
    "newest_run": Maybe(Opt(TIME_TEXT)),
}
# The change report, as compare() makes it and changes.json carries it: count/changes.py reads it back with this
# shape (a key marked Maybe may be missing from a report an older podium wrote).
REPORT_SHAPE = {
    "schema": OneOf({REPORT_SCHEMA}),
    "changed": BOOL,
    "old": _SIDE,
    "new": _SIDE,
    "totals": {
        "runs": INT,
        "not_a_run": INT,
        "problems": INT,
        "left_out": _LEFT_OUT,
        "agents": Maybe(INT),
        "moved": Maybe(INT),
    },
    "agents": [
        {
            "agent": TEXT,
            "name": TEXT,
            "url": Maybe(Opt(URL)),
            "rank": INT,
            "old_rank": Opt(INT),
            "median": Opt(NUMBER),
            "old_median": Opt(NUMBER),
            "delta": Opt(NUMBER),
            "ci": Opt(PAIR),
            "old_ci": Opt(PAIR),
            "in_median": Maybe(INT),
            "old_in_median": Maybe(Opt(INT)),
            "new_runs": INT,
            "left_out": _LEFT_OUT,
            "is_new": BOOL,
            "verdict": OneOf(ROW_VERDICTS),
            "provisional": Maybe(BOOL),
            "progress": Maybe(
                Opt(
                    {
                        "verdict": Opt(OneOf(SCORE_VERDICTS)),
                        "old_verdict": Opt(OneOf(SCORE_VERDICTS)),
                        "known_before": BOOL,
                        "changed": [OneOf(CONFIGURATION_FIELDS)],
                        "agent_version": Opt(INT),
                        "budget_seconds": Opt(NUMBER),
                    }
                ),
                None,
            ),
            "cost": Maybe(
                Opt(
                    {
                        "median_tokens": Opt(AMOUNT),
                        "old_median_tokens": Opt(AMOUNT),
                        "frontier": BOOL,
                        "old_frontier": Opt(BOOL),
                        "tokens_verdict": Maybe(Opt(OneOf(COST_VERDICTS)), None),
                        "old_tokens_verdict": Maybe(Opt(OneOf(COST_VERDICTS)), None),
                        "tokens_known_before": Maybe(BOOL, False),
                    }
                ),
                None,
            ),
        }
    ],
    "agents_added": [_AGENT_BRIEF],
    "agents_gone": [_AGENT_BRIEF],
    "agents_renamed": [{"agent": TEXT, "old_name": TEXT, "name": TEXT}],
    "missions": {
        "added": [{**_VERSION, "current": BOOL, "url": Maybe(Opt(URL)), "runs": INT}],
        "gone": [{**_VERSION, "runs": INT}],
        "became_older": [{**_VERSION, "url": Maybe(Opt(URL)), "runs": INT, "current": Opt(TEXT)}],
        "runs": [{**_VERSION, "url": Maybe(Opt(URL)), "current": BOOL, "runs": INT, "new_runs": INT}],
    },
    "new_runs": [{**_VERSION, "agent": TEXT, "name": TEXT, "new_runs": INT}],
}


# ------------------------------------------------------------------ gates


@dataclass(frozen=True)
class Gate:
    """``--fail-on-drop AGENT=PP``: trip when AGENT's median drops by more than PP points."""

    agent: str  # id, slug or name; "*" for every agent
    points: float

    @classmethod
    def parse(cls, text: str) -> Gate:
        agent, sep, limit = text.rpartition("=")
        try:
            points = float(limit)
        except ValueError:
            points = math.nan
        if not sep or not agent or not math.isfinite(points) or points < 0:
            raise PodiumError(
                f"--fail-on-drop {text!r}: expected AGENT=PP (PP: percentage points >= 0, "
                f"AGENT: an agent's id, slug or name, or * for every agent)"
            )
        return cls(agent, points)


@dataclass(frozen=True, slots=True)
class GateResult:
    """One gate on one agent: ``tripped`` and why (``reason``), in numbers (``delta``: the median's change;
    ``drop``: the fall in percentage points that the ``limit`` is held against)."""

    gate: str
    agent: str
    name: str
    limit: float
    old_median: float | None
    median: float | None
    delta: float | None
    drop: float | None
    tripped: bool
    reason: str  # ok / dropped / gone / no_median / no_median_before


def check_gates(old: Bundle, new: Bundle, gates: list[Gate]) -> list[dict]:
    """One result per gate and agent it covers (:class:`GateResult`, published).

    A drop is compared in percentage points rounded to 1e-9, so a drop of exactly PP does not trip.
    A named agent that lost its median, or is gone, trips; ``*`` covers agents with a median before
    that are still listed. A named agent in neither bundle is a usage error (a typo must not pass).
    """
    results = []
    for gate in gates:
        if gate.agent == ANY_AGENT:
            targets = [a for a in old.agents.values() if a.median is not None and a.agent in new.agents]
        else:
            targets = _match(gate.agent, old, new)
        for before in targets:
            results.append(jsonable(_gate_result(gate, before, new.agents.get(before.agent))))
    return results  # type: ignore[return-value]  # each a dataclass published as an object


def _gate_result(gate: Gate, before: AgentView, after: AgentView | None) -> GateResult:
    name, median = (after.name, after.median) if after else (before.name, None)
    delta = drop = None
    if before.median is None:
        tripped, reason = False, "no_median_before"
    elif after is None:
        tripped, reason = True, "gone"
    elif after.median is None:
        tripped, reason = True, "no_median"
    else:
        delta = after.median - before.median
        drop = round(-delta * 100, 9)
        tripped = drop > gate.points
        reason = "dropped" if tripped else "ok"
    return GateResult(
        f"{gate.agent}={gate.points:g}",
        before.agent,
        name,
        gate.points,
        before.median,
        median,
        delta,
        drop,
        tripped,
        reason,
    )


def _match(wanted: str, old: Bundle, new: Bundle) -> list[AgentView]:
    """The agent ``wanted`` names (id, then slug, then name, then case-folded name), as it was in ``old``."""
    pool = {**{a.agent: a for a in new.agents.values()}, **old.agents}
    found = agents_named(wanted, pool.values())
    if len(found) > 1:
        raise PodiumError(
            f"--fail-on-drop {wanted!r}: names more than one agent ({', '.join(a.agent for a in found)}); pass its id"
        )
    if found:
        a = found[0]
        return [old.agents[a.agent]] if a.agent in old.agents else []  # new agents have nothing to drop from
    raise PodiumError(f"--fail-on-drop {wanted!r}: no such agent in either summary")


def diff_files(
    old_path: Path, new_path: Path, gate_specs: Sequence[str] = (), warnings: list[str] | None = None
) -> tuple[dict, list[dict]]:
    """Load, compare and gate (the ``podium diff`` command without its printing); ``warnings`` gets the
    bundles' (agent parts not read)."""
    gates = [Gate.parse(s) for s in gate_specs]
    old, new = load_bundle(old_path), load_bundle(new_path)
    if warnings is not None:
        warnings += [*old.warnings, *new.warnings]
    return compare(old, new), check_gates(old, new, gates)
