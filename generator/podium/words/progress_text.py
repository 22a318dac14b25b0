"""How progress verdicts read (docs/rules/progress.md §5, §10): one helper per phrase, for pages and the CLI alike.

A glyph never carries meaning alone: every verdict is written as its glyph and its word. Score shifts
are percentage points of the series they belong to; an agent step has no interval (its evidence
is the stratified p), a mission step has its 99% interval. The tokens series reads as a ratio of tokens
a run ("cheaper ×0.62 tokens a run (−38%)"), beside the score's verdict and never merged into it.
"""

from __future__ import annotations

import math

from podium.count.progress.series import N_MIN
from podium.model import Configuration, provisional, published_version
from podium.model.progress import AgentProgress, AgentSeries, AgentStep, CellStep, StepSeries
from podium.words.figures_text import n_runs, pct, pp_delta, seconds
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
NO_MOVE = "no move to attribute"  # which half a step's move comes from, when it did not move (§2.6)
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
        # none when each mission has a budget of its own, or none was recorded (§7): said in plain words
        return "no single budget (each mission its own)" if value is None else seconds(value)
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
    """How many runs a step has of the n_min it needs, in plain words: "3 of the 5 runs needed"."""
    return f"{runs} of the {N_MIN} runs needed"


def not_comparable() -> str:
    """ "≠ not comparable: the judge model changed"."""
    return f"{verdict_label('not_comparable')}: the {JUDGE_CHANGED}"


def on_the_checks(checks: StepSeries | AgentSeries) -> str:
    """What a step whose judge model changed says of its checks: "judge model changed: on the checks, ▲ improved"."""
    return f"{JUDGE_CHANGED}: on the checks, {verdict_label(checks.verdict)}"


def agent_series_text(series: AgentSeries) -> str:
    """One agent series at one step: "▲ improved +9.0 pp (p 0.0012)", "… too few runs (3 of the 5 runs
    needed)"; mixed names its missions instead of a shift that would average moves both ways ("◆ mixed: improved
    on m1, regressed on m2"); a move no single mission shows says so ("…: the missions together show it, none
    alone")."""
    if series.verdict == "too_few_runs":
        return f"{verdict_label(series.verdict)} ({too_few(series.paired_runs)})"
    if series.verdict == "not_comparable":
        return not_comparable()
    if series.verdict == "mixed":
        return f"{verdict_label(series.verdict)}: {moved_each_way(series)}"
    text = verdict_label(series.verdict)
    if series.shift is not None:
        text += f" {pp_delta(series.shift)}"
    if series.p is not None:
        text += f" (p {p_text(series.p)})"
    if series.reasons:
        text += f", {reasons_text(series.reasons)}"
    if none_alone(series):
        text += f": {NONE_ALONE}"
    return text


NONE_ALONE = "the missions together show it, none alone"


def none_alone(series: AgentSeries) -> bool:
    """An agent step improved (or regressed) with no single mission doing so: the stratified test pools the
    evidence that no one mission has enough of (progress.md §7), which the page must say where it stands."""
    return series.verdict in ("improved", "regressed") and not series.tally.get(series.verdict)


def moved_each_way(series: AgentSeries) -> str:
    """The missions a mixed step moved on, each way: "improved on jwt-none-bypass, regressed on smb-share-loot"
    (mission names: an agent step compares current versions, one a mission)."""
    ways = []
    for verdict in ("improved", "regressed"):
        missions = [stratum.mission for stratum in series.strata if stratum.step.verdict == verdict]
        if missions:
            ways.append(f"{verdict} on {', '.join(missions)}")
    return ", ".join(ways)


def newest_text(progress: AgentProgress) -> str | None:
    """What the agent scores in its newest configuration, beside its all-history median (issue 36): "since agent
    v2: median 80.0% over 21 runs" (its overall series on current mission versions); None with one configuration
    (the headline median is then the newest configuration's)."""
    step = progress.newest_step
    if step is None:
        return None
    newest = progress.segments[-1]
    runs = newest.runs["overall"]
    if not runs:
        return f"{since(step)}: no run in a median yet"
    few = "only " if provisional(runs) else ""  # too few for an interval, as a provisional rank (site.md §6)
    return f"{since(step)}: median {pct(newest.median)} over {few}{n_runs(runs)}"


def not_compared(before: bool, since: bool) -> str:
    """Why a mission version has no verdict at an agent step, in words (never a bare "—"): it has counted runs
    on one side of the change only, or on neither."""
    if before and not since:
        return "no runs since the change"
    if since and not before:
        return "no runs before the change: nothing to compare"
    return "not run in either configuration"


def checks_instead(checks: StepSeries) -> str:
    """A mission version at a step whose judge model changed: its checks verdict, the overall being on another
    scale: "≠ not comparable (judge model changed); on the checks: ▲ improved +20.0 pp (99% CI …)"."""
    return f"{verdict_label('not_comparable')} ({JUDGE_CHANGED}); on the checks: {step_series_text(checks)}"


def step_series_text(series: StepSeries) -> str:
    """One series of a mission step, with the interval that decided it: "▲ improved +12.0 pp (99% CI +4.0 to
    +20.0 pp)", "= steady −0.5 pp (90% CI −3.0 to +2.0 pp, within ±5.0 pp)", "… too few runs (3 of the 5 runs
    needed)"."""
    if series.verdict == "too_few_runs":
        return f"{verdict_label(series.verdict)} ({too_few(min(series.m, series.n))})"
    if series.verdict == "not_comparable":
        return not_comparable()
    text = verdict_label(series.verdict)
    if series.shift is not None:
        text += f" {pp_delta(series.shift)}"
    if series.verdict == "steady" and series.ci90 is not None and series.steady_within is not None:
        text += f" (90% CI {interval_text(series.ci90)}, within ±{series.steady_within * 100:.1f} pp)"
    elif series.ci99 is not None:
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
    missions = len(overall.strata)
    tally = f"{tally_text(dict(overall.tally))} of {missions} mission{'s' * (missions != 1)}"
    if overall.verdict == "mixed":  # no pooled shift: it would average a move up and a move down
        return f"{head} {since(step)}: {moved_each_way(overall)}"
    if overall.shift is not None:
        head += f" {pp_delta(overall.shift)}"
    if none_alone(overall):
        return f"{head} {since(step)} · {NONE_ALONE} ({tally})"
    return f"{head} {since(step)} · {tally}"


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
