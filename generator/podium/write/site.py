"""The only stage that touches the output directory.

Nothing is moved into the output until every file has been rendered, so a build
that fails (a template error, a secret caught, a host budget exceeded) leaves the
previous site as it was. Two ways in:

- **A new site** (no previous podium site there): every file is written into a
  staging directory beside the target, which is swapped in whole at the end.
- **An update** (the target is a site podium wrote, its ``.podium-site`` marker
  present): the new files are staged flat (no directory tree to create again),
  then moved into place; files the renderer reports as unchanged (:class:`Kept`)
  are left where they are; files no longer in the site, and symlinks or special
  files found there, are moved out. Every step is journalled, so an error while
  moving files in puts back the previous site; only a crash in that short last
  step (a rename per changed file) can leave a site part old, part new, which the
  next build repairs. An update ends with exactly the tree a new site would have.

podium only ever replaces or deletes inside a directory it created: one holding
its marker (or an empty one).
"""

from __future__ import annotations

import errno
import os
import queue
import re
import shutil
import stat
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from podium.errors import BuildError, UnsafeOutput
from podium.load.files import Stamp, stamp_of
from podium.render.output import Kept, SiteFile

MARKER = ".podium-site"
MARKER_TEXT = b"This directory is written by podium; `podium build` replaces it whole.\n"
_SAFE_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class Listing:
    """A previous site as found on disk (nothing followed through a symlink)."""

    files: dict[str, Stamp]  # regular files reached through real directories, by their stamps
    dirs: frozenset[str]
    odd: tuple[str, ...]  # symlinks and special files: never followed, removed by an update


def list_site(site: Path) -> Listing | None:
    """The previous podium site at ``site`` (None when there is none: no marker, or not a real directory)."""
    try:
        if not stat.S_ISDIR(os.lstat(site).st_mode) or not stat.S_ISREG(os.lstat(site / MARKER).st_mode):
            return None
    except OSError:
        return None
    files: dict[str, Stamp] = {}
    dirs: set[str] = set()
    odd: list[str] = []
    pending = [""]
    while pending:
        rel = pending.pop()
        with os.scandir(site / rel if rel else site) as entries:
            for entry in entries:
                path = f"{rel}/{entry.name}" if rel else entry.name
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(info.st_mode):
                    dirs.add(path)
                    pending.append(path)
                elif stat.S_ISREG(info.st_mode):
                    files[path] = stamp_of(info)
                else:
                    odd.append(path)
    return Listing(files, frozenset(dirs), tuple(sorted(odd)))


def real_path(path: Path) -> Path:
    """``path`` with every symlink resolved; an UnsafeOutput (exit 2) for a symlink loop instead of a RuntimeError."""
    try:
        return path.resolve()
    except (RuntimeError, OSError) as err:
        why = "a symlink loop" if isinstance(err, RuntimeError) else (err.strerror or str(err))
        raise UnsafeOutput(f"{path}: cannot be resolved ({why})") from None


