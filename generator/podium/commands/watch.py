"""Changes to a build's inputs, for ``podium serve``: one batch per burst, at almost no cost while idle.

The operating system tells us (watchfiles: inotify, FSEvents, ReadDirectoryChangesW) where it can;
polling is the fallback where it cannot: watchfiles not installed or failing to start (inotify's
watch limit, say, at a million run directories), an input on a network file system (NFS and its
kin deliver no notification for another machine's writes), or ``PODIUM_SERVE_POLL=1``. A watcher
that fails while running hands over to polling, and the failure counts as a change.

Only what a build reads is an input (:class:`Inputs`): in an export, its top-level names, the
sidecars and each run directory's ``result.json``, ``report.md`` and ``report.html`` (never
``events.jsonl`` or ``traces.otlp.jsonl``); the ``*.md`` directly in the content directory; every
file of the theme directories and the override directory; ``podium.yaml``. Never the output or
the cache directory, a dot-entry (``.xorcise-export-*`` staging litter, ``.about.md.swp``) or an
editor's temporary file (``about.md~``, ``#about.md#``, vim's ``4913``), wherever they are.

Changes are gathered into one batch until none has come for a moment (:data:`SETTLE_S`), or for
:data:`CAP_S` at most: an export writing 100 run directories is one rebuild, not a hundred.

Polling is cheap too (:class:`_Poll`): every half second it stats the few small inputs (config,
content, themes), each export's directory and sidecars, and the run directories that changed in the
last seconds; the other run directories are checked in slices of at most :data:`SLICE_S` of CPU a tick,
a directory and the run files it holds (a file it lacked is looked for only once the directory's
mtime moves), so its CPU time stays a few per cent of a core at any size. A run directory added or
removed shows in the export directory's own mtime at once; a file of an existing run edited in place
shows when its slice comes round (about 3 s at 10,000 runs, 35 s at 100,000).
"""

from __future__ import annotations

import os
import re
import stat
import sys
import threading
import time
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from podium.load.export import RUN_FILES
from podium.model import RUN_DIR

POLL_ENV = "PODIUM_SERVE_POLL"  # set (to anything but 0 or empty): poll even where notifications work
SETTLE_S = 0.3  # a batch is taken once no change has come for this long...
CAP_S = 3.0  # ...or this long after its first change, whichever is first
WAKE_S = 1.0  # how often a waiting caller looks at its stop event
STEP_MS = 100  # watchfiles: how often its wait looks at its stop event (and groups changes)
DEBOUNCE_MS = 1000  # watchfiles: the longest it groups changes before handing them over
FIRST_MS = 200  # watchfiles: how long its first wait lasts (it yields then, changes or none: watching has begun)
TICK_S = 0.5  # polling: one tick every this many seconds
POLL_SETTLE_S = TICK_S + 0.4  # polling: a burst spans ticks, so a batch waits out a whole tick
SLICE_S = 0.01  # polling: the run directories checked per tick stop after this much CPU time...
SLICE_WALL_S = 0.05  # ...or this long by the clock (a network file system's stat waits, not computes)
RECENT_S = 10.0  # polling: a run directory that changed is checked every tick for this long after
SIDECARS = ("runs.json", "agents.json")

EXPORT, TREE, PAGES, FILE = "export", "tree", "pages", "file"  # kinds of input (Inputs.roots)

# Linux file systems where inotify misses changes: made on another machine (NFS, SMB, ...) or by the
# host of a virtual machine or WSL (9p, drvfs, vboxsf); as /proc/self/mountinfo names them.
NETWORK_FS = frozenset(
    {
        "nfs",
        "nfs4",
        "cifs",
        "smb3",
        "smbfs",
        "9p",
        "afs",
        "ceph",
        "glusterfs",
        "lustre",
        "gpfs",
        "vboxsf",
        "ncpfs",
        "davfs",
        "drvfs",
        "fuse.sshfs",
        "fuse.rclone",
        "fuse.s3fs",
        "fuse.vmhgfs-fuse",
    }
)
_TEMP_SUFFIXES = ("~", ".swp", ".swx", ".swo", ".tmp", ".kate-swp", ".crswap", "___jb_tmp___", "___jb_old___")


