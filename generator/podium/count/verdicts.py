"""Progress verdicts: which way an agent is moving, and on which missions.

One computation, once per build, from the runs the summary step classified; every page,
JSON file and command reads its result. Pure: no I/O, no clock. The statistics are in
``podium.count.ranktests``; this module turns runs into cells, segments, steps, verdicts and the
progress document.

Where each part of the progress rules lives:

- §1 series, configurations, segments, left-out and undated counts, run order:
  ``_CellWork``, ``_Columns``, ``_Segment``, ``Configuration``
- §2 one series at one step (shift, intervals, verdict, the two guards), attribution:
  ``series_step``, ``_verdict``, ``_move``, ``_kept``, ``_attribution``
- §3 agent segments and steps, strata, van Elteren, the agent verdict and tally:
  ``_agent_segments``, ``_agent_step``, ``_agent_series``, ``_weighted_shift``
- §4 shifts with no named cause: ``_CellWork._shifts`` (``ranktests.shift_search``)
- §5 the headline summary.json carries, glyphs and words: ``headline``, ``VERDICT_SIGNS``
- §6 the progress file, key by key: ``progress_document``
- §7 the readings the rules already make are followed as written.

Readings (where the rules are silent; each is tested in tests/count/test_verdicts.py):

- A segment's ``median`` is the plain median of its ``overall`` series (the headline figure
  everywhere else); ``null`` when the segment has no run in the median population.
- Kinds and verdicts with a count of 0 are omitted from ``left_out``, ``left_out_unplaced``
  and ``tally`` (§6 allows either; omitting is what the JSON shows everywhere).
- The headline with no step has ``verdict`` and ``shift`` ``null``, ``changed`` ``[]`` and
  ``tally`` ``{}``; ``headline()`` adds ``reason`` (``"one_configuration"``,
  ``"no_counted_runs"`` or ``null``), ``reasons`` (failed guards), ``from``/``to``,
  ``strata`` (how many missions the step compares on) and ``segments``.
- A stratum's step is the step between the two cell segments holding the two agent
  segments' configurations on that mission version (they are the same runs), so a stratum
  and a cell step between adjacent segments are one computation.
- The agent's ``steady`` reads "every such stratum is steady" on the strata's published
  verdicts, like ``mixed`` and "no stratum regressed".
- The agent step has only the ``partial_judge`` guard (§3 names no other); its reasons
  list is empty otherwise.
- An exact tie in the shift search's |z_k| keeps the smallest k; shifts are listed in the
  time order of the run they start at (across segments).
- A cell's newest step is the step into its last segment (the newest configuration to
  appear); after a rollback the newest run is in an earlier segment, which
  ``Cell.newest_segment`` (and ``AgentProgress.newest_segment``) gives the pages.
- A stratum is a current mission version where both agent segments have at least one run
  in that series; its ``just_crossed`` removes the newest run of that cell segment in
  that series.
- A shift's ``start_run_id`` is the first run of the later part, in the segment's overall
  series.
- The ``partial_judge`` guard passes without a recomputation when no run of either side has
  an upper value other than its value (the recomputation would be the same step).
- Cell order is mission, then version oldest first by the project's version order
  (``podium.count.versions.version_key``, counting.md §4); strata likewise.
- Bad input (a kind that is not a run's, a counted run without its score, a score outside
  [0, 1], an upper bound below its value, a naive start time, a run id that is not text,
  one mission version both current and not) raises ``ValueError``
  naming the run and the field: the summary step has already refused such runs, so this
  is a bug upstream, never a verdict.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from itertools import islice
from operator import attrgetter, eq
from typing import NoReturn, Protocol

from podium.count.ranktests import EXACT_MAX, Differences, Sample, moses_k, shift_search, van_elteren
from podium.count.versions import version_key
from podium.model import CONFIGURATION_FIELDS, MEDIAN_KINDS, Configuration

SERIES = ("overall", "checks", "judge")
CONFIG_FIELDS = CONFIGURATION_FIELDS
CHECKS_KINDS = MEDIAN_KINDS | {"no_judge"}  # the counted runs: their checks ran
LEFT_OUT_KINDS = ("stopped", "infra_failed", "grading_failed", "grading", "unknown")
RUN_KINDS = frozenset(CHECKS_KINDS | set(LEFT_OUT_KINDS))
SCORED_KINDS = CHECKS_KINDS | {"stopped"}  # ProgressRun.overall is set for these

ALPHA_CHANGE = Fraction(1, 100)  # the 99% interval decides a move
ALPHA_STEADY = Fraction(1, 10)  # the 90% interval decides steady
DELTA = {"overall": 0.05, "checks": 0.1, "judge": 0.1}
N_MIN = 5
SHIFT_DELTA = 0.05
P_CHANGE = 0.01  # the agent step's p must be below this (after rounding to 6 places)
PLACES = 6  # every threshold comparison is on values rounded to this many places

MOVES = ("improved", "regressed")
VERDICTS = ("improved", "regressed", "steady", "mixed", "unclear", "too_few_runs", "not_comparable")
# §5: a glyph never carries meaning alone; the pages show both
VERDICT_SIGNS = {
    "improved": ("▲", "improved"),
    "regressed": ("▼", "regressed"),
    "steady": ("=", "steady"),
    "mixed": ("◆", "mixed"),
    "unclear": ("?", "unclear"),
    "too_few_runs": ("…", "too few runs"),
    "not_comparable": ("≠", "not comparable"),
}
GUARDS = ("partial_judge", "just_crossed")  # the order §2 lists failed guards in
ATTRIBUTIONS = ("checks", "judge", "both", "neither alone")


def method() -> dict:
    """The ``method`` block: every constant the verdicts use (a fresh dict each time)."""
    return {
        "alpha_change": float(ALPHA_CHANGE),
        "alpha_steady": float(ALPHA_STEADY),
        "n_min": N_MIN,
        "exact_max": EXACT_MAX,
        "delta": dict(DELTA),
        "steady_bands": {s: [d, 2 * d] for s, d in DELTA.items()},
        "shift_alpha": "0.01/(n-9)",
        "shift_delta": SHIFT_DELTA,
    }


# --- input -----------------------------------------------------------------------------------

NO_CONDITIONS = Configuration(None, None, None, None)  # a counted run with no readable conditions


@dataclass(frozen=True, slots=True)
class ProgressRun:
    """One counted-or-not run of one agent, as the summary step classified it."""

    run_id: str  # 32 hex
    mission: str
    version: str
    current: bool  # its mission version is the current one
    started: datetime | None  # tz-aware UTC instant (microseconds kept); None: undated
    kind: str  # graded, partial_judge, timed_out, no_judge, stopped, infra_failed, grading_failed, grading, unknown
    overall: float | None  # set for graded/partial_judge/timed_out/no_judge/stopped
    overall_upper: float | None  # = overall unless judge_status == "partial" (then its upper bound)
    deterministic: float | None
    judge: float | None  # None for no_judge
    judge_upper: float | None  # set only when judge_status == "partial"; else None (= judge)
    judge_status: str | None
    configuration: Configuration | None  # None: the run has no readable conditions


class CountedRun(Protocol):
    """What the computation reads of a run: a ProgressRun, or the summary step's RunRecord itself (the build
    hands its records over as they are: a million runs are not copied)."""

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


# --- output ----------------------------------------------------------------------------------


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

    def as_json(self) -> dict:
        return {
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "shift": self.shift,
            "delta_median": self.delta_median,
            "ci99": _pair(self.ci99),
            "ci90": _pair(self.ci90),
            "steady_within": self.steady_within,
            "m": self.m,
            "n": self.n,
        }


@dataclass(frozen=True, slots=True)
class CellSegment:
    """The counted runs of one cell that share one configuration (§1)."""

    configuration: Configuration
    first_run_id: str
    last_run_id: str
    runs: Mapping[str, int]  # counted runs per series
    left_out: Mapping[str, int]  # left-out runs of this configuration, by kind (no zeros)
    median: float | None  # of the overall series

    def as_json(self) -> dict:
        return {
            "configuration": self.configuration.as_json(),
            "first_run_id": self.first_run_id,
            "last_run_id": self.last_run_id,
            "runs": dict(self.runs),
            "left_out": dict(self.left_out),
            "median": self.median,
        }


@dataclass(frozen=True, slots=True)
class CellStep:
    """Segment ``to`` against the segment ``from_`` just before it, per series (§2)."""

    from_: Configuration
    to: Configuration
    changed: tuple[str, ...]
    overall: StepSeries
    checks: StepSeries
    judge: StepSeries
    attribution: str | None

    def series(self, name: str) -> StepSeries:
        return getattr(self, name)

    def as_json(self) -> dict:
        return {
            "from": self.from_.as_json(),
            "to": self.to.as_json(),
            "changed": list(self.changed),
            **{s: self.series(s).as_json() for s in SERIES},
            "attribution": self.attribution,
        }


@dataclass(frozen=True, slots=True)
class UnexplainedShift:
    """§4: the overall series of segment ``segment`` moved at run ``start_run_id``."""

    segment: int
    start_run_id: str
    shift: float
    interval: tuple[float, float]

    def as_json(self) -> dict:
        return {
            "segment": self.segment,
            "start_run_id": self.start_run_id,
            "shift": self.shift,
            "interval": list(self.interval),
            "unexplained": True,
        }


@dataclass(frozen=True, slots=True)
class Cell:
    """One agent on one mission version (§1)."""

    mission: str
    version: str
    current: bool
    segments: tuple[CellSegment, ...]
    steps: tuple[CellStep, ...]  # steps[i]: segments[i] → segments[i + 1]
    shifts: tuple[UnexplainedShift, ...]
    left_out_unplaced: Mapping[str, int]
    undated: int
    newest_segment: int | None  # the segment holding the cell's newest counted run (a rollback: not the last)

    @property
    def newest_step(self) -> CellStep | None:
        """The step into the newest configuration (the last segment)."""
        return self.steps[-1] if self.steps else None

    def as_json(self) -> dict:
        return {
            "mission": self.mission,
            "version": self.version,
            "current": self.current,
            "segments": [s.as_json() for s in self.segments],
            "steps": [s.as_json() for s in self.steps],
            "shifts": [s.as_json() for s in self.shifts],
            "left_out_unplaced": dict(self.left_out_unplaced),
            "undated": self.undated,
        }


@dataclass(frozen=True, slots=True)
class Stratum:
    """One current mission version an agent step compares on, with its own step verdict."""

    mission: str
    version: str
    step: StepSeries

    def as_json(self) -> dict:
        return {"mission": self.mission, "version": self.version, **self.step.as_json()}


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

    def as_json(self) -> dict:
        return {
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "shift": self.shift,
            "z": self.z,
            "p": self.p,
            "tally": dict(self.tally),
            "strata": [s.as_json() for s in self.strata],
        }


@dataclass(frozen=True, slots=True)
class JudgeStrata:
    """The judge series of an agent step: its strata and tally only (§7)."""

    tally: Mapping[str, int]
    strata: tuple[Stratum, ...]

    def as_json(self) -> dict:
        return {"tally": dict(self.tally), "strata": [s.as_json() for s in self.strata]}


@dataclass(frozen=True, slots=True)
class AgentSegment:
    """All counted runs of the agent on current mission versions with one configuration (§3)."""

    configuration: Configuration
    first_run_id: str
    last_run_id: str
    runs: Mapping[str, int]

    def as_json(self) -> dict:
        return {
            "configuration": self.configuration.as_json(),
            "first_run_id": self.first_run_id,
            "last_run_id": self.last_run_id,
            "runs": dict(self.runs),
        }


@dataclass(frozen=True, slots=True)
class AgentStep:
    from_: Configuration
    to: Configuration
    changed: tuple[str, ...]
    overall: AgentSeries
    checks: AgentSeries
    judge: JudgeStrata

    def as_json(self) -> dict:
        return {
            "from": self.from_.as_json(),
            "to": self.to.as_json(),
            "changed": list(self.changed),
            "overall": self.overall.as_json(),
            "checks": self.checks.as_json(),
            "judge": self.judge.as_json(),
        }


@dataclass(frozen=True, slots=True)
class AgentProgress:
    agent: str
    name: str
    slug: str
    segments: tuple[AgentSegment, ...]
    steps: tuple[AgentStep, ...]  # steps[i]: segments[i] → segments[i + 1]
    cells: tuple[Cell, ...]
    newest_segment: int | None  # the agent segment holding its newest counted run on a current version

    @property
    def newest_step(self) -> AgentStep | None:
        """The headline's step: the one into the newest agent segment."""
        return self.steps[-1] if self.steps else None

    def cell(self, mission: str, version: str) -> Cell | None:
        for cell in self.cells:
            if cell.mission == mission and cell.version == version:
                return cell
        return None


