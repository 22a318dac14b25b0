"""The build cache: what a rebuild may reuse, and nothing it may trust blindly.

One SQLite file (``cache.sqlite``, stdlib) in the cache directory (``--cache-dir``,
default ``.podium-cache/`` beside the output; ``--no-cache`` turns it off) holds:

- ``reports``: a run's report rendered and redacted, keyed by the report's content
  hash, everything that changes its redaction (configured literals, the run's own
  values, its mission's answers: ``Redaction.fingerprint``) and podium's code;
- ``runs``: each run directory as the reader parsed it, keyed by its path, the
  size, mtime and inode of its files and the size limits; when those differ but
  the files' SHA-256 do not, the parse is reused too (a touched or copied export);
- ``pages``: for each output file of the last build, the key of everything it was
  rendered from (template, theme files, its whole context, the configured secrets,
  podium's code), the SHA-256 of the bytes written and the file's size, mtime,
  ctime and inode once in place. A page whose key is unchanged is left in the
  previous site (write.py ``Kept``), but only when that file is still the one
  written (all four equal; ctime cannot be set back by hand) or, failing that,
  still has exactly those bytes.

A key is a SHA-256 over the pickled inputs, so equal keys mean equal inputs; a
context that cannot be pickled is never cached. The cache is ignored, and built
anew, when it is corrupt or from another podium; a cache directory owned by
another user, or writable by others, is never read nor written (the build runs
uncached and says so), since parsed runs are stored pickled. Writes are committed
only after the site was swapped in, and keep only what this build used.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle  # only to hash keys (key_of): nothing is ever unpickled
import sqlite3
import stat
from pathlib import Path

import podium
from podium.model import RunRecord
from podium.write import MARKER, FileStat, file_stat, list_site

FORMAT = 4
DEFAULT_DIR = ".podium-cache"


def code_fingerprint() -> str:
    """podium's version and every source file of the package: a changed podium never reuses a cached page."""
    digest = hashlib.sha256(podium.__version__.encode())
    root = Path(podium.__file__).parent
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".json") and "themes" not in path.relative_to(root).parts:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def tree_fingerprint(directories: list[Path]) -> str:
    """Every file under ``directories`` (a theme chain: templates and static files), by path and bytes."""
    digest = hashlib.sha256()
    for directory in directories:
        for path in sorted(directory.rglob("*")) if directory.is_dir() else ():
            if path.is_file():
                digest.update(str(path.relative_to(directory)).encode() + b"\0" + path.read_bytes() + b"\0")
        digest.update(b"\1")
    return digest.hexdigest()


def key_of(*parts: object, memo: dict | None = None) -> str | None:
    """A SHA-256 over the pickled ``parts``; None when one cannot be pickled (then nothing is cached).

    The pickler runs without its memo ("fast" mode), so equal values give equal bytes
    whether or not they share objects (a freshly parsed run and one from the cache).
    With ``memo`` (a dict kept for one build), a run record met again (its page, a
    ledger page, its agent's and its mission's tables) is pickled once and stands in
    every later key as its own digest."""
    buffer = io.BytesIO()
    pickler = _Pickler(buffer, memo) if memo is not None else pickle.Pickler(buffer, protocol=5)
    pickler.fast = True
    try:
        pickler.dump(parts)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
        return None
    return hashlib.sha256(buffer.getvalue()).hexdigest()


def _record(digest: str) -> str:
    """A run record inside a key, by its digest: pickled as a call, never the bytes of a plain string."""
    return digest


class _Pickler(pickle.Pickler):
    def __init__(self, buffer: io.BytesIO, memo: dict):
        super().__init__(buffer, protocol=5)
        self.digests = memo

    def reducer_override(self, obj):
        if type(obj) is not RunRecord:
            return NotImplemented
        known = self.digests.get(id(obj))
        if known is None or known[1] is not obj:
            known = self.digests[id(obj)] = (key_of(obj), obj)  # the record kept alive: its id stays its own
        if known[0] is None:
            raise pickle.PicklingError("a run record that cannot be pickled")
        return (_record, (known[0],))