def temporary(name: str) -> bool:
    """A dot-entry or an editor's temporary file: never an input.

    Vim tests a directory's writability with a file named 4913 (then 5036, 5159, … while taken);
    Emacs autosaves to ``#name#``; JetBrains writes ``name___jb_tmp___`` before renaming it."""
    if name.startswith(".") or name.endswith(_TEMP_SUFFIXES) or (name.startswith("#") and name.endswith("#")):
        return True
    return name.isdigit() and len(name) < 8 and int(name) >= 4913 and (int(name) - 4913) % 123 == 0


def _real(path: os.PathLike | str) -> str:
    return os.path.realpath(os.fspath(path))


@dataclass(frozen=True)
class Inputs:
    """What a build reads, by kind: export directories, trees read whole (themes, the override
    directory), content directories (their ``*.md``), single files (podium.yaml); and the
    directories whose contents are never an input (the output, the cache). Paths are resolved
    (a notification names the real path)."""

    roots: tuple[tuple[str, str], ...]  # (path, kind)
    ignored: tuple[str, ...] = ()
    _ancestors: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    @classmethod
    def of(
        cls,
        *,
        exports: Iterable,
        trees: Iterable = (),
        pages: Iterable = (),
        files: Iterable = (),
        ignored: Iterable = (),
    ) -> Inputs:
        roots: list[tuple[str, str]] = []
        for kind, paths in ((EXPORT, exports), (TREE, trees), (PAGES, pages), (FILE, files)):
            for path in paths:
                item = (_real(path), kind)
                if item not in roots:
                    roots.append(item)
        ancestors = set()
        for path, _ in roots:
            parent = os.path.dirname(path)
            while parent not in ancestors and parent != path:
                ancestors.add(parent)
                path, parent = parent, os.path.dirname(parent)
        return cls(tuple(roots), tuple(dict.fromkeys(_real(p) for p in ignored)), frozenset(ancestors))

    def relevant(self, path: str) -> bool:
        """Whether a change at ``path`` (resolved) can change what a build reads."""
        if any(path == skip or path.startswith(_inside(skip)) for skip in self.ignored):
            return False
        for root, kind in self.roots:
            if path == root:
                return True
            prefix = _inside(root)
            if not path.startswith(prefix):
                continue
            parts = path[len(prefix) :].split(os.sep)
            if any(temporary(part) for part in parts):
                continue
            if kind == TREE:
                return True
            if kind == PAGES and len(parts) == 1 and parts[0].endswith(".md"):
                return True
            if kind == EXPORT and (
                len(parts) == 1 or (len(parts) == 2 and RUN_DIR.match(parts[0]) and parts[1] in RUN_FILES)
            ):
                return True
        return path in self._ancestors

    def structural(self, path: str) -> bool:
        """A change to an input's own directory (or file) or to one above it: made, removed or replaced,
        so what is watched must be looked up again (a notification follows the old directory)."""
        return path in self._ancestors or any(path == root for root, _ in self.roots)

    def label(self, path: str) -> str:
        """``path`` as the log shows it: from the directory that holds the input it belongs to."""
        for root, _ in sorted(self.roots, key=lambda item: -len(item[0])):
            if path == root or path.startswith(_inside(root)):
                return os.path.relpath(path, os.path.dirname(root))
        return path


def _inside(directory: str) -> str:
    return directory if directory.endswith(os.sep) else directory + os.sep


class SourceFailed(Exception):
    """A notification watcher stopped working; its changes so far are in ``paths``."""

    def __init__(self, reason: str, paths: set[str]):
        super().__init__(reason)
        self.paths = paths


