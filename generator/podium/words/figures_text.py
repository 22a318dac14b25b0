"""How numbers read on pages and in the terminal: one helper per kind of figure.

Scores stay in [0, 1] in JSON; people read percentages with one decimal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from podium import routes
from podium.model import (
    KIND_LABELS,
    LEFT_OUT_KINDS,
    MEDIAN_KINDS,
    PROVISIONAL_BELOW,
    AgentSummary,
    Figures,
    MissionVersionSummary,
    ModelSummary,
    RunRecord,
    Totals,
)
from podium.words.names_text import more_names, short_name

DASH = "—"
NO_JUDGE = "No judge"


@dataclass(frozen=True)
class Part:
    """A piece of a sentence that a page and the terminal both write: the page wraps a ``name`` (text an
    agent controls) in ``<bdi>``, links it when it has a ``url`` and sets a ``strong`` figure in bold; plain
    text (a meta description, the CLI) is the parts' texts joined (:func:`plain`)."""

    text: str
    name: bool = False
    url: str | None = None
    strong: bool = False
    key: bool = False  # a model key (pages mark it as one)


Sentence = tuple[Part, ...]


def plain(sentence: Sentence) -> str:
    return "".join(part.text for part in sentence)


def pct(value: float | None) -> str:
    """0.4375 -> "43.8%"; None -> "—"."""
    return DASH if value is None else f"{value * 100:.1f}%"


NO_CI = f"no CI (fewer than {PROVISIONAL_BELOW} runs)"


def ci_range(ci, none: str = DASH) -> str:
    """A median's 95% confidence interval, the one way every page, table and line writes it: "62.0%–71.0%";
    ``none`` when there is none (fewer than 6 runs in the median)."""
    return f"{pct(ci[0])}–{pct(ci[1])}" if ci else none


def pct_range(low: float | None, high: float | None) -> str:
    """ "43.8%" or "43.8–50.0%" when the upper bound differs."""
    if low is None:
        return DASH
    if high is None or high == low:
        return pct(low)
    return f"{low * 100:.1f}–{high * 100:.1f}%"


def points(value: float | None) -> str:
    """A mean gap in percentage points: 0.1625 -> "16.3 pp"."""
    return DASH if value is None else f"{value * 100:.1f} pp"


def rate(value: float | None) -> str:
    return DASH if value is None else f"{value * 100:.0f}%"