def _pair(pair: tuple[float, float] | None) -> list[float] | None:
    return None if pair is None else [pair[0], pair[1]]


def _rounded(x: float) -> float:
    return round(x, PLACES)


# --- §1: one cell ------------------------------------------------------------------------------


class _Side:
    """One series of one segment: values in time order, their upper values, their run ids."""

    __slots__ = ("values", "upper", "run_ids", "_sample", "_upper_sample")

    def __init__(self, values: list[float], upper: list[float], run_ids: list[str]):
        self.values = values
        self.upper = upper if upper != values else values  # the same list when no run is partial
        self.run_ids = run_ids
        self._sample: Sample | None = None
        self._upper_sample: Sample | None = None

    def __len__(self) -> int:
        return len(self.values)

    @property
    def has_upper(self) -> bool:
        return self.upper is not self.values

    def sample(self) -> Sample:
        if self._sample is None:
            self._sample = Sample.of(self.values)
        return self._sample

    def upper_sample(self) -> Sample:
        if not self.has_upper:
            return self.sample()
        if self._upper_sample is None:
            self._upper_sample = Sample.of(self.upper)
        return self._upper_sample


class _Segment:
    """A cell segment while it is being worked out: its runs as indices into the cell's columns."""

    __slots__ = ("configuration", "rows", "left_out", "sides", "first", "last")

    def __init__(self, configuration: Configuration):
        self.configuration = configuration
        self.rows: list[int] = []  # in time order
        self.left_out: dict[str, int] = {}
        self.sides: dict[str, _Side] = {}
        self.first: tuple[datetime, str] | None = None  # (start, run id) of its first and last run
        self.last: tuple[datetime, str] | None = None


