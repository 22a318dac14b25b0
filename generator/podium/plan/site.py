"""The manifest: every output file of the site and what it is rendered from.

Pure: the (public) Leaderboard, the site settings, what the site carries from its previous publish
(plan/changes.py) and the theme's static files in, a list of entries (plan/entries.py: :class:`Page`,
:class:`DataFile`, :class:`Asset`, …) out, the files for crawlers last (plan/crawlers.py); nothing is
rendered or read here. Page contexts carry summary objects and chart geometry
only (templates never count); a run page names its run, and the render stage
adds that run's redacted record and report (render/site.py). The context fields
each template may use are documented in themes/README.md.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from urllib.parse import quote

from podium import routes
from podium.count import ledger
from podium.count.cost import run_dollars
from podium.count.figures import first
from podium.errors import BuildError
from podium.load.content import ContentPage
from podium.model import KIND_ORDER, AgentSummary, Leaderboard, LedgerPage, RunRecord
from podium.plan import charts, cost_charts
from podium.plan import compare as plan_compare
from podium.plan import progress as plan_progress
from podium.plan import summary as plan_summary
from podium.plan.changes import NO_EXTRAS, Extras
from podium.plan.contexts import (
    AgentContext,
    AgentOption,
    AgentTable,
    BadgeSnippet,
    ContentContext,
    Downloads,
    GridRow,
    HomeCard,
    HomeContext,
    LedgerContext,
    LedgerPageContext,
    LedgerRow,
    MissionCard,
    MissionContext,
    MissionGrid,
    MissionsContext,
    NavItem,
    NotFoundContext,
    PageInfo,
    Pager,
    ProgressLine,
    RunContext,
    SiteInfo,
    names,
)
from podium.plan.crawlers import crawler_files
from podium.plan.entries import Asset, DataFile, Entry, LazyLedgerPage, LazyPage, MarkdownPage, Page, RunPage
from podium.words import cost_text, figures_text, progress_text
from podium.words.cost_text import ledger_cells

TONES = 8  # agent colours
# Bounded pages (site.md "Bounded"): what a page shows never grows with the run history; every
# other run is one link away, in the ledger filtered by fragment (runs/index.html#agent=…&mission=…).
AGENT_ROWS = 100  # runs listed on an agent page, shared among its mission versions…
VERSION_RUNS = (1, 10)  # …each version listing its newest AGENT_ROWS // versions, within these bounds
MISSION_RUNS = 20  # newest runs listed on a mission-version page
MISSION_PAIRS = 66  # head-to-head links on a mission-version page (every pair among 12 agents)
CARD_POINTS = 200  # runs drawn on a mission card's plot (the mission page draws charts.PLOT_POINTS)
MISSION_CARDS = 12  # mission-version cards a page of the missions index holds at most…
CARD_ELEMENTS = (60, 7)  # …and fewer when their chips are many: a card is ~60 elements + 7 per agent…
MISSIONS_PAGE_ELEMENTS = 2200  # …and a page's cards stay within this many
HOME_CARDS = 12  # agent cards on the home page; the agents ranked below them are table rows…
HOME_ROWS = 30  # …at most this many (every agent is in summary.json and the ledger)
HOME_PROBLEMS = 20  # problems listed on the home page (every one is in summary.json)
GRID_COLUMNS = 6  # current mission versions in the home page's grid of medians (each version has its page): with 12
# cards, 72 cells of one element each, which keeps the home page within its 3,000 elements (site.md §9)


@dataclass(frozen=True)
class Site:
    """What the plan needs besides the Leaderboard."""

    title: str
    base_url: str
    pages: tuple[ContentPage, ...]
    generated_at: int | None
    search_engines: bool = True  # False: every page carries a noindex meta (plan/crawlers.py: robots.txt)
    extras: Extras = NO_EXTRAS  # badges, change reports, redirects, feed (plan/changes.py)


def plan_site(board: Leaderboard, site: Site, static: dict[str, Path] | None = None) -> list[Entry]:
    """Every file of the site, in a stable order."""
    index = _Index(board)
    nav = _nav(site)
    outputs: list[Entry] = [DataFile(path, kind) for kind, path in routes.DATA_FILES.items()]
    for number, part in enumerate(board.ledger.parts if board.ledger else ()):
        outputs += [DataFile(part.paths[kind], f"part_{kind}", number) for kind in ("jsonl_gz", "csv", "script")]
    outputs += plan_compare.data_files(board)
    outputs += plan_summary.data_files(board)
    outputs += [DataFile(routes.progress_path(a.slug), "progress", number) for number, a in enumerate(board.agents)]
    made: list[tuple[str, Callable[[], Page]]] = [
        (routes.HOME, partial(_home, board, index)),
        *_missions_pages(board, index),
        *((a.url, partial(_agent_page, a, index, site.extras.badges.get(a.url))) for a in board.agents),
        *((m.url, partial(_mission_page, m, index)) for m in board.missions),
        (routes.LEDGER, partial(_ledger_front, board)),
        *((path, partial(_page_of, make)) for path, make in plan_compare.page_makers(board)),
    ]
    board_pages = BoardPages(board, site, nav, [make for _, make in made])
    outputs += [LazyPage(path, i, board_pages) for i, (path, _) in enumerate(made)]
    content = [_content_page(p) for p in site.pages]
    if taken := {page.path for page in content} & {page.path for page in site.extras.pages}:
        raise BuildError(f"{min(taken)}: a content page takes the path of the change report; rename it")
    pages = [*content, *site.extras.pages]
    pages.append(
        Page(
            routes.NOT_FOUND,
            "404.html",
            names(NotFoundContext(page_title="Not found", description="There is no page at this address.")),
        )
    )
    outputs += [replace(page, context=_with_common(page, site, nav)) for page in pages]
    ledger_pages = LedgerPages(board, site, nav)
    outputs += [
        LazyLedgerPage(p.path, i, ledger_pages) for i, p in enumerate(board.ledger.pages if board.ledger else ())
    ]
    run_pages = RunPages(board, site, nav)
    outputs += [RunPage(r.url, i, run_pages) for i, r in enumerate(board.runs) if "#" not in r.url]  # write/hosts.py
    outputs += [Asset(f"{routes.ASSETS}/{rel}", source) for rel, source in sorted((static or {}).items())]
    taken = {entry.path.lower() for entry in outputs}
    for entry in site.extras.files:
        if entry.path.lower() in taken:
            raise BuildError(f"{entry.path}: two outputs would be written there; rename the content page")
    outputs += site.extras.files
    return outputs + crawler_files(outputs, site.base_url, site.search_engines)


class _Index:
    """The summary's run groups as records, for every page that lists them."""

    def __init__(self, board: Leaderboard):
        def records(groups: dict) -> dict:
            return defaultdict(list, {key: [board.runs[i] for i in group] for key, group in groups.items()})

        self.by_agent = records(board.groups.by_agent)
        self.by_version = records(board.groups.by_version)
        self.by_agent_version = records(board.groups.by_agent_version)
        self.slugs = {a.agent: a.slug for a in board.agents}
        self.tones = {a.agent: i % TONES for i, a in enumerate(board.agents)}
        self.older = {a.agent: a for a in board.agents_older}
        self.compare = plan_compare.Links(board)
        self.progress = board.progress
        self.version_urls = {(m.mission, m.version): m.url for m in board.missions}
        self.agents = {a.agent: a for a in board.agents}
        self.prices = board.prices
        self.frontier = board.frontier

    def scoped(self, agent: str, older: bool) -> list[RunRecord]:
        return [r for r in self.by_agent[agent] if r.older == older]


