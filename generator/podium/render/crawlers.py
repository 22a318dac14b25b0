"""The files for crawlers, as bytes: ``sitemap.xml`` (or a sitemap index and its parts) and ``robots.txt``,
and which of them a site gets, listing what (:func:`crawler_files`).

``sitemap.xml`` needs absolute URLs, so it is written only when ``base_url`` is set;
``search_engines: false`` writes ``Disallow: /`` (and every page carries a noindex meta). A page's
description, for its meta and the Open Graph / Twitter tags, is its headline sentence
(words/figures_text.py, placed by plan/site.py).
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from podium import routes

SITEMAP_URLS = 50_000  # the sitemap protocol's limit per file; more pages get a sitemap index


def sitemap(paths: list[str], base_url: str) -> bytes:
    """An XML sitemap of ``paths`` (site paths of pages) as absolute permalinks."""
    base = base_url.rstrip("/")
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for path in paths:
        lines.append(f"<url><loc>{escape(f'{base}/{routes.permalink(path)}')}</loc></url>")
    lines.append("</urlset>")
    return ("\n".join(lines) + "\n").encode("utf-8")


def sitemap_index(names: list[str], base_url: str) -> bytes:
    base = base_url.rstrip("/")
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ]
    lines += [f"<sitemap><loc>{escape(f'{base}/{name}')}</loc></sitemap>" for name in names]
    lines.append("</sitemapindex>")
    return ("\n".join(lines) + "\n").encode("utf-8")


def robots(base_url: str, search_engines: bool, with_sitemap: bool) -> bytes:
    if not search_engines:
        return b"# search_engines: false in podium.yaml\nUser-agent: *\nDisallow: /\n"
    text = "User-agent: *\nAllow: /\n"
    if with_sitemap:
        text += f"Sitemap: {base_url.rstrip('/')}/{routes.SITEMAP}\n"
    return text.encode("utf-8")


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
            files[name] = sitemap(listed[n * SITEMAP_URLS : (n + 1) * SITEMAP_URLS], base_url)
        files[routes.SITEMAP] = sitemap_index(parts, base_url)
    elif search_engines:
        notes.append("sitemap.xml left out: it needs absolute URLs; set base_url in podium.yaml")
    files[routes.ROBOTS] = robots(base_url, search_engines, with_sitemap)
    return files, notes
