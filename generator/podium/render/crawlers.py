"""The bytes of the files for crawlers (which, listing what: plan/crawlers.py): ``sitemap.xml`` (or a sitemap
index and its parts) and ``robots.txt``. A page's description, for its meta and the Open Graph / Twitter tags,
is its headline sentence (words/figures_text.py, placed by plan/site.py).
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from podium import routes
from podium.plan.entries import CrawlerFile


def crawler_bytes(entry: CrawlerFile) -> bytes:
    if entry.kind == "sitemap":
        return sitemap(list(entry.listed), entry.base_url)
    if entry.kind == "sitemap_index":
        return sitemap_index(list(entry.listed), entry.base_url)
    return robots(entry.base_url, entry.search_engines, bool(entry.listed))


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