def _home(board: Leaderboard, index: _Index) -> Page:
    shown = board.agents[:HOME_CARDS]
    cards = tuple(
        HomeCard(
            agent=a,
            older=index.older.get(a.agent),
            tone=index.tones[a.agent],
            strip=charts.strip(index.scoped(a.agent, False), a.figures.median),
            progress=_progress_line(index, a.agent),
            newest_configuration=progress_text.newest_text(index.progress[a.agent]),
            cost=_cost_line(a, index),
        )
        for a in shown
    )
    ranked, unlisted = first(board.agents[HOME_CARDS:], HOME_ROWS)
    headline = figures_text.home_headline(board.agents)
    problems, problems_more = first(board.problems, HOME_PROBLEMS)
    return Page(
        routes.HOME,
        "index.html",
        names(
            HomeContext(
                page_title="Agents",
                totals=board.totals,
                cards=cards,
                ranked_below=len(cards),
                ranked=tuple(ranked),
                unlisted=unlisted,
                problems=tuple(problems),
                problems_total=len(board.problems),
                problems_more=problems_more,
                missions=board.missions,
                grid=_grid(shown, board.missions),
                headline=headline,
                description=figures_text.plain(headline),
                cost_chart=_agents_cost_chart(board, index) if board.agents else None,
            )
        ),
    )


