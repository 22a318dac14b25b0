"""The tokens series (cost.md §4, progress rules §10): one more declaration read by the same machinery.

Its runs are the median population with total_tokens reported, its value ln(total_tokens); delta = ln(1.25);
cheaper / costlier / same_cost where a score says regressed / improved / steady; never not_comparable, no
partial_judge guard, just_crossed applies. Held against the brute-force reference (progresskit) for cell
steps and agent steps alike.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from progresskit import (
    B_NEW_JUDGE,
    HIGH,
    LOW,
    A,
    B,
    brute_van_elteren,
    only_cell,
    progress_document,
    progress_of,
    ref_step,
    run,
)

from podium.count.progress.series import DELTA, SERIES, TOKENS

LOG_125 = 0.22314355131420976


def spent(counts, conf=A, kind="graded", mission="jwt", score=0.5, **kw):
    """Runs that spent ``counts`` tokens each (None: not reported), all of one score."""
    return [run(score, conf=conf, kind=kind, mission=mission, total_tokens=t, **kw) for t in counts]


BASE = [100_000, 104_000, 98_000, 101_000, 99_500, 102_500, 97_000, 100_500]


def test_the_declaration_is_cost_md_section_4():
    assert TOKENS.delta == LOG_125 == math.log(1.25) and TOKENS.steady_bands == (LOG_125, 2 * LOG_125)
    assert DELTA["tokens"] == LOG_125
    assert TOKENS.kinds == {"graded", "partial_judge", "timed_out"} and TOKENS.value == "total_tokens"
    assert (TOKENS.judge_sensitive, TOKENS.upper, TOKENS.guards) == (False, None, ("just_crossed",))
    assert [s.name for s in SERIES] == ["overall", "checks", "judge", "tokens"]
    assert TOKENS.verdicts == ("costlier", "cheaper", "same_cost", "mixed", "unclear", "too_few_runs")


def test_cheaper_costlier_same_cost():
    cheaper = only_cell(progress_of(spent(BASE) + spent([t // 2 for t in BASE], conf=B))).newest_step.tokens
    assert (cheaper.verdict, cheaper.reasons, cheaper.m, cheaper.n) == ("cheaper", (), 8, 8)
    assert math.exp(cheaper.shift) == pytest.approx(0.5, rel=0.05) and cheaper.ci99[1] < 0
    costlier = only_cell(progress_of(spent(BASE) + spent([t * 3 for t in BASE], conf=B))).newest_step.tokens
    assert costlier.verdict == "costlier" and math.exp(costlier.shift) == pytest.approx(3, rel=0.05)
    rng_free = [100_000 + 37 * i for i in range(40)]
    same = only_cell(progress_of(spent(rng_free) + spent([t + 11 for t in rng_free], conf=B))).newest_step.tokens
    assert (same.verdict, same.steady_within) == ("same_cost", LOG_125)


def test_the_score_verdict_and_the_tokens_verdict_are_side_by_side_never_merged():
    step = only_cell(
        progress_of(
            [run(s, conf=A, total_tokens=t) for s, t in zip(LOW, BASE)]
            + [run(s, conf=B, total_tokens=t // 2) for s, t in zip(HIGH, BASE)]
        )
    ).newest_step
    assert (step.overall.verdict, step.tokens.verdict, step.attribution) == ("improved", "cheaper", "both")


def test_runs_that_report_no_tokens_and_runs_outside_the_median_population_are_not_in_it():
    old = spent(BASE[:3]) + spent([None] * 5) + spent([50_000] * 4, kind="no_judge") + spent([10] * 2, kind="stopped")
    new = spent(BASE[:4], conf=B) + spent([None] * 3, conf=B)
    step = only_cell(progress_of(old + new)).newest_step
    assert (step.tokens.m, step.tokens.n, step.tokens.verdict) == (3, 4, "too_few_runs")
    assert (step.overall.m, step.overall.n) == (8, 7)  # the scores count every run of the median population
    assert (step.checks.m, step.checks.n) == (12, 7)


def test_a_judge_model_change_leaves_the_tokens_comparable():
    step = only_cell(progress_of(spent(BASE) + spent([t // 2 for t in BASE], conf=B_NEW_JUDGE))).newest_step
    assert (step.overall.verdict, step.tokens.verdict) == ("not_comparable", "cheaper")


def test_no_partial_judge_guard_on_tokens():
    old = spent(BASE, judge_upper=1.0)  # a partial judge: the score's guard fails, the tokens have no upper values
    step = only_cell(progress_of(old + spent([t // 2 for t in BASE], conf=B, score=0.6))).newest_step
    assert step.overall.reasons == ("partial_judge",)
    assert (step.tokens.verdict, step.tokens.reasons) == ("cheaper", ())


def test_just_crossed_applies_to_tokens():
    old = spent([100_000] * 6)
    new = spent([101_000, 101_000, 101_000, 300_000, 300_000, 300_000], conf=B)  # the newest runs made the move
    step = only_cell(progress_of(old + new)).newest_step
    assert (step.tokens.verdict, step.tokens.reasons) == ("unclear", ("just_crossed",))
    assert step.tokens.ci99[0] > 0 and round(step.tokens.shift, 6) >= LOG_125  # a move before the guard


def test_ties_are_equal_token_counts():
    """Two runs that spent the same tokens tie (equal logarithms); the agent step's variance is tie-corrected."""
    old = spent([1000] * 5 + [2000] * 5, mission="m1") + spent([1000] * 6, mission="m2")
    new = spent([2000] * 5 + [4000] * 5, conf=B, mission="m1") + spent([2000] * 6, conf=B, mission="m2")
    tokens = progress_of(old + new).newest_step.tokens
    x = [math.log(t) for t in [1000] * 5 + [2000] * 5]
    y = [math.log(t) for t in [2000] * 5 + [4000] * 5]
    z, p = brute_van_elteren([(x, y), ([math.log(1000)] * 6, [math.log(2000)] * 6)])
    assert tokens.z == pytest.approx(z, rel=1e-9) and tokens.p == pytest.approx(p, rel=1e-9)
    assert math.log(2000) - math.log(1000) == math.log(4000) - math.log(2000)  # equal ratios, equal differences


