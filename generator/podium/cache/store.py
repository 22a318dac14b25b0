"""The build cache: what a rebuild may reuse, and nothing it may trust blindly. Every cache decision is here
(its keys in cache/keys.py, its reasons in cache/explain.py, how it is opened safely in cache/trust.py).

One SQLite file (``cache.sqlite``, stdlib) in the cache directory (``--cache-dir``,
default ``.podium-cache/`` beside the output; ``--no-cache`` turns it off) holds:

- ``reports``: a run's report rendered and redacted, by its key (:meth:`Keys.report`: the
  report's bytes, everything that changes its redaction, podium's code, the Markdown engines);
- ``runs``: each run directory as the reader parsed it (load/export/), by its path and the
  size limits, with the stamp and SHA-256 of each of its files: reused while every file is
  unchanged (:meth:`BuildCache.parsed`);
- ``kept``: by the same key, what the build kept of that directory's run (its compact record and
  its answers' salted digests, cache/witnesses.py ``RunKeeper``) and the digest of everything it was made from
  (load/export/runs.py ``Runs``): a rebuild takes it back while those inputs are the same;
- ``pages``: for each output file of the last build, its key and the key's parts
  (:class:`Key`), the SHA-256 of the bytes written and the file's stamp once in place. A
  file whose key is unchanged is left in the previous site (render/cached.py ``Kept``) while that
  file is unchanged there;
- ``bodies``: the bytes of each of those files (zlib), by their SHA-256: a file whose key is
  unchanged but which the output no longer holds (CI restores the cache and builds into an empty
  directory) is written from here instead of rendered again (:meth:`BuildCache.stored`; issue 16);
- ``shared``: the digests of the key parts the last build's pages shared (podium, the
  theme, the configured secrets, the context every run page shares);
- ``last``: the last build's key, its parts and its outline (what it printed): a build
  whose key is the same, over a site still exactly as the last build left it, stops there;
- ``salt``: a random value made with the database, in every digest of a secret it holds (keys
  and the values below): a table of digests made for one cache matches no other;
- ``found`` and ``answer_sets``: for each run (by its record's digest and its report's SHA-256), the digests of
  its mission's answers that occur in its page's texts and the set of answers they were looked for among
  (cache/found.py: a run page's key names only those, so a batch of new answers that its texts do not hold
  leaves it as it is); each set of answers by its digest, as digests;
- ``redacted``: a digest of each value the last build redacted (its missions' answers, the
  configured literals) with, for an answer, one run whose ``result.json`` holds it (its
  "witness", by directory and SHA-256), never the value itself.

**No secret is kept** (issue 29): the cache may be restored by other workflows than the one that
wrote it (docs/publishing.md). Parsed runs are kept without their submitted values, and the
kept records with their answers as salted digests: a rebuild gets the plain answers back by
reading each witness's ``result.json`` again (a few files: one per distinct answer), and a run
counted afresh reads its own file again. A row (a parsed run, a kept record) whose text holds
anything a page would redact (the run's own values or a secret shape, :class:`podium.safety.redact.Screen`,
as the run is read; a configured literal or any mission's answer, once every answer is known), such as an
agent's model name quoting a flag, is not written, and the run is read afresh by the next build. So
that no answer is ever in the file in plain, not even one met after the rows quoting it were made, nor
after a build that fails or is killed (issue 34, 8): the rows a build reads are held in temporary tables
(SQLite's temporary file, unlinked as it is made: a killed process leaves nothing) until every answer is
known, then checked for all of them and moved into the file (:meth:`BuildCache.settle`), where the
rows of earlier builds are checked for the values new to this one. Deleted rows are overwritten
(``secure_delete``), and a cache of an older format is emptied and vacuumed before use, so nothing
plain outlives its row.

"Unchanged" is one check for every file (load/files.py ``unchanged``): the same stamp (size,
mtime, ctime and inode; ctime cannot be set back by hand), or else the same bytes.

Every key is made here (:class:`Keys`, and the whole build's in :meth:`BuildCache.unchanged_build`)
from parts its callers name: a SHA-256 over the parts' digests, so equal keys mean equal inputs;
a part that cannot be pickled makes no key (that file is never cached). The parts stay readable
in the key, so the next build can say which part of a page's key changed
(``podium build --explain``, :meth:`BuildCache.why`).

The cache is ignored, and built anew, when it is corrupt or from another podium; a cache
directory or file owned by another user or writable by others, and a database podium did not
make, is never read nor written (the build runs uncached and says so). Every row is data (text
and JSON), never unpickled; a row that does not read back, for any reason (nested past the JSON
parser's depth, a ``bodies`` copy that would inflate past BODY_MAX), is a miss, made again and
counted (:meth:`BuildCache.ignored`, printed under ``--verbose``). A parsed run and a rendered
report are written as they are made (each is bound to its inputs by its key, so it is right
whether or not the build completes, and none is held in memory: issue 18); what the site holds
(``pages``, ``shared``, ``last``) is committed only after the site was swapped in, when every row
this build did not use is dropped.

"No cache" is :class:`NoCache`, and only it: every lookup misses, no key is made, no file is
stamped, nothing is kept.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sqlite3
import stat
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from podium.cache import explain
from podium.cache.explain import BUILD_WHY, WHY_NO_CACHE, reasons
from podium.cache.keys import NO_KEYS, Key, Keys, code_fingerprint, make_key, text_digest, tree_fingerprint
from podium.cache.trust import APPLICATION_ID, Untrusted, check_file, inflate, json_row
from podium.load.export import NoParsedStore
from podium.load.files import ABSENT, stamp, unchanged
from podium.model import Outline, codec
from podium.render.cached import NoReportStore
from podium.safety.redact import Screen, is_answer
from podium.write import hosts
from podium.write.site import MARKER, list_site

FORMAT = 10
DEFAULT_DIR = ".podium-cache"
WINDOW = 500  # rows read in one query when a build looks them up in order (_Window)
SAVE_EVERY = 500  # parsed runs and reports are committed in batches of this many rows, as they are made
# The largest file the cache keeps a copy of (``bodies``), and so the most a copy may inflate to: the largest
# file a host podium knows publishes (Cloudflare Pages' 25 MiB; podium's own files stay far below it). A
# larger file is rendered again when the output lacks it; a row that would inflate past it is damaged.
BODY_MAX = max(host.max_file_bytes or 0 for host in hosts.HOSTS.values())
# zlib's compressBound: the longest zlib stream of BODY_MAX bytes; a longer row is not read at all.
BODY_ROW_MAX = BODY_MAX + (BODY_MAX >> 12) + (BODY_MAX >> 14) + (BODY_MAX >> 25) + 13


class NoCache(NoParsedStore, NoReportStore):
    """``--no-cache``, or a cache that may not be used: every lookup misses, no key is made, no file is
    stamped, nothing is kept (no parsed run, no report: load/export/stored.py ``NoParsedStore``, render/cached.py
    ``NoReportStore``)."""

    note: str | None = None
    build_why: tuple[str, ...] = (WHY_NO_CACHE,)  # why the build did not stop early (--explain)

    def ignored(self) -> dict[str, int]:
        """The rows this build found damaged and made again, by table and column (``runs.stamps``: 2):
        ``--verbose`` and ``--explain`` say so."""
        return {}

    def keys(self, chain: list[Path], secrets: Sequence[str]) -> Keys:
        """The keys of this build's files (``chain``: the theme's directories; ``secrets``: the configured ones)."""
        return NO_KEYS

    def digest(self, value: str) -> str:
        """A secret value's salted digest (what the cache keeps instead of it)."""
        return ""

    def settle(self, holds: Callable[[str], bool]) -> None:
        """Every answer is known (the runs are read): write the rows read so far into the file, but those for
        which ``holds(text)`` (safety/redact.py ``Redaction.holds_any``: a configured literal or any answer,
        as a reader sees it), and drop the earlier builds' rows that hold a value new to this build."""

    def redacted_values(self) -> list[tuple[str, str | None, str | None, str | None]]:
        """The last build's redacted values: (digest, mission, witness directory, its result.json's SHA-256)."""
        return []

    def keep_redacted(
        self, rows: Iterable[tuple[str, str | None, str | None, str | None]], plain: dict[str, str]
    ) -> None:
        """This build's redacted values (rows as :meth:`redacted_values` gives them: an answer has a witness, a
        configured literal none), stored at :meth:`commit`; ``plain``: digest -> value for each. The rows of
        earlier builds are checked at :meth:`settle` when this build redacts a value the last one did not."""

    def still_uses_report(self, key: str | None) -> None:
        pass

    def found(self, key: str) -> tuple[str, list[str]] | None:
        """What cache/found.py kept for a run (``key``): the digest of the set of answers its texts were looked
        for among, and the digests of those they hold."""
        return None

    def keep_found(self, key: str, checked: str, found: Sequence[str]) -> None:
        """Keep that for the next build."""

    def still_uses_found(self, key: str) -> None:
        """The row of ``key`` is still right: keep it for the next build."""

    def answer_set(self, digest: str) -> frozenset[str] | None:
        """A set of answers (their digests) a run's texts were looked for among, by its ``digest``."""
        return None

    def keep_answer_set(self, digest: str, answers: Sequence[str]) -> None:
        """Keep that set for the next build."""

    def expect_pages(self, paths: Iterable[str]) -> None:
        """The order in which this build will ask about its files (a cache reads their rows ahead)."""

    def unchanged(self, path: str, key: Key | None, found, site: Path) -> bool:
        return False

    def keep_page(self, path: str, key: Key | None, data: bytes) -> None:
        pass

    def stored_sha(self, path: str, key: Key | None) -> str | None:
        """The SHA-256 of ``path`` as the last build wrote it from exactly these inputs, when its bytes are kept."""
        return None

    def stored(self, path: str, key: Key, sha: str) -> bytes | None:
        """Those bytes (checked against ``sha``; None when they are not there or damaged)."""
        return None

    def why(self, path: str, key: Key | None, on_disk: bool) -> tuple[str, ...]:
        """Why ``path`` is rendered again (``on_disk``: the previous site has a file there)."""
        return (WHY_NO_CACHE,)

    def unchanged_build(self, inputs: Callable[[], dict], site: Path) -> tuple[Outline, int] | None:
        """(the last build's outline, its file count) when nothing changed since it; ``inputs()`` (the build's
        key parts but podium's code) is called only by a cache that can tell."""
        return None

    def commit(self, site: Path, outline: Outline | None = None) -> None:
        pass

    def close(self) -> None:
        pass


