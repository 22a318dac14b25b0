"""What changed between two published summary bundles (``podium diff``, the change report).

Pure apart from :func:`load_bundle`: two ``summary.json`` documents in, one report
(a JSON-ready dict) out, then Markdown for a pull-request comment or job summary.
The report holds names, ids, versions, kinds and numbers only: no free text an
agent or a judge wrote ever reaches it. The numbers it adds (rank moves, median
changes, run deltas) are differences of the two bundles' published figures.

A median move is "inside both intervals" when the new median lies inside the old
95% CI and the old median inside the new one: the two bundles do not disagree,
so the move is not evidence of a change.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from podium import routes
from podium.errors import PodiumError
from podium.load.files import NotReadable
from podium.load.published import REPORT_SCHEMA, SUMMARY_SCHEMA, read
from podium.load.shape import (
    ANY,
    BOOL,
    CI,
    COUNT,
    DIGEST,
    INT,
    NUMBER,
    PAIR,
    SCORE,
    TEXT,
    TIME_TEXT,
    URL,
    Either,
    Map,
    Maybe,
    Misfit,
    OneOf,
    Opt,
    capped,
    pick,
)
from podium.model import COUNTED_KINDS, KIND_LABELS, MEDIAN_KINDS, Leaderboard, provisional
from podium.numbers import DASH, NO_CI, ci_range, pct

SUMMARY_IN_SITE = Path(routes.SUMMARY_JSON)
LEFT_OUT = tuple(kind for kind in COUNTED_KINDS if kind not in MEDIAN_KINDS)
LEFT_OUT_LABEL = {kind: KIND_LABELS[kind].lower() for kind in LEFT_OUT}
ANY_AGENT = "*"


class BundleError(PodiumError):
    """An input is not a readable podium summary; the message names the file and the field (exit 2)."""


# ------------------------------------------------------------------ reading


@dataclass(frozen=True)
class AgentView:
    agent: str
    name: str
    slug: str
    url: str | None
    rank: int | None
    median: float | None
    ci: tuple[float, float] | None
    runs: int
    in_median: int
    counts: dict[str, int]
    cells: dict[tuple[str, str], int]  # (mission, version) -> runs


@dataclass(frozen=True)
class MissionView:
    mission: str
    version: str
    current: bool
    url: str | None
    runs: int


@dataclass(frozen=True)
class Bundle:
    source: str
    runs: int
    not_a_run: int
    counts: dict[str, int]
    agents: dict[str, AgentView]  # current scope, in rank order
    older: dict[str, AgentView]
    missions: dict[tuple[str, str], MissionView]
    problems: int
    digest: str | None
    newest: str | None  # the newest run time in the bundle (ISO-8601 UTC)


def _agent_shape(ranked: bool) -> dict:
    return {
        "agent": TEXT, "name": TEXT, "slug": Maybe(TEXT, ""), "url": Maybe(Opt(TEXT), None),
        **({"rank": COUNT} if ranked else {}),
        "median": Maybe(Opt(SCORE), None), "median_ci": Maybe(Opt(CI), None),
        "runs": COUNT, "in_median": COUNT, "counts": Map(COUNT),
        "missions": Maybe([{"mission": TEXT, "version": TEXT, "runs": COUNT}], []),
        "last_run": Maybe(Opt(TIME_TEXT), None),
    }


SUMMARY_SHAPE = {  # what podium reads of a summary.json (summary.schema.json describes all of it)
    "schema": OneOf({SUMMARY_SCHEMA}, "a podium summary"),
    "totals": {"runs": COUNT, "not_a_run": Maybe(COUNT, 0), "counts": Map(COUNT)},
    "agents": [_agent_shape(ranked=True)],
    "agents_older": Maybe([_agent_shape(ranked=False)], []),
    "missions": [{"mission": TEXT, "version": TEXT, "current": BOOL, "url": Maybe(Opt(TEXT), None), "runs": COUNT}],
    "problems": Maybe([ANY], []),  # counted only
    "source": Maybe(Either({"inputs_digest": Maybe(Either(DIGEST, None), None)}, None), None),
}


def summary_path(path: Path) -> Path:
    """A summary.json path, or a built site directory's ``api/results/summary.json``."""
    return path / SUMMARY_IN_SITE if path.is_dir() else path


