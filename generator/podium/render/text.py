"""Plain-text tables for the terminal (``podium rank``, ``podium history``)."""

from __future__ import annotations

from podium.model import PROVISIONAL_BELOW, AgentSummary, Leaderboard, RunRecord
from podium.model.progress import AgentProgress
from podium.words import cost_text, progress_text
from podium.words.figures_text import DASH, ci_range, median_line, pct, pct_range
from podium.words.names_text import more_names


def table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [header] + rows]
    return "\n".join(lines)


PROVISIONAL_FOOTNOTE = (
    f"provisional: fewer than {PROVISIONAL_BELOW} runs in the median, so no confidence interval; "
    "the rank may move as runs come in"
)


def rank_cell(rank: int | None, provisional: bool | None) -> str:
    """The rank column: "2", or "2 provisional" (site.md "Ranks on few runs"); "—" for an unranked entry."""
    if rank is None:
        return DASH
    return f"{rank} provisional" if provisional else str(rank)


def with_footnote(text: str, rows) -> str:
    """A ranked table, with the line that says what "provisional" means when a row is."""
    return text + ("\n" + PROVISIONAL_FOOTNOTE if any(r.provisional for r in rows) else "")


def rank_table(agents: tuple[AgentSummary, ...]) -> str:
    rows = []
    for agent in agents:
        fig = agent.figures
        ci = ci_range(fig.median_ci)
        rows.append(
            [
                rank_cell(agent.rank, agent.provisional),
                agent.name,
                pct_range(fig.median, fig.median_upper),
                ci,
                pct(fig.avg_overall),
                median_line(fig),
            ]
        )
    return with_footnote(table(["rank", "agent", "median", "95% CI", "mean", "runs"], rows), agents)


def cost_table(agents: tuple[AgentSummary, ...], board: Leaderboard) -> str:
    """``podium rank --by cost`` (docs/rules/cost.md §6): each agent's median score, median tokens and time a
    run (quartiles beside), how many runs in its median report tokens, and whether it is on the frontier."""
    by_tokens, by_time = set(board.frontier.total_tokens), set(board.frontier.duration_seconds)
    rows = []
    for agent in agents:
        cost = agent.cost
        on = [name for name, members in (("tokens", by_tokens), ("time", by_time)) if agent.agent in members]
        rows.append(
            [
                rank_cell(agent.rank, agent.provisional),
                agent.name,
                pct(agent.figures.median),
                cost_text.quartiles(cost.total_tokens) if cost else DASH,
                f"{cost.total_tokens.reported} of {cost.runs}" if cost else DASH,
                cost_text.quartiles(cost.duration_seconds, cost_text.duration) if cost else DASH,
                cost_text.share(cost.budget_share.median) if cost else DASH,
                " and ".join(on) or DASH,
            ]
        )
    header = ["rank", "agent", "median", "tokens a run", "reporting", "time a run", "budget", "frontier"]
    text = table(header, rows)
    text += "\nmedians over the runs in each agent's median, quartiles in brackets; frontier: no other agent scores"
    text += " as well or better for as few tokens (or as little time), one of the two strictly"
    return with_footnote(text, agents)


def history_table(records: list[RunRecord]) -> str:
    rows = []
    for record in records:
        overall = DASH if record.overall is None else pct_range(record.overall, record.overall_upper)
        if record.no_judge_ran:
            overall += "*"
        version = record.version + (" (older)" if record.older else "")
        rows.append(
            [
                record.when.strftime("%Y-%m-%d %H:%M") if record.when else DASH,
                record.run_id[:8],
                f"{record.mission} {version}",
                record.kind,
                overall,
                record.model_declared or DASH,
                reported_models(record),
            ]
        )
    text = table(["date", "run", "mission", "kind", "overall", "declared model", "reported model"], rows)
    if any(r.no_judge_ran for r in records):
        text += "\n* no judge ran: the judge half is 0, so overall is capped at 50% and left out of the median"
    return text


def reported_models(record) -> str:
    """A run's reported models for ``podium history``: each kept name, then how many more it reported (the run
    keeps 8: docs/rules/export.md §3.2)."""
    names = ", ".join(record.models_reported) or DASH
    return f"{names} {more_names(record.models_more)}" if record.models_more else names


def history_steps(progress: AgentProgress) -> str:
    """``podium history``'s steps after the runs: the headline, each agent step (newest last, as the runs), and
    each current mission version's newest step."""
    lines = ["", f"Which way it is moving: {progress_text.headline_text(progress)}"]
    for step in progress.steps:
        lines += [
            "",
            f"{progress_text.since(step)[:1].upper()}{progress_text.since(step)[1:]}:",
            f"  overall   {progress_text.agent_series_text(step.overall)}",
            f"  checks    {progress_text.agent_series_text(step.checks)}",
            f"  judge     {progress_text.tally_text(dict(step.judge.tally))}",
            f"  missions  {progress_text.tally_text(dict(step.overall.tally))}",
        ]
        if progress_text.has_tokens(step.tokens):
            lines.append(f"  tokens    {progress_text.tokens_text(step.tokens)}")
    rows = []
    for cell in progress.cells:
        if not cell.current or not cell.steps:
            continue
        newest = cell.steps[-1]
        rows.append(
            [
                f"{cell.mission} {cell.version}",
                progress_text.since(newest),
                progress_text.step_series_text(newest.overall),
                progress_text.step_series_text(newest.checks),
                progress_text.step_series_text(newest.judge),
                progress_text.tokens_text(newest.tokens) if progress_text.has_tokens(newest.tokens) else DASH,
            ]
        )
    if rows:
        header = ["mission", "step", "overall", "checks", "judge", "tokens"]
        if all(row[-1] == DASH for row in rows):  # no run reports tokens: no column of dashes
            header, rows = header[:-1], [row[:-1] for row in rows]
        lines += ["", "Newest step on each current mission version:", table(header, rows)]
    return "\n".join(lines)