class NoCache:
    """``--no-cache``, or a cache that may not be used: every lookup misses, nothing is kept."""

    note: str | None = None

    def report(self, key: str) -> str | None:
        return None

    def parsed_run(self, key: str) -> tuple[str, dict, str] | None:
        return None

    def keep_parsed_run(self, key: str, signature: str, hashes: dict, payload: str) -> None:
        pass

    def keep_report(self, key: str, html: str) -> None:
        pass

    def still_uses_report(self, key: str | None) -> None:
        pass

    def unchanged(self, path: str, key: str | None, found: FileStat, site: Path) -> bool:
        return False

    def keep_page(self, path: str, key: str | None, data: bytes) -> None:
        pass

    def commit(self, site: Path, build_key: str | None = None, outline: str | None = None) -> None:
        pass

    def unchanged_build(self, build_key: str | None, site: Path) -> str | None:
        """The last build's outline when it had ``build_key`` and ``site`` is still exactly what it wrote."""
        return None

    def reports_reader(self) -> NoCache:
        """What a worker process may use: cached reports only, read only."""
        return NoCache()

    def close(self) -> None:
        pass


_TABLES = ("CREATE TABLE reports (key TEXT PRIMARY KEY, html TEXT);"
           "CREATE TABLE runs (key TEXT PRIMARY KEY, signature TEXT, hashes TEXT, value TEXT);"
           "CREATE TABLE pages (path TEXT PRIMARY KEY, key TEXT, sha TEXT, stat TEXT);"
           "CREATE TABLE last (key TEXT, outline TEXT);")
APPLICATION_ID = 0x706F6432  # "pod2": SQLite's header field naming the program a database belongs to
_SQLITE_HEADER = b"SQLite format 3\x00"


class Untrusted(Exception):
    """The cache file may not be used (and is left exactly as it is); the message says why."""


