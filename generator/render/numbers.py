"""How numbers read on pages and in the terminal: one helper per kind of figure.

Scores stay in [0, 1] in JSON; people read percentages with one decimal.
"""

from __future__ import annotations

import math

from podium.model import COUNTED_KINDS, KIND_LABELS, MEDIAN_KINDS, Figures, RunRecord

DASH = "—"
NO_JUDGE = "No judge"


def pct(value: float | None) -> str:
    """0.4375 -> "43.8%"; None -> "—"."""
    return DASH if value is None else f"{value * 100:.1f}%"


def pct_range(low: float | None, high: float | None) -> str:
    """"43.8%" or "43.8–50.0%" when the upper bound differs."""
    if low is None:
        return DASH
    if high is None or high == low:
        return pct(low)
    return f"{low * 100:.1f}–{high * 100:.1f}%"


def points(value: float | None) -> str:
    """A mean gap in percentage points: 0.1625 -> "16.3 pp"."""
    return DASH if value is None else f"{value * 100:.1f} pp"


def rate(value: float | None) -> str:
    return DASH if value is None else f"{value * 100:.0f}%"


def left_out(fig: Figures) -> list[tuple[str, int, str]]:
    """(kind, count, label) for every kind left out of the median that has runs."""
    return [(kind, fig.counts[kind], KIND_LABELS[kind].lower()) for kind in COUNTED_KINDS
            if kind not in MEDIAN_KINDS and fig.counts[kind]]


def median_line(fig: Figures) -> str:
    """ "12 of 15 runs in the median · 2 no judge · 1 infra failed" """
    head = f"{fig.in_median} of {fig.runs} run{'s' if fig.runs != 1 else ''} in the median"
    return " · ".join([head] + [f"{count} {label}" for _, count, label in left_out(fig)])


def svg_number(value: float) -> str:
    """An SVG coordinate: at most two decimals, never NaN or infinite (that is a bug, so it raises)."""
    if not math.isfinite(value):
        raise ValueError(f"non-finite number {value!r} reached a chart")
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def ledger_texts(record: RunRecord) -> dict[str, str]:
    """A run's score cells as the ledger shows them: "—" for no value, "No judge" when the judge never ran."""
    return {
        "overall": pct_range(record.overall, record.overall_upper) + ("*" if record.no_judge_ran else ""),
        "deterministic": pct(record.deterministic),
        "judge": NO_JUDGE if record.no_judge_ran else pct_range(record.judge, record.judge_upper),
    }
