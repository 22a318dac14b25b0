"""How progress verdicts read (docs/rules/progress.md §5, §10): one helper per phrase, for pages and the CLI alike.

A glyph never carries meaning alone: every verdict is written as its glyph and its word. Score shifts
are percentage points of the series they belong to; an agent step has no interval (its evidence
is the stratified p), a mission step has its 99% interval. The tokens series reads as a ratio of tokens
a run ("cheaper ×0.62 tokens a run (−38%)"), beside the score's verdict and never merged into it.
"""

from __future__ import annotations

import math

from podium.count.progress.series import N_MIN
from podium.model import Configuration, published_version
from podium.model.progress import AgentProgress, AgentSeries, AgentStep, CellStep, StepSeries
from podium.words.figures_text import pp_delta, seconds
from podium.words.names_text import short_name

# §5: a glyph never carries meaning alone; the pages show both
VERDICT_SIGNS = {
    "improved": ("▲", "improved"),
    "regressed": ("▼", "regressed"),
    "steady": ("=", "steady"),
    "mixed": ("◆", "mixed"),
    "unclear": ("?", "unclear"),
    "too_few_runs": ("…", "too few runs"),
    "not_comparable": ("≠", "not comparable"),
}
# cost.md §4: the tokens series' verdicts (their glyphs are arrows of the tokens, not of the score)
COST_SIGNS = {
    "costlier": ("↑", "costlier"),
    "cheaper": ("↓", "cheaper"),
    "same_cost": ("=", "same cost"),
    **{verdict: VERDICT_SIGNS[verdict] for verdict in ("mixed", "unclear", "too_few_runs")},
}
SIGNS = {**VERDICT_SIGNS, **COST_SIGNS}
JUDGE_CHANGED = "judge model changed"  # why a step is not comparable (§2.4), the one spelling of it
FIELD_NAMES = {"agent_version": "agent", "model": "model", "judge_model": "judge model", "budget_seconds": "budget"}
ONE_CONFIGURATION = "one configuration so far"
NO_COUNTED_RUNS = "no counted runs on current versions"


def verdict_label(verdict: str | None) -> str:
    """ "▲ improved", "… too few runs"; "" for None."""
    if verdict is None:
        return ""
    glyph, word = SIGNS[verdict]
    return f"{glyph} {word}"


def glyph(verdict: str | None) -> str:
    return SIGNS[verdict][0] if verdict else ""


def quoted(text: str) -> str:
    """A value an agent or its harness reported, marked as such wherever a sentence carries it: “gpt-5.5”.
    Curly quotation marks inside it become plain ones, so that it cannot close its own quotation and go on in
    podium's voice ("since model gpt-5.5 · ▲ improved +40.0 pp" written by an agent: issue 34 item 13)."""
    return "“" + text.replace("“", '"').replace("”", '"') + "”"


def field_value(configuration: Configuration, name: str) -> str:
    """One field as a reader names it: "v5" (a whole-number version), “beta-2” (any other), “gpt-5.5-pro”, "no judge
    model", "3,600 s". A model, a judge model and a version that is not a number are the harness's words: quoted."""
    value = getattr(configuration, name)
    if name == "agent_version":
        if value is None:
            return "no agent version"
        return f"v{value}" if isinstance(published_version(value), int) else quoted(value)
    if name == "budget_seconds":
        return "no single budget" if value is None else seconds(value)  # (none, or one per mission: §7)
    if name == "judge_model":
        return "no judge model" if value is None else quoted(short_name(value))
    return "no model" if value is None else quoted(short_name(value))  # (a model is at most 8 names: issue 34)


def field_text(configuration: Configuration, name: str) -> str:
    """One field with its name: "agent v5", "judge model “gpt-5.5-mini”"; an empty one alone ("no single budget")
    (an agent's budget is empty too when its missions have budgets of their own: docs/rules/progress.md §7)."""
    value = field_value(configuration, name)
    return value if getattr(configuration, name) is None else f"{FIELD_NAMES[name]} {value}"


def change_text(changed: tuple[str, ...] | list[str], to: Configuration) -> str:
    """What changed, with its new value: "agent v5", "model “gpt-5.5-pro” and judge model “gpt-5.5-mini”"."""
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


def tally_text(tally: dict[str, int], signs: dict[str, tuple[str, str]] = VERDICT_SIGNS) -> str:
    """ "improved on 2, steady on 3, unclear on 4" (missions), verdicts in the order ``signs`` lists them
    (COST_SIGNS for the tokens series: "cheaper on 2, same cost on 1")."""
    parts = [f"{signs[v][1]} on {tally[v]}" for v in signs if tally.get(v)]
    return ", ".join(parts) if parts else "no mission to compare on"