def load_bundle(path: Path) -> Bundle:
    """Read (load/published.py) and check one summary bundle; a BundleError names the file and the field."""
    file = summary_path(path)
    where = str(file)
    try:
        data = read(file)
    except FileNotFoundError:
        hint = " (not a built podium site?)" if path.is_dir() else ""
        raise BundleError(f"{where}: file not found{hint}") from None
    except NotReadable as err:
        raise BundleError(f"{where}: {err}; not a podium summary") from None
    return bundle_from(data, where)


def bundle_from(data: object, where: str) -> Bundle:
    """A summary read back: checked against SUMMARY_SHAPE (names cleaned and capped), each agent and
    mission version listed once."""
    try:
        top = pick(data, SUMMARY_SHAPE)
    except Misfit as err:
        raise BundleError(f"{where}: {err}") from None
    agents = _unique([_agent_view(a, ranked=True) for a in top["agents"]], "agents", where)
    older = _unique([_agent_view(a, ranked=False) for a in top["agents_older"]], "agents_older", where)
    missions: dict[tuple[str, str], MissionView] = {}
    for i, m in enumerate(top["missions"]):
        view = MissionView(m["mission"], m["version"], m["current"], m["url"], m["runs"])
        if (view.mission, view.version) in missions:
            raise BundleError(f"{where}: missions[{i}]: mission version {view.mission!r} {view.version!r} "
                              "is listed twice")
        missions[(view.mission, view.version)] = view
    last = [a["last_run"] for scope in ("agents", "agents_older") for a in top[scope]]
    totals = top["totals"]
    return Bundle(
        source=where,
        runs=totals["runs"],
        not_a_run=totals["not_a_run"],
        counts=totals["counts"],
        agents=agents,
        older=older,
        missions=missions,
        problems=len(top["problems"]),
        digest=(top["source"] or {}).get("inputs_digest"),
        newest=max((t for t in last if t), default=None),
    )


def _agent_view(a: dict, *, ranked: bool) -> AgentView:
    cells: dict[tuple[str, str], int] = {}
    for m in a["missions"]:
        cells[(m["mission"], m["version"])] = cells.get((m["mission"], m["version"]), 0) + m["runs"]
    return AgentView(agent=a["agent"], name=a["name"], slug=a["slug"], url=a["url"],
                     rank=a["rank"] if ranked else None, median=a["median"], ci=a["median_ci"], runs=a["runs"],
                     in_median=a["in_median"], counts=a["counts"], cells=cells)


def _unique(agents: list[AgentView], name: str, where: str) -> dict[str, AgentView]:
    out: dict[str, AgentView] = {}
    for i, a in enumerate(agents):
        if a.agent in out:
            raise BundleError(f"{where}: {name}[{i}].agent: agent {a.agent!r} is listed twice")
        out[a.agent] = a
    return out


