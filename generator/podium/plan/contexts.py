"""The context each template gets: one frozen dataclass per page kind, and the values inside them.

The plan (plan/site.py, plan/compare.py, plan/changes.py) builds these; a page's
``context`` is its dataclass's fields as the template's names (:func:`names`), with the common context
every page gets (:class:`CommonContext`) added by plan/site.py. A field's ``#:`` comment is its
documentation: themes/README.md's tables are made from them (tests/test_theme_contexts.py), so the
documentation cannot drift from the code. Every value is plain and frozen, so a page's cache key (its
context, pickled) is the same bytes each build.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from collections.abc import Callable

    from markupsafe import Markup

    from podium.load.content import ContentPage
    from podium.model import (
        AgentMission,
        AgentSummary,
        LedgerMonth,
        MissionVersionSummary,
        ModelSummary,
        Pair,
        PairVersion,
        Problem,
        Run,
        RunRecord,
        Totals,
    )
    from podium.plan.badge import Badge
    from podium.plan.charts import Plot, Strip
    from podium.plan.compare_charts import Intervals
    from podium.plan.cost_charts import CostChart
    from podium.plan.progress import BandMark, ProgressPanel, VersionStep
    from podium.words.figures_text import Sentence


def names(context: object) -> dict[str, Any]:
    """A context's fields as a template's names (one level: the values stay as they are)."""
    return {f.name: getattr(context, f.name) for f in fields(context)}  # type: ignore[arg-type]


# ---------------------------------------------------------------------- what every page gets


class NavItem(TypedDict):
    """One link of the site's navigation."""

    title: str  #: its text
    path: str  #: the site path it links to


class Downloads(TypedDict):
    """The site's data files a page links to, as site paths."""

    summary: str  #: summary.json
    runs_json: str  #: the ledger's index
    schema: str  #: summary.json's schema
    compare: str  #: compare.json


class SiteInfo(TypedDict):
    """The site settings every page shows (a dict: the cache keys the site's settings by it)."""

    title: str  #: the site's title
    nav: list[NavItem]  #: the navigation, in order
    generated_at: str | None  #: when the site was built ("2026-09-30 12:00 UTC"), only with SOURCE_DATE_EPOCH
    downloads: Downloads  #: the data files' site paths
    feed: str | None  #: ``feed.xml``, or None when the site has no feed (without ``base_url``)


class PageInfo(TypedDict):
    """Where this page is (a dict: the cache keys the page's place by it)."""

    path: str  #: this page's site path
    canonical: str | None  #: its absolute URL from ``base_url``, or None
    section: str  #: the first segment of its path
    noindex: bool  #: true under ``search_engines: false``
    description: str  #: the page's headline sentence: its context's ``description``, else its title


@dataclass(frozen=True, kw_only=True)
class CommonContext:
    """What every page that extends ``base.html`` gets (plan/site.py adds it to each page's own context)."""

    site: SiteInfo
    #: ``title``, ``nav`` (list of ``title``, ``path``), ``generated_at`` (text or None; only with
    #: SOURCE_DATE_EPOCH), ``downloads`` (``summary``, ``runs_json`` (the ledger's index), ``schema``,
    #: ``compare``: site paths), ``feed`` (``feed.xml``, or None when the site has no feed: without
    #: ``base_url``; ``base.html`` links it for feed autodiscovery)
    page: PageInfo
    #: ``path`` (this page's site path), ``canonical`` (absolute URL from ``base_url``, or None),
    #: ``section`` (first path segment), ``description`` (the page's headline sentence: its context's
    #: ``description``, else its title; also the Open Graph / Twitter description when ``base_url`` is set),
    #: ``noindex`` (true under ``search_engines: false``)
    page_title: str  #: the page's title
    description: str | None
    #: the page's headline sentence as plain text, for ``<meta name="description">`` (content pages: front
    #: matter ``description``, else the first sentence of the text; None: ``page.description`` falls back to
    #: the title)
    href: Callable[[str], str]
    #: ``href(site_path)`` gives the relative link from this page (``../agents/osprey/index.html``)


@dataclass(frozen=True, kw_only=True)
class PageContext:
    """A page's own context: its title and headline; each page kind adds its fields."""

    page_title: str  #: the page's title
    description: str | None = None  #: the page's headline sentence as plain text


# ---------------------------------------------------------------------- the values inside