class _Columns:
    """A cell's runs as a list per field, each read in one C-level pass (``map(attrgetter)``).

    A list of scores or ids holds no object the garbage collector tracks, where a tuple per
    run would be a million tracked objects, and the collections they set off cost more than
    reading each run once per field (measured at a million runs, benchmarks/progress.py).
    """

    def __init__(self, runs: list[CountedRun]):
        self.runs = runs
        self.started = list(map(attrgetter("started"), runs))
        self.run_id = list(map(attrgetter("run_id"), runs))
        self.kind = list(map(attrgetter("kind"), runs))
        self.configuration = list(map(attrgetter("configuration"), runs))
        self.current = list(map(attrgetter("current"), runs))
        self.judge_status = list(map(attrgetter("judge_status"), runs))
        self.overall = list(map(attrgetter("overall"), runs))
        self.deterministic = list(map(attrgetter("deterministic"), runs))
        self.judge = list(map(attrgetter("judge"), runs))

    def fail(self, rows: Iterable[int], field: str, why: str) -> NoReturn:
        _fail((self.runs[i] for i in rows), field, why)

    def scores(self, rows: list[int], name: str) -> list[float]:
        """One series' values, checked as a column: a counted run has its score, in [0, 1]."""
        column = getattr(self, name)
        values = list(map(column.__getitem__, rows))
        if values and not (set(map(type, values)) <= _NUMBERS and 0 <= min(values) and max(values) <= 1):
            self.fail(
                (i for i in rows if not _is_score(column[i])),
                name,
                f"not a score in [0, 1] (a {self.kind[rows[0]]} run has one)",
            )
        return values

    def uppers(self, rows: list[int], values: list[float], name: str) -> list[float]:
        """§7: the upper value comes from a partial judge whatever the kind; a missing one is the value."""
        statuses = list(map(self.judge_status.__getitem__, rows))
        if "partial" not in statuses:
            return values
        uppers = values[:]
        for at, (i, status) in enumerate(zip(rows, statuses)):
            if status != "partial":
                continue
            upper = getattr(self.runs[i], name)  # read from the run: only a partial judge has one
            if upper is not None:
                if not (_is_score(upper) and upper >= values[at]):
                    self.fail([i], name, f"{upper!r} is not an upper bound in [{name[:-6]}, 1]")
                uppers[at] = upper
        return uppers

    def validate(self) -> None:
        """Refuse what the summary step never hands over, naming the run and the field (checked
        on whole columns; only when one fails is the run looked for)."""
        ids, kinds = self.run_id, self.kind
        # Any text: a run the export identifies only by its directory has the directory's 8 hex digits, and
        # several exports may each hold a run of one id (they are counted as the runs they are).
        if not set(map(type, ids)) <= {str}:
            self.fail((i for i, v in enumerate(ids) if not isinstance(v, str)), "run_id", "not text")
        if len(set(self.current)) > 1:
            self.fail(range(len(ids)), "current", "runs of one mission version disagree on whether it is current")
        if not set(kinds) <= RUN_KINDS:
            self.fail((i for i, k in enumerate(kinds) if k not in RUN_KINDS), "kind", "not a kind progress counts")

    def in_order(self) -> list[int]:
        """The dated rows by start time, then run id.

        Sorted on float timestamps (a sort of floats, where comparing datetime objects would
        chase a pointer per comparison); the float of an instant is correctly rounded, so
        it never reverses two instants, and rows whose floats are equal (the same instant,
        or two instants one float apart) are put in exact (start, run id) order afterwards.
        """
        started = self.started
        dated = [i for i, when in enumerate(started) if when is not None]
        when = list(map(started.__getitem__, dated))
        if not set(map(type, when)) <= {datetime} or None in map(_TZINFO_OF, when):
            self.fail(
                (i for i in dated if not (isinstance(started[i], datetime) and started[i].tzinfo is not None)),
                "started",
                "not a time-zone-aware instant",
            )
        stamps = list(map(datetime.timestamp, when))
        order = sorted(range(len(dated)), key=stamps.__getitem__)
        rows = list(map(dated.__getitem__, order))
        keys = list(map(stamps.__getitem__, order))
        if any(map(eq, keys, islice(keys, 1, None))):
            ids = self.run_id
            i = 0
            while i < len(rows):
                j = i + 1
                while j < len(rows) and keys[j] == keys[i]:
                    j += 1
                if j - i > 1:
                    rows[i:j] = sorted(rows[i:j], key=lambda r: (started[r], ids[r]))
                i = j
        return rows


