"""The build cache is data, checked like the export, and never publishes what a clean build would not (issue 15 §3).

- rows are JSON text: a planted pickle is never loaded, so it cannot run code;
- the database file gets the owner and mode checks the directory gets;
- a database podium did not make (another program's SQLite, or no SQLite at all) is never altered nor deleted;
- a damaged row is a miss, a damaged podium database is made anew: never a traceback nor a failed build;
- a cached report passes the guard a fresh one passes: an edited row holding a key or a run's submitted
  value is rendered afresh instead.
"""

from __future__ import annotations

import os
import pickle
import sqlite3

import pytest
from cachekit import CacheProject, tree

KEY = "sk-live-" + "Q7w8E9r0T1y2U3i4" * 2


@pytest.fixture
def project(tmp_path) -> CacheProject:
    project = CacheProject(tmp_path, runs=4)
    project.build()
    return project


def test_rows_are_text_and_a_planted_pickle_runs_nothing(project, tmp_path):
    marker = tmp_path / "pwned"

    class Boom:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    with sqlite3.connect(project.db) as db:
        kinds = {t for (t,) in db.execute("SELECT DISTINCT typeof(value) FROM runs")}
        assert kinds == {"text"}  # data, never a pickled object
        db.execute("UPDATE runs SET value = ?", (pickle.dumps(Boom()),))
        db.execute("UPDATE reports SET html = ?", (pickle.dumps(Boom()),))
    for path in (project.export.root).glob("*/result.json"):
        os.utime(path)  # a touched export: the cached rows are consulted (same bytes)
    built = project.build()
    assert not marker.exists()
    assert built.target is not None
    project.assert_same_as_clean()


def test_damaged_rows_are_misses_not_failures(project):
    with sqlite3.connect(project.db) as db:
        db.execute("UPDATE runs SET value = '[1, 2'")
        db.execute("UPDATE reports SET html = X'00ff'")  # a blob: not text
        db.execute("UPDATE pages SET stat = NULL")
    built = project.build()
    assert built.target is not None
    project.assert_same_as_clean()
    assert project.build().rendered == 0  # rows written anew: reused next time


def test_a_damaged_podium_database_is_made_anew_with_a_note(project):
    data = project.db.read_bytes()
    project.db.write_bytes(data[:100] + b"\0garbage" * (len(data) // 8))
    built = project.build()
    assert built.target is not None and any("damaged" in note for note in built.notes)
    project.assert_same_as_clean()
    assert project.build().rendered == 0


def test_another_programs_database_is_never_altered(tmp_path):
    project = CacheProject(tmp_path, runs=4)
    project.cache.mkdir(mode=0o700)
    with sqlite3.connect(project.db) as db:
        db.execute("CREATE TABLE notes (body TEXT)")
        db.execute("INSERT INTO notes VALUES ('mine')")
    before = project.db.read_bytes()
    built = project.build()
    assert built.target is not None and any("not a podium cache" in note for note in built.notes)
    assert project.db.read_bytes() == before
    with sqlite3.connect(project.db) as db:
        assert db.execute("SELECT body FROM notes").fetchall() == [("mine",)]


def test_a_cache_file_others_can_write_is_never_read(project):
    project.db.chmod(0o666)
    before = project.db.read_bytes()
    built = project.build()
    assert built.reused == 0 and any("only you can write" in note for note in built.notes)
    assert project.db.read_bytes() == before


@pytest.mark.skipif(os.getuid() != 0, reason="handing the file to another user needs root")
def test_a_cache_file_of_another_user_is_never_read(project):
    os.chown(project.db, 65534, 65534)
    built = project.build()
    assert built.reused == 0 and any("not a file of yours" in note for note in built.notes)


def test_a_cache_file_that_is_a_symlink_is_never_followed(project, tmp_path):
    elsewhere = tmp_path / "elsewhere.sqlite"
    project.db.rename(elsewhere)
    project.db.symlink_to(elsewhere)
    built = project.build()
    assert built.reused == 0 and any("not a file of yours" in note for note in built.notes)
    assert project.db.is_symlink()


def test_an_edited_report_row_is_never_published(project):
    """The issue's reproduction: a reports row edited to hold a link and a live key (and here a run's
    own submitted value too) is rendered afresh, so the site equals a clean build's."""
    with sqlite3.connect(project.db) as db:
        db.execute(
            "UPDATE reports SET html = ?",
            (f'<p><a href="https://evil.example/">x</a> {KEY} FLAG{{secret-check-value}}</p>',),
        )
    (project.tmp / "site").rename(project.tmp / "old-site")  # every run page rendered again
    project.build()
    site = b"".join(tree(project.tmp / "site").values())
    assert KEY.encode() not in site and b"secret-check-value" not in site
    project.assert_same_as_clean()