def bundle_of(board: Leaderboard, where: str = "the new summary") -> Bundle:
    """The bundle of a board this build counted, taken from it directly: what :func:`bundle_from` reads
    of the summary.json written for it (names capped as a read-back name is)."""
    def view(agent, ranked: bool) -> AgentView:
        fig = agent.figures
        cells: dict[tuple[str, str], int] = {}
        for m in agent.missions:
            key = (capped(m.mission), capped(m.version))
            cells[key] = cells.get(key, 0) + m.figures.runs
        return AgentView(agent=capped(agent.agent), name=capped(agent.name), slug=capped(agent.slug),
                         url=capped(agent.url) if agent.url is not None else None,
                         rank=agent.rank if ranked else None,
                         median=float(fig.median) if fig.median is not None else None,
                         ci=(float(fig.median_ci[0]), float(fig.median_ci[1])) if fig.median_ci else None,
                         runs=fig.runs,
                         in_median=fig.in_median, counts=dict(fig.counts), cells=cells)

    agents = {v.agent: v for v in (view(a, True) for a in board.agents)}
    older = {v.agent: v for v in (view(a, False) for a in board.agents_older)}
    missions = {(v.mission, v.version): v for v in (
        MissionView(capped(m.mission), capped(m.version), m.current, capped(m.url) if m.url is not None else None,
                    m.figures.runs) for m in board.missions)}
    last = [a.figures.last_run for a in board.agents + board.agents_older]
    digest = board.inputs_digest
    return Bundle(source=where, runs=board.totals.runs, not_a_run=board.totals.not_a_run,
                  counts=dict(board.totals.counts), agents=agents, older=older, missions=missions,
                  problems=len(board.problems), digest=digest if DIGEST.test(digest) else None,
                  newest=max((t for t in last if t), default=None))


# ------------------------------------------------------------------ comparing


def compare(old: Bundle, new: Bundle) -> dict:
    """The change report: every difference between ``old`` and ``new`` (JSON-ready, keys sorted on output)."""
    agents = [_agent_row(old, new, a) for a in new.agents.values()]
    added = [_agent_brief(a) for a in new.agents.values() if a.agent not in old.agents]
    gone = [_agent_brief(a) for a in old.agents.values() if a.agent not in new.agents]
    renamed = [{"agent": a.agent, "old_name": old.agents[a.agent].name, "name": a.name}
               for a in new.agents.values() if a.agent in old.agents and old.agents[a.agent].name != a.name]
    report = {
        "schema": REPORT_SCHEMA,
        "old": _side(old),
        "new": _side(new),
        "totals": {
            "runs": new.runs - old.runs,
            "not_a_run": new.not_a_run - old.not_a_run,
            "problems": new.problems - old.problems,
            "left_out": _left_out_delta(old.counts, new.counts),
        },
        "agents": agents,
        "agents_added": added,
        "agents_gone": gone,
        "agents_renamed": renamed,
        "missions": _missions(old, new),
        "new_runs": _cell_runs(old, new),
    }
    report["changed"] = _changed(report)
    return report


def _side(b: Bundle) -> dict:
    return {"runs": b.runs, "agents": len(b.agents), "mission_versions": len(b.missions), "digest": b.digest,
            "newest_run": b.newest}


def _agent_brief(a: AgentView) -> dict:
    return {"agent": a.agent, "name": a.name, "url": a.url, "rank": a.rank, "median": a.median, "runs": a.runs,
            "provisional": provisional(a.in_median)}


def _all_runs(b: Bundle, agent: str) -> tuple[int, dict[str, int]]:
    """An agent's runs and counts over both scopes (runs move between them when a version goes old)."""
    views = [v for v in (b.agents.get(agent), b.older.get(agent)) if v is not None]
    counts: dict[str, int] = {}
    for v in views:
        for kind, n in v.counts.items():
            counts[kind] = counts.get(kind, 0) + n
    return sum(v.runs for v in views), counts


def _agent_row(old: Bundle, new: Bundle, a: AgentView) -> dict:
    before = old.agents.get(a.agent)
    runs_new, counts_new = _all_runs(new, a.agent)
    runs_old, counts_old = _all_runs(old, a.agent)
    row = {
        "agent": a.agent, "name": a.name, "url": a.url,
        "rank": a.rank, "old_rank": before.rank if before else None,
        "median": a.median, "old_median": before.median if before else None,
        "ci": list(a.ci) if a.ci else None, "old_ci": list(before.ci) if before and before.ci else None,
        "in_median": a.in_median, "old_in_median": before.in_median if before else None,
        "provisional": provisional(a.in_median),  # site.md "Ranks on few runs" (from in_median: old summaries too)
        "new_runs": runs_new - runs_old,
        "left_out": _left_out_delta(counts_old, counts_new),
        "is_new": before is None,
    }
    row["delta"] = (a.median - before.median) if before and a.median is not None and before.median is not None \
        else None
    row["verdict"] = _verdict(before, a)
    return row