@dataclass(frozen=True)
class ProgressLine:
    text: str  #: the agent's progress headline
    verdict: str | None  #: its verdict, a class name, or None


@dataclass(frozen=True)
class HomeCard:
    agent: AgentSummary  #: the agent
    older: AgentSummary | None  #: its summary on older mission versions, or None
    tone: int  #: its colour index
    strip: Strip  #: its newest runs on current versions
    progress: ProgressLine  #: the agent's progress line: ``text`` and ``verdict``, a class name or None
    newest_configuration: str | None
    #: its newest configuration's median beside the all-history one ("since agent v2: median 80.0% over 21 runs"),
    #: or None with one configuration
    cost: str = ""
    #: its cost line, after the label "cost": "106k tokens · 14 min a run (median) · 78% of budget" (docs/rules/cost.md
    #: §6), "" without


@dataclass(frozen=True)
class GridRow:
    agent: AgentSummary  #: the row's agent
    cells: tuple[AgentMission | None, ...]
    #: one per column: the agent on that current mission version (``figures``, ``provisional``), or None: never ran it


@dataclass(frozen=True)
class MissionGrid:
    columns: tuple[MissionVersionSummary, ...]  #: current mission versions, at most ``plan.GRID_COLUMNS``, by mission
    rows: tuple[GridRow, ...]  #: the agents with a card, ranked
    more_columns: int  #: how many more current mission versions are not columns (each has its page)


@dataclass(frozen=True)
class AgentTable:
    summary: AgentMission
    #: the agent on one mission version: ``mission``, ``version``, ``current``, ``url``, ``figures``
    runs: tuple[RunRecord, ...]  #: its newest ``newest`` runs
    more: int  #: how many earlier runs are not listed
    ledger: str  #: the ledger filtered to the agent on that version: ``runs/index.html#agent=…&mission=…``
    cost: tuple[tuple[str, str, str], ...] = ()
    #: what its runs cost (docs/rules/cost.md §2), rows of (what, "median (q1–q3)", "12 of 20" runs reporting it)
    spend: str = ""  #: where its tokens went, by kind: "… 31% went to timed-out runs"


@dataclass(frozen=True)
class AgentPair:
    other: AgentSummary  #: the other agent
    url: str  #: the pair page
    pair: Pair  #: the pair


@dataclass(frozen=True)
class VersionPair:
    pair: Pair  #: the pair
    url: str  #: its page
    anchor: str  #: the id of the version's section on it
    version: PairVersion  #: the pair on this version
    verdict: Sentence  #: the verdict on this version


@dataclass(frozen=True)
class BadgeSnippet:
    path: str  #: the badge's site path
    markdown: str  #: the snippet to paste
    absolute: bool  #: whether its links are absolute


@dataclass(frozen=True)
class MissionCard:
    mission: MissionVersionSummary  #: the mission version
    plot: Plot  #: its newest ``plan.CARD_POINTS`` scored runs as paths, ``plot.layers``, no link per point


@dataclass(frozen=True)
class Pager:
    number: int  #: this page's number, from 1
    paths: tuple[str, ...]  #: every page: ``missions/index.html``, then ``missions/page/<n>/index.html``
    pages: int  #: how many pages
    first: int  #: the number of this page's first mission version, from 1
    last: int  #: …and of its last
    total: int  #: how many mission versions in all


@dataclass(frozen=True)
class LedgerRow:
    record: RunRecord  #: the run
    text: dict[str, str]  #: its overall, deterministic, judge, tokens and duration cells as the ledger shows them


@dataclass(frozen=True)
class AgentOption:
    slug: str  #: the value the view filters by
    label: str  #: the name, with the slug after it when two agents share the name


@dataclass(frozen=True)
class MatrixCell:
    b: AgentSummary  #: the column's agent
    pair: Pair | None  #: the pair, or None


@dataclass(frozen=True)
class MatrixRow:
    agent: AgentSummary  #: the row's agent
    blank: int  #: how many columns left of the diagonal it leaves empty
    cells: tuple[MatrixCell, ...]  #: one per column right of the diagonal, each ``b``, ``pair`` or None


@dataclass(frozen=True)
class PairWords:
    pair: Pair  #: the pair
    superiority: Sentence  #: its superiority, in words
    counts: Sentence  #: its verdicts counted, in words


@dataclass(frozen=True)
class PairSection:
    v: PairVersion  #: the pair on one shared version
    anchor: str  #: the id of its section
    chart: Intervals  #: its medians' intervals
    verdict: Sentence  #: its verdict, in words
    superiority: Sentence  #: its superiority, in words