class Pending:
    """Changed paths, gathered from the watching threads until the burst is over."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._paths: set[str] = set()
        self._first = self._last = 0.0
        self._failure: str | None = None

    def add(self, paths: Iterable[str]) -> None:
        new = set(paths)
        if not new:
            return
        with self._cond:
            now = time.monotonic()
            if not self._paths:
                self._first = now
            self._paths |= new
            self._last = now
            self._cond.notify_all()

    def fail(self, reason: str) -> None:
        with self._cond:
            self._failure = reason
            self._cond.notify_all()

    def take(self, stop: threading.Event, settle: float, cap: float = CAP_S) -> set[str] | None:
        """The next batch: the paths changed since the last one, once ``settle`` seconds have passed
        without a change (or ``cap`` since the first); None once ``stop`` is set. SourceFailed when a
        watcher failed."""
        with self._cond:
            while not stop.is_set():
                if self._failure is not None:
                    reason, self._failure = self._failure, None
                    paths, self._paths = self._paths, set()
                    raise SourceFailed(reason, paths)
                if not self._paths:
                    self._cond.wait(WAKE_S)
                    continue
                due = min(self._last + settle, self._first + cap)
                now = time.monotonic()
                if now >= due:
                    batch, self._paths = self._paths, set()
                    return batch
                self._cond.wait(min(due - now, WAKE_S))
            return None


class _Notify:
    """One watchfiles watcher (recursive or not) in a thread of its own, feeding :class:`Pending`.

    Made in the caller's thread: watchfiles starts watching on the first step of its generator, so
    that step is taken here (an error then, such as the watch limit, is the caller's to handle) and
    the thread takes the generator on from there."""

    def __init__(self, paths: list[str], recursive: bool, inputs: Inputs, pending: Pending):
        import watchfiles  # ImportError: not installed

        self.inputs, self.pending = inputs, pending
        self.stop = threading.Event()
        # force_polling=False: where notifications cannot work, polling is ours (cheaper than stat-ing
        # every file); no filter of watchfiles' own: Inputs.relevant is the one filter
        self.changes = watchfiles.watch(
            *paths,
            watch_filter=None,
            debounce=DEBOUNCE_MS,
            step=STEP_MS,
            stop_event=self.stop,
            rust_timeout=FIRST_MS,
            yield_on_timeout=True,
            debug=False,
            raise_interrupt=False,
            force_polling=False,
            recursive=recursive,
            ignore_permission_denied=True,
        )
        try:
            self._hand_over(next(self.changes))
        except BaseException:
            self.changes.close()
            raise
        self.thread = threading.Thread(target=self._run, name="podium-watch", daemon=True)
        self.thread.start()

    def _hand_over(self, changes: set) -> None:
        if changes:
            relevant = self.inputs.relevant
            self.pending.add(path for _, path in changes if relevant(path))

    def _run(self) -> None:
        try:
            for changes in self.changes:
                self._hand_over(changes)
        except Exception as err:  # noqa: BLE001 - any failure hands over to polling
            if not self.stop.is_set():
                self.pending.fail(f"{type(err).__name__}: {err}")
        finally:
            self.changes.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=FIRST_MS / 1000 + 2)


def notify_plan(inputs: Inputs) -> tuple[list[str], list[str]]:
    """(directories to watch recursively, directories to watch for their own entries only).

    Exports and trees are watched whole; a content directory and a config file's directory for
    their entries; an input that does not exist yet through the nearest directory above it that
    does (its appearing is a change, and the plan is made again)."""
    recursive: list[str] = []
    flat: list[str] = []
    for root, kind in inputs.roots:
        target = os.path.dirname(root) if kind == FILE else root
        if os.path.isdir(target):
            (recursive if kind in (EXPORT, TREE) else flat).append(target)
            continue
        above = os.path.dirname(target)
        while not os.path.isdir(above) and os.path.dirname(above) != above:
            above = os.path.dirname(above)
        flat.append(above)
    whole = [
        p for p in dict.fromkeys(recursive) if not any(p != q and p.startswith(_inside(q)) for q in recursive)
    ]  # one watch covers both
    return whole, [p for p in dict.fromkeys(flat) if p not in whole]


def network_filesystem(paths: Iterable[str], mountinfo: str | None = None) -> tuple[str, str] | None:
    """(a path, its file system type) for the first path on a network file system, by the mount that
    holds it (Linux's /proc/self/mountinfo); None when none is, or when that cannot be told."""
    if mountinfo is None:
        try:
            with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
                mountinfo = fh.read()
        except OSError:
            return None
    mounts = []
    for line in mountinfo.splitlines():
        head, sep, tail = line.partition(" - ")
        fields = head.split()
        if not sep or len(fields) < 5 or not tail.split():
            continue
        point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), fields[4])
        mounts.append((point, tail.split()[0]))
    for path in paths:
        best = max(
            (m for m in mounts if path == m[0] or path.startswith(_inside(m[0]))), key=lambda m: len(m[0]), default=None
        )
        if best is not None and best[1] in NETWORK_FS:
            return path, best[1]
    return None


