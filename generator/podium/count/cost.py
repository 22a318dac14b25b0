"""What each score costs (docs/rules/cost.md), every figure once: a run's values with "not reported" kept
apart from 0 (§1), the figures of a scope (§2), the frontier (§3) and dollars from a dated price table (§5).

Pure: records in, model/cost.py values out. The summary step (count/summarize.py) calls it for every
scope; pages, data files and commands read what it made.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from podium.count.compare import model_key
from podium.model import COUNTED_KINDS, MEDIAN_KINDS, RunRecord
from podium.model.cost import (
    MEASURES,
    SOMETIMES_UNREPORTED,
    SPENT_FIELDS,
    TOKEN_FIELDS,
    Cost,
    Frontier,
    Measure,
    Prices,
    Spent,
)

# ---------------------------------------------------------------- §1 what one run spent


def reported(spent: Spent | None) -> Spent | None:
    """A run's Telemetry values with rules 1 and 2 of docs/rules/cost.md §1 applied: a total of 0 tokens
    means the harness counts none (all six token fields not reported); 0 model calls, not reported."""
    if spent is None:
        return None
    values, _ = spent.raw()
    no_tokens, no_calls = values[TOTAL] == 0, values[MODEL_CALLS] == 0
    if not (no_tokens or no_calls):
        return spent
    return spent.without((TOKEN_FIELDS if no_tokens else ()) + (("model_calls",) if no_calls else ()))


def never_reported(records: Iterable[RunRecord]) -> dict[str | None, frozenset[str]]:
    """Rule 3 of docs/rules/cost.md §1, over the whole build: for each harness (None: runs with no harness,
    one group), the cache and reasoning fields that are 0 on every one of its counted runs whose tokens
    are reported. Only harnesses with such a field are listed."""
    seen: dict[str | None, set[int]] = {}  # harness -> the fields (by place) not yet seen non-zero (or unreported)
    for record in records:
        spent = record.spent
        if spent is None or record.kind == "not_a_run":
            continue
        values, null = spent.raw()  # one unpack
        if values[TOTAL] == null:
            continue  # its tokens are not reported: not looked at
        fields = seen.get(record.harness)
        if fields is None:
            fields = seen[record.harness] = set(_SOMETIMES)
        if fields:
            fields.difference_update([i for i in fields if values[i] != 0])
    return {harness: frozenset(SPENT_FIELDS[i] for i in fields) for harness, fields in seen.items() if fields}


def without_never_reported(record: RunRecord, never: dict[str | None, frozenset[str]]) -> Spent | None:
    """The record's values with rule 3 applied (its harness's never-reported fields made "not reported");
    a not-a-run is not one of the counted runs the rule is about, and keeps its values."""
    fields = never.get(record.harness)
    if not fields or record.spent is None or record.kind == "not_a_run" or record.total_tokens is None:
        return record.spent
    return record.spent.without(fields)


# ---------------------------------------------------------------- §5 dollars


@dataclass(frozen=True, slots=True)
class RunDollars:
    cost_usd: float | None  # None: no price for its model key, or its input or output tokens not reported
    cache_unpriced: bool  # a cache field was not reported, so it added nothing


NO_DOLLARS = RunDollars(None, False)


def run_dollars(record: RunRecord, prices: Prices | None) -> RunDollars:
    """A run's ``cost_usd`` (docs/rules/cost.md §5): (input·p_input + output·p_output + cache_read·p_cache_read
    + cache_creation·p_cache_creation) / 10⁶, summed in that order; never a silent 0."""
    if prices is None or record.spent is None:
        return NO_DOLLARS
    price = prices.models.get(model_key(record))
    spent = record.spent
    tokens_in, tokens_out = spent.get("input_tokens"), spent.get("output_tokens")
    if price is None or tokens_in is None or tokens_out is None:
        return NO_DOLLARS
    total = tokens_in * price.input + tokens_out * price.output
    unpriced = False
    for name, per in (("cache_read_tokens", price.cache_read), ("cache_creation_tokens", price.cache_creation)):
        value = spent.get(name)
        if value is None:
            unpriced = True
        else:
            total += value * per
    return RunDollars(total / 1_000_000, unpriced)


def price_errors(prices: Prices | None, records: Iterable[RunRecord], config_name: str) -> list[str]:
    """A price for a model key that no counted run has (docs/rules/cost.md §5: a configuration error)."""
    if prices is None:
        return []
    keys = {model_key(r) for r in records if r.kind != "not_a_run"}
    missing = sorted(key for key in prices.models if key not in keys)
    if not missing:
        return []
    known = sorted(keys)
    listed = ", ".join(repr(k) for k in known[:12]) + (", …" if len(known) > 12 else "")
    return [
        f"{config_name}: prices.models.{key}: no run has this model key (the runs' keys: {listed or 'none'})"
        for key in missing
    ]


# ---------------------------------------------------------------- §2 figures of one scope


def quartile(ordered: Sequence[float], p: float) -> float:
    """The linear-interpolation quantile at ``p`` of sorted values (docs/rules/cost.md §2: h = (n − 1)·p,
    x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋ + 1] − x[⌊h⌋])); numpy's default, ``statistics.quantiles(method="inclusive")``."""
    h = (len(ordered) - 1) * p
    low = math.floor(h)
    fraction = h - low
    if fraction == 0:
        return float(ordered[low])
    return ordered[low] + fraction * (ordered[low + 1] - ordered[low])


