"""How what a score costs reads (docs/rules/cost.md §6): tokens, durations, shares of a budget, dollars, and
the sentences pages and the terminal write with them. Every number was counted by count/cost.py; these
functions only write it.
"""

from __future__ import annotations

from podium.model import RunRecord
from podium.model.cost import SPENT_FIELDS, Cost, Prices
from podium.words.figures_text import DASH, ledger_texts

NOTHING = (None,) * len(SPENT_FIELDS)
KIND_SPEND = {  # "31% of tokens went to timed-out runs"
    "graded": "graded runs",
    "partial_judge": "runs with a partial judge",
    "timed_out": "timed-out runs",
    "no_judge": "runs with no judge",
    "stopped": "stopped runs",
    "infra_failed": "runs that failed on infrastructure",
    "grading_failed": "runs whose grading failed",
    "grading": "runs still being graded",
    "unknown": "runs of unknown kind",
}


def tokens(value: float | None) -> str:
    """A token count as people read it: 950, 12.5k, 106k, 1.2M; "—" for none."""
    if value is None:
        return DASH
    if value < 999.5:
        return f"{value:.0f}"
    if value < 999_500:  # the unit it rounds into: 999,499 is "999k", 999,500 "1.0M"
        scaled, unit = value / 1e3, "k"
    elif value < 999_500_000:
        scaled, unit = value / 1e6, "M"
    else:
        scaled, unit = value / 1e9, "G"
    return f"{scaled:.1f}{unit}" if scaled < 99.95 else f"{scaled:.0f}{unit}"


def whole(value: int | None) -> str:
    """An exact count with thousands separators: 80,070; "—" for none."""
    return DASH if value is None else f"{value:,}"


def duration(seconds: float | None) -> str:
    """A run's time: "45 s", "14 min", "2.1 h"; "—" for none."""
    if seconds is None:
        return DASH
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def share(value: float | None) -> str:
    """A share of a budget: "78%" (a timed-out run's is 100% or more); "—" for none."""
    return DASH if value is None else f"{value * 100:.0f}%"


def usd(value: float | None) -> str:
    """Dollars: "$0.042", "$1.25", "$1,240"; "<$0.001" for a sliver that is not nothing; "—" for none (never
    "$0" for a run with no price: docs/rules/cost.md §5)."""
    if value is None:
        return DASH
    if 0 < value < 0.0005:
        return "<$0.001"
    if value < 1:
        return f"${value:.3f}"
    return f"${value:,.2f}" if value < 1000 else f"${value:,.0f}"


def at_prices(prices: Prices | None) -> str:
    """What every dollar figure says beside it (docs/rules/cost.md §5)."""
    return f"at prices of {prices.as_of}" if prices is not None else ""


def cost_line(cost: Cost | None) -> str:
    """An agent card's cost line, after its label "cost": "106k tokens · 14 min a run (median) · 78% of budget",
    and "tokens for 12 of 20 runs" when not every run in its median reports them; "" when there is nothing to say."""
    if cost is None or cost.runs == 0:
        return ""
    parts = []
    if cost.total_tokens.median is not None:
        parts.append(f"{tokens(cost.total_tokens.median)} tokens")
    if cost.duration_seconds.median is not None:
        parts.append(duration(cost.duration_seconds.median))
    if not parts:
        return "not reported"
    line = " · ".join(parts) + " a run (median)"
    if cost.budget_share.median is not None:
        line += f" · {share(cost.budget_share.median)} of budget"
    if 0 < cost.total_tokens.reported < cost.runs:
        line += f" · tokens for {cost.total_tokens.reported} of {cost.runs} runs"
    elif cost.total_tokens.reported == 0:
        line += " · tokens not reported"
    return line


def quartiles(measure, write=tokens) -> str:
    """ "106k (81k–140k)": a median and its quartiles; "—" without."""
    if measure.median is None:
        return DASH
    if measure.q1 == measure.q3:
        return write(measure.median)
    return f"{write(measure.median)} ({write(measure.q1)}–{write(measure.q3)})"


def spend_line(cost: Cost | None, most: int = 3) -> str:
    """Where a scope's tokens went: "1.2M tokens spent over 40 runs (38 reported): 31% went to timed-out runs,
    4% to stopped runs." (the ``most`` largest kinds other than graded, then the rest together, "to runs of
    other kinds"); "" without tokens."""
    if cost is None or not cost.spent_tokens:
        return ""
    reported = f" ({cost.spent_reported} reported)" if cost.spent_reported < cost.spent_runs else ""
    head = f"{tokens(cost.spent_tokens)} tokens spent over {cost.spent_runs} runs{reported}"
    shares = sorted(
        ((n / cost.spent_tokens, kind) for kind, n in cost.spent_by_kind.items() if kind != "graded"),
        key=lambda item: (-item[0], item[1]),
    )
    if not shares:
        return head + ", all by graded runs."
    said = [f"{share_of(s)} to {KIND_SPEND[kind]}" for s, kind in shares[:most]]
    if len(shares) > most:
        said.append(f"{share_of(sum(s for s, _ in shares[most:]))} to runs of other kinds")
    said[0] = said[0].replace(" to ", " went to ", 1)
    return head + ": " + ", ".join(said) + "."


