"""Every link of the published site resolves inside it (hostile-input.md I8; site.md "Pages and permalinks").

Built twice: the demo export with the repository's podium.yaml, and the hostile
export of tests/sitekit.py. Links are relative and name a file, so the site works
under any sub-path and straight from disk.
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
import sitekit as kit
from exportkit import ExportDir
from sitekit import ledger_rows

from podium.build import build_site
from podium.config import load_config

REPO = Path(__file__).resolve().parents[2]
FILE_ENDINGS = (".html", ".json", ".csv", ".js", ".css", ".woff2", ".svg")
LEDGER_VIEW_KEYS = {"q", "kind", "agent", "mission", "sort", "dir"}
LINK_ATTRS = ("href", "src", "xlink:href", "data-ledger", "action")
MAX_PAGE = 2 * 1024 * 1024


@pytest.fixture(scope="module", params=["demo", "hostile"])
def site(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(request.param)
    out = root / "site"
    if request.param == "demo":
        with pytest.MonkeyPatch.context() as mp:
            mp.chdir(REPO)
            build_site(load_config(Path("podium.yaml"), {"out": out}), Path("content/demo-export"))
    else:
        export = ExportDir(root / "export")
        kit.hostile_export(export)
        kit.build(export.root, out, root=root)
    files = kit.site_files(out)
    pages = kit.pages(files)
    return {
        "name": request.param,
        "out": out,
        "files": files,
        "pages": pages,
        "docs": {path: kit.parse_html(text) for path, text in pages.items()},
        "summary": json.loads(files["api/results/summary.json"]),
        "runs": ledger_rows(files),
    }


def page_links(doc: kit.Document) -> list[tuple[str, str]]:
    return [(name, value) for tag in doc.tags for name, value in tag.attrs if name in LINK_ATTRS and value is not None]


def resolve(page: str, url: str) -> tuple[str, str]:
    """The site path a relative link from ``page`` names, and its fragment."""
    path, fragment = kit.split_target(url)
    if not path:
        return page, fragment
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
    return target, fragment


def is_ledger_view(target: str, fragment: str) -> bool:
    """A link to a ledger page whose fragment is a view (#agent=kestrel&kind=timed_out), not an id."""
    if target != "runs/index.html" and not re.fullmatch(r"runs/page/\d+/index\.html", target):
        return False
    pairs = parse_qsl(fragment, keep_blank_values=True, strict_parsing=True)
    return bool(pairs) and all(key in LEDGER_VIEW_KEYS and value for key, value in pairs)


def test_every_internal_link_resolves_to_a_file(site):
    files, docs = site["files"], site["docs"]
    ids = {path: set(doc.ids()) for path, doc in docs.items()}
    checked, bad = 0, []
    for page, doc in docs.items():
        for _name, url in page_links(doc):
            if not kit.is_internal(url):
                continue
            checked += 1
            target, fragment = resolve(page, url)
            if url.startswith("/") or target.startswith("../") or target == "..":
                bad.append((page, url, "not relative inside the site"))
            elif target not in files:
                bad.append((page, url, "no such file"))
            elif fragment and fragment not in ids.get(target, ()) and not is_ledger_view(target, fragment):
                bad.append((page, url, "no such id"))
    assert checked > 500
    assert bad == []


def test_every_link_names_a_file_or_a_fragment(site):
    bad = []
    for page, doc in site["docs"].items():
        for _name, url in page_links(doc):
            if not kit.is_internal(url):
                continue
            path, fragment = kit.split_target(url)
            if not path and fragment:
                continue
            if not path.endswith(FILE_ENDINGS):
                bad.append((page, url))
    assert bad == []


def test_css_urls_resolve(site):
    files = site["files"]
    css = files["assets/podium.css"].decode("utf-8")
    urls = kit.css_urls(css)
    fragments = {u[1:] for u in urls if u.startswith("#")}
    files_named = [u for u in urls if not u.startswith("#")]
    assert files_named, "the CSS ships its fonts"
    for url in files_named:
        assert kit.is_internal(url), url
        target, _ = resolve("assets/podium.css", url)
        assert target in files, url
        assert target.endswith(FILE_ENDINGS), url
    # url(#…) names a pattern of the page: every page drawing a strip carries the legend's <defs>.
    assert fragments == {"podium-hatch", "podium-stripes"}
    for page, doc in site["docs"].items():
        strips = [s for s in doc.all("svg") if "strip" in (s.get("class") or "").split()]
        if strips:
            assert fragments <= set(doc.ids()), page


def test_permalinks_exist(site):
    files, summary = site["files"], site["summary"]
    fixed = [
        "index.html",
        "missions/index.html",
        "runs/index.html",
        "404.html",
        "api/results/summary.json",
        "api/results/runs.json",
        "api/results/runs.schema.json",
        "api/results/ledger.js",
    ]
    assert [p for p in fixed if p not in files] == []
    agents = summary["agents"] + summary["agents_older"]
    assert agents
    for agent in agents:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", agent["slug"]), agent["slug"]
        assert agent["url"] == f"agents/{agent['slug']}/index.html"
        assert agent["url"] in files
    assert summary["missions"]
    for mission in summary["missions"]:
        assert re.fullmatch(r"missions/[a-z0-9-]+/[a-z0-9][a-z0-9.-]*/index\.html", mission["url"])
        assert mission["url"] in files
    assert site["runs"]
    for run in site["runs"]:
        assert re.fullmatch(r"[0-9a-f]{32}", run["run_id"])
        assert run["url"] == f"runs/{run['run_id']}/index.html"
        assert run["url"] in files
    run_pages = {p for p in files if p.startswith("runs/") and p.count("/") == 2 and p != "runs/index.html"}
    assert run_pages == {r["url"] for r in site["runs"]}


def test_navigation_names_every_section_and_content_page(site):
    nav = [a.get("href") for a in site["docs"]["index.html"].all("a") if a.parent.tag == "li"]
    pages = ["about/index.html"]  # podium's own "About these numbers" (podium/pages/about.md), with or without content/
    assert (
        nav
        == ["index.html", "missions/index.html", "compare/index.html", "models/index.html", "runs/index.html"] + pages
    )
    assert all(p in site["files"] for p in nav)


def test_every_url_in_the_summary_exists(site):
    urls = []

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "url" and isinstance(item, str):
                    urls.append(item)
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(site["summary"])
    walk(site["runs"])
    assert len(urls) > len(site["runs"])
    assert sorted({u for u in urls if u not in site["files"]}) == []


def test_404_links_home(site):
    doc = site["docs"]["404.html"]
    (main,) = doc.all("main")
    targets = [resolve("404.html", a.get("href"))[0] for a in main.iter("a")]
    assert "index.html" in targets


def test_page_count_and_size(site):
    sizes = {path: len(site["files"][path]) for path in site["pages"]}
    largest = max(sizes, key=sizes.get)
    print(f"{site['name']}: {len(sizes)} pages, largest {largest} at {sizes[largest]} bytes")
    assert len(sizes) >= 10
    assert {p: s for p, s in sizes.items() if s >= MAX_PAGE} == {}