NO_CACHE = NoCache()  # the default wherever a cache may be given


_TABLES = (
    "CREATE TABLE reports (key TEXT PRIMARY KEY, html TEXT);"
    "CREATE TABLE runs (key TEXT PRIMARY KEY, stamps TEXT, hashes TEXT, value TEXT);"
    "CREATE TABLE kept (key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE pages (path TEXT PRIMARY KEY, key TEXT, sha TEXT, stat TEXT, parts TEXT);"
    "CREATE TABLE bodies (sha TEXT PRIMARY KEY, data BLOB);"
    "CREATE TABLE shared (name TEXT PRIMARY KEY, digest TEXT);"
    "CREATE TABLE last (key TEXT, parts TEXT, outline TEXT);"
    "CREATE TABLE salt (value TEXT);"
    "CREATE TABLE redacted (digest TEXT PRIMARY KEY, mission TEXT, witness TEXT, sha TEXT);"
    "CREATE TABLE found (key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE answer_sets (digest TEXT PRIMARY KEY, answers TEXT);"
)
_TABLE_NAMES = (
    "reports",
    "runs",
    "kept",
    "pages",
    "bodies",
    "shared",
    "last",
    "salt",
    "redacted",
    "found",
    "answer_sets",
)


class _Window:
    """The rows of one table that a build looks up one after another, read WINDOW keys at a time: one query
    for 500 lookups instead of one each (at 30k runs, 0.9 s → 0.24 s for the parsed runs). With ``order``
    (the keys in the order they will be asked for), the next WINDOW of them; without, the next WINDOW keys
    of the table from the one asked for (run directories are asked for in name order, the table's order).
    A key asked for out of order is read on its own. The rows read are only a first answer: every one
    is checked by its stamps, hashes or key as before, so a row read early is never trusted more."""

    def __init__(self, table: str, key: str, columns: str, order: Iterable[str] | None = None):
        self.table, self.key, self.columns = table, key, columns
        self.order = iter(order) if order is not None else None
        self.rows: dict[str, tuple] = {}
        self.asked: set[str] | tuple[str, str | None] = set()  # the keys the rows answer for (a range: low, high)

    def row(self, db: sqlite3.Connection, key: str) -> tuple | None:
        if not self._answers(key):
            self._read(db, key)
        if self._answers(key):
            return self.rows.get(key)
        found = db.execute(f"SELECT {self.columns} FROM {self.table} WHERE {self.key} = ?", (key,)).fetchone()
        return tuple(found) if found is not None else None

    def _answers(self, key: str) -> bool:
        if isinstance(self.asked, set):
            return key in self.asked
        low, high = self.asked
        return low <= key and (high is None or key <= high)

    def _read(self, db: sqlite3.Connection, key: str) -> None:
        select = f"SELECT {self.key}, {self.columns} FROM {self.table}"
        if self.order is None:
            rows = db.execute(f"{select} WHERE {self.key} >= ? ORDER BY {self.key} LIMIT {WINDOW}", (key,)).fetchall()
            self.asked = (key, rows[-1][0] if len(rows) == WINDOW else None)
        else:
            keys = list(itertools.islice(self.order, WINDOW))
            rows = (
                db.execute(f"{select} WHERE {self.key} IN ({', '.join('?' * len(keys))})", keys).fetchall()
                if keys
                else []
            )
            self.asked = set(keys)
        self.rows = {row[0]: tuple(row[1:]) for row in rows}