def test_agent_step_mixed_in_cost_words():
    runs = (
        spent(BASE, mission="m1")
        + spent(BASE, mission="m2")
        + spent([t // 2 for t in BASE], conf=B, mission="m1")
        + spent([t * 2 for t in BASE], conf=B, mission="m2")
    )
    tokens = progress_of(runs).newest_step.tokens
    assert tokens.verdict == "mixed" and dict(tokens.tally) == {"costlier": 1, "cheaper": 1}
    assert tokens.reasons == ()


@pytest.mark.parametrize("bad", [0, -3, True, 1.5, "12000"])
def test_a_count_that_is_not_a_reported_whole_number_is_refused_naming_the_run(bad):
    runs = spent(BASE)
    runs[2] = run(0.5, conf=A, total_tokens=bad)
    with pytest.raises(ValueError) as caught:
        progress_of(runs)
    assert ": total_tokens:" in str(caught.value) and repr(runs[2].run_id) in str(caught.value)


def test_the_file_has_a_tokens_entry_beside_overall_at_every_step():
    runs = spent(BASE, mission="m1") + spent(BASE, mission="m2")
    runs += spent([t // 2 for t in BASE], conf=B, mission="m1") + spent([t // 2 for t in BASE], conf=B, mission="m2")
    doc = progress_document(progress_of(runs))
    assert doc["schema"] == "podium.progress/2"
    assert doc["headline"]["tokens"] == {"verdict": "cheaper", "shift": doc["steps"][0]["tokens"]["shift"]}
    assert set(doc["steps"][0]["tokens"]) == set(doc["steps"][0]["overall"])
    assert doc["steps"][0]["tokens"]["tally"] == {"cheaper": 2}
    for cell in doc["cells"]:
        assert set(cell["steps"][0]["tokens"]) == set(cell["steps"][0]["overall"])
    assert doc["method"]["delta"]["tokens"] == LOG_125
    assert doc["method"]["steady_bands"]["tokens"] == [LOG_125, 2 * LOG_125]


# --- against the rule written out -------------------------------------------------------------------------

tokens = st.one_of(st.none(), st.sampled_from([800, 1000, 1000, 1250, 1600, 2000, 2500, 4000, 10_000]))
side = st.lists(
    st.tuples(tokens, st.sampled_from(["graded", "graded", "timed_out", "no_judge"])), min_size=1, max_size=9
)


@settings(max_examples=300, deadline=None)
@given(side, side, st.sampled_from([1, 1, 2, 3]), st.booleans())
def test_the_tokens_step_is_the_rule_written_out(old, new, scale, judge_changed):
    """Random token counts (ties common, some not reported, some runs outside the median population), a newer
    side scaled up (moves common), and a judge model that may have changed (never not comparable)."""
    a = [run(conf=A, kind=k, total_tokens=t) for t, k in old]
    b = [run(conf=B_NEW_JUDGE if judge_changed else B, kind=k, total_tokens=t and t * scale) for t, k in new]
    cell = only_cell(progress_of(a + b))
    if not cell.steps:
        return  # one side has no counted run: no step
    x = [math.log(r.total_tokens) for r in a if r.total_tokens is not None and r.kind != "no_judge"]
    y = [math.log(r.total_tokens) for r in b if r.total_tokens is not None and r.kind != "no_judge"]
    got = cell.newest_step.tokens
    expected = ref_step("tokens", x, y, x, y)
    assert (got.verdict, got.reasons, got.shift, got.ci99, got.ci90, got.steady_within) == expected
    assert (got.m, got.n) == (len(x), len(y))


def ref_agent_tokens(strata):
    """§3.2 for the tokens series by brute force: strata = [(x, y)] of logarithms, both sides non-empty."""
    steps = [ref_step("tokens", x, y, x, y) + (len(x), len(y)) for x, y in strata]
    tally = Counter(step[0] for step in steps)
    z, p = brute_van_elteren(strata)
    num = den = Fraction(0)
    for *_, shift, _ci99, _ci90, _within, m, n in steps:
        v = Fraction(m * n, m + n)
        num, den = num + v * Fraction(shift), den + v
    shift = float(num / den) if den else None
    if sum(min(m, n) for *_, m, n in steps) < 5:
        verdict = "too_few_runs"
    elif tally["costlier"] and tally["cheaper"]:
        verdict = "mixed"
    elif p is not None and round(p, 6) < 0.01 and round(shift, 6) >= LOG_125 and not tally["cheaper"]:
        verdict = "costlier"
    elif p is not None and round(p, 6) < 0.01 and round(shift, 6) <= -LOG_125 and not tally["costlier"]:
        verdict = "cheaper"
    else:
        decided = [step for step in steps if step[6] >= 5 and step[7] >= 5]
        verdict = "same_cost" if decided and all(step[0] == "same_cost" for step in decided) else "unclear"
    return verdict, dict(tally), shift, z, p


mission_sides = st.lists(tokens.filter(lambda t: t is not None), max_size=8)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(mission_sides, mission_sides, st.sampled_from([1, 2, 3])), min_size=1, max_size=3))
def test_the_tokens_agent_step_is_the_rule_written_out(missions):
    runs = []
    for i, (old, _, _) in enumerate(missions):
        runs += spent(old, mission=f"m{i}")
    for i, (_, new, scale) in enumerate(missions):
        runs += spent([t * scale for t in new], conf=B, mission=f"m{i}")
    progress = progress_of(runs)
    if not progress.steps:
        return
    got = progress.newest_step.tokens
    strata = [
        ([math.log(t) for t in old], [math.log(t * scale) for t in new]) for old, new, scale in missions if old and new
    ]
    verdict, tally, shift, z, p = ref_agent_tokens(strata)
    assert (got.verdict, dict(got.tally), got.reasons) == (verdict, tally, ())
    assert len(got.strata) == len(strata)
    assert got.shift == pytest.approx(shift, rel=1e-12, abs=1e-15) if shift is not None else got.shift is None
    if z is None:
        assert got.z is None and got.p is None
    else:
        assert got.z == pytest.approx(z, rel=1e-9, abs=1e-12) and got.p == pytest.approx(p, rel=1e-9, abs=1e-15)
