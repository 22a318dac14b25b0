"""Incremental builds are byte-identical to clean builds, and a cache is never trusted blindly.

Each test builds with a cache, changes one input, rebuilds with the cache and
compares every output file with a clean build (no cache) of the same inputs.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import sqlite3
import zlib
from pathlib import Path

import pytest
from cachekit import CacheProject, tree
from exportkit import graded, report_md, run_id
from sitekit import ledger_rows_at

import podium.build
import podium.cache.keys
import podium.cache.store
import podium.inputs
import podium.load.export
import podium.load.export.runs
import podium.load.export.stored
import podium.load.files
import podium.render.report
import podium.render.site
from podium.build import build_site
from podium.config import Config
from podium.model.cost import Spent


@pytest.fixture
def project(tmp_path) -> CacheProject:
    project = CacheProject(tmp_path)
    first = project.build()
    assert first.reused == 0 and first.rendered > 0
    return project


def test_a_rebuild_with_nothing_changed_reuses_every_page(project):
    again = project.build()
    assert again.rendered == 0 and again.reused > 0
    project.assert_same_as_clean()


def test_an_unchanged_page_is_left_in_place_not_written_again(project):
    page = project.tmp / "site" / "runs" / run_id("run-1") / "index.html"
    before = os.stat(page)
    project.add(99)
    project.export.sidecars()
    project.build()
    after = os.stat(page)
    assert (after.st_ino, after.st_mtime_ns, after.st_ctime_ns) == (
        before.st_ino,
        before.st_mtime_ns,
        before.st_ctime_ns,
    )
    project.assert_same_as_clean()


def test_a_page_touched_but_unchanged_is_checked_by_its_bytes(project, monkeypatch):
    page = project.tmp / "site" / "index.html"
    os.utime(page, ns=(1, 1))  # same bytes, another stat (an output restored from a CI cache)
    again = project.build()
    assert again.rendered == 0
    page.write_bytes(page.read_bytes().replace(b"Board", b"Bored"))
    os.utime(page, ns=(1, 1))
    again = project.build()
    assert again.rendered == 0 and b"Bored" not in page.read_bytes()  # written back from the cache's copy
    project.assert_same_as_clean()


def test_an_output_wiped_is_written_from_the_cache_not_rendered(project, monkeypatch):
    """CI restores the cache and builds into an empty directory: every file whose inputs are unchanged is
    written from the cache's copy (bodies), not rendered; the site equals a clean build (issue 16)."""
    shutil.rmtree(project.tmp / "site")
    monkeypatch.setattr(podium.render.site, "render_page", lambda *a, **k: pytest.fail("a page was rendered"))
    again = project.build()
    assert again.rendered == 0 and again.reused > 0
    monkeypatch.undo()
    project.assert_same_as_clean()


def test_a_damaged_copy_in_the_cache_is_rendered_again(project):
    """A body whose bytes no longer match the SHA-256 written (or do not decompress) is never written out."""
    page = f"runs/{run_id('run-1')}/index.html"
    with sqlite3.connect(project.cache / "cache.sqlite") as db:
        sha = db.execute("SELECT sha FROM pages WHERE path = ?", (page,)).fetchone()[0]
        db.execute("UPDATE bodies SET data = ? WHERE sha = ?", (zlib.compress(b"<p>FORGED</p>"), sha))
        other = db.execute("SELECT sha FROM pages WHERE path = 'index.html'").fetchone()[0]
        db.execute("UPDATE bodies SET data = ? WHERE sha = ?", (b"not zlib", other))
    shutil.rmtree(project.tmp / "site")
    again = project.build()
    assert again.rendered == 2  # those two; every other page from the cache
    assert b"FORGED" not in (project.tmp / "site" / page).read_bytes()
    project.assert_same_as_clean()
    with sqlite3.connect(project.cache / "cache.sqlite") as db:  # only the bodies of the site's files are kept
        assert db.execute("SELECT count(*) FROM bodies WHERE sha NOT IN (SELECT sha FROM pages)").fetchone() == (0,)


def test_a_symlink_planted_in_the_old_site_is_never_followed(project, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "index.html").write_bytes(b"not podium's\n")
    run_dir = project.tmp / "site" / "runs" / run_id("run-2")
    for path in run_dir.iterdir():
        path.unlink()
    run_dir.rmdir()
    run_dir.symlink_to(outside)
    (project.tmp / "site" / "about.html").symlink_to(outside / "index.html")
    project.build()
    assert (outside / "index.html").read_bytes() == b"not podium's\n" and len(list(outside.iterdir())) == 1
    assert not run_dir.is_symlink() and not (project.tmp / "site" / "about.html").exists()
    project.assert_same_as_clean()