@dataclass(frozen=True)
class ModelCard:
    model: ModelSummary  #: the model key
    strip: Strip  #: its newest runs


@dataclass(frozen=True)
class ChangeEntry:
    number: int  #: the report's number
    updated: str  #: when it was made (ISO 8601)
    path: str  #: its page
    report: dict  #: the change report, as ``podium diff --json`` prints it (schema ``podium.diff/1``)
    moving: tuple[tuple[str, str, str], ...]
    #: each agent whose headline progress verdict changed, as (agent id, name, the change in words)
    cost: tuple[tuple[str, str, str], ...] = ()
    #: each agent whose cost verdict changed or that joined or left the cost frontier (docs/rules/cost.md §6), as
    #: (agent id, name, the change in words)


class ChangeLinks(TypedDict):
    """Where a change report's agents and mission versions are now (never a path stored in a report)."""

    agents: dict[str, str]  #: agent id → page path
    missions: dict[str, str]  #: "mission\nversion" → page path


# ---------------------------------------------------------------------- one a page kind


@dataclass(frozen=True, kw_only=True)
class HomeContext(PageContext):
    """The agents ranked."""

    headline: Sentence
    #: the leader and the next, as sentence parts: words/figures_text.py home_headline, the same words as
    #: the page's description; ``words(headline, href)`` writes it with links
    totals: Totals  #: ``runs``, ``not_a_run``, ``counts``, ``last_run`` (the newest run's time: "data as of")
    cards: tuple[HomeCard, ...]
    #: the top ``plan.HOME_CARDS`` ranked agents, each: ``agent``, ``older`` summary or None, ``tone``,
    #: ``strip``, ``progress``: the agent's progress line, ``text`` and ``verdict``, a class name or None
    ranked_below: int  #: how many agents have a card
    ranked: tuple[AgentSummary, ...]
    #: the agents ranked below the cards, at most ``plan.HOME_ROWS``, as AgentSummary: a compact table
    unlisted: int  #: how many more agents are ranked below those rows
    problems: tuple[Problem, ...]  #: the first ``plan.HOME_PROBLEMS``
    problems_total: int  #: how many problems in all
    problems_more: int  #: how many are not listed
    missions: tuple[MissionVersionSummary, ...]  #: every mission version
    grid: MissionGrid
    #: each carded agent's median on each current mission version: ``columns``, ``rows`` (each ``agent`` and its
    #: ``cells``, None where it never ran), ``more_columns``
    cost_chart: CostChart | None = None
    #: "What each score costs": ``points`` (each ``name``, ``url``, ``x``, ``y``, ``hollow``, ``frontier``,
    #: ``title``, and the table's ``score``, ``tokens``, ``duration``), ``staircase`` (the frontier's path),
    #: ``x_ticks``, ``y_ticks``, ``desc``; None without an agent


@dataclass(frozen=True, kw_only=True)
class AgentContext(PageContext):
    """One agent."""

    agent: AgentSummary  #: the agent, on current mission versions
    older: AgentSummary | None  #: the agent on older ones, or None
    tables: tuple[AgentTable, ...]
    #: each: ``summary`` of one mission version, ``runs`` its newest ``newest`` runs, ``more`` how many
    #: earlier runs are not listed, ``ledger`` the ledger filtered to the agent on that version
    newest: int
    #: runs listed per version: ``plan.AGENT_ROWS`` shared among the agent's versions, within
    #: ``plan.VERSION_RUNS``
    ledger: str  #: the ledger filtered to the agent
    strip: Strip  #: the newest ``charts.PAGE_SLOTS`` runs on current versions
    progress: ProgressPanel  #: "Which way it is moving", every sentence made
    newest_configuration: str | None
    #: its newest configuration's median beside the all-history one ("since agent v2: median 80.0% over 21 runs"),
    #: or None with one configuration
    band: tuple[BandMark, ...]
    #: where a new configuration first appears on ``strip``, as ``x`` percent of its width and ``strip_x``
    #: in its coordinates, with its ``label`` and ``title``
    older_strip: Strip | None  #: the newest ``charts.CARD_SLOTS`` on older versions, or None
    models_run: tuple[str, ...]
    #: the models the harness reported on its runs, current and older versions (each run's joined with " + "), at
    #: most 10, those of the most runs
    models_run_more: int  #: how many more it reported
    models_differ: bool
    #: whether the harness reported more than one model over its runs: a declared name beside the reported one
    #: is not a change
    compare: tuple[AgentPair, ...]  #: each: ``other`` agent, ``url`` of the pair page, ``pair``
    cost: tuple[tuple[str, str, str], ...] = ()
    #: what its runs on current versions cost (docs/rules/cost.md §2): (what, "median (q1–q3)", runs reporting)
    spend: str = ""  #: where its tokens went, by kind: "1.2M tokens spent over 40 runs: 31% went to timed-out runs"
    badge: BadgeSnippet | None = None
    #: its README badge (plan/changes.py): ``path``, the badge's site path; ``markdown``, the snippet to
    #: paste; ``absolute``, whether its links are absolute


