"""Publishing (issue 8): host budgets, run_pages, sitemap/robots/Open Graph, anchors, progress, CLI output."""

from __future__ import annotations

import io
import json
import posixpath
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import sitekit as kit
from click.testing import CliRunner
from exportkit import ExportDir, graded, run_id
from sitekit import ledger_rows
from test_site_links import is_ledger_view

from podium.commands.cli import main
from podium.commands.progress_bar import Progress
from podium.config import load_config
from podium.count.summarize import summarize
from podium.errors import ConfigError
from podium.plan.entries import LedgerPage
from podium.plan.site import Site, plan_site
from podium.render.report import ReportRenderer
from podium.render.site import SiteRenderer, render_site
from podium.render.templates import builtin_themes, theme_chain
from podium.safety.redact import Redaction
from podium.safety.safe import public_board
from podium.write import hosts
from podium.write.hosts import HOSTS, Host, Meter, OverBudget, fitting_newest, human_size

SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def make_export(root: Path, per_group: int = 6) -> ExportDir:
    export = ExportDir(root)
    n = 0
    for agent in ("osprey", "kestrel"):
        for version in ("1.0.0", "0.9.0"):
            for _ in range(per_group):
                n += 1
                rid = run_id(f"pub-{n}")
                export.run(
                    graded(rid, det=(n % 5) / 4, mission_version=version),
                    rid=rid,
                    agent=agent,
                    version=version,
                    at=n * 7,
                )
    return export.sidecars()


@pytest.fixture(scope="module")
def export_root(tmp_path_factory):
    return make_export(tmp_path_factory.mktemp("pub") / "export").root


def build(export_root: Path, out: Path, **config) -> dict[str, bytes]:
    kit.build(export_root, out, **config)
    return kit.site_files(out)


def run_pages(files) -> set[str]:
    return {p for p in files if p.startswith("runs/") and p.count("/") == 2 and p != "runs/index.html"}


# ------------------------------------------------------------------ config


def test_config_keys_are_validated_with_their_names(tmp_path):
    path = tmp_path / "podium.yaml"
    path.write_text("host: moon\nrun_pages: {newest: 0}\nsearch_engines: maybe\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    text = str(err.value.message)
    assert "host: expected one of none, github-pages, gitlab-pages, cloudflare-free, cloudflare" in text
    assert "run_pages: expected `all` or {newest: N}" in text
    assert "search_engines: expected true or false" in text
    path.write_text("host: gitlab-pages\nrun_pages: {newest: 3}\nsearch_engines: false\n", encoding="utf-8")
    config = load_config(path)
    assert (config.host, config.run_pages, config.search_engines) == ("gitlab-pages", 3, False)
    path.write_text("run_pages: all\n", encoding="utf-8")
    assert load_config(path).run_pages is None


# ------------------------------------------------------------------ run_pages


def test_run_pages_newest_keeps_every_run_and_links_the_rest_to_ledger_rows(export_root, tmp_path):
    full = build(export_root, tmp_path / "full")
    files = build(export_root, tmp_path / "slim", run_pages=2)
    runs = ledger_rows(files)
    assert len(runs) == len(ledger_rows(full)) == 24
    assert files["api/results/summary.json"] == full["api/results/summary.json"]
    # Two pages per agent and mission version, the newest two.
    with_page = {r["url"] for r in runs if "#" not in r["url"]}
    assert run_pages(files) == with_page and len(with_page) == 2 * 2 * 2
    groups: dict = {}
    for row in runs:  # newest first
        groups.setdefault((row["agent"], row["mission"], row["version"]), []).append(row)
    for rows in groups.values():
        assert all("#" not in r["url"] for r in rows[:2])
        for row in rows[2:]:
            page, _, anchor = row["url"].partition("#")
            assert re.fullmatch(r"runs/\d{4}-\d{2}/\d+/index\.html", page) and anchor == f"run-{row['run_id']}"
            assert f'id="{anchor}"'.encode() in files[page]  # its row, on the ledger page the link names
    # Every run is still a ledger row, and every link (with its fragment) resolves.
    ledger = kit.parse_html(files["runs/index.html"].decode())
    assert {r["run_id"] for r in runs} <= {i.removeprefix("run-") for i in ledger.ids()}
    docs = {p: kit.parse_html(t) for p, t in kit.pages(files).items()}
    ids = {p: set(d.ids()) for p, d in docs.items()}
    bad = []
    for page, doc in docs.items():
        for tag in doc.tags:
            for name, url in tag.attrs:
                if name in ("href", "src", "xlink:href") and url and kit.is_internal(url):
                    path, fragment = kit.split_target(url)
                    target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) if path else page
                    if target not in files or (
                        fragment and fragment not in ids.get(target, ()) and not is_ledger_view(target, fragment)
                    ):
                        bad.append((page, url))
    assert bad == []
    # Agent pages link the runs without a page to their ledger rows.
    agent_page = files["agents/osprey/index.html"].decode()
    assert re.search(r"runs/\d{4}-\d{2}/\d+/index\.html#run-", agent_page)


