"""The files for crawlers, as bytes: ``sitemap.xml`` (or a sitemap index and its parts) and ``robots.txt``.

Which of them a site gets, and which pages a sitemap lists, is search_engines.py's decision.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from podium import routes


def sitemap(paths: list[str], base_url: str) -> bytes:
    """An XML sitemap of ``paths`` (site paths of pages) as absolute permalinks."""
    base = base_url.rstrip("/")
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for path in paths:
        lines.append(f"<url><loc>{escape(f'{base}/{routes.permalink(path)}')}</loc></url>")
    lines.append("</urlset>")
    return ("\n".join(lines) + "\n").encode("utf-8")


def sitemap_index(names: list[str], base_url: str) -> bytes:
    base = base_url.rstrip("/")
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
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
