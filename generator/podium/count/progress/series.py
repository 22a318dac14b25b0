"""The series progress follows, each a declared value, and the constants of the rules (docs/rules/progress.md §1.2,
§2.3, §10).

A series says which runs it reads, the value (and upper value) of a run, its thresholds, the words its
verdicts are published with, and which rules apply to it; one machinery (``cells``, ``verdict``,
``strata``) reads the declarations. A new series is a new declaration and a field on the step types
(model/progress.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from podium.count.progress.ranktests import EXACT_MAX
from podium.count.progress.shifts import SHIFTS_MAX
from podium.model import CHECKS_KINDS, MEDIAN_KINDS
from podium.model.progress import SCORE_VERDICTS, Method

ALPHA_CHANGE = Fraction(1, 100)  # the 99% interval decides a move
ALPHA_STEADY = Fraction(1, 10)  # the 90% interval decides steady
N_MIN = 5  # runs on each side before a step is tested
P_CHANGE = 0.01  # an agent step's p must be below this (after rounding to PLACES)
PLACES = 6  # every threshold comparison is on values rounded to this many places
SHIFT_DELTA = 0.05  # §4: a shift with no named cause moves the overall series by at least this
MOVES = ("improved", "regressed")  # the verdicts the guards test, as the machinery names them
FILE_KEPT = 8  # §7.19: the newest configurations a progress file keeps in full, of a cell and of the agent


@dataclass(frozen=True, slots=True)
class Series:
    """One series (§1.2): its runs, the value of a run, its thresholds and verdict words, the rules that apply.

    The machinery decides in its own terms, a move up (``improved``), a move down (``regressed``),
    ``steady``, ``mixed``; ``words`` says how this series publishes each (a verdict not listed keeps its name).
    """

    name: str
    kinds: frozenset[str]  # the kinds of run it reads (counting.md §2)
    value: str  # the run's attribute holding its value
    # "score": every run of ``kinds`` has one, in [0, 1], read as it is; "log_count": a whole number ≥ 1 or None
    # (not reported: the run is not in the series), read as its natural logarithm
    reading: Literal["score", "log_count"]
    upper: str | None  # the run's attribute holding its upper value under a partial judge; None: none
    delta: float
    judge_sensitive: bool  # not_comparable when the two sides' judge models differ (§2.4 step 1)
    guards: tuple[str, ...]  # the guards on a move (§2.5), in the order reasons list them
    agent_verdict: bool  # an agent step gives it a verdict (else its strata and tally only, §3.2)
    words: Mapping[str, str]  # the machinery's verdict -> the word this series publishes

    @property
    def steady_bands(self) -> tuple[float, float]:
        return self.delta, 2 * self.delta

    def says(self, verdict: str) -> str:
        """The word this series publishes for the machinery's ``verdict``."""
        return self.words.get(verdict, verdict)

    @property
    def verdicts(self) -> tuple[str, ...]:
        """Every verdict this series can publish, in tally order."""
        return tuple(self.says(v) for v in SCORE_VERDICTS if self.judge_sensitive or v != "not_comparable")


OVERALL = Series(
    name="overall",
    kinds=MEDIAN_KINDS,
    value="overall",
    reading="score",
    upper="overall_upper",
    delta=0.05,
    judge_sensitive=True,
    guards=("partial_judge", "just_crossed"),
    agent_verdict=True,
    words={},
)
CHECKS = Series(
    name="checks",
    kinds=CHECKS_KINDS,  # their checks ran: the cell's counted runs
    value="deterministic",
    reading="score",
    upper=None,
    delta=0.1,
    judge_sensitive=False,
    guards=("just_crossed",),
    agent_verdict=True,
    words={},
)
JUDGE = Series(
    name="judge",
    kinds=MEDIAN_KINDS,
    value="judge",
    reading="score",
    upper="judge_upper",
    delta=0.1,
    judge_sensitive=True,
    guards=("partial_judge", "just_crossed"),
    agent_verdict=False,  # an agent step publishes its strata and tally only
    words={},
)
# cost.md §4: what a run spent, beside its scores
TOKENS = Series(
    name="tokens",
    kinds=MEDIAN_KINDS,  # the median population, those that reported their tokens
    value="total_tokens",
    reading="log_count",
    upper=None,  # no upper values: no partial_judge guard
    delta=math.log(1.25),  # a 25% change in tokens a run
    judge_sensitive=False,  # a judge does not spend the agent's tokens: never not_comparable
    guards=("just_crossed",),
    agent_verdict=True,
    words={"improved": "costlier", "regressed": "cheaper", "steady": "same_cost"},
)
SERIES = (OVERALL, CHECKS, JUDGE, TOKENS)  # the order steps publish them in
SCORE_SERIES = ("overall", "checks", "judge")  # a segment's ``runs`` counts these
DELTA = {series.name: series.delta for series in SERIES}


def method() -> Method:
    """The ``method`` block: every constant the verdicts use."""
    return Method(
        alpha_change=float(ALPHA_CHANGE),
        alpha_steady=float(ALPHA_STEADY),
        n_min=N_MIN,
        exact_max=EXACT_MAX,
        delta={s.name: s.delta for s in SERIES},
        steady_bands={s.name: s.steady_bands for s in SERIES},
        shift_alpha="0.01/(n-9)",
        shift_delta=SHIFT_DELTA,
        shift_max=SHIFTS_MAX,
    )


def rounded(x: float) -> float:
    return round(x, PLACES)


def no_zeros(counts: Mapping[str, int], order: Iterable[str]) -> dict[str, int]:
    """``counts`` in ``order``, without the zeros (§6 allows either; every count in the file omits them)."""
    return {k: counts[k] for k in order if counts.get(k)}