class BuildCache(NoCache):
    """The SQLite cache of one build (see the module docstring). Every row is data (text and JSON);
    a row that does not read back is a miss; a database that fails is dropped for this build, with a note,
    and made anew by the next one."""

    def __init__(self, directory: Path, code: str):
        self.directory = directory
        self.code = code
        self.path = directory / "cache.sqlite"
        self.db = self._open()
        self.last_shared = {
            name: digest
            for name, digest in self.db.execute("SELECT name, digest FROM shared")
            if isinstance(name, str) and isinstance(digest, str)
        }
        self.queued: dict[str, list[tuple]] = {}  # rows to write, by statement (written every SAVE_EVERY)
        self.unsaved = 0  # rows queued since the last commit
        self.current: Keys | None = None  # this build's keys
        self.whole: tuple[str, dict[str, str]] | None = None  # this build's key and its parts
        self.build_why: tuple[str, ...] = ()
        self.broken = False
        self.damage: set[tuple[str, str]] = set()  # rows that did not read back: (table.column, key)
        self.runs_window = _Window("runs", "key", "stamps, hashes, value")  # run directories come in name order
        self.kept_window = _Window("kept", "key", "value")
        self.pages_window = _Window("pages", "path", "key, sha, stat, parts")
        self.salt = self._salt()
        self.known_digests = {row[0] for row in self.redacted_values()}  # what the rows were screened for
        self.screen = Screen()  # a run's own values and the secret shapes, as each row is made (may_keep)
        self.settled = False  # the rows read are in the file (settle); until then in temporary tables
        self.redacted: tuple[list[tuple], dict[str, str]] | None = None  # this build's (keep_redacted)

    def _open(self) -> sqlite3.Connection:
        existed = check_file(self.path)
        if not existed:
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
        db = sqlite3.connect(self.path)
        try:
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute("CREATE TABLE IF NOT EXISTS meta (format INTEGER, code TEXT)")
            db.execute("PRAGMA secure_delete = ON")  # a deleted or replaced row is overwritten, not left in a free page
            # A cache: nothing is flushed to the disk at each commit (a build commits every SAVE_EVERY rows: 86
            # commits in a CI loop at 10k runs, 1.3 s of fsync on a busy disk). A process that dies mid-build still
            # leaves a whole database (the rollback journal is kept, truncated rather than made and deleted at each
            # commit); only a machine that loses power may damage it, and a damaged one is made anew (open_cache).
            db.execute("PRAGMA synchronous = OFF")
            db.execute("PRAGMA journal_mode = TRUNCATE").fetchall()
            if db.execute("SELECT format, code FROM meta").fetchall() != [(FORMAT, self.code)]:
                # a new cache, or one of another podium: start afresh, in this format, with a salt of its own,
                # and vacuumed (an older podium's rows held submitted values: no page of the file keeps them)
                db.executescript(
                    "".join(f"DROP TABLE IF EXISTS {table}; " for table in _TABLE_NAMES) + "DELETE FROM meta;" + _TABLES
                )
                db.execute("INSERT INTO meta VALUES (?, ?)", (FORMAT, self.code))
                db.execute("INSERT INTO salt VALUES (?)", (os.urandom(16).hex(),))
                db.commit()
                db.execute("VACUUM")
            db.execute("PRAGMA quick_check").fetchall()
            db.execute("PRAGMA temp_store = FILE")  # (before the temporary tables: setting it drops them)
            # what this build used, noted as it goes (never held in memory): the rest is dropped at commit
            db.executescript(
                "CREATE TEMP TABLE used_runs (key TEXT PRIMARY KEY);"
                "CREATE TEMP TABLE used_reports (key TEXT PRIMARY KEY);"
                "CREATE TEMP TABLE used_found (key TEXT PRIMARY KEY);"
                "CREATE TEMP TABLE used_sets (key TEXT PRIMARY KEY);"
                "CREATE TEMP TABLE fresh_pages (path TEXT PRIMARY KEY, key TEXT, sha TEXT, stat TEXT,"
                " parts TEXT);"  # this build's pages, each with its stamp once in place
                # the rows read, until every answer is known (settle): SQLite's temporary file is unlinked as
                # soon as it is made, so a build that fails or is killed leaves none of them anywhere
                "CREATE TEMP TABLE pending_runs (key TEXT PRIMARY KEY, stamps TEXT, hashes TEXT, value TEXT);"
                "CREATE TEMP TABLE pending_kept (key TEXT PRIMARY KEY, value TEXT);"
            )
            return db
        except sqlite3.DatabaseError:
            db.close()
            raise

    def _salt(self) -> str:
        """The salt made with this database (one row of 32 hex digits), or a new one in its place when that row
        is not there (then no digest made with the old one matches: every key misses, every value is read again)."""
        try:
            rows = self.db.execute("SELECT value FROM salt").fetchall()
            if len(rows) == 1 and isinstance(rows[0][0], str) and len(rows[0][0]) == 32:
                return rows[0][0]
            salt = os.urandom(16).hex()
            with self.db:
                self.db.execute("DELETE FROM salt")
                self.db.execute("DELETE FROM redacted")
                self.db.execute("INSERT INTO salt VALUES (?)", (salt,))
            return salt
        except sqlite3.DatabaseError as err:
            self._failed(err)
            return os.urandom(16).hex()

    def digest(self, value: str) -> str:
        return hashlib.blake2b(
            value.encode("utf-8", "surrogatepass"), key=bytes.fromhex(self.salt), digest_size=16
        ).hexdigest()

    def redacted_values(self) -> list[tuple[str, str | None, str | None, str | None]]:
        if self.broken:
            return []
        try:
            rows = self.db.execute("SELECT digest, mission, witness, sha FROM redacted").fetchall()
        except sqlite3.DatabaseError as err:
            self._failed(err)
            return []
        return [
            tuple(row) for row in rows if isinstance(row[0], str) and all(v is None or isinstance(v, str) for v in row)
        ]

    def keep_redacted(
        self, rows: Iterable[tuple[str, str | None, str | None, str | None]], plain: dict[str, str]
    ) -> None:
        self.redacted = (list(rows), plain)

    def may_keep(self, text: str, own: Sequence[str] = ()) -> bool:
        """Whether a row's ``text`` may be written as its run is read: it holds nothing a page would redact
        that is known then (the run's ``own`` values, a secret shape). Else the row is not kept; a configured
        literal or an answer in it is looked for at :meth:`settle`, before the row reaches the file."""
        return self.screen.clean(text, own)

    def settle(self, holds: Callable[[str], bool]) -> None:
        self._save()  # (into the temporary tables)
        if self.broken or self.settled:
            return
        self.settled = True
        try:
            with self.db:
                for table in ("runs", "kept"):
                    tainted = [
                        (key,)
                        for key, value in self.db.execute(f"SELECT key, value FROM temp.pending_{table}")
                        if not isinstance(value, str) or holds(value)
                    ]
                    self.db.executemany(f"DELETE FROM temp.pending_{table} WHERE key = ?", tainted)
                if self._values_new():  # the earlier builds' rows were not checked for every value: now
                    for table in ("runs", "kept"):
                        tainted = [
                            (key,)
                            for key, value in self.db.execute(f"SELECT key, value FROM {table}")
                            if not isinstance(value, str) or holds(value)
                        ]
                        self.db.executemany("DELETE FROM runs WHERE key = ?", tainted)
                        self.db.executemany("DELETE FROM kept WHERE key = ?", tainted)
                for table in ("runs", "kept"):
                    self.db.execute(f"INSERT OR REPLACE INTO {table} SELECT * FROM temp.pending_{table}")
                    self.db.execute(f"DELETE FROM temp.pending_{table}")
        except sqlite3.DatabaseError as err:
            self._failed(err)

    def _values_new(self) -> bool:
        """Whether this build redacts a value the rows of earlier builds were not checked for (an answer first
        met now, a literal added to ``redact:``): the last build's values are ``known_digests``."""
        if self.redacted is None:
            return True
        rows, plain = self.redacted
        return any(
            digest not in self.known_digests and (witness is None or is_answer(plain.get(digest, "")))
            for digest, _, witness, _ in rows
        )  # (answers as pages take them)

    def _failed(self, err: Exception) -> None:
        """The database failed mid-build: go on without it (this build), and start it anew next time."""
        if not self.broken:
            self.broken = True
            self.note = f"cache {self.path} is damaged ({err}); building without it, and making it anew"

    def damaged(self, row: str, key: str = "") -> None:
        """The row of ``key`` (``row``: its table and column) did not read back: it is a miss, made again by
        this build, and counted once for ``--verbose``."""
        self.damage.add((row, key))

    def ignored(self) -> dict[str, int]:
        return dict(sorted(Counter(row for row, _ in self.damage).items()))

    # -------------------------------------------------- keys

    def keys(self, chain: list[Path], secrets: Sequence[str]) -> Keys:
        self.current = Keys(self.code, tree_fingerprint(chain), secrets, self.salt)
        return self.current

    # -------------------------------------------------- parsed run directories

    def parsed(
        self,
        directory: str,
        salt: str,
        files: Sequence[str],
        limit: int,
        read: Callable,
        stored: Callable,
        replay: Callable,
        seen: Callable | None = None,
        key: str | None = None,
    ):
        """``directory`` (a run directory) as parsed last time, when each of ``files`` is unchanged (the same
        stamp, else the same bytes, at most ``limit`` of them: load/files.py ``unchanged``): ``replay(payload)``
        gives it back (None: a damaged row, read again). Else ``read(stamps)`` afresh (the stamps taken before,
        which the row will hold), and ``stored(value)`` gives
        (payload, {file: SHA-256 of the bytes read}) to keep. ``salt``: what else the parse depends on (the
        size limits); the directory's path and it are the row's key. ``seen(stamps)``: whether the build's stat
        pass saw the files with exactly these stamps (load/export/scan.py ``Scanned``); a row whose stamps it saw
        is taken without stamping the files again. ``key``: the directory's key (load/export/reader.py ``Reader.key``;
        default its path)."""
        key = f"{key if key is not None else directory}\0{salt}"
        hit = self._run_row(key)
        if hit is not None and seen is not None and seen(hit[0]):
            stamps = hit[0]  # as the stat pass found them a moment ago
        else:  # before reading: a change meanwhile shows
            stamps = {file: stamp(f"{directory}/{file}") for file in files}
        if hit is not None:
            then, hashes, payload = hit
            if all(unchanged(f"{directory}/{f}", then.get(f, ""), hashes.get(f), limit, now=stamps[f]) for f in files):
                value = replay(payload)
                if value is not None:
                    self._use("used_runs", key)
                    if then != stamps:  # the same bytes under new stamps (a fresh export, a restore): only the
                        # stamps are written again, never the payload (at 30k runs, 30k rows of it in a CI loop)
                        self._write("UPDATE runs SET stamps = ? WHERE key = ?", (_json(stamps), key))
                    return value
                self.damaged("runs.value", key)
        value = read(stamps)
        payload, hashes = stored(value)
        if payload is not None:  # (None: it may not be kept, may_keep; the next build reads it again)
            self._use("used_runs", key, (self._rows("runs"), (key, _json(stamps), _json(hashes), payload)))
        return value

    def kept(self, key: str, salt: str) -> str | None:
        """What the build kept of the run directory with ``key`` last time (load/export/runs.py ``Runs``), as text."""
        row = self._in_window(self.kept_window, f"{key}\0{salt}")
        return row[0] if row is not None else None

    def keep_kept(self, key: str, salt: str, text: str) -> None:
        """Store that (kept while the directory's parsed row is: :meth:`commit`)."""
        self._write(f"INSERT OR REPLACE INTO {self._rows('kept')} VALUES (?, ?)", (f"{key}\0{salt}", text))

    def _rows(self, table: str) -> str:
        """Where a row of ``table`` read by this build goes: a temporary table until :meth:`settle`."""
        return table if self.settled else f"temp.pending_{table}"

    def cold(self) -> bool:
        if self.broken:
            return True
        try:
            return self.db.execute("SELECT 1 FROM runs LIMIT 1").fetchone() is None
        except sqlite3.DatabaseError as err:
            self._failed(err)
            return True

    def _row(self, sql: str, key: str, table: str) -> tuple[str, ...] | None:
        """The one row ``sql`` finds for ``key`` when it is all text; None for none, a damaged row (counted,
        under ``table``) or a failing database (then the cache is dropped for this build)."""
        if self.broken:
            return None
        try:
            row = self.db.execute(sql, (key,)).fetchone()
        except sqlite3.DatabaseError as err:
            self._failed(err)
            return None
        return self._text(row, table, key)

    def _text(self, row: tuple | None, table: str, key: str) -> tuple[str, ...] | None:
        """``row`` (of ``key``) when it is all text; a row of anything else is damaged (counted) and missed."""
        if row is None:
            return None
        if not all(isinstance(v, str) for v in row):
            self.damaged(table, key)
            return None
        return row

    def _run_row(self, key: str) -> tuple[dict, dict, str] | None:
        row = self._in_window(self.runs_window, key)
        if row is None:
            return None
        found = []
        for column, text in (("runs.stamps", row[0]), ("runs.hashes", row[1])):
            value = json_row(text)
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                self.damaged(column, key)
                return None
            found.append(value)
        return found[0], found[1], row[2]

    def _use(self, used: str, key: str, row: tuple[str, tuple] | None = None) -> None:
        """Note ``key`` as used by this build (in the temporary table ``used``) and write ``row`` (table,
        values) now: a parsed run or a rendered report is bound to its inputs by its key and stamps, so it
        is right whether or not this build completes; holding them until the end would hold the history."""
        self._write(f"INSERT OR IGNORE INTO temp.{used} VALUES (?)", (key,))
        if row is not None:
            table, values = row
            self._write(f"INSERT OR REPLACE INTO {table} VALUES ({', '.join('?' * len(values))})", values)

    def _write(self, sql: str, values: tuple) -> None:
        """Queue a row; every SAVE_EVERY rows, write the queue (one executemany per statement) and commit.
        A lookup may miss a row still queued: it is then made again (a report rendered twice), never wrong."""
        if self.broken:
            return
        self.queued.setdefault(sql, []).append(values)
        self.unsaved += 1
        if self.unsaved >= SAVE_EVERY:
            self._save()

    def _save(self) -> None:
        """Write the queued rows and commit."""
        queued, self.queued, self.unsaved = self.queued, {}, 0
        if self.broken:
            return
        try:
            for sql, rows in queued.items():
                self.db.executemany(sql, rows)
            self.db.commit()
        except sqlite3.DatabaseError as err:
            self._failed(err)

    # -------------------------------------------------- reports

    def report(self, key: str) -> str | None:
        row = self._row("SELECT html FROM reports WHERE key = ?", key, "reports.html")
        if row is None:
            return None
        self._use("used_reports", key)
        return row[0]

    def keep_report(self, key: str, html: str) -> None:
        self._use("used_reports", key, ("reports", (key, html)))

    def still_uses_report(self, key: str | None) -> None:
        """A reused run page still stands on this report: keep it for the builds after this one."""
        if key is not None:
            self._use("used_reports", key)

    # -------------------------------------------------- the answers each run's texts hold (cache/found.py)

    def found(self, key: str) -> tuple[str, list[str]] | None:
        row = self._row("SELECT value FROM found WHERE key = ?", key, "found.value")
        if row is None:
            return None
        value = json_row(row[0])
        if (
            isinstance(value, list)
            and len(value) == 2
            and isinstance(value[0], str)
            and isinstance(value[1], list)
            and all(isinstance(d, str) for d in value[1])
        ):
            return value[0], value[1]
        self.damaged("found.value", key)
        return None

    def keep_found(self, key: str, checked: str, found: Sequence[str]) -> None:
        self._use("used_found", key, ("found", (key, json.dumps([checked, list(found)]))))

    def still_uses_found(self, key: str) -> None:
        self._use("used_found", key)

    def answer_set(self, digest: str) -> frozenset[str] | None:
        row = self._row("SELECT answers FROM answer_sets WHERE digest = ?", digest, "answer_sets.answers")
        if row is None:
            return None
        value = json_row(row[0])
        if isinstance(value, list) and all(isinstance(d, str) for d in value):
            return frozenset(value)
        self.damaged("answer_sets.answers", digest)
        return None

    def keep_answer_set(self, digest: str, answers: Sequence[str]) -> None:
        self._use("used_sets", digest, ("answer_sets", (digest, json.dumps(list(answers)))))

    # -------------------------------------------------- pages

    def expect_pages(self, paths: Iterable[str]) -> None:
        """The order in which this build will ask about its files (render/site.py: the manifest's)."""
        self.pages_window = _Window("pages", "path", "key, sha, stat, parts", paths)

    def _page(self, path: str) -> tuple[str, ...] | None:
        """What the last build kept of ``path``: (its key, the SHA-256 written, its stamp, the key's parts)."""
        return self._in_window(self.pages_window, path)

    def _in_window(self, window: _Window, key: str) -> tuple[str, ...] | None:
        """The row of ``key`` as :meth:`_row` gives it, read with its neighbours (:class:`_Window`)."""
        if self.broken:
            return None
        try:
            row = window.row(self.db, key)
        except sqlite3.DatabaseError as err:
            self._failed(err)
            return None
        return self._text(row, window.table, key)

    def unchanged(self, path: str, key: Key | None, found, site: Path) -> bool:
        """Whether the last build wrote ``path`` from exactly these inputs and ``site`` still holds that file
        (``found``: its stamp in the listing; else its bytes are checked); if so it is kept for the next
        build too."""
        known = self._page(path) if key is not None else None
        if known is None or known[0] != key.digest:
            return False
        if not unchanged(f"{site}/{path}", known[2], known[1], found.size, now=str(found)):
            return False  # touched, copied or restored, and its bytes are no longer the ones written
        self._write(
            "INSERT OR REPLACE INTO temp.fresh_pages VALUES (?, ?, ?, ?, ?)",
            (path, key.digest, known[1], str(found), key.parts),
        )
        return True

    def keep_page(self, path: str, key: Key | None, data: bytes) -> None:
        if key is not None:
            sha = hashlib.sha256(data).hexdigest()
            self._write(
                "INSERT OR REPLACE INTO temp.fresh_pages VALUES (?, ?, ?, NULL, ?)", (path, key.digest, sha, key.parts)
            )
            if len(data) <= BODY_MAX:  # a larger copy would never be read back (stored)
                self._write("INSERT OR REPLACE INTO bodies VALUES (?, ?)", (sha, zlib.compress(data, 1)))

    def stored_sha(self, path: str, key: Key | None) -> str | None:
        if key is None:
            return None
        known = self._page(path)
        if known is None or known[0] != key.digest:
            return None
        return (
            known[1] if self._row("SELECT sha FROM bodies WHERE sha = ?", known[1], "bodies.sha") is not None else None
        )

    def stored(self, path: str, key: Key, sha: str) -> bytes | None:
        if self.broken:
            return None
        try:  # a row longer than any copy of a file the cache keeps is not even read (its length is SQLite's)
            row = self.db.execute(
                "SELECT data FROM bodies WHERE sha = ? AND length(data) <= ?", (sha, BODY_ROW_MAX)
            ).fetchone()
        except sqlite3.DatabaseError as err:
            self._failed(err)
            return None
        data = inflate(row[0], BODY_MAX) if row is not None and isinstance(row[0], bytes) else None
        if data is None or hashlib.sha256(data).hexdigest() != sha:
            self.damaged("bodies.data", sha)
            return None  # rendered again
        self._write(
            "INSERT OR REPLACE INTO temp.fresh_pages VALUES (?, ?, ?, NULL, ?)", (path, key.digest, sha, key.parts)
        )
        return data

    def why(self, path: str, key: Key | None, on_disk: bool) -> tuple[str, ...]:
        """Why ``path`` is rendered again: new, or which part of its key changed, or its file (``on_disk``:
        the previous site has one there) is no longer the one written."""
        known = self._page(path)
        if self.broken:
            return (WHY_NO_CACHE,)
        return explain.why(
            None if known is None else (known[0], known[3]),
            key,
            on_disk,
            self.last_shared,
            self.current.shared if self.current else {},
        )

    # -------------------------------------------------- the whole build

    def unchanged_build(self, inputs: Callable[[], dict], site: Path) -> tuple[Outline, int] | None:
        """The last build's outline (its printed facts) and file count when the last build had exactly this
        build's key (podium's code and ``inputs()``: every input, the export by its stamps) and ``site``
        still holds exactly the files it wrote, each with the stamp it had: then there is nothing to do.
        Else ``build_why`` says why not."""
        if self.broken:
            self.build_why = (WHY_NO_CACHE,)
            return None
        parts = {name: text_digest(self.salt, value) for name, value in {"podium": self.code, **inputs()}.items()}
        self.whole = (make_key({}, parts).digest, parts)
        try:
            row = self.db.execute("SELECT key, parts, outline FROM last").fetchone()
        except sqlite3.DatabaseError as err:
            self._failed(err)
            self.build_why = (WHY_NO_CACHE,)
            return None
        if row is None or not all(isinstance(v, str) for v in row):
            self.build_why = ("no earlier build in the cache",)
            return None
        if row[0] != self.whole[0]:
            then = json_row(row[1])
            if not isinstance(then, dict):
                self.damaged("last.parts")
                then = {}
            changed = {name for name in parts if not isinstance(then, dict) or then.get(name) != parts[name]}
            self.build_why = reasons(changed, BUILD_WHY) or ("its inputs changed",)
            return None
        listing = list_site(site)
        files = {path: found for path, found in listing.files.items() if path != MARKER} if listing else {}
        if listing is None or listing.odd or not self._site_as_written(files):
            self.build_why = ("the site on disk is not the one the last build wrote",)
            return None
        try:
            return codec.loads(Outline, row[2]), len(files)
        except (ValueError, TypeError, KeyError):  # a damaged row: build
            self.damaged("last.outline")
            self.build_why = ("the cache's record of the last build is damaged",)
            return None

    def _site_as_written(self, files: dict) -> bool:
        """Whether ``files`` (path -> stamp: a site's listing) are exactly the last build's pages, each with the
        stamp it had once in place."""
        count = 0
        try:
            for path, written in self.db.execute("SELECT path, stat FROM pages"):
                count += 1
                if path not in files or str(files[path]) != written:
                    return False
        except sqlite3.DatabaseError as err:
            self._failed(err)
            return False
        return count == len(files)

    def commit(self, site: Path, outline: Outline | None = None) -> None:
        """After the new site is in place at ``site``: remember its pages (only them) and the build's key and
        outline (so an unchanged rebuild stops early); drop the parsed runs and reports it did not use."""
        self._save()
        if self.broken:
            return
        shared = self.current.shared.items() if self.current else ()
        try:
            with self.db:
                if self.redacted is not None:
                    self.db.execute("DELETE FROM redacted")
                    self.db.executemany("INSERT OR REPLACE INTO redacted VALUES (?, ?, ?, ?)", self.redacted[0])
                placed = self.db.execute("SELECT path FROM temp.fresh_pages WHERE stat IS NULL").fetchall()
                missing = 0
                for (path,) in placed:  # written by this build: its stamp now it is in place
                    found = stamp(site / path)
                    missing += found == ABSENT
                    self.db.execute(
                        "UPDATE temp.fresh_pages SET stat = ? WHERE path = ?",
                        (None if found == ABSENT else str(found), path),
                    )
                self.db.execute("DELETE FROM pages")
                self.db.execute("INSERT INTO pages SELECT * FROM temp.fresh_pages WHERE stat IS NOT NULL")
                self.db.execute("DELETE FROM shared")
                self.db.executemany("INSERT INTO shared VALUES (?, ?)", [(n, d) for n, d in shared if d is not None])
                self.db.execute("DELETE FROM bodies WHERE sha NOT IN (SELECT sha FROM pages)")
                self.db.execute("DELETE FROM reports WHERE key NOT IN (SELECT key FROM temp.used_reports)")
                self.db.execute("DELETE FROM runs WHERE key NOT IN (SELECT key FROM temp.used_runs)")
                self.db.execute("DELETE FROM kept WHERE key NOT IN (SELECT key FROM temp.used_runs)")
                self.db.execute("DELETE FROM found WHERE key NOT IN (SELECT key FROM temp.used_found)")
                self.db.execute("DELETE FROM answer_sets WHERE digest NOT IN (SELECT key FROM temp.used_sets)")
                self.db.execute("DELETE FROM last")
                if self.whole is not None and outline is not None and not missing:
                    self.db.execute(
                        "INSERT INTO last VALUES (?, ?, ?)", (self.whole[0], _json(self.whole[1]), codec.dumps(outline))
                    )
        except sqlite3.DatabaseError as err:
            self._failed(err)

    def close(self) -> None:
        self._save()  # the parsed runs and reports queued since the last batch (the build may have failed)
        self.db.close()
        if self.broken:  # ours (its header said so when it was opened): made anew by the next build
            self.path.unlink(missing_ok=True)


