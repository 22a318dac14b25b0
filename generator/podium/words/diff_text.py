"""The change report in words: Markdown for ``podium diff`` and the job summary, the one-line headline,
and the gate lines. Reads the report count/diff.py made; computes nothing.
"""

from __future__ import annotations

from podium.count.diff import cost_changed, frontier_changed, progress_changed, tokens_changed
from podium.words.cost_text import tokens
from podium.words.figures_text import (
    DASH,
    NO_CI,
    ci_range,
    count_delta,
    counted,
    left_out_text,
    n_runs,
    pct,
    pp_delta,
    rank_move,
    seconds,
)
from podium.words.markdown_escape import md
from podium.words.progress_text import ONE_CONFIGURATION, verdict_label

ROW_VERDICT_WORDS = {  # a row's verdict (count/diff.py _verdict) -> how the Markdown reads it
    "new": "new",
    "unchanged": "same median",
    "no_median": "median appeared or vanished",
    "no_ci": NO_CI,
    "inside_both_cis": "inside both CIs: not evidence of a change",
    "outside_a_ci": "outside a CI",
}


def to_markdown(report: dict, gates: list[dict] | None = None, title: str = "podium: what changed") -> str:
    """The report as GitHub-flavoured Markdown (a PR comment, a chat message, a job summary)."""
    t, new = report["totals"], report["new"]
    lines = [f"### {title}", ""]
    head = (
        f"**{n_runs(new['runs'])}** ({count_delta(t['runs'])} since the previous summary) · "
        f"{new['agents']} agents ({count_delta(t['agents'])})"
    )
    if t["left_out"]:
        head += f" · left out of medians: {left_out_text(t['left_out'])}"
    if t["not_a_run"]:
        head += f" · {count_delta(t['not_a_run'])} cancelled or never started"
    if t["problems"]:
        head += f" · problems reading the export: {count_delta(t['problems'])}"
    lines += [head, ""]
    if not report["changed"]:
        lines += ["No change since the previous summary.", ""]
    if report["agents"]:
        lines += [
            "| rank | agent | median | change | 95% CI before → now | reading | new runs |",
            "|---:|---|---:|---:|---|---|---|",
        ]
        for r in report["agents"]:
            move = rank_move(r["old_rank"], r["rank"])
            runs = count_delta(r["new_runs"])
            if r["left_out"]:
                runs += f" ({left_out_text(r['left_out'])})"
            cis = DASH if r["is_new"] else f"{ci_range(r['old_ci'])} → {ci_range(r['ci'])}"
            mark = " provisional" if r.get("provisional") else ""
            lines.append(
                f"| {r['rank']}{mark}{' ' + move if move else ''} | {md(r['name'])} | {pct(r['median'])} | "
                f"{pp_delta(r['delta'])} | {cis} | {ROW_VERDICT_WORDS[r['verdict']]} | {runs} |"
            )
        lines.append("")
    lines += _md_list(
        "Which way agents are moving: headline verdicts that changed",
        [progress_line(r, markdown=True) for r in report["agents"] if progress_changed(r)],
    )
    lines += _md_list(
        "What each score costs: cost verdicts that changed, agents that joined or left the cost frontier",
        [cost_line(r, markdown=True) for r in report["agents"] if cost_changed(r)],
    )
    lines += _md_list("Agents added", [_agent_brief(a, "rank") for a in report["agents_added"]])
    lines += _md_list("Agents gone", [_agent_brief(a, "was rank") for a in report["agents_gone"]])
    lines += _md_list(
        "Agents renamed (old links redirect)",
        [f"{md(a['old_name'])} → {md(a['name'])}" for a in report["agents_renamed"]],
    )
    m = report["missions"]
    lines += _md_list(
        "New mission versions",
        [
            f"{md(x['mission'])} {md(x['version'])}{' (current)' if x['current'] else ' (older)'}: {n_runs(x['runs'])}"
            for x in m["added"]
        ],
    )
    lines += _md_list(
        "Runs that became older (summarised apart, out of the headline)",
        [
            f"{md(x['mission'])} {md(x['version'])}: {n_runs(x['runs'])}"
            + (f"; current is now {md(x['current'])}" if x["current"] else "")
            for x in m["became_older"]
        ],
    )
    lines += _md_list(
        "Mission versions gone", [f"{md(x['mission'])} {md(x['version'])}: had {n_runs(x['runs'])}" for x in m["gone"]]
    )
    lines += _md_list(
        "New runs by mission version",
        [
            f"{md(x['mission'])} {md(x['version'])}{'' if x['current'] else ' (older)'}: "
            f"{count_delta(x['new_runs'])} ({x['runs']} in all)"
            for x in m["runs"]
        ],
    )
    lines += _md_list(
        "New runs by agent and mission version",
        [
            f"{md(x['name'])} on {md(x['mission'])} {md(x['version'])}: {count_delta(x['new_runs'])}"
            for x in report["new_runs"]
        ],
    )
    if gates:
        lines += _md_list("Gates", [gate_line(g, markdown=True) for g in gates])
    return "\n".join(lines).rstrip("\n") + "\n"


def moving_now(row: dict) -> str:
    """A change report row's headline progress verdict at that publish, as its agents table says it: "▼ regressed
    since a new model", "one configuration so far"; "" for a summary without verdicts."""
    p = row.get("progress")
    if not p:
        return ""
    since = _since(p)
    return (verdict_label(p["verdict"]) or ONE_CONFIGURATION) + (f" since {' and '.join(since)}" if since else "")


