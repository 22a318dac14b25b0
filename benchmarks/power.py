"""How many runs a progress verdict needs: a power table by simulation (docs/rules/progress.md §9).

A step compares the runs of one configuration (side ``a``, m runs) with the runs of the next
(side ``b``, n runs) on one mission version (docs/rules/progress.md §2). This script draws both
sides many times from a simple model of noisy scores and counts how often each verdict comes
out, computed exactly as that section says:

- the Hodges–Lehmann shift (median of the m·n differences ``y - x``);
- the Moses interval at 99% and at 90% from the Mann–Whitney null distribution, exact (integer
  counts of rank arrangements, alpha as an exact fraction) when m + n <= 50, else the normal
  approximation with the quantiles the rules publish;
- every threshold comparison on values rounded to 6 decimals;
- ``too_few_runs`` below 5 a side, then improved / regressed, steady, unclear, in that order;
- the ``just_crossed`` guard (the verdict must survive dropping the newest run of either side).

The model (the assumptions the table rests on): a's overall scores are independent draws from
Normal(mu, sd) clipped to [0, 1], b's from Normal(mu + d, sd) clipped the same way; runs are
independent and in time order as drawn; no partial judge (so that guard never applies), one
judge model (never ``not_comparable``). Real scores are coarser (a handful of checks and
rubric criteria make many ties) and may drift inside a configuration; treat the table as a
guide to orders of magnitude, not a promise.

Standard library only. The tables of docs/rules/progress.md §9 (about 50 s of CPU):

    python benchmarks/power.py --needed 0.8          # mu 0.6, sd 0.15, 5,000 draws per cell, seed 26
    python benchmarks/power.py --mu 0.85 --reps 2000 # near the ceiling, where clipping bites
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from fractions import Fraction
from functools import cache

ALPHA_CHANGE = Fraction(1, 100)  # the 99% interval decides a move
ALPHA_STEADY = Fraction(1, 10)  # the 90% interval decides steady
N_MIN = 5  # runs on each side
EXACT_MAX = 50  # m + n up to this: exact null distribution
Z = {ALPHA_CHANGE: 2.5758293035489004, ALPHA_STEADY: 1.6448536269514722}  # normal quantiles at 1 - alpha/2
PLACES = 6  # threshold comparisons are made on values rounded to this many decimals


@cache
def arrangements(m: int, n: int) -> tuple[int, ...]:
    """f(m, n, u) for u = 0 … m·n: how many of the C(m+n, m) rank arrangements give Mann–Whitney U = u.

    f(i, j, u) = f(i-1, j, u-j) + f(i, j-1, u), with f(0, j, 0) = f(i, 0, 0) = 1."""
    if m == 0 or n == 0:
        return (1,)
    with_x_last = arrangements(m - 1, n)  # the largest value is an x: it beats all n y's
    with_y_last = arrangements(m, n - 1)
    counts = [0] * (m * n + 1)
    for u, c in enumerate(with_x_last):
        counts[u + n] += c
    for u, c in enumerate(with_y_last):
        counts[u] += c
    return tuple(counts)


@cache
def moses_k(m: int, n: int, alpha: Fraction) -> int | None:
    """The largest k >= 1 with P(U <= k-1) <= alpha/2 (None: no interval at this level)."""
    if m + n <= EXACT_MAX:
        counts = arrangements(m, n)
        total = math.comb(m + n, m)
        k, below = 0, 0  # below = #arrangements with U <= k - 1 … for the next k
        while k < len(counts):
            below_next = below + counts[k]  # #arrangements with U <= k, i.e. P(U <= (k+1) - 1)
            if 2 * below_next * alpha.denominator > alpha.numerator * total:
                break
            k, below = k + 1, below_next
        return k if k >= 1 else None
    mn = m * n
    k = math.floor(mn / 2 - Z[alpha] * math.sqrt(mn * (m + n + 1) / 12))
    return k if k >= 1 else None


def _median_sorted(values: list[float]) -> float:
    size = len(values)
    mid = size // 2
    return values[mid] if size % 2 else (values[mid - 1] + values[mid]) / 2


def step(x: list[float], y: list[float], delta: float) -> tuple[str, float, tuple | None]:
    """One series' verdict at one step (rules 2-5, no guard), with the shift and the 99% interval."""
    m, n = len(x), len(y)
    if m < N_MIN or n < N_MIN:
        return "too_few_runs", math.nan, None
    diffs = sorted(b - a for a in x for b in y)
    shift = round(_median_sorted(diffs), PLACES)
    ci99 = _interval(diffs, m, n, ALPHA_CHANGE)
    if ci99 is not None and ci99[0] > 0 and shift >= delta:
        return "improved", shift, ci99
    if ci99 is not None and ci99[1] < 0 and shift <= -delta:
        return "regressed", shift, ci99
    ci90 = _interval(diffs, m, n, ALPHA_STEADY)
    if ci90 is not None and -delta <= ci90[0] and ci90[1] <= delta:
        return "steady", shift, ci99
    if ci90 is not None and -2 * delta <= ci90[0] and ci90[1] <= 2 * delta:
        return "steady2", shift, ci99  # steady, steady_within = 2 * delta
    return "unclear", shift, ci99