def _verdict(before: AgentView | None, after: AgentView) -> str:
    """new / unchanged / no_median / no_ci / inside_both_cis / outside_a_ci."""
    if before is None:
        return "new"
    if before.median is None or after.median is None:
        return "unchanged" if before.median == after.median else "no_median"
    if before.median == after.median:
        return "unchanged"
    if before.ci is None or after.ci is None:
        return "no_ci"
    inside = before.ci[0] <= after.median <= before.ci[1] and after.ci[0] <= before.median <= after.ci[1]
    return "inside_both_cis" if inside else "outside_a_ci"


def _left_out_delta(old: dict[str, int], new: dict[str, int]) -> dict[str, int]:
    return {k: new.get(k, 0) - old.get(k, 0) for k in LEFT_OUT if new.get(k, 0) != old.get(k, 0)}


def _missions(old: Bundle, new: Bundle) -> dict:
    current_now = {m.mission: m.version for m in new.missions.values() if m.current}
    added = [{"mission": m.mission, "version": m.version, "current": m.current, "url": m.url, "runs": m.runs}
             for key, m in new.missions.items() if key not in old.missions]
    gone = [{"mission": m.mission, "version": m.version, "runs": m.runs}
            for key, m in old.missions.items() if key not in new.missions]
    older = [{"mission": m.mission, "version": m.version, "url": m.url, "runs": m.runs,
              "current": current_now.get(m.mission)}
             for key, m in new.missions.items()
             if key in old.missions and old.missions[key].current and not m.current]
    runs = [{"mission": m.mission, "version": m.version, "url": m.url, "current": m.current,
             "runs": m.runs, "new_runs": m.runs - (old.missions[key].runs if key in old.missions else 0)}
            for key, m in new.missions.items()
            if m.runs != (old.missions[key].runs if key in old.missions else 0)]
    return {"added": added, "gone": gone, "became_older": older, "runs": runs}


def _cell_runs(old: Bundle, new: Bundle) -> list[dict]:
    """Runs gained or lost per agent on each mission version (both scopes)."""
    def cells(b: Bundle) -> dict[tuple[str, str, str], tuple[str, int]]:
        out: dict[tuple[str, str, str], tuple[str, int]] = {}
        for scope in (b.agents, b.older):
            for a in scope.values():
                for (mission, version), n in a.cells.items():
                    name, had = out.get((a.agent, mission, version), (a.name, 0))
                    out[(a.agent, mission, version)] = (name, had + n)
        return out

    before, after = cells(old), cells(new)
    order = {a: i for i, a in enumerate(list(new.agents) + list(new.older) + list(old.agents) + list(old.older))}
    rows = []
    for key in sorted(set(after) | set(before), key=lambda k: (order.get(k[0], len(order)), k)):
        name, n = after.get(key) or (before[key][0], 0)
        delta = n - before.get(key, ("", 0))[1]
        if delta:
            rows.append({"agent": key[0], "name": name, "mission": key[1], "version": key[2], "new_runs": delta})
    return rows


def _changed(report: dict) -> bool:
    t = report["totals"]
    m = report["missions"]
    return bool(t["runs"] or t["not_a_run"] or t["left_out"] or report["agents_added"] or report["agents_gone"]
                or report["agents_renamed"] or m["added"] or m["gone"] or m["became_older"] or m["runs"]
                or report["new_runs"]
                or any(r["rank"] != r["old_rank"] or r["verdict"] not in ("unchanged", "new")
                       for r in report["agents"]))


