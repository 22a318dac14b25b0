"""How clear each rank is (docs/rules/counting.md §9): the order stays §5's, and beside it, from the agents'
95% intervals for the median, the ranks each agent could hold and whether the leader's lead is clear.

An agent is *clearly better* than another when both have an interval and its low end lies above the other's
high end (compare.md §1's "ahead", on the agents' headline medians). As LMArena ranks, an agent's best rank is
1 + the number of agents clearly better than it; its worst, the number of agents with a median less those
clearly worse. Pure: the ranked summaries in, the same with ``rank_range`` and ``ahead_of_next`` set.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import replace

from podium.model import AgentSummary


def rank_clarity(ranked: tuple[AgentSummary, ...]) -> tuple[AgentSummary, ...]:
    """``ranked`` (counting.md §5 order) with each agent's ``rank_range`` (None without an interval: the rank is
    provisional, or there is no median) and ``ahead_of_next`` (its interval above the next ranked agent's; None
    when either has no interval)."""
    intervals = [a.figures.median_ci for a in ranked if a.figures.median_ci is not None]
    lows = sorted(ci[0] for ci in intervals)
    highs = sorted(ci[1] for ci in intervals)
    with_median = sum(a.figures.median is not None for a in ranked)
    out = []
    for index, agent in enumerate(ranked):
        ci = agent.figures.median_ci
        rank_range = None
        if ci is not None:
            better = len(lows) - bisect_right(lows, ci[1])  # others whose low end is above my high end
            worse = bisect_left(highs, ci[0])  # others whose high end is below my low end
            rank_range = (1 + better, with_median - worse)
        following = ranked[index + 1].figures.median_ci if index + 1 < len(ranked) else None
        ahead = None if ci is None or following is None else ci[0] > following[1]
        out.append(replace(agent, rank_range=rank_range, ahead_of_next=ahead))
    return tuple(out)
