"""podium.count.progress.ranktests against brute force: every rank arrangement, every difference sorted.

progress rules §2 (Mann–Whitney null counts, Moses k, Hodges–Lehmann, Moses interval) and §3 (van Elteren);
§4's shift search is in test_progress_shifts.py.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from itertools import combinations
from statistics import NormalDist

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from progresskit import brute, brute_interval, brute_shift, brute_van_elteren

from podium.count.progress import ranktests as rt
from podium.count.progress.ranktests import Differences, Sample, moses_k, null_counts, p_at_most


def brute_counts(m: int, n: int) -> list[int]:
    """f(m, n, u) by listing all C(m+n, m) arrangements: U = #{(x, y): x above y}."""
    counts = [0] * (m * n + 1)
    for xs in combinations(range(m + n), m):
        chosen = set(xs)
        ys = [r for r in range(m + n) if r not in chosen]
        counts[sum(1 for x in xs for y in ys if x > y)] += 1
    return counts


def same(a: float, b: float) -> bool:
    """Bit-identical (float.hex tells 0.0 from -0.0)."""
    return a.hex() == b.hex()


# --- the exact null distribution -------------------------------------------------------------


@pytest.mark.parametrize("m", range(0, 8))
@pytest.mark.parametrize("n", range(0, 8))
def test_null_counts_are_the_arrangements_counted_one_by_one(m, n):
    expected = brute_counts(m, n)
    assert list(null_counts(m, n)) == expected
    assert sum(expected) == math.comb(m + n, m)
    total = math.comb(m + n, m)
    for u in range(-1, m * n + 2):
        assert p_at_most(m, n, u) == Fraction(sum(expected[: max(u + 1, 0)]), total)


def test_null_counts_refuse_negative_sizes():
    with pytest.raises(ValueError, match="m=-1"):
        null_counts(-1, 3)


# --- Moses k ---------------------------------------------------------------------------------


def test_moses_k_worked_examples():
    # m = 4, n = 5 at α = 0.01: P(U ≤ 0) = 1/126 > 0.005, so no interval
    assert p_at_most(4, 5, 0) == Fraction(1, 126)
    assert moses_k(4, 5, Fraction(1, 100)) is None
    # m = n = 5: P(U ≤ 0) = 1/252 ≤ 0.005 < P(U ≤ 1) = 2/252
    assert moses_k(5, 5, Fraction(1, 100)) == 1
    assert moses_k(0, 5, Fraction(1, 100)) is None


@pytest.mark.parametrize("alpha", [Fraction(1, 100), Fraction(1, 10), Fraction(1, 2100), Fraction(1, 3)])
def test_moses_k_exact_is_the_largest_k_with_the_tail_at_most_half_alpha(alpha):
    for m in range(1, 26):
        for n in range(1, 51 - m):
            k = moses_k(m, n, alpha)
            if k is None:
                assert p_at_most(m, n, 0) > alpha / 2
            else:
                assert p_at_most(m, n, k - 1) <= alpha / 2 < p_at_most(m, n, k)


def test_moses_k_the_tail_is_compared_exactly_at_equality():
    # m = n = 1: P(U ≤ 0) = 1/2 exactly; α = 1 − ε is below, so none; α/2 = 1/2 needs α = 1 (refused)
    assert moses_k(1, 1, Fraction(99, 100)) is None
    # m = 2, n = 2: P(U ≤ 0) = 1/6 exactly: α = 1/3 gives k = 1 (≤ holds at equality)
    assert p_at_most(2, 2, 0) == Fraction(1, 6)
    assert moses_k(2, 2, Fraction(1, 3)) == 1
    assert moses_k(2, 2, Fraction(1, 3) - Fraction(1, 10**12)) is None


def test_moses_k_above_50_runs_is_the_normal_formula_with_the_spec_constants():
    for m, n, alpha, z in [
        (30, 30, Fraction(1, 100), 2.5758293035489004),
        (26, 25, Fraction(1, 10), 1.6448536269514722),
        (100, 7, Fraction(1, 100), 2.5758293035489004),
    ]:
        mn = m * n
        expected = math.floor(mn / 2 - z * math.sqrt(mn * (m + n + 1) / 12))
        assert moses_k(m, n, alpha) == expected
    # the spec's constants, not NormalDist's (they differ in the last digits)
    assert NormalDist().inv_cdf(0.995) != 2.5758293035489004
    # other levels: NormalDist at 1 − α/2
    alpha = Fraction(1, 100 * 91)
    mn = 60 * 40
    expected = math.floor(mn / 2 - NormalDist().inv_cdf(1 - 1 / 18200) * math.sqrt(mn * 101 / 12))
    assert moses_k(60, 40, alpha) == expected
    # none when k < 1
    assert moses_k(50, 1, Fraction(1, 100)) is None


def test_the_two_levels_use_the_spec_quantiles():
    assert rt.z_quantile(Fraction(1, 100)) == 2.5758293035489004
    assert rt.z_quantile(Fraction(1, 10)) == 1.6448536269514722
    assert rt.z_quantile(Fraction(1, 20)) == NormalDist().inv_cdf(0.975)


