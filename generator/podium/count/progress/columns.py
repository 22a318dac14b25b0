"""A cell's runs as columns (docs/rules/progress.md §1): read once per field, checked, put in run order.

A list of scores or ids holds no object the garbage collector tracks, where a tuple per run would be a
million tracked objects, and the collections they set off cost more than reading each run once per
field (measured at a million runs, benchmarks/progress.py). Each column is read in one C-level pass
(``map(attrgetter)``) and checked whole; only when a check fails is the run looked for, and the
ValueError names it, its mission version and the field (the summary step refuses such runs first, so
this is a bug upstream, never a verdict).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import datetime
from itertools import islice
from operator import attrgetter, eq
from typing import NoReturn

from podium.count.progress.series import SERIES, Series
from podium.model import COUNTED_KINDS
from podium.model.progress import CountedRun

RUN_KINDS = frozenset(COUNTED_KINDS)  # every kind progress places: counted in a series, or left out
_NUMBERS = {float, int}
_TZINFO_OF = attrgetter("tzinfo")
_VALUE_FIELDS = tuple(dict.fromkeys(series.value for series in SERIES))


def fail(bad: Iterable[CountedRun], field: str, why: str) -> NoReturn:
    """Raise the ValueError for the first of ``bad``, naming its run, mission version and field."""
    run = next(iter(bad))
    raise ValueError(f"progress: run {run.run_id!r} ({run.mission} {run.version}): {field}: {why}")


def _is_score(value: object) -> bool:
    return type(value) in _NUMBERS and 0 <= value <= 1  # type: ignore[operator]


class Columns:
    """One cell's runs, a list per field."""

    def __init__(self, runs: list[CountedRun]):
        self.runs = runs
        self.started = list(map(attrgetter("started"), runs))
        self.run_id = list(map(attrgetter("run_id"), runs))
        self.kind = list(map(attrgetter("kind"), runs))
        self.configuration = list(map(attrgetter("configuration"), runs))
        self.current = list(map(attrgetter("current"), runs))
        self.judge_status = list(map(attrgetter("judge_status"), runs))
        self.values = {name: list(map(attrgetter(name), runs)) for name in _VALUE_FIELDS}

    def fail(self, rows: Iterable[int], field: str, why: str) -> NoReturn:
        fail((self.runs[i] for i in rows), field, why)

    def series(self, series: Series, rows: list[int]) -> tuple[list[int], list[float], list[float]]:
        """The rows of ``rows`` (runs of the series' kinds) in ``series`` (§1.2), their values and upper values, in
        the order of ``rows`` (``rows`` itself when every one is in it)."""
        if series.reading == "log_count":
            rows, values = self.log_counts(rows, series.value)
        else:
            values = self.scores(rows, series.value)
        uppers = self.uppers(rows, values, series.upper) if series.upper is not None else values
        return rows, values, uppers

    def log_counts(self, rows: list[int], name: str) -> tuple[list[int], list[float]]:
        """The rows whose count is reported, and its natural logarithm (cost.md §4): a count is a whole number
        ≥ 1, or None when the run's harness reported none (a 0 is read as None before it reaches progress,
        cost.md §1)."""
        column = self.values[name]
        counts = list(map(column.__getitem__, rows))
        if None in counts:
            rows = [i for i, count in zip(rows, counts) if count is not None]
            counts = [count for count in counts if count is not None]
        if counts and not (set(map(type, counts)) <= {int} and min(counts) >= 1):
            self.fail(
                (i for i in rows if not (type(column[i]) is int and column[i] >= 1)),
                name,
                "not a whole number ≥ 1 (a reported count) or null (not reported)",
            )
        return rows, list(map(math.log, counts))

    def scores(self, rows: list[int], name: str) -> list[float]:
        """One series' values, checked as a column: a counted run has its score, in [0, 1]."""
        column = self.values[name]
        values = list(map(column.__getitem__, rows))
        if values and not (set(map(type, values)) <= _NUMBERS and 0 <= min(values) and max(values) <= 1):
            self.fail(
                (i for i in rows if not _is_score(column[i])),
                name,
                f"not a score in [0, 1] (a {self.kind[rows[0]]} run has one)",
            )
        return values

    def uppers(self, rows: list[int], values: list[float], name: str) -> list[float]:
        """§7: the upper value comes from a partial judge whatever the kind; a missing one is the value.
        The same list as ``values`` when no run has one of its own."""
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
        return uppers if uppers != values else values

    def validate(self) -> None:
        """Refuse what the summary step never hands over (checked on whole columns)."""
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