def _sig(path: str) -> tuple | None:
    """What a poll compares of one path: type, size, times and inode; None when nothing is there. A
    directory's is its type and inode only: an entry made in it (an editor's swap file) is not a change
    to it; the entries that are inputs are compared themselves."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISDIR(info.st_mode):
        return stat.S_IFDIR, info.st_ino
    return stat.S_IFMT(info.st_mode), info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


class _Runs:
    """One export's run directories as the last poll saw them, in flat arrays (about 40 bytes a run
    beside its name): the directory's (mtime, inode) and, for each run file, a hash of its stamp
    (type, size, times, inode; 0 where the directory has no such file)."""

    WIDTH = len(RUN_FILES)

    def __init__(self, root: str):
        self.root = root
        self.names: list[str] = []
        self.inodes = array("Q")
        self.dirs = array("q")
        self.files = array("q")  # WIDTH slots a directory
        self.seen = bytearray()  # 1 once a directory was looked at
        self.cursor = 0
        self.index: dict[str, int] = {}

    def rescan(self) -> list[str]:
        """List the export directory again; the entries added, removed or replaced (as paths). An entry
        kept with its inode keeps what the last look saw of it; the others are looked at afresh."""
        try:
            with os.scandir(self.root) as listing:
                entries = sorted((e.name, e.inode()) for e in listing if not temporary(e.name))
        except OSError:
            entries = []
        kept = {name: i for i, name in enumerate(self.names)}
        changed = [name for name, inode in entries if name not in kept or self.inodes[kept[name]] != inode]
        listed = {name for name, _ in entries}
        changed += [name for name in self.names if name not in listed]
        if changed:
            width = self.WIDTH
            dirs, files, seen = array("q"), array("q"), bytearray()
            for name, inode in entries:
                i = kept.get(name)
                if i is not None and self.inodes[i] == inode:
                    dirs.append(self.dirs[i])
                    files.extend(self.files[i * width : (i + 1) * width])
                    seen.append(self.seen[i])
                else:
                    dirs.append(0)
                    files.extend([0] * width)
                    seen.append(0)
            self.names = [name for name, _ in entries]
            self.inodes = array("Q", (inode for _, inode in entries))
            self.dirs, self.files, self.seen = dirs, files, seen
            self.index = {name: i for i, name in enumerate(self.names)}
            self.cursor = 0
        return [f"{self.root}{os.sep}{name}" for name in changed]

    def check(self, i: int) -> list[str]:
        """Look at run directory ``i`` again; its run files that changed since the last look (none on
        the first). A file it did not have is looked for only when the directory's own mtime moved."""
        name = self.names[i]
        if not RUN_DIR.match(name):
            return []
        path = f"{self.root}{os.sep}{name}"
        try:
            info = os.lstat(path)
        except OSError:
            return []  # gone: the export directory's rescan says so
        if not stat.S_ISDIR(info.st_mode):
            return []
        dir_sig = hash((info.st_mtime_ns, info.st_ino))
        first = not self.seen[i]
        probe = first or dir_sig != self.dirs[i]  # entries may have come or gone: look for every file
        changed = []
        at = i * self.WIDTH
        for slot, file in enumerate(RUN_FILES, start=at):
            before = self.files[slot]
            if not probe and before == 0:
                continue  # not there last time, and the directory's entries did not change since
            sig = _sig(f"{path}{os.sep}{file}")
            now = 0 if sig is None else (hash(sig) or 1)
            if now != before:
                self.files[slot] = now
                if not first:
                    changed.append(f"{path}{os.sep}{file}")
        self.dirs[i] = dir_sig
        self.seen[i] = 1
        return changed


