"""Reading files without following links or blocking, and telling whether a file is still the one seen.

Every read of the export goes through :func:`read_file`: it refuses symlinks (never
followed out of the root, or anywhere), FIFOs, devices and directories, and files over
a size limit, and answers with a :class:`Problem` instead of raising; a file outside the
export (a previous publish, the settings) through :func:`read_regular`, which raises.
:func:`stamp` and :func:`unchanged` are the build cache's one file-stamp check.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path
from typing import NamedTuple

from podium.model import Problem

MiB = 1024 * 1024


def entry_problem(path: Path, rel: str) -> Problem | None:
    """Why ``path`` cannot be read as a regular file (None when it can, or is absent)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as err:
        return Problem(rel, "", f"cannot be read: {err.strerror}")
    if stat.S_ISLNK(info.st_mode):
        return Problem(rel, "", "is a symlink; not followed")
    if not stat.S_ISREG(info.st_mode):
        return Problem(rel, "", "is not a regular file; not read")
    return None


def read_file(path: Path, rel: str, limit: int) -> bytes | Problem | None:
    """The bytes of ``path`` (shown as ``rel``), a Problem, or None when it does not exist."""
    handle = open_file(path, rel, limit)
    if not isinstance(handle, LimitedFile):
        return handle
    with handle:
        try:
            data = handle.read()
        except OSError as err:
            return Problem(rel, "", f"cannot be read: {err.strerror}")
    return handle.problem or data


def open_file(path: Path, rel: str, limit: int) -> LimitedFile | Problem | None:
    """``path`` opened for reading under the same rules as :func:`read_file`, for a file read a chunk at a
    time (the sidecars). Once read to the end, ``problem`` says whether it grew over ``limit`` meanwhile."""
    problem = entry_problem(path, rel)
    if problem is not None:
        return problem
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as err:
        if err.errno == errno.ELOOP:
            return Problem(rel, "", "is a symlink; not followed")
        return Problem(rel, "", f"cannot be read: {err.strerror}")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            return Problem(rel, "", "is not a regular file; not read")
        if info.st_size > limit:
            os.close(fd)
            return Problem(
                rel, "", f"is {info.st_size} bytes, over the {limit}-byte limit (raise limits in podium.yaml)"
            )
    except OSError as err:
        os.close(fd)
        return Problem(rel, "", f"cannot be read: {err.strerror}")
    return LimitedFile(fd, rel, limit)


class LimitedFile:
    """A file read at most to its limit; its SHA-256 is taken as it is read (``sha256``)."""

    def __init__(self, fd: int, rel: str, limit: int):
        self.handle = os.fdopen(fd, "rb")
        self.rel = rel
        self.left = limit
        self.digest = hashlib.sha256()
        self.problem: Problem | None = None

    def read(self, size: int = -1) -> bytes:
        if self.problem is not None:
            return b""
        if size < 0:  # to the end, a chunk at a time: never a buffer the size of the limit
            chunks = []
            while chunk := self.read(1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
        data = self.handle.read(min(size, self.left + 1))
        if len(data) > self.left:
            self.problem = Problem(self.rel, "", f"grew over the {self.left}-byte limit while being read")
            return b""
        self.left -= len(data)
        self.digest.update(data)
        return data

    def sha256(self) -> str:
        return self.digest.hexdigest()

    def __enter__(self) -> LimitedFile:
        return self

    def __exit__(self, *exc) -> None:
        self.handle.close()


class NotReadable(Exception):
    """A file outside the export (a previous publish) that podium will not read; ``str()`` says why."""


class TooLarge(NotReadable):
    """A file over the size podium reads (the rest of NotReadable: not a regular file, not JSON, …)."""


def read_regular(path: Path | str, limit: int, *, follow: bool = False) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them: never through a symlink at
    ``path`` itself (unless ``follow``), never a FIFO, device or directory (opened non-blocking, checked
    on the open descriptor), never more than ``limit`` bytes read. FileNotFoundError when it does not
    exist, NotReadable (the reason, without the path) otherwise.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as err:
        if err.errno == errno.ELOOP:
            try:
                link = stat.S_ISLNK(os.lstat(path).st_mode)
            except OSError:
                link = False
            raise NotReadable("is a symlink; not followed" if link else "a symlink loop is in its path") from None
        raise NotReadable(f"cannot be read: {err.strerror or err}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotReadable("is not a regular file; not read")
        if info.st_size > limit:
            raise TooLarge(f"is {info.st_size} bytes, over the {limit}-byte limit; not read")
        chunks, size = [], 0
        while size <= limit:
            try:
                chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            except BlockingIOError:
                raise NotReadable("is not a regular file; not read") from None
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise TooLarge(f"grew over the {limit}-byte limit while being read; not read")
        return b"".join(chunks)
    except OSError as err:
        raise NotReadable(f"cannot be read: {err.strerror or err}") from None
    finally:
        os.close(fd)


# ------------------------------------------------------------------ stamps: is it still the same file?


class Stamp(NamedTuple):
    """A regular file as the file system describes it without reading it. Equal stamps: the same file,
    unchanged (a write, a copy, a restore or a touch changes its ctime, which cannot be set back)."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int

    def __str__(self) -> str:
        return _stamp_text(*self)


def _stamp_text(size: int, mtime_ns: int, ctime_ns: int, inode: int) -> str:
    """A regular file's stamp as text: the one spelling, whether it comes from a :class:`Stamp` (a site's
    listing) or straight from ``lstat`` (:func:`stamp`, without making the tuple)."""
    return f"{size}:{mtime_ns}:{ctime_ns}:{inode}"


ABSENT = "-"


def stamp_of(info: os.stat_result) -> Stamp:
    return Stamp(info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def stamp(path: Path | str) -> str:
    """``path``'s stamp as text, never through a symlink: a regular file's :class:`Stamp`; ``-`` when
    there is nothing there; for anything else its type, ctime and inode (a symlink is not its target)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return ABSENT
    except OSError as err:
        return f"?{err.errno}"
    if stat.S_ISREG(info.st_mode):
        return _stamp_text(info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
    return f"{stat.S_IFMT(info.st_mode):o}:{info.st_ctime_ns}:{info.st_ino}"


def unchanged(path: Path | str, then: str, sha256: str | None, limit: int, now: str | None = None) -> bool:
    """Whether ``path`` is still the file that had the stamp ``then`` and the SHA-256 ``sha256``: the
    same stamp; else (touched, copied, restored) a regular file of at most ``limit`` bytes with exactly
    those bytes, read under :func:`read_regular`'s rules. ``now``: its stamp, when the caller has it.

    The one check of every file the build cache believes: a run's files (a parse reused), an output
    file (a page left in place)."""
    if (now if now is not None else stamp(path)) == then:
        return True
    if sha256 is None:
        return False
    try:
        data = read_regular(path, limit)
    except (OSError, NotReadable):
        return False
    return hashlib.sha256(data).hexdigest() == sha256
