"""The extras carried from build to build: the change report pages, the Atom feed, README badges and rename redirects.

Planned like every other output (pages = template + context, data files as bytes)
and handed to the plan in two ways: ``pages`` and ``nav`` go through plan/site.py (so
they get the common page context), ``apply`` adds the rest to the plan's outputs
and gives each agent page its badge snippet.

Carried from build to build (``podium build --previous PREV``, PREV a summary.json
or the site directory holding ``api/results/summary.json``): beside the previous
summary, ``changes.json`` holds the last few change reports and ``redirects.json``
the old paths that still redirect. Both are read back only as names, ids, kinds
and numbers, checked field by field; a file that does not check out is ignored
with a warning (the history starts again), never published as it is. Each is read
only as a regular file (no symlink, FIFO or device) of bounded size, as strict JSON
(load/published.py); only the keys podium writes are carried (load/shape.py ``pick``: the
change report's shape is diff.REPORT_SHAPE), names cleaned and capped, and
at most MAX_REDIRECTS redirects.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from podium import routes
from podium.count import diff
from podium.count.bundle import Bundle, BundleTooLarge, bundle_of, load_bundle, summary_path
from podium.count.diff import cost_changed, progress_changed
from podium.errors import BuildError
from podium.load.files import NotReadable
from podium.load.published import CHANGES_SCHEMA, REDIRECTS_SCHEMA, read
from podium.load.shape import INT, TEXT, TIME_TEXT, URL, Misfit, OneOf, Opt, pick
from podium.model import PROVISIONAL_BELOW, Leaderboard, RunRecord, iso_utc
from podium.plan.contexts import (
    BadgeContext,
    BadgeSnippet,
    ChangeEntry,
    ChangeLinks,
    ChangesContext,
    FeedContext,
    FeedEntry,
    RedirectContext,
    names,
)
from podium.plan.entries import Blob, Entry, Page
from podium.render import data
from podium.render.badge import LABEL, badge
from podium.words.diff_text import cost_line, headline, progress_line
from podium.words.figures_text import ci_range, median_line, pct, provisional_note

KEEP_REPORTS = 10  # change reports kept (pages, changes.json, feed)
FEED_RUNS = 50  # newest runs in the feed
EPOCH = "1970-01-01T00:00:00Z"
_OLD_PATH = re.compile(r"^(?:agents/[a-z0-9-]{1,80}|missions/[a-z0-9-]{1,80}/[a-z0-9][a-z0-9.-]{0,80})/index\.html$")


@dataclass
class Publishing:
    pages: tuple[Page, ...] = ()  # pages that need the common context (plan/site.py adds it)
    nav: tuple[tuple[str, str], ...] = ()  # (title, path) added to the site nav
    files: dict[str, Page | bytes] = field(default_factory=dict)  # standalone outputs
    badges: dict[str, BadgeSnippet] = field(default_factory=dict)  # agent page path -> its badge snippet
    warnings: list[str] = field(default_factory=list)

    def apply(self, manifest: list[Entry]) -> list[Entry]:
        """Add the standalone files to the plan's manifest and the badge snippet to each agent page."""
        at = {entry.path: i for i, entry in enumerate(manifest)}
        for page in self.pages:
            got = manifest[at[page.path]] if page.path in at else None
            if not isinstance(got, Page) or got.template != page.template:
                raise BuildError(f"{page.path}: a content page takes the path of the change report; rename it")
        taken = {p.lower() for p in at}
        for path, item in self.files.items():
            if path.lower() in taken:
                raise BuildError(f"{path}: two outputs would be written there; rename the content page")
            manifest.append(item if isinstance(item, Page) else Blob(path, item))
        for path, snippet in self.badges.items():
            agent_page = manifest[at[path]] if path in at else None
            if isinstance(agent_page, Page):
                manifest[at[path]] = replace(agent_page, context={**agent_page.context, "badge": snippet})
        return manifest