def _interval(diffs: list[float], m: int, n: int, alpha: Fraction) -> tuple[float, float] | None:
    k = moses_k(m, n, alpha)
    if k is None:
        return None
    return round(diffs[k - 1], PLACES), round(diffs[m * n - k], PLACES)


def verdict(x: list[float], y: list[float], delta: float) -> tuple[str, str]:
    """(the verdict before the guard, the verdict after ``just_crossed``): a move must survive dropping
    the newest run of b, and again the newest run of a (lists are in time order, newest last)."""
    first = step(x, y, delta)[0]
    if first not in ("improved", "regressed"):
        return first, first
    if step(x, y[:-1], delta)[0] != first or step(x[:-1], y, delta)[0] != first:
        return first, "unclear"
    return first, first


def simulate(n: int, d: float, mu: float, sd: float, reps: int, rng: random.Random, delta: float) -> dict:
    """Counts of each verdict (before and after the guard) over ``reps`` draws of two sides of n runs."""

    def side(mean: float) -> list[float]:
        return [min(1.0, max(0.0, rng.gauss(mean, sd))) for _ in range(n)]

    before: dict[str, int] = {}
    after: dict[str, int] = {}
    for _ in range(reps):
        raw, guarded = verdict(side(mu), side(mu + d), delta)
        before[raw] = before.get(raw, 0) + 1
        after[guarded] = after.get(guarded, 0) + 1
    return {"before": before, "after": after, "reps": reps}


def fewest(
    d: float, sought: tuple[str, ...], args: argparse.Namespace, rng: random.Random, low: int = 6, high: int = 100
) -> int | None:
    """The smallest n in [low, high] whose share of ``sought`` verdicts (after the guard) reaches
    ``args.needed``, by bisection (the share grows with n); None when even ``high`` falls short."""

    def enough(n: int) -> bool:
        after = simulate(n, d, args.mu, args.sd, args.needed_reps, rng, args.delta)["after"]
        return sum(after.get(k, 0) for k in sought) >= args.needed * args.needed_reps

    if not enough(high):
        return None
    while low < high:
        mid = (low + high) // 2
        if enough(mid):
            high = mid
        else:
            low = mid + 1
    return low


def _share(counts: dict[str, int], reps: int, *kinds: str) -> str:
    share = sum(counts.get(k, 0) for k in kinds) / reps
    return f"{share * 100:.1f}%"