@dataclass(frozen=True, kw_only=True)
class MissionsContext(PageContext):
    """A page of the mission-version cards."""

    cards: tuple[MissionCard, ...]
    #: this page's mission versions, each: ``mission``, ``plot``: its newest ``plan.CARD_POINTS`` scored runs
    #: as paths, ``plot.layers``, no link per point
    pager: Pager
    #: ``number``, ``paths`` of every page: ``missions/index.html``, then ``missions/page/<n>/index.html``;
    #: ``pages``, how many; ``first``, ``last``, ``total`` mission versions
    tones: dict[str, int]  #: agent → colour index
    slugs: dict[str, str]  #: agent → slug


@dataclass(frozen=True, kw_only=True)
class MissionContext(PageContext):
    """One mission version."""

    mission: MissionVersionSummary  #: the mission version
    tones: dict[str, int]  #: agent → colour index
    slugs: dict[str, str]  #: agent → slug
    plot: Plot
    #: its newest ``charts.PLOT_POINTS`` scored runs, a link each; ``plot.total`` is the summary's
    #: ``mission.scored``
    runs: tuple[RunRecord, ...]  #: the newest ``plan.MISSION_RUNS``
    more: int  #: how many earlier runs are not listed
    ledger: str  #: the ledger filtered to this version
    compare: tuple[VersionPair, ...]
    #: at most ``plan.MISSION_PAIRS`` pairs with a page that share this version, each: ``pair``, ``url``,
    #: ``anchor`` of the version's section, ``version`` (its ``PairVersion``), ``verdict`` sentence
    compare_more: int  #: how many more pairs share it
    progress: tuple[VersionStep, ...]
    #: an agent's newest step on this version each, its sentences made; at most
    #: ``plan_progress.VERSION_AGENTS``, those with a step first
    progress_more: int  #: how many agents with a run on it are not listed
    cost_chart: CostChart | None = None  #: "What each score costs" for the agents on it (``HomeContext.cost_chart``)
    cost: tuple[tuple[str, str, str], ...] = ()  #: what its runs cost: (what, "median (q1–q3)", runs reporting)
    spend: str = ""  #: where its tokens went, by kind


@dataclass(frozen=True, kw_only=True)
class LedgerContext(PageContext):
    """The ledger's front page."""

    rows: tuple[LedgerRow, ...]  #: its newest runs, each: ``record``, ``text``
    shown: int  #: how many ``rows``
    total: int  #: how many runs in all
    totals: Totals  #: ``runs``, ``not_a_run``, ``counts``
    months: tuple[LedgerMonth, ...]  #: each: ``bucket``, ``label``, ``runs``, ``pages``, ``newest``, ``oldest``: paths
    agent_options: tuple[AgentOption, ...]
    #: each: ``slug``, the value the view filters by, and ``label``: the name, with the slug after it when
    #: two agents share the name
    mission_names: tuple[str, ...]  #: every mission's name, sorted
    kinds: tuple[str, ...]  #: the run kinds, as the filter lists them
    index_script: str  #: the path of ``ledger.js``
    run_page: str  #: a run's own page, ``{run}`` for its id (the ledger's script reads it from a data- attribute)
    no_judge: str
    #: the judge cell's text for a run whose judge never ran (the ledger's script reads it from a data-
    #: attribute)
    browser_limit: int  #: how many runs the ledger's script loads at most


@dataclass(frozen=True, kw_only=True)
class LedgerPageContext(PageContext):
    """One page of a month of the ledger."""

    label: str  #: the month ("September 2026")
    number: int  #: the page's number in its month
    rows: tuple[LedgerRow, ...]  #: each: ``record``, ``text``; newest first
    newer: str | None  #: the page before (newer runs), or None
    older: str | None  #: the page after (older runs), or None
    oldest: str | None  #: the month's first page, or None on it