def _json(value: dict) -> str:
    return json.dumps(value, sort_keys=True)


def open_cache(directory: Path | None) -> NoCache:
    """The build's cache in ``directory`` (None: no cache); an unusable one is ignored with a note."""
    if directory is None:
        return NoCache()
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(directory)
    except OSError as err:
        return _ignored(f"cache {directory} cannot be used ({err.strerror}); building without it")
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        return _ignored(
            f"cache {directory} is not a directory of yours that only you can write; "
            "building without it (remove it, or pass --cache-dir)"
        )
    try:
        return BuildCache(directory, code_fingerprint())
    except Untrusted as err:
        return _ignored(f"cache: {err}; building without it (remove it, or pass --cache-dir)")
    except sqlite3.DatabaseError as err:  # our own file, damaged: made anew (never another program's)
        path = directory / "cache.sqlite"
        path.unlink(missing_ok=True)
        try:
            cache = BuildCache(directory, code_fingerprint())
        except (sqlite3.Error, OSError, Untrusted) as again:
            return _ignored(f"cache {directory} cannot be used ({again}); building without it")
        cache.note = f"cache {path} was damaged ({err}); it was made anew"
        return cache
    except (sqlite3.Error, OSError) as err:
        return _ignored(f"cache {directory} cannot be used ({err}); building without it")


def _ignored(note: str) -> NoCache:
    cache = NoCache()
    cache.note = note
    return cache