class _Poll:
    """The polling fallback, in a thread of its own, feeding :class:`Pending` (see the module's docstring)."""

    def __init__(self, inputs: Inputs, pending: Pending, tick: float = TICK_S, slice_s: float = SLICE_S):
        self.inputs, self.pending = inputs, pending
        self.tick, self.slice_s = tick, slice_s
        self.stop = threading.Event()
        self.runs = [_Runs(root) for root, kind in inputs.roots if kind == EXPORT]
        self.recent: dict[tuple[int, str], float] = {}  # (export, run directory) -> until when it is checked each tick
        self.turn = 0  # the export whose slice is next
        self.small = self._small()  # the first look, whole, before the build reads anything
        self.listed = {runs.root: _mtime(runs.root) for runs in self.runs}  # when each export was last listed
        for runs in self.runs:
            runs.rescan()
            for i in range(len(runs.names)):
                runs.check(i)
        self.thread = threading.Thread(target=self._run, name="podium-poll", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            while not self.stop.wait(self.tick):
                self.pending.add(p for p in self.sweep() if self.inputs.relevant(p))
        except Exception as err:  # noqa: BLE001 - a poller that dies must say so, not go quiet
            if not self.stop.is_set():
                self.pending.fail(f"{type(err).__name__}: {err}")

    def sweep(self) -> list[str]:
        """One tick: the small inputs, the export directories, the recent run directories and one slice
        of the others; the paths that changed."""
        small = self._small()
        changed = [p for p in small.keys() | self.small.keys() if small.get(p) != self.small.get(p)]
        self.small = small
        now = time.monotonic()
        for n, runs in enumerate(self.runs):
            if (mtime := _mtime(runs.root)) != self.listed[runs.root] or runs.root in changed:
                self.listed[runs.root] = mtime  # before listing: an entry made meanwhile moves it again
                for path in runs.rescan():
                    changed.append(path)
                    name = os.path.basename(path)
                    if (i := runs.index.get(name)) is not None:
                        self.recent[(n, name)] = now + RECENT_S
                        runs.check(i)  # its first look: what it holds now
        for key, until in list(self.recent.items()):
            n, name = key
            i = self.runs[n].index.get(name)
            if until < now or i is None:
                del self.recent[key]
                continue
            if found := self.runs[n].check(i):
                changed += found
                self.recent[key] = now + RECENT_S
        changed += self._slice(now)
        return changed

    def _slice(self, now: float) -> list[str]:
        """Run directories checked in order from where the last slice stopped, for ``slice_s`` of this
        thread's CPU time at most (so the share of a core it takes holds on a loaded machine too, where
        a clock budget would buy ever fewer directories) and SLICE_WALL_S by the clock."""
        changed: list[str] = []
        if not self.runs:
            return changed
        deadline, wall = time.thread_time() + self.slice_s, time.monotonic() + SLICE_WALL_S

        def spent() -> bool:
            return time.thread_time() > deadline or time.monotonic() > wall

        for _ in range(len(self.runs)):
            n = self.turn
            runs = self.runs[n]
            while runs.cursor < len(runs.names):
                i = runs.cursor
                runs.cursor += 1
                if found := runs.check(i):
                    changed += found
                    self.recent[(n, runs.names[i])] = now + RECENT_S
                if not i % 32 and spent():
                    return changed
            runs.cursor = 0
            self.turn = (n + 1) % len(self.runs)
            if spent():
                break
        return changed

    def _small(self) -> dict[str, tuple | None]:
        """The signature of every small input: config files, content pages, theme files, and each
        export's own directory and sidecars."""
        sigs: dict[str, tuple | None] = {}
        for root, kind in self.inputs.roots:
            sigs[root] = _sig(root)
            if kind == EXPORT:
                for name in SIDECARS:
                    path = f"{root}{os.sep}{name}"
                    sigs[path] = _sig(path)
            elif kind == PAGES:
                for entry in _entries(root):
                    if entry.name.endswith(".md"):
                        sigs[entry.path] = _sig(entry.path)
            elif kind == TREE:
                stack = [root]
                while stack:
                    for entry in _entries(stack.pop()):
                        sigs[entry.path] = _sig(entry.path)
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
        return sigs

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=self.tick + 5)


