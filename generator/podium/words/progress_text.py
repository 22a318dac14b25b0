"""How progress verdicts read (docs/rules/progress.md §5): one helper per phrase, for pages and the CLI alike.

A glyph never carries meaning alone: every verdict is written as its glyph and its word. Shifts
are percentage points of the series they belong to; an agent step has no interval (its evidence
is the stratified p), a mission step has its 99% interval.
"""

from __future__ import annotations

from podium.count.verdicts import N_MIN, VERDICT_SIGNS, AgentProgress, AgentSeries, AgentStep, CellStep, StepSeries
from podium.model import Configuration
from podium.words.figures_text import pp_delta, seconds
from podium.words.names_text import short_name

FIELD_NAMES = {"agent_version": "agent", "model": "model", "judge_model": "judge model", "budget_seconds": "budget"}
ONE_CONFIGURATION = "one configuration so far"
NO_COUNTED_RUNS = "no counted runs on current versions"


def verdict_label(verdict: str | None) -> str:
    """ "▲ improved", "… too few runs"; "" for None."""
    if verdict is None:
        return ""
    glyph, word = VERDICT_SIGNS[verdict]
    return f"{glyph} {word}"


def glyph(verdict: str | None) -> str:
    return VERDICT_SIGNS[verdict][0] if verdict else ""


def field_value(configuration: Configuration, name: str) -> str:
    """One field as a reader names it: "v5", "gpt-5.5-pro", "no judge", "3,600 s"."""
    value = getattr(configuration, name)
    if name == "agent_version":
        return "no agent version" if value is None else f"v{value}"
    if name == "budget_seconds":
        return "no single budget" if value is None else seconds(value)  # (none, or one per mission: §7)
    if name == "judge_model":
        return "no judge model" if value is None else short_name(value)
    return "no model" if value is None else short_name(value)  # (a model is at most 8 names: issue 34)


def field_text(configuration: Configuration, name: str) -> str:
    """One field with its name: "agent v5", "judge model gpt-5.5-mini"; an empty one alone ("no single budget") (an
    agent's budget is empty too when its missions have budgets of their own: docs/rules/progress.md §7)."""
    value = field_value(configuration, name)
    return value if getattr(configuration, name) is None else f"{FIELD_NAMES[name]} {value}"


def change_text(changed: tuple[str, ...] | list[str], to: Configuration) -> str:
    """What changed, with its new value: "agent v5", "model gpt-5.5-pro and judge model gpt-5.5-mini"."""
    parts = [field_text(to, name) for name in changed]
    if not parts:
        return "no change"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def short_change(changed: tuple[str, ...] | list[str], to: Configuration) -> str:
    """The run strip's label for where a configuration first appears: "v5", "model", "judge", "budget"."""
    if list(changed) == ["agent_version"]:
        return field_value(to, "agent_version")
    return (
        " + ".join(
            {"agent_version": "version", "model": "model", "judge_model": "judge", "budget_seconds": "budget"}[name]
            for name in changed
        )
        or "start"
    )


def since(step: AgentStep | CellStep) -> str:
    return "since " + change_text(step.changed, step.to)


def tally_text(tally: dict[str, int]) -> str:
    """ "improved on 2, steady on 3, unclear on 4" (missions), verdicts in the order VERDICT_SIGNS lists them."""
    parts = [f"{VERDICT_SIGNS[v][1]} on {tally[v]}" for v in VERDICT_SIGNS if tally.get(v)]
    return ", ".join(parts) if parts else "no mission to compare on"


def agent_runs(series: AgentSeries) -> int:
    """The runs an agent step's test has: each mission's smaller side, summed (the too-few rule)."""
    return sum(min(s.step.m, s.step.n) for s in series.strata)


def too_few(m: int, n: int) -> str:
    return f"{min(m, n)} of {N_MIN}"


def agent_series_text(series: AgentSeries, step: AgentStep) -> str:
    """One agent series at one step: "▲ improved +9.0 pp (p 0.0012)", "… too few runs (3 of 5)"."""
    if series.verdict == "too_few_runs":
        return f"{verdict_label(series.verdict)} ({agent_runs(series)} of {N_MIN})"
    if series.verdict == "not_comparable":
        return f"{verdict_label(series.verdict)}: the judge model changed"
    text = verdict_label(series.verdict)
    if series.shift is not None:
        text += f" {pp_delta(series.shift)}"
    if series.p is not None:
        text += f" (p {p_text(series.p)})"
    if series.reasons:
        text += f", {reasons_text(series.reasons)}"
    return text


def step_series_text(series: StepSeries) -> str:
    """One series of a mission step: "▲ improved +12.0 pp (99% CI +4.0 to +20.0 pp)", "… too few runs (3 of 5)"."""
    if series.verdict == "too_few_runs":
        return f"{verdict_label(series.verdict)} ({too_few(series.m, series.n)})"
    text = verdict_label(series.verdict)
    if series.verdict == "not_comparable":
        return text + ": the judge model changed"
    if series.shift is not None:
        text += f" {pp_delta(series.shift)}"
    if series.ci99 is not None:
        text += f" (99% CI {interval_text(series.ci99)})"
    if series.reasons:
        text += f", {reasons_text(series.reasons)}"
    return text


def interval_text(interval) -> str:
    low, high = interval
    return f"{pp_delta(low)} to {pp_delta(high)}"


def p_text(p: float) -> str:
    return "< 0.0001" if p < 0.0001 else f"{p:.4f}"


REASONS = {
    "partial_judge": "not on the judge's upper bounds (a partial judge)",
    "just_crossed": "not without the newest run",
}


def reasons_text(reasons) -> str:
    return "unclear: " + "; ".join(REASONS[r] for r in reasons)


def headline(progress: AgentProgress) -> str:
    """The agent's one line (home card, agent page, CLI): its newest agent step's overall verdict,
    shift, what changed and the tally ("▲ improved +9.0 pp since agent v4 · improved on 2 of 5 missions")."""
    step = progress.newest_step
    if step is None:
        return ONE_CONFIGURATION if progress.segments else NO_COUNTED_RUNS
    overall = step.overall
    head = verdict_label(overall.verdict)
    if overall.verdict == "too_few_runs":
        return f"{head} {since(step)} ({agent_runs(overall)} of {N_MIN})"
    if overall.verdict == "not_comparable":
        checks = step.checks
        tail = f"on the checks, {verdict_label(checks.verdict)}"
        if checks.verdict == "too_few_runs":
            tail += f" ({agent_runs(checks)} of {N_MIN})"
        elif checks.shift is not None:
            tail += f" {pp_delta(checks.shift)}"
        return f"{head} {since(step)}: {tail}"
    if overall.shift is not None:
        head += f" {pp_delta(overall.shift)}"
    missions = len(overall.strata)
    return f"{head} {since(step)} · {tally_text(dict(overall.tally))} of {missions} mission{'s' * (missions != 1)}"
