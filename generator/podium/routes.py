"""Every output path and the one slug function (site.md "Pages and permalinks").

No input string becomes a path without going through :func:`slug` (names) or
:func:`version_segment` (mission versions). Paths are relative to the site
root, use ``/`` and always name the file (``agents/osprey/index.html``), so
the site works from disk and under any sub-path.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Collection

from podium.model import RUN_DIR

_NON_SLUG = re.compile(r"[^a-z0-9]+")
_VERSION_SAFE = re.compile(r"^[a-z0-9][a-z0-9.-]{0,63}$")
_RESERVED = {"con", "prn", "aux", "nul"} | {f"{dev}{n}" for dev in ("com", "lpt") for n in range(10)}
MAX_SLUG = 60

SUMMARY_JSON = "api/results/summary.json"
SUMMARY_SCHEMA = "api/results/summary.schema.json"
SUMMARY_PARTS = "api/results/summary"  # summary.json's parts: one per agent, one per mission version
RUNS_JSON = "api/results/runs.json"  # the ledger's index: every data part (count/ledger.py)
RUNS_SCHEMA = "api/results/runs.schema.json"
FEED = "feed.xml"  # written only with base_url (Atom needs absolute links)
LEDGER_JS = "api/results/ledger.js"  # the same index, as a script for the ledger page (works from file://)
LEDGER = "runs/index.html"
LEDGER_PARTS = "api/results/ledger"
COMPARE_JSON = "api/results/compare.json"
COMPARE_SCHEMA = "api/results/compare.schema.json"
COMPARE_PARTS = "api/results/compare"  # compare.json's parts: one per agent, one per pair with a page
PROGRESS_SCHEMA = "api/results/progress.schema.json"
PROGRESS_DIR = "api/results/progress"  # one file an agent: progress_path
DATA_FILES = {
    "summary": SUMMARY_JSON,
    "schema": SUMMARY_SCHEMA,
    "runs_json": RUNS_JSON,
    "runs_schema": RUNS_SCHEMA,
    "ledger_js": LEDGER_JS,
    "compare": COMPARE_JSON,
    "compare_schema": COMPARE_SCHEMA,
    "progress_schema": PROGRESS_SCHEMA,
}
COMPARE_INDEX = "compare/index.html"
MODELS_INDEX = "models/index.html"
HOME = "index.html"
MISSIONS_INDEX = "missions/index.html"
NOT_FOUND = "404.html"
ASSETS = "assets"  # a theme's static files, under their own relative paths
CHANGES_JSON = "api/results/changes.json"
REDIRECTS_JSON = "api/results/redirects.json"
CHANGES_INDEX = "changes/index.html"
SITEMAP = "sitemap.xml"
ROBOTS = "robots.txt"
ABOUT = "about/index.html"  # "About these numbers" (podium/pages/about.md, or a content page of slug "about")
# Its sections, by what they explain: each page links a figure's words to the one that explains them. Each
# is the slug of the section's heading (render/markdown.py); tests/site/test_about_links.py checks they exist.
ABOUT_SECTIONS = {
    "kinds": "what-the-headline-number-is",
    "ended": "how-runs-ended-completed-and-cut-short",
    "intervals": "ranges-and-intervals",
    "ranks": "how-clear-a-rank-is",
    "coverage": "where-a-median-was-earned",
    "moving": "which-way-an-agent-is-moving",
    "points": "percentage-points",
    "evidence": "how-sure-a-verdict-is",
    "too_few": "too-few-runs",
    "configuration": "what-a-configuration-is",
    "head_to_head": "head-to-head",
    "charts": "reading-the-charts",
    "cost": "what-each-score-costs",
    "data": "the-data-files",
}


def about(topic: str) -> str:
    """The site path of the section of "About these numbers" that explains ``topic`` (an ABOUT_SECTIONS key)."""
    return f"{ABOUT}#{ABOUT_SECTIONS[topic]}"


def slug(text: str) -> str:
    """Lower-case ASCII letters, digits and ``-``; never empty, never a reserved name."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    value = _NON_SLUG.sub("-", ascii_text.lower()).strip("-")[:MAX_SLUG].strip("-")
    if not value:
        return "x-" + _digest(text, 6)
    return value + "-x" if value in _RESERVED else value


def version_segment(version: str) -> str:
    """A mission version as a path segment: ``1.3.0`` stays readable; anything else is slugged."""
    lowered = version.lower()
    if _VERSION_SAFE.match(lowered) and ".." not in lowered:
        return lowered
    return slug(version)


def unique_slugs(names: dict[str, str], make=slug, tagged: Collection[str] = ()) -> dict[str, str]:
    """key -> slug of its name; names that slug alike get a stable suffix from their key.

    The one whose name already is the slug keeps it plain, so a newcomer with a
    similar name never moves an existing permalink. A ``tagged`` key's slug always ends
    in a digest of its key (a redacted model key: safety/safe.py), so another name that
    slugs alike never moves it either; it takes part in the same pass as every other.
    """
    by_slug: dict[str, list[str]] = {}
    for key, name in names.items():
        base = make(name)
        if key in tagged:
            base = f"{base[: MAX_SLUG - 7].rstrip('-')}-{_digest(key, 6)}"
        by_slug.setdefault(base, []).append(key)
    out: dict[str, str] = {}
    taken = set(by_slug)
    for base, keys in sorted(by_slug.items()):
        if len(keys) == 1:
            out[keys[0]] = base
            continue
        plain = [k for k in keys if names[k] == base and k not in tagged]
        for key in sorted(keys):
            if len(plain) == 1 and key == plain[0]:
                out[key] = base
                continue
            size = 6
            while (candidate := f"{base}-{_digest(key, size)}") in taken:
                size += 2
            taken.add(candidate)
            out[key] = candidate
    return out