def _cost_line(agent: AgentSummary, index: _Index) -> str:
    """An agent card's cost line (docs/rules/cost.md §6), with its dollars when there is a price table."""
    line = cost_text.cost_line(agent.cost)
    dollars = cost_text.dollars_line(agent.cost, index.prices)
    return f"{line} · {dollars}" if line and dollars else line


def _agents_cost_chart(board: Leaderboard, index: _Index) -> cost_charts.CostChart:
    """ "What each score costs" on the home page: the agents overall and their frontier (docs/rules/cost.md §3)."""
    return cost_charts.cost_chart(
        (
            cost_charts.Entry(
                a.slug, a.name, a.url, index.tones[a.agent], a.figures.median, a.cost, bool(a.provisional), a.agent
            )
            for a in board.agents
        ),
        board.frontier.total_tokens,
    )


def _version_cost_chart(mission, index: _Index) -> cost_charts.CostChart | None:
    """The same chart for the agents on one current mission version, each by its figures there."""
    if mission.frontier is None:
        return None
    entries = []
    for chip in mission.agents:
        agent = index.agents.get(chip.agent)
        cell = (
            next((m for m in agent.missions if (m.mission, m.version) == (mission.mission, mission.version)), None)
            if agent is not None
            else None
        )
        entries.append(
            cost_charts.Entry(
                index.slugs.get(chip.agent, ""),
                chip.name,
                chip.url,
                index.tones.get(chip.agent, 0),
                chip.median,
                cell.cost if cell is not None else None,
                bool(agent.provisional) if agent is not None else True,
                chip.agent,
            )
        )
    return cost_charts.cost_chart(entries, mission.frontier.total_tokens)


def _grid(agents, missions) -> MissionGrid:
    """The home page's agent × current mission version grid: the summary's cells placed, blank where an agent never
    ran a version (docs/rules/site.md §13)."""
    current = [m for m in missions if m.current]
    columns, more = first(current, GRID_COLUMNS)
    rows = []
    for agent in agents:
        cells = {(m.mission, m.version): m for m in agent.missions if m.current}
        rows.append(GridRow(agent=agent, cells=tuple(cells.get((c.mission, c.version)) for c in columns)))
    return MissionGrid(columns=tuple(columns), rows=tuple(rows), more_columns=more)


def _progress_line(index: _Index, agent: str) -> ProgressLine:
    """The one progress line of an agent's card: its headline and its verdict (a class name)."""
    progress = index.progress[agent]
    step = progress.newest_step
    return ProgressLine(text=progress_text.headline_text(progress), verdict=step.overall.verdict if step else None)


def ledger_fragment(agent_slug: str | None = None, version: tuple[str, str] | None = None) -> str:
    """The ledger filtered by fragment: ``runs/index.html#agent=<slug>&mission=<mission> <version>``. By the
    agent's slug, unique where names are not: two agents of one name each link to their own runs."""
    parts = []
    if agent_slug is not None:
        parts.append("agent=" + quote(agent_slug, safe="/"))
    if version is not None:
        parts.append("mission=" + quote(f"{version[0]} {version[1]}", safe="/"))
    return routes.LEDGER + ("#" + "&".join(parts) if parts else "")


