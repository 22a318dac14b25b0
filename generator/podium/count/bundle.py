"""A summary bundle: what a change report compares, from a published summary.json or from this build's board.

``podium diff`` and ``podium build --previous`` read the previous side back from a
``summary.json`` (or the site directory holding ``api/results/summary.json``): read as
strict JSON of bounded size (load/published.py), checked field by field against
SUMMARY_SHAPE (load/shape.py), names cleaned and capped. The new side of a build's change
report is taken from the board directly (:func:`bundle_of`), equal to what reading its
summary.json back would give.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from podium.count.stats import published
from podium.load.previous import BundleError, SummaryParts, read_summary, summary_parts
from podium.load.published import SUMMARY_SCHEMA, SUMMARY_WHOLE_SCHEMA
from podium.load.shape import (
    AMOUNT,
    ANY,
    BOOL,
    CI,
    COUNT,
    DIGEST,
    INT,
    NUMBER,
    SCORE,
    TEXT,
    TIME_TEXT,
    Either,
    Map,
    Maybe,
    Misfit,
    OneOf,
    Opt,
    capped,
    pick,
)
from podium.model import CONFIGURATION_FIELDS, Leaderboard, published_version
from podium.model.progress import COST_VERDICTS, SCORE_VERDICTS, AgentProgress


@dataclass(frozen=True)
class AgentView:
    agent: str
    name: str
    slug: str
    url: str | None
    rank: int | None
    median: float | None
    ci: tuple[float, float] | None
    runs: int
    in_median: int
    counts: dict[str, int]
    cells: dict[tuple[str, str], int] | None  # (mission, version) -> runs; None: its part could not be read
    progress: Progress | None = None  # its progress headline; None: a summary from before progress verdicts
    provisional: bool | None = None  # as the summary says (ranked agents); None: older, or a summary without it
    median_tokens: float | None = None  # its cost's median tokens a run (docs/rules/cost.md §2); None: none, or
    # a summary from before cost figures


@dataclass(frozen=True)
class Progress:
    """An agent's progress headline as a change report reads it: the verdict and what changed, with the new
    agent version and budget (numbers; a model's name is agent-written text, so only that it changed)."""

    verdict: str | None
    changed: tuple[str, ...]
    agent_version: int | None
    budget_seconds: float | None
    tokens: str | None = None  # the tokens verdict of the same step (docs/rules/cost.md §4)
    tokens_known: bool = False  # the summary says it (a summary from before cost figures does not)


@dataclass(frozen=True)
class MissionView:
    mission: str
    version: str
    current: bool
    url: str | None
    runs: int


@dataclass(frozen=True)
class Bundle:
    source: str
    runs: int
    not_a_run: int
    counts: dict[str, int]
    agents: dict[str, AgentView]  # current scope, in rank order
    older: dict[str, AgentView]
    missions: dict[tuple[str, str], MissionView]
    problems: int
    digest: str | None
    newest: str | None  # the newest run time in the bundle (ISO-8601 UTC)
    warnings: tuple[str, ...] = ()  # agents' parts that could not be read (their runs per mission version unknown)
    frontier: tuple[str, ...] | None = None  # the agents on the cost frontier by tokens; None: a summary from
    # before the frontier (docs/rules/cost.md §3)


def _agent_shape(ranked: bool, parted: bool = False) -> dict:
    """An agent's entry; ``parted``: as the index of a summary in parts holds it (its missions counted, their
    runs in its part, which its slug names)."""
    return {
        "agent": TEXT,
        "name": TEXT,
        "slug": TEXT if parted else Maybe(TEXT, ""),
        "url": Maybe(Opt(TEXT), None),
        **({"rank": COUNT, "provisional": Maybe(Opt(BOOL), None)} if ranked else {}),
        "median": Maybe(Opt(SCORE), None),
        "median_ci": Maybe(Opt(CI), None),
        "runs": COUNT,
        "in_median": COUNT,
        "counts": Map(COUNT),
        "missions": COUNT if parted else Maybe(MISSION_RUNS, []),
        "last_run": Maybe(Opt(TIME_TEXT), None),
        **({"progress": Maybe(Either(PROGRESS_SHAPE, None), None)} if ranked else {}),
        "cost": Maybe(Either({"total_tokens": {"median": Opt(AMOUNT)}}, None), None),
    }


MISSION_RUNS = [{"mission": TEXT, "version": TEXT, "runs": COUNT}]  # an agent's runs per mission version
PROGRESS_SHAPE = {  # an agent's progress headline (read by change reports; absent from older summaries)
    "verdict": Opt(OneOf(SCORE_VERDICTS, "a progress verdict")),
    "changed": [OneOf(CONFIGURATION_FIELDS, "a configuration field")],
    "to": Maybe(
        Either(
            {
                "agent_version": Maybe(Either(Opt(INT), None), None),
                "budget_seconds": Maybe(Either(Opt(NUMBER), None), None),
            },
            {},
        ),
        {},
    ),
    "tokens": Maybe(Either({"verdict": Opt(OneOf(COST_VERDICTS, "a cost verdict"))}, None), None),
}


def _progress(headline: dict | None) -> Progress | None:
    if headline is None:
        return None
    to = headline["to"] or {}
    budget = to.get("budget_seconds")
    tokens = headline["tokens"]
    return Progress(
        headline["verdict"],
        tuple(headline["changed"]),
        to.get("agent_version"),
        float(budget) if budget is not None else None,
        tokens["verdict"] if tokens is not None else None,
        tokens is not None,
    )


SCHEMA_SHAPE = {"schema": OneOf({SUMMARY_SCHEMA, SUMMARY_WHOLE_SCHEMA}, "a podium summary")}
SUMMARY_SHAPE = {  # what podium reads of a summary.json (summary.schema.json describes all of it)
    **SCHEMA_SHAPE,
    "totals": {"runs": COUNT, "not_a_run": Maybe(COUNT, 0), "counts": Map(COUNT)},
    "agents": [_agent_shape(ranked=True)],
    "agents_older": Maybe([_agent_shape(ranked=False)], []),
    "missions": [{"mission": TEXT, "version": TEXT, "current": BOOL, "url": Maybe(Opt(TEXT), None), "runs": COUNT}],
    "problems": Maybe([ANY], []),  # counted only
    "source": Maybe(Either({"inputs_digest": Maybe(Either(DIGEST, None), None)}, None), None),
    "frontier": Maybe(Either({"total_tokens": [TEXT]}, None), None),
}


# The index of a summary in parts (podium.summary/2, render/summary_parts.py): each agent's runs per mission
# version are in its part (PART_SHAPE), which its slug names.
INDEX_SHAPE = {
    **SUMMARY_SHAPE,
    "agents": [_agent_shape(ranked=True, parted=True)],
    "agents_older": Maybe([_agent_shape(ranked=False, parted=True)], []),
}
PART_SHAPE = {"agent": TEXT, "current": Opt({"missions": MISSION_RUNS}), "older": Opt({"missions": MISSION_RUNS})}


def load_bundle(path: Path) -> Bundle:
    """Read (load/previous.py) and check one summary bundle, and the agents' parts beside it when it is in
    parts; a BundleError names the file and the field (a BundleTooLarge: over the size podium reads back)."""
    return bundle_from(*read_summary(path), summary_parts(path))


def bundle_from(data: object, where: str, parts: SummaryParts | None = None) -> Bundle:
    """A summary read back: checked against SUMMARY_SHAPE (names cleaned and capped), each agent and
    mission version listed once. A summary in parts (``podium.summary/2``) has each agent's runs per mission
    version in its part, read from ``parts``: an agent whose part cannot be read has none (None; the change
    report leaves its runs per mission version out) and a warning says which."""
    try:
        parted = pick(data, SCHEMA_SHAPE)["schema"] == SUMMARY_SCHEMA
        top = pick(data, INDEX_SHAPE if parted else SUMMARY_SHAPE)
    except Misfit as err:
        raise BundleError(f"{where}: {err}") from None
    unread: list[str] = []
    if parted:
        _cells_from_parts(top, parts, unread)
    agents = _unique([_agent_view(a, ranked=True) for a in top["agents"]], "agents", where)
    older = _unique([_agent_view(a, ranked=False) for a in top["agents_older"]], "agents_older", where)
    missions: dict[tuple[str, str], MissionView] = {}
    for i, m in enumerate(top["missions"]):
        view = MissionView(m["mission"], m["version"], m["current"], m["url"], m["runs"])
        if (view.mission, view.version) in missions:
            raise BundleError(
                f"{where}: missions[{i}]: mission version {view.mission!r} {view.version!r} is listed twice"
            )
        missions[(view.mission, view.version)] = view
    last = (a["last_run"] for scope in ("agents", "agents_older") for a in top[scope])
    totals = top["totals"]
    return Bundle(
        source=where,
        runs=totals["runs"],
        not_a_run=totals["not_a_run"],
        counts=totals["counts"],
        agents=agents,
        older=older,
        missions=missions,
        problems=len(top["problems"]),
        digest=(top["source"] or {}).get("inputs_digest"),
        newest=_newest(last),
        frontier=tuple(top["frontier"]["total_tokens"]) if top["frontier"] is not None else None,
        warnings=_unread_warning(where, unread),
    )


def _cells_from_parts(top: dict, parts: SummaryParts | None, unread: list[str]) -> None:
    """Each agent entry of the index ``top`` with its ``missions`` from its part (None when it cannot be read:
    why is added to ``unread``). A part is read once for both scopes; one that names another agent is not used."""
    read: dict[str, dict | None] = {}
    for scope, key in (("agents", "current"), ("agents_older", "older")):
        for entry in top[scope]:
            slug = entry["slug"]
            if slug not in read:
                read[slug] = _part(parts, slug, unread)
            part = read[slug]
            if part is not None and part["agent"] != entry["agent"]:
                unread.append(f"{slug}: its part is of agent {part['agent']!r}, not {entry['agent']!r}")
                part = read[slug] = None
            detail = part[key] if part is not None else None
            entry["missions"] = detail["missions"] if detail is not None else None


def _part(parts: SummaryParts | None, slug: str, unread: list[str]) -> dict | None:
    if parts is None:
        unread.append(f"{slug}: no parts beside the summary")
        return None
    value, why = parts.agent(slug)
    if why is not None:
        unread.append(why)
        return None
    try:
        return pick(value, PART_SHAPE)
    except Misfit as err:
        unread.append(f"{slug}: {err}")
        return None


def _unread_warning(where: str, unread: list[str]) -> tuple[str, ...]:
    """One warning for every agent part of ``where`` not read: how many, and the first few reasons."""
    if not unread:
        return ()
    first = "; ".join(unread[:3]) + (f"; and {len(unread) - 3} more" if len(unread) > 3 else "")
    return (
        f"{where}: {len(unread)} agent part(s) of this summary could not be read ({first}): the change report "
        "leaves out those agents' runs per mission version",
    )


def _newest(times: Iterable[str | None]) -> str | None:
    """The newest run time of a bundle: the latest of its agents' last runs (ISO-8601 UTC sorts as text)."""
    return max((t for t in times if t), default=None)


def _cells(missions: Iterable[tuple[str, str, int]]) -> dict[tuple[str, str], int]:
    """An agent's runs per (mission, version), from its (mission, version, runs) entries."""
    cells: dict[tuple[str, str], int] = {}
    for mission, version, runs in missions:
        cells[(mission, version)] = cells.get((mission, version), 0) + runs
    return cells


def _agent_view(a: dict, *, ranked: bool) -> AgentView:
    missions = a["missions"]
    cells = _cells((m["mission"], m["version"], m["runs"]) for m in missions) if missions is not None else None
    return AgentView(
        agent=a["agent"],
        name=a["name"],
        slug=a["slug"],
        url=a["url"],
        rank=a["rank"] if ranked else None,
        median=a["median"],
        ci=a["median_ci"],
        runs=a["runs"],
        in_median=a["in_median"],
        counts=a["counts"],
        cells=cells,
        progress=_progress(a.get("progress")),
        provisional=a.get("provisional") if ranked else None,
        median_tokens=a["cost"]["total_tokens"]["median"] if a["cost"] is not None else None,
    )


def _unique(agents: list[AgentView], name: str, where: str) -> dict[str, AgentView]:
    out: dict[str, AgentView] = {}
    for i, a in enumerate(agents):
        if a.agent in out:
            raise BundleError(f"{where}: {name}[{i}].agent: agent {a.agent!r} is listed twice")
        out[a.agent] = a
    return out


def _progress_of(progress: AgentProgress) -> Progress:
    """What reading the agent's progress headline back from summary.json gives (render/progress_data.py writes
    it)."""
    step = progress.newest_step
    if step is None:
        return Progress(None, (), None, None, None, True)
    version = published_version(step.to.agent_version) if "agent_version" in step.changed else None
    budget = step.to.budget_seconds if "budget_seconds" in step.changed else None
    return Progress(
        step.overall.verdict,
        tuple(step.changed),
        version if isinstance(version, int) else None,
        float(budget) if budget is not None else None,
        step.tokens.verdict,
        True,
    )


def bundle_of(board: Leaderboard, where: str = "the new summary") -> Bundle:
    """The bundle of a board this build counted, taken from it directly: what :func:`bundle_from` reads
    of the summary.json written for it (names capped as a read-back name is)."""

    def view(agent, ranked: bool) -> AgentView:
        fig = agent.figures
        cells = _cells((capped(m.mission), capped(m.version), m.figures.runs) for m in agent.missions)
        return AgentView(
            agent=capped(agent.agent),
            name=capped(agent.name),
            slug=capped(agent.slug),
            url=capped(agent.url) if agent.url is not None else None,
            rank=agent.rank if ranked else None,
            median=published(float(fig.median)) if fig.median is not None else None,  # as summary.json holds it
            ci=(published(float(fig.median_ci[0])), published(float(fig.median_ci[1]))) if fig.median_ci else None,
            runs=fig.runs,
            in_median=fig.in_median,
            counts=dict(fig.counts),
            cells=cells,
            progress=_progress_of(board.progress[agent.agent]) if ranked else None,
            provisional=bool(agent.provisional) if ranked else None,  # as render/data.py writes it
            median_tokens=agent.cost.total_tokens.median if agent.cost is not None else None,
        )

    agents = {v.agent: v for v in (view(a, True) for a in board.agents)}
    older = {v.agent: v for v in (view(a, False) for a in board.agents_older)}
    missions = {
        (v.mission, v.version): v
        for v in (
            MissionView(
                capped(m.mission),
                capped(m.version),
                m.current,
                capped(m.url) if m.url is not None else None,
                m.figures.runs,
            )
            for m in board.missions
        )
    }
    last = (a.figures.last_run for a in board.agents + board.agents_older)
    digest = board.inputs_digest
    return Bundle(
        source=where,
        runs=board.totals.runs,
        not_a_run=board.totals.not_a_run,
        counts=dict(board.totals.counts),
        agents=agents,
        older=older,
        missions=missions,
        problems=len(board.problems),
        digest=digest if DIGEST.test(digest) else None,
        newest=_newest(last),
        frontier=tuple(capped(agent) for agent in board.frontier.total_tokens),
    )
