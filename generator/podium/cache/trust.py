"""Opening a build cache safely: whose it is, who may write it, whether podium made it, and rows that do
not read back (cache/store.py opens it through these).

A cache directory or file owned by another user or writable by others, and a database podium did not make,
is never read nor written (the build runs uncached and says so). Every row is data (text and JSON), never
unpickled; a row that does not read back, for any reason, is a miss.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import zlib
from pathlib import Path

APPLICATION_ID = 0x706F6432  # "pod2": SQLite's header field naming the program a database belongs to
SQLITE_HEADER = b"SQLite format 3\x00"
INFLATE_CHUNK = 1 << 20  # bytes inflated at a time (inflate)


class Untrusted(Exception):
    """The cache file may not be used (and is left exactly as it is); the message says why."""


def check_file(path: Path) -> bool:
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
    if len(header) == 100 and header.startswith(SQLITE_HEADER):
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


def json_row(text: str) -> object | None:
    """A JSON row read back; None when it does not parse, whatever the reason (nested past the parser's
    depth included: a planted row must be a miss, not a RecursionError on every later build)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def inflate(data: bytes, limit: int) -> bytes | None:
    """``data`` (zlib) inflated, or None when it is damaged or would inflate past ``limit`` bytes: it is
    inflated a MiB at a time and never past ``limit + 1`` bytes, so a zlib bomb in a row (1 MB of zeros
    inflates a thousand times over) costs at most that."""
    inflater = zlib.decompressobj()
    parts: list[bytes] = []
    size, pending = 0, data
    try:
        while not inflater.eof and size <= limit:
            part = inflater.decompress(pending, min(INFLATE_CHUNK, limit + 1 - size))
            pending = inflater.unconsumed_tail
            if not part and not pending:
                break  # cut short: the stream wants more than the row holds
            parts.append(part)
            size += len(part)
    except zlib.error:
        return None
    if size > limit or not inflater.eof or inflater.unused_data:
        return None  # past the limit, cut short, or something after the stream
    return b"".join(parts)
