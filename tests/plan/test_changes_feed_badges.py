"""Publishing from CI (issue 8): `podium diff`, the change report pages, the feed, badges, redirects.

The two bundles of the diff tests come from real exports (exportkit) through the real
summary step, and cover every kind of change the report names. The Markdown the
pair gives is committed as tests/golden/diff.md (`--update-golden` rewrites it).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from exportkit import ExportDir, agent_id, env_failure, graded, grading, run_id
from sitekit import AGENT_NAMES, hostile_export, pages, parse_html, site_files

from podium.build import build_site
from podium.commands.cli import main
from podium.config import Config
from podium.count import bundle, diff
from podium.count.changes import KEEP_REPORTS, MAX_REDIRECTS
from podium.load import published, shape
from podium.load.files import NotReadable
from podium.plan.changes import FEED_RUNS
from podium.render.data import dump_json, summary_data
from podium.views import count_export, public_view
from podium.words import diff_text

GOLDEN_MD = Path(__file__).parents[1] / "golden" / "diff.md"
ATOM = "{http://www.w3.org/2005/Atom}"
SVG = "{http://www.w3.org/2000/svg}"
BASE = "https://results.example/team"
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    monkeypatch.chdir(tmp_path)


def podium(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


# ------------------------------------------------------------------ the two exports


def g(n, score, **kw):
    """A graded run with overall == ``score`` exactly (both halves equal)."""
    return graded(run_id(n), det=score, judge=score, **kw)


OSPREY = [0.6, 0.65, 0.7, 0.7, 0.75, 0.8, 0.9]  # median 0.7, CI [0.6, 0.9]


def old_export(root: Path) -> ExportDir:
    e = ExportDir(root)
    for i, s in enumerate(OSPREY):
        e.run(g(100 + i, s), agent="osprey", at=i)
    for i in range(6):
        e.run(g(200 + i, 0.8), agent="kestrel", at=10 + i)  # median 0.8, CI [0.8, 0.8]
    e.run(g(300, 0.5), agent="harrier", at=20)
    e.run(g(301, 0.4), agent="harrier", at=21)
    e.run(g(400, 0.3, mission_version="1.0.0"), agent="merlin", mission="m2", at=30)
    e.run(grading(run_id(401)), rid=run_id(401), agent="merlin", mission="m2", at=31)
    return e.sidecars()


def new_export(root: Path) -> ExportDir:
    e = ExportDir(root)
    for i, s in enumerate(OSPREY):
        e.run(g(100 + i, s), agent="osprey", at=i)
    e.run(g(107, 0.72), agent="osprey", at=40)  # median 0.71: +1.0 pp, inside both CIs
    e.run(env_failure(run_id(108)), rid=run_id(108), agent="osprey", at=41)  # +1 infra failed
    for i in range(6):
        e.run(g(200 + i, 0.8), agent="kestrel", at=10 + i)
    for i in range(6):
        e.run(g(210 + i, 0.7), agent="kestrel", at=50 + i)  # median 0.75: exactly -5 pp, outside the old CI
    e.run(g(400, 0.3, mission_version="1.0.0"), agent="merlin", mission="m2", at=30)
    e.run(g(401, 0.5, mission_version="1.0.0"), agent="merlin", mission="m2", at=31)  # grading -> graded
    e.run(g(402, 0.6, mission_version="2.0.0"), agent="merlin", mission="m2", version="2.0.0", at=60)
    e.run(g(500, 0.9), agent="falcon", at=70)  # a new agent, straight to rank 1
    e.run(None, rid=run_id(501), agent="falcon", trigger="cancelled", outcome="cancelled", at=71)  # not a run
    e.sidecars()
    # merlin keeps its id but is renamed
    agents = json.loads((root / "agents.json").read_text())
    for row in agents:
        if row["id"] == agent_id("merlin"):
            row["name"] = "merlin prime"
    (root / "agents.json").write_text(json.dumps(agents))
    return e


def bundle_file(export: Path, out: Path) -> Path:
    board = count_export(Config(source="", root=export.parent), export)
    out.write_bytes(dump_json(summary_data(board)))
    return out


@pytest.fixture
def pair(tmp_path) -> tuple[Path, Path]:
    old = bundle_file(old_export(tmp_path / "old-export").root, tmp_path / "old.json")
    new = bundle_file(new_export(tmp_path / "new-export").root, tmp_path / "new.json")
    return old, new


# ------------------------------------------------------------------ podium diff


def test_the_report_names_every_kind_of_change(pair):
    old, new = pair
    report = diff.compare(bundle.load_bundle(old), bundle.load_bundle(new))
    assert report["changed"]
    rows = {r["name"]: r for r in report["agents"]}
    assert [r["name"] for r in report["agents"]] == ["falcon", "kestrel", "osprey", "merlin prime"]
    assert [a["name"] for a in report["agents_added"]] == ["falcon"]
    assert [a["name"] for a in report["agents_gone"]] == ["harrier"]
    assert report["agents_renamed"] == [{"agent": agent_id("merlin"), "old_name": "merlin", "name": "merlin prime"}]
    osprey, kestrel, merlin = rows["osprey"], rows["kestrel"], rows["merlin prime"]
    assert (osprey["old_rank"], osprey["rank"]) == (2, 3)
    assert (kestrel["old_rank"], kestrel["rank"]) == (1, 2)
    assert (merlin["old_rank"], merlin["rank"]) == (4, 4)
    assert osprey["delta"] == pytest.approx(0.01) and osprey["verdict"] == "inside_both_cis"
    assert kestrel["delta"] == pytest.approx(-0.05) and kestrel["verdict"] == "outside_a_ci"
    assert merlin["verdict"] == "no_ci" and merlin["old_median"] == 0.3 and merlin["median"] == 0.6
    assert rows["falcon"]["verdict"] == "new" and rows["falcon"]["is_new"]
    assert osprey["new_runs"] == 2 and osprey["left_out"] == {"infra_failed": 1}
    assert merlin["new_runs"] == 1 and merlin["left_out"] == {"grading": -1}
    assert kestrel["new_runs"] == 6 and kestrel["left_out"] == {}
    t = report["totals"]
    assert t["runs"] == 8 and t["not_a_run"] == 1  # +2 osprey +6 kestrel +1 merlin +1 falcon -2 harrier
    assert t["left_out"] == {"infra_failed": 1, "grading": -1}
    m = report["missions"]
    assert [(x["mission"], x["version"], x["current"]) for x in m["added"]] == [("m2", "2.0.0", True)]
    assert [(x["mission"], x["version"], x["runs"], x["current"]) for x in m["became_older"]] == [
        ("m2", "1.0.0", 2, "2.0.0")
    ]
    assert m["gone"] == []
    assert {(x["mission"], x["version"]): x["new_runs"] for x in m["runs"]} == {("m1", "1.0.0"): 7, ("m2", "2.0.0"): 1}
    cells = {(x["name"], x["mission"], x["version"]): x["new_runs"] for x in report["new_runs"]}
    assert cells == {
        ("falcon", "m1", "1.0.0"): 1,
        ("osprey", "m1", "1.0.0"): 2,
        ("kestrel", "m1", "1.0.0"): 6,
        ("merlin prime", "m2", "2.0.0"): 1,
        ("harrier", "m1", "1.0.0"): -2,
    }


def test_no_change_is_said_plainly(pair):
    old, _ = pair
    report = diff.compare(bundle.load_bundle(old), bundle.load_bundle(old))
    assert not report["changed"]
    assert "No change since the previous summary." in diff_text.to_markdown(report)
    assert all(r["verdict"] == "unchanged" for r in report["agents"])


def test_the_markdown_matches_the_golden_file(pair, request):
    old, new = pair
    result = podium("diff", old, new, "--fail-on-drop", "kestrel=5", "--fail-on-drop", "harrier=50")
    if request.config.getoption("--update-golden"):
        GOLDEN_MD.write_text(result.stdout, encoding="utf-8")
    assert result.stdout == GOLDEN_MD.read_text(encoding="utf-8")
    assert result.exit_code == 1  # harrier is gone: a named gate trips


def test_json_output_is_the_report_plus_gates(pair):
    old, new = pair
    result = podium("diff", old, new, "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["schema"] == "podium.diff/1" and data["gates"] == []
    assert data == {**diff.compare(bundle.load_bundle(old), bundle.load_bundle(new)), "gates": []}


@pytest.mark.parametrize(
    "spec, code",
    [
        ("kestrel=5", 0),  # a drop of exactly 5.0 pp does not trip
        ("kestrel=4.99", 1),
        ("*=5", 0),
        ("*=4.9", 1),
        (f"{agent_id('kestrel')}=4.9", 1),  # by id
        ("KESTREL=5.01", 0),  # by name, case-folded
        ("osprey=0", 0),  # osprey went up
        ("merlin=0", 0),  # the old name still finds the agent; it went up
        ("falcon=0", 0),  # new: nothing to drop from
        ("harrier=100", 1),  # gone: a named gate trips
    ],
)
def test_the_drop_gate_trips_above_its_limit_only(pair, spec, code):
    old, new = pair
    result = podium("diff", old, new, "--fail-on-drop", spec)
    assert result.exit_code == code, result.output
    if code:
        assert "gate tripped" in result.stderr
        assert re.search(r"kestrel|harrier", result.stderr)
    else:
        assert "gate tripped" not in result.stderr


@pytest.mark.parametrize("spec", ["kestrel", "kestrel=", "=5", "kestrel=-1", "kestrel=nan", "nobody=5"])
def test_a_bad_gate_is_a_usage_error(pair, spec):
    old, new = pair
    result = podium("diff", old, new, "--fail-on-drop", spec)
    assert result.exit_code == 2
    assert "--fail-on-drop" in result.stderr


def _bad(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "text, field",
    [
        ("{not json", "not JSON"),
        ("[]", "(top level)"),
        ('{"schema": "other/1"}', "schema"),
        ('{"schema": "podium.summary/1", "totals": {"runs": 1, "counts": {}}, "missions": []}', "agents"),
        (
            '{"schema": "podium.summary/1", "totals": {"runs": -1, "counts": {}}, "agents": [], "missions": []}',
            "totals.runs",
        ),
        (
            '{"schema": "podium.summary/1", "totals": {"runs": 1, "counts": {}}, "missions": [], '
            '"agents": [{"agent": "a", "name": "a", "rank": 1, "runs": 1, "in_median": 1, "median": "80%", '
            '"counts": {}}]}',
            "agents[0].median",
        ),
        (
            '{"schema": "podium.summary/1", "totals": {"runs": 1, "counts": {}}, "missions": [], '
            '"agents": [{"agent": "a", "name": "a", "rank": 1, "runs": 1, "in_median": 1, "median": NaN, '
            '"counts": {}}]}',
            "not JSON",
        ),
        (
            '{"schema": "podium.summary/1", "totals": {"runs": 1, "counts": {}}, "agents": [], '
            '"missions": [{"mission": "m", "version": "1", "current": "yes", "runs": 1}]}',
            "missions[0].current",
        ),
    ],
)
def test_a_file_that_is_not_a_summary_is_exit_2_naming_file_and_field(pair, tmp_path, text, field):
    old, _ = pair
    bad = _bad(tmp_path, "bad.json", text)
    for args in ((old, bad), (bad, old)):
        result = podium("diff", *args)
        assert result.exit_code == 2, result.output
        assert str(bad) in result.stderr and field in result.stderr, result.stderr
        assert result.output == "" or "Error" in result.output


def test_missing_files_and_non_sites_are_exit_2(pair, tmp_path):
    old, _ = pair
    result = podium("diff", old, tmp_path / "nope.json")
    assert result.exit_code == 2 and "nope.json" in result.stderr and "not found" in result.stderr
    (tmp_path / "empty-dir").mkdir()
    result = podium("diff", tmp_path / "empty-dir", old)
    assert result.exit_code == 2 and "api/results/summary.json" in result.stderr and "site" in result.stderr


@pytest.mark.parametrize("make", [old_export, new_export, "hostile"])
def test_the_new_bundle_taken_from_the_board_is_the_summary_read_back(tmp_path, make):
    """count/changes.py count_changes takes the new side of the change report from the board (bundle.bundle_of), never
    by writing summary.json and reading it again: both give the same bundle, hostile names included."""
    if make == "hostile":
        export = ExportDir(tmp_path / "e")
        hostile_export(export)
    else:
        export = make(tmp_path / "e")
    board = public_view(Config(source="", root=tmp_path), export.root)
    read_back = bundle.bundle_from(json.loads(dump_json(summary_data(board))), "the new summary")
    assert bundle.bundle_of(board) == read_back


def test_one_reader_for_every_published_file(tmp_path):
    """load/published.read: strict JSON (NaN, duplicate keys refused, a BOM allowed), bounded, regular files only."""
    path = tmp_path / "x.json"
    path.write_bytes(b'\xef\xbb\xbf{"a": [1, 2]}')
    assert published.read(path) == {"a": [1, 2]}
    for text, why in (
        (b'{"a": NaN}', "not JSON: a: NaN"),
        (b'{"a": 1, "a": 2}', "duplicate key"),
        (b"\xff", "not UTF-8"),
        (b"", "empty"),
        (b"[" * 100_000, "not JSON"),
    ):
        path.write_bytes(text)
        with pytest.raises(NotReadable, match=why):
            published.read(path)
    path.write_bytes(b"{}" + b" " * 100)
    with pytest.raises(NotReadable, match="over the 10-byte limit"):
        published.read(path, limit=10)
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(NotReadable, match="not a regular file"):
        published.read(tmp_path / "fifo")
    with pytest.raises(FileNotFoundError):
        published.read(tmp_path / "absent.json")


def test_a_site_directory_is_read_as_its_summary(tmp_path):
    out = tmp_path / "site"
    build_site(Config(source="", root=tmp_path, out=out), old_export(tmp_path / "e").root)
    assert bundle.load_bundle(out).runs == bundle.load_bundle(out / "api/results/summary.json").runs == 17


# ------------------------------------------------------------------ build --previous


def build(tmp_path: Path, export: Path, name: str, *, previous: Path | None = None, base_url: str = BASE):
    out = tmp_path / name
    built = build_site(
        Config(source="", root=tmp_path, out=out, base_url=base_url, title="Team & co"), export, previous=previous
    )
    return out, built


@pytest.fixture
def sites(tmp_path):
    old = build(tmp_path, old_export(tmp_path / "old-export").root, "old-site")[0]
    new = build(tmp_path, new_export(tmp_path / "new-export").root, "new-site", previous=old)[0]
    return old, new


def test_the_change_report_is_published_and_linked(sites):
    old, new = sites
    files = site_files(new)
    assert "changes/index.html" in files and "changes/1/index.html" in files
    assert "changes/index.html" not in site_files(old)  # only with --previous
    home = parse_html(files["index.html"].decode())
    assert "changes/index.html" in [a.get("href") for a in home.all("a")]
    page = parse_html(files["changes/1/index.html"].decode())
    text = page.text()
    for words in (
        "kestrel",
        "falcon",
        "harrier",
        "merlin prime",
        "inside both CIs",
        "outside a CI",
        "+1 infra failed",
        "−5.0 pp",
        "▼1",
        "m2 2.0.0",
    ):
        assert words in re.sub(r"\s+", " ", text), words
    history = json.loads(files["api/results/changes.json"])
    assert history["schema"] == "podium.changes/1"
    assert [r["number"] for r in history["reports"]] == [1]
    assert shape.fits(history["reports"][0]["report"], diff.REPORT_SHAPE)


def test_the_change_page_gives_each_agent_its_progress_verdict_and_says_why_the_two_differ(sites):
    """Issue 36 item 6: the report's "reading" (medians over all runs, publish against publish) and the agent's
    "moving" (configuration against configuration) answer different questions: the page gives both for every
    agent, and one sentence on the difference."""
    _, new = sites
    files = site_files(new)
    summary = json.loads(files["api/results/summary.json"])
    page = parse_html(files["changes/1/index.html"].decode())
    (table,) = [t for t in page.all("table") if "changes" in (t.get("class") or "").split()]
    heads = [th.text().strip() for th in table.iter("th") if th.get("scope") == "col"]
    assert "reading" in heads and "moving" in heads
    moving = {
        next(th.text().strip() for th in tr.iter("th")): next(
            " ".join(td.text().split()) for td in tr.iter("td") if td.get("data-label") == "moving"
        )
        for tr in table.iter("tr")
        if any(td.get("data-label") == "moving" for td in tr.iter("td"))
    }
    assert len(moving) == len(summary["agents"])
    for agent in summary["agents"]:
        verdict = agent["progress"]["verdict"]
        expected = "one configuration so far" if verdict is None else verdict.replace("_", " ")
        assert expected in moving[agent["name"]], (agent["name"], moving[agent["name"]])
    note = " ".join(" ".join(p.text().split()) for p in page.all("p") if p.get("class") == "note")
    assert "Two questions, two answers that can differ." in note and "newest configuration" in note


def test_the_history_is_carried_and_capped(tmp_path, sites):
    old, new = sites
    same, _ = build(tmp_path, new_export(tmp_path / "again").root, "same-site", previous=new)
    assert [r["number"] for r in json.loads((same / "api/results/changes.json").read_text())["reports"]] == [1]
    site = same
    for n in range(KEEP_REPORTS + 2):  # each build alternates between the two exports
        export = (old_export if n % 2 == 0 else new_export)(tmp_path / f"e{n}").root
        site, _ = build(tmp_path, export, f"s{n}", previous=site / "api/results/summary.json")
    numbers = [r["number"] for r in json.loads((site / "api/results/changes.json").read_text())["reports"]]
    assert numbers == list(range(13, 13 - KEEP_REPORTS, -1))
    files = site_files(site)
    assert {p for p in files if p.startswith("changes/")} == {"changes/index.html"} | {
        f"changes/{n}/index.html" for n in numbers
    }


def test_a_damaged_history_is_dropped_with_a_warning(tmp_path, sites):
    old, new = sites
    (new / "api/results/changes.json").write_text('{"schema": "podium.changes/1", "reports": [{"number": "1"}]}')
    _, built = build(tmp_path, old_export(tmp_path / "e").root, "next", previous=new)
    assert any("changes.json" in w and "starts again" in w for w in built.warnings)
    reports = json.loads((tmp_path / "next/api/results/changes.json").read_text())["reports"]
    assert [r["number"] for r in reports] == [1]


def test_a_bad_previous_is_exit_2(tmp_path):
    export = old_export(tmp_path / "e").root
    (tmp_path / "p.json").write_text('{"schema": "nope"}')
    result = podium("build", export, "--out", tmp_path / "out", "--previous", tmp_path / "p.json")
    assert result.exit_code == 2 and "p.json" in result.stderr and "schema" in result.stderr
    assert not (tmp_path / "out").exists()


def _too_large(summary: Path) -> Path:
    """``summary`` grown past what podium reads back (a sparse file: the size is checked before a byte is
    read), as 130 runs of 200 long model names made one before issue 34."""
    with summary.open("r+b") as f:
        f.truncate(published.MAX_BYTES + 1)
    return summary


def test_a_previous_summary_too_large_is_ignored_with_a_warning(tmp_path, sites):
    """Issue 34: a previous summary over 64 MiB made every later build with --previous exit 2, and through the
    action every later publish fail. Now the build goes on without a change report, keeping the history and
    the redirects, and says why."""
    old, new = sites
    _too_large(new / "api/results/summary.json")
    nxt, built = build(tmp_path, old_export(tmp_path / "e").root, "next", previous=new)
    (warning,) = [w for w in built.warnings if "summary.json" in w]
    assert "67108865 bytes" in warning and "64 MiB" in warning
    assert "ignored: no change report this time" in warning
    reports = json.loads((nxt / "api/results/changes.json").read_text())["reports"]
    assert [r["number"] for r in reports] == [1]  # the history carried, no new report
    assert (nxt / "agents/merlin/index.html").is_file()  # the redirects carried
    result = podium("build", new_export(tmp_path / "e2").root, "--out", tmp_path / "cli", "--previous", new)
    assert result.exit_code == 0 and "no change report this time" in result.stderr


def test_podium_diff_of_a_summary_too_large_is_a_clear_exit_2(tmp_path, sites):
    """podium diff is given its files: one too large is an error naming the file and the limit (a gate must
    never pass for want of a summary), not "not a podium summary"."""
    old, new = sites
    big = _too_large(new / "api/results/summary.json")
    result = podium("diff", old, big)
    assert result.exit_code == 2
    assert str(big) in result.stderr and "64 MiB" in result.stderr and "not a podium summary" not in result.stderr


def test_a_renamed_agent_leaves_a_redirect_page(tmp_path, sites):
    old, new = sites
    files = site_files(new)
    assert "agents/merlin/index.html" in site_files(old)
    page = parse_html(files["agents/merlin/index.html"].decode())
    metas = {(m.get("http-equiv") or m.get("name")): m.get("content") for m in page.all("meta")}
    assert metas["refresh"] == "0; url=../../agents/merlin-prime/index.html"
    assert metas["robots"] == "noindex"
    assert (
        "script-src" not in metas["Content-Security-Policy"]
        and "default-src 'none'" in metas["Content-Security-Policy"]
    )
    assert not page.all("script") and "style=" not in page.source
    (link,) = page.all("a")
    assert link.get("href") == "../../agents/merlin-prime/index.html"
    assert "agents/merlin-prime/index.html" in files
    assert page.all("link")[0].get("href") == f"{BASE}/agents/merlin-prime/"
    # carried to the next build even though the previous summary no longer names the old path
    later, _ = build(tmp_path, new_export(tmp_path / "later-export").root, "later", previous=new)
    assert (later / "agents/merlin/index.html").is_file()
    assert "agents/harrier/index.html" not in site_files(later)  # gone agents do not redirect


def test_an_old_path_from_a_forged_summary_never_becomes_a_file(tmp_path):
    export = new_export(tmp_path / "e").root
    prev = json.loads(bundle_file(old_export(tmp_path / "o").root, tmp_path / "o.json").read_text())
    prev["agents"][0]["url"] = "../../evil/index.html"
    prev["agents"][1]["url"] = "runs/index.html"
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(prev))
    out, _ = build(tmp_path, export, "site", previous=forged)
    assert not (tmp_path / "evil").exists()
    assert b"url=" not in (out / "runs/index.html").read_bytes()


# ------------------------------------------------------------------ feed


def atom(files: dict[str, bytes]) -> ET.Element:
    return ET.fromstring(files["feed.xml"])


def test_the_feed_follows_the_atom_rules_and_its_links_resolve(sites):
    _, new = sites
    files = site_files(new)
    feed = atom(files)
    assert feed.tag == f"{ATOM}feed"
    for name in ("id", "title", "updated"):
        assert len(feed.findall(f"{ATOM}{name}")) == 1, name
    assert feed.find(f"{ATOM}title").text == "Team & co"
    assert feed.find(f"{ATOM}author/{ATOM}name").text
    assert RFC3339.match(feed.find(f"{ATOM}updated").text)
    self_link = [link for link in feed.findall(f"{ATOM}link") if link.get("rel") == "self"]
    assert [link.get("href") for link in self_link] == [f"{BASE}/feed.xml"]
    entries = feed.findall(f"{ATOM}entry")
    assert entries
    ids = []
    for entry in entries:
        for name in ("id", "title", "updated"):
            assert len(entry.findall(f"{ATOM}{name}")) == 1, name
        assert entry.find(f"{ATOM}title").text.strip()
        assert RFC3339.match(entry.find(f"{ATOM}updated").text)
        assert entry.find(f"{ATOM}updated").text <= feed.find(f"{ATOM}updated").text
        links = [link for link in entry.findall(f"{ATOM}link") if link.get("rel", "alternate") == "alternate"]
        assert len(links) == 1
        href = links[0].get("href")
        assert href.startswith(BASE + "/")
        path = href[len(BASE) + 1 :]
        assert (path + "index.html" if path.endswith("/") else path) in files, href
        ids.append(entry.find(f"{ATOM}id").text)
    assert len(set(ids)) == len(ids)
    assert any("/changes/1/" in i for i in ids)
    runs = [i for i in ids if "/runs/" in i]
    assert 0 < len(runs) <= FEED_RUNS
    assert run_id(501) not in " ".join(ids)  # not a run


def test_feed_ids_are_stable_and_free_text_stays_out(tmp_path, sites):
    _, new = sites
    again, _ = build(tmp_path, new_export(tmp_path / "again-export").root, "again", previous=tmp_path / "old-site")
    assert (again / "feed.xml").read_bytes() == (new / "feed.xml").read_bytes()
    text = (new / "feed.xml").read_text()
    assert "Because" not in text and "judge worker" not in text and "SECRET" not in text


def test_no_base_url_no_feed_and_a_warning(tmp_path):
    result = podium("build", old_export(tmp_path / "e").root, "--out", tmp_path / "out")
    assert result.exit_code == 0
    assert "feed.xml" in result.stderr and "base_url" in result.stderr
    assert not (tmp_path / "out/feed.xml").exists()


def _feed_links(html: str) -> list:
    return [
        link
        for link in parse_html(html).head().iter("link")
        if link.get("rel") == "alternate" and link.get("type") == "application/atom+xml"
    ]


def test_every_page_of_a_site_with_a_feed_links_it_for_autodiscovery(sites):
    """Issue 17.3: each HTML page (run, change report, 404 and redirect pages too) names the feed in its
    head, with a title, by a link that resolves to feed.xml (relative like every other link; 404.html,
    served at any depth, links absolutely as it does everywhere)."""
    _, new = sites
    files = site_files(new)
    html = {path: data.decode("utf-8") for path, data in files.items() if path.endswith(".html")}
    assert "agents/merlin/index.html" in html and "404.html" in html and "changes/index.html" in html
    assert any(path.startswith("runs/") and path != "runs/index.html" for path in html)
    for path, text in html.items():
        links = _feed_links(text)
        assert len(links) == 1, path
        (link,) = links
        assert link.get("title", "").strip(), path
        href = link.get("href")
        if path == "404.html":
            assert href == f"{BASE}/feed.xml"
            continue
        assert "://" not in href and not href.startswith("/"), (path, href)
        resolved = Path(path).parent.joinpath(href).as_posix()
        while "/../" in f"/{resolved}":
            resolved = re.sub(r"(^|/)[^/]+/\.\./", r"\1", resolved, count=1)
        assert resolved == "feed.xml", (path, href)
    assert "feed.xml" in files


def test_a_site_without_a_feed_links_none(tmp_path):
    out, _ = build(tmp_path, old_export(tmp_path / "e").root, "site", base_url="")
    files = site_files(out)
    assert "feed.xml" not in files
    assert not [path for path, data in files.items() if path.endswith(".html") and _feed_links(data.decode("utf-8"))]


# ------------------------------------------------------------------ badges


def test_badges_are_svg_with_a_title_and_the_agent_page_gives_the_snippet(sites):
    _, new = sites
    files = site_files(new)
    summary = json.loads(files["api/results/summary.json"])
    for agent in summary["agents"]:
        svg = ET.fromstring(files[f"badges/{agent['slug']}.svg"])
        assert svg.tag == f"{SVG}svg" and float(svg.get("width")) > 60 and svg.get("height") == "20"
        title = svg.find(f"{SVG}title").text
        assert agent["name"] in title and f"rank {agent['rank']} of" in title
        shown = [t.text for t in svg.iter(f"{SVG}text")]
        assert "podium" in shown and f"· #{agent['rank']}" in shown[-1]
        page = parse_html(files[agent["url"]].decode())
        (code,) = [c for c in page.all("code") if c.parent.tag == "pre"]
        slug = agent["slug"]
        assert code.text() == f"[![podium: {agent['name']}]({BASE}/badges/{slug}.svg)]({BASE}/agents/{slug}/)"
        assert f"../../badges/{slug}.svg" in [a.get("href") for a in page.all("a")]


def test_badge_widths_grow_with_the_text():
    from podium.plan.badge import badge

    short, long = badge("podium", "median 1.0% · #1", "t", "ranked"), badge("podium", "median 100.0% · #12", "t", "x")
    assert long.value_width > short.value_width and short.label_width == long.label_width


def test_badges_escape_hostile_names(tmp_path):
    export = ExportDir(tmp_path / "e")
    hostile_export(export)
    out, _ = build(tmp_path, export.root, "site", base_url="")
    files = site_files(out)
    badges = [p for p in files if p.startswith("badges/")]
    assert len(badges) == len(AGENT_NAMES)
    titles = set()
    for path in badges:
        svg = ET.fromstring(files[path])  # a parse error here is an escaping bug
        assert not list(svg.iter(f"{SVG}script")) and not list(svg.iter(f"{SVG}foreignObject"))
        titles.add(svg.find(f"{SVG}title").text)
    for name in AGENT_NAMES:
        if "\u202e" in name or "\u200b" in name or len(name) > 200:
            continue  # shown as U+FFFD, or shortened by the reader
        assert any(t.startswith(name + " on ") for t in titles), name[:40]
    for path, html in pages(files).items():
        if path.startswith("agents/"):
            (code,) = [c for c in parse_html(html).all("code") if c.parent.tag == "pre"]
            assert code.text().startswith("[![podium: ") and "](badges/" in code.text()


def test_the_change_page_context_is_documented(tmp_path, monkeypatch):
    from themekit import documented, nested_keys, readme_sections

    import podium.build

    captured = []
    real = podium.build.plan_site
    monkeypatch.setattr(
        podium.build,
        "plan_site",
        lambda board, site, static: captured.append(real(board, site, static)) or captured[-1],
    )
    old = build(tmp_path, old_export(tmp_path / "old-export").root, "old-site")[0]
    build(tmp_path, new_export(tmp_path / "new-export").root, "new-site", previous=old)
    text, common, rows = readme_sections()
    changes = [p for p in captured[-1] if getattr(p, "template", None) == "changes.html"]
    assert changes
    missing = {
        f"{key} > {inner}"
        for page in changes
        for key, value in page.context.items()
        if key not in common
        for inner in nested_keys(value)
        if not documented(inner, text)
    }
    missing |= {
        key for page in changes for key in page.context if not (documented(key, rows["changes.html"]) or key in common)
    }
    from podium.model import KIND_ORDER  # left_out maps are keyed by kind (data, not fields)

    assert (
        sorted(
            k
            for k in missing
            if "\n" not in k and not k.startswith("links > ") and k.split(" > ")[-1] not in KIND_ORDER
        )
        == []
    )


def test_noncharacters_and_invisible_look_alikes_never_reach_the_feed_or_badges(tmp_path):
    """Issue 15.4: U+FFFF/U+FFFE made feed.xml and badges invalid XML; U+2060 let "os\u2060prey" pass for
    "osprey". Both are marked (U+FFFD) and reported as problems naming the file and the field."""
    e = ExportDir(tmp_path / "e")
    for i, agent in enumerate(["osprey", "os\u2060prey", "kes\uffffrel", "her\ufffeon\U000e0041"]):
        for n in range(2):
            e.run(g(f"{i}-{n}", 0.5 + n / 10, models_reported=[f"model-\ufdd0{i}"]), agent=agent, at=10 * i + n)
    e.sidecars()
    out, built = build(tmp_path, e.root, "site")
    files = site_files(out)
    feed = atom(files)  # parses: no character XML forbids
    assert feed.findall(f"{ATOM}entry")
    badges = [p for p in files if p.startswith("badges/")]
    assert len(badges) == 4
    for path in badges:
        ET.fromstring(files[path])
    names = {a["name"] for a in json.loads(files["api/results/summary.json"])["agents"]}
    assert names == {"osprey", "os\ufffdprey", "kes\ufffdrel", "her\ufffdon\ufffd"}
    for path, data in files.items():
        text = data.decode("utf-8", "replace")
        for char in ("\u2060", "\uffff", "\ufffe", "\ufdd0", "\U000e0041"):
            assert char not in text, (path, f"U+{ord(char):04X}")
    problems = json.loads(files["api/results/summary.json"])["problems"]
    named = {(p["path"], p["field"]) for p in problems if "shown as \ufffd" in p["message"]}
    assert len({field for path, field in named if path == "agents.json" and field.endswith("].name")}) == 3
    assert any(field.startswith("models_reported") for _, field in named)


# ------------------------------------------------------------------ issue 15.4: what a previous site can carry


def test_a_carried_history_is_kept_exactly(tmp_path, sites):
    _, new = sites
    same, _ = build(tmp_path, new_export(tmp_path / "again").root, "same-site", previous=new)
    assert json.loads((same / "api/results/changes.json").read_text()) == json.loads(
        (new / "api/results/changes.json").read_text()
    )


def test_free_text_in_a_previous_history_never_reaches_the_new_site(tmp_path, sites):
    _, new = sites
    path = new / "api/results/changes.json"
    history = json.loads(path.read_text())
    report = history["reports"][0]["report"]
    report["totals"]["left_out"]["<b>FREE-TEXT-1</b> visit evil.example"] = 3
    report["agents"][0]["left_out"]["FREE-TEXT-2"] = 1
    report["agents"][0]["note"] = "FREE-TEXT-3"
    report["FREE-TEXT-4"] = {"x": "FREE-TEXT-5"}
    history["reports"][0]["FREE-TEXT-6"] = "y"
    report["agents_gone"].append(
        {"agent": "a" * 40, "name": "N" * 5000 + "FREE-TEXT-7", "rank": 9, "median": None, "runs": 1, "url": None}
    )
    report["agents_renamed"].append({"agent": "b" * 40, "old_name": "os\u2060prey", "name": "osprey"})
    path.write_text(json.dumps(history))
    nxt, built = build(tmp_path, new_export(tmp_path / "e").root, "next", previous=new)
    assert not built.warnings or all("changes.json" not in w for w in built.warnings)
    files = site_files(nxt)
    for name, data in files.items():
        assert b"FREE-TEXT" not in data, name
        assert "\u2060".encode() not in data, name
    carried = json.loads(files["api/results/changes.json"])["reports"]
    assert [r["number"] for r in carried] == [1]  # the history itself is kept
    gone = carried[0]["report"]["agents_gone"][-1]["name"]
    assert gone == "N" * shape.NAME_CAP + "…"
    assert carried[0]["report"]["agents_renamed"][-1]["old_name"] == "os\ufffdprey"
    assert set(carried[0]["report"]["totals"]["left_out"]) <= set(diff.LEFT_OUT)


@pytest.mark.parametrize("url", ["javascript:alert(1)", "../../etc/passwd", "https://evil.example/", "a b"])
def test_a_previous_history_with_a_url_that_is_not_a_site_path_starts_again(tmp_path, sites, url):
    _, new = sites
    path = new / "api/results/changes.json"
    history = json.loads(path.read_text())
    history["reports"][0]["report"]["agents"][0]["url"] = url
    path.write_text(json.dumps(history))
    nxt, built = build(tmp_path, new_export(tmp_path / "e").root, "next", previous=new)
    assert any("changes.json" in w and "starts again" in w for w in built.warnings)
    assert url.encode() not in (nxt / "api/results/changes.json").read_bytes()


def test_previous_redirects_are_bounded_and_carry_known_keys_only(tmp_path, sites):
    _, new = sites
    path = new / "api/results/redirects.json"
    doc = json.loads(path.read_text())
    assert doc["redirects"]  # merlin was renamed
    doc["redirects"][0]["note"] = "FREE-TEXT-8"
    doc["redirects"] += [
        {
            "from": f"agents/old-{n}/index.html",
            "kind": "agent",
            "agent": doc["redirects"][0]["agent"],
            "mission": None,
            "version": None,
        }
        for n in range(20)
    ]
    path.write_text(json.dumps(doc))
    nxt, built = build(tmp_path, new_export(tmp_path / "e").root, "next", previous=new)
    carried = json.loads((nxt / "api/results/redirects.json").read_text())["redirects"]
    assert len(carried) == 21 and b"FREE-TEXT" not in (nxt / "api/results/redirects.json").read_bytes()
    assert all(set(entry) == {"from", "kind", "agent", "mission", "version"} for entry in carried)
    # Past the bound the file is not carried at all (a warning; renames since the previous summary still redirect).
    doc["redirects"] += [
        dict(doc["redirects"][1], **{"from": f"agents/x-{n}/index.html"}) for n in range(MAX_REDIRECTS)
    ]
    path.write_text(json.dumps(doc))
    nxt2, built = build(tmp_path, new_export(tmp_path / "e2").root, "next2", previous=new)
    assert any("redirects.json" in w and f"{MAX_REDIRECTS:,}" in w for w in built.warnings)
    assert not any(p.startswith("agents/x-") for p in site_files(nxt2))


def _plant(path: Path, how: str) -> None:
    path.unlink()
    if how == "dev-zero":
        path.symlink_to("/dev/zero")
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "symlink":
        (path.parent / "elsewhere.json").write_text("{}")
        path.symlink_to(path.parent / "elsewhere.json")
    else:
        path.mkdir()


def _podium_process(*args, timeout: int = 60) -> subprocess.CompletedProcess:
    """The real command, in a process a hang cannot take the test run with."""
    return subprocess.run(
        [sys.executable, "-m", "podium", *map(str, args)], capture_output=True, text=True, timeout=timeout
    )


HOW = ["dev-zero", "fifo", "symlink", "directory"]


@pytest.mark.parametrize("how", HOW)
def test_a_previous_summary_that_is_not_a_regular_file_is_exit_2_naming_it(tmp_path, sites, how):
    old, new = sites
    summary = old / "api/results/summary.json"
    _plant(summary, how)
    export = new_export(tmp_path / "e").root
    for args in (["diff", old, new], ["build", export, "--out", tmp_path / "out", "--previous", old]):
        result = _podium_process(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert f"{summary}:" in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("how", HOW)
def test_a_history_file_that_is_not_a_regular_file_is_a_warning_and_a_fresh_start(tmp_path, sites, how):
    _, new = sites
    for name in ("changes.json", "redirects.json"):
        _plant(new / "api/results" / name, how)
    result = _podium_process(
        "build", new_export(tmp_path / "e").root, "--out", tmp_path / "out", "--previous", new, "--no-cache"
    )
    assert result.returncode == 0, result.stderr
    for name in ("changes.json", "redirects.json"):
        assert f"warning: {new / 'api/results' / name}: ignored" in result.stderr, result.stderr
    assert (tmp_path / "out/api/results/changes.json").is_file()