class _CellWork:
    """A cell while it is being worked out: its segments by configuration and the steps asked of it."""

    def __init__(self, mission: str, version: str, runs: list[CountedRun]):
        self.mission, self.version = mission, version
        cols = self.columns = _Columns(runs)
        cols.validate()
        self.current = bool(cols.current[0])
        self.ordered = cols.in_order()
        self.undated = len(runs) - len(self.ordered)
        self.segments: list[_Segment] = []
        self.index: dict[Configuration, int] = {}
        kinds, confs = cols.kind, cols.configuration
        # a harness hands the same Configuration object to many runs: look each object up once
        by_object: dict[int, int] = {}
        counted = [i for i in self.ordered if kinds[i] in CHECKS_KINDS]
        for i in counted:
            at = by_object.get(id(confs[i]))
            if at is None:
                conf = confs[i] or NO_CONDITIONS
                at = self.index.get(conf)
                if at is None:
                    at = self.index[conf] = len(self.segments)
                    self.segments.append(_Segment(conf))
                by_object[id(confs[i])] = at
            self.segments[at].rows.append(i)
        self.unplaced: dict[str, int] = {}
        for i in self.ordered:
            if kinds[i] not in CHECKS_KINDS:
                # a left-out run with no readable conditions is unplaced, even beside counted runs without
                at = self.index.get(confs[i]) if confs[i] is not None else None
                counts = self.unplaced if at is None else self.segments[at].left_out
                counts[kinds[i]] = counts.get(kinds[i], 0) + 1
        for segment in self.segments:
            self._build(segment)
        self.agent_keys = _agent_keys(self)
        self.newest_segment = self.index[confs[counted[-1]] or NO_CONDITIONS] if counted else None
        self._steps: dict[tuple[int, int], dict[str, StepSeries]] = {}
        self._upper_shifts: dict[tuple[int, int, str], float | None] = {}

    def _build(self, segment: _Segment) -> None:
        """The segment's three series (§1), values in time order."""
        cols = self.columns
        rows, kinds, ids = segment.rows, cols.kind, cols.run_id
        median = [i for i in rows if kinds[i] in MEDIAN_KINDS]
        median_ids = list(map(ids.__getitem__, median))
        overall = cols.scores(median, "overall")
        judge = cols.scores(median, "judge")
        checks = cols.scores(rows, "deterministic")
        segment.sides = {
            "overall": _Side(overall, cols.uppers(median, overall, "overall_upper"), median_ids),
            "checks": _Side(checks, checks, list(map(ids.__getitem__, rows))),
            "judge": _Side(judge, cols.uppers(median, judge, "judge_upper"), median_ids),
        }
        segment.first = (cols.started[rows[0]], ids[rows[0]])
        segment.last = (cols.started[rows[-1]], ids[rows[-1]])

    def step(self, a: int, b: int) -> dict[str, StepSeries]:
        """The three series' steps from segment a to segment b (computed once per pair)."""
        key = (a, b)
        if key not in self._steps:
            old, new = self.segments[a], self.segments[b]
            judge_changed = old.configuration.judge_model != new.configuration.judge_model
            self._steps[key] = {s: series_step(s, old.sides[s], new.sides[s], judge_changed) for s in SERIES}
        return self._steps[key]

    def upper_shift(self, a: int, b: int, series: str) -> float | None:
        """The Hodges–Lehmann shift of segment b over segment a on the upper values (§3's partial_judge)."""
        key = (a, b, series)
        if key not in self._upper_shifts:
            x, y = self.segments[a].sides[series], self.segments[b].sides[series]
            if not (x.has_upper or y.has_upper):
                self._upper_shifts[key] = self.step(a, b)[series].shift
            else:
                self._upper_shifts[key] = Differences(x.upper_sample(), y.upper_sample()).shift()
        return self._upper_shifts[key]

    def result(self) -> Cell:
        segments = tuple(_cell_segment(s) for s in self.segments)
        steps = []
        for b in range(1, len(self.segments)):
            series = self.step(b - 1, b)
            old, new = self.segments[b - 1].configuration, self.segments[b].configuration
            steps.append(
                CellStep(
                    old,
                    new,
                    new.changed(old),
                    series["overall"],
                    series["checks"],
                    series["judge"],
                    _attribution(series),
                )
            )
        return Cell(
            self.mission,
            self.version,
            self.current,
            segments,
            tuple(steps),
            self._shifts(),
            _no_zeros(self.unplaced, LEFT_OUT_KINDS),
            self.undated,
            self.newest_segment,
        )

    def _shifts(self) -> tuple[UnexplainedShift, ...]:
        """§4, in each segment's overall series; listed in the time order of their start run."""
        found = []
        for i, segment in enumerate(self.segments):
            side = segment.sides["overall"]
            for shift in shift_search(side.values, SHIFT_DELTA):
                found.append(UnexplainedShift(i, side.run_ids[shift.start], shift.shift, shift.interval))
        if len(found) > 1:
            ids = self.columns.run_id
            position = {ids[row]: at for at, row in enumerate(self.ordered)}
            found.sort(key=lambda s: position[s.start_run_id])
        return tuple(found)