def _entries(directory: str) -> list[os.DirEntry]:
    try:
        with os.scandir(directory) as listing:
            return [entry for entry in listing if not temporary(entry.name)]
    except OSError:
        return []


class Watcher:
    """The inputs of a build, watched: :meth:`next_batch` waits for the next burst of changes.

    Notifications where they work, else polling (the module's docstring says when); ``say`` is told
    which, once, and again when that changes. ``poll``: force polling (default: ``PODIUM_SERVE_POLL``)."""

    def __init__(self, inputs: Inputs, say: Callable[[str], None], poll: bool | None = None):
        self.inputs = inputs
        self.say = say
        self.pending = Pending()
        self.forced = _env_poll() if poll is None else poll
        self.failed: str | None = None  # why notifications stopped working, once they did
        self.sources: list = []
        self.mode = ""
        self._said = ""
        self._start()

    @property
    def settle(self) -> float:
        return POLL_SETTLE_S if self.mode == "poll" else SETTLE_S

    def _start(self) -> None:
        reason = self._poll_reason()
        for _ in range(3) if reason is None else ():
            recursive, flat = notify_plan(self.inputs)
            sources: list[_Notify] = []
            try:
                for paths, whole in ((recursive, True), (flat, False)):
                    if paths:
                        sources.append(_Notify(paths, whole, self.inputs, self.pending))
            except ImportError:
                reason = "watchfiles is not installed"
            except FileNotFoundError as err:  # a directory went away between planning and watching: again
                reason = f"notifications could not start ({err})"
                for source in sources:
                    source.close()
                continue
            except Exception as err:  # noqa: BLE001 - the watch limit, no inotify, a watchfiles we do not know
                reason = f"notifications could not start ({type(err).__name__}: {err})"
            else:
                self.sources, self.mode = sources, "notify"
                self._tell("podium serve: watching the inputs with the operating system's notifications")
                return
            for source in sources:
                source.close()
            break
        self.sources, self.mode = [_Poll(self.inputs, self.pending)], "poll"
        self._tell(f"podium serve: watching the inputs by polling: {reason}")

    def _poll_reason(self) -> str | None:
        if self.forced:
            return f"{POLL_ENV} is set"
        if self.failed is not None:
            return f"notifications stopped working ({self.failed})"
        found = (
            network_filesystem([root for root, _ in self.inputs.roots]) if sys.platform.startswith("linux") else None
        )
        return f"{found[0]} is on a network file system ({found[1]})" if found else None

    def _tell(self, line: str) -> None:
        if line != self._said:
            self._said = line
            self.say(line)

    def _restart(self) -> None:
        for source in self.sources:
            source.close()
        self._start()

    def update(self, inputs: Inputs) -> None:
        """Watch ``inputs`` from now on (the config may name other exports, another theme)."""
        if inputs != self.inputs:
            self.inputs = inputs
            self._restart()

    def next_batch(self, stop: threading.Event) -> list[str] | None:
        """The paths of the next burst of changes, sorted; None once ``stop`` is set. A watcher that
        failed is replaced by polling and its failure returned as a change (events may be lost)."""
        try:
            batch = self.pending.take(stop, self.settle)
        except SourceFailed as failed:
            self.failed = str(failed)
            self._restart()
            return sorted(failed.paths) or [root for root, _ in self.inputs.roots]
        if batch is None:
            return None
        if self.mode == "notify" and any(self.inputs.structural(path) for path in batch):
            self._restart()  # a directory watched was made, removed or replaced: watch what is there now
            # (polling looks paths up afresh each time: it needs no new start)
        return sorted(batch)

    def close(self) -> None:
        for source in self.sources:
            source.close()
        self.sources = []


def _env_poll() -> bool:
    return os.environ.get(POLL_ENV, "") not in ("", "0")