def measure(values: Sequence[float]) -> Measure:
    """``reported``, median and quartiles of the values a scope's runs report (all None without any)."""
    n = len(values)
    if n == 0:
        return EMPTY
    ordered = sorted(values)
    mid = n // 2
    median = ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    return Measure(n, float(median), quartile(ordered, 0.25), quartile(ordered, 0.75))


_SOMETIMES = tuple(SPENT_FIELDS.index(name) for name in SOMETIMES_UNREPORTED)  # rule 3's fields, by place
EMPTY = Measure(0, None, None, None)
NOTHING = ((-1,) * len(SPENT_FIELDS), -1)  # what Spent.raw gives for a run that reported nothing
TOTAL, MODEL_CALLS, TOOL_CALLS = (SPENT_FIELDS.index(name) for name in ("total_tokens", "model_calls", "tool_calls"))
# What a scope's figures read of one counted run (run_facts): its kind, whether it is in the median population, its
# total tokens, model calls and tool calls (None: not reported), its duration and budget share, and its dollars.
Facts = tuple[str, bool, int | None, int | None, int | None, float | None, float | None, float | None]


def run_facts(record: RunRecord, prices: Prices | None) -> Facts:
    """What every scope a run is in reads of it, made once per run (a run is in four scopes or more)."""
    spent = record.spent
    values, null = spent.raw() if spent is not None else NOTHING  # one unpack, SPENT_FIELDS order
    total, model_calls, tool_calls = values[TOTAL], values[MODEL_CALLS], values[TOOL_CALLS]
    duration = record.duration_seconds
    budget = record.budget_seconds if duration is not None else None
    return (
        record.kind,
        record.kind in MEDIAN_KINDS,
        None if total == null else total,
        None if model_calls == null else model_calls,
        None if tool_calls == null else tool_calls,
        duration,
        duration / budget if duration is not None and budget is not None else None,
        run_dollars(record, prices).cost_usd if prices is not None else None,
    )


def cost(records: Iterable[RunRecord], prices: Prices | None = None) -> Cost:
    """The cost figures of one scope's counted runs (docs/rules/cost.md §2; a not-a-run is left out)."""
    return figures_of((run_facts(r, prices) for r in records if r.kind != "not_a_run"), prices is not None)


def figures_of(facts: Iterable[Facts], priced: bool) -> Cost:
    """The cost figures of one scope from its counted runs' facts (run_facts); dollars only when ``priced``."""
    totals: list[int] = []
    model_calls: list[int] = []
    tool_calls: list[int] = []
    durations: list[float] = []
    shares: list[float] = []
    usd: list[float] = []
    spent_usd: list[float] = []
    spent_by_kind: dict[str, int] = defaultdict(int)
    spent_reported = spent_runs = runs = 0
    for kind, in_median, total, calls, tools, duration, share, dollars in facts:
        spent_runs += 1
        if total is not None:
            spent_reported += 1
            spent_by_kind[kind] += total
        if dollars is not None:
            spent_usd.append(dollars)
        if not in_median:
            continue
        runs += 1
        if total is not None:
            totals.append(total)
        if calls is not None:
            model_calls.append(calls)
        if tools is not None:
            tool_calls.append(tools)
        if duration is not None:
            durations.append(duration)
        if share is not None:
            shares.append(share)
        if dollars is not None:
            usd.append(dollars)
    values: dict[str, Sequence[float]] = {
        "total_tokens": totals,
        "model_calls": model_calls,
        "tool_calls": tool_calls,
        "duration_seconds": durations,
        "budget_share": shares,
    }
    return Cost(
        runs=runs,
        **{name: measure(values[name]) for name in MEASURES},
        spent_tokens=sum(spent_by_kind.values()),
        spent_reported=spent_reported,
        spent_runs=spent_runs,
        spent_by_kind={kind: spent_by_kind[kind] for kind in COUNTED_KINDS if kind in spent_by_kind},
        cost_usd=measure(usd) if priced else None,
        spent_usd=math.fsum(spent_usd) if spent_usd else None,
        spent_usd_reported=len(spent_usd) if priced else None,
    )


# ---------------------------------------------------------------- §3 the frontier


def frontier(points: Iterable[tuple[str, float | None, float | None]]) -> tuple[str, ...]:
    """The agents no one dominates among those placed (docs/rules/cost.md §3), by rising cost, then id.

    ``points``: (agent id, median score, median cost); an agent with either None is not placed. B dominates
    A when cost_B ≤ cost_A and score_B ≥ score_A with one of the two strict; two agents on one point are
    both on the frontier. So A is on it when every agent of lower cost scores below it and none of the same
    cost scores above it."""
    placed = sorted((c, -s, agent) for agent, s, c in points if s is not None and c is not None)
    out: list[tuple[float, str]] = []
    best_below = -math.inf  # the best score among agents of strictly lower cost
    i = 0
    while i < len(placed):
        spent = placed[i][0]
        group = []
        while i < len(placed) and placed[i][0] == spent:
            group.append(placed[i])
            i += 1
        top = -group[0][1]  # sorted by -score: the group's best first
        if top > best_below:
            out += [(spent, agent) for c, s, agent in group if -s == top]
        best_below = max(best_below, top)
    return tuple(agent for _, agent in sorted(out))


def frontiers(points: Iterable[tuple[str, float | None, Cost | None]]) -> Frontier:
    """The frontier by median tokens and by median duration, from (agent, median score, its cost)."""
    listed = list(points)

    def by(name: str) -> tuple[str, ...]:
        return frontier(
            (agent, score, getattr(c, name).median if c is not None else None) for agent, score, c in listed
        )

    return Frontier(total_tokens=by("total_tokens"), duration_seconds=by("duration_seconds"))