def _cell_segment(segment: _Segment) -> CellSegment:
    overall = segment.sides["overall"]
    median = overall.sample().median() if len(overall) else None
    assert segment.first is not None and segment.last is not None
    return CellSegment(
        segment.configuration,
        segment.first[1],
        segment.last[1],
        {s: len(segment.sides[s]) for s in SERIES},
        _no_zeros(segment.left_out, LEFT_OUT_KINDS),
        median,
    )


def _no_zeros(counts: Mapping[str, int], order: Iterable[str]) -> dict[str, int]:
    return {k: counts[k] for k in order if counts.get(k)}


# --- §2: one series at one step --------------------------------------------------------------------


def series_step(series: str, old: _Side, new: _Side, judge_changed: bool) -> StepSeries:
    """The verdict of one series between two segments, with its guards and published figures."""
    xs, ys = old.sample(), new.sample()
    m, n = xs.size, ys.size
    shift = ci99 = ci90 = delta_median = None
    if m and n:
        diffs = Differences(xs, ys)
        shift = diffs.shift()
        ci99 = diffs.interval(ALPHA_CHANGE)
        ci90 = diffs.interval(ALPHA_STEADY)
        delta_median = ys.median() - xs.median()  # type: ignore[operator]  # both sides are non-empty
    verdict, within = _verdict(series, judge_changed, m, n, shift, ci99, ci90)
    reasons = []
    if verdict in MOVES:
        if series != "checks" and (old.has_upper or new.has_upper):
            if _move(series, old.upper_sample(), new.upper_sample()) != verdict:
                reasons.append("partial_judge")
        # §7: the newest run of a side is the newest in this series
        if not (
            _kept(series, diffs, verdict, m, n - 1, lambda: (xs, ys.without(new.values[-1])))
            and _kept(series, diffs, verdict, m - 1, n, lambda: (xs.without(old.values[-1]), ys))
        ):
            reasons.append("just_crossed")
        if reasons:
            verdict, within = "unclear", None
    return StepSeries(verdict, tuple(reasons), shift, delta_median, ci99, ci90, within, m, n)