def _digest(text: str, size: int) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:size]


def mission_slugs(names: dict[str, str]) -> dict[str, str]:
    """unique_slugs for missions: never ``page``, which the pages of mission cards use (``missions/page/<n>/``)."""
    return unique_slugs(names, make=lambda name: slug(name) + ("-x" if slug(name) == "page" else ""))


def agent_path(agent_slug: str) -> str:
    return f"agents/{agent_slug}/index.html"


def progress_path(agent_slug: str) -> str:
    """An agent's progress file (docs/rules/progress.md §5)."""
    return f"{PROGRESS_DIR}/{agent_slug}.json"


def mission_path(mission_slug: str, segment: str) -> str:
    return f"missions/{mission_slug}/{segment}/index.html"


def pair_path(slug_1: str, slug_2: str) -> str:
    """A head-to-head page: the two agent slugs in sorted order, so the permalink survives a change of rank."""
    first, second = sorted((slug_1, slug_2))
    return f"compare/{first}/{second}/index.html"


def summary_agent_data_path(agent_slug: str) -> str:
    """An agent's part of summary.json: its figures per mission version, coverage and model lists
    (render/summary_parts.py)."""
    return f"{SUMMARY_PARTS}/agents/{agent_slug}.json"


def summary_mission_data_path(mission_slug: str, segment: str) -> str:
    """A mission version's part of summary.json: every agent's figures on it, beside its page's path."""
    return f"{SUMMARY_PARTS}/missions/{mission_slug}/{segment}.json"


def compare_agent_data_path(agent_slug: str) -> str:
    """An agent's part of the comparison data: every pair it is in (render/compare_data.py)."""
    return f"{COMPARE_PARTS}/{agent_slug}.json"


def compare_pair_data_path(slug_1: str, slug_2: str) -> str:
    """A pair with a page, with every shared version: beside its page's path (the slugs in sorted order)."""
    first, second = sorted((slug_1, slug_2))
    return f"{COMPARE_PARTS}/{first}/{second}.json"


def model_path(model_slug: str) -> str:
    return f"models/{model_slug}/index.html"


RUN_PAGE = re.compile(r"^runs/[0-9a-f]{32}/index\.html$")  # what run_path makes
RUN_PATH = "runs/{run}/index.html"  # a run's own page; the ledger's script fills in {run} (runs.html)


def run_path(run_id: str) -> str:
    if not RUN_DIR.match(run_id):
        raise ValueError(f"not a run id: {run_id!r}")
    return RUN_PATH.format(run=run_id)


def ledger_page_path(bucket: str, number: int) -> str:
    """A page of the ledger: one month's runs (``2026-09``, or ``undated``), ``number`` counted from its oldest."""
    return f"runs/{bucket}/{number}/index.html"


def ledger_part_paths(agent_slug: str, mission_slug: str, number: int) -> dict[str, str]:
    """One data part of the ledger (an agent's runs on a mission, ``number`` counted from the oldest), per format."""
    base = f"{LEDGER_PARTS}/{agent_slug}/{mission_slug}/{number}"
    return {"jsonl_gz": f"{base}.jsonl.gz", "csv": f"{base}.csv", "script": f"{base}.js"}


def missions_page_path(number: int) -> str:
    """A page of the mission cards: the first is the missions index."""
    return MISSIONS_INDEX if number == 1 else f"missions/page/{number}/index.html"


def change_path(number: int) -> str:
    return f"changes/{number}/index.html"


def badge_path(agent_slug: str) -> str:
    return f"badges/{agent_slug}.svg"


def sitemap_part(number: int) -> str:
    return f"sitemap-{number}.xml"


# Every kind of path above, once: the first segment of each is podium's, so no content page
# (``<slug>/index.html``) may take it (load/content.py). A new route is added here too; a test
# checks every path a built site holds against this.
EVERY_ROUTE = (
    SUMMARY_JSON,
    SUMMARY_SCHEMA,
    summary_agent_data_path("x"),
    summary_mission_data_path("x", "1"),
    RUNS_JSON,
    RUNS_SCHEMA,
    FEED,
    LEDGER_JS,
    LEDGER,
    LEDGER_PARTS,
    COMPARE_JSON,
    COMPARE_SCHEMA,
    COMPARE_INDEX,
    MODELS_INDEX,
    HOME,
    MISSIONS_INDEX,
    NOT_FOUND,
    ASSETS + "/",
    CHANGES_JSON,
    REDIRECTS_JSON,
    CHANGES_INDEX,
    SITEMAP,
    ROBOTS,
    agent_path("x"),
    mission_path("x", "1"),
    pair_path("a", "b"),
    model_path("x"),
    run_path("0" * 32),
    ledger_page_path("2026-01", 1),
    missions_page_path(2),
    change_path(1),
    badge_path("x"),
    sitemap_part(1),
)
SECTIONS = frozenset(path.split("/")[0].removesuffix(".html") for path in EVERY_ROUTE)


def reserved(content_slug: str) -> bool:
    """Whether a content page with this slug would collide with one of podium's own paths."""
    return content_slug in SECTIONS


def permalink(path: str) -> str:
    """The URL path a host serves a page at: ``agents/osprey/index.html`` -> ``agents/osprey/``."""
    return path.removesuffix("index.html")


def relative(from_path: str, to_path: str) -> str:
    """The relative link from page ``from_path`` to file ``to_path`` (both site-root paths)."""
    depth = from_path.count("/")
    return "../" * depth + to_path
