"""The figures of one set of counted runs (counting.md §3) and the rank order (§5): one definition,
used by the summary step for agents, mission versions and cells, and by count/compare.py for model keys.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TypeVar

from podium.count import stats
from podium.count.model_names import listed
from podium.model import COUNTED_KINDS, MEDIAN_KINDS, Figures, RunRecord, iso_utc

NOT_ATTEMPTS = frozenset({"infra_failed", "grading", "unknown"})
T = TypeVar("T")


def kind_counts(records: list[RunRecord]) -> dict[str, int]:
    counts = dict.fromkeys(COUNTED_KINDS, 0)
    for record in records:
        counts[record.kind] += 1
    return counts


def figures(records: list[RunRecord]) -> Figures:
    """Every figure of counting.md §3 over one set of counted runs."""
    counts = kind_counts(records)
    population = [r for r in records if r.kind in MEDIAN_KINDS]
    lows = [r.overall for r in population]
    attempts = [r for r in records if r.kind not in NOT_ATTEMPTS]
    runs = len(records)
    return Figures(
        runs=runs,
        in_median=len(population),
        median=stats.median(lows),
        median_upper=stats.median([r.overall_upper for r in population]),
        median_ci=stats.median_ci(lows),
        avg_overall=stats.mean(lows),
        best_overall=max(lows) if lows else None,
        counts=counts,
        judge_degraded=counts["no_judge"],
        completion_rate=_rate(sum(r.end == "done" for r in attempts), len(attempts)),
        partial_rate=_rate(sum(r.end in ("timeout", "operator") for r in attempts), len(attempts)),
        last_run=iso_utc(max((r.when for r in records if r.when), default=None)),
        **_names("judge_models", (r.judge_model for r in records if r.judge_ran and r.judge_model)),
        **_names("models_reported", (m for r in records for m in r.models_reported)),
        **_names("models_declared", (r.model_declared for r in records if r.model_declared)),
    )


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _names(field: str, names: Iterable[str]) -> dict:
    """A list of distinct names (counting.md §3): sorted, at most MODELS_LISTED of them (those of the most
    runs), and how many more there are."""
    shown, more = listed(Counter(names))
    return {field: shown, f"{field}_more": more}


def rank_key(name: str, agent: str, fig: Figures) -> tuple:
    """counting.md §5: median desc, avg_overall desc, in_median desc, name; no median last."""
    if fig.median is None:
        return (1, 0.0, 0.0, 0, name.casefold(), name, agent)
    return (0, -fig.median, -fig.avg_overall, -fig.in_median, name.casefold(), name, agent)


def first(items: Sequence[T], limit: int) -> tuple[Sequence[T], int]:
    """A bounded list as a page shows it: the first ``limit`` items, and how many more there are."""
    return items[:limit], max(0, len(items) - limit)