def _kept(
    series: str, diffs: Differences, verdict: str, m: int, n: int, smaller: Callable[[], tuple[Sample, Sample]]
) -> bool:
    """Whether the move ``verdict`` stays with one run removed from a side (m, n: the sizes left).

    Removing a run removes its r = total − m·n differences, and that can only move the j-th
    smallest difference up to at most the (j + r)-th of the whole step: D(j) ≤ D'(j) ≤ D(j + r).
    So the step's own order statistics often settle it (a clear move stays a move); only
    when they cannot is the step computed again without the run (``smaller``).
    """
    if m < N_MIN or n < N_MIN:
        return False  # too_few_runs: no move
    k = moses_k(m, n, ALPHA_CHANGE)
    if k is None:
        return False
    total = m * n
    r = diffs.total - total
    delta = DELTA[series]
    if verdict == "improved":  # the lower bounds suffice: every figure can only be higher
        low_shift = _middle(diffs, (total + 1) // 2, total // 2 + 1, total % 2)
        if _rounded(low_shift) >= delta and _rounded(diffs.order_statistic(k)) > 0:
            return True
    else:
        high_shift = _middle(diffs, (total + 1) // 2 + r, total // 2 + 1 + r, total % 2)
        if _rounded(high_shift) <= -delta and _rounded(diffs.order_statistic(total + 1 - k + r)) < 0:
            return True
    return _move(series, *smaller()) == verdict


def _middle(diffs: Differences, a: int, b: int, odd: int) -> float:
    """(D(a) + D(b)) / 2, or D(a) alone when the multiset it stands for has an odd size."""
    return diffs.order_statistic(a) if odd else (diffs.order_statistic(a) + diffs.order_statistic(b)) / 2


def _verdict(
    series: str,
    judge_changed: bool,
    m: int,
    n: int,
    shift: float | None,
    ci99: tuple[float, float] | None,
    ci90: tuple[float, float] | None,
) -> tuple[str, float | None]:
    """§2 steps 1–5: (verdict, steady_within)."""
    if judge_changed and series != "checks":
        return "not_comparable", None
    if m < N_MIN or n < N_MIN:
        return "too_few_runs", None
    delta = DELTA[series]
    if ci99 is not None and shift is not None:
        if _rounded(ci99[0]) > 0 and _rounded(shift) >= delta:
            return "improved", None
        if _rounded(ci99[1]) < 0 and _rounded(shift) <= -delta:
            return "regressed", None
    if ci90 is not None:
        lo, hi = _rounded(ci90[0]), _rounded(ci90[1])
        for within in (delta, 2 * delta):
            if lo >= -within and hi <= within:
                return "steady", within
    return "unclear", None


def _move(series: str, xs: Sample, ys: Sample) -> str | None:
    """Steps 1–5 again for a guard, computing only what tells a move: "improved", "regressed" or None.

    A guard is only asked about a step whose judge model did not change (it is a move), so
    step 1 cannot apply; a side below n_min is too_few_runs, which is no move.
    """
    if xs.size < N_MIN or ys.size < N_MIN:
        return None
    diffs = Differences(xs, ys)
    shift = diffs.shift()
    assert shift is not None
    delta = DELTA[series]
    k = moses_k(xs.size, ys.size, ALPHA_CHANGE)
    if k is None:
        return None
    if _rounded(shift) >= delta and _rounded(diffs.order_statistic(k)) > 0:
        return "improved"
    if _rounded(shift) <= -delta and _rounded(diffs.order_statistic(diffs.total + 1 - k)) < 0:
        return "regressed"
    return None


def _attribution(series: Mapping[str, StepSeries]) -> str | None:
    """§2: which half carries an overall move."""
    verdict = series["overall"].verdict
    if verdict not in MOVES:
        return None
    checks, judge = series["checks"].verdict == verdict, series["judge"].verdict == verdict
    return "both" if checks and judge else "checks" if checks else "judge" if judge else "neither alone"


# --- §3: the agent's steps ----------------------------------------------------------------------------


@dataclass(slots=True)
class _AgentSegmentWork:
    key: tuple  # (agent_version, model, judge_model, the budget's epoch on each mission): _agent_key
    configuration: Configuration  # as published: budget_seconds when all its missions share one, else None
    first: tuple[datetime, str]  # (start, run id) of its first and last run
    last: tuple[datetime, str]
    budgets: set = field(default_factory=set)
    runs: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SERIES, 0))