def _self_check() -> None:
    """The worked examples of docs/rules/progress.md §2, and the published quantiles."""
    assert moses_k(4, 5, ALPHA_CHANGE) is None  # 1/126 > 0.005
    assert moses_k(5, 5, ALPHA_CHANGE) == 1  # 1/252 <= 0.005 < 2/252
    assert sum(arrangements(7, 9)) == math.comb(16, 7)
    for alpha, z in Z.items():
        assert abs(statistics.NormalDist().inv_cdf(1 - float(alpha) / 2) - z) < 1e-12


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", default="5,10,20,40", help="runs on each side, comma-separated")
    parser.add_argument("--d", default="0,0.05,0.10,0.16,0.25", help="true shifts of b over a")
    parser.add_argument("--mu", type=float, default=0.6, help="a's mean overall score")
    parser.add_argument("--sd", type=float, default=0.15, help="the spread of one run's overall score")
    parser.add_argument("--delta", type=float, default=0.05, help="the overall series' delta")
    parser.add_argument("--reps", type=int, default=5000, help="draws per cell")
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument(
        "--needed",
        type=float,
        metavar="P",
        help="also find, per shift, the fewest runs a side (6 to 100) that give improved (or, at "
        "d = 0, steady) with chance P; slower (each probe draws --needed-reps times)",
    )
    parser.add_argument("--needed-reps", type=int, default=1000)
    args = parser.parse_args(argv)
    _self_check()
    sizes = [int(v) for v in args.n.split(",")]
    shifts = [float(v) for v in args.d.split(",")]
    rng = random.Random(args.seed)
    started = time.process_time()
    results = {(n, d): simulate(n, d, args.mu, args.sd, args.reps, rng, args.delta) for d in shifts for n in sizes}
    print(
        f"Overall series, delta {args.delta:g}: a ~ Normal({args.mu:g}, {args.sd:g}), b ~ Normal({args.mu:g} + d, "
        f"{args.sd:g}), both clipped to [0, 1]; {args.reps:,} draws per cell, seed {args.seed}"
    )
    print(
        f"(one standard error of a share p: sqrt(p(1-p)/{args.reps}), at most {50 / math.sqrt(args.reps):.1f} points)\n"
    )
    head = "| true shift d | " + " | ".join(f"n = {n}" for n in sizes) + " |"
    rule = "|---|" + "---|" * len(sizes)
    print("99% Moses interval excludes 0 and shift >= delta (`improved` before the just_crossed guard):\n")
    print(head + "\n" + rule)
    for d in shifts:
        cells = [_share(results[(n, d)]["before"], args.reps, "improved") for n in sizes]
        print(f"| {d:+.2f} | " + " | ".join(cells) + " |")
    print("\n`improved` as published (after the just_crossed guard):\n")
    print(head + "\n" + rule)
    for d in shifts:
        cells = [_share(results[(n, d)]["after"], args.reps, "improved") for n in sizes]
        print(f"| {d:+.2f} | " + " | ".join(cells) + " |")
    print("\nEvery verdict as published:\n")
    labels = ("improved", "regressed", "steady (±delta)", "steady (±2 delta)", "unclear", "too few runs")
    print("| n | d | " + " | ".join(labels) + " |\n|---|---|" + "---|" * len(labels))
    for n in sizes:
        for d in shifts:
            after = results[(n, d)]["after"]
            cells = [
                _share(after, args.reps, k)
                for k in ("improved", "regressed", "steady", "steady2", "unclear", "too_few_runs")
            ]
            print(f"| {n} | {d:+.2f} | " + " | ".join(cells) + " |")
    if args.needed:
        print(f"\nFewest runs a side for a {args.needed:.0%} chance ({args.needed_reps:,} draws per probe):\n")
        print("| true shift d | verdict sought | runs a side |\n|---|---|---|")
        for d in shifts:
            sought = ("steady", "steady2") if d == 0 else ("improved",)
            n = fewest(d, sought, args, rng)
            what = "steady (either band)" if d == 0 else "improved"
            print(f"| {d:+.2f} | {what} | {n if n is not None else 'more than 100'} |")
    print(f"\n({time.process_time() - started:.0f} s of CPU)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
