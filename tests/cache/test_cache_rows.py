"""A cache row that does not read back is a miss, whatever is in it (issue 29, items 7 and 8).

- a zlib bomb in a ``bodies`` row inflates to at most the largest file the cache keeps a copy of
  (cache.BODY_MAX, the largest file a host publishes), never without limit: the page is rendered again;
- JSON nested past the parser's depth in any row the cache decodes (``runs.stamps``, ``runs.hashes``,
  ``runs.value``'s head and body, ``kept.value``'s problems and record, ``last.parts``,
  ``last.outline``) is ignored and made again, not a RecursionError on every later build;
- either way the build says so under ``--verbose`` and ``--explain``, once per row.
"""

from __future__ import annotations

import shutil
import sqlite3
import tracemalloc
import zlib

import pytest
from cachekit import CacheProject
from click.testing import CliRunner
from exportkit import run_id

from podium.cache import store, trust
from podium.commands.cli import main

DEEP = "[" * 100_000 + "]" * 100_000  # far past any recursion limit
LARGEST = 25 * 1024 * 1024  # the largest file a host publishes (write/hosts.py): the most a copy may inflate to


@pytest.fixture
def project(tmp_path) -> CacheProject:
    project = CacheProject(tmp_path, runs=3)
    project.build()
    return project


def _bomb(size: int) -> bytes:
    """A zlib stream of ``size`` zero bytes, made a MiB at a time (the test never holds the bytes)."""
    squeeze = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    parts = [squeeze.compress(chunk) for _ in range(size >> 20)]
    return b"".join(parts) + squeeze.flush()


def test_a_zlib_bomb_in_a_body_row_inflates_only_to_the_largest_file(project):
    """256 MiB of zeros in a 256 KB row: inflated at most to BODY_MAX + 1 bytes, found damaged, the page rendered
    again (on 8a7d1ab it inflated whole: 256 MiB, 1 MB → 2.1 GB in the review)."""
    page = f"runs/{run_id('run-1')}/index.html"
    bomb = _bomb(256 << 20)
    assert len(bomb) < 300_000
    with sqlite3.connect(project.db) as db:
        sha = db.execute("SELECT sha FROM pages WHERE path = ?", (page,)).fetchone()[0]
        db.execute("UPDATE bodies SET data = ? WHERE sha = ?", (bomb, sha))
    shutil.rmtree(project.tmp / "site")  # CI restored the cache into an empty directory: bodies are read
    tracemalloc.start()
    try:
        again = project.build()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < LARGEST + (24 << 20), f"peak {peak >> 20} MiB"
    assert again.rendered == 1 and dict(again.damaged) == {"bodies.data": 1}
    project.assert_same_as_clean()
    assert project.build().damaged == ()  # the row was written anew


def test_inflate_is_bounded_and_refuses_what_is_not_one_whole_stream():
    data = b"podium " * 1000
    packed = zlib.compress(data)
    assert trust.inflate(packed, len(data)) == data
    assert trust.inflate(packed, len(data) - 1) is None  # one byte over
    assert trust.inflate(packed[:-5], len(data)) is None  # cut short
    assert trust.inflate(packed + b"x", len(data)) is None  # something after the stream
    assert trust.inflate(b"not zlib", 100) is None
    assert store.BODY_MAX == LARGEST
    assert store.BODY_ROW_MAX >= len(zlib.compress(bytes(range(256)) * 1000, 0))


def test_a_row_longer_than_any_copy_is_not_read(project, monkeypatch):
    """A row longer than zlib could make of BODY_MAX bytes is refused by its length, before it is read."""
    monkeypatch.setattr(store, "BODY_ROW_MAX", 10)
    shutil.rmtree(project.tmp / "site")
    again = project.build()
    assert again.reused == 0 and "bodies.data" in dict(again.damaged)


def test_a_file_over_the_largest_copy_is_not_kept(project, monkeypatch):
    """A file larger than BODY_MAX gets no copy in bodies (it could never be read back): it is rendered again."""
    monkeypatch.setattr(store, "BODY_MAX", 2000)
    project.cache = project.tmp / "fresh-cache"
    project.db = project.cache / "cache.sqlite"
    shutil.rmtree(project.tmp / "site")
    project.build()
    with sqlite3.connect(project.db) as db:
        kept = [zlib.decompress(data) for (data,) in db.execute("SELECT data FROM bodies")]
        uncopied = db.execute("SELECT count(*) FROM pages WHERE sha NOT IN (SELECT sha FROM bodies)").fetchone()[0]
    assert kept and max(map(len, kept)) <= 2000 and uncopied > 0
    shutil.rmtree(project.tmp / "site")
    again = project.build()
    assert again.rendered > 0 and again.damaged == ()  # rendered, not found damaged
    project.assert_same_as_clean()


def _rewrite(table: str, column: str, change) -> callable:
    """A damage: every row's ``column`` of ``table`` replaced by ``change(text)``."""

    def damage(db: sqlite3.Connection) -> int:
        rows = db.execute(f"SELECT rowid, {column} FROM {table}").fetchall()
        db.executemany(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", [(change(v), r) for r, v in rows])
        return len(rows)

    return damage


def _line(index: int):
    """Replace line ``index`` of a row (runs.value: head, body; kept.value: inputs, problems, record)."""

    def change(text: str) -> str:
        lines = text.split("\n")
        lines[index] = DEEP
        return "\n".join(lines)

    return change


# what --verbose names -> (the damage, whether the export is touched so the build goes past its whole key)
DEEP_ROWS = {
    "runs.stamps": (_rewrite("runs", "stamps", lambda _: DEEP), True),
    "runs.hashes": (_rewrite("runs", "hashes", lambda _: DEEP), True),
    "runs.value head": (_rewrite("runs", "value", _line(0)), True),
    "runs.value body": (_rewrite("runs", "value", _line(1)), True),
    "kept.value problems": (_rewrite("kept", "value", _line(1)), True),
    "kept.value record": (_rewrite("kept", "value", _line(2)), True),
    "last.parts": (_rewrite("last", "parts", lambda _: DEEP), True),
    "last.outline": (_rewrite("last", "outline", lambda _: DEEP), False),
}


@pytest.mark.parametrize("row", list(DEEP_ROWS))
def test_a_deeply_nested_row_is_ignored_and_made_again(project, row):
    damage, touch = DEEP_ROWS[row]
    with sqlite3.connect(project.db) as db:
        assert damage(db) >= 1
    if touch:
        (project.export.root / "runs.json").touch()
    again = project.build()  # 8a7d1ab: RecursionError, on this build and every later one
    assert again.target is not None
    assert row.split()[0] in dict(again.damaged), again.damaged
    project.assert_same_as_clean()
    if touch:
        (project.export.root / "runs.json").touch()
    assert project.build().damaged == ()  # made again: the next build reads it back


@pytest.mark.parametrize("flag", ["--verbose", "--explain"])
def test_the_build_says_which_rows_it_ignored(project, flag):
    with sqlite3.connect(project.db) as db:
        db.execute("UPDATE runs SET stamps = ?", (DEEP,))
        db.execute("UPDATE last SET parts = ?", (DEEP,))
    (project.export.root / "runs.json").touch()
    args = [
        "build",
        str(project.export.root),
        "--out",
        str(project.tmp / "site"),
        "--cache-dir",
        str(project.cache),
        "--jobs",
        "1",
        flag,
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "podium: cache: 4 damaged row(s) ignored and made again (1 last.parts, 3 runs.stamps)" in result.output
    quiet = CliRunner().invoke(main, args[:-1])
    assert quiet.exit_code == 0 and "damaged row" not in quiet.output  # said only when asked