def _agent_keys(cell: _CellWork) -> dict[tuple, int]:
    """The agent-level key of each of a cell's segments -> its index (one segment a key).

    A budget is a mission's (XORCISE sets ``budget_seconds`` per mission version): two runs on
    different missions never differ by budget. So across missions a budget stands in a key as its
    epoch on that mission (0 for the first budget the agent's runs there had, 1 for the next to
    appear, ...): a budget changed on one mission makes a new agent configuration there and only
    there, and an agent whose missions merely have budgets of their own stays one configuration.
    When every mission has the same budget, the epochs are exactly the budgets (the plain reading)."""
    epochs: dict = {}
    keys = {}
    firsts = [segment.first for segment in cell.segments]
    for index in sorted(range(len(firsts)), key=lambda i: firsts[i] or (datetime.min.replace(tzinfo=UTC), "")):
        conf = cell.segments[index].configuration
        epoch = epochs.setdefault(conf.budget_seconds, len(epochs))
        keys[(conf.agent_version, conf.model, conf.judge_model, epoch)] = index
    return keys


def _agent_segments(cells: list[_CellWork]) -> tuple[list[_AgentSegmentWork], int | None]:
    """Configurations over all counted runs on current versions (budgets by their epoch on each mission:
    _agent_keys), ordered by their first run."""
    by_key: dict[tuple, _AgentSegmentWork] = {}
    for cell in cells:
        if not cell.current:
            continue
        for key, index in cell.agent_keys.items():
            segment = cell.segments[index]
            assert segment.first is not None and segment.last is not None
            work = by_key.get(key)
            if work is None:
                work = by_key[key] = _AgentSegmentWork(key, segment.configuration, segment.first, segment.last)
            else:
                work.first = min(work.first, segment.first)
                work.last = max(work.last, segment.last)
            work.budgets.add(segment.configuration.budget_seconds)
            for s in SERIES:
                work.runs[s] += len(segment.sides[s])
    for work in by_key.values():
        if len(work.budgets) > 1:
            version, model, judge_model, _ = work.key
            work.configuration = Configuration(version, model, judge_model, None)
    ordered = sorted(by_key.values(), key=attrgetter("first"))
    newest = max(range(len(ordered)), key=lambda i: ordered[i].last) if ordered else None
    return ordered, newest


def _changed(old: _AgentSegmentWork, new: _AgentSegmentWork) -> tuple[str, ...]:
    """The fields two agent configurations differ in: the budget when its epochs differ."""
    return tuple(name for name, a, b in zip(CONFIG_FIELDS, old.key, new.key) if a != b)


def _agent_step(cells: list[_CellWork], old: _AgentSegmentWork, new: _AgentSegmentWork) -> AgentStep:
    judge_changed = old.key[2] != new.key[2]
    pairs = [
        (cell, cell.agent_keys[old.key], cell.agent_keys[new.key])
        for cell in cells
        if cell.current and old.key in cell.agent_keys and new.key in cell.agent_keys
    ]
    series = {}
    for s in SERIES:
        strata = [
            (cell, a, b) for cell, a, b in pairs if len(cell.segments[a].sides[s]) and len(cell.segments[b].sides[s])
        ]
        series[s] = _agent_series(s, judge_changed, strata)
    judge = series["judge"]
    return AgentStep(
        old.configuration,
        new.configuration,
        _changed(old, new),
        series["overall"],
        series["checks"],
        JudgeStrata(judge.tally, judge.strata),
    )


def _agent_series(series: str, judge_changed: bool, strata: list[tuple[_CellWork, int, int]]) -> AgentSeries:
    """§3 for one series: van Elteren over the strata, the weighted shift, the verdict, the tally."""
    steps = [cell.step(a, b)[series] for cell, a, b in strata]
    published = tuple(Stratum(cell.mission, cell.version, step) for (cell, _, _), step in zip(strata, steps))
    counts: dict[str, int] = {}
    for step in steps:
        counts[step.verdict] = counts.get(step.verdict, 0) + 1
    tally = _no_zeros(counts, VERDICTS)
    sides = [(cell.segments[a].sides[series], cell.segments[b].sides[series]) for cell, a, b in strata]
    test = van_elteren([(x.sample(), y.sample()) for x, y in sides])
    shift = _weighted_shift([(step.m, step.n, step.shift) for step in steps])
    reasons: tuple[str, ...] = ()
    if judge_changed and series == "overall":
        verdict = "not_comparable"
    elif sum(min(step.m, step.n) for step in steps) < N_MIN:
        verdict = "too_few_runs"
    elif counts.get("improved") and counts.get("regressed"):
        verdict = "mixed"
    else:
        move = _agent_move(series, test.p, shift, counts)
        if move is not None:
            verdict = move
            if series == "overall" and any(x.has_upper or y.has_upper for x, y in sides):
                upper_test = van_elteren([(x.upper_sample(), y.upper_sample()) for x, y in sides])
                upper_shift = _weighted_shift(
                    [(step.m, step.n, cell.upper_shift(a, b, series)) for (cell, a, b), step in zip(strata, steps)]
                )
                if _agent_move(series, upper_test.p, upper_shift, counts) != move:
                    verdict, reasons = "unclear", ("partial_judge",)
        else:
            decided = [step for step in steps if step.m >= N_MIN and step.n >= N_MIN]
            verdict = "steady" if decided and all(step.verdict == "steady" for step in decided) else "unclear"
    return AgentSeries(verdict, reasons, shift, test.z, test.p, tally, published)