def test_a_run_added(project):
    project.add(99)
    project.export.sidecars()
    again = project.build()
    assert again.rendered > 0 and again.reused >= 6  # its page and the pages listing it; no older run page
    project.assert_same_as_clean()


def test_a_run_added_renders_only_its_agents_and_missions_summary_parts(project, monkeypatch):
    """summary.json's parts are keyed by what each holds (cache/page_keys.py): a run of kestrel renders kestrel's
    part and its mission version's, not osprey's (whose figures, rank and coverage stay as they were)."""
    rendered: list[str] = []
    for kind in ("summary_agent", "summary_mission"):
        real = podium.render.site.DATA_FILE_BYTES[kind]
        monkeypatch.setitem(
            podium.render.site.DATA_FILE_BYTES,
            kind,
            lambda b, g, e, real=real: rendered.append(e.path) or real(b, g, e),
        )
    project.add(99)
    project.export.sidecars()
    project.build()
    assert sorted(rendered) == ["api/results/summary/agents/kestrel.json", "api/results/summary/missions/m1/1.0.0.json"]
    monkeypatch.undo()
    project.assert_same_as_clean()


def _counted_afresh(monkeypatch) -> list[str]:
    """The runs a build attributes and keeps afresh (the rest it takes back from the cache's kept rows)."""
    counted: list[str] = []
    real = podium.load.export.runs._attribute
    monkeypatch.setattr(
        podium.load.export.runs, "_attribute", lambda item, *a: counted.append(item.run_id) or real(item, *a)
    )
    return counted


def test_a_run_added_counts_only_the_new_run_afresh(project, monkeypatch):
    """Issue 18: a rebuild takes each unchanged run's compact record back from the cache (build.py
    cache/witnesses.py ``RunKeeper``) instead of decoding, attributing and keeping the run again."""
    rid = project.add(99)
    project.export.sidecars()
    counted = _counted_afresh(monkeypatch)
    project.build()
    assert counted == [rid]
    monkeypatch.undo()
    project.assert_same_as_clean()


def test_a_renamed_agent_counts_its_runs_afresh_and_only_them(project, monkeypatch):
    project.export.agents = {
        aid: ("Kestrel Two" if name == "kestrel" else name) for aid, name in project.export.agents.items()
    }
    project.export.sidecars(runs=False)
    counted = _counted_afresh(monkeypatch)
    project.build()
    assert sorted(counted) == sorted(run_id(f"run-{n}") for n in range(1, 6, 2))  # kestrel's runs
    assert "Kestrel Two" in (project.tmp / "site" / "runs" / run_id("run-1") / "index.html").read_text()
    monkeypatch.undo()
    project.assert_same_as_clean()


def test_a_changed_run_list_row_counts_that_run_afresh(project, monkeypatch):
    rid = run_id("run-4")
    for row in project.export.rows:
        if row["run_id"] == rid:
            row["mission_version"] = "2.0.0"
            row["outcome"], row["terminal_trigger"] = "cancelled", "cancelled"
    project.export.sidecars(agents=False)
    counted = _counted_afresh(monkeypatch)
    project.build()
    assert counted == [rid]
    assert [r["kind"] for r in ledger_rows_at(project.tmp / "site") if r["run_id"] == rid] == ["not_a_run"]
    monkeypatch.undo()
    project.assert_same_as_clean()


@pytest.mark.parametrize("damage", ["garbage", "wrong inputs", "bad record"])
def test_a_damaged_kept_row_is_counted_afresh(project, monkeypatch, damage):
    with sqlite3.connect(project.cache / "cache.sqlite") as db:
        rows = db.execute("SELECT key, value FROM kept").fetchall()
        assert len(rows) == 6
        key, value = rows[0]
        inputs, problems, kept = value.split("\n")
        value = {
            "garbage": "x",
            "wrong inputs": f"{'0' * 64}\n{problems}\n{kept}",
            "bad record": f"{inputs}\n{problems}\n[1, 2]",
        }[damage]
        db.execute("UPDATE kept SET value = ? WHERE key = ?", (value, key))
    (project.export.root / "runs.json").touch()  # the build does not stop at the whole-build key
    counted = _counted_afresh(monkeypatch)
    again = project.build()
    assert len(counted) == 1 and again.rendered == 0
    monkeypatch.undo()
    project.assert_same_as_clean()


def test_a_report_changed(project):
    rid = run_id("run-3")
    report = project.export.root / rid[:8] / "report.md"
    report.write_text(report.read_text() + "\nA CHANGED PARAGRAPH\n")
    again = project.build()
    assert again.rendered >= 1
    assert "A CHANGED PARAGRAPH" in (project.tmp / "site" / "runs" / rid / "index.html").read_text()
    project.assert_same_as_clean()