def test_ledger_anchor_names_the_page_the_row_is_on():
    """A run without a page links to its row: the ledger page of its month that lists it (count/ledger.py)."""
    from test_scale import synthetic_export

    board = summarize(synthetic_export(800))
    ledger = board.ledger
    for index, record in enumerate(board.runs):
        anchor = ledger.anchor(index, record.run_id)
        page = ledger.pages[ledger.page_of[index]]
        assert anchor == f"{page.path}#run-{record.run_id}" and index in page.runs
        assert page.path == f"runs/{record.when:%Y-%m}/{page.number}/index.html"
    assert {p.path for p in ledger.pages} >= {"runs/2026-01/1/index.html"}


def test_fitting_newest():
    assert fitting_newest([10, 10, 3], 30) == 10
    assert fitting_newest([10, 10, 3], 13) == 5
    assert fitting_newest([10, 10], 1) == 0


# ------------------------------------------------------------------ host budgets


def test_over_budget_fails_names_the_limit_and_leaves_the_previous_site(export_root, tmp_path, monkeypatch):
    out = tmp_path / "site"
    before = build(export_root, out)
    run_bytes = sum(len(before[p]) for p in run_pages(before))
    tiny = Host("tiny", "Tiny host", max_bytes=sum(map(len, before.values())) - run_bytes // 2, max_files=1000)
    monkeypatch.setitem(HOSTS, "tiny", tiny)
    with pytest.raises(OverBudget) as err:
        kit.build(export_root, out, host="tiny", title="changed")
    message = err.value.message
    assert err.value.exit_code == 3
    assert "host: tiny: the site would not fit. Tiny host publishes at most" in message
    assert f"in {len(before):,} files" in message  # the whole site was measured
    assert "Nothing was written; the previous site is untouched." in message
    assert "run_pages: {newest: N}" in message and "about N = " in message
    assert kit.site_files(out) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".podium") and p.name != ".podium-cache"] == []
    # The suggested N does fit.
    n = int(message.rsplit("about N = ", 1)[1].split()[0])
    build(export_root, out, host="tiny", run_pages=n)


def _over(host: Host, files: list[tuple[str, int]], groups=(5, 5)) -> str:
    meter = Meter(host, groups=list(groups))
    with pytest.raises(OverBudget) as err:
        list(meter.watch((path, b"x" * size) for path, size in files))
    return err.value.message