def too_few(runs: int) -> str:
    """How many runs a step has of the n_min it needs: "3 of 5"."""
    return f"{runs} of {N_MIN}"


def not_comparable() -> str:
    """ "≠ not comparable: the judge model changed"."""
    return f"{verdict_label('not_comparable')}: the {JUDGE_CHANGED}"


def on_the_checks(checks: StepSeries | AgentSeries) -> str:
    """What a step whose judge model changed says of its checks: "judge model changed: on the checks, ▲ improved"."""
    return f"{JUDGE_CHANGED}: on the checks, {verdict_label(checks.verdict)}"


def agent_series_text(series: AgentSeries) -> str:
    """One agent series at one step: "▲ improved +9.0 pp (p 0.0012)", "… too few runs (3 of 5)"."""
    if series.verdict == "too_few_runs":
        return f"{verdict_label(series.verdict)} ({too_few(series.paired_runs)})"
    if series.verdict == "not_comparable":
        return not_comparable()
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
        return f"{verdict_label(series.verdict)} ({too_few(min(series.m, series.n))})"
    if series.verdict == "not_comparable":
        return not_comparable()
    text = verdict_label(series.verdict)
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


def headline_text(progress: AgentProgress) -> str:
    """The agent's one line (home card, agent page, CLI): its newest agent step's overall verdict, shift, what
    changed and the tally ("▲ improved +9.0 pp since agent v4 · improved on 2 of 5 missions"), and when a side
    reports tokens, the tokens verdict beside it (" · cheaper ×0.62 tokens a run (−38%)")."""
    step = progress.newest_step
    if step is None:
        return ONE_CONFIGURATION if progress.segments else NO_COUNTED_RUNS
    return _score_headline(step) + _cost_clause(step)


def _score_headline(step: AgentStep) -> str:
    overall = step.overall
    head = verdict_label(overall.verdict)
    if overall.verdict == "too_few_runs":
        return f"{head} {since(step)} ({too_few(overall.paired_runs)})"
    if overall.verdict == "not_comparable":
        checks = step.checks
        tail = f"on the checks, {verdict_label(checks.verdict)}"
        if checks.verdict == "too_few_runs":
            tail += f" ({too_few(checks.paired_runs)})"
        elif checks.shift is not None:
            tail += f" {pp_delta(checks.shift)}"
        return f"{head} {since(step)}: {tail}"
    if overall.shift is not None:
        head += f" {pp_delta(overall.shift)}"
    missions = len(overall.strata)
    return f"{head} {since(step)} · {tally_text(dict(overall.tally))} of {missions} mission{'s' * (missions != 1)}"


def _cost_clause(step: AgentStep) -> str:
    return f" · {tokens_text(step.tokens)}" if has_tokens(step.tokens) else ""


def has_tokens(series: StepSeries | AgentSeries) -> bool:
    """Whether a step's tokens series has anything to say: a run on either side that reports its tokens (a cell
    step), a mission both sides report tokens on (an agent step). Until a harness reports tokens, no page says
    anything of them."""
    if isinstance(series, AgentSeries):
        return bool(series.strata)
    return bool(series.m or series.n)


def ratio_text(shift: float) -> str:
    """A shift of logarithms as the ratio it stands for: "×0.62", "×1.25"."""
    return f"×{math.exp(shift):.2f}"


def percent_change(shift: float) -> str:
    """The same as a change in percent: "−38%", "+25%", "±0%"."""
    change = round((math.exp(shift) - 1) * 100)
    return "±0%" if change == 0 else f"{'+' if change > 0 else '−'}{abs(change)}%"


# how the tokens verdicts read in a sentence (too_few_runs reads "tokens: too few runs")
COST_WORDS = {
    "cheaper": "cheaper",
    "costlier": "costlier",
    "same_cost": "same cost",
    "mixed": "cost mixed",
    "unclear": "cost unclear",
}


def tokens_text(series: StepSeries | AgentSeries) -> str:
    """The tokens series at one step (cost.md §4): "cheaper ×0.62 tokens a run (−38%)", for an agent step with its
    p ("costlier ×1.40 tokens a run (+40%, p 0.0012)"); "tokens: too few runs (3 of 5)"."""
    if series.verdict == "too_few_runs":
        runs = series.paired_runs if isinstance(series, AgentSeries) else min(series.m, series.n)
        return f"tokens: too few runs ({too_few(runs)})"
    text = COST_WORDS[series.verdict]
    if series.shift is not None:
        details = [percent_change(series.shift)]
        if isinstance(series, AgentSeries) and series.p is not None:
            details.append(f"p {p_text(series.p)}")
        text += f" {ratio_text(series.shift)} tokens a run ({', '.join(details)})"
    if series.reasons:
        text += f", {reasons_text(series.reasons)}"
    return text
