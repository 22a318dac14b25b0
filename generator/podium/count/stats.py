"""The arithmetic of counting.md §3: median, mean, and the median's confidence interval.

Every function takes values in any order and gives the same answer (sorting and
``math.fsum`` make the result independent of the order runs were read in).
"""

from __future__ import annotations

import math
from functools import lru_cache

CI_LEVEL_NUM, CI_LEVEL_DEN = 19, 20  # 0.95, kept exact
EXACT_UP_TO = 1024  # above this, the binomial tail is summed in floating point


def median(values: list[float]) -> float | None:
    """Median (mean of the two middle values when even); None for no values."""
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return None
    mid = n // 2
    return ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def mean(values: list[float]) -> float | None:
    """Arithmetic mean, exactly rounded whatever the order; None for no values."""
    return math.fsum(values) / len(values) if values else None


def median_ci(values: list[float]) -> tuple[float, float] | None:
    """Distribution-free 95% interval for the median: [x(j), x(n+1-j)], None when n < 6."""
    n = len(values)
    j = ci_rank(n)
    if j is None:
        return None
    ordered = sorted(values)
    return ordered[j - 1], ordered[n - j]


@lru_cache(maxsize=4096)
def ci_rank(n: int) -> int | None:
    """The largest j with 1 - 2·P(B <= j-1) >= 0.95, B ~ Binomial(n, 1/2); None if none.

    Exact integer arithmetic up to EXACT_UP_TO runs; above it the tail is summed
    in log space (an exact tie is impossible: 2^n is never a multiple of 5).
    """
    if n < 1:
        return None
    return _rank_exact(n) if n <= EXACT_UP_TO else _rank_float(n)


def _rank_exact(n: int) -> int | None:
    total = 1 << n
    best = None
    tail = 0  # sum of C(n, i) for i < j
    term = 1  # C(n, j - 1)
    for j in range(1, (n + 1) // 2 + 1):
        tail += term
        # 1 - 2*tail/total >= 19/20  <=>  20*(total - 2*tail) >= 19*total
        if CI_LEVEL_DEN * (total - 2 * tail) < CI_LEVEL_NUM * total:
            break
        best = j
        term = term * (n - j + 1) // j
    return best


def _rank_float(n: int) -> int | None:
    level = CI_LEVEL_NUM / CI_LEVEL_DEN
    log_term = n * math.log(0.5)  # log P(B = 0)
    tail = 0.0
    best = None
    for j in range(1, (n + 1) // 2 + 1):
        tail += math.exp(log_term)
        if 1 - 2 * tail < level:
            break
        best = j
        log_term += math.log(n - j + 1) - math.log(j)
    return best


SIGNIFICANT = 12  # digits a computed figure is published with: 0.4 and 0.45's median is 0.425, not 0.42500000000000004


def rounded(value: float) -> float:
    """One float as the data files write it (:func:`published`): SIGNIFICANT significant digits
    (model/jsonable.py's ``floats`` for the summary and the comparisons)."""
    return float(f"{value:.{SIGNIFICANT}g}")


def published(value):
    """A figure as the data files write it (docs/rules/site.md §3): every float rounded to SIGNIFICANT significant
    digits, which removes the float noise of sums and means while every comparison at 1e-9 stays what it was;
    dicts, lists and tuples are walked (tuples become lists). The summary, the comparisons and the progress
    files go through here (render/data.py), and so does what a change report reads of this build's summary
    (count/bundle.py bundle_of), so it compares like with like; the ledger's rows, a run's scores as
    result.json holds them, never do."""
    if isinstance(value, float):
        return rounded(value)
    if isinstance(value, dict):
        return {key: published(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [published(item) for item in value]
    return value