@dataclass(frozen=True, kw_only=True)
class RunContext(PageContext):
    """One run (``run`` and ``report_html`` are added at render time, render/site.py)."""

    record: RunRecord  #: its public ``RunRecord``
    placement: str  #: how the run is counted, as a sentence: words/figures_text.py run_placement
    spent: tuple[tuple[str, str], ...] = ()
    #: what it spent (docs/rules/cost.md §1): ("tokens", "44,643 in all: 43,630 input · …") and ("calls", …), each
    #: value as the report gives it or "not reported (by <harness>)"
    budget: str = ""  #: its duration against its budget: "14 min of a 60 min budget (23%)"
    dollars: str = ""  #: with a price table: "$0.042 at prices of 2026-11-01" (or why none), else ""


@dataclass(frozen=True, kw_only=True)
class RunValues:
    """What the render stage adds to a run page's context (render/site.py run_values)."""

    run: Run  #: the whole run, its texts already redacted and its submitted values gone (themes/README.md above)
    report_html: Markup | None  #: the report.md rendered safely, or None


@dataclass(frozen=True, kw_only=True)
class ContentContext(PageContext):
    """``page.html`` (or the template a content page names): a page of the project's own content."""

    content: ContentPage  #: ``title``, ``slug``, ``order``, ``template``, ``html``, ``source``, ``description``


@dataclass(frozen=True, kw_only=True)
class NotFoundContext(PageContext):
    """Nothing more."""


@dataclass(frozen=True, kw_only=True)
class CompareContext(PageContext):
    """The matrix of pairs."""

    agents: tuple[AgentSummary, ...]  #: the top ``limit`` ranked
    columns: tuple[AgentSummary, ...]  #: all but the first
    rows: tuple[MatrixRow, ...]
    #: each: ``agent``, ``blank`` (how many columns left of the diagonal it leaves empty), ``cells``: one per
    #: column right of the diagonal, each ``b``, ``pair`` or None
    left_out: tuple[AgentSummary, ...]  #: agents ranked below the matrix
    left_out_total: int  #: how many
    left_out_named: tuple[AgentSummary, ...]  #: the first ``plan_compare.LEFT_OUT_NAMED`` of them, named on the page
    left_out_unnamed: int  #: how many more
    agents_total: int  #: how many are in the matrix
    pairs_total: int  #: how many pairs in all
    limit: int  #: the matrix's size
    lead: PairWords | None  #: the top two's ``pair``, ``superiority`` and ``counts`` sentences, or None


@dataclass(frozen=True, kw_only=True)
class PairContext(PageContext):
    """Two agents head to head."""

    pair: Pair  #: the pair
    superiority: Sentence  #: its superiority, in words
    counts: Sentence  #: its verdicts counted, in words
    agent_a: AgentSummary  #: the pair's first agent
    agent_b: AgentSummary  #: …and its second
    flags: tuple[tuple[str, Sentence], ...]  #: each: flag name, sentence
    loses: Sentence  #: when the higher ranked agent loses head to head, that sentence; else empty
    versions: tuple[PairSection, ...]
    #: each: ``v`` its ``PairVersion``, ``anchor``, ``chart`` (Intervals), ``verdict`` and ``superiority``
    #: sentences


@dataclass(frozen=True, kw_only=True)
class ModelsContext(PageContext):
    """The model keys ranked."""

    cards: tuple[
        ModelCard, ...
    ]  #: the top ``plan_compare.MODEL_CARDS`` keys, each: ``model`` its ModelSummary, ``strip``
    ranked_below: int  #: how many keys have a card
    lead: Sentence
    #: the ranking sentence as parts: words/figures_text.py models_lead, the home headline's rules; empty
    #: without a key
    ranked: tuple[ModelSummary, ...]
    #: the keys ranked below the cards, at most ``plan_compare.MODEL_ROWS``, as ModelSummary
    unlisted: int  #: how many more keys are ranked below those rows
    empty: tuple[ModelSummary, ...]
    #: the keys with no run in a median (ranked last, on nothing), at most ``plan_compare.MODEL_EMPTY_NAMED``: one
    #: line, not cards
    empty_more: int  #: how many more such keys are not named
    empty_total: int  #: how many keys have no run in a median


