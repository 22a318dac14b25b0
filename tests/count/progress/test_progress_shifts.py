"""podium.count.progress.shifts: shifts with no named cause (progress rules §4), in a cell and against the rule
written out."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from datetime import timedelta
from fractions import Fraction

from cputime import least_cpu
from hypothesis import given, settings
from hypothesis import strategies as st
from progresskit import (
    T0,
    A,
    B,
    brute,
    brute_interval,
    brute_shift,
    only_cell,
    progress_document,
    progress_of,
    run,
    runs_of,
)

from podium.count.progress import shifts
from podium.count.progress.ranktests import mann_whitney_twice_u

grid = st.integers(0, 64).map(lambda i: i / 64)  # heavy ties
few = st.sampled_from([0.0, 0.1, 0.2, 0.30000000000000004, 0.3, 1e-300, 5e-324, 0.7, 1.0])

# --- §4: shifts in a cell --------------------------------------------------------------------------------


def test_a_shift_with_no_named_cause_is_published_with_its_start_run():
    rng = random.Random(15)
    runs = runs_of(
        [round(rng.uniform(0.3, 0.4), 3) for _ in range(15)] + [round(rng.uniform(0.6, 0.7), 3) for _ in range(15)],
        conf=A,
    )
    cell = only_cell(progress_of(runs))
    assert [(s.segment, s.start_run_id) for s in cell.shifts] == [(0, runs[15].run_id)]
    assert cell.shifts[0].interval[0] > 0 and cell.shifts[0].shift >= 0.2
    doc = progress_document(progress_of(runs))["cells"][0]["shifts"][0]
    assert doc["unexplained"] is True and doc["segment"] == 0 and len(doc["interval"]) == 2


def test_shifts_are_searched_on_the_overall_series_per_segment_and_listed_in_time_order():
    rng = random.Random(4)
    low = [round(rng.uniform(0.3, 0.4), 3) for _ in range(12)]
    high = [round(rng.uniform(0.6, 0.7), 3) for _ in range(12)]
    first_a, first_b = runs_of(low, conf=A), runs_of(low, conf=B)
    # A jumps late, B jumps early (B's jump comes first in time)
    runs = first_a[:6] + first_b + runs_of(high, conf=B) + first_a[6:] + runs_of(high, conf=A)
    runs = [replace(r, started=T0 + timedelta(minutes=i)) for i, r in enumerate(runs)]
    cell = only_cell(progress_of(runs))
    assert [(s.segment, s.start_run_id) for s in cell.shifts] == [(1, runs[18].run_id), (0, runs[36].run_id)]


def test_no_shift_in_a_flat_segment_or_on_the_checks_alone():
    rng = random.Random(9)
    runs = [run(det=0.5 + rng.uniform(-0.05, 0.05), judge=0.5 if i < 20 else 0.52, conf=A) for i in range(40)]
    assert only_cell(progress_of(runs)).shifts == ()


# --- §4: the shift search ----------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(grid, few), max_size=40))
def test_split_scores_are_the_mann_whitney_counts_of_every_split(v):
    scores = shifts.split_scores(v)
    assert len(scores) == len(v) + 1
    for k in range(len(v) + 1):
        first, rest = v[:k], v[k:]
        assert scores[k] == sum(2 if b > a else 1 if b == a else 0 for a in first for b in rest)


def naive_split(part, delta=0.05):
    """§4 on one part written out: z_k in floating point at every split, the brute-force interval;
    (k, shift, interval) when the best split is a shift, else None."""
    n = len(part)
    if n < 10:
        return None
    best_k, best_z = None, -1.0
    for k in range(5, n - 4):
        first, rest = part[:k], part[k:]
        u = sum(1.0 if b > a else 0.5 if b == a else 0.0 for a in first for b in rest)
        z = abs((u - k * (n - k) / 2) / math.sqrt(k * (n - k) * (n + 1) / 12))
        if z > best_z + 1e-12:
            best_k, best_z = k, z
    k = best_k
    d = brute(part[:k], part[k:])
    interval = brute_interval(d, k, n - k, Fraction(1, 100 * (n - 9)))
    shift = brute_shift(d)
    if interval is None or not (round(interval[0], 6) > 0 or round(interval[1], 6) < 0):
        return None
    if round(abs(shift), 6) < delta:
        return None
    return k, shift, interval


def naive_shift_search(values, delta=0.05):
    """§4 written out: every split, brute-force intervals, recursion."""
    found = []

    def search(lo, hi):
        split = naive_split(values[lo:hi], delta)
        if split is None:
            return
        k, shift, interval = split
        found.append((lo + k, shift, interval))
        if k >= 10:
            search(lo, lo + k)
        if hi - lo - k >= 10:
            search(lo + k, hi)

    search(0, len(values))
    return sorted(found)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=1, max_size=6),
    st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=1, max_size=6),
    st.integers(1, 18),
)
def test_the_shift_search_skips_an_interval_only_when_it_holds_zero(x, y, rank):
    mn = len(x) * len(y)
    rank = min(rank, (mn + 1) // 2)
    d = brute(x, y)
    excludes = d[rank - 1] > 0 or d[mn - rank] < 0
    allowed = shifts.may_exclude_zero(mann_whitney_twice_u(x, y), mn, rank)
    assert allowed or not excludes


def test_the_skip_is_tight_at_its_bounds():
    # one pair above: U = mn − rank + 1 exactly, and D(1) > 0
    assert shifts.may_exclude_zero(2, 1, 1)
    assert shifts.may_exclude_zero(0, 1, 1)
    assert not shifts.may_exclude_zero(1, 1, 1)  # a tie: D(1) = 0


def test_a_jump_at_run_15_of_30_is_found_with_its_start():
    rng = random.Random(15)
    v = [round(rng.uniform(0.3, 0.4), 3) for _ in range(15)] + [round(rng.uniform(0.6, 0.7), 3) for _ in range(15)]
    found = shifts.shift_search(v)
    assert [s.start for s in found] == [15]
    assert found[0].interval[0] > 0 and found[0].shift >= 0.2
    assert [(s.start, s.shift, s.interval) for s in found] == naive_shift_search(v)


def test_a_flat_noisy_segment_has_no_shift():
    rng = random.Random(3)
    for _ in range(20):
        v = [round(min(1, max(0, rng.gauss(0.5, 0.15))), 3) for _ in range(60)]
        assert shifts.shift_search(v) == []


def test_the_search_looks_again_inside_each_side_and_finds_a_second_jump():
    rng = random.Random(2)
    v = (
        [round(rng.uniform(0.15, 0.25), 3) for _ in range(25)]
        + [round(rng.uniform(0.55, 0.65), 3) for _ in range(20)]
        + [round(rng.uniform(0.75, 0.85), 3) for _ in range(15)]
    )
    assert shifts.best_split(v)[0] == 25  # the first split is the big jump; the second is inside its later side
    found = shifts.shift_search(v)
    assert [s.start for s in found] == [25, 45]
    assert [(s.start, s.shift, s.interval) for s in found] == naive_shift_search(v)


def test_the_best_split_can_fall_between_two_jumps_and_is_then_a_shift_too():
    """Three levels of 20: the largest |z| is at 33, inside the middle level; the rule calls it a
    shift (the series does move there) and then finds both jumps inside its two sides."""
    rng = random.Random(2)
    v = (
        [round(rng.uniform(0.1, 0.2), 3) for _ in range(20)]
        + [round(rng.uniform(0.45, 0.55), 3) for _ in range(20)]
        + [round(rng.uniform(0.8, 0.9), 3) for _ in range(20)]
    )
    found = shifts.shift_search(v)
    assert [s.start for s in found] == [20, 33, 40]
    assert [(s.start, s.shift, s.interval) for s in found] == naive_shift_search(v)


def test_a_small_move_is_not_a_shift_even_when_certain():
    v = [0.5] * 15 + [0.54] * 15  # the interval excludes 0, but |shift| < 0.05
    assert shifts.shift_search(v) == []
    assert [s.start for s in shifts.shift_search([0.5] * 15 + [0.55] * 15)] == [15]


def test_an_exact_tie_in_z_keeps_the_smallest_split():
    # symmetric: splits k and n − k have the same |z| exactly
    v = [0.0] * 5 + [1.0] * 5 + [0.0] * 5
    k, _ = shifts.best_split(v)
    assert k == 5
    assert shifts.best_split([0.5] * 9) is None


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=10, max_size=24),
    st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=0, max_size=24),
)
def test_shift_search_is_the_rule_written_out(a, b):
    v = a + [min(1.0, x + 0.5) for x in b]
    assert [(s.start, s.shift, s.interval) for s in shifts.shift_search(v)] == naive_shift_search(v)


# --- bounded: the search stops at SHIFTS_MAX shifts, larger parts first (issue 34 item 14) ------------------


def naive_breadth_first(values, limit, delta=0.05):
    """§4 written out as naive_shift_search does, the parts searched breadth first, stopping at ``limit``."""
    found, queue = [], [(0, len(values))]
    while queue and len(found) < limit:
        lo, hi = queue.pop(0)
        split = naive_split(values[lo:hi], delta)
        if split is None:
            continue
        k, shift, interval = split
        found.append((lo + k, shift, interval))
        if k >= 10:
            queue.append((lo, lo + k))
        if hi - lo - k >= 10:
            queue.append((lo + k, hi))
    return sorted(found), bool(queue)


def peeling(n: int, block: int = 10) -> list[float]:
    """An adversary: blocks of ``block`` runs alternately below and above everything after them, closing in on a
    flat middle, so that each part's best split peels one block off and is a shift (§4 would search the rest
    again n / block times: a pass over the series per shift)."""
    blocks = (n // 2) // block
    values = []
    for i in range(blocks):
        level = 0.45 * (i // 2) / blocks
        values += [level if i % 2 == 0 else 1 - level] * block
    return values + [0.5] * (n - len(values))


def test_a_peeling_series_finds_at_most_shifts_max_and_says_it_stopped():
    result = shifts.search(peeling(4000))
    assert len(result.found) == shifts.SHIFTS_MAX and result.cut
    assert [s.start for s in result.found] == [10 * i for i in range(1, shifts.SHIFTS_MAX + 1)]
    unbounded = shifts.search(peeling(4000), limit=10**9)
    assert len(unbounded.found) > 150 and not unbounded.cut  # every block of the series is a shift


def test_the_search_reads_linear_work_at_doubling_sizes():
    """The values read (the parts searched, each O(size · log size)) double with the series; without the bound
    they quadruple, which is what 21 s at 32,000 runs was."""
    work = [shifts.search(peeling(n)).work for n in (4000, 8000, 16000, 32000)]
    assert all(b / a < 2.2 for a, b in zip(work, work[1:])), work
    assert work[-1] <= (2 * shifts.SHIFTS_MAX + 1) * 32000
    unbounded = [shifts.search(peeling(n), limit=10**9).work for n in (4000, 8000)]
    assert unbounded[1] / unbounded[0] > 3.5, unbounded


def test_the_search_costs_linear_cpu_at_doubling_sizes():
    """Process CPU time (best of three) at 8,000 and 32,000 runs of the adversary: a quarter of the work
    would take 16 times as long if it were quadratic; generous margin for a shared machine."""

    def cpu(n):
        return least_cpu(shifts.search, peeling(n))

    small, large = cpu(8000), cpu(32000)
    assert large < 8 * max(small, 0.005), (small, large)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=10, max_size=30),
    st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=0, max_size=30),
    st.integers(1, 3),
)
def test_the_bounded_search_is_the_rule_written_out_breadth_first(a, b, limit):
    v = a + [min(1.0, x + 0.5) for x in b]
    got = shifts.search(v, limit=limit)
    expected, cut = naive_breadth_first(v, limit)
    assert [(s.start, s.shift, s.interval) for s in got.found] == expected
    assert got.cut == cut
