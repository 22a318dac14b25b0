"""What the pages show of an agent's progress (docs/rules/progress.md §5), as typed, finished values.

Pure: the agent's progress result (model/progress.py) in, panels of text out; templates only place them.
"""

from __future__ import annotations

from dataclasses import dataclass

from podium import routes
from podium.count.progress.series import FILE_KEPT
from podium.model import RunRecord
from podium.model.progress import AgentProgress, AgentStep, CellStep
from podium.plan import charts
from podium.plan.charts import Strip
from podium.words import progress_text

AGENT_STEPS = 3  # the newest agent steps an agent page shows (every step is in its progress file)
VERSION_AGENTS = 12  # agents whose newest step a mission version's page shows (bounded pages)
PANEL_ROWS = 20  # current mission versions in the agent page's table: those its newest step compares on first
BAND_GAP = 6.0  # percent of the strip's width: a label closer to the last one is left out (its tick stays)


@dataclass(frozen=True, slots=True)
class StepView:
    """One agent step as its page shows it."""

    since: str  # "since agent v5"
    title: str  # "Since agent v5"
    before: str  # the configuration it is compared with, in words
    after: str
    verdict: str  # the overall verdict (a class name)
    overall: str  # "▲ improved +9.0 pp (p 0.0012)"
    checks: str
    judge: str  # the judge half: its missions' tally
    tally: str  # "improved on 2, steady on 3"
    missions: int
    note: str | None  # "judge model changed: on the checks, ▲ improved"
    tokens: str | None = None  # "cheaper ×0.62 tokens a run (−38%, p 0.0012)"; None: no side reports tokens


@dataclass(frozen=True, slots=True)
class CellView:
    """One mission version at one agent step, in words with the interval that decided it (a phone cannot hover:
    nothing is said in a title alone)."""

    text: str  # "▲ improved +12.0 pp (99% CI +4.0 to +20.0 pp)", "no runs since the change"
    verdict: str | None  # a class name; None when the step does not compare on this version


@dataclass(frozen=True, slots=True)
class MissionRow:
    mission: str
    version: str
    url: str | None
    cells: tuple[CellView, ...]


@dataclass(frozen=True, slots=True)
class BandMark:
    """Where a new configuration first appears on the run strip (a percentage of its width)."""

    x: float
    strip_x: float  # the same place in the strip's own coordinates (its ticks)
    label: str  # "v5", "model", "" when it would crowd the one before
    title: str
    end: bool  # near the right edge: the label ends at the tick


@dataclass(frozen=True, slots=True)
class ProgressPanel:
    """ "Which way it is moving" on an agent page."""

    headline: str
    verdict: str | None
    steps: tuple[StepView, ...]  # newest first
    columns: tuple[str, ...]  # one per step in ``steps``: "since agent v5"
    rows: tuple[MissionRow, ...]  # current mission versions: at most PANEL_ROWS, those with a verdict first
    rows_more: int  # how many more current mission versions the agent has (in its progress file)
    note: str | None  # the newest run is on an earlier configuration (a rollback)
    file: str  # the agent's progress file
    configurations: int
    file_complete: bool  # the file holds every configuration in full (else the newest file_kept, §7.19)
    file_kept: int


@dataclass(frozen=True, slots=True)
class VersionStep:
    """One agent's newest step on a mission version (its page lists one per agent)."""

    agent: str
    name: str
    url: str | None
    since: str | None  # None: one configuration so far
    overall: str
    checks: str
    judge: str
    attribution: str | None
    verdict: str | None
    runs: int  # the agent's counted runs on the version
    tokens: str | None = None  # "cheaper ×0.62 tokens a run (−38%)"; None: no run of the step reports tokens


def configuration_text(configuration) -> str:
    return ", ".join(progress_text.field_text(configuration, name) for name in progress_text.FIELD_NAMES)


