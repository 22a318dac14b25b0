"""Which way an agent is moving (docs/rules/progress.md), as typed values: what the computation reads and
what it finds.

Frozen dataclasses and the vocabulary of verdicts, no I/O and no JSON. ``podium.count.progress`` computes
an :class:`AgentProgress` per agent once per build; pages, data files and commands read it.
``render/progress_data.py`` publishes it through ``model/jsonable.py``: a field's name is its key, and a
field's metadata says where the published file differs (``json_name``: another key; ``json_omit``: not
published; ``json_inline``: its keys are its owner's).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from podium.model import Configuration

# §2.4, §3.2: what a score series says at a step, in the order a tally lists them
SCORE_VERDICTS = ("improved", "regressed", "steady", "mixed", "unclear", "too_few_runs", "not_comparable")
# cost.md §4: what the tokens series says (costlier: its value moved up, cheaper: down), in tally order
COST_VERDICTS = ("costlier", "cheaper", "same_cost", "mixed", "unclear", "too_few_runs")
GUARDS = ("partial_judge", "just_crossed")  # the order a step's reasons list its failed guards in (§2.5)
ATTRIBUTIONS = ("checks", "judge", "both", "neither alone")  # §2.6
HEADLINE_REASONS = ("one_configuration", "no_counted_runs")  # why a headline has no verdict (§3.3)


# --- what the computation reads -------------------------------------------------------------------


class CountedRun(Protocol):
    """What progress reads of a run: the summary step's RunRecord itself (a history's records are handed over
    as they are, never copied), or a :class:`ProgressRun`."""

    @property
    def run_id(self) -> str: ...
    @property
    def mission(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def current(self) -> bool: ...
    @property
    def started(self) -> datetime | None: ...
    @property
    def kind(self) -> str: ...
    @property
    def overall(self) -> float | None: ...
    @property
    def overall_upper(self) -> float | None: ...
    @property
    def deterministic(self) -> float | None: ...
    @property
    def judge(self) -> float | None: ...
    @property
    def judge_upper(self) -> float | None: ...
    @property
    def judge_status(self) -> str | None: ...
    @property
    def configuration(self) -> Configuration | None: ...
    @property
    def total_tokens(self) -> int | None: ...


@dataclass(frozen=True, slots=True)
class ProgressRun:
    """One run of one agent as the summary step classified it (tests and benchmarks build these)."""

    run_id: str  # 32 hex, or the 8 hex of its directory
    mission: str
    version: str
    current: bool  # its mission version is the current one
    started: datetime | None  # tz-aware instant (microseconds kept); None: undated
    kind: str  # graded, partial_judge, timed_out, no_judge, stopped, infra_failed, grading_failed, grading, unknown
    overall: float | None  # set for graded/partial_judge/timed_out/no_judge/stopped
    overall_upper: float | None  # = overall unless judge_status == "partial" (then its upper bound)
    deterministic: float | None
    judge: float | None  # None for no_judge
    judge_upper: float | None  # set only when judge_status == "partial"; else None (= judge)
    judge_status: str | None
    configuration: Configuration | None  # None: the run has no readable conditions
    total_tokens: int | None = None  # None: its harness reported none (cost.md §1)


# --- what it finds ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StepSeries:
    """One series at one step (§2): ``m`` runs on the older side, ``n`` on the newer."""

    verdict: str
    reasons: tuple[str, ...]  # failed guards, in GUARDS order
    shift: float | None  # Hodges–Lehmann, from the (lower) values
    delta_median: float | None
    ci99: tuple[float, float] | None
    ci90: tuple[float, float] | None
    steady_within: float | None  # delta or 2·delta when steady, else None
    m: int
    n: int


@dataclass(frozen=True, slots=True)
class CellSegment:
    """The counted runs of one cell that share one configuration (§1.4)."""

    configuration: Configuration
    first_run_id: str
    last_run_id: str
    runs: Mapping[str, int]  # counted runs per score series
    left_out: Mapping[str, int]  # left-out runs of this configuration, by kind (no zeros)
    median: float | None  # of the overall series


@dataclass(frozen=True, slots=True)
class CellStep:
    """Segment ``to`` against the segment ``from_`` just before it, per series (§2)."""

    from_: Configuration = field(metadata={"json_name": "from"})
    to: Configuration
    changed: tuple[str, ...]
    overall: StepSeries
    checks: StepSeries
    judge: StepSeries
    tokens: StepSeries  # cost.md §4: what a run spends, beside the scores (never merged into them)
    attribution: str | None

    def series(self, name: str) -> StepSeries:
        return getattr(self, name)


@dataclass(frozen=True, slots=True)
class UnexplainedShift:
    """§4: the overall series of segment ``segment`` moved at run ``start_run_id``; podium names no cause."""

    segment: int
    start_run_id: str
    shift: float
    interval: tuple[float, float]
    unexplained: bool = True


@dataclass(frozen=True, slots=True)
class Cell:
    """One agent on one mission version (§1.1)."""

    mission: str
    version: str
    current: bool
    segments: tuple[CellSegment, ...]
    steps: tuple[CellStep, ...]  # steps[i]: segments[i] → segments[i + 1]
    shifts: tuple[UnexplainedShift, ...]
    left_out_unplaced: Mapping[str, int]
    undated: int
    # the segment holding the cell's newest counted run (after a rollback: not the last)
    newest_segment: int | None = field(metadata={"json_omit": True})

    @property
    def newest_step(self) -> CellStep | None:
        """The step into the newest configuration (the last segment)."""
        return self.steps[-1] if self.steps else None


@dataclass(frozen=True, slots=True)
class Stratum:
    """One current mission version an agent step compares on, with its own step verdict (§3.2)."""

    mission: str
    version: str
    step: StepSeries = field(metadata={"json_inline": True})


def paired_runs(steps: Iterable[StepSeries]) -> int:
    """§3.2's count of runs an agent step has: each stratum's smaller side, summed (too few below n_min)."""
    return sum(min(step.m, step.n) for step in steps)


@dataclass(frozen=True, slots=True)
class AgentSeries:
    """One series of an agent step (§3): van Elteren's Z and p, the weighted shift, the tally."""

    verdict: str
    reasons: tuple[str, ...]
    shift: float | None
    z: float | None
    p: float | None
    tally: Mapping[str, int]
    strata: tuple[Stratum, ...]

    @property
    def paired_runs(self) -> int:
        return paired_runs(stratum.step for stratum in self.strata)


