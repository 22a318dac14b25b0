"""The whole agent (docs/rules/progress.md §1–§4): its runs into cells, its agent segments and steps; its headline."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from operator import attrgetter

from podium.count.progress.cells import CellWork
from podium.count.progress.strata import agent_segments, agent_step
from podium.count.versions import version_key
from podium.model.progress import AgentProgress, CountedRun, Headline

_MISSION_OF, _VERSION_OF = attrgetter("mission"), attrgetter("version")


def agent_progress(agent: str, name: str, slug: str, runs: Iterable[CountedRun]) -> AgentProgress:
    """Every cell, segment, step and verdict of one agent.

    The result does not depend on the order of ``runs``: each cell's runs are ordered by
    (start time, run id) first.
    """
    runs = list(runs)
    # by mission, then version (string keys: no tuple per run)
    by_mission: dict[str, list[CountedRun]] = defaultdict(list)
    for mission, run in zip(map(_MISSION_OF, runs), runs):
        by_mission[mission].append(run)
    by_cell: dict[tuple[str, str], list[CountedRun]] = {}
    for mission, group in by_mission.items():
        versions = list(map(_VERSION_OF, group))
        if len(set(versions)) == 1:
            by_cell[(mission, versions[0])] = group
        else:
            split: dict[str, list[CountedRun]] = defaultdict(list)
            for version, run in zip(versions, group):
                split[version].append(run)
            by_cell.update(((mission, version), part) for version, part in split.items())
    order = sorted(by_cell, key=lambda mv: (mv[0], version_key(mv[1])))
    work = [CellWork(mission, version, by_cell[(mission, version)]) for mission, version in order]
    segments, newest = agent_segments(work)
    steps = tuple(agent_step(segments[i - 1], segments[i]) for i in range(1, len(segments)))
    return AgentProgress(
        agent,
        name,
        slug,
        tuple(s.result() for s in segments),
        steps,
        tuple(cell.result() for cell in work),
        newest,
        {key: at for at, key in enumerate(order)},
    )


def agent_headline(progress: AgentProgress) -> Headline:
    """The agent's headline (§3.3): its newest agent step's overall verdict, shift, what changed and tally; with
    no step, ``reason`` says why (one configuration so far, or no counted run on a current version)."""
    step = progress.newest_step
    if step is None:
        return Headline(
            verdict=None,
            shift=None,
            changed=(),
            tally={},
            reason="one_configuration" if progress.segments else "no_counted_runs",
            reasons=(),
            from_=None,
            to=progress.segments[0].configuration if progress.segments else None,
            strata=0,
            segments=len(progress.segments),
        )
    return Headline(
        verdict=step.overall.verdict,
        shift=step.overall.shift,
        changed=step.changed,
        tally=dict(step.overall.tally),
        reason=None,
        reasons=step.overall.reasons,
        from_=step.from_,
        to=step.to,
        strata=len(step.overall.strata),
        segments=len(progress.segments),
    )