def panel(progress: AgentProgress, slug: str) -> ProgressPanel:
    steps = progress.steps[::-1][:AGENT_STEPS]
    views = tuple(_step_view(step) for step in steps)
    current = [cell for cell in progress.cells if cell.current]
    # a step whose judge model changed compares the overall score nowhere: each mission's checks verdict instead
    strata = [
        {
            (s.mission, s.version): s
            for s in (step.checks if step.overall.verdict == "not_comparable" else step.overall).strata
        }
        for step in steps
    ]
    spent = [{(s.mission, s.version): s.step for s in step.tokens.strata} for step in steps]  # cost.md §4
    rows = []
    for cell in current:
        found = []
        for step, by_version, tokens in zip(steps, strata, spent, strict=True):
            stratum = by_version.get((cell.mission, cell.version))
            if stratum is None:
                view = CellView(progress_text.not_compared(_ran(cell, step.from_), _ran(cell, step.to)), None)
            elif step.overall.verdict == "not_comparable":
                view = CellView(progress_text.checks_instead(stratum.step), stratum.step.verdict)
            else:
                view = CellView(progress_text.step_series_text(stratum.step), stratum.step.verdict)
            cost = tokens.get((cell.mission, cell.version))
            if cost is not None and progress_text.has_tokens(cost):  # the tokens verdict beside, never merged
                view = CellView(f"{view.text} · {progress_text.tokens_text(cost)}", view.verdict)
            found.append(view)
        rows.append(MissionRow(cell.mission, cell.version, None, tuple(found)))
    rows.sort(key=lambda row: all(c.verdict is None for c in row.cells))  # stable: mission order within
    shown, more = rows[:PANEL_ROWS], max(0, len(rows) - PANEL_ROWS)
    newest = progress.newest_segment
    note = None
    if newest is not None and progress.segments and newest != len(progress.segments) - 1:
        note = (
            "The newest run is back on an earlier configuration ("
            f"{configuration_text(progress.segments[newest].configuration)}); its runs count in that "
            "configuration, compared where it first appeared."
        )
    newest_step = progress.newest_step
    return ProgressPanel(
        progress_text.headline_text(progress),
        newest_step.overall.verdict if newest_step else None,
        views,
        tuple(progress_text.since(s) for s in steps),
        tuple(shown),
        more,
        note,
        routes.progress_path(slug),
        len(progress.segments),
        len(progress.segments) <= FILE_KEPT and all(len(cell.segments) <= FILE_KEPT for cell in progress.cells),
        FILE_KEPT,
    )


def _ran(cell, configuration) -> bool:
    """Whether ``cell`` has counted runs in ``configuration`` (an agent segment's: its budget is None when the
    agent's missions each have their own, so a budget is compared only when it names one)."""
    return any(
        (seg.configuration.agent_version, seg.configuration.model, seg.configuration.judge_model)
        == (configuration.agent_version, configuration.model, configuration.judge_model)
        and (configuration.budget_seconds is None or seg.configuration.budget_seconds == configuration.budget_seconds)
        for seg in cell.segments
    )


def _step_view(step: AgentStep) -> StepView:
    checks = step.checks
    note = None
    if step.overall.verdict == "not_comparable":
        note = progress_text.on_the_checks(checks)
    judge = progress_text.tally_text(dict(step.judge.tally))
    since = progress_text.since(step)
    return StepView(
        since,
        since[:1].upper() + since[1:],
        configuration_text(step.from_),
        configuration_text(step.to),
        step.overall.verdict,
        progress_text.agent_series_text(step.overall),
        progress_text.agent_series_text(checks),
        judge,
        progress_text.tally_text(dict(step.overall.tally)),
        len(step.overall.strata),
        note,
        progress_text.tokens_text(step.tokens) if progress_text.has_tokens(step.tokens) else None,
    )


ATTRIBUTION = {
    "checks": "on the checks",
    "judge": "on the judge",
    "both": "on both halves",
    "neither alone": "on neither half alone",
}


def version_step(progress: AgentProgress, mission: str, version: str, url: str | None) -> VersionStep | None:
    """The agent's newest step on one mission version (None: the agent has no run on it)."""
    cell = progress.cell(mission, version)
    if cell is None:
        return None
    runs = sum(s.runs["checks"] for s in cell.segments)
    if not cell.steps:
        text = progress_text.ONE_CONFIGURATION if cell.segments else "no counted runs"
        return VersionStep(progress.agent, progress.name, url, None, text, "", "", None, None, runs)
    step: CellStep = cell.steps[-1]
    attribution = ATTRIBUTION.get(step.attribution) if step.attribution else progress_text.NO_MOVE
    if step.overall.verdict == "not_comparable":
        attribution = progress_text.on_the_checks(step.checks)
    return VersionStep(
        progress.agent,
        progress.name,
        url,
        progress_text.since(step),
        progress_text.step_series_text(step.overall),
        progress_text.step_series_text(step.checks),
        progress_text.step_series_text(step.judge),
        attribution,
        step.overall.verdict,
        runs,
        progress_text.tokens_text(step.tokens) if progress_text.has_tokens(step.tokens) else None,
    )


def band(strip: Strip, shown: list[RunRecord], progress: AgentProgress) -> tuple[BandMark, ...]:
    """A mark above the strip's column where each new configuration's first run is drawn."""
    starts = {}
    for i, segment in enumerate(progress.segments[1:], start=1):
        step = progress.steps[i - 1]
        starts[segment.first_run_id] = (progress_text.short_change(step.changed, step.to), progress_text.since(step))
    marks = []
    last = None
    for column, record in zip(strip.columns, shown):
        if record.run_id not in starts:
            continue
        label, title = starts[record.run_id]
        x = round((column.x + charts.COLUMN / 2) / strip.width * 100, 2)
        if last is not None and x - last < BAND_GAP:
            label = ""
        else:
            last = x
        marks.append(BandMark(x, column.x + charts.COLUMN / 2, label, title, x > 90))
    return tuple(marks)