def _check_file(path: Path) -> bool:
    """Whether ``path`` is podium's own cache database, safe to read and write; False when there is none yet.

    Untrusted when it is not a regular file of this user that only this user can write, or when it is
    not a database podium made (another program's SQLite, or not SQLite at all): never altered nor deleted."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        raise Untrusted(f"{path} is not a file of yours that only you can write")
    with open(path, "rb") as handle:
        header = handle.read(100)
    if len(header) == 100 and header.startswith(_SQLITE_HEADER):
        application = int.from_bytes(header[68:72], "big")
        if application == APPLICATION_ID or (application == 0 and _older_podium_cache(path)):
            return True
    raise Untrusted(f"{path} is not a podium cache (another program's file?); it is left as it is")


def _older_podium_cache(path: Path) -> bool:
    """A cache of an older podium (before it marked its databases): a `meta` table of (format, code)."""
    try:
        db = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            columns = [row[1] for row in db.execute("PRAGMA table_info(meta)")]
        finally:
            db.close()
    except sqlite3.Error:
        return False
    return columns == ["format", "code"]


class BuildCache(NoCache):
    """The SQLite cache of one build (see the module docstring). Every row is data (text and JSON);
    a row that does not read back is a miss; a database that fails is dropped for this build, with a note,
    and made anew by the next one."""

    def __init__(self, directory: Path, code: str):
        self.directory = directory
        self.code = code
        self.path = directory / "cache.sqlite"
        self.db = self._open()
        self.pages: dict[str, tuple[str, str, str]] = {}
        for row in self.db.execute("SELECT path, key, sha, stat FROM pages"):
            if all(isinstance(v, str) for v in row):
                self.pages[row[0]] = row[1:]
        self.fresh_pages: dict[str, tuple[str, str, str | None]] = {}  # its stat: None until it is in place
        self.fresh_reports: dict[str, str] = {}
        self.used_reports: set[str] = set()
        self.runs: dict[str, tuple[str, str, str]] | None = None  # loaded on first use, taken as used
        self.stored_signatures: dict[str, str] = {}  # the rows taken so far
        self.fresh_runs: dict[str, tuple[str, str, str] | None] = {}  # None: the stored row is still right
        self.broken = False

    def _open(self) -> sqlite3.Connection:
        existed = _check_file(self.path)
        if not existed:
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
        db = sqlite3.connect(self.path)
        try:
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute("CREATE TABLE IF NOT EXISTS meta (format INTEGER, code TEXT)")
            if db.execute("SELECT format, code FROM meta").fetchall() != [(FORMAT, self.code)]:
                # a new cache, or one of another podium: start afresh, in this format
                db.executescript("DROP TABLE IF EXISTS reports; DROP TABLE IF EXISTS runs; "
                                 "DROP TABLE IF EXISTS pages; DROP TABLE IF EXISTS last; DELETE FROM meta;" + _TABLES)
                db.execute("INSERT INTO meta VALUES (?, ?)", (FORMAT, self.code))
                db.commit()
            db.execute("PRAGMA quick_check").fetchall()
            return db
        except sqlite3.DatabaseError:
            db.close()
            raise

    def _failed(self, err: Exception) -> None:
        """The database failed mid-build: go on without it (this build), and start it anew next time."""
        if not self.broken:
            self.broken = True
            self.note = f"cache {self.path} is damaged ({err}); building without it, and making it anew"

    def report(self, key: str) -> str | None:
        if self.broken:
            return None
        try:
            row = self.db.execute("SELECT html FROM reports WHERE key = ?", (key,)).fetchone()
        except sqlite3.DatabaseError as err:
            self._failed(err)
            return None
        if row is None or not isinstance(row[0], str):
            return None
        self.used_reports.add(key)
        return row[0]

    def parsed_run(self, key: str) -> tuple[str, dict, str] | None:
        if self.broken:
            return None
        if self.runs is None:
            try:
                self.runs = {k: (sig, hashes, value) for k, sig, hashes, value in
                             self.db.execute("SELECT key, signature, hashes, value FROM runs")
                             if all(isinstance(v, str) for v in (k, sig, hashes, value))}
            except sqlite3.DatabaseError as err:
                self._failed(err)
                return None
        hit = self.runs.pop(key, None)  # its text freed once the reader has decoded it
        if hit is None:
            return None
        try:
            hashes = json.loads(hit[1])
        except ValueError:
            return None
        if not isinstance(hashes, dict) or not all(isinstance(v, str) for v in hashes.values()):
            return None
        self.stored_signatures[key] = hit[0]
        return hit[0], hashes, hit[2]

    def keep_parsed_run(self, key: str, signature: str, hashes: dict, payload: str) -> None:
        if self.stored_signatures.get(key) == signature:  # reused as stored: nothing to write
            self.fresh_runs[key] = None
        else:
            self.fresh_runs[key] = (signature, json.dumps(hashes, sort_keys=True), payload)

    def keep_report(self, key: str, html: str) -> None:
        self.fresh_reports[key] = html

    def still_uses_report(self, key: str | None) -> None:
        """A reused run page still stands on this report: keep it for the builds after this one."""
        if key is not None:
            self.used_reports.add(key)

    def unchanged(self, path: str, key: str | None, found: FileStat, site: Path) -> bool:
        """Whether the last build wrote ``path`` from exactly these inputs and ``site`` still holds that
        file (``found``: its stat in the listing); if so it is kept for the next build too."""
        known = self.pages.get(path)
        if key is None or known is None or known[0] != key or self.broken:
            return False
        if known[2] != _stat_text(found):  # touched, copied or restored: believed only if the bytes agree
            try:
                data = (site / path).read_bytes()
            except OSError:
                return False
            if hashlib.sha256(data).hexdigest() != known[1]:
                return False
        self.fresh_pages[path] = (key, known[1], _stat_text(found))
        return True

    def keep_page(self, path: str, key: str | None, data: bytes) -> None:
        if key is not None:
            self.fresh_pages[path] = (key, hashlib.sha256(data).hexdigest(), None)

    def unchanged_build(self, build_key: str | None, site: Path) -> str | None:
        """The last build's outline (its printed facts) when the last build had exactly ``build_key``
        (cache.build_key: every input, the export by stat) and ``site`` still holds exactly the files it
        wrote, each with the size, mtime, ctime and inode it had: then there is nothing to do."""
        if build_key is None or self.broken:
            return None
        try:
            row = self.db.execute("SELECT key, outline FROM last").fetchone()
        except sqlite3.DatabaseError as err:
            self._failed(err)
            return None
        if row is None or row[0] != build_key or not isinstance(row[1], str):
            return None
        listing = list_site(site)
        if listing is None or listing.odd:
            return None
        files = {path: found for path, found in listing.files.items() if path != MARKER}
        if files.keys() != self.pages.keys():
            return None
        if any(self.pages[path][2] != _stat_text(found) for path, found in files.items()):
            return None
        return row[1]

    def commit(self, site: Path, build_key: str | None = None, outline: str | None = None) -> None:
        """After the new site is in place at ``site``: remember its pages (only them), the new reports, and
        the build's key and outline (so an unchanged rebuild stops early)."""
        if self.broken:
            return
        pages = []
        for path, (key, sha, found) in self.fresh_pages.items():
            if found is None:
                try:
                    found = _stat_text(file_stat(os.lstat(site / path)))
                except OSError:
                    continue
            pages.append((path, key, sha, found))
        try:
            with self.db:
                self.db.execute("DELETE FROM pages")
                self.db.executemany("INSERT INTO pages VALUES (?, ?, ?, ?)", pages)
                self.db.executemany("INSERT OR REPLACE INTO reports VALUES (?, ?)", self.fresh_reports.items())
                self.db.execute("CREATE TEMP TABLE used (key TEXT PRIMARY KEY)")
                self.db.executemany("INSERT OR IGNORE INTO used VALUES (?)",
                                    [(k,) for k in self.used_reports | set(self.fresh_reports)])
                self.db.execute("DELETE FROM reports WHERE key NOT IN (SELECT key FROM used)")
                self.db.execute("DROP TABLE used")
                if self.runs is None:  # never read: no row is known to be current
                    self.db.execute("DELETE FROM runs")
                stored = set(self.runs or ()) | set(self.stored_signatures)  # rows written only where they changed
                self.db.executemany("DELETE FROM runs WHERE key = ?",
                                    [(k,) for k in stored if k not in self.fresh_runs])
                self.db.executemany("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?)",
                                    [(k, *value) for k, value in self.fresh_runs.items() if value is not None])
                self.db.execute("DELETE FROM last")
                if build_key is not None and outline is not None and len(pages) == len(self.fresh_pages):
                    self.db.execute("INSERT INTO last VALUES (?, ?)", (build_key, outline))
        except sqlite3.DatabaseError as err:
            self._failed(err)

    def close(self) -> None:
        self.db.close()
        if self.broken:  # ours (its header said so when it was opened): made anew by the next build
            self.path.unlink(missing_ok=True)

    def reports_reader(self) -> NoCache:
        return CachedReports(self.path) if not self.broken else NoCache()


class CachedReports(NoCache):
    """The reports table, through a read-only connection of its own, opened where it is first used
    (in a worker process: a connection never crosses processes)."""

    def __init__(self, path: Path):
        self.uri = path.resolve().as_uri() + "?mode=ro"
        self.db: sqlite3.Connection | None = None

    def report(self, key: str) -> str | None:
        try:
            if self.db is None:
                self.db = sqlite3.connect(self.uri, uri=True)
            row = self.db.execute("SELECT html FROM reports WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None  # rendered afresh instead
        return row[0] if row and isinstance(row[0], str) else None


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
        return _ignored(f"cache {directory} is not a directory of yours that only you can write; "
                        "building without it (remove it, or pass --cache-dir)")
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


def build_key(*parts: object) -> str:
    """The key of a whole build: every input's fingerprint (build.py lists them)."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(repr(part).encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()


def _ignored(note: str) -> NoCache:
    cache = NoCache()
    cache.note = note
    return cache


def _stat_text(found: FileStat) -> str:
    return ":".join(map(str, found))