def test_a_touched_export_is_not_parsed_again(project, monkeypatch):
    for path in project.export.root.rglob("*.json"):
        os.utime(path, ns=(1, 1))  # same bytes, new mtimes (a copied or restored export)
    parsed = []
    real = podium.load.export.stored.read_dir
    monkeypatch.setattr(podium.load.export.stored, "read_dir", lambda *a: parsed.append(a[1]) or real(*a))
    again = project.build()
    assert parsed == [] and again.rendered == 0
    project.assert_same_as_clean()


def test_a_result_changed_is_parsed_again(project):
    rid = run_id("run-5")
    (project.export.root / rid[:8] / "result.json").write_text(json.dumps(graded(rid, det=0.0, judge=0.0)))
    project.build()
    summary = ledger_rows_at(project.tmp / "site")
    assert [r["overall"] for r in summary if r["run_id"] == rid] == [0.0]
    project.assert_same_as_clean()


def test_a_run_deleted(project):
    rid = run_id("run-2")
    for path in (project.export.root / rid[:8]).iterdir():
        path.unlink()
    (project.export.root / rid[:8]).rmdir()
    project.export.rows = [r for r in project.export.rows if r["run_id"] != rid]
    project.export.sidecars()
    project.build()
    assert not (project.tmp / "site" / "runs" / rid).exists()
    project.assert_same_as_clean()


def test_a_config_change(project, monkeypatch):
    project.build()  # every page reused: the cached reports must survive it
    project.settings["title"] = "Another title"
    rendered = []
    real = podium.render.report.render_report
    monkeypatch.setattr(podium.render.report, "render_report", lambda *a: rendered.append(1) or real(*a))
    again = project.build()
    assert again.reused == 0  # the title is on every page
    assert rendered == []  # but no report is rendered again
    project.assert_same_as_clean()


def test_a_theme_change(project, tmp_path):
    override = tmp_path / "theme" / "templates"
    override.mkdir(parents=True)
    (override / "404.html").write_text('{% extends "default:404.html" %}{% block main %}GONE{% endblock %}')
    project.settings["theme_dir"] = tmp_path / "theme"
    project.build()
    (override / "404.html").write_text('{% extends "default:404.html" %}{% block main %}MISSING{% endblock %}')
    again = project.build()
    assert again.reused == 0  # any theme file may be used by any page
    assert b"MISSING" in (project.tmp / "site" / "404.html").read_bytes()
    project.assert_same_as_clean()


def test_another_podium_never_reuses_a_page(project, monkeypatch):
    monkeypatch.setattr(podium.cache.store, "code_fingerprint", lambda: "another podium")
    again = project.build()
    assert again.reused == 0
    project.assert_same_as_clean()


def test_a_new_answer_re_redacts_yesterdays_pages_of_its_mission(project):
    quoted = run_id("run-1")
    detail = project.export.root / quoted[:8] / "report.md"
    detail.write_text(detail.read_text() + "\nThe judge saw the password Winter2026!Secret in the logs.\n")
    project.build()
    page = project.tmp / "site" / "runs" / quoted / "index.html"
    assert "Winter2026!Secret" in page.read_text()  # nobody had submitted it: not known as an answer yet
    project.add(
        50,
        check_breakdown=[
            {
                "id": "pw",
                "source": "artifacts",
                "ref": "pw",
                "op": "equals",
                "value": "Winter2026!Secret",
                "passed": True,
                "weight": 1.0,
                "error": None,
                "blocked_by": [],
            }
        ],
    )
    project.export.sidecars()
    project.build()
    assert "Winter2026!Secret" not in page.read_text()
    project.assert_same_as_clean()


def test_a_corrupt_cache_is_rebuilt_not_trusted(project):
    """A damaged podium cache is made anew; a file that is not podium's is never trusted nor touched
    (issue 15: a database podium did not create is never altered or deleted)."""
    path = project.cache / "cache.sqlite"
    header = path.read_bytes()[:100]  # podium's own database, then garbage: damaged, but ours
    path.write_bytes(header + b"this is not a database" * 100)
    again = project.build()
    assert again.reused == 0
    project.assert_same_as_clean()
    assert project.build().reused > 0  # and it works again
    path.write_bytes(b"this is not a database" * 100)  # not podium's: used by nothing, left as it is
    again = project.build()
    assert again.reused == 0 and any("not a podium cache" in note for note in again.notes)
    project.assert_same_as_clean()
    assert path.read_bytes() == b"this is not a database" * 100