def version_runs(versions: int) -> int:
    """How many newest runs an agent page lists per mission version: its AGENT_ROWS shared out."""
    low, high = VERSION_RUNS
    return max(low, min(high, AGENT_ROWS // max(1, versions)))


def _agent_page(agent: AgentSummary, index: _Index, badge: BadgeSnippet | None) -> Page:
    older = index.older.get(agent.agent)
    summaries = agent.missions + (older.missions if older else ())
    newest = version_runs(len(summaries))
    tables = []
    for summary in summaries:
        runs, more = first(index.by_agent_version[(agent.agent, summary.mission, summary.version)], newest)
        tables.append(
            AgentTable(
                summary=summary,
                runs=tuple(runs),
                more=more,
                ledger=ledger_fragment(agent.slug, (summary.mission, summary.version)),
                cost=cost_text.cost_rows(summary.cost, index.prices),
                spend=cost_text.spend_line(summary.cost),
            )
        )
    current_runs = index.scoped(agent.agent, False)
    older_runs = index.scoped(agent.agent, True)
    strip = charts.strip(current_runs, agent.figures.median, charts.PAGE_SLOTS)
    progress = index.progress[agent.agent]
    panel = plan_progress.panel(progress, agent.slug)
    panel = replace(
        panel, rows=tuple(replace(row, url=index.version_urls.get((row.mission, row.version))) for row in panel.rows)
    )
    return Page(
        agent.url,
        "agent.html",
        names(
            AgentContext(
                page_title=agent.name,
                agent=agent,
                older=older,
                tables=tuple(tables),
                newest=newest,
                ledger=ledger_fragment(agent.slug),
                strip=strip,
                progress=panel,
                newest_configuration=progress_text.newest_text(progress),
                band=tuple(plan_progress.band(strip, list(reversed(current_runs[: charts.PAGE_SLOTS])), progress)),
                older_strip=charts.strip(older_runs, older.figures.median, charts.CARD_SLOTS) if older else None,
                models_run=agent.reported_models,
                models_run_more=agent.reported_models_more,
                models_differ=agent.models_changed,
                description=figures_text.agent_headline(agent),
                compare=tuple(index.compare.for_agent(agent.agent)),
                cost=cost_text.cost_rows(agent.cost, index.prices),
                spend=cost_text.spend_line(agent.cost),
                badge=badge,
            )
        ),
    )


def missions_path(number: int) -> str:
    return routes.missions_page_path(number)


def _missions_pages(board: Leaderboard, index: _Index) -> list[tuple[str, Callable[[], Page]]]:
    """The mission-version cards in pages (``missions/page/<n>/``), current versions first (the summary's order):
    each page's path, and what makes it."""
    chunks = _card_pages(board.missions)
    paths = tuple(missions_path(n) for n in range(1, len(chunks) + 1))
    starts = [1 + sum(len(chunk) for chunk in chunks[:n]) for n in range(len(chunks))]
    return [
        (paths[n], partial(_missions_page, board, index, paths, n + 1, starts[n], chunk))
        for n, chunk in enumerate(chunks)
    ]


def _missions_page(board: Leaderboard, index: _Index, paths: tuple[str, ...], number: int, start: int, chunk) -> Page:
    cards = tuple(
        MissionCard(
            mission=m,
            plot=charts.agreement(
                index.by_version[(m.mission, m.version)],
                index.slugs,
                index.tones,
                CARD_POINTS,
                m.scored,
                linked=False,
            ),
        )
        for m in chunk
    )
    return Page(
        paths[number - 1],
        "missions.html",
        names(
            MissionsContext(
                page_title="Missions" if number == 1 else f"Missions, page {number}",
                cards=cards,
                pager=Pager(
                    number=number,
                    paths=paths,
                    pages=len(paths),
                    first=start,
                    last=start + len(chunk) - 1,
                    total=len(board.missions),
                ),
                tones=index.tones,
                slugs=index.slugs,
                description=figures_text.missions_headline(board.missions),
            )
        ),
    )


def _card_pages(missions: tuple) -> list[tuple]:
    """The mission versions cut into pages, in order: at most MISSION_CARDS a page, and fewer when
    their chips (one per agent) would take the page past MISSIONS_PAGE_ELEMENTS."""
    base, per_agent = CARD_ELEMENTS
    pages: list[tuple] = []
    start, cost = 0, 0
    for i, mission in enumerate(missions):
        card = base + per_agent * len(mission.agents)
        if i > start and (i - start == MISSION_CARDS or cost + card > MISSIONS_PAGE_ELEMENTS):
            pages.append(missions[start:i])
            start, cost = i, 0
        cost += card
    pages.append(missions[start:])
    return pages


def _mission_page(mission, index: _Index) -> Page:
    runs = index.by_version[(mission.mission, mission.version)]
    newest, more = first(runs, MISSION_RUNS)
    compare, compare_more = first(index.compare.for_version(mission.mission, mission.version), MISSION_PAIRS)
    progress, progress_more = _version_progress(mission, index)
    return Page(
        mission.url,
        "mission.html",
        names(
            MissionContext(
                page_title=f"{mission.mission} {mission.version}",
                mission=mission,
                tones=index.tones,
                slugs=index.slugs,
                plot=charts.agreement(runs, index.slugs, index.tones, charts.PLOT_POINTS, mission.scored),
                runs=tuple(newest),
                more=more,
                ledger=ledger_fragment(version=(mission.mission, mission.version)),
                description=figures_text.mission_headline(mission),
                compare=tuple(compare),
                compare_more=compare_more,
                progress=progress,
                progress_more=progress_more,
                cost_chart=_version_cost_chart(mission, index),
                cost=cost_text.cost_rows(mission.cost, index.prices),
                spend=cost_text.spend_line(mission.cost),
            )
        ),
    )


def _version_progress(mission, index: _Index) -> tuple[tuple[plan_progress.VersionStep, ...], int]:
    """Each agent's newest step on a mission version, the agents ranked on it (its chips' order) with a step
    first, at most plan_progress.VERSION_AGENTS: every other one is in its progress file."""
    steps = [
        step
        for a in mission.agents
        if (step := plan_progress.version_step(index.progress[a.agent], mission.mission, mission.version, a.url))
        is not None
    ]
    steps.sort(key=lambda step: step.since is None)  # stable: rank order within each
    shown, more = first(steps, plan_progress.VERSION_AGENTS)
    return tuple(shown), more


def _ledger_front(board: Leaderboard) -> Page:
    """The ledger's front page: the newest runs, the filters, every month (count/ledger.py)."""
    runs_ledger = board.ledger
    parts = runs_ledger.parts if runs_ledger else ()
    newest = board.runs[: ledger.FRONT_ROWS]
    return Page(
        routes.LEDGER,
        "runs.html",
        names(
            LedgerContext(
                page_title="All runs",
                rows=tuple(LedgerRow(record=r, text=ledger_cells(r)) for r in newest),
                shown=len(newest),
                total=board.totals.listed,
                totals=board.totals,
                months=runs_ledger.months if runs_ledger else (),
                agent_options=agent_options(parts),
                mission_names=tuple(sorted({p.mission for p in parts})),
                kinds=tuple(reversed(KIND_ORDER)),
                index_script=routes.LEDGER_JS,
                run_page=routes.RUN_PATH,
                no_judge=figures_text.NO_JUDGE,
                browser_limit=ledger.BROWSER_LIMIT,
                description=figures_text.ledger_headline(board.totals),
            )
        ),
    )


def agent_options(parts) -> tuple[AgentOption, ...]:
    """The ledger page's agent choices, by name: each an agent's ``slug`` (the view's key) and its ``label``,
    the name, followed by the slug where another agent has the same name (so the two can be told apart)."""
    by_slug = {p.agent_slug: p.agent_name for p in parts}
    repeated = {name for name, n in Counter(by_slug.values()).items() if n > 1}
    return tuple(
        AgentOption(slug=slug, label=f"{name} ({slug})" if name in repeated else name)
        for slug, name in sorted(by_slug.items(), key=lambda item: (item[1], item[0]))
    )


class _Chrome:
    """What every page of a kind shares (site settings, navigation): the part of a lazy page's context
    that is the same on all of them."""

    def __init__(self, board: Leaderboard, site: Site, nav: list[NavItem]):
        self.board, self.site, self.nav = board, site, nav
        chrome = _with_common(Page("x/x/index.html", "", {}), site, nav)
        self.chrome = {k: v for k, v in chrome.items() if k not in ("page", "href")}

    def _made(self, page: Page) -> Page:
        return replace(page, context=_with_common(page, self.site, self.nav))


class BoardPages(_Chrome):
    """Makes each page of the board (home, missions, agents, mission versions, the ledger's front, the compare
    and model pages) when it is keyed or rendered, so that a site's page contexts are never all held (at 10k
    runs they took 20 MB, from the plan to the last file written)."""

    def __init__(self, board: Leaderboard, site: Site, nav: list[NavItem], makers: list[Callable[[], Page]]):
        super().__init__(board, site, nav)
        self.makers = makers

    def page(self, index: int) -> Page:
        return self._made(self.makers[index]())


def _page_of(make: Callable[[], tuple[str, str, dict]]) -> Page:
    return Page(*make())


class LedgerPages(_Chrome):
    """Makes each page of the ledger (a month's runs) when it is rendered."""

    def page(self, index: int) -> Page:
        parts = self.key_parts(index)
        label, number, newer, older, oldest, runs = parts
        path = self._pages()[index].path
        return self._made(
            Page(
                path,
                "ledger_page.html",
                names(
                    LedgerPageContext(
                        page_title=f"Runs of {label}, page {number}"
                        if label != "Undated"
                        else f"Undated runs, page {number}",
                        label=label,
                        number=number,
                        rows=tuple(LedgerRow(record=r, text=ledger_cells(r)) for r in runs),
                        newer=newer,
                        older=older,
                        oldest=oldest,
                        description=figures_text.ledger_page_headline(label, number, len(runs)),
                    )
                ),
            )
        )

    def _pages(self) -> tuple[LedgerPage, ...]:
        return self.board.ledger.pages if self.board.ledger else ()  # a board with runs has a ledger

    def key_parts(self, index: int) -> tuple:
        """Everything the page shows: its month, number, neighbours and runs."""
        pages = self._pages()
        page = pages[index]
        return (
            ledger.month_label(page.bucket),
            page.number,
            pages[index - 1].path if index > 0 else None,
            pages[index + 1].path if index + 1 < len(pages) else None,
            routes.ledger_page_path(page.bucket, 1) if page.number > 1 else None,
            tuple(self.board.runs[i] for i in page.runs),
        )


class RunPages(_Chrome):
    """Makes each run's page when it is rendered: its public record now; the render stage adds its whole
    run, redacted, and its report."""

    def page(self, index: int) -> Page:
        record = self.board.runs[index]
        return self._made(
            Page(
                record.url,
                "run.html",
                names(
                    RunContext(
                        page_title=f"Run {record.run_id[:8]}",
                        record=record,
                        placement=figures_text.run_placement(record),
                        description=figures_text.run_headline(record),
                        spent=cost_text.spent_rows(record),
                        budget=cost_text.against_budget(record),
                        dollars=cost_text.run_dollars_text(run_dollars(record, self.board.prices), self.board.prices),
                    )
                ),
                run_id=record.run_id,
            )
        )


def _content_page(page: ContentPage) -> Page:
    return MarkdownPage(
        page.path,
        page.template,
        names(ContentContext(page_title=page.title, content=page, description=page.description or page.title)),
    )


def _nav(site: Site) -> list[NavItem]:
    items = [
        ("Agents", routes.HOME),
        ("Missions", routes.MISSIONS_INDEX),
        ("Compare", routes.COMPARE_INDEX),
        ("Models", routes.MODELS_INDEX),
        ("All runs", routes.LEDGER),
    ]
    items += list(site.extras.nav)
    items += [(p.title, p.path) for p in sorted(site.pages, key=lambda p: (p.order, p.title))]
    return [NavItem(title=title, path=path) for title, path in items]


def _with_common(page: Page, site: Site, nav: list[NavItem]) -> dict:
    base = site.base_url.rstrip("/")
    permalink = routes.permalink(page.path)
    generated = (
        datetime.fromtimestamp(site.generated_at, UTC).strftime("%Y-%m-%d %H:%M UTC")
        if site.generated_at is not None
        else None
    )
    return {  # a CommonContext's names (plan/contexts.py), as dicts: the cache reads ``site`` and ``page``
        **page.context,
        "site": SiteInfo(
            title=site.title,
            nav=nav,
            generated_at=generated,
            downloads=Downloads(
                summary=routes.SUMMARY_JSON,
                runs_json=routes.RUNS_JSON,
                schema=routes.SUMMARY_SCHEMA,
                compare=routes.COMPARE_JSON,
            ),
            feed=routes.FEED if base else None,  # feed.xml exists only with base_url
        ),
        "page": PageInfo(
            path=page.path,
            canonical=f"{base}/{permalink}" if base else None,
            section=_section(page.path),
            noindex=not site.search_engines,
            description=page.context.get("description") or f"{page.context.get('page_title', '')} · {site.title}",
        ),
        "href": _Linker(page.path, base),
    }


@dataclass(frozen=True)
class _Linker:
    """A page's ``href``: relative links; 404.html is served at any depth, so it links absolutely
    when base_url is set. A class, not a closure, so a page can be sent to a worker process."""

    from_path: str
    base: str

    def __call__(self, target: str) -> str:
        if self.from_path == routes.NOT_FOUND and self.base:
            return f"{self.base}/{target}"
        return routes.relative(self.from_path, target)


def _section(path: str) -> str:
    return path.split("/", 1)[0] if "/" in path else path.removesuffix(".html")
