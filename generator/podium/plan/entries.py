"""The manifest's entry types: what plan/site.py lists and render/site.py renders.

One small module below both stages, so the plan builds these and the render stage
consumes them without either importing the other. An entry is a site path and what its
bytes are made from: a page (a template and its context), a page made when it is
rendered (a run's, a ledger page's), a content page (its Markdown rendered with it), a data file of the
public board, a JSON document planned whole, a file for crawlers, or a theme's static file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True)
class Page:
    """An HTML page: a template and its context (``run_id``: a run page, completed at render time)."""

    path: str
    template: str
    context: dict
    run_id: str | None = None


@dataclass(frozen=True)
class MarkdownPage(Page):
    """A content page (load/content.py): its context's ``content`` holds the page's Markdown body, rendered
    into ``content.html`` when the page is rendered (render/markdown.py)."""


class PageMaker(Protocol):
    """What makes a lazy page's Page when it is rendered (plan/site.py: RunPages, LedgerPages)."""

    chrome: dict

    def page(self, index: int) -> Page: ...


@dataclass(frozen=True, slots=True)
class LazyPage:
    """A page planned as its path and its number: its Page (template and context) is made when it is
    rendered, by ``pages``, so the pages that grow with the history (a run's, the ledger's) are never all
    held (issue 18)."""

    path: str
    index: int
    pages: PageMaker

    @property
    def page(self) -> Page:
        return self.pages.page(self.index)


@dataclass(frozen=True, slots=True)
class RunPage(LazyPage):
    """A run's own page (``index``: into Leaderboard.runs)."""


class LedgerPageMaker(PageMaker, Protocol):
    """What makes the ledger's pages (plan/site.py LedgerPages), and says what each shows (for its cache key)."""

    def key_parts(self, index: int) -> tuple: ...


@dataclass(frozen=True, slots=True)
class LedgerPage(LazyPage):
    """A page of the ledger (``index``: into Leaderboard.ledger.pages; ``pages``: a :class:`LedgerPageMaker`)."""


@dataclass(frozen=True)
class DataFile:
    """A data file of site.md (``kind`` is one of render/site.py's DATA_FILES; ``part``: which ledger part,
    or which agent or pair of the board a part of the comparisons is; ``pairs``: the pairs an agent's part
    lists, by index, and ``more``: how many more it is in, not listed: compare.listed_pairs)."""

    path: str
    kind: str
    part: int | None = None
    pairs: tuple[int, ...] = ()
    more: int = 0


@dataclass(frozen=True)
class Document:
    """A JSON file planned whole (plan/changes.py: ``changes.json``, ``redirects.json``), written as
    render/data.py writes every JSON file."""

    path: str
    value: object


@dataclass(frozen=True)
class CrawlerFile:
    """A file for crawlers (plan/crawlers.py; its bytes: render/crawlers.py): ``sitemap.xml`` or a part of it
    (``kind`` "sitemap": ``listed`` the site paths of its pages), a sitemap index ("sitemap_index":
    ``listed`` the names of its parts), or ``robots.txt`` ("robots": ``listed`` names the sitemap, if any)."""

    path: str
    kind: str
    base_url: str
    listed: tuple[str, ...] = ()
    search_engines: bool = True


@dataclass(frozen=True)
class Asset:
    """A theme's static file, copied as it is."""

    path: str
    source: Path


Entry = Page | LazyPage | DataFile | Document | CrawlerFile | Asset
