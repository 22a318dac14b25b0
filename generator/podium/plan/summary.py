"""summary.json's parts, planned (render/summary_parts.py writes them): one per agent, one per mission version."""

from __future__ import annotations

from podium import routes
from podium.model import Leaderboard, MissionVersionSummary
from podium.plan.entries import DataFile


def part_agents(board: Leaderboard) -> list[tuple[int | None, int | None]]:
    """Every agent with a part, once, as its place in (board.agents, board.agents_older), None where it is not:
    the ranked ones in rank order, then those with runs on older mission versions only (an agent in both scopes
    has one part)."""
    older = {a.agent: i for i, a in enumerate(board.agents_older)}
    out: list[tuple[int | None, int | None]] = [(i, older.pop(a.agent, None)) for i, a in enumerate(board.agents)]
    return out + [(None, i) for i in older.values()]


def mission_part_path(mission: MissionVersionSummary) -> str:
    """A mission version's part, beside its page (routes.mission_path: missions/<slug>/<segment>/index.html)."""
    mission_slug, segment = mission.url.split("/")[1:3]
    return routes.summary_mission_data_path(mission_slug, segment)


def data_files(board: Leaderboard) -> list[DataFile]:
    """A part per agent (``part``/``older``: its place in board.agents/agents_older) and per mission version."""
    out = []
    for current, older in part_agents(board):
        agent = board.agents[current] if current is not None else board.agents_older[older or 0]
        out.append(DataFile(routes.summary_agent_data_path(agent.slug), "summary_agent", current, older=older))
    out += [DataFile(mission_part_path(m), "summary_mission", i) for i, m in enumerate(board.missions)]
    return out