def check_output_dir(out: Path, inputs: list[Path], homes: list[Path]) -> Path:
    """The resolved output path, or an UnsafeOutput (exit 2) when writing there could destroy something.

    ``inputs`` (export, content, theme) may not overlap the output at all;
    ``homes`` (project root, working directory) may hold it but not be it or sit inside it.
    Creates nothing: ``build_site`` calls it before anything (the cache beside the output
    included) is made, and ``podium serve`` before it builds or serves.
    """
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise UnsafeOutput(f"{out}: exists and is not a directory")
    target = real_path(out)
    for above in target.parents:  # `--out afile/site`: the first existing ancestor must be a directory
        try:
            mode = os.lstat(above).st_mode
        except FileNotFoundError:
            continue
        except OSError as err:
            raise UnsafeOutput(f"{out}: {above} cannot be read: {err.strerror or err}") from None
        if not stat.S_ISDIR(mode):
            raise UnsafeOutput(f"{out}: {above} exists and is not a directory")
        break
    if target == Path(target.anchor) or target == real_path(Path.home()):
        raise UnsafeOutput(f"{out}: refusing to use a filesystem root or home directory as the output")
    for other in (real_path(p) for p in inputs):
        if target == other or target in other.parents or other in target.parents:
            raise UnsafeOutput(f"{out}: the output directory may not contain, equal or sit inside {other}")
    for other in (real_path(p) for p in homes):
        if target == other or target in other.parents:
            raise UnsafeOutput(f"{out}: the output directory may not be or contain {other}")
    try:
        foreign = target.is_dir() and any(target.iterdir()) and not _is_marker(target / MARKER)
        has_git = os.path.lexists(target / ".git")
    except OSError as err:
        raise UnsafeOutput(f"{out}: cannot be read: {err.strerror or err}") from None
    if foreign:
        raise UnsafeOutput(
            f"{out}: exists, is not empty and was not written by podium (no {MARKER}); "
            "choose another --out or empty it yourself"
        )
    if has_git:
        raise UnsafeOutput(f"{out}: holds a .git directory; refusing to replace it")
    return target


