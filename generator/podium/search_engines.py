"""What makes search engines behave: which of ``sitemap.xml`` and ``robots.txt`` a site gets, listing what.

The bytes are made by render/crawlers.py. (A page's description, for its meta and the Open Graph / Twitter tags, is its
headline sentence: numbers.py, placed by plan.py.)
``sitemap.xml`` needs absolute URLs, so it is written only when ``base_url`` is set;
``search_engines: false`` writes ``Disallow: /`` (and every page carries a noindex meta).
"""

from __future__ import annotations

from podium import routes
from podium.render.crawlers import robots, sitemap, sitemap_index

SITEMAP_URLS = 50_000  # the sitemap protocol's limit per file; more pages get a sitemap index


def crawler_files(page_paths: list[str], base_url: str, search_engines: bool) -> tuple[dict[str, bytes], list[str]]:
    """``sitemap.xml`` and ``robots.txt`` for a site whose pages are ``page_paths``, and build notes."""
    notes = []
    files: dict[str, bytes] = {}
    listed = sorted(p for p in page_paths if p != routes.NOT_FOUND)
    with_sitemap = bool(base_url) and search_engines
    if with_sitemap and len(listed) <= SITEMAP_URLS:
        files[routes.SITEMAP] = sitemap(listed, base_url)
    elif with_sitemap:
        parts = [routes.sitemap_part(n) for n in range(1, (len(listed) - 1) // SITEMAP_URLS + 2)]
        for n, name in enumerate(parts):
            files[name] = sitemap(listed[n * SITEMAP_URLS:(n + 1) * SITEMAP_URLS], base_url)
        files[routes.SITEMAP] = sitemap_index(parts, base_url)
    elif search_engines:
        notes.append("sitemap.xml left out: it needs absolute URLs; set base_url in podium.yaml")
    files[routes.ROBOTS] = robots(base_url, search_engines, with_sitemap)
    return files, notes
