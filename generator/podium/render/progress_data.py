"""The progress data (docs/rules/progress.md §5, §6): each agent's progress file and what summary.json carries of
it, as typed values made into JSON by model/jsonable.py.

A progress file is bounded (§7.19): each cell, and the agent, publish their newest FILE_KEPT configurations in
full (segments, the steps between them, their shifts) and count the older ones in ``earlier``, so a
harness that reports a model of its own on every run makes a file no larger than one that reports a few.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from importlib import resources

from podium import routes
from podium.count.progress import agent_headline, method
from podium.count.progress.series import FILE_KEPT, SCORE_SERIES
from podium.count.stats import published
from podium.model import PROGRESS_LEFT_OUT_KINDS
from podium.model.jsonable import dump_json, jsonable
from podium.model.progress import AgentProgress, AgentSegment, AgentStep, Cell, CellSegment, Method

PROGRESS_SCHEMA = "podium.progress/2"  # podium.progress/1, the tokens series (§10), bounded (§7.19)


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
class Earlier:
    """The agent's oldest configurations its file leaves out (§7.19), counted: how many segments, the steps into
    and between them, their counted runs per score series."""

    segments: int
    steps: int
    runs: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class CellEarlier:
    """A cell's oldest configurations its file leaves out, counted as :class:`Earlier` is, with their left-out
    runs by kind and their shifts."""

    segments: int
    steps: int
    runs: Mapping[str, int]
    left_out: Mapping[str, int]
    shifts: int


@dataclass(frozen=True, slots=True)
class CellFile:
    """A cell as its file publishes it: its newest FILE_KEPT configurations, and what is older counted."""

    cell: Cell = field(metadata={"json_inline": True})
    earlier: CellEarlier | None


@dataclass(frozen=True, slots=True)
class ProgressFile:
    """``api/results/progress/<agent-slug>.json``, key by key (§6)."""

    schema: str
    agent: str
    name: str
    slug: str
    method: Method
    headline: FileHeadline
    segments: tuple[AgentSegment, ...]  # the newest FILE_KEPT agent segments
    steps: tuple[AgentStep, ...]  # steps[i]: segments[i] → segments[i + 1]
    earlier: Earlier | None  # the older agent segments, counted
    cells: tuple[CellFile, ...]


@dataclass(frozen=True, slots=True)
class SummaryProgress:
    """What summary.json carries of an agent's progress (§7.15): its headline, the new values of the fields that
    changed, why there is no verdict, and the progress file's url."""

    verdict: str | None
    shift: float | None
    changed: tuple[str, ...]
    tally: Mapping[str, int]
    from_: Mapping[str, object] = field(metadata={"json_name": "from"})  # the changed fields' values before
    to: Mapping[str, object]
    reason: str | None
    url: str
    tokens: TokensHeadline  # the newest agent step's tokens verdict and shift (cost.md §4), for change reports
    # the newest configuration's median and runs in it, on current versions: what the agent scores now, beside
    # the all-history median (issue 36); null and 0 with one configuration (the headline median is then its)
    newest_median: float | None = None
    newest_in_median: int = 0


def progress_file(progress: AgentProgress) -> ProgressFile:
    top = agent_headline(progress)
    step = progress.newest_step
    tokens = TokensHeadline(step.tokens.verdict, step.tokens.shift) if step else TokensHeadline(None, None)
    cut = max(0, len(progress.segments) - FILE_KEPT)
    return ProgressFile(
        PROGRESS_SCHEMA,
        progress.agent,
        progress.name,
        progress.slug,
        method(),
        FileHeadline(top.verdict, top.shift, top.changed, top.tally, tokens),
        progress.segments[cut:],
        progress.steps[cut:],
        Earlier(cut, cut, _runs(progress.segments[:cut])) if cut else None,
        tuple(_cell_file(cell) for cell in progress.cells),
    )


def _cell_file(cell: Cell) -> CellFile:
    """The cell with its newest FILE_KEPT segments, the steps between them and their shifts (renumbered)."""
    cut = max(0, len(cell.segments) - FILE_KEPT)
    if not cut:
        return CellFile(cell, None)
    kept = replace(
        cell,
        segments=cell.segments[cut:],
        steps=cell.steps[cut:],
        shifts=tuple(replace(s, segment=s.segment - cut) for s in cell.shifts if s.segment >= cut),
    )
    older: Counter[str] = Counter()
    for segment in cell.segments[:cut]:
        older.update(segment.left_out)
    earlier = CellEarlier(
        cut,
        cut,
        _runs(cell.segments[:cut]),
        {kind: older[kind] for kind in PROGRESS_LEFT_OUT_KINDS if older[kind]},
        len(cell.shifts) - len(kept.shifts),
    )
    return CellFile(kept, earlier)


def _runs(segments: Iterable[AgentSegment | CellSegment]) -> dict[str, int]:
    """Counted runs per score series over ``segments``."""
    total = dict.fromkeys(SCORE_SERIES, 0)
    for segment in segments:
        for series in SCORE_SERIES:
            total[series] += segment.runs[series]
    return total


def progress_bytes(progress: AgentProgress) -> bytes:
    """The agent's progress file, its bytes."""
    document = jsonable(progress_file(progress))
    assert isinstance(document, dict)
    # its figures without float noise (docs/rules/site.md §3); the method's constants exactly as defined
    return dump_json({**published(document), "method": document["method"]})


def summary_progress(progress: AgentProgress, slug: str) -> SummaryProgress:
    top = agent_headline(progress)
    step = progress.newest_step
    before = jsonable(step.from_) if step is not None else {}
    after = jsonable(step.to) if step is not None else {}
    assert isinstance(before, dict) and isinstance(after, dict)
    return SummaryProgress(
        top.verdict,
        top.shift,
        top.changed,
        top.tally,
        {name: before[name] for name in top.changed},
        {name: after[name] for name in top.changed},
        top.reason,
        routes.progress_path(slug),
        TokensHeadline(step.tokens.verdict, step.tokens.shift) if step is not None else TokensHeadline(None, None),
        progress.segments[-1].median if step is not None else None,
        progress.segments[-1].runs["overall"] if step is not None else 0,
    )


def progress_schema() -> bytes:
    """``progress.schema.json``: what the progress files hold, key by key."""
    return resources.files("podium").joinpath("progress.schema.json").read_bytes()