def test_the_host_message_names_what_is_over_and_never_advises_what_cannot_help():
    """Issue 34 item 6: 1,400 one-run agents made a 1.02 GB site, 989 MB of it comparison parts, and the message
    advised `run_pages`, which cannot make that fit. It names the largest parts of the site (under api/results/
    by their own folder), and says when fewer run pages cannot help."""
    runs = [(f"runs/{n:032x}/index.html", 1_000) for n in range(10)]
    parts = [(f"api/results/compare/agent-{n}.json", 100_000) for n in range(12)]
    message = _over(Host("gh", "GitHub Pages", max_bytes=10**6), [*runs, *parts, ("index.html", 5_000)])
    assert "Its largest parts: api/results/compare/ 1.2 MB in 12 files; runs/ 10.0 kB in 10 files; files at " in message
    assert "`run_pages` cannot make it fit" in message and "about N = " not in message
    # where run pages are what is over, the advice stands, with an N that fits
    message = _over(
        Host("gh", "GitHub Pages", max_bytes=10**6), [(p, 100_000) for p, _ in runs] + [("index.html", 5_000)]
    )
    assert "Its largest parts: runs/ 1.0 MB in 10 files" in message and "about N = 4 would fit" in message
    # a file over the per-file limit: named, and no advice about run pages
    message = _over(Host("cf", "Cloudflare", max_file_bytes=50_000), [*runs, ("api/results/summary.json", 60_000)])
    assert "api/results/summary.json is 60.0 kB, over the 50.0 kB per-file limit" in message
    assert "run_pages" not in message


def test_file_count_and_per_file_limits(export_root, tmp_path, monkeypatch):
    monkeypatch.setitem(HOSTS, "few", Host("few", "Few files", max_files=10))
    monkeypatch.setitem(HOSTS, "small", Host("small", "Small files", max_file_bytes=20_000))
    with pytest.raises(OverBudget, match="Few files publishes at most 10 files"):
        kit.build(export_root, tmp_path / "a", host="few")
    with pytest.raises(OverBudget) as err:
        kit.build(export_root, tmp_path / "b", host="small")
    assert "over the 20.0 kB per-file limit" in err.value.message
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_known_hosts():
    assert HOSTS["github-pages"].max_bytes == 10**9 and HOSTS["github-pages"].max_files is None
    assert (HOSTS["gitlab-pages"].max_bytes, HOSTS["gitlab-pages"].max_files) == (10**9, 200_000)
    assert (HOSTS["cloudflare-free"].max_files, HOSTS["cloudflare-free"].max_file_bytes) == (20_000, 25 * 2**20)
    assert (HOSTS["cloudflare"].max_files, HOSTS["cloudflare"].max_file_bytes) == (100_000, 25 * 2**20)
    assert human_size(25 * 2**20) == "25 MiB" and human_size(10**9) == "1.0 GB" and human_size(999) == "999 bytes"