def test_moses_k_refuses_an_alpha_outside_0_1():
    for alpha in (Fraction(0), Fraction(1), Fraction(3, 2)):
        with pytest.raises(ValueError, match="alpha"):
            moses_k(5, 5, alpha)


# --- order statistics of the differences -------------------------------------------------------

grid = st.integers(0, 64).map(lambda i: i / 64)  # heavy ties
unit = st.floats(0, 1, allow_nan=False)
wild = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, allow_subnormal=True)
few = st.sampled_from([0.0, 0.1, 0.2, 0.30000000000000004, 0.3, 1e-300, 5e-324, 0.7, 1.0])
values = st.one_of(
    st.lists(grid, min_size=1, max_size=40),
    st.lists(unit, min_size=1, max_size=40),
    st.lists(wild, min_size=1, max_size=30),
    st.lists(few, min_size=1, max_size=40),
)


@pytest.fixture
def select_by_passes(monkeypatch):
    """Force the pass-and-band selection (not the whole listing) even on small samples."""
    monkeypatch.setattr(rt, "LIST_ALL", 0)
    monkeypatch.setattr(rt, "LIST_BAND", 2)
    monkeypatch.setattr(rt, "BAND_FACTOR", 0)


@settings(max_examples=300, deadline=None)
@given(values, values)
def test_every_order_statistic_is_the_brute_forces(x, y):
    d = brute(x, y)
    diffs = Differences.of(x, y)
    for k in range(1, len(d) + 1):
        assert same(diffs.order_statistic(k), d[k - 1])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values, values, st.randoms(use_true_random=False))
def test_every_order_statistic_by_passes_is_the_brute_forces(select_by_passes, x, y, rnd):
    d = brute(x, y)
    diffs = Differences.of(x, y)
    ranks = list(range(1, len(d) + 1))
    rnd.shuffle(ranks)  # the order ranks are asked in changes which pivots exist
    for k in ranks:
        assert same(diffs.order_statistic(k), d[k - 1])
    assert diffs.passes > 0 or len(diffs.x.values) * len(diffs.y.values) <= 2


@settings(max_examples=200, deadline=None)
@given(values, values, st.sampled_from([Fraction(1, 100), Fraction(1, 10), Fraction(1, 2100)]))
def test_shift_and_interval_are_the_brute_forces(x, y, alpha):
    d = brute(x, y)
    assert same(rt.hodges_lehmann(x, y), brute_shift(d))
    assert rt.moses_interval(x, y, alpha) == brute_interval(d, len(x), len(y), alpha)