@dataclass(frozen=True, slots=True)
class JudgeStrata:
    """The judge series of an agent step: its strata and tally only (§3.2)."""

    tally: Mapping[str, int]
    strata: tuple[Stratum, ...]


@dataclass(frozen=True, slots=True)
class AgentSegment:
    """All counted runs of the agent on current mission versions with one configuration (§3)."""

    configuration: Configuration
    first_run_id: str
    last_run_id: str
    runs: Mapping[str, int]
    # the median of its overall series over every current mission version it ran (counting.md §3.1): what the
    # agent scores in this configuration, beside the headline median that pools them all (issue 36, site.md §13)
    median: float | None = None


@dataclass(frozen=True, slots=True)
class AgentStep:
    """Agent segment ``to`` against the one before it, across the mission versions both ran (§3)."""

    from_: Configuration = field(metadata={"json_name": "from"})
    to: Configuration
    changed: tuple[str, ...]
    overall: AgentSeries
    checks: AgentSeries
    judge: JudgeStrata
    tokens: AgentSeries  # cost.md §4


@dataclass(frozen=True, slots=True)
class AgentProgress:
    """Every cell, segment, step and verdict of one agent (§1–§4)."""

    agent: str
    name: str
    slug: str
    segments: tuple[AgentSegment, ...]
    steps: tuple[AgentStep, ...]  # steps[i]: segments[i] → segments[i + 1]
    cells: tuple[Cell, ...]  # by mission, then version oldest first
    # the agent segment holding its newest counted run on a current version
    newest_segment: int | None = field(metadata={"json_omit": True})
    # (mission, version) -> its cell's place in ``cells``: a page finds a cell without a search
    cell_index: Mapping[tuple[str, str], int] = field(default_factory=dict, metadata={"json_omit": True})

    @property
    def newest_step(self) -> AgentStep | None:
        """The headline's step: the one into the newest agent segment."""
        return self.steps[-1] if self.steps else None

    def cell(self, mission: str, version: str) -> Cell | None:
        at = self.cell_index.get((mission, version))
        return None if at is None else self.cells[at]


@dataclass(frozen=True, slots=True)
class Headline:
    """The agent's headline (§3.3): its newest agent step's overall series, and what the pages need to word it
    without reading the rest (``reason`` why there is no verdict; the step's failed guards, configurations,
    how many missions it compares on and how many configurations there are)."""

    verdict: str | None
    shift: float | None
    changed: tuple[str, ...]
    tally: Mapping[str, int]
    reason: str | None  # one of HEADLINE_REASONS when there is no step, else None
    reasons: tuple[str, ...]
    from_: Configuration | None = field(metadata={"json_name": "from"})
    to: Configuration | None
    strata: int
    segments: int


@dataclass(frozen=True, slots=True)
class Method:
    """Every constant the verdicts use (§2.3, §4), as the progress file's ``method`` block lists them."""

    alpha_change: float
    alpha_steady: float
    n_min: int
    exact_max: int
    delta: Mapping[str, float]
    steady_bands: Mapping[str, tuple[float, float]]
    shift_alpha: str
    shift_delta: float
    shift_max: int  # a segment's search stops at this many shifts (§7.18)