def _since(p: dict) -> list[str]:
    """What changed at the newest step, as a change report may name it (numbers only, never agent-written names)."""
    since = []
    for name in p["changed"]:
        if name == "agent_version":
            since.append(f"agent v{p['agent_version']}" if p["agent_version"] is not None else "a new agent version")
        elif name == "budget_seconds":
            budget = p["budget_seconds"]
            since.append(f"budget {seconds(budget)}" if budget is not None else "a new budget")
        else:
            since.append("a new model" if name == "model" else "a new judge model")
    return since


def progress_line(row: dict, *, markdown: bool = False, named: bool = True) -> str:
    """ "kestrel: ? unclear → ▲ improved since agent v4" (what changed: the new agent version and budget as
    numbers; a new model or judge model is only said to be new, its name being agent-written text)."""
    p = row["progress"]
    since = _since(p)
    before, now = (verdict_label(v) or ONE_CONFIGURATION for v in (p["old_verdict"], p["verdict"]))
    verdicts = f"{before} → {now}"
    text = verdicts + (f" since {' and '.join(since)}" if since else "")
    return f"{md(row['name']) if markdown else row['name']}: {text}" if named else text


def cost_line(row: dict, *, markdown: bool = False, named: bool = True) -> str:
    """An agent's cost change (docs/rules/cost.md §6): its tokens verdict that changed ("tokens: ? unclear → ↓
    cheaper"), and its frontier move; named or not."""
    parts = []
    if tokens_changed(row):
        cost = row["cost"]
        before, now = (
            verdict_label(v) or ONE_CONFIGURATION for v in (cost["old_tokens_verdict"], cost["tokens_verdict"])
        )
        parts.append(f"tokens {before} → {now}")
    if frontier_changed(row):
        parts.append(frontier_line(row, named=False))
    text = "; ".join(parts)
    return f"{md(row['name']) if markdown else row['name']}: {text}" if named else text


def frontier_line(row: dict, *, markdown: bool = False, named: bool = True) -> str:
    """ "kestrel joined the cost frontier: 32.4k tokens a run (was 40.1k), median 87.5%" (docs/rules/cost.md §3)."""
    cost = row["cost"]
    moved = "joined" if cost["frontier"] else "left"
    was = f" (was {tokens(cost['old_median_tokens'])})" if cost["old_median_tokens"] != cost["median_tokens"] else ""
    text = f"{moved} the cost frontier: {tokens(cost['median_tokens'])} tokens a run{was}, median {pct(row['median'])}"
    return f"{md(row['name']) if markdown else row['name']} {text}" if named else text


def _agent_brief(a: dict, rank: str) -> str:
    """An agent added or gone: "osprey: rank 2 (provisional), median 81.0%, 4 runs"."""
    mark = " (provisional)" if a.get("provisional") else ""
    return f"{md(a['name'])}: {rank} {a['rank']}{mark}, median {pct(a['median'])}, {n_runs(a['runs'])}"


def change_headline(report: dict) -> str:
    """One line for a change report: names, counts and numbers only."""
    t = report["totals"]
    parts = [f"{count_delta(t['runs'])} runs"]
    for n, word in (
        (len(report["agents_added"]), "added"),
        (len(report["agents_gone"]), "gone"),
        (t["moved"], "moved in rank"),
    ):
        if n:
            parts.append(f"{counted(n, 'agent')} {word}")
    verdicts = sum(1 for r in report["agents"] if progress_changed(r))
    if verdicts:
        parts.append(f"{counted(verdicts, 'progress verdict')} changed")
    tokens = sum(1 for r in report["agents"] if tokens_changed(r))
    if tokens:
        parts.append(f"{counted(tokens, 'cost verdict')} changed")
    frontier = sum(1 for r in report["agents"] if frontier_changed(r))
    if frontier:
        parts.append(f"{counted(frontier, 'agent')} joined or left the cost frontier")
    if report["missions"]["added"]:
        parts.append(f"{len(report['missions']['added'])} new mission version(s)")
    if t["left_out"]:
        parts.append(left_out_text(t["left_out"]))
    return " · ".join(parts)


def _md_list(heading: str, items: list[str]) -> list[str]:
    return [f"**{heading}**", ""] + [f"- {item}" for item in items] + [""] if items else []


def gate_line(g: dict, *, markdown: bool = False) -> str:
    name = md(g["name"]) if markdown else g["name"]
    spec = md(g["gate"]) if markdown else g["gate"]
    mark = ("❌ " if g["tripped"] else "✅ ") if markdown else ("FAILED " if g["tripped"] else "ok ")
    limit = f"more than {g['limit']:g} pp allowed" if g["tripped"] else f"at most {g['limit']:g} pp allowed"
    reason = {
        "gone": "is gone from the new summary",
        "no_median": f"has no median any more (was {pct(g['old_median'])})",
        "no_median_before": "had no median before: nothing to compare",
    }.get(g["reason"])
    if reason is None:
        reason = f"median {pct(g['old_median'])} → {pct(g['median'])} ({pp_delta(g['delta'])}; {limit})"
    return f"{mark}{spec}: {name} {reason}"
