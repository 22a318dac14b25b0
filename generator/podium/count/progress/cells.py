"""One cell (docs/rules/progress.md §1): its segments by configuration, left-out and undated runs, its steps
(§2, one computation per pair of segments) and its shifts with no named cause (§4).
"""

from __future__ import annotations

from datetime import datetime

from podium.count.progress.columns import Columns
from podium.count.progress.ranktests import Differences, Sample
from podium.count.progress.series import SCORE_SERIES, SERIES, SHIFT_DELTA, no_zeros
from podium.count.progress.shifts import shift_search
from podium.count.progress.verdict import attribution, series_step
from podium.model import CHECKS_KINDS, PROGRESS_LEFT_OUT_KINDS, Configuration
from podium.model.progress import Cell, CellSegment, CellStep, CountedRun, StepSeries, UnexplainedShift

NO_CONDITIONS = Configuration(None, None, None, None)  # a counted run with no readable conditions


class Side:
    """One series of one segment: values in time order, their upper values, their run ids."""

    __slots__ = ("values", "upper", "run_ids", "_sample", "_upper_sample")

    def __init__(self, values: list[float], upper: list[float], run_ids: list[str]):
        self.values = values
        self.upper = upper  # the same list as ``values`` when no run has an upper value of its own
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


class Segment:
    """A cell segment while it is being worked out: its runs as indices into the cell's columns."""

    __slots__ = ("configuration", "rows", "left_out", "sides", "first", "last")

    def __init__(self, configuration: Configuration):
        self.configuration = configuration
        self.rows: list[int] = []  # in time order
        self.left_out: dict[str, int] = {}
        self.sides: dict[str, Side] = {}  # series name -> its side
        self.first: tuple[datetime, str] | None = None  # (start, run id) of its first and last run
        self.last: tuple[datetime, str] | None = None


class CellWork:
    """A cell while it is being worked out: its segments by configuration and the steps asked of it."""

    def __init__(self, mission: str, version: str, runs: list[CountedRun]):
        self.mission, self.version = mission, version
        cols = self.columns = Columns(runs)
        cols.validate()
        self.current = bool(cols.current[0])
        self.ordered = cols.in_order()
        self.undated = len(runs) - len(self.ordered)
        self.segments: list[Segment] = []
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
                    self.segments.append(Segment(conf))
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
        self.agent_keys: dict[tuple, int] = {}  # strata.py fills it: the agent-level key of each segment
        self.newest_segment = self.index[confs[counted[-1]] or NO_CONDITIONS] if counted else None
        self._steps: dict[tuple[int, int], dict[str, StepSeries]] = {}
        self._upper_shifts: dict[tuple[int, int, str], float | None] = {}

    def _build(self, segment: Segment) -> None:
        """The segment's series (§1.2), values in time order."""
        cols = self.columns
        rows, kinds, ids = segment.rows, cols.kind, cols.run_id
        members: dict[frozenset[str], tuple[list[int], list[str]]] = {}  # the series of one kind set share rows
        for series in SERIES:
            if series.kinds not in members:
                own = rows if series.kinds >= CHECKS_KINDS else [i for i in rows if kinds[i] in series.kinds]
                members[series.kinds] = own, list(map(ids.__getitem__, own))
            own, own_ids = members[series.kinds]
            kept, values, upper = cols.series(series, own)
            segment.sides[series.name] = Side(
                values, upper, own_ids if kept is own else list(map(ids.__getitem__, kept))
            )
        segment.first = (cols.started[rows[0]], ids[rows[0]])
        segment.last = (cols.started[rows[-1]], ids[rows[-1]])

    def step(self, a: int, b: int) -> dict[str, StepSeries]:
        """Every series' step from segment a to segment b (computed once per pair)."""
        key = (a, b)
        if key not in self._steps:
            old, new = self.segments[a], self.segments[b]
            judge_changed = old.configuration.judge_model != new.configuration.judge_model
            self._steps[key] = {
                s.name: series_step(s, old.sides[s.name], new.sides[s.name], judge_changed) for s in SERIES
            }
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
                CellStep(from_=old, to=new, changed=new.changed(old), attribution=attribution(series), **series)
            )
        return Cell(
            self.mission,
            self.version,
            self.current,
            segments,
            tuple(steps),
            self._shifts(),
            no_zeros(self.unplaced, PROGRESS_LEFT_OUT_KINDS),
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


def _cell_segment(segment: Segment) -> CellSegment:
    overall = segment.sides["overall"]
    median = overall.sample().median() if len(overall) else None
    assert segment.first is not None and segment.last is not None
    return CellSegment(
        segment.configuration,
        segment.first[1],
        segment.last[1],
        {s: len(segment.sides[s]) for s in SCORE_SERIES},
        no_zeros(segment.left_out, PROGRESS_LEFT_OUT_KINDS),
        median,
    )