VERDICTS = {  # a row's verdict (compare: _verdict) -> how the Markdown reads it
    "new": "new",
    "unchanged": "same median",
    "no_median": "median appeared or vanished",
    "no_ci": NO_CI,
    "inside_both_cis": "inside both CIs: not evidence of a change",
    "outside_a_ci": "outside a CI",
}
_LEFT_OUT = Map(INT, frozenset(LEFT_OUT))
_AGENT_BRIEF = {"agent": TEXT, "name": TEXT, "url": Maybe(Opt(URL)), "rank": Opt(INT), "median": Opt(NUMBER),
                "runs": INT, "provisional": Maybe(BOOL)}
_VERSION = {"mission": TEXT, "version": TEXT}
_SIDE = {"runs": INT, "agents": INT, "mission_versions": Maybe(INT), "digest": Maybe(Opt(DIGEST)),
         "newest_run": Maybe(Opt(TIME_TEXT))}
# The change report, as compare() makes it and changes.json carries it: publish.py reads it back with this
# shape (a key marked Maybe may be missing from a report an older podium wrote).
REPORT_SHAPE = {
    "schema": OneOf({REPORT_SCHEMA}), "changed": BOOL, "old": _SIDE, "new": _SIDE,
    "totals": {"runs": INT, "not_a_run": INT, "problems": INT, "left_out": _LEFT_OUT},
    "agents": [{"agent": TEXT, "name": TEXT, "url": Maybe(Opt(URL)), "rank": INT, "old_rank": Opt(INT),
                "median": Opt(NUMBER), "old_median": Opt(NUMBER), "delta": Opt(NUMBER), "ci": Opt(PAIR),
                "old_ci": Opt(PAIR), "in_median": Maybe(INT), "old_in_median": Maybe(Opt(INT)), "new_runs": INT,
                "left_out": _LEFT_OUT, "is_new": BOOL, "verdict": OneOf(VERDICTS), "provisional": Maybe(BOOL)}],
    "agents_added": [_AGENT_BRIEF],
    "agents_gone": [_AGENT_BRIEF],
    "agents_renamed": [{"agent": TEXT, "old_name": TEXT, "name": TEXT}],
    "missions": {"added": [{**_VERSION, "current": BOOL, "url": Maybe(Opt(URL)), "runs": INT}],
                 "gone": [{**_VERSION, "runs": INT}],
                 "became_older": [{**_VERSION, "url": Maybe(Opt(URL)), "runs": INT, "current": Opt(TEXT)}],
                 "runs": [{**_VERSION, "url": Maybe(Opt(URL)), "current": BOOL, "runs": INT, "new_runs": INT}]},
    "new_runs": [{**_VERSION, "agent": TEXT, "name": TEXT, "new_runs": INT}],
}


# ------------------------------------------------------------------ gates


@dataclass(frozen=True)
class Gate:
    """``--fail-on-drop AGENT=PP``: trip when AGENT's median drops by more than PP points."""

    agent: str  # id, slug or name; "*" for every agent
    points: float

    @classmethod
    def parse(cls, text: str) -> Gate:
        agent, sep, limit = text.rpartition("=")
        try:
            points = float(limit)
        except ValueError:
            points = math.nan
        if not sep or not agent or not math.isfinite(points) or points < 0:
            raise PodiumError(f"--fail-on-drop {text!r}: expected AGENT=PP (PP: percentage points >= 0, "
                              f"AGENT: an agent's id, slug or name, or * for every agent)")
        return cls(agent, points)


