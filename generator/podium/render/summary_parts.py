"""summary.json in parts (issue 33 item 4; docs/rules/site.md §9, docs/data.md).

summary.json held every agent's figures on every mission version it ran, and every mission version's list
of agents: agents × mission versions, 10 MB at 150 agents × 40 missions (30,000 runs), growing past what a
script downloads first or a host serves as one file. The layout (``podium.summary/2``):

- ``api/results/summary.json``, the index: totals, every agent's headline (rank, rank range, median, interval,
  runs, counts, rates, coverage, progress headline), the mission versions with their own figures, the
  by-model view, the problems; each agent and mission version with ``part``, the path of its part;
- ``api/results/summary/agents/<slug>.json``, one per agent (of either scope): what its index entries leave
  out, ``current`` for its ranked entry and ``older`` for its runs on older versions (null when it has none);
- ``api/results/summary/missions/<slug>/<version>.json``, one per mission version: its ``agents``.

What moves to a part: every list that grows with another dimension than the one of its file (an agent's
``missions`` and ``coverage.missions``, a mission version's ``agents``) and an agent's lists of model names
(at most 10 names of up to 200 characters each, four lists: up to 8 KB an agent, most of a headline). A list
that moves leaves its length in the index under the same name (``missions``: 39, ``coverage``:
``{"missions": 39, "of": 40}``, a mission version's ``agents``: 150), as compare.json's ``pairs`` does.

So the index grows with the agents (a constant each, about 1.5 kB) and the mission versions, each part with
one dimension. The whole summary (``podium.summary/1``, render/data.py ``summary_of``: what ``podium rank
--json`` prints of each agent) is exactly the index with each entry's part merged back (tests/sitekit.py
``whole_summary``; tests/site/test_summary_parts.py checks it by brute force).

Pure: Leaderboard in, dicts and bytes out, through ``dump_json`` (sorted keys, no NaN).
"""

from __future__ import annotations

from dataclasses import dataclass

from podium import routes
from podium.load.published import SUMMARY_AGENT_SCHEMA, SUMMARY_MISSION_SCHEMA, SUMMARY_SCHEMA
from podium.model import AgentSummary, Leaderboard
from podium.model.jsonable import jsonable
from podium.plan.summary import mission_part_path
from podium.render.data import publish, summary_data

# The keys of an agent's entry (model AgentSummary, as render/data.py publishes it) that its part holds; a list
# among them leaves its length.
AGENT_DETAIL = (
    "missions",
    "coverage",
    "judge_models",
    "judge_models_more",
    "models_reported",
    "models_reported_more",
    "models_declared",
    "models_declared_more",
    "reported_models",
    "reported_models_more",
)
MISSION_DETAIL = ("agents",)


@dataclass(frozen=True, slots=True)
class AgentPart:
    """``summary/agents/<slug>.json``: who the agent is, and its detail in each scope (None: no entry there)."""

    schema: str
    agent: str
    name: str
    slug: str
    url: str
    current: dict | None  # its ranked entry's AGENT_DETAIL keys, as published
    older: dict | None  # its older entry's


@dataclass(frozen=True, slots=True)
class MissionPart:
    """``summary/missions/<slug>/<version>.json``: a mission version and its agents (as published)."""

    schema: str
    mission: str
    version: str
    url: str
    agents: list


def _entry(value: object) -> dict:
    """An agent's or a mission version's entry of the whole summary (render/data.py ``publish``)."""
    out = publish(value)
    assert isinstance(out, dict)  # a dataclass is published as an object
    return out


def _published(part: AgentPart | MissionPart) -> dict:
    """A part as its file holds it: its entries are published already (their cost unrounded), so never rounded
    again."""
    out = jsonable(part)
    assert isinstance(out, dict)  # a dataclass is published as an object
    return out


def split(entry: dict, detail: tuple[str, ...], part: str) -> tuple[dict, dict]:
    """An entry of the whole summary as the index holds it (each list of ``detail`` as its length, ``part``
    added) and what its part holds (``detail``'s keys the entry has)."""
    index = {key: value for key, value in entry.items() if key not in detail}
    moved = {key: entry[key] for key in detail if key in entry}
    for key in ("missions", "agents"):
        if key in moved:
            index[key] = len(moved[key])
    if "coverage" in moved:
        index["coverage"] = {"missions": len(moved["coverage"]["missions"]), "of": moved["coverage"]["of"]}
    index["part"] = part
    return index, moved


def summary_index(board: Leaderboard, generated_at: int | None = None) -> dict:
    """``summary.json``: the whole summary with each agent's and mission version's detail left to its part."""
    whole = summary_data(board, generated_at)
    slugs = {a.agent: a.slug for a in (*board.agents, *board.agents_older)}

    def agents(entries: list[dict]) -> list[dict]:
        return [split(e, AGENT_DETAIL, routes.summary_agent_data_path(slugs[e["agent"]]))[0] for e in entries]

    return {
        **whole,
        "schema": SUMMARY_SCHEMA,
        "agents": agents(whole["agents"]),
        "agents_older": agents(whole["agents_older"]),
        "missions": [
            split(entry, MISSION_DETAIL, mission_part_path(m))[0]
            for entry, m in zip(whole["missions"], board.missions, strict=True)
        ],
    }


def agent_part(board: Leaderboard, current: int | None, older: int | None) -> dict:
    """``summary/agents/<slug>.json``: an agent's detail in each scope (``current``, ``older``: its place in
    board.agents and board.agents_older, plan/summary.py part_agents)."""
    ranked = board.agents[current] if current is not None else None
    earlier = board.agents_older[older] if older is not None else None
    agent = ranked or earlier
    assert agent is not None, "an agent part names an agent"

    def detail(found: AgentSummary | None) -> dict | None:
        return split(_entry(found), AGENT_DETAIL, "")[1] if found else None

    return _published(
        AgentPart(SUMMARY_AGENT_SCHEMA, agent.agent, agent.name, agent.slug, agent.url, detail(ranked), detail(earlier))
    )


def mission_part(board: Leaderboard, number: int) -> dict:
    """``summary/missions/<slug>/<version>.json``: the ``number``-th mission version's agents."""
    mission = board.missions[number]
    agents = split(_entry(mission), MISSION_DETAIL, "")[1]["agents"]
    return _published(MissionPart(SUMMARY_MISSION_SCHEMA, mission.mission, mission.version, mission.url, agents))
