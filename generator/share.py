"""What makes a pasted link preview well and search engines behave: descriptions for the
Open Graph / Twitter meta, ``sitemap.xml`` and ``robots.txt``.

Descriptions only place figures the summary step computed (formatted as the pages do).
``sitemap.xml`` needs absolute URLs, so it is written only when ``base_url`` is set;
``search_engines: false`` writes ``Disallow: /`` (and every page carries a noindex meta).
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from podium.render.numbers import pct

SITEMAP = "sitemap.xml"
SITEMAP_URLS = 50_000  # the sitemap protocol's limit per file; more pages get a sitemap index
ROBOTS = "robots.txt"


def describe(template: str, context: dict, site_title: str) -> str:
    """One sentence for a link preview of this page."""
    if template == "index.html":
        cards = context.get("cards") or []
        if not cards:
            return f"{site_title}: no finished runs yet."
        top = cards[0]["agent"]
        text = (f"{top.name} leads with a median of {pct(top.figures.median)} over "
                f"{top.figures.in_median} runs")
        if len(cards) > 1:
            second = cards[1]["agent"]
            text += f"; {second.name} is next at {pct(second.figures.median)}"
        return f"{text}. {len(cards)} agents ranked, every left-out run named."
    if template == "agent.html":
        agent = context["agent"]
        rank = f"ranked #{agent.rank}, " if agent.rank else ""
        return (f"{agent.name}: {rank}median {pct(agent.figures.median)} over {agent.figures.in_median} "
                f"of {agent.figures.runs} runs on the current mission versions.")
    if template == "mission.html":
        mission = context["mission"]
        return (f"{mission.mission} {mission.version}: median {pct(mission.figures.median)} over "
                f"{mission.figures.in_median} of {mission.figures.runs} runs, {len(mission.agents)} agents.")
    if template == "run.html":
        record = context["record"]
        run = record.run
        score = f"overall {pct(record.overall)}" if record.overall is not None else "no score"
        return f"Run {run.run_id[:8]} of {run.agent_name} on {run.mission} {run.version}: {record.status}, {score}."
    if template == "runs.html":
        return f"Every run of {site_title}, newest first, with its scores and status."
    if template == "missions.html":
        return f"Every mission version of {site_title}: how the judge and the checks agree."
    return f"{context.get('page_title', '')} · {site_title}"


def sitemap(paths: list[str], base_url: str) -> bytes:
    """An XML sitemap of ``paths`` (site paths of pages) as absolute permalinks."""
    base = base_url.rstrip("/")
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for path in paths:
        permalink = path[: -len("index.html")] if path.endswith("index.html") else path
        lines.append(f"<url><loc>{escape(f'{base}/{permalink}')}</loc></url>")
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
        text += f"Sitemap: {base_url.rstrip('/')}/{SITEMAP}\n"
    return text.encode("utf-8")


def share_files(page_paths: list[str], base_url: str, search_engines: bool) -> tuple[dict[str, bytes], list[str]]:
    """``sitemap.xml`` and ``robots.txt`` for a site whose pages are ``page_paths``, and build notes."""
    notes = []
    files: dict[str, bytes] = {}
    listed = sorted(p for p in page_paths if p != "404.html")
    with_sitemap = bool(base_url) and search_engines
    if with_sitemap and len(listed) <= SITEMAP_URLS:
        files[SITEMAP] = sitemap(listed, base_url)
    elif with_sitemap:
        parts = [f"sitemap-{n}.xml" for n in range(1, (len(listed) - 1) // SITEMAP_URLS + 2)]
        for n, name in enumerate(parts):
            files[name] = sitemap(listed[n * SITEMAP_URLS:(n + 1) * SITEMAP_URLS], base_url)
        files[SITEMAP] = sitemap_index(parts, base_url)
    elif search_engines:
        notes.append("sitemap.xml left out: it needs absolute URLs; set base_url in podium.yaml")
    files[ROBOTS] = robots(base_url, search_engines, with_sitemap)
    return files, notes