def _is_marker(path: Path) -> bool:
    """podium's marker: a regular file (a symlink named like it does not make a directory podium's)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def check_relative(path: str) -> str:
    """``path`` if it is a safe relative site path (no ``..``, no absolute, plain names)."""
    if not all(_SAFE_PART.match(part) for part in path.split("/")):
        raise BuildError(f"refusing to write unsafe output path {path!r}")
    return path


def write_site(
    files: Iterable[SiteFile],
    out: Path,
    inputs: list[Path],
    homes: list[Path],
    previous: Listing | None = None,
) -> Path:
    """Write ``files`` ((site path, bytes or Kept) pairs, as they are rendered) as ``out``.

    ``previous``: the listing of the site at ``out`` the renderer's Kept files refer to
    (read here when not given).
    """
    target = check_output_dir(out, inputs, homes)
    target.parent.mkdir(parents=True, exist_ok=True)
    previous = previous or list_site(target)
    staging = Path(tempfile.mkdtemp(prefix=".podium-staging-", dir=target.parent))
    try:
        if previous is None:
            _write_tree(files, staging)
            os.chmod(staging, 0o755)
            _swap(staging, target)
        else:
            staged, kept = _stage_flat(files, staging, previous)
            _Update(target, staging).apply(staged, kept, previous)
    except BaseException as err:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(err, BuildError):
            raise
        if isinstance(err, OSError):
            raise BuildError(f"{out}: writing the site failed: {err}; the previous site is untouched") from err
        raise
    shutil.rmtree(staging, ignore_errors=True)
    return target


class _Paths:
    """Refuses two outputs on one path (compared case-insensitively: some hosts fold case)."""

    def __init__(self):
        self.seen: set[str] = set()

    def check(self, path: str) -> str:
        if path.lower() in self.seen:
            raise BuildError(f"two outputs would be written to {path!r}; refusing to overwrite one with the other")
        self.seen.add(path.lower())
        return check_relative(path)


WRITERS = 2  # threads writing files: a warm 10k build (every file written from the cache) took 22.0-22.4 s
# with two, 25.3-33.3 s with one (alternated; most of it the kernel's time making directories and files)
MADE_KEPT = 4096  # directories the writer remembers having made (a forgotten one is made again: exist_ok)


class _Writer:
    """Writes files into the staging directory on threads of their own (WRITERS), so the build renders the
    next file while the disk makes this one: making a directory, opening, writing and closing a file
    release the GIL, and done in line they were a third of a cold build's wall time at 10k runs. The
    files are distinct, so the order they land in does not matter (the staging directory is swapped in
    whole, after the last one).

    At most ``limit`` bytes wait to be written (8 MB: about 800 pages, enough to keep the disk busy;
    at 32 MB the queue alone raised a cold build's peak memory by ~7 MB). The first error stops the
    writing; leaving the ``with`` block (or the next :meth:`put`) raises it. Leaving it always waits for
    the threads, so nothing writes into the staging directory afterwards (the caller may then delete
    it); leaving it on an exception drops the files not written yet."""

    def __init__(self, root: Path, limit: int = 8 << 20):
        self.root = str(root)
        self.limit = limit
        self.waiting = 0  # bytes queued, not yet written
        self.room = threading.Condition()
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self.error: BaseException | None = None
        self.stop = False
        self.made: set[str] = {""}  # directories made under root lately (forgotten every MADE_KEPT: each run
        # page has a directory of its own, and a set of them all would grow with the history)
        self.threads = [
            threading.Thread(target=self._run, name=f"podium-writer-{n}", daemon=True) for n in range(WRITERS)
        ]
        for thread in self.threads:
            thread.start()

    def put(self, rel: str, data: bytes) -> None:
        with self.room:
            while self.waiting and self.waiting + len(data) > self.limit and self.error is None:
                self.room.wait()
            if self.error is not None:
                raise self.error
            self.waiting += len(data)
        self.queue.put((rel, data))

    def __enter__(self) -> _Writer:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        self.stop = kind is not None  # the build failed: the rest is not written
        for _ in self.threads:
            self.queue.put(None)  # one end mark for each
        for thread in self.threads:
            thread.join()
        if self.error is not None and kind is None:
            raise self.error

    def _run(self) -> None:
        while (item := self.queue.get()) is not None:
            rel, data = item
            if self.error is None and not self.stop:
                try:
                    self._write(rel, data)
                except BaseException as err:  # handed to the build's thread
                    self.error = err
            with self.room:
                self.waiting -= len(data)
                self.room.notify()

    def _write(self, rel: str, data: bytes) -> None:
        folder = rel.rpartition("/")[0]
        if folder not in self.made:
            if len(self.made) >= MADE_KEPT:
                self.made = {""}
            if folder.rpartition("/")[0] in self.made:  # its parent is there: one mkdir (a run page's folder)
                try:
                    os.mkdir(f"{self.root}/{folder}")
                except FileExistsError:  # made by the other thread (a file there: the open below says so)
                    pass
            else:
                os.makedirs(f"{self.root}/{folder}", exist_ok=True)
                end = folder.rfind("/")
                while end > 0:  # its parents are there too
                    self.made.add(folder[:end])
                    end = folder.rfind("/", 0, end)
            self.made.add(folder)
        with open(f"{self.root}/{rel}", "xb") as handle:
            handle.write(data)


def _write_tree(files: Iterable[SiteFile], staging: Path) -> None:
    paths = _Paths()
    with _Writer(staging) as writer:
        for path, data in files:
            if isinstance(data, Kept):  # only an update has files to keep
                raise BuildError(f"{path}: no previous site to keep it from")
            writer.put(paths.check(path), data)
        writer.put(MARKER, MARKER_TEXT)


def _stage_flat(files: Iterable[SiteFile], staging: Path, previous: Listing) -> tuple[list[tuple[str, Path]], set[str]]:
    """The new files written as staging/new-<n>, and the paths of the files kept in place."""
    paths = _Paths()
    staged: list[tuple[str, Path]] = []
    kept: set[str] = set()
    with _Writer(staging) as writer:
        for number, (path, data) in enumerate(files):
            paths.check(path)
            if isinstance(data, Kept):
                if path not in previous.files:
                    raise BuildError(f"{path}: not in the previous site, so it cannot be kept")
                kept.add(path)
            else:
                writer.put(f"new-{number}", data)
                staged.append((path, staging / f"new-{number}"))
        if MARKER not in previous.files:
            writer.put("new-marker", MARKER_TEXT)
            staged.append((MARKER, staging / "new-marker"))
        else:
            kept.add(MARKER)
    return staged, kept


class _Update:
    """Moves staged files into a previous site; every step is journalled so a failure can be undone."""

    def __init__(self, target: Path, staging: Path):
        self.target = target
        self.staging = staging
        self.undo: list[tuple[str, Path, Path | None]] = []
        self.dirs: set[Path] = {target}
        self.moved = 0

    def apply(self, staged: list[tuple[str, Path]], kept: set[str], previous: Listing) -> None:
        wanted = kept | {path for path, _ in staged}
        try:
            for rel in previous.odd:  # never follow, never keep a symlink or a special file
                self._move_away(self.target / rel)
            for rel in previous.files:
                if rel not in wanted:
                    self._move_away(self.target / rel)
            for rel, source in staged:
                self._put(rel, source, previous)
        except BaseException:
            self._roll_back()
            raise
        needed: set[str] = set()  # every directory holding a wanted file (text, not a Path per file)
        for rel in wanted:
            end = rel.rfind("/")
            while end > 0 and rel[:end] not in needed:  # a directory met before has its parents in already
                needed.add(rel[:end])
                end = rel.rfind("/", 0, end)
        for rel in sorted(previous.dirs - needed, key=lambda d: -d.count("/")):
            try:
                os.rmdir(self.target / rel)  # emptied by this update: a new site would not have it
            except OSError:
                pass

    def _move_away(self, path: Path) -> None:
        if not os.path.lexists(path):
            return
        away = self._away()
        os.replace(path, away)
        self.undo.append(("moved", path, away))

    def _put(self, rel: str, source: Path, previous: Listing) -> None:
        dest = self.target / rel
        self._directory(dest.parent)
        try:
            info = os.lstat(dest)
        except FileNotFoundError:
            info = None
        if info is not None and rel not in previous.files and rel not in previous.dirs and rel not in previous.odd:
            raise BuildError(
                f"{dest}: appeared during the build; podium deletes only what it wrote, so the previous "
                "site was put back"
            )
        if info is not None and stat.S_ISREG(info.st_mode):  # replaced in one step; the old one kept to undo
            away = self._away()
            try:
                os.link(dest, away)
            except OSError:  # a filesystem without hard links
                self._move_away(dest)
            else:
                os.replace(source, dest)
                self.undo.append(("moved", dest, away))
                return
        elif info is not None:
            self._move_away(dest)
        os.replace(source, dest)
        self.undo.append(("created", dest, None))

    def _away(self) -> Path:
        self.moved += 1
        return self.staging / f"old-{self.moved}"

    def _directory(self, path: Path) -> None:
        """``path`` as a real directory (never a symlink): made, or a file in its way moved out."""
        if path in self.dirs:
            return
        self._directory(path.parent)
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            info = None
        if info is not None and not stat.S_ISDIR(info.st_mode):
            self._move_away(path)
            info = None
        if info is None:
            os.mkdir(path)
            self.undo.append(("made", path, None))
        self.dirs.add(path)

    def _roll_back(self) -> None:
        for action, path, away in reversed(self.undo):
            try:
                if action == "created":
                    os.unlink(path)
                elif action == "made":
                    os.rmdir(path)
                else:
                    os.replace(away, path)
            except OSError:
                pass


def _swap(staging: Path, target: Path) -> None:
    """Put the staged first build at ``target``, which was absent or empty when the build checked it.

    One rename, which the kernel allows only onto a missing or *empty* directory: a file
    another process wrote into ``target`` during the build is never deleted; the build
    stops (exit 3) naming what it found, and ``target`` is left as it is.
    """
    try:
        os.replace(staging, target)
    except OSError as err:
        if err.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
            raise
        try:
            found = sorted(os.listdir(target))
        except OSError:
            found = []
        shown = [name if name.isprintable() else repr(name) for name in found[:5]]  # no terminal escapes
        what = ", ".join(shown) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
        raise BuildError(
            f"{target}: {what or 'something'} appeared there during the build; podium deletes only "
            "what it wrote, so nothing was replaced (empty the directory or choose another --out)"
        ) from None