def check_gates(old: Bundle, new: Bundle, gates: list[Gate]) -> list[dict]:
    """One result per gate and agent it covers: ``tripped`` and why, in numbers.

    A drop is compared in percentage points rounded to 1e-9, so a drop of exactly PP does not trip.
    A named agent that lost its median, or is gone, trips; ``*`` covers agents with a median before
    that are still listed. A named agent in neither bundle is a usage error (a typo must not pass).
    """
    results = []
    for gate in gates:
        if gate.agent == ANY_AGENT:
            targets = [a for a in old.agents.values() if a.median is not None and a.agent in new.agents]
        else:
            targets = _match(gate.agent, old, new)
        for before in targets:
            after = new.agents.get(before.agent)
            result = {"gate": f"{gate.agent}={gate.points:g}", "agent": before.agent,
                      "name": after.name if after else before.name, "limit": gate.points,
                      "old_median": before.median, "median": after.median if after else None, "drop": None}
            if before.median is None:
                result.update(tripped=False, reason="no_median_before")
            elif after is None:
                result.update(tripped=True, reason="gone")
            elif after.median is None:
                result.update(tripped=True, reason="no_median")
            else:
                drop = round((before.median - after.median) * 100, 9)
                result.update(drop=drop, tripped=drop > gate.points, reason="dropped" if drop > gate.points else "ok")
            results.append(result)
    return results


def _match(wanted: str, old: Bundle, new: Bundle) -> list[AgentView]:
    """The agent ``wanted`` names (id, then slug, then name, then case-folded name), as it was in ``old``."""
    pool = {**{a.agent: a for a in new.agents.values()}, **old.agents}
    for test in (lambda a: a.agent == wanted, lambda a: a.slug == wanted, lambda a: a.name == wanted,
                 lambda a: a.name.casefold() == wanted.casefold()):
        found = [a for a in pool.values() if test(a)]
        if len(found) > 1:
            raise PodiumError(f"--fail-on-drop {wanted!r}: names more than one agent "
                              f"({', '.join(a.agent for a in found)}); pass its id")
        if found:
            a = found[0]
            return [old.agents[a.agent]] if a.agent in old.agents else []  # new agents have nothing to drop from
    raise PodiumError(f"--fail-on-drop {wanted!r}: no such agent in either summary")


# ------------------------------------------------------------------ Markdown

_MD_SPECIAL = set("\\`*_[]<>#!|~@&$:")


def md(text: object) -> str:
    """Text for Markdown: punctuation backslash-escaped, control characters shown as U+FFFD.

    No name can open a link, an image, HTML, a table cell or an @-mention.
    """
    out = []
    text = re.sub(r"(?i)(?<=www)\.", "\x00", str(text))  # no www. autolink
    for ch in text:
        if ch == "\x00":
            out.append("\\.")
            continue
        if ch in _MD_SPECIAL:
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or 0x7f <= ord(ch) < 0xa0 or ch in "\u2028\u2029":
            out.append("\ufffd")
        else:
            out.append(ch)
    return "".join(out)


def pp_delta(value: float | None) -> str:
    """A signed change in percentage points: +3.2 pp, −0.4 pp, ±0.0 pp; "—" for None."""
    if value is None:
        return DASH
    points = round(value * 100, 1)
    if points == 0:
        return "±0.0 pp"
    return f"{'+' if points > 0 else '−'}{abs(points):.1f} pp"


def n_runs(n: int) -> str:
    return f"{n} run{'' if n == 1 else 's'}"


def count_delta(value: int) -> str:
    """+3, −2, 0."""
    return f"+{value}" if value > 0 else (f"−{-value}" if value < 0 else "0")


def rank_move(old: int | None, new: int | None) -> str:
    if old is None:
        return "new"
    if new is None or old == new:
        return ""
    return f"▲{old - new}" if new < old else f"▼{new - old}"


def left_out_text(delta: dict[str, int]) -> str:
    return ", ".join(f"{count_delta(n)} {LEFT_OUT_LABEL.get(k, k)}" for k, n in delta.items())


