"""Reading one export's files: its size limits, its run directories' names, one run directory as read
(before deduplication and attribution), its sidecars (runs.json, agents.json), and the digest of it all.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

from podium.errors import BuildError, PodiumError
from podium.load.fields import MAX_PROBLEMS, Fields
from podium.load.files import MiB, open_file, read_file
from podium.load.jsonfile import NotAnArray, iter_json_array, parse_json
from podium.load.report import read_telemetry, report_tables
from podium.load.result import Result, read_result
from podium.model import RUN_DIR, Problem
from podium.model.cost import Spent


@dataclass(frozen=True)
class Limits:
    """Largest file podium reads, per kind of file (podium.yaml ``limits``). A result.json holds XORCISE's
    judge prompt (the agent's transcript, cut to what the judge reads): the real ones are 1-12 KB, so 4 MiB
    is hundreds of times what one needs, and bounds what reading one takes (load/jsonfile.py: at most 6
    times that for its values) in each process that reads results at once."""

    result_bytes: int = 4 * MiB
    report_bytes: int = 2 * MiB
    sidecar_bytes: int = 2048 * MiB


RUN_FILES = ("result.json", "report.md", "report.html")


@dataclass
class Dir:
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
    without_values: bool = False  # kept without its result's submitted values (light): read again when needed
    spent: Spent | None = None  # what the report's Telemetry rows say it spent (docs/rules/cost.md §1), as read

    @property
    def result_id(self) -> str | None:
        return self.result.run_id if self.result is not None else None

    @property
    def shape(self) -> str | None:
        return self.result.shape if self.result is not None else None

    def whole(self, reader: Reader) -> Dir:
        return self


def with_values(reader: Reader, item: Dir) -> Dir:
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
    return replace(
        item, result=replace(item.result, secrets=result.secrets, answers=result.answers), without_values=False
    )


def run_key(source: int, name: str) -> str:
    """The store's key of run directory ``name`` of the ``source``-th export: the export's place in the build
    and the name, not the export's path, so a fresh export written elsewhere (a CI job's new checkout, a
    copy) finds the rows of the last build's; a row is still taken back only when every file it was made
    from has the same stamp or the same bytes (cache/store.py ``parsed``), so the path adds no safety. A
    witness (runs.py ``witnessed_answers``) names its run directory so too."""
    return f"{source}:{name}"


class Reader:
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
        """The store's key of this export's run directory ``name`` (:func:`run_key`)."""
        return run_key(self.source, name)

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


def run_dir_names(reader: Reader) -> list[str]:
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


def read_dir(reader: Reader, name: str) -> Dir:
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
            overview, telemetry = report_tables(data.decode("utf-8", errors="replace"), is_html=is_html)
            fields = Fields(rel, reader.problems)  # a malformed cell is a problem naming the file and the row
            spent = read_telemetry(telemetry, fields, "Activity" if is_html else "Telemetry")
            # what the numbers come from: the Overview and what the Telemetry rows say (cost.md §1), the same in
            # either format (the rows themselves when one was malformed: its problem says the cell)
            tables = json.dumps(overview, sort_keys=True).encode()
            if fields.reported:
                tables += b"\0" + json.dumps(telemetry, sort_keys=True).encode()
            elif spent is not None:
                tables += b"\0" + spent
            reader.add_digest(f"{name}/report#Overview", tables)
            digest = None if is_html else reader.file_hashes[rel]  # hashed once, as it was read
            return Dir(name, result, overview, rel, None if is_html else rel, digest, result_digest, spent=spent)
    return Dir(name, result, {}, None, None, None, result_digest)


def sidecar(reader: Reader, rel: str, read_rows, read_whole) -> dict:
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