def prepare(
    board: Leaderboard, title: str, base_url: str, generated_at: int | None, previous: Path | None
) -> Publishing:
    """Everything this module adds to the site for ``board`` (reading ``previous`` when given)."""
    base = base_url.rstrip("/")
    pub = Publishing()
    pub.files.update(_badges(board, title, base, pub))
    reports: list[dict] = []
    if previous is not None:
        old = _previous(previous, pub.warnings)
        folder = summary_path(previous).parent
        reports = _history(folder / "changes.json", pub.warnings)
        if old is not None and (report := diff.compare(old, new := bundle_of(board)))["changed"]:
            number = max((r["number"] for r in reports), default=0) + 1
            when = (
                iso_utc(datetime.fromtimestamp(generated_at, UTC))
                if generated_at is not None
                else new.newest or old.newest or EPOCH
            )
            reports.insert(0, {"number": number, "updated": when, "report": report})
        reports = reports[:KEEP_REPORTS]
        pub.files[routes.CHANGES_JSON] = data.dump_json({"schema": CHANGES_SCHEMA, "reports": reports})
        pub.pages = tuple(_change_pages(board, reports))
        pub.nav = (("Changes", routes.CHANGES_INDEX),)
        redirects = _redirects(board, old, _carried(folder / "redirects.json", pub.warnings))  # old None: carried only
        pub.files[routes.REDIRECTS_JSON] = data.dump_json(
            {"schema": REDIRECTS_SCHEMA, "redirects": [r["entry"] for r in redirects]}
        )
        for r in redirects:
            pub.files[r["from"]] = Page(
                r["from"],
                "redirect.html",
                names(
                    RedirectContext(
                        target=routes.relative(r["from"], r["to"]),
                        canonical=f"{base}/{routes.permalink(r['to'])}" if base else None,
                        name=r["name"],
                        site_title=title,
                        feed=routes.relative(r["from"], routes.FEED) if base else None,
                    )
                ),
            )
    if base:
        pub.files[routes.FEED] = Page(routes.FEED, "feed.xml", names(_feed(board, reports, title, base, generated_at)))
    else:
        pub.warnings.append("no base_url in podium.yaml: feed.xml (Atom needs absolute links) was left out")
    return pub


# ------------------------------------------------------------------ badges


def _badges(board: Leaderboard, title: str, base: str, pub: Publishing) -> dict[str, Page]:
    files = {}
    ranked = len(board.agents)
    for agent in board.agents:
        fig = agent.figures
        mark = " provisional" if agent.provisional else ""  # site.md "Ranks on few runs"
        if fig.median is None:
            value, tone = f"no median yet · #{agent.rank}{mark}", "none"
        else:
            value, tone = f"median {pct(fig.median)} · #{agent.rank}{mark}", "provisional" if mark else "ranked"
        ci = f" (95% CI {ci_range(fig.median_ci)})" if fig.median_ci else ""
        note = ""
        if agent.provisional:
            note = f" ({provisional_note(fig.in_median)}: fewer than {PROVISIONAL_BELOW} runs in the median)"
        words = (
            f"{agent.name} on {title}: median {pct(fig.median)}{ci}, rank {agent.rank} of {ranked}{note}; "
            f"{median_line(fig)}"
        )
        path = routes.badge_path(agent.slug)
        files[path] = Page(path, "badge.svg", names(BadgeContext(badge=badge(LABEL, value, words, tone))))
        image = f"{base}/{path}" if base else path
        link = f"{base}/{routes.permalink(agent.url)}" if base else routes.permalink(agent.url)
        alt = f"{LABEL}: {agent.name}"
        pub.badges[agent.url] = BadgeSnippet(
            path=path,
            markdown=f"[![{_md_alt(alt)}]({_md_url(image)})]({_md_url(link)})",
            absolute=bool(base),
        )
    return files


def _md_alt(text: str) -> str:
    """Text inside Markdown image brackets: brackets and backslashes escaped, no line breaks."""
    text = re.sub(r"[\x00-\x1f\x7f\u2028\u2029]", "\ufffd", text)
    return re.sub(r"([\\\[\]`*_<>])", r"\\\1", text)