def test_a_cache_in_an_older_format_is_replaced(project):
    (project.cache / "cache.sqlite").unlink()
    with sqlite3.connect(project.cache / "cache.sqlite") as db:  # podium's first cache format
        db.executescript(
            "CREATE TABLE meta (format INTEGER, code TEXT); INSERT INTO meta VALUES (1, 'old');"
            "CREATE TABLE pages (path TEXT PRIMARY KEY, key TEXT, sha TEXT);"
            "INSERT INTO pages VALUES ('index.html', 'k', 's');"
        )
    again = project.build()
    assert again.reused == 0
    project.assert_same_as_clean()
    assert project.build().rendered == 0  # and it works again


def test_a_cache_with_forged_pages_is_not_believed(project):
    with sqlite3.connect(project.cache / "cache.sqlite") as db:
        db.execute("UPDATE reports SET html = '<p>FORGED</p>'")
    page = project.tmp / "site" / "index.html"
    page.write_bytes(page.read_bytes().replace(b"Board", b"Forged"))  # the old site was changed by hand
    project.export.root.joinpath(run_id("run-4")[:8], "report.md").write_text(report_md(rid=run_id("run-4")))
    project.build()
    assert b"Forged" not in page.read_bytes()  # its bytes no longer match the cache: rendered again
    # A cached report is keyed by the report's bytes: same bytes, same (forged here) HTML, which is
    # why a cache must be the user's own (next test); a changed report is always rendered again.
    assert b"FORGED" not in (project.tmp / "site" / "runs" / run_id("run-4") / "index.html").read_bytes()


@pytest.mark.skipif(os.getuid() != 0, reason="handing the cache to another user needs root")
def test_a_cache_of_another_user_is_never_read(project):
    os.chown(project.cache, 65534, 65534)
    again = project.build()
    assert again.reused == 0 and any("not a directory of yours" in note for note in again.notes)
    project.assert_same_as_clean()


def test_a_cache_others_can_write_is_never_read(project):
    project.cache.chmod(0o777)
    again = project.build()
    assert again.reused == 0 and any("only you can write" in note for note in again.notes)


def test_parallel_run_pages_equal_serial_ones(project, monkeypatch):
    for n in range(10, 40):
        project.add(n)
    project.export.sidecars()
    monkeypatch.setattr(podium.render.site, "PARALLEL_MIN", 4)
    monkeypatch.setattr(podium.render.site, "CHUNK", 3)
    build_site(project.config("parallel"), project.export.root, jobs=2)
    assert gc.isenabled()  # paused only during the build (podium serve builds again and again)
    build_site(project.config("serial"), project.export.root, jobs=1)
    assert tree(project.tmp / "parallel") == tree(project.tmp / "serial")
    again = project.build(jobs=2)  # with the cache: new run pages in workers, their reports kept
    assert again.rendered > 0
    project.assert_same_as_clean()
    assert project.build(jobs=2).rendered == 0


def test_workers_render_with_cached_reports(project, monkeypatch):
    """The site is gone and the cache holds no copy of its pages (bodies; as after a template change,
    which re-renders every run page while their reports stand): every run page is rendered again, in
    worker processes, each given its report from the cache by the parent (never rendered again), and
    the parent keeps those reports for the next build."""
    for n in range(10, 40):
        project.add(n)
    project.export.sidecars()
    project.build()
    monkeypatch.setattr(podium.render.site, "PARALLEL_MIN", 4)
    monkeypatch.setattr(podium.render.site, "CHUNK", 3)

    def never(*args):
        raise AssertionError("a cached report was rendered again")

    # Workers are separate processes: a report one rendered anew comes back to this one to be kept.
    monkeypatch.setattr(podium.cache.store.BuildCache, "keep_report", never)
    for _ in range(2):
        shutil.rmtree(project.tmp / "site")
        with sqlite3.connect(project.cache / "cache.sqlite") as db:
            db.execute("DELETE FROM bodies")
        again = project.build(jobs=2)
        assert again.rendered >= 36 and again.reused == 0
    monkeypatch.undo()
    project.assert_same_as_clean()


