"""Which files a site has for crawlers, listing what: ``sitemap.xml`` (or a sitemap index and its parts) and
``robots.txt`` (their bytes: render/crawlers.py).

``sitemap.xml`` needs absolute URLs, so it is planned only when ``base_url`` is set; ``search_engines: false``
plans no sitemap, and ``robots.txt`` then says ``Disallow: /`` (and every page carries a noindex meta).
"""

from __future__ import annotations

from collections.abc import Iterable

from podium import routes
from podium.plan.entries import CrawlerFile, Entry, LazyPage, Page

SITEMAP_URLS = 50_000  # the sitemap protocol's limit per file; more pages get a sitemap index


def listed(manifest: Iterable[Entry]) -> list[str]:
    """The pages a sitemap lists: every HTML page but the redirects and the not-found page, in path order."""
    return sorted(
        e.path
        for e in manifest
        if (
            isinstance(e, LazyPage)
            or (isinstance(e, Page) and e.path.endswith(".html") and e.template != "redirect.html")
        )
        and e.path != routes.NOT_FOUND
    )


def crawler_files(manifest: Iterable[Entry], base_url: str, search_engines: bool) -> list[CrawlerFile]:
    """The crawlers' files for a site of ``manifest``."""
    files: list[CrawlerFile] = []
    with_sitemap = bool(base_url) and search_engines
    if with_sitemap:
        pages = listed(manifest)
        if len(pages) <= SITEMAP_URLS:
            files.append(CrawlerFile(routes.SITEMAP, "sitemap", base_url, tuple(pages)))
        else:
            parts = [routes.sitemap_part(n) for n in range(1, (len(pages) - 1) // SITEMAP_URLS + 2)]
            for n, name in enumerate(parts):
                files.append(
                    CrawlerFile(name, "sitemap", base_url, tuple(pages[n * SITEMAP_URLS : (n + 1) * SITEMAP_URLS]))
                )
            files.append(CrawlerFile(routes.SITEMAP, "sitemap_index", base_url, tuple(parts)))
    sitemap = (routes.SITEMAP,) if with_sitemap else ()
    files.append(CrawlerFile(routes.ROBOTS, "robots", base_url, sitemap, search_engines))
    return files


def crawler_notes(base_url: str, search_engines: bool) -> list[str]:
    """What a build says about the crawlers' files: a sitemap left out."""
    if search_engines and not base_url:
        return ["sitemap.xml left out: it needs absolute URLs; set base_url in podium.yaml"]
    return []