def _md_url(url: str) -> str:
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")


# ------------------------------------------------------------------ change reports


def _change_pages(board: Leaderboard, reports: list[dict]) -> list[Page]:
    links = ChangeLinks(
        agents={a.agent: a.url for a in board.agents},
        missions={f"{m.mission}\n{m.version}": m.url for m in board.missions},
    )
    history = tuple(
        ChangeEntry(
            number=r["number"],
            updated=r["updated"],
            path=routes.change_path(r["number"]),
            report=r["report"],
            moving=tuple(
                (a["agent"], a["name"], progress_line(a, named=False))
                for a in r["report"]["agents"]
                if progress_changed(a)
            ),
            cost=tuple(
                (a["agent"], a["name"], cost_line(a, named=False)) for a in r["report"]["agents"] if cost_changed(a)
            ),
        )
        for r in reports
    )
    pages = [
        Page(
            routes.CHANGES_INDEX,
            "changes.html",
            names(
                ChangesContext(
                    page_title="Changes",
                    entry=history[0] if history else None,
                    history=history,
                    kept=len(history),
                    links=links,
                    index=True,
                )
            ),
        )
    ]
    for entry in history:
        pages.append(
            Page(
                entry.path,
                "changes.html",
                names(
                    ChangesContext(
                        page_title=f"Change report {entry.number}",
                        entry=entry,
                        history=history,
                        kept=len(history),
                        links=links,
                        index=False,
                    )
                ),
            )
        )
    return pages


_HISTORY = {
    "schema": OneOf({CHANGES_SCHEMA}),
    "reports": [{"number": INT, "updated": TIME_TEXT, "report": diff.REPORT_SHAPE}],
}
MAX_REDIRECTS = 10_000  # entries of a previous redirects.json; a longer one is ignored with a warning
_REDIRECT = {
    "from": URL,
    "kind": OneOf({"agent", "mission"}),
    "agent": Opt(TEXT),
    "mission": Opt(TEXT),
    "version": Opt(TEXT),
}


def _read_json(path: Path, warnings: list[str]):
    """A history file's JSON (load/published.py), or None: absent, or with a warning when it cannot be read."""
    if not os.path.lexists(path):
        return None
    try:
        return read(path)
    except (NotReadable, OSError) as err:
        warnings.append(f"{path}: ignored, cannot be read as JSON ({err}); it starts again")
        return None


def _history(path: Path, warnings: list[str]) -> list[dict]:
    """The previous build's change reports (newest first), or [] with a warning when they do not check out.
    Only what podium writes is carried: known keys, names capped, no free text."""
    doc = _read_json(path, warnings)
    if doc is None:
        return []
    try:
        reports = pick(doc, _HISTORY)["reports"]
    except Misfit:
        warnings.append(f"{path}: ignored, not a {CHANGES_SCHEMA} history; the change history starts again")
        return []
    reports = [{**r, "report": diff.with_counts(r["report"])} for r in reports if r["number"] > 0]
    reports.sort(key=lambda r: -r["number"])
    numbers = [r["number"] for r in reports]
    if len(set(numbers)) != len(numbers) or len(reports) != len(doc["reports"]):
        warnings.append(f"{path}: ignored, report numbers or dates are not valid; the change history starts again")
        return []
    return reports[:KEEP_REPORTS]


# ------------------------------------------------------------------ redirects


def _carried(path: Path, warnings: list[str]) -> list[dict]:
    """The previous redirects (known keys only), at most MAX_REDIRECTS; else [] with a warning."""
    doc = _read_json(path, warnings)
    if doc is None:
        return []
    try:
        pick(doc, {"schema": OneOf({REDIRECTS_SCHEMA})})
        entries = doc.get("redirects")
        if isinstance(entries, list) and len(entries) > MAX_REDIRECTS:
            warnings.append(
                f"{path}: ignored, {len(entries)} redirects is more than the {MAX_REDIRECTS:,} podium "
                "carries; earlier redirects are dropped"
            )
            return []
        return pick(entries, [_REDIRECT])
    except Misfit:
        warnings.append(f"{path}: ignored, not a {REDIRECTS_SCHEMA} list; earlier redirects are dropped")
        return []