def test_parsed_runs_and_reports_are_stored_as_made_and_only_the_used_ones_kept(project, monkeypatch):
    """Issue 18: the cache holds no run in memory. A parsed run and a rendered report are written as they
    are made, so a build that fails after them still leaves them for the next one (they are bound to
    their inputs); the pages are recorded only once the site is in place; a run that left the export
    leaves the cache at the next build."""

    def rows(table: str) -> int:
        db = sqlite3.connect(project.cache / "cache.sqlite")
        try:
            return db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        finally:
            db.close()

    def runs() -> int:
        return sum(1 for d in project.export.root.iterdir() if d.is_dir())

    assert rows("runs") == runs() == 6 and rows("reports") == 6
    pages = rows("pages")
    rid = project.add(7)
    project.export.sidecars()

    def fails(files, *args, **kwargs):  # every file rendered, then the disk is full
        for _ in files:
            pass
        raise OSError("disk full")

    monkeypatch.setattr(podium.build, "write_site", fails)
    with pytest.raises(OSError):
        project.build()
    monkeypatch.undo()
    assert rows("runs") == runs() == 7 and rows("reports") == 7 and rows("pages") == pages

    def never(*args):
        raise AssertionError("a run stored by the failed build was read again")

    monkeypatch.setattr(podium.load.export.stored, "read_dir", never)
    project.build()
    monkeypatch.undo()
    shutil.rmtree(project.export.root / rid[:8])
    project.export.sidecars()
    project.build()
    assert rows("runs") == runs() == 6 and rows("reports") == 6
    project.assert_same_as_clean()


# ------------------------------------------------------------------ --explain: why each page was rendered again


def explained(built) -> dict[str, tuple[str, ...]]:
    return dict(built.why)


def test_explain_a_run_added(project):
    rid = project.add(99)
    project.export.sidecars()
    built = project.build(explain=True)
    why = explained(built)
    assert built.build_why == ("the export changed",)
    assert why[f"runs/{rid}/index.html"] == ("new page",)
    assert why["index.html"] == ("what it shows changed",)  # it lists the new run
    assert f"runs/{run_id('run-1')}/index.html" not in why  # an older run's page is left as it was
    assert len(why) == built.rendered
    project.assert_same_as_clean()


def test_explain_a_report_changed(project):
    rid = run_id("run-3")
    report = project.export.root / rid[:8] / "report.md"
    report.write_text(report.read_text() + "\nA CHANGED PARAGRAPH\n")
    why = explained(project.build(explain=True))
    assert why[f"runs/{rid}/index.html"] == ("its report changed",)
    assert not [path for path in why if path.startswith("runs/") and rid not in path and path.count("/") == 2]


def test_explain_a_result_changed(project):
    rid = run_id("run-5")
    (project.export.root / rid[:8] / "result.json").write_text(json.dumps(graded(rid, det=0.0, judge=0.0)))
    why = explained(project.build(explain=True))
    assert why[f"runs/{rid}/index.html"] == ("its run changed (result.json)",)


def test_explain_a_theme_change(project, tmp_path):
    override = tmp_path / "theme" / "templates"
    override.mkdir(parents=True)
    (override / "404.html").write_text('{% extends "default:404.html" %}{% block main %}GONE{% endblock %}')
    project.settings["theme_dir"] = tmp_path / "theme"
    built = project.build(explain=True)
    assert set(explained(built).values()) == {("its template or theme changed",)}
    assert len(explained(built)) == built.rendered and built.reused == 0
    assert built.build_why == ("the theme changed", "the settings changed")  # theme_dir is a setting too


def test_explain_a_settings_change(project):
    project.settings["title"] = "Another title"
    built = project.build(explain=True)
    why = explained(built)
    assert all("the site settings changed" in reasons for path, reasons in why.items() if path.endswith(".html"))
    # a few pages say the title in what they show (the compare and model pages, the badges' words)
    assert {reason for reasons in why.values() for reason in reasons} == {
        "the site settings changed",
        "what it shows changed",
    }
    assert why["index.html"] == why[f"runs/{run_id('run-1')}/index.html"] == ("the site settings changed",)
    assert built.build_why == ("the settings changed",)


def test_explain_a_page_changed_by_hand(project):
    page = project.tmp / "site" / "index.html"
    page.write_bytes(page.read_bytes().replace(b"Board", b"Bored"))
    built = project.build(explain=True)
    assert built.build_why == ("the site on disk is not the one the last build wrote",)
    assert explained(built) == {"index.html": ("the file on disk was changed by hand",)}
    (project.tmp / "site" / "404.html").unlink()
    assert explained(project.build(explain=True)) == {"404.html": ("the previous site does not have it",)}
    project.assert_same_as_clean()


def test_explain_nothing_changed_and_no_cache(project):
    built = project.build(explain=True)
    assert built.board is None and built.why == () and built.rendered == 0  # stopped early: nothing to explain
    clean = build_site(project.config("uncached"), project.export.root, explain=True)
    assert set(explained(clean).values()) == {("no cache",)} and len(clean.why) == clean.rendered
    assert clean.build_why == ("no cache",)