@dataclass(frozen=True, kw_only=True)
class ModelContext(PageContext):
    """One model key."""

    model: ModelSummary  #: the model key
    strip: Strip  #: its newest runs
    runs: tuple[RunRecord, ...]  #: the newest ``plan_compare.MODEL_RUNS``
    more: int  #: how many earlier runs are not listed


@dataclass(frozen=True, kw_only=True)
class ChangesContext(PageContext):
    """A change report, and the reports kept."""

    entry: ChangeEntry | None
    #: the report shown, or None: ``number``, ``updated``, ``path``, ``report``, ``moving``: each agent whose
    #: headline progress verdict changed, as (agent id, name, the change in words)
    history: tuple[ChangeEntry, ...]  #: every kept report, newest first, same fields
    kept: int  #: how many reports ``history`` holds
    links: ChangeLinks
    #: ``agents``: agent id → page path; ``missions``: "mission\nversion" → page path; use these, never a
    #: path stored in a report
    index: bool  #: true on ``changes/index.html``


PAGES: dict[str, type] = {  # template -> its context (themes/README.md "Context of each page")
    "index.html": HomeContext,
    "agent.html": AgentContext,
    "missions.html": MissionsContext,
    "mission.html": MissionContext,
    "runs.html": LedgerContext,
    "ledger_page.html": LedgerPageContext,
    "run.html": RunContext,
    "page.html": ContentContext,
    "compare.html": CompareContext,
    "pair.html": PairContext,
    "models.html": ModelsContext,
    "model.html": ModelContext,
    "404.html": NotFoundContext,
    "changes.html": ChangesContext,
}
# ---------------------------------------------------------------------- standalone (no base.html, no common context)


@dataclass(frozen=True)
class FeedEntry:
    kind: str  #: "run" or "changes"
    id: str  #: its permalink
    link: str  #: …the same, as the entry's link
    updated: str  #: when (ISO 8601): the run's time, or the report's
    record: RunRecord | None = None  #: a run's public record (``kind`` "run")
    number: int | None = None  #: a report's number (``kind`` "changes")
    headline: str | None = None  #: …its headline
    moving: tuple[str, ...] = ()  #: …each agent whose headline progress verdict changed, in words


@dataclass(frozen=True, kw_only=True)
class FeedContext:
    """The Atom feed: the newest runs and the change reports (only with ``base_url``)."""

    title: str  #: the site's title
    id: str  #: the feed's id: the site's URL
    home: str  #: the site's URL
    self_url: str  #: the feed's own URL
    updated: str  #: its newest entry's time, or the build time
    entries: tuple[FeedEntry, ...]
    #: newest first, each: ``kind`` "run" or "changes", ``id``, ``link``, ``updated``; a run has ``record``, a
    #: report ``number``, ``headline`` and ``moving``


@dataclass(frozen=True, kw_only=True)
class BadgeContext:
    """An agent's badge."""

    badge: Badge
    #: ``label``, ``value``, ``title``, ``tone`` "ranked"/"provisional"/"none", ``width``, ``label_width``,
    #: ``value_width``, ``label_text``, ``value_text`` (plan/badge.py)


@dataclass(frozen=True, kw_only=True)
class RedirectContext:
    """A page that moved (an agent's or a mission version's old path)."""

    target: str  #: the relative link to the new path
    canonical: str | None  #: the new path's absolute URL, or None without ``base_url``
    name: str  #: what moved: the agent's or the mission's name
    site_title: str  #: the site's title
    feed: str | None  #: the relative link to feed.xml, or None without ``base_url``


STANDALONE: dict[str, type] = {"feed.xml": FeedContext, "badge.svg": BadgeContext, "redirect.html": RedirectContext}

ADDED_AT_RENDER: dict[str, type] = {"run.html": RunValues}  # template -> what render/site.py adds to its context

VALUES: tuple[type, ...] = (  # the values inside the contexts (themes/README.md "Values in the contexts")
    SiteInfo,
    PageInfo,
    Downloads,
    NavItem,
    HomeCard,
    MissionGrid,
    GridRow,
    ProgressLine,
    AgentTable,
    AgentPair,
    BadgeSnippet,
    MissionCard,
    Pager,
    VersionPair,
    LedgerRow,
    AgentOption,
    MatrixRow,
    MatrixCell,
    PairWords,
    PairSection,
    ModelCard,
    ChangeEntry,
    ChangeLinks,
    FeedEntry,
)
