"""Read an ``xorcise run export`` directory into an :class:`Export` (xorcise-export.md).

Run directories are named by 8 or 32 hex characters; dot-entries and unknown
files are ignored; symlinks are never followed. Each run is identified by the
best id available: the id inside result.json, else the one runs.json lists
for the directory's prefix, else the report's Overview ``Run ID``, else the
one full id among the other directories that the 8-hex name starts with. Runs
are deduplicated by that full id (the full-id directory wins; the stale copy is
a note), then attributed to an agent, a mission version and times from
runs.json/agents.json, else from the report's Overview (``report.md``, or
``report.html`` from ``--format html``), else ``(unattributed)`` (counting.md
§7). Every file or field that cannot be read becomes a Problem; nothing raises
on bad input.

``inputs_digest`` covers what the numbers are computed from: the bytes of every
result.json, runs.json and agents.json, and each report's Overview table (not
the report's bytes, so a Markdown and an HTML export of the same runs agree).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from podium import workers
from podium.errors import BuildError, PodiumError
from podium.load.fields import MAX_PROBLEMS, Fields
from podium.load.files import MiB, open_file, read_file, stamp
from podium.load.jsonfile import NotAnArray, iter_json_array, parse_json
from podium.load.report import Overview, read_overview, report_overview
from podium.load.result import Result, read_result
from podium.load.sidecars import ListRow, read_agent_list, read_agent_rows, read_run_list, read_run_rows
from podium.model import GRADING_FAILED, RUN_DIR, UNATTRIBUTED, Export, Problem, Run, RunRecord, codec
from podium.workers import Weighed


@dataclass(frozen=True)
class Limits:
    """Largest file podium reads, per kind of file (podium.yaml ``limits``). A result.json holds XORCISE's
    judge prompt (the agent's transcript, cut to what the judge reads): the real ones are 1-12 KB, so 4 MiB
    is hundreds of times what one needs, and bounds what reading one takes (load/jsonfile.py: at most 6
    times that for its values) in each process that reads results at once."""

    result_bytes: int = 4 * MiB
    report_bytes: int = 2 * MiB
    sidecar_bytes: int = 2048 * MiB


@dataclass
class _Dir:
    """One run directory as read, before deduplication and attribution."""

    name: str
    result: Result | None
    overview: dict[str, str]  # the report's Overview table (empty without a report)
    overview_file: str | None  # the report it came from (report.md or report.html)
    report_file: str | None  # report.md, which the run page renders safely (report.html is never published)
    report_digest: str | None = None
    result_digest: str | None = None
    run_id: str = ""
    stored: str | None = None  # the SHA-256 of the directory as the store keeps it (None: not stored)
    without_values: bool = False  # kept without its result's submitted values (_light): read again when needed

    @property
    def result_id(self) -> str | None:
        return self.result.run_id if self.result is not None else None

    @property
    def shape(self) -> str | None:
        return self.result.shape if self.result is not None else None

    def whole(self, reader: _Reader) -> _Dir:
        return self


@dataclass
class _Replayed:
    """A run directory the store kept, as a rebuild first takes it: its id and shape, and the directory
    itself still as stored text (``body``), decoded only when it is counted afresh (:meth:`whole`)."""

    name: str
    result_id: str | None
    shape: str | None
    body: str
    stored: str  # the SHA-256 of ``body``
    run_id: str = ""
    store: ParsedStore | None = None  # told when ``body`` does not read back

    def whole(self, reader: _Reader) -> _Dir:
        """The directory decoded; a body that does not read back is read again from disk (into a reader
        of its own: the store's problems and digest entries for it are in ``reader`` already)."""
        try:
            item = codec.loads(_Dir, self.body)
        except (ValueError, TypeError, KeyError):
            if self.store is not None:
                self.store.damaged("runs.value", f"{reader.root}/{self.name}")
            item = _read_dir(_Reader(reader.root, reader.limits), self.name)
        if item.without_values:
            item = _with_values(reader, item)
        item.run_id = self.run_id
        return item


def _with_values(reader: _Reader, item: _Dir) -> _Dir:
    """A stored directory given back the submitted values the store does not keep, read again from its
    result.json, which must still have the bytes it was parsed from (a BuildError otherwise: it changed
    during the build; the stat pass had found it unchanged)."""
    rel = f"{item.name}/result.json"
    data = read_file(reader.root / rel, rel, reader.limits.result_bytes)
    result = None
    if isinstance(data, bytes) and hashlib.sha256(data).hexdigest() == item.result_digest:
        value, _ = parse_json(data, rel)
        result = read_result(value, Fields(rel, [])) if value is not None else None
    if result is None or item.result is None:
        raise BuildError(f"{rel} changed while the site was being built; build again")
    return replace(item, result=replace(item.result, secrets=result.secrets, answers=result.answers),
                   without_values=False)


class _Reader:
    def __init__(self, root: Path, limits: Limits, source: int = 0):
        self.root = root
        self.limits = limits
        self.source = source
        self.problems: list[Problem] = []
        self.notes: list[str] = []
        self.hashes: list[tuple[str, str]] = []  # the digest entries of the directory being read
        self.file_hashes: dict[str, str] = {}  # rel -> SHA-256 of each file of that directory (the cache's check)
        self.total = hashlib.sha256()  # inputs_digest, fed in path order as directories are read
        self.sidecars: list[tuple[str, str]] = []  # entries waiting for their place in that order

    def key(self, name: str) -> str:
        """The store's key of the run directory ``name``: the export's place in the build and the name, not
        the export's path, so a fresh export written elsewhere (a CI job's new checkout, a copy) finds the
        rows of the last build's; a row is still taken back only when every file it was made from has the
        same stamp or the same bytes (cache.py ``parsed``), so the path adds no safety."""
        return f"{self.source}:{name}"

    def read(self, rel: str, limit: int, *, digest: bool = True) -> bytes | None:
        data = read_file(self.root / rel, rel, limit)
        if isinstance(data, Problem):
            self.problems.append(data)
            return None
        if data is not None:
            self.file_hashes[rel] = hashlib.sha256(data).hexdigest()
            if digest:
                self.hashes.append((rel, self.file_hashes[rel]))
        return data

    def add_digest(self, rel: str, data: bytes) -> None:
        self.hashes.append((rel, hashlib.sha256(data).hexdigest()))

    def add_file_digest(self, rel: str, file_hash: str) -> None:
        """A sidecar's entry: fed when the directories sorting before it have been."""
        self.sidecars = sorted(self.sidecars + [(rel, file_hash)])

    def read_json(self, rel: str, limit: int) -> tuple[object | None, Fields] | None:
        data = self.read(rel, limit)
        if data is None:
            return None
        value, problems = parse_json(data, rel)
        self.problems.extend(problems)
        return value, Fields(rel, self.problems, most=MAX_PROBLEMS)

    def start_dir(self) -> None:
        self.hashes, self.file_hashes = [], {}

    def end_dir(self, entries: list[tuple[str, str]] | tuple[tuple[str, str], ...]) -> None:
        """A directory's digest entries (read, or replayed from the cache), in their place in path order:
        directories come sorted by name, and every entry of one starts with its name and a slash."""
        entries = sorted(entries)
        while self.sidecars and entries and self.sidecars[0] < entries[0]:
            self._feed(*self.sidecars.pop(0))
        for entry in entries:
            self._feed(*entry)

    def _feed(self, rel: str, file_hash: str) -> None:
        self.total.update(f"{rel}\0{file_hash}\n".encode())

    def digest(self) -> str:
        for entry in self.sidecars:
            self._feed(*entry)
        self.sidecars = []
        return "sha256:" + self.total.hexdigest()


class ParsedStore(Protocol):
    """Where parsed run directories are kept between builds: cache.py's ``NoCache`` and ``BuildCache`` (the
    build hands one in; this stage never imports the cache, which sits above it). ``stored`` may give no
    payload: then the directory is not kept."""

    def parsed(self, directory: str, salt: str, files: Sequence[str], limit: int, read: Callable,
               stored: Callable, replay: Callable, seen: Callable | None = None, key: str | None = None) -> Any: ...

    def kept(self, key: str, salt: str) -> str | None:
        """What ``keep`` made of the directory's run last time (:class:`_Runs`), as stored text (``key``: the
        directory's key, :meth:`_Reader.key`)."""
        ...

    def keep_kept(self, key: str, salt: str, text: str) -> None: ...

    def may_keep(self, text: str, own: Sequence[str] = ()) -> bool:
        """Whether a row's text may be kept: it holds no secret (cache.py ``BuildCache.may_keep``)."""
        ...

    def cold(self) -> bool:
        """Whether it holds no parsed directory (every one will be read afresh)."""
        ...

    def damaged(self, row: str, key: str = "") -> None:
        """A stored row (``row``: its table and column, ``key``: which) that did not read back: it is made
        again, and the build says so under ``--verbose``."""
        ...


class NoStore:
    """A :class:`ParsedStore` that keeps nothing: every directory is read afresh (cache.py's ``NoCache`` is
    one)."""

    def parsed(self, directory: str, salt: str, files: Sequence[str], limit: int, read: Callable,
               stored: Callable, replay: Callable, seen: Callable | None = None, key: str | None = None) -> Any:
        """A run directory parsed: ``read(None)`` (see cache.py ``BuildCache.parsed``)."""
        return read(None)

    def kept(self, key: str, salt: str) -> str | None:
        return None

    def keep_kept(self, key: str, salt: str, text: str) -> None:
        pass

    def may_keep(self, text: str, own: Sequence[str] = ()) -> bool:
        return True

    def cold(self) -> bool:
        """Whether no parsed run directory is kept (every one will be read afresh)."""
        return True

    def damaged(self, row: str, key: str = "") -> None:
        pass


NO_STORE = NoStore()  # nothing kept: every directory read afresh


def load_exports(roots: Sequence[Path], limits: Limits = Limits(), cache: ParsedStore = NO_STORE, keep=None,
                 jobs: int = 1, scanned: Scanned | None = None) -> Export:
    """Several exports as one (``podium build A B``): a run found in more than one is counted once,
    from the LAST export that holds it (a run exported while grading, then again once graded,
    counts as graded); each such duplicate is a note. With several exports every problem's path
    starts with its export's directory name (made unique), so no local path is published.

    ``keep(run)`` maps each run, as it is read, to what the Export holds (default: the run itself;
    the build keeps compact records, kinds.record_of; what a :class:`Keeper` makes is also stored).
    ``jobs``: worker processes that may read directories ahead (:class:`_ReadAhead`). ``scanned``: what
    the stat pass saw of these exports (:func:`scan`), when it ran."""
    seen = scanned.roots if scanned is not None and len(scanned.roots) == len(roots) else [None] * len(roots)
    if len(roots) == 1:
        return load_export(roots[0], limits, cache=cache, keep=keep, jobs=jobs, seen=seen[0])
    labels = _labels(roots)
    parts = [load_export(root, limits, source=i, label=labels[i], cache=cache, keep=keep, jobs=jobs, seen=seen[i])
             for i, root in enumerate(roots)]
    runs: dict[str, object] = {}
    notes: list[str] = []
    for part in parts:
        notes += part.notes
        for run in part.runs:
            if run.run_id in runs:
                notes.append(f"run {run.run_id} is in {labels[runs[run.run_id].source]}/ and "
                             f"{labels[run.source]}/; the copy from {labels[run.source]}/ (later) is counted")
            runs[run.run_id] = run
    dropped = sum(len(p.runs) for p in parts) - len(runs)
    total = hashlib.sha256()
    for label, part in zip(labels, parts):
        total.update(f"{label}\0{part.inputs_digest}\n".encode())
    return Export(
        runs=tuple(sorted(runs.values(), key=lambda r: r.run_id)),
        problems=tuple(sorted({p for part in parts for p in part.problems})),
        runs_read=sum(p.runs_read for p in parts) - dropped,
        inputs_digest="sha256:" + total.hexdigest(),
        notes=tuple(notes),
    )


def _labels(roots: Sequence[Path]) -> list[str]:
    """Each export's directory name, with ``-2``, ``-3`` … where two share one."""
    labels: list[str] = []
    for root in roots:
        base = root.resolve().name or "export"
        label, n = base, 1
        while label in labels:
            n += 1
            label = f"{base}-{n}"
        labels.append(label)
    return labels


def load_export(root: Path, limits: Limits = Limits(), *, source: int = 0, label: str = "",
                cache: ParsedStore = NO_STORE, keep=None, jobs: int = 1, seen: array | None = None) -> Export:
    """Everything podium needs from the export at ``root`` (``label``: prefixed to problem paths).

    Streams: a run directory is read, identified, attributed and handed to ``keep`` one at a time, so
    only what ``keep`` returns is held (a directory whose id needs the other directories' waits for
    them). ``cache`` (cache.py) keeps each directory as parsed, so a rebuild reads only the
    directories whose files changed (see :func:`_read_dir_cached`). When it holds none (a cold build),
    ``jobs`` worker processes read the directories ahead (:class:`_ReadAhead`). ``seen``: the stat pass's
    digest of each run directory (:class:`Scanned`), when it ran."""
    if not root.is_dir():
        raise PodiumError(f"{root}: export directory not found (pass EXPORT or set export: in podium.yaml)")
    reader = _Reader(root.resolve(), limits, source)
    names = _run_dir_names(reader)
    rows = _sidecar(reader, "runs.json", read_run_rows, read_run_list)
    agent_names = _sidecar(reader, "agents.json", read_agent_rows, read_agent_list)
    runs = _Runs(reader, rows, agent_names, source, keep, cache)
    waiting: list[_Dir] = []
    ahead = _ReadAhead(reader.root, limits, names, jobs) if jobs > 1 and len(names) >= AHEAD_MIN and cache.cold() \
        else None
    if seen is not None and len(seen) != len(names):
        seen = None  # directories came or went since the stat pass: every one is stamped again
    try:
        for index, name in enumerate(names):
            item = _read_dir_cached(reader, name, cache, ahead, seen[index] if seen is not None else None)
            if _own_id(item, reader, rows):
                runs.add(item)
            else:
                waiting.append(item.whole(reader))
    finally:
        if ahead is not None:
            ahead.close()
    for item in _identify(waiting, rows, runs.ids, reader):
        runs.add(item)
    listed = len(set(rows) - runs.ids)
    if listed:
        reader.notes.append(f"runs.json lists {listed} run(s) with no run directory; they are not counted")
    reader.notes += runs.notes()
    problems = set(reader.problems)
    if label:
        problems = {replace(p, path=f"{label}/{p.path}") for p in problems}
    return Export(
        runs=tuple(run for run_id in sorted(runs.kept) if (run := runs.kept[run_id][1]) is not None),
        problems=tuple(sorted(problems)),
        runs_read=len(runs.kept),
        inputs_digest=reader.digest(),
        notes=tuple(reader.notes),
    )


def _sidecar(reader: _Reader, rel: str, read_rows, read_whole) -> dict:
    """A sidecar's rows, read an element at a time; {} when it is absent or cannot be used (a problem)."""
    handle = open_file(reader.root / rel, rel, reader.limits.sidecar_bytes)
    if isinstance(handle, Problem):
        reader.problems.append(handle)
        return {}
    if handle is None:
        return {}
    outcome: dict = {}
    fields = Fields(rel, reader.problems)
    with handle:
        items = iter_json_array(handle, rel, reader.problems, outcome)
        first = next(items, None)
        if isinstance(first, NotAnArray):
            rows = read_whole(first.value, fields) or {}
        else:
            rows = read_rows(itertools.chain(() if first is None else (first,), items), fields)
        for _ in items:  # read to the end, for the digest
            pass
    if handle.problem is not None:
        reader.problems.append(handle.problem)
        return {}
    reader.add_file_digest(rel, handle.sha256())
    return {} if outcome.get("broken") else rows


class Keeper(Protocol):
    """A ``keep`` whose results the store keeps (build.py's): a rebuild takes an unchanged run's back
    instead of decoding, attributing and keeping the run again."""

    def __call__(self, run: Run) -> Any: ...

    def dumps(self, run: Run, kept: Any) -> str:
        """What ``self(run)`` made, as text (data only: codec.py)."""
        ...

    def loads(self, text: str) -> Any | None:
        """That text made a kept value again, with whatever ``self(run)`` also did; None when it does not
        read back."""
        ...


class _Runs:
    """The runs of one export as they are identified: one per run id (the full-id directory wins, then the
    one named after its id, then the first name), each attributed and kept as ``keep`` makes it.

    With a store and a :class:`Keeper`, what ``keep`` made of each directory's run is stored with the
    problems its attribution found, under the digest of everything that made it (the directory as
    stored, its id, its runs.json row, its agent's name, its export: :meth:`_inputs`); a rebuild whose
    directory and inputs are unchanged takes that back (a 100-run rebuild at 30k runs decodes and
    counts only what changed)."""

    def __init__(self, reader: _Reader, rows: dict[str, ListRow], agent_names: dict[str, str], source: int, keep,
                 store: ParsedStore = NO_STORE):
        self.reader, self.rows, self.agent_names, self.source, self.keep = reader, rows, agent_names, source, keep
        self.store = store if all(hasattr(keep, name) for name in ("dumps", "loads")) else NO_STORE
        self.salt = str(reader.limits)
        self.all_agents = hashlib.sha256(repr(sorted(agent_names.items())).encode()).hexdigest()
        self.kept: dict[str, tuple[tuple, object | None]] = {}  # run id -> (its directory's rank, what keep made)
        self.ids: set[str] = set()  # every id a directory was given
        self.losers: list[tuple[str, str, str]] = []  # (run id, winner's directory, loser's directory)

    def add(self, item: _Dir | _Replayed) -> None:
        run_id = item.run_id
        self.ids.add(run_id)
        rank = (item.name != run_id, not run_id.startswith(item.name), item.name)
        held = self.kept.get(run_id)
        if held is not None:
            if held[0] < rank:
                self.losers.append((run_id, held[0][2], item.name))
                return
            self.losers.append((run_id, item.name, held[0][2]))
            del self.kept[run_id]
        row = self.rows.get(run_id)
        inputs = self._inputs(item, row) if item.stored is not None and self.store is not NO_STORE else None
        kept = self._replay(item, inputs) if inputs is not None else None
        if kept is None:
            before = len(self.reader.problems)
            run = _attribute(item.whole(self.reader), row, self.agent_names, self.reader, self.source)
            kept = run
            if run is not None and self.keep is not None:
                kept = self.keep(run)
                if inputs is not None:
                    problems = codec.dumps(tuple(self.reader.problems[before:]))
                    text = f"{inputs}\n{problems}\n{self.keep.dumps(run, kept)}"
                    if self.store.may_keep(text, run.secrets):  # (its names may quote a secret: then not kept)
                        self.store.keep_kept(self.reader.key(item.name), self.salt, text)
        self.kept[run_id] = (rank, kept)  # None: unreadable and unidentifiable (a problem only), still read

    def _inputs(self, item, row: ListRow | None) -> str:
        """The digest of everything :func:`_attribute` and ``keep`` make a directory's run from."""
        agent = self.agent_names.get(row.agent_id) if row is not None and row.agent_id else self.all_agents
        return hashlib.sha256(repr((item.stored, item.run_id, row, agent, self.source)).encode(
            "utf-8", "surrogatepass")).hexdigest()

    def _replay(self, item, inputs: str):
        """What ``keep`` made of this run last time, when it was made from the same ``inputs``; else None."""
        text = self.store.kept(self.reader.key(item.name), self.salt)
        if text is None or not text.startswith(inputs + "\n"):
            return None
        problems, _, stored = text[len(inputs) + 1:].partition("\n")
        try:
            found = codec.loads(tuple[Problem, ...], problems)
        except (ValueError, TypeError, KeyError):
            found = None
        kept = self.keep.loads(stored) if found is not None else None
        if kept is None or found is None:  # it was made from these inputs, but does not read back
            self.store.damaged("kept.value", f"{self.reader.root}/{item.name}")
            return None
        self.reader.problems += found
        return kept

    def notes(self) -> list[str]:
        """Stale copies as notes, other duplicates as problems (sorted by run id, as they were met)."""
        notes = []
        for run_id, winner, loser in sorted(self.losers):
            if winner == run_id and len(loser) == 8 and run_id.startswith(loser):
                notes.append(f"{loser}/ is a stale copy of run {run_id}; {winner}/ is used")
            else:
                self.reader.problems.append(Problem(
                    loser, "", f"holds the same run id as {winner}/ ({run_id}); counted once, from {winner}/"))
        return notes


def _run_dir_names(reader: _Reader) -> list[str]:
    names = []
    try:
        entries = sorted(os.scandir(reader.root), key=lambda e: e.name)
    except OSError as err:
        raise PodiumError(f"{reader.root}: cannot list the export: {err.strerror}") from None
    for entry in entries:
        name = entry.name
        if name.startswith(".") or name in ("runs.json", "agents.json"):
            continue
        if not RUN_DIR.match(name):
            reader.notes.append(f"ignored {name!r}: not a run directory name")
        elif entry.is_symlink():
            reader.problems.append(Problem(name, "", "is a symlink; not followed"))
        elif not entry.is_dir(follow_symlinks=False):
            reader.problems.append(Problem(name, "", "is a file where a run directory should be"))
        else:
            names.append(name)
    return names


def _read_dir(reader: _Reader, name: str) -> _Dir:
    result = None
    if not os.path.lexists(reader.root / name / "result.json"):
        reader.problems.append(Problem(f"{name}/result.json", "", "missing: the run cannot be classified"))
    else:
        parsed = reader.read_json(f"{name}/result.json", reader.limits.result_bytes)
        if parsed is not None and parsed[0] is not None:
            result = read_result(*parsed)
    result_digest = reader.file_hashes.get(f"{name}/result.json")
    for rel, is_html in ((f"{name}/report.md", False), (f"{name}/report.html", True)):
        data = reader.read(rel, reader.limits.report_bytes, digest=False)
        if data is not None:
            overview = report_overview(data.decode("utf-8", errors="replace"), is_html=is_html)
            reader.add_digest(f"{name}/report#Overview", json.dumps(overview, sort_keys=True).encode())
            digest = None if is_html else reader.file_hashes[rel]  # hashed once, as it was read
            return _Dir(name, result, overview, rel, None if is_html else rel, digest, result_digest)
    return _Dir(name, result, {}, None, None, None, result_digest)


def _light(item: _Dir) -> _Dir:
    """What a rebuild needs of a directory to count its run again: the result without the texts only its
    page shows (rubric, checks, judge detail), its page reads result.json afresh (:func:`whole_run`); and
    without its submitted values, which the store must not hold (cache.py): a directory counted afresh
    reads them again (:func:`_with_values`)."""
    result = item.result
    if result is None or result.grade is None:
        return item
    grade = result.grade
    detail = GRADING_FAILED if (grade.judge_detail or "").startswith(GRADING_FAILED) else None
    values = bool(result.secrets or result.answers)
    return replace(item, result=replace(result, grade=replace(grade, criteria=(), checks=(), judge_detail=detail),
                                        secrets=(), answers=()), without_values=values)


@dataclass(frozen=True)
class _Head:
    """One directory as the build cache keeps it (codec.py: data only), but the directory itself, which is
    stored after it as text of its own (:class:`_Replayed`): its result's id and shape, the problems and
    digest entries reading it produced."""

    result_id: str | None
    shape: str | None
    problems: tuple[Problem, ...]
    digests: tuple[tuple[str, str], ...]


RUN_FILES = ("result.json", "report.md", "report.html")


def _read_dir_cached(reader: _Reader, name: str, cache: ParsedStore, ahead: _ReadAhead | None = None,
                     seen: int | None = None) -> _Dir | _Replayed:
    """A run directory, as parsed last time when its files are unchanged (cache.py ``parsed``: the same
    stamps, else the same bytes), else read afresh (by a worker ahead of time, when there are some).
    The problems and the digest entries the directory produced are replayed with it; the directory
    itself stays stored text until it is needed (:class:`_Replayed`). ``seen``: the stat pass's digest
    of the directory's stamps: a stored parse with those stamps is taken without stamping its files again."""
    reader.start_dir()
    before = len(reader.problems)

    def read(stamps: dict[str, str] | None) -> _Dir:
        item = ahead.take(reader, name, stamps) if ahead is not None else None
        if item is None:
            item = _read_dir(reader, name)
        reader.end_dir(reader.hashes)
        return item

    def stored(item: _Dir) -> tuple[str | None, dict[str, str]]:
        body = codec.dumps(_light(item))  # codec's JSON is ASCII on one line: the head ends at the first newline
        head = _Head(item.result_id, item.shape, tuple(reader.problems[before:]), tuple(reader.hashes))
        payload = f"{codec.dumps(head)}\n{body}"
        hashes = {rel.rpartition("/")[2]: digest for rel, digest in reader.file_hashes.items()}
        if not cache.may_keep(payload, item.result.secrets if item.result is not None else ()):
            return None, hashes  # a name or the report's Overview quotes a secret: read again next time
        item.stored = hashlib.sha256(body.encode()).hexdigest()
        return payload, hashes

    def replay(payload: str) -> _Replayed | None:
        head_text, _, body = payload.partition("\n")
        try:
            head = codec.loads(_Head, head_text)
        except (ValueError, TypeError, KeyError):
            return None  # a damaged row: the directory is read again
        reader.problems += head.problems
        reader.end_dir(head.digests)
        return _Replayed(name, head.result_id, head.shape, body, hashlib.sha256(body.encode()).hexdigest(),
                         store=cache)

    def as_seen(stamps: dict[str, str]) -> bool:
        return stamps_digest(name, [stamps.get(file, "") for file in RUN_FILES]) == seen

    limits = reader.limits
    return cache.parsed(f"{reader.root}/{name}", str(limits),  # text: a Path per directory cost more than its lstat
                        RUN_FILES, max(limits.result_bytes, limits.report_bytes),
                        read, stored, replay, as_seen if seen is not None else None, key=reader.key(name))


AHEAD_MIN = 1000  # fewer directories are read by the build's own thread: not worth starting processes for
AHEAD_CHUNK = 40  # directories per task
AHEAD_TASKS = 4  # tasks per worker sent ahead of the directory being counted
# The result.json bytes (by their size on disk) a task reads at most, unless one file alone is more, and
# all the tasks out at once: what the workers hold parsed and send back grows with those bytes (a result
# of many criteria keeps them all), so this, not the number of directories, bounds it. Real results are
# 1-12 KB: 40 directories are ~0.5 MB, and neither bound is met.
AHEAD_TASK_BYTES = 8 * MiB
AHEAD_BYTES = 64 * MiB


class _ReadAhead:
    """The run directories of a cold build read by worker processes (workers.py) ahead of the build's
    thread, which takes each, in name order, as if it had read it itself (the same reader, so the same
    problems and digests). A worker takes a directory's stamps before it reads it; when the store took
    other stamps since (it changed meanwhile), the build reads it again, so a stored row never holds
    stamps older than its bytes."""

    def __init__(self, root: Path, limits: Limits, names: list[str], jobs: int):
        self.pool = workers.pool(jobs)
        self.done = workers.in_order(self.pool, _read_dirs, _ahead_tasks(root, limits, names), jobs * AHEAD_TASKS,
                                     budget=AHEAD_BYTES)
        self.chunk: list[tuple] = []

    def take(self, reader: _Reader, name: str, stamps: dict[str, str] | None) -> _Dir | None:
        """``name`` as read by a worker, its problems and digests added to ``reader``; None when it was
        not read ahead, or when ``stamps`` (the store's, None for none) are not the ones it was read under."""
        while True:
            while self.chunk:
                found, before, item, problems, hashes, file_hashes = self.chunk.pop()
                if found == name:
                    if stamps is not None and stamps != before:
                        return None
                    reader.problems += problems
                    reader.hashes, reader.file_hashes = hashes, file_hashes
                    return item
            chunk = next(self.done, None)
            if chunk is None:
                return None
            self.chunk = chunk[::-1]

    def close(self) -> None:
        self.done.close()  # stops the pool, if it ever started taking results
        workers.stop(self.pool)  # and if not


def _ahead_tasks(root: Path, limits: Limits, names: list[str]) -> Iterator[Weighed]:
    """The directories in tasks of at most AHEAD_CHUNK, or of AHEAD_TASK_BYTES of result.json (a file over
    ``limits`` is not read: it weighs nothing), each weighed by those bytes (taken as the tasks are)."""
    chunk: list[str] = []
    size = 0
    for name in names:
        try:
            found = os.lstat(f"{root}/{name}/result.json").st_size
        except OSError:
            found = 0
        found = found if found <= limits.result_bytes else 0
        if chunk and (len(chunk) == AHEAD_CHUNK or size + found > AHEAD_TASK_BYTES):
            yield Weighed((root, limits, chunk), size)
            chunk, size = [], 0
        chunk.append(name)
        size += found
    if chunk:
        yield Weighed((root, limits, chunk), size)


def _read_dirs(root: Path, limits: Limits, names: list[str]) -> list[tuple]:
    """In a worker: each directory as :func:`_read_dir` reads it, with its stamps from before and what it
    added to its reader."""
    out = []
    for name in names:
        stamps = {file: stamp(f"{root}/{name}/{file}") for file in RUN_FILES}  # as cache.py takes them
        reader = _Reader(root, limits)
        item = _read_dir(reader, name)
        out.append((name, stamps, item, reader.problems, reader.hashes, reader.file_hashes))
    return out


def _own_id(item: _Dir | _Replayed, reader: _Reader, rows: dict[str, ListRow]) -> bool:
    """Give a directory the id it holds itself (result.json's, or its own 32-hex name); False when it
    needs the others' (an 8-hex directory without an id inside, or whose result.json names another
    run while runs.json lists a run for the directory: runs.json's run is the one exported there)."""
    result_id = item.result_id
    if result_id is not None and not result_id.startswith(item.name):
        field = "grade.run_id" if item.shape == "graded" else "run_id"
        reader.problems.append(Problem(
            f"{item.name}/result.json", field, f"run id {result_id} does not match the directory name"))
        if len(item.name) == 8 and sum(1 for run_id in rows if run_id.startswith(item.name)) == 1:
            item.run_id = ""
            return False
    item.run_id = result_id or (item.name if len(item.name) == 32 else "")
    return bool(item.run_id)


def _identify(waiting: list[_Dir], rows: dict[str, ListRow], ids: set[str], reader: _Reader) -> Iterator[_Dir]:
    """The directories without an id of their own, each given the best one available (module docstring):
    the one runs.json lists for the prefix, the report's, the one other directory's."""
    if not waiting:
        return
    by_prefix: dict[str, list[str]] = {}
    for run_id in set(rows) | ids:
        by_prefix.setdefault(run_id[:8], []).append(run_id)
    for item in waiting:
        listed = [run_id for run_id in by_prefix.get(item.name, ()) if run_id in rows]
        reported = item.overview.get("Run ID", "")
        others = by_prefix.get(item.name, [])
        if len(listed) == 1:
            item.run_id = listed[0]
        elif len(reported) == 32 and RUN_DIR.match(reported) and reported.startswith(item.name):
            item.run_id = reported
        elif reported and item.overview_file is not None and not reported.startswith(item.name):
            reader.problems.append(Problem(item.overview_file, "Overview.Run ID",
                                           f"run id {reported[:40]!r} does not match the directory name"))
            item.run_id = item.name
        elif len(others) == 1:
            item.run_id = others[0]
        else:
            item.run_id = item.name
        yield item


def _attribute(item: _Dir, row: ListRow | None, agent_names: dict[str, str], reader: _Reader,
               source: int = 0) -> Run | None:
    """Agent, mission, version and times (counting.md §7); None when nothing identifies a broken run."""
    result = item.result
    overview = Overview()
    needs_report = (row is None or not row.agent_id or not row.mission or row.created_at is None
                    or row.agent_id not in agent_names)  # display name: agents.json, else the report
    if item.overview_file is not None and needs_report:
        overview = read_overview(item.overview, Fields(item.overview_file, reader.problems))
    if result is None and row is None and overview.agent_name is None:
        return None  # unreadable and unidentifiable: listed under problems only
    agent, agent_name = _agent(row, overview, agent_names)
    conditions = result.conditions if result else None
    return Run(
        run_id=item.run_id,
        directory=item.name,
        shape=result.shape if result else "unreadable",
        result_trigger=result.result_trigger if result else None,
        grade=result.grade if result else None,
        conditions=conditions,
        partial=result.partial if result else None,
        partial_trigger=result.partial_trigger if result else None,
        models_reported=result.models_reported if result else (),
        list_outcome=row.outcome if row else None,
        list_trigger=row.terminal_trigger if row else None,
        agent=agent,
        agent_name=agent_name,
        mission=(row.mission if row and row.mission else overview.mission) or UNATTRIBUTED,
        version=_version(conditions, row, overview),
        started=(row.created_at if row and row.created_at else overview.started),
        completed=(row.completed_at if row and row.completed_at else overview.completed),
        model_declared=(conditions.model if conditions and conditions.model else (row.model if row else None)),
        report_file=item.report_file,
        report_digest=item.report_digest,
        result_digest=item.result_digest,
        secrets=result.secrets if result else (),
        answers=result.answers if result else (),
        source=source,
    )


def _agent(row: ListRow | None, overview: Overview, agent_names: dict[str, str]) -> tuple[str, str]:
    if row is not None and row.agent_id:
        return row.agent_id, agent_names.get(row.agent_id) or overview.agent_name or row.agent_id
    if overview.agent_name:
        same_name = [agent_id for agent_id, name in agent_names.items() if name == overview.agent_name]
        if len(same_name) == 1:
            return same_name[0], overview.agent_name
        return overview.agent_name, overview.agent_name
    return UNATTRIBUTED, UNATTRIBUTED


def _version(conditions, row: ListRow | None, overview: Overview) -> str:
    """conditions (graded), else the runs.json row, else the report: SemVer or r<install_revision>."""
    for source in (conditions, row):
        if source is not None and source.mission_version:
            return source.mission_version
        if source is not None and source.install_revision is not None:
            return f"r{source.install_revision}"
    version = overview.version
    if version is not None and version.isdigit():
        return f"r{version}"  # counting.md §7: a bare number in the Mission row is an install revision
    return version or UNATTRIBUTED


@dataclass(frozen=True)
class WholeRuns:
    """Where each counted run's whole record is read again for its own page (picklable: worker
    processes read their runs themselves)."""

    roots: tuple[Path, ...]
    limits: Limits

    def whole(self, record: RunRecord) -> Run:
        return whole_run(self.roots, record, self.limits)


def whole_run(roots: Sequence[Path], record: RunRecord, limits: Limits) -> Run:
    """A counted run read again from its result.json, for its own page: the summary keeps only its
    compact record. The file must still have the bytes that were counted (a BuildError otherwise:
    the export changed during the build)."""
    root = roots[record.source]
    rel = f"{record.directory}/result.json"
    result = None
    if os.path.lexists(root / rel):
        data = read_file(root / rel, rel, limits.result_bytes)
        if isinstance(data, bytes):
            if hashlib.sha256(data).hexdigest() != record.digest:
                raise BuildError(f"{rel} changed while the site was being built; build again")
            value, _ = parse_json(data, rel)
            result = read_result(value, Fields(rel, [], most=MAX_PROBLEMS)) if value is not None else None
    if result is None and (record.overall is not None or record.deterministic is not None):
        # it was read and scored when the runs were counted: removed, or made unreadable, since
        raise BuildError(f"{rel} was removed or became unreadable while the site was being built; build again")
    return Run(
        run_id=record.run_id,
        directory=record.directory,
        shape=result.shape if result else "unreadable",
        result_trigger=result.result_trigger if result else None,
        grade=result.grade if result else None,
        conditions=result.conditions if result else None,
        partial=result.partial if result else None,
        partial_trigger=result.partial_trigger if result else None,
        models_reported=result.models_reported if result else (),
        agent=record.agent,
        agent_name=record.agent_name,
        mission=record.mission,
        version=record.version,
        started=record.started,
        completed=record.completed,
        model_declared=record.model_declared,
        report_file=record.report_file,
        report_digest=record.report_digest,
        result_digest=record.digest,
        secrets=result.secrets if result else (),
        answers=result.answers if result else (),
        source=record.source,
    )


def witnessed_answers(roots: Sequence[Path], witness: str, sha: str, limit: int) -> tuple[str, ...]:
    """The answers (values that passed an artifacts check) in the result.json of ``witness`` (a run directory
    as the store keys it, ``<export's place in roots>:<directory name>``: :meth:`_Reader.key`), when that file
    still has the SHA-256 ``sha``; () otherwise, or when ``witness`` names no run directory of these exports
    (the build cache keeps no answer, only a run holding each: cache.py)."""
    source, _, name = witness.partition(":")
    if not (source.isascii() and source.isdigit() and int(source) < len(roots)) or not RUN_DIR.match(name):
        return ()
    rel = f"{name}/result.json"
    data = read_file(roots[int(source)] / rel, rel, limit)
    if not isinstance(data, bytes) or hashlib.sha256(data).hexdigest() != sha:
        return ()
    value, _ = parse_json(data, rel)
    result = read_result(value, Fields(rel, [])) if value is not None else None
    return result.answers if result is not None else ()


class Scanned:
    """What the stat pass (:func:`scan`) saw of each run directory, for the reader that follows it: per
    export, in name order, an 8-byte digest of each run directory's name and file stamps (an array: 8
    bytes a run, never the stamps themselves). A stored parse whose stamps have the digest the stat pass
    saw is taken without stamping its three files a second time (cache.py ``parsed``). The build then
    counts the export as its stat pass found it: a file changed after that is the next build's change
    (its stat pass sees it; the whole-build key this build stores is of the stamps it saw), and a run page
    rendered from such a file stops the build (whole_run checks the bytes)."""

    def __init__(self) -> None:
        self.roots: list[array] = []


def stamps_digest(name: str, stamps: Sequence[str]) -> int:
    return int.from_bytes(hashlib.blake2b("\0".join((name, *stamps)).encode("utf-8", "surrogatepass"),
                                          digest_size=8).digest(), "big")


def scan(roots: Sequence[Path], scanned: Scanned | None = None) -> str:
    """A digest of what the exports hold as the file system tells it, without reading a file: every
    entry's name and, for run directories and sidecars, each file's stamp (load/files.py). Equal
    digests: nothing was added, removed, replaced or touched (a build whose inputs all agree stops here).
    ``scanned`` collects each run directory's stamps' digest for the reader (:class:`Scanned`)."""
    digest = hashlib.sha256()
    for root in roots:
        digest.update(f"{root.resolve()}\0".encode())
        try:
            entries = sorted(os.scandir(root), key=lambda e: e.name)
        except OSError as err:
            digest.update(f"unreadable: {err}".encode())
            continue
        seen = array("Q")
        if scanned is not None:
            scanned.roots.append(seen)
        for entry in entries:  # paths as text: a Path made per file cost three times the stat itself
            digest.update(entry.name.encode("utf-8", "surrogatepass") + b"\0")
            if RUN_DIR.match(entry.name) and entry.is_dir(follow_symlinks=False):
                stamps = [stamp(f"{entry.path}/{file}") for file in RUN_FILES]
                for text in stamps:
                    digest.update(text.encode() + b"|")
                seen.append(stamps_digest(entry.name, stamps))
            else:
                digest.update(stamp(entry.path).encode() + b"|")
    return digest.hexdigest()