@pytest.mark.parametrize("shape", ["continuous", "tied", "clustered"])
def test_large_samples_are_the_brute_forces(shape):
    """A few thousand a side: selection by passes, checked against all 4.5M differences sorted."""
    rng = random.Random(shape)
    m, n = 1500, 3000
    if shape == "continuous":
        x = [rng.random() for _ in range(m)]
        y = [rng.random() * 0.8 + 0.15 for _ in range(n)]
    elif shape == "tied":
        x = [rng.randrange(41) / 40 * 0.5 + rng.randrange(11) / 10 * 0.5 for _ in range(m)]
        y = [rng.randrange(41) / 40 * 0.5 + rng.randrange(11) / 10 * 0.5 for _ in range(n)]
    else:  # most values on a few points, the rest spread: the interpolation's worst case
        x = [rng.choice([0.0, 0.5, 1.0]) if rng.random() < 0.9 else rng.random() for _ in range(m)]
        y = [rng.choice([0.0, 0.5, 1.0]) if rng.random() < 0.8 else rng.random() ** 3 for _ in range(n)]
    d = brute(x, y)
    diffs = Differences.of(x, y)
    mn = m * n
    wanted = {1, mn, mn // 2, mn // 2 + 1, 7, mn - 7}
    for alpha in (Fraction(1, 100), Fraction(1, 10)):
        k = moses_k(m, n, alpha)
        assert k is not None
        wanted |= {k, mn + 1 - k}
        assert diffs.interval(alpha) == (d[k - 1], d[mn - k])
    assert same(diffs.shift(), brute_shift(d))
    for k in sorted(wanted) + [rng.randrange(1, mn + 1) for _ in range(20)]:
        assert same(diffs.order_statistic(k), d[k - 1])
    # and not by forming the differences: a few passes over 4,500 values per rank
    assert diffs.passes < 12 * len(wanted)


def test_selection_does_not_list_the_differences_at_ten_thousand_a_side():
    rng = random.Random(7)
    x = [rng.random() for _ in range(10_000)]
    y = [rng.random() + 0.01 for _ in range(10_000)]
    diffs = Differences.of(x, y)
    diffs.shift()
    diffs.interval(Fraction(1, 100))
    diffs.interval(Fraction(1, 10))
    assert sum(len(b.values) for b in diffs._bands) <= 6 * rt.LIST_BAND + 6 * 20_000
    assert diffs.passes <= 60


def test_order_statistic_refuses_a_rank_outside():
    diffs = Differences.of([0.1, 0.2], [0.3])
    for k in (0, 3):
        with pytest.raises(ValueError, match="rank"):
            diffs.order_statistic(k)


def test_an_empty_side_has_no_shift_and_no_interval():
    assert rt.hodges_lehmann([], [0.5]) is None
    assert Differences.of([0.5], []).interval(Fraction(1, 10)) is None


def test_values_must_be_finite_and_minus_zero_reads_as_zero():
    for bad in (math.nan, math.inf):
        with pytest.raises(ValueError, match="finite"):
            Sample.of([0.1, bad])
    sample = Sample.of([-0.0, 0.0, 0.0])
    assert sample.values == [0.0] and same(sample.values[0], 0.0) and sample.counts == [3]
    assert same(Differences.of([0.0], [-0.0]).shift(), 0.0)


def test_sample_without_removes_one_occurrence():
    s = Sample.of([0.2, 0.1, 0.2, 0.3])
    assert (s.without(0.2).values, s.without(0.2).counts) == ([0.1, 0.2, 0.3], [1, 1, 1])
    assert (s.without(0.1).values, s.without(0.1).counts) == ([0.2, 0.3], [2, 1])
    assert s.size == 4 and s.without(0.3).size == 3
    with pytest.raises(ValueError, match="not in the sample"):
        s.without(0.5)


@given(st.lists(unit, max_size=30))
def test_sample_median_is_the_plain_median(v):
    s = Sample.of(v)
    if not v:
        assert s.median() is None
    else:
        o = sorted(v)
        k = len(o)
        assert s.median() == (o[k // 2] if k % 2 else (o[k // 2 - 1] + o[k // 2]) / 2)


# --- properties ------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(values, values)
def test_swapping_the_sides_negates_the_shift_and_reverses_the_interval(x, y):
    forward, backward = Differences.of(x, y), Differences.of(y, x)
    assert backward.shift() == -forward.shift()
    for alpha in (Fraction(1, 100), Fraction(1, 10)):
        there, back = forward.interval(alpha), backward.interval(alpha)
        assert (there is None) == (back is None)
        if there is not None:
            assert back == (-there[1], -there[0])


dyadic = st.lists(st.integers(0, 64).map(lambda i: i / 64), min_size=1, max_size=40)


@settings(max_examples=200, deadline=None)
@given(dyadic, dyadic, st.integers(-64, 64).map(lambda i: i / 64))
def test_a_constant_added_to_the_newer_side_moves_shift_and_interval_by_it(x, y, c):
    base, moved = Differences.of(x, y), Differences.of(x, [v + c for v in y])
    assert moved.shift() == base.shift() + c
    for alpha in (Fraction(1, 100), Fraction(1, 10)):
        there, then = base.interval(alpha), moved.interval(alpha)
        assert (there is None) == (then is None)
        if there is not None:
            assert then == (there[0] + c, there[1] + c)


@settings(max_examples=100, deadline=None)
@given(values, values, st.randoms(use_true_random=False))
def test_the_order_of_the_values_changes_nothing(x, y, rnd):
    x2, y2 = x[:], y[:]
    rnd.shuffle(x2)
    rnd.shuffle(y2)
    a, b = Differences.of(x, y), Differences.of(x2, y2)
    assert same(a.shift(), b.shift())
    assert a.interval(Fraction(1, 10)) == b.interval(Fraction(1, 10))


# --- van Elteren ---------------------------------------------------------------------------------


stratum = st.tuples(
    st.lists(st.integers(0, 8).map(lambda i: i / 8), max_size=12),
    st.lists(st.integers(0, 8).map(lambda i: i / 8), max_size=12),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(stratum, min_size=1, max_size=5))
def test_van_elteren_is_the_formula(strata):
    got = rt.van_elteren(strata)
    z, p = brute_van_elteren(strata)
    if z is None:
        assert got.z is None and got.p is None
    else:
        assert got.z == pytest.approx(z, rel=1e-9, abs=1e-12)
        assert got.p == pytest.approx(p, rel=1e-9, abs=1e-15)


def test_van_elteren_one_untied_stratum_is_the_mann_whitney_z():
    x, y = [0.1, 0.2, 0.3, 0.45], [0.25, 0.4, 0.5, 0.6, 0.7]
    u = sum(b > a for a in x for b in y)  # 17
    z = (u - 10) / math.sqrt(4 * 5 * 10 / 12)
    got = rt.van_elteren([(x, y)])
    assert got.z == pytest.approx(z, rel=1e-12)
    assert got.p == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-12)


def test_van_elteren_with_no_variance_has_no_z():
    assert rt.van_elteren([([0.5, 0.5], [0.5, 0.5, 0.5])]) == rt.Stratified(None, None)
    assert rt.van_elteren([([], [0.5])]) == rt.Stratified(None, None)


@given(st.lists(grid, max_size=20), st.lists(grid, max_size=20))
def test_twice_u_counts_pairs(x, y):
    assert rt.mann_whitney_twice_u(x, y) == sum(2 if b > a else 1 if b == a else 0 for a in x for b in y)