def test_explain_on_the_command_line(project, monkeypatch):
    from click.testing import CliRunner

    from podium.commands.cli import main

    monkeypatch.chdir(project.tmp)
    (project.tmp / "podium.yaml").write_text("title: Board\n")
    runner = CliRunner()
    args = ["build", str(project.export.root), "--out", str(project.tmp / "site"), "--cache-dir", str(project.cache)]
    assert runner.invoke(main, args).exit_code == 0
    project.add(99)
    project.export.sidecars()
    result = runner.invoke(main, args + ["--explain"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("podium: explain: ")]
    assert lines[0] == "podium: explain: the build went on: the export changed"
    assert f"podium: explain: runs/{run_id('run-99')}/index.html: new page" in lines
    assert "podium: explain: index.html: what it shows changed" in lines
    assert lines[-1].startswith("podium: explain: ") and "page(s) rendered again (" in lines[-1]
    assert "1 new page" in lines[-1] and "what it shows changed" in lines[-1]
    again = runner.invoke(main, args + ["--explain"])
    assert "podium: explain: nothing to render again" in again.stderr
    assert runner.invoke(main, args + ["--explain", "--quiet"]).exit_code == 2


def test_no_cache_stamps_pickles_and_keys_nothing(project, monkeypatch):
    """--no-cache is NoCache, and only it: no file stamped, no run encoded for the cache, no key made."""

    def never(*args, **kw):
        raise AssertionError("the cache's work done without a cache")

    for module, name in (
        (podium.cache.store, "stamp"),
        (podium.cache.keys, "key_of"),
        (podium.cache.store, "tree_fingerprint"),
        (podium.load.export.stored.codec, "dumps"),
        (podium.inputs, "scan"),
    ):
        monkeypatch.setattr(module, name, never)
    built = build_site(project.config("uncached"), project.export.root)
    assert built.rendered > 0 and built.reused == 0
    monkeypatch.undo()
    project.assert_same_as_clean()


def test_a_run_records_digest_changes_with_every_field_and_only_with_them():
    """cache.record_digest stands for a run record in every page key: a change to any one field changes
    it (so the pages listing the run are rendered again), and an equal record made afresh has the same."""
    import dataclasses
    from datetime import UTC, datetime, timedelta, timezone

    from podium.model import Configuration, RunRecord

    when = datetime(2026, 10, 1, 12, 0, tzinfo=UTC)
    base = RunRecord(
        run_id="a" * 32,
        directory="aaaaaaaa",
        source=0,
        agent="ag",
        agent_name="Agent",
        mission="m",
        version="1.0.0",
        kind="graded",
        end="done",
        status="Completed",
        overall=0.5,
        overall_upper=0.5,
        deterministic=0.4,
        judge=0.6,
        judge_upper=None,
        no_judge_ran=False,
        judge_status="ok",
        judge_model="j",
        model_declared="x",
        models_reported=("x", "y"),
        started=when,
        completed=when,
        when=when,
        report_digest="r" * 64,
        digest="d" * 64,
        exposed=("s",),
        older=False,
        url="runs/a/",
        agent_url="agents/ag/",
        mission_url="missions/m/1.0.0/",
        configuration=Configuration("1", "x", "j", 60.0),
    )
    changed = {
        "configuration": Configuration("1", "x", "j", 60.5),
        "source": 1,
        "overall": 0.25,
        "overall_upper": -0.0,
        "judge_upper": 0.0,
        "no_judge_ran": True,
        "older": True,
        "models_reported": ("x",),
        "models_more": 3,
        "models_digest": "3fa9c1d2",
        "exposed": (),
        "started": None,
        "completed": when.astimezone(timezone(timedelta(hours=2))),
        "when": when + timedelta(microseconds=1),
        "agent_url": None,
        "end": None,
        "harness": "claude-code",
        "spent": Spent.of((1, 2, 3, 4, 5, 80_070, 6, 7)),  # its total_tokens (a property) with it
    }
    digest = podium.cache.keys.record_digest(base)
    fresh = RunRecord(
        **{
            f.name: (getattr(base, f.name) + "x")[:-1]
            if isinstance(getattr(base, f.name), str)
            else getattr(base, f.name)
            for f in dataclasses.fields(RunRecord)
        }
    )
    assert podium.cache.keys.record_digest(fresh) == digest
    for field in dataclasses.fields(RunRecord):
        value = getattr(base, field.name)
        other = changed.get(field.name, value + "'" if isinstance(value, str) else None)
        assert podium.cache.keys.record_digest(dataclasses.replace(base, **{field.name: other})) != digest, field.name


@pytest.mark.parametrize("ordered", [False, True])
def test_rows_read_in_windows_are_the_rows_and_take_one_query_per_window(ordered):
    """cache._Window: whatever order keys are asked in, each answer is the table's row (or None); asked in
    the expected order (the table's, or the one given), 1,234 lookups take three queries, not 1,234."""
    import random

    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (key TEXT PRIMARY KEY, a TEXT, b TEXT)")
    present = [f"/export/{n:08x}\0salt" for n in range(0, 2468, 2)]
    db.executemany("INSERT INTO t VALUES (?, ?, ?)", [(k, k.upper(), "b") for k in present])
    asked = sorted(present + [f"/export/{n:08x}\0salt" for n in range(1, 40, 2)])  # some with no row
    if ordered:
        random.Random(5).shuffle(asked)
    queries: list[str] = []
    db.set_trace_callback(queries.append)
    window = podium.cache.store._Window("t", "key", "a, b", asked if ordered else None)
    for key in asked:
        assert window.row(db, key) == ((key.upper(), "b") if key in present else None)
    assert len(queries) == -(-len(asked) // podium.cache.store.WINDOW)
    queries.clear()
    for key in random.Random(7).sample(asked, 50):  # out of order: still right, one query each at most
        assert window.row(db, key) == ((key.upper(), "b") if key in present else None)
    assert len(queries) <= 50


def test_a_rebuild_stamps_each_unchanged_run_file_once(project, monkeypatch):
    """The stat pass (load/export/scan.py scan) stamps every run file; the reader after it stamps again only the
    directories whose stamps are not the ones their stored parse holds (here: the new run's)."""
    rid = project.add(99)
    project.export.sidecars()
    stamped: list[str] = []
    real = podium.cache.store.stamp
    monkeypatch.setattr(podium.cache.store, "stamp", lambda path: stamped.append(str(path)) or real(path))
    project.build()
    export = str(project.export.root.resolve())
    assert sorted(p for p in stamped if p.startswith(export)) == sorted(
        f"{export}/{rid[:8]}/{file}" for file in podium.load.export.RUN_FILES
    )
    monkeypatch.undo()
    project.assert_same_as_clean()


def test_stat_pass_digests_that_do_not_match_only_cost_stamps(project):
    """A digest from the stat pass that is not the directory's (the export changed since, or the listing
    did) never stands for its stamps: the export read is the same with the right, wrong or mismatched digests."""
    from array import array

    from podium.load.export import Scanned, load_export, scan

    cache = podium.cache.store.open_cache(project.cache)
    try:

        def read(seen):
            return load_export(project.export.root, cache=cache, seen=seen)

        right = Scanned()
        scan([project.export.root], right)
        expected = read(None)
        assert read(right.roots[0]) == expected
        assert read(array("Q", [0] * len(right.roots[0]))) == expected
        assert read(array("Q", right.roots[0][1:])) == expected
    finally:
        cache.close()


# --- the CI loop: a fresh export elsewhere, the cache and the last site restored as copies ----------------
def _ci_loop(project: CacheProject, change=None) -> tuple[Path, Path, Path]:
    """What a CI job does (docs/ci/github-pages.yml): a fresh `xorcise run export` (every file new: a new
    path, inodes and mtimes), the cache restored (new inodes, mtimes kept) and the last site restored (new
    inodes and mtimes); ``change(export)`` is what the batch brought. Returns (export, cache, site)."""
    ci = project.tmp / f"ci-{len(list(project.tmp.glob('ci-*')))}"
    export, cache, site = ci / "export", ci / "cache", ci / "site"
    shutil.copytree(project.export.root, export, copy_function=shutil.copyfile)
    shutil.copytree(project.cache, cache, copy_function=shutil.copy2)
    shutil.copytree(project.tmp / "site", site, copy_function=shutil.copyfile)
    if change is not None:
        change(export)
    return export, cache, site


def _ci_build(project: CacheProject, export: Path, cache: Path, site: Path) -> podium.build.Built:
    return build_site(Config(source="", root=project.tmp, out=site, **project.settings), export, cache_dir=cache)


def test_ci_loop_a_fresh_export_elsewhere_is_not_parsed_or_counted_again(project, monkeypatch):
    """The cache's rows are keyed by each run directory's name in its export, not by the export's path: a
    fresh export written elsewhere finds them (each still checked by its files' bytes)."""
    export, cache, site = _ci_loop(project)
    in_place = _counted_afresh(monkeypatch)
    project.build()  # (a run whose record may not be kept, as it quotes a secret, is counted afresh anyway)
    monkeypatch.undo()
    assert len(in_place) < 6
    parsed = []
    real = podium.load.export.stored.read_dir
    monkeypatch.setattr(podium.load.export.stored, "read_dir", lambda *a: parsed.append(a[1]) or real(*a))
    counted = _counted_afresh(monkeypatch)
    again = _ci_build(project, export, cache, site)
    assert parsed == [] and counted == in_place and again.rendered == 0
    monkeypatch.undo()
    project.assert_same_as_clean(export, site)


def _batch(project: CacheProject):
    def change(export: Path) -> None:
        project.export.root = export
        for n in range(100, 104):
            project.add(n)
        project.export.sidecars()

    return change


def _re_evaluated(export: Path) -> None:
    rid = run_id("run-3")
    (export / rid[:8] / "result.json").write_text(json.dumps(graded(rid, det=0.0, judge=0.0)))


def _removed(export: Path) -> None:
    shutil.rmtree(export / run_id("run-2")[:8])


@pytest.mark.parametrize("what", ["batch", "re-evaluated", "removed"])
def test_ci_loop_counts_afresh_only_what_the_batch_changed(project, monkeypatch, what):
    rid = {"batch": None, "re-evaluated": run_id("run-3"), "removed": None}[what]
    change = {"batch": _batch(project), "re-evaluated": _re_evaluated, "removed": _removed}[what]
    export, cache, site = _ci_loop(project, change)
    counted = _counted_afresh(monkeypatch)
    _ci_build(project, export, cache, site)
    expected = {"batch": sorted(run_id(f"run-{n}") for n in range(100, 104)), "re-evaluated": [rid], "removed": []}[
        what
    ]
    if what == "re-evaluated":  # a changed result.json is always seen (and a run sharing an answer whose
        # witness it was is counted afresh too: the cache keeps no answer, cache/witnesses.py ``RunKeeper``)
        assert rid in counted and len(counted) <= 2
        assert [r["overall"] for r in ledger_rows_at(site) if r["run_id"] == rid] == [0.0]
    else:
        assert sorted(counted) == expected
    if what == "removed":
        assert run_id("run-2") not in {r["run_id"] for r in ledger_rows_at(site)}
    monkeypatch.undo()
    project.assert_same_as_clean(export, site)


def test_ci_loop_a_renamed_agent_counts_its_runs_afresh(project, monkeypatch):
    def rename(export: Path) -> None:
        project.export.root = export
        project.export.agents = {
            aid: ("Kestrel Two" if name == "kestrel" else name) for aid, name in project.export.agents.items()
        }
        project.export.sidecars(runs=False)

    export, cache, site = _ci_loop(project, rename)
    counted = _counted_afresh(monkeypatch)
    _ci_build(project, export, cache, site)
    assert sorted(counted) == sorted(run_id(f"run-{n}") for n in range(1, 6, 2))
    monkeypatch.undo()
    project.assert_same_as_clean(export, site)


def test_ci_loop_another_export_in_the_same_place_is_read_afresh(project, tmp_path):
    """Rows found by a directory's name are only a first answer: another export whose run directories have
    the same names but other bytes is read from its files (and the site is as clean)."""

    def other(export: Path) -> None:
        for path in export.glob("*/result.json"):
            body = json.loads(path.read_text())
            body["scores"] = (
                {**body.get("scores", {}), "overall": 0.125}
                if isinstance(body.get("scores"), dict)
                else body.get("scores")
            )
            path.write_text(json.dumps(body))

    export, cache, site = _ci_loop(project, other)
    _ci_build(project, export, cache, site)
    project.assert_same_as_clean(export, site)


def test_ci_loop_the_next_build_knows_the_fresh_files_by_their_stamps(project, monkeypatch):
    """Rows taken back by their bytes get the fresh files' stamps (only those: cache/store.py ``parsed``), so the
    build after a CI loop's reads no run file to check it."""
    export, cache, site = _ci_loop(project)
    _ci_build(project, export, cache, site)
    with sqlite3.connect(cache / "cache.sqlite") as db:
        stamps = [json.loads(text) for (text,) in db.execute("SELECT stamps FROM runs")]
    assert stamps and all(
        value == podium.load.files.stamp(export / key_dir / name)
        for row, key_dir in zip(stamps, sorted(p.name for p in export.iterdir() if p.is_dir()))
        for name, value in row.items()
    )
    read = []
    real = podium.load.files.read_regular
    monkeypatch.setattr(
        podium.load.files, "read_regular", lambda path, *a, **k: read.append(str(path)) or real(path, *a, **k)
    )
    _ci_build(project, export, cache, site)
    assert not [path for path in read if path.startswith(str(export))]
