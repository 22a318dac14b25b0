"""The progress data (docs/rules/progress.md §5, §6): each agent's progress file and what summary.json carries of
it, as typed values made into JSON by render/jsonable.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources

from podium import routes
from podium.count.progress import agent_headline, method
from podium.model.progress import AgentProgress, Method
from podium.render.jsonable import dump_json, jsonable

PROGRESS_SCHEMA = "podium.progress/2"  # podium.progress/1 and the tokens series (§10)


@dataclass(frozen=True, slots=True)
class TokensHeadline:
    """The newest agent step's tokens verdict and shift (§10), beside the score headline, never merged into it."""

    verdict: str | None
    shift: float | None


@dataclass(frozen=True, slots=True)
class FileHeadline:
    """The progress file's headline (§6): the newest agent step's overall verdict, shift, changes and tally, and its
    tokens verdict and shift."""

    verdict: str | None
    shift: float | None
    changed: tuple[str, ...]
    tally: Mapping[str, int]
    tokens: TokensHeadline


@dataclass(frozen=True, slots=True)
class ProgressFile:
    """``api/results/progress/<agent-slug>.json``, key by key (§6)."""

    schema: str
    method: Method
    headline: FileHeadline
    progress: AgentProgress = field(metadata={"json_inline": True})  # agent, name, slug, segments, steps, cells


@dataclass(frozen=True, slots=True)
class SummaryProgress:
    """What summary.json carries of an agent's progress (§7.15): its headline, the new values of the fields that
    changed, why there is no verdict, and the progress file's url."""

    verdict: str | None
    shift: float | None
    changed: tuple[str, ...]
    tally: Mapping[str, int]
    to: Mapping[str, object]
    reason: str | None
    url: str


def progress_file(progress: AgentProgress) -> ProgressFile:
    top = agent_headline(progress)
    step = progress.newest_step
    tokens = TokensHeadline(step.tokens.verdict, step.tokens.shift) if step else TokensHeadline(None, None)
    return ProgressFile(
        PROGRESS_SCHEMA, method(), FileHeadline(top.verdict, top.shift, top.changed, top.tally, tokens), progress
    )


def progress_bytes(progress: AgentProgress) -> bytes:
    """The agent's progress file, its bytes."""
    return dump_json(jsonable(progress_file(progress)))


def summary_progress(progress: AgentProgress, slug: str) -> SummaryProgress:
    top = agent_headline(progress)
    step = progress.newest_step
    published = jsonable(step.to) if step is not None else {}
    assert isinstance(published, dict)
    return SummaryProgress(
        top.verdict,
        top.shift,
        top.changed,
        top.tally,
        {name: published[name] for name in top.changed},
        top.reason,
        routes.progress_path(slug),
    )


def progress_schema() -> bytes:
    """``progress.schema.json``: what the progress files hold, key by key."""
    return resources.files("podium").joinpath("progress.schema.json").read_bytes()