def share_of(value: float) -> str:
    """A share of the spend: "31%", "<1%" for a sliver that is not nothing."""
    return "<1%" if 0 < value < 0.005 else f"{value * 100:.0f}%"


def not_reported(record: RunRecord) -> str:
    """What the run page says for a value the run does not have."""
    return f"not reported (by {record.harness})" if record.harness else "not reported"


TOKEN_LABELS = ("input", "output", "cache read", "cache creation", "reasoning")  # a run page's token fields, after
# the total, in SPENT_FIELDS order
_TOTAL = SPENT_FIELDS.index("total_tokens")  # the token fields before it, model and tool calls after


def spent_rows(record: RunRecord) -> tuple[tuple[str, str], ...]:
    """The run page's "What it spent": its tokens (the total, then each field as the report gives it) and its
    calls, each value or "not reported (by <harness>)" (docs/rules/cost.md §1, §6)."""
    missing = not_reported(record)
    values = record.spent.values() if record.spent is not None else NOTHING
    total = values[_TOTAL]
    if total is None and all(v is None for v in values[:_TOTAL]):
        tokens_line = missing
    else:
        parts = [f"{label} {missing}" if v is None else f"{v:,} {label}" for v, label in zip(values, TOKEN_LABELS)]
        tokens_line = (f"{total:,} in all" if total is not None else f"total {missing}") + ": " + " · ".join(parts)
    model_calls, tool_calls = values[_TOTAL + 1 :]
    return (
        ("tokens", tokens_line),
        ("calls", f"{_calls(model_calls, 'model call', missing)} · {_calls(tool_calls, 'tool call', missing)}"),
    )


def _calls(value: int | None, label: str, missing: str) -> str:
    return f"{label}s {missing}" if value is None else f"{value:,} {label}{'' if value == 1 else 's'}"


def against_budget(record: RunRecord) -> str:
    """ "14 min of a 60 min budget (23%)", "30 min of a 30 min budget (100%: it ran out)", or what is known."""
    seconds, budget = record.duration_seconds, record.budget_seconds
    if seconds is None:
        return "not known"
    if budget is None:
        return f"{duration(seconds)} (no budget known)"
    ratio = seconds / budget  # its budget_share
    return f"{duration(seconds)} of a {duration(budget)} budget ({share(ratio)}" + (
        ": it ran out)" if ratio >= 1 else ")"
    )


def ledger_cells(record: RunRecord) -> dict[str, str]:
    """A run's cells as every run table and the ledger show them: its scores (figures_text.ledger_texts), and
    its tokens and duration ("—" when not reported)."""
    return {
        **ledger_texts(record),
        "tokens": tokens(record.total_tokens),
        "duration": duration(record.duration_seconds),
    }


MEASURE_LABELS = (
    ("total_tokens", "tokens a run", tokens),
    ("model_calls", "model calls a run", lambda v: f"{v:g}"),
    ("tool_calls", "tool calls a run", lambda v: f"{v:g}"),
    ("duration_seconds", "time a run", duration),
    ("budget_share", "share of the budget", share),
)


def cost_rows(cost: Cost | None, prices: Prices | None = None) -> tuple[tuple[str, str, str], ...]:
    """A scope's cost figures as table rows: (what, "median (q1–q3)", "reported by 12 of 20 runs")."""
    if cost is None or cost.runs == 0:
        return ()
    rows = []
    for name, label, write in MEASURE_LABELS:
        measure = getattr(cost, name)
        reported = f"{measure.reported} of {cost.runs}"
        rows.append((label, quartiles(measure, write) if measure.reported else "not reported", reported))
    if prices is not None and cost.cost_usd is not None:
        measure = cost.cost_usd
        value = quartiles(measure, usd) if measure.reported else "no price"
        rows.append((f"dollars a run, {at_prices(prices)}", value, f"{measure.reported} of {cost.runs}"))
    return tuple(rows)


def dollars_line(cost: Cost | None, prices: Prices | None) -> str:
    """ "$0.42 a run (median) at prices of 2026-11-01"; "" without a price table or a priced run."""
    if prices is None or cost is None or cost.cost_usd is None or cost.cost_usd.median is None:
        return ""
    return f"{usd(cost.cost_usd.median)} a run (median) {at_prices(prices)}"


def run_dollars_text(dollars, prices: Prices | None) -> str:
    """A run's dollars on its page (count/cost.py RunDollars): "$0.042 at prices of 2026-11-01", with what it
    leaves out; why there is none; "" without a price table."""
    if prices is None:
        return ""
    if dollars.cost_usd is None:
        return f"no price: its model key has none {at_prices(prices)}, or its input or output tokens are not reported"
    note = " (cache tokens not reported, so not priced)" if dollars.cache_unpriced else ""
    return f"{usd(dollars.cost_usd)} {at_prices(prices)}{note}"