def to_markdown(report: dict, gates: list[dict] | None = None, title: str = "podium: what changed") -> str:
    """The report as GitHub-flavoured Markdown (a PR comment, a chat message, a job summary)."""
    t, old, new = report["totals"], report["old"], report["new"]
    lines = [f"### {title}", ""]
    head = f"**{n_runs(new['runs'])}** ({count_delta(t['runs'])} since the previous summary) · " \
           f"{new['agents']} agents ({count_delta(new['agents'] - old['agents'])})"
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
        lines += ["| rank | agent | median | change | 95% CI before → now | reading | new runs |",
                  "|---:|---|---:|---:|---|---|---|"]
        for r in report["agents"]:
            move = rank_move(r["old_rank"], r["rank"])
            runs = count_delta(r["new_runs"])
            if r["left_out"]:
                runs += f" ({left_out_text(r['left_out'])})"
            cis = DASH if r["is_new"] else f"{ci_range(r['old_ci'])} → {ci_range(r['ci'])}"
            mark = " provisional" if r.get("provisional") else ""
            lines.append(f"| {r['rank']}{mark}{' ' + move if move else ''} | {md(r['name'])} | {pct(r['median'])} | "
                         f"{pp_delta(r['delta'])} | {cis} | {VERDICTS[r['verdict']]} | {runs} |")
        lines.append("")
    lines += _md_list("Agents added", [
        f"{md(a['name'])}: rank {a['rank']}{' (provisional)' if a.get('provisional') else ''}, "
        f"median {pct(a['median'])}, {n_runs(a['runs'])}"
        for a in report["agents_added"]])
    lines += _md_list("Agents gone", [
        f"{md(a['name'])}: was rank {a['rank']}{' (provisional)' if a.get('provisional') else ''}, "
        f"median {pct(a['median'])}, {n_runs(a['runs'])}"
        for a in report["agents_gone"]])
    lines += _md_list("Agents renamed (old links redirect)", [
        f"{md(a['old_name'])} → {md(a['name'])}" for a in report["agents_renamed"]])
    m = report["missions"]
    lines += _md_list("New mission versions", [
        f"{md(x['mission'])} {md(x['version'])}{' (current)' if x['current'] else ' (older)'}: {n_runs(x['runs'])}"
        for x in m["added"]])
    lines += _md_list("Runs that became older (summarised apart, out of the headline)", [
        f"{md(x['mission'])} {md(x['version'])}: {n_runs(x['runs'])}"
        + (f"; current is now {md(x['current'])}" if x["current"] else "") for x in m["became_older"]])
    lines += _md_list("Mission versions gone", [
        f"{md(x['mission'])} {md(x['version'])}: had {n_runs(x['runs'])}" for x in m["gone"]])
    lines += _md_list("New runs by mission version", [
        f"{md(x['mission'])} {md(x['version'])}{'' if x['current'] else ' (older)'}: "
        f"{count_delta(x['new_runs'])} ({x['runs']} in all)"
        for x in m["runs"]])
    lines += _md_list("New runs by agent and mission version", [
        f"{md(x['name'])} on {md(x['mission'])} {md(x['version'])}: {count_delta(x['new_runs'])}"
        for x in report["new_runs"]])
    if gates:
        lines += _md_list("Gates", [gate_line(g, markdown=True) for g in gates])
    return "\n".join(lines).rstrip("\n") + "\n"


def headline(report: dict) -> str:
    """One line for a change report: names, counts and numbers only."""
    t = report["totals"]
    parts = [f"{count_delta(t['runs'])} runs"]
    moved = sum(1 for a in report["agents"] if a["old_rank"] is not None and a["old_rank"] != a["rank"])
    for n, word in ((len(report["agents_added"]), "added"), (len(report["agents_gone"]), "gone"),
                    (moved, "moved in rank")):
        if n:
            parts.append(f"{n} agent{'s' if n != 1 else ''} {word}")
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
        reason = f"median {pct(g['old_median'])} → {pct(g['median'])} ({pp_delta(g['median'] - g['old_median'])}; " \
                 f"{limit})"
    return f"{mark}{spec}: {name} {reason}"


def diff_files(old_path: Path, new_path: Path, gate_specs: list[str] = ()) -> tuple[dict, list[dict]]:
    """Load, compare and gate (the ``podium diff`` command without its printing)."""
    gates = [Gate.parse(s) for s in gate_specs]
    old, new = load_bundle(old_path), load_bundle(new_path)
    return compare(old, new), check_gates(old, new, gates)