def _weighted_shift(strata: list[tuple[int, int, float | None]]) -> float | None:
    """Σ v_s·shift_s / Σ v_s with v_s = m_s n_s / N_s, summed exactly (then rounded once)."""
    num = den = Fraction(0)
    for m, n, shift in strata:
        if shift is None:
            continue
        v = Fraction(m * n, m + n)
        num += v * Fraction(shift)
        den += v
    return float(num / den) if den else None


def _agent_move(series: str, p: float | None, shift: float | None, counts: Mapping[str, int]) -> str | None:
    if p is None or shift is None or not _rounded(p) < P_CHANGE:
        return None
    delta = DELTA[series]
    if _rounded(shift) >= delta and not counts.get("regressed"):
        return "improved"
    if _rounded(shift) <= -delta and not counts.get("improved"):
        return "regressed"
    return None


# --- the whole agent ----------------------------------------------------------------------------------


def agent_progress(agent: str, name: str, slug: str, runs: Iterable[CountedRun]) -> AgentProgress:
    """Every cell, segment, step and verdict of one agent (progress rules §1–§4).

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
    work = [
        _CellWork(mission, version, by_cell[(mission, version)])
        for mission, version in sorted(by_cell, key=lambda mv: (mv[0], version_key(mv[1])))
    ]
    segments, newest = _agent_segments(work)
    steps = tuple(_agent_step(work, segments[i - 1], segments[i]) for i in range(1, len(segments)))
    return AgentProgress(
        agent,
        name,
        slug,
        tuple(AgentSegment(s.configuration, s.first[1], s.last[1], dict(s.runs)) for s in segments),
        steps,
        tuple(cell.result() for cell in work),
        newest,
    )


def _fail(bad: Iterable[CountedRun], field: str, why: str) -> NoReturn:
    """Raise the ValueError for the first of ``bad``, naming its run, mission version and field."""
    run = next(iter(bad))
    raise ValueError(f"progress: run {run.run_id!r} ({run.mission} {run.version}): {field}: {why}")


_HEX = frozenset("0123456789abcdef")
_MISSION_OF, _VERSION_OF, _TZINFO_OF = attrgetter("mission"), attrgetter("version"), attrgetter("tzinfo")
_NUMBERS = {float, int}


def _is_score(value: object) -> bool:
    return type(value) in _NUMBERS and 0 <= value <= 1  # type: ignore[operator]


# --- §5 and §6 -----------------------------------------------------------------------------------------


def headline(progress: AgentProgress) -> dict:
    """What summary.json carries of an agent's progress (§5): its newest agent step's overall series.

    ``verdict``, ``shift``, ``changed`` and ``tally`` are the progress file's headline; the
    rest says what the pages need to word it without reading the file: ``reason``
    (``"one_configuration"`` / ``"no_counted_runs"`` when there is no step, else ``null``),
    ``reasons`` (the failed guard), ``from``/``to`` (configurations), ``strata`` (how many
    missions the step compares on) and ``segments`` (how many configurations).
    """
    step = progress.newest_step
    if step is None:
        return {
            "verdict": None,
            "shift": None,
            "changed": [],
            "tally": {},
            "reason": "one_configuration" if progress.segments else "no_counted_runs",
            "reasons": [],
            "from": None,
            "to": progress.segments[0].configuration.as_json() if progress.segments else None,
            "strata": 0,
            "segments": len(progress.segments),
        }
    return {
        "verdict": step.overall.verdict,
        "shift": step.overall.shift,
        "changed": list(step.changed),
        "tally": dict(step.overall.tally),
        "reason": None,
        "reasons": list(step.overall.reasons),
        "from": step.from_.as_json(),
        "to": step.to.as_json(),
        "strata": len(step.overall.strata),
        "segments": len(progress.segments),
    }


def progress_document(progress: AgentProgress) -> dict:
    """The progress file (schema ``podium.progress/1``), key by key as §6 lists them; JSON-ready."""
    top = headline(progress)
    return {
        "schema": "podium.progress/1",
        "agent": progress.agent,
        "name": progress.name,
        "slug": progress.slug,
        "method": method(),
        "headline": {k: top[k] for k in ("verdict", "shift", "changed", "tally")},
        "segments": [s.as_json() for s in progress.segments],
        "steps": [s.as_json() for s in progress.steps],
        "cells": [c.as_json() for c in progress.cells],
    }
