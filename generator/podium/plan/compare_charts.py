"""Geometry of the head-to-head interval chart: two medians and their 95% intervals on one axis.

Pure: a PairVersion in, coordinates in SVG user units out; ``svg/intervals.svg``
only draws them. Both agents share the one 0–100% axis, so an overlap of the
intervals is visible at a glance. A pair page draws one per shared mission version,
so the chart is light (site.md "Bounded"): the grid is one path, an interval's two
ends another.
"""

from __future__ import annotations

from dataclasses import dataclass

from podium.model import PairVersion
from podium.words.figures_text import NO_CI, ci_range, n_runs, pct, svg_number

LABEL = 120.0  # room for the two names on the left
X0, X1 = LABEL + 8.0, 406.0  # 0% and 100%
ROW_A, ROW_B = 16.0, 38.0
AXIS = 52.0
HEIGHT = 68.0
NAME_CHARS = 18
TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)
MARK_REACH = 4.0 + 0.75  # a median's circle: radius plus half its stroke (the widest mark past 100%)
# "no CI" is written in the right margin, past every mark (a median at 100% included), never over one.
NOTE = "no CI"
NOTE_FONT = 9.0  # px, monospace (compare.css .no-ci)
NOTE_ADVANCE = 0.6 * NOTE_FONT  # a monospace glyph's advance
NOTE_X = X1 + MARK_REACH + 6.0
WIDTH = round(NOTE_X + len(NOTE) * NOTE_ADVANCE + 8.0)


@dataclass(frozen=True)
class IntervalRow:
    side: str  # "a" or "b"
    label: str  # the agent's name, shortened to fit
    y: float
    median_x: float
    low_x: float | None  # None: no interval (fewer than 6 runs)
    high_x: float | None
    ends: str | None  # the interval's two end marks as one SVG path (None: no interval)


@dataclass(frozen=True)
class Intervals:
    width: float
    height: float
    x0: float
    x1: float
    note_x: float  # where a row without an interval says "no CI" (text-anchor start), right of 100%
    axis_y: float
    ticks: tuple[tuple[float, str], ...]
    grid: str  # the grid line of every tick as one SVG path
    rows: tuple[IntervalRow, IntervalRow]
    desc: str


def _x(value: float) -> float:
    return X0 + value * (X1 - X0)


def _short(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def _row(side: str, name: str, y: float, median: float, ci: tuple[float, float] | None) -> IntervalRow:
    if ci is None:
        return IntervalRow(side, _short(name), y, _x(median), None, None, None)
    low, high = _x(ci[0]), _x(ci[1])
    n = svg_number
    ends = f"M{n(low)} {n(y - 5)}V{n(y + 5)}M{n(high)} {n(y - 5)}V{n(y + 5)}"
    return IntervalRow(side, _short(name), y, _x(median), low, high, ends)


def _describe(name: str, median: float, ci: tuple[float, float] | None, n: int) -> str:
    interval = f"95% CI {ci_range(ci)}" if ci else NO_CI
    return f"{name}: median {pct(median)}, {interval}, {n_runs(n)} in the median"


def intervals(v: PairVersion, a_name: str, b_name: str) -> Intervals:
    return Intervals(
        width=WIDTH,
        height=HEIGHT,
        x0=X0,
        x1=X1,
        note_x=NOTE_X,
        axis_y=AXIS,
        ticks=tuple((_x(t), f"{t * 100:.0f}%") for t in TICKS),
        grid="".join(f"M{svg_number(_x(t))} 4V{svg_number(AXIS)}" for t in TICKS),
        rows=(_row("a", a_name, ROW_A, v.median_a, v.median_ci_a), _row("b", b_name, ROW_B, v.median_b, v.median_ci_b)),
        desc=(
            f"{_describe(a_name, v.median_a, v.median_ci_a, v.n_a)}. "
            f"{_describe(b_name, v.median_b, v.median_ci_b, v.n_b)}."
        ),
    )