def _previous(previous: Path, warnings: list[str]) -> Bundle | None:
    """The previous publish's summary; None, with a warning, when it is larger than podium reads back (a
    summary that grew past it would otherwise make every later build with ``--previous`` fail, and through
    the action every later publish: issue 34). Any other BundleError (exit 2) names the file and the field."""
    try:
        return load_bundle(previous)
    except BundleTooLarge as err:
        warnings.append(f"--previous {err}; ignored: no change report this time (the change history is kept)")
        return None


def _redirects(board: Leaderboard, old: Bundle | None, carried: list[dict]) -> list[dict]:
    """Old paths of agents and mission versions that are still here under another path (with no previous
    summary, the redirects carried from the last publish only)."""
    agents = {a.agent: a for a in board.agents}
    missions = {(m.mission, m.version): m for m in board.missions}
    wanted: dict[str, dict] = {}
    for entry in carried:
        wanted.setdefault(entry["from"], entry)
    for view in [*old.agents.values(), *old.older.values()] if old is not None else []:
        if view.url:
            wanted[view.url] = {
                "from": view.url,
                "kind": "agent",
                "agent": view.agent,
                "mission": None,
                "version": None,
            }
    for m in old.missions.values() if old is not None else []:
        if m.url:
            wanted[m.url] = {
                "from": m.url,
                "kind": "mission",
                "agent": None,
                "mission": m.mission,
                "version": m.version,
            }
    live = {a.url for a in board.agents} | {m.url for m in board.missions}
    out = []
    for source, entry in sorted(wanted.items()):
        if entry["kind"] == "agent":
            agent = agents.get(entry["agent"])
            to, name = (agent.url, agent.name) if agent else (None, None)
        else:
            version = missions.get((entry["mission"], entry["version"]))
            to, name = (version.url, f"{version.mission} {version.version}") if version else (None, None)
        if to is None or source == to or source in live or not _OLD_PATH.match(source) or ".." in source:
            continue
        out.append({"from": source, "to": to, "name": name, "entry": entry})
    return out


# ------------------------------------------------------------------ feed


def _feed(board: Leaderboard, reports: list[dict], title: str, base: str, generated_at: int | None) -> FeedContext:
    entries = []
    for record in _newest_runs(board):
        entries.append(
            FeedEntry(
                kind="run",
                record=record,
                id=f"{base}/{routes.permalink(record.url)}",
                link=f"{base}/{routes.permalink(record.url)}",
                updated=iso_utc(record.when) or EPOCH,  # (_newest_runs keeps dated runs only)
            )
        )
    for r in reports:
        link = f"{base}/{routes.permalink(routes.change_path(r['number']))}"
        entries.append(
            FeedEntry(
                kind="changes",
                number=r["number"],
                headline=headline(r["report"]),
                moving=tuple(progress_line(a) for a in r["report"]["agents"] if progress_changed(a)),
                id=link,
                link=link,
                updated=r["updated"],
            )
        )
    entries.sort(key=lambda e: (e.updated, e.id), reverse=True)
    stamp = iso_utc(datetime.fromtimestamp(generated_at, UTC)) if generated_at is not None else None
    return FeedContext(
        title=title,
        id=f"{base}/",
        home=f"{base}/",
        self_url=f"{base}/{routes.FEED}",
        updated=max([e.updated for e in entries] + ([stamp] if stamp else []), default=EPOCH),
        entries=tuple(entries),
    )


def _newest_runs(board: Leaderboard) -> list[RunRecord]:
    out = []
    for record in board.runs:  # newest first; runs with no time cannot be dated in Atom
        if record.kind != "not_a_run" and record.when is not None:
            out.append(record)
            if len(out) == FEED_RUNS:
                break
    return out
