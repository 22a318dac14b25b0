"""The outputs a site carries besides its pages of the board: README badges, the change report pages and their
history (``changes.json``), rename redirects (``redirects.json`` and a page at each old path) and the Atom feed.

Planned like every other output: the change pages go through plan/site.py like the board's pages (they get the
common context); the rest stand alone. What they show was counted in count/changes.py from the previous
publish (load/previous.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from podium import routes
from podium.count.changes import EPOCH, Changes, ChangesFile, RedirectsFile
from podium.count.diff import cost_changed, progress_changed
from podium.load.published import CHANGES_SCHEMA, REDIRECTS_SCHEMA
from podium.model import PROVISIONAL_BELOW, Leaderboard, RunRecord, iso_utc
from podium.model.jsonable import jsonable
from podium.plan.badge import LABEL, badge
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
from podium.plan.entries import Document, Entry, Page
from podium.words.diff_text import change_headline, cost_line, progress_line
from podium.words.figures_text import ci_range, median_line, pct, provisional_note
from podium.words.markdown_escape import LINK_TEXT, md, md_url

FEED_RUNS = 50  # newest runs in the feed


@dataclass(frozen=True)
class Extras:
    pages: tuple[Page, ...]  # the change report pages (plan/site.py gives them the common context)
    nav: tuple[tuple[str, str], ...]  # (title, path) added to the site's navigation
    files: tuple[Entry, ...]  # the outputs that stand alone: badges, history, redirects, feed
    badges: dict[str, BadgeSnippet]  # an agent page's path -> its badge snippet
    warnings: tuple[str, ...]  # about the previous publish, or a feed left out


NO_EXTRAS = Extras((), (), (), {}, ())  # a site planned without them (tests, the plan alone)


def plan_extras(
    board: Leaderboard, title: str, base_url: str, generated_at: int | None, changes: Changes | None
) -> Extras:
    """Everything this module adds to the site for ``board`` (``changes``: None without ``--previous``)."""
    base = base_url.rstrip("/")
    files: list[Entry] = []
    snippets: dict[str, BadgeSnippet] = {}
    for path, page, snippet in _badges(board, title, base):
        files.append(page)
        snippets[path] = snippet
    pages: tuple[Page, ...] = ()
    nav: tuple[tuple[str, str], ...] = ()
    warnings = list(changes.warnings) if changes else []
    reports = list(changes.reports) if changes else []
    if changes is not None:
        files.append(Document(routes.CHANGES_JSON, jsonable(ChangesFile(CHANGES_SCHEMA, tuple(reports)))))
        pages = tuple(_change_pages(board, reports))
        nav = (("Changes", routes.CHANGES_INDEX),)
        redirects = RedirectsFile(REDIRECTS_SCHEMA, tuple(r.entry for r in changes.redirects))
        files.append(Document(routes.REDIRECTS_JSON, jsonable(redirects)))
        for r in changes.redirects:
            context = RedirectContext(
                target=routes.relative(r.source, r.target),
                canonical=f"{base}/{routes.permalink(r.target)}" if base else None,
                name=r.name,
                site_title=title,
                feed=routes.relative(r.source, routes.FEED) if base else None,
            )
            files.append(Page(r.source, "redirect.html", names(context)))
    if base:
        files.append(Page(routes.FEED, "feed.xml", names(_feed(board, reports, title, base, generated_at))))
    else:
        warnings.append("no base_url in podium.yaml: feed.xml (Atom needs absolute links) was left out")
    return Extras(pages, nav, tuple(files), snippets, tuple(warnings))


# ------------------------------------------------------------------ badges


def _badges(board: Leaderboard, title: str, base: str) -> list[tuple[str, Page, BadgeSnippet]]:
    """Each ranked agent's badge: (its agent page's path, the badge, the snippet its agent page shows)."""
    out = []
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
        image = f"{base}/{path}" if base else path
        link = f"{base}/{routes.permalink(agent.url)}" if base else routes.permalink(agent.url)
        alt = f"{LABEL}: {agent.name}"
        snippet = BadgeSnippet(
            path=path,
            markdown=f"[![{md(alt, LINK_TEXT)}]({md_url(image)})]({md_url(link)})",
            absolute=bool(base),
        )
        out.append(
            (agent.url, Page(path, "badge.svg", names(BadgeContext(badge=badge(LABEL, value, words, tone)))), snippet)
        )
    return out


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
    first = ChangesContext(
        page_title="Changes",
        entry=history[0] if history else None,
        history=history,
        kept=len(history),
        links=links,
        index=True,
    )
    pages = [Page(routes.CHANGES_INDEX, "changes.html", names(first))]
    for entry in history:
        context = ChangesContext(
            page_title=f"Change report {entry.number}",
            entry=entry,
            history=history,
            kept=len(history),
            links=links,
            index=False,
        )
        pages.append(Page(entry.path, "changes.html", names(context)))
    return pages


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
                headline=change_headline(r["report"]),
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