def counted(n: int, noun: str) -> str:
    """A count and its noun, singular for one: "1 agent", "3 mission versions" (pages: ``|counted``)."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def n_runs(n: int) -> str:
    """ "1 run", "12 runs"."""
    return counted(n, "run")


LEFT_OUT_LABEL = {kind: KIND_LABELS[kind].lower() for kind in LEFT_OUT_KINDS}  # "no judge", "infra failed", …


def left_out(fig: Figures) -> list[tuple[str, int, str]]:
    """(kind, count, label) for every kind left out of the median that has runs."""
    return [(kind, fig.counts[kind], LEFT_OUT_LABEL[kind]) for kind in LEFT_OUT_KINDS if fig.counts[kind]]


def left_out_text(delta: dict[str, int]) -> str:
    """A change in the runs left out of the median, by kind: "+2 no judge, −1 infra failed"."""
    return ", ".join(f"{count_delta(n)} {LEFT_OUT_LABEL.get(k, k)}" for k, n in delta.items())


def in_median(fig: Figures) -> str:
    """ "12 of 15 runs": the runs in the median of all counted (the median line's head, pages and CLI)."""
    return f"{fig.in_median} of {n_runs(fig.runs)}"


def median_line(fig: Figures) -> str:
    """ "12 of 15 runs in the median · 2 no judge · 1 infra failed" """
    head = f"{in_median(fig)} in the median"
    return " · ".join([head] + [f"{count} {label}" for _, count, label in left_out(fig)])


def coverage_text(coverage) -> str:
    """Where a median was earned, as a card says it: "on 2 of 4 missions" (the summary's Coverage)."""
    return f"on {len(coverage.missions)} of {counted(coverage.of, 'mission')}"


COVERAGE_NAMED = 5  # missions a card names (the rest are counted): a card stays small at 40 missions


def coverage_names(coverage) -> tuple[tuple[str, ...], int]:
    """The missions a card names ("blind-sqli-portal, smb-share-loot"), at most COVERAGE_NAMED, and how many more."""
    return coverage.missions[:COVERAGE_NAMED], max(0, len(coverage.missions) - COVERAGE_NAMED)


def pp_delta(value: float | None) -> str:
    """A signed change in percentage points: +3.2 pp, −0.4 pp, ±0.0 pp; "—" for None."""
    if value is None:
        return DASH
    change = round(value * 100, 1)
    if change == 0:
        return "±0.0 pp"
    return f"{'+' if change > 0 else '−'}{abs(change):.1f} pp"


def count_delta(value: int) -> str:
    """+3, −2, 0."""
    return f"+{value}" if value > 0 else (f"−{-value}" if value < 0 else "0")


def rank_move(old: int | None, new: int | None) -> str:
    """ "▲2", "▼1", "new", or "" when the rank did not move."""
    if old is None:
        return "new"
    if new is None or old == new:
        return ""
    return f"▲{old - new}" if new < old else f"▼{new - old}"


def utc_time(iso: str | None) -> str:
    """An ISO-8601 UTC time as pages show it, to the minute: "2026-11-23 20:52 UTC"; "—" for None."""
    return DASH if not iso else f"{iso[:10]} {iso[11:16]} UTC"


def svg_number(value: float) -> str:
    """An SVG coordinate: at most two decimals, never NaN or infinite (that is a bug, so it raises)."""
    if not math.isfinite(value):
        raise ValueError(f"non-finite number {value!r} reached a chart")
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def ledger_texts(record: RunRecord) -> dict[str, str]:
    """A run's score cells as the ledger shows them: "—" for no value, "No judge" when the judge never ran."""
    return {
        "overall": pct_range(record.overall, record.overall_upper) + ("*" if record.no_judge_ran else ""),
        "deterministic": pct(record.deterministic),
        "judge": NO_JUDGE if record.no_judge_ran else pct_range(record.judge, record.judge_upper),
    }


# Page descriptions (<meta name="description">): each page's headline sentence, in plain
# text, built from figures the summary step already computed.


def provisional_note(in_median: int) -> str:
    """What a provisional rank rests on (site.md "Ranks on few runs"): "provisional, 1 run"."""
    return "provisional, " + (n_runs(in_median) if in_median else "no median")


def provisional_sentence(rank: int | None, in_median: int) -> str:
    """The line under a provisional rank's headline figure (agent and model pages)."""
    held = f"only {n_runs(in_median)}" if in_median else "no run"
    return (
        f"Provisional rank: {held} in the median, fewer than the {PROVISIONAL_BELOW} a confidence "
        f"interval needs, so rank #{rank} may move as runs come in."
    )


def rank_text(rank: int | None, provisional: bool | None, in_median: int) -> str:
    """ "#2", or "#2 · provisional, 1 run" when the rank rests on fewer than 6 runs in the median."""
    if rank is None:
        return DASH
    return f"#{rank}" + (f" · {provisional_note(in_median)}" if provisional else "")


def _leads(name: str, url: str | None, fig: Figures, provisional: bool | None, key: bool = False) -> list[Part]:
    """ "kestrel leads with a median of 87.5% over 12 runs[, a provisional rank (…)]": the home page's and
    the models page's lead clause, one wording."""
    parts = [
        Part(name, name=True, url=url, key=key),
        Part(" leads with a median of "),
        Part(pct(fig.median), strong=True),
        Part(f" over {n_runs(fig.in_median)}"),
    ]
    if provisional:
        parts.append(Part(f", a provisional rank (fewer than {PROVISIONAL_BELOW} runs in the median)"))
    return parts


def home_headline(agents: tuple[AgentSummary, ...] | list[AgentSummary]) -> Sentence:
    """The home page's headline, as parts (the page links the names): "kestrel leads with a median of
    87.5% over 12 runs; next is osprey at 80.0%."

    A provisional rank is said in the clause of the agent it belongs to: "…; next is tern at
    90.0%, a provisional rank on 1 run." (docs/rules/site.md "Ranks on few runs")."""
    if not agents:
        return (Part("No finished runs yet — nothing to rank."),)
    top = agents[0]
    if top.figures.median is None:
        return (Part("No agent has a run in a median yet."),)
    parts = _leads(top.name, top.url, top.figures, top.provisional)
    if len(agents) > 1:
        second = agents[1]
        if second.figures.median is None:
            parts.append(Part("; no other agent has a run in a median yet"))
        else:
            parts += [
                Part("; next is "),
                Part(second.name, name=True, url=second.url),
                Part(f" at {pct(second.figures.median)}"),
            ]
            if second.provisional:
                parts.append(Part(f", a provisional rank on {n_runs(second.figures.in_median)}"))
            parts += _lead_clarity(top, second)
    return (*parts, Part("."))


def _lead_clarity(top: AgentSummary, second: AgentSummary) -> list[Part]:
    """How clear the leader's lead is (docs/rules/counting.md §9, ``ahead_of_next``): ". A clear lead: its 95%
    interval lies above goshawk's" or ". Within the noise: the two 95% intervals overlap"; nothing when either
    has no interval (its provisional rank is said already)."""
    if top.ahead_of_next is None:
        return []
    about = routes.about("ranks")
    if top.ahead_of_next:
        return [
            Part(". A clear lead: its "),
            Part("95% interval", url=about),
            Part(" lies above that of "),
            Part(second.name, name=True),
        ]
    return [Part(". The lead is within the noise: the two "), Part("95% intervals", url=about), Part(" overlap")]


def models_lead(models: tuple[ModelSummary, ...] | list[ModelSummary]) -> Sentence:
    """The models page's ranking sentence, by the home headline's rules: "model-a leads with a median of
    87.5% over 12 runs.", or that no model key has a run in a median yet; nothing without a key."""
    if not models:
        return ()
    top = models[0]
    if top.figures.median is None:
        return (Part("No model has a run in a median yet."),)
    return (*_leads(short_name(top.model), top.url, top.figures, top.provisional, key=True), Part("."))


def agent_headline(agent: AgentSummary) -> str:
    """ "kestrel, rank #1: median 87.5%, 12 of 15 runs in the median · 2 no judge."

    A provisional rank reads "tern, rank #2 (provisional, 1 run): …"."""
    rank = ""
    if agent.rank is not None:
        note = f" ({provisional_note(agent.figures.in_median)})" if agent.provisional else ""
        rank = f", rank #{agent.rank}{note}"
    return f"{agent.name}{rank}: median {pct(agent.figures.median)}, {median_line(agent.figures)}."


def missions_headline(missions: tuple[MissionVersionSummary, ...] | list[MissionVersionSummary]) -> str:
    current = sum(1 for m in missions if m.current)
    count = len(missions)
    return (
        f"{counted(count, 'mission version')} ({current} current): each run placed by "
        "what the checks gave it and what the judge gave it."
    )


def mission_headline(mission: MissionVersionSummary) -> str:
    """ "jwt-none-bypass 1.3.0: median 62.5%, 12 of 15 runs in the median; judge vs checks 16.3 pp." """
    return (
        f"{mission.mission} {mission.version}: median {pct(mission.figures.median)}, "
        f"{median_line(mission.figures)}; judge vs checks {points(mission.judge_vs_checks)}."
    )


def ledger_headline(totals: Totals) -> str:
    """ "150 runs, newest first: 147 counted and 3 cancelled or never started." """
    text = f"{n_runs(totals.listed)}, newest first: {totals.runs} counted"
    if totals.not_a_run:
        text += f" and {totals.not_a_run} cancelled or never started"
    return text + "."


def ledger_page_headline(label: str, number: int, count: int) -> str:
    """ "Runs of September 2026, page 3: 150 runs, newest first." """
    what = "Undated runs" if label == "Undated" else f"Runs of {label}"
    return f"{what}, page {number}: {n_runs(count)}, newest first."


def run_placement(record: RunRecord) -> str:
    """How a run is counted, as its page says it (docs/rules/counting.md §2): "counted in the median at 87.5%.",
    "left out of the median and counted beside it as “no judge”.", or not counted at all."""
    if record.kind in MEDIAN_KINDS:
        bound = ", its lower bound" if record.kind == "partial_judge" or record.judge_upper is not None else ""
        return f"counted in the median at {pct(record.overall)}{bound}."
    if record.kind == "not_a_run":
        return "it ended before the agent started, so it is not counted anywhere."
    return f"left out of the median and counted beside it as “{KIND_LABELS[record.kind].lower()}”."


def seconds(value: float) -> str:
    """A budget in seconds, exactly: "3,600 s", "600.4 s" (never rounded: two budgets that differ by under a
    second read apart where a page or a report tells them apart, issue 34)."""
    whole = float(value).is_integer()
    return f"{int(value):,} s" if whole else f"{value:,} s"


def judges_warning(fig: Figures) -> Sentence:
    """ "Judged by 2 models (a, b): their judge scores may not compare." when more than one model judged
    these runs; nothing otherwise."""
    models = fig.judge_models
    if len(models) + fig.judge_models_more < 2:
        return ()
    parts = [Part(f"Judged by {len(models) + fig.judge_models_more:,} models (")]
    for i, model in enumerate(models):
        parts += [Part(", ")] if i else []
        parts.append(Part(short_name(model), name=True))
    if fig.judge_models_more:  # the list keeps 10 (count/model_names.py)
        parts.append(Part(f" {more_names(fig.judge_models_more)}"))
    return (*parts, Part("): their judge scores may not compare."))


def run_headline(record: RunRecord) -> str:
    """ "Run 3f2a1b2c: kestrel on jwt-none-bypass 1.3.0, done (graded), overall 87.5%." """
    if record.overall is None:
        score = "no score"
    else:
        score = "overall " + pct_range(record.overall, record.overall_upper)
        score += " (no judge)" if record.no_judge_ran else ""
    status = record.status[:1].lower() + record.status[1:]
    return f"Run {record.run_id[:8]}: {record.agent_name} on {record.mission} {record.version}, {status}, {score}."