def test_build_prints_a_readable_size_and_the_budget(export_root, tmp_path):
    config = tmp_path / "podium.yaml"
    config.write_text(f"export: {export_root}\nhost: gitlab-pages\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["build", "--config", str(config), "--out", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    last = result.stderr.splitlines()[-2]  # the last line says where to look (tests/commands/test_cli.py)
    assert last.startswith("podium: wrote ") and (" MB in " in last or " kB in " in last)
    assert "(GitLab Pages: " in last and "% of its 1.0 GB, " in last and "% of its 200,000 files)" in last
    assert "note: sitemap.xml left out" in result.stderr
    quiet = CliRunner().invoke(main, ["build", "--config", str(config), "--out", str(tmp_path / "s"), "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == ""
    verbose = CliRunner().invoke(main, ["build", "--config", str(config), "--out", str(tmp_path / "s"), "-v"])
    assert "largest: " in verbose.stderr and "run pages, " in verbose.stderr and "runs/ " in verbose.stderr
    over = tmp_path / "over.yaml"
    over.write_text(f"export: {export_root}\nhost: cloudflare-free\n", encoding="utf-8")
    ok = CliRunner().invoke(main, ["build", "--config", str(over), "--out", str(tmp_path / "t")])
    assert ok.exit_code == 0


# ------------------------------------------------------------------ sharing


def test_sitemap_robots_and_preview_meta(export_root, tmp_path):
    files = build(export_root, tmp_path / "site", base_url="https://x.example/board/", title="Board")
    root = ET.fromstring(files["sitemap.xml"])
    locs = [u.find(f"{SITEMAP_NS}loc").text for u in root.findall(f"{SITEMAP_NS}url")]
    pages = sorted(p for p in kit.pages(files) if p != "404.html")
    assert locs == [f"https://x.example/board/{p.removesuffix('index.html')}" for p in pages]
    assert files["robots.txt"] == b"User-agent: *\nAllow: /\nSitemap: https://x.example/board/sitemap.xml\n"
    head = kit.parse_html(files["index.html"].decode()).head()
    meta = {m.get("property") or m.get("name"): m.get("content") for m in head.iter("meta")}
    assert meta["og:url"] == "https://x.example/board/"
    assert meta["og:title"] == "Agents · Board" and meta["twitter:card"] == "summary"
    summary = json.loads(files["api/results/summary.json"])
    top = summary["agents"][0]
    assert meta["og:description"].startswith(f"{top['name']} leads with a median of {top['median'] * 100:.1f}%")
    assert meta["og:description"] == meta["description"]  # one sentence for both
    assert meta["twitter:description"] == meta["og:description"] == meta["description"]
    agent = {
        m.get("property") or m.get("name"): m.get("content")
        for m in kit.parse_html(files[top["url"]].decode()).head().iter("meta")
    }
    assert f"rank #1: median {top['median'] * 100:.1f}%" in agent["og:description"]
    assert "robots" not in meta


def test_no_base_url_no_sitemap_and_no_preview_meta(export_root, tmp_path):
    files = build(export_root, tmp_path / "site")
    assert "sitemap.xml" not in files and files["robots.txt"] == b"User-agent: *\nAllow: /\n"
    names = {m.get("property") or m.get("name") for m in kit.parse_html(files["index.html"].decode()).all("meta")}
    assert not names & {"og:url", "og:description", "twitter:card"}
    assert "description" in names  # every page has its headline sentence, base_url or not


def test_search_engines_false_disallows_and_noindexes_every_page(export_root, tmp_path):
    files = build(export_root, tmp_path / "site", base_url="https://x.example/", search_engines=False)
    assert files["robots.txt"].endswith(b"User-agent: *\nDisallow: /\n")
    assert "sitemap.xml" not in files
    for path, text in kit.pages(files).items():
        robots = [m.get("content") for m in kit.parse_html(text).all("meta") if m.get("name") == "robots"]
        assert robots == ["noindex"], path


def test_sitemap_index_past_fifty_thousand_urls():
    from podium.plan.crawlers import crawler_files
    from podium.plan.entries import Page
    from podium.render.crawlers import crawler_bytes

    pages = [Page(f"runs/{n:032x}/index.html", "run.html", {}) for n in range(50_001)]
    files = {f.path: crawler_bytes(f) for f in crawler_files(pages, "https://x.example", True)}
    assert sorted(files) == ["robots.txt", "sitemap-1.xml", "sitemap-2.xml", "sitemap.xml"]
    index = ET.fromstring(files["sitemap.xml"])
    assert [s.find(f"{SITEMAP_NS}loc").text for s in index] == [
        "https://x.example/sitemap-1.xml",
        "https://x.example/sitemap-2.xml",
    ]
    assert len(ET.fromstring(files["sitemap-2.xml"])) == 1


def test_stable_anchors_on_cards_and_rows(export_root, tmp_path):
    files = build(export_root, tmp_path / "site")
    summary = json.loads(files["api/results/summary.json"])
    runs = ledger_rows(files)
    home = set(kit.parse_html(files["index.html"].decode()).ids())
    assert {f"agent-{a['slug']}" for a in summary["agents"]} <= home
    ledger = set(kit.parse_html(files["runs/index.html"].decode()).ids())
    assert {f"run-{r['run_id']}" for r in runs} <= ledger
    for mission in summary["missions"]:
        ids = set(kit.parse_html(files[mission["url"]].decode()).ids())
        _, slug, version, _ = mission["url"].split("/")
        assert f"mission-{slug}-{version}" in ids
        assert {
            f"agent-{a['slug']}" for a in summary["agents"] if a["agent"] in {m["agent"] for m in mission["agents"]}
        } <= ids
        assert f"mission-{slug}-{version}" in set(kit.parse_html(files["missions/index.html"].decode()).ids())
    for agent in summary["agents"]:
        ids = set(kit.parse_html(files[agent["url"]].decode()).ids())
        mine = [r for r in runs if r["agent"] == agent["agent"]]
        assert {f"run-{r['run_id']}" for r in mine} <= ids


# ------------------------------------------------------------------ progress


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_plain_lines_in_logs_and_a_bar_on_terminals():
    clock, log = Clock(), io.StringIO()
    progress = Progress(log, tty=False, clock=clock, delay=1.0, log_every=10.0)
    for done in range(1, 101):
        clock.now = done * 0.5
        progress(done, 100, "x")
    lines = log.getvalue().splitlines()
    assert lines[0] == "podium: rendered 2 of 100 files (2%, 1 s)"
    assert lines[-1] == "podium: rendered 100 of 100 files (100%, 50 s)"
    assert len(lines) == 6 and "\r" not in log.getvalue()
    fast, quick = io.StringIO(), Clock()
    progress = Progress(fast, tty=False, clock=quick)
    for done in range(1, 101):
        progress(done, 100, "x")
    assert fast.getvalue() == ""  # a build within a moment prints nothing
    term, clock = io.StringIO(), Clock()
    progress = Progress(term, tty=True, clock=clock, delay=1.0)
    for done in range(1, 11):
        clock.now = done
        progress(done, 10, "x")
    progress.finish()
    assert "\r\x1b[2Kpodium: [" in term.getvalue() and " 100% 10/10 files" in term.getvalue()
    assert term.getvalue().endswith("\r\x1b[2K") and "\n" not in term.getvalue()


# ------------------------------------------------------------------ scale


@pytest.mark.slow
def test_100k_runs_fit_github_pages_with_every_run_in_the_data():
    """A 100k-run export within `host: github-pages` (1 GB) with run_pages: {newest: 20}: measured, not written."""
    from test_scale import synthetic_export

    runs = 100_000
    export = synthetic_export(runs)
    board = summarize(export, run_pages=20)
    redaction = Redaction((), export.runs)
    public = public_board(board, redaction)
    chain = theme_chain("default", [builtin_themes()])
    manifest = plan_site(public, Site("scale", "https://x.example/", (), None))
    whole = InMemoryRuns({run.run_id: run for run in export.runs})
    renderer = SiteRenderer(chain, public, board.runs, whole, ReportRenderer(Path("."), 1, redaction), None)
    meter = Meter(HOSTS["github-pages"], groups=hosts.group_sizes(board))
    outputs = dict(meter.watch(render_site(manifest, renderer)))
    total = sum(len(data) for data in outputs.values())
    print(f"{meter.files} files, {total} bytes; {meter.run_pages} run pages of {meter.run_page_bytes} bytes")
    assert not meter.over() and total < HOSTS["github-pages"].max_bytes
    summary = json.loads(outputs["api/results/summary.json"])
    assert summary["totals"]["runs"] == runs
    ledger = ledger_rows(outputs)
    assert len(ledger) == runs and len({r["run_id"] for r in ledger}) == runs
    paged = sum(len(item.page.context["rows"]) for item in manifest if isinstance(item, LedgerPage))
    assert paged == runs
    assert meter.run_pages == sum(min(n, 20) for n in hosts.group_sizes(board)) < runs


class InMemoryRuns:
    """Whole runs for run pages from the synthetic export (which has no files to read them again from)."""

    def __init__(self, runs: dict):
        self.runs = runs

    def whole(self, record):
        return self.runs[record.run_id]
