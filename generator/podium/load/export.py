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
import json
import os
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from podium.errors import PodiumError
from podium.load.fields import Fields
from podium.load.files import MiB, read_file
from podium.load.jsonfile import parse_json
from podium.load.report import Overview, read_overview, report_overview
from podium.load.result import Result, read_result
from podium.load.sidecars import ListRow, read_agent_list, read_run_list
from podium.model import RUN_DIR, UNATTRIBUTED, Export, Problem, Run


@dataclass(frozen=True)
class Limits:
    """Largest file podium reads, per kind of file (podium.yaml ``limits``)."""

    result_bytes: int = 64 * MiB
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
    run_id: str = ""


class _Reader:
    def __init__(self, root: Path, limits: Limits):
        self.root = root
        self.limits = limits
        self.problems: list[Problem] = []
        self.notes: list[str] = []
        self.hashes: list[tuple[str, str]] = []
        self.file_hashes: dict[str, str] = {}  # rel -> SHA-256 of every file read (the parse cache's check)

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

    def read_json(self, rel: str, limit: int) -> tuple[object | None, Fields] | None:
        data = self.read(rel, limit)
        if data is None:
            return None
        value, problems = parse_json(data, rel)
        self.problems.extend(problems)
        return value, Fields(rel, self.problems)

    def digest(self) -> str:
        total = hashlib.sha256()
        for rel, file_hash in sorted(self.hashes):
            total.update(f"{rel}\0{file_hash}\n".encode())
        return "sha256:" + total.hexdigest()


def load_exports(roots: Sequence[Path], limits: Limits = Limits(), cache=None) -> Export:
    """Several exports as one (``podium build A B``): a run found in more than one is counted once,
    from the LAST export that holds it (a run exported while grading, then again once graded,
    counts as graded); each such duplicate is a note. With several exports every problem's path
    starts with its export's directory name (made unique), so no local path is published."""
    if len(roots) == 1:
        return load_export(roots[0], limits, cache=cache)
    labels = _labels(roots)
    parts = [load_export(root, limits, source=i, label=labels[i], cache=cache) for i, root in enumerate(roots)]
    runs: dict[str, Run] = {}
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


def load_export(root: Path, limits: Limits = Limits(), *, source: int = 0, label: str = "", cache=None) -> Export:
    """Everything podium needs from the export at ``root`` (``label``: prefixed to problem paths).

    ``cache`` (cache.py, optional) keeps each run directory as parsed, so a rebuild reads
    only the directories whose files changed (see :func:`_read_dir_cached`)."""
    if not root.is_dir():
        raise PodiumError(f"{root}: export directory not found (pass EXPORT or set export: in podium.yaml)")
    reader = _Reader(root.resolve(), limits)
    names = _run_dir_names(reader)
    runs_json = reader.read_json("runs.json", limits.sidecar_bytes)
    rows = (read_run_list(*runs_json) if runs_json and runs_json[0] is not None else None) or {}
    agents_json = reader.read_json("agents.json", limits.sidecar_bytes)
    agent_names = (read_agent_list(*agents_json) if agents_json and agents_json[0] is not None else None) or {}
    dirs = [_read_dir_cached(reader, name, cache) for name in names]
    _identify(dirs, rows, reader)
    kept = _deduplicate(dirs, reader)
    runs = []
    for item in kept:
        run = _attribute(item, rows.get(item.run_id), agent_names, reader)
        if run is not None:
            runs.append(run)
    listed = set(rows) - {d.run_id for d in dirs}
    if listed:
        reader.notes.append(f"runs.json lists {len(listed)} run(s) with no run directory; they are not counted")
    if source:
        runs = [replace(run, source=source) for run in runs]
    problems = set(reader.problems)
    if label:
        problems = {replace(p, path=f"{label}/{p.path}") for p in problems}
    return Export(
        runs=tuple(sorted(runs, key=lambda r: r.run_id)),
        problems=tuple(sorted(problems)),
        runs_read=len(kept),
        inputs_digest=reader.digest(),
        notes=tuple(reader.notes),
    )


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
    for rel, is_html in ((f"{name}/report.md", False), (f"{name}/report.html", True)):
        data = reader.read(rel, reader.limits.report_bytes, digest=False)
        if data is not None:
            overview = report_overview(data.decode("utf-8", errors="replace"), is_html=is_html)
            reader.add_digest(f"{name}/report#Overview", json.dumps(overview, sort_keys=True).encode())
            digest = None if is_html else reader.file_hashes[rel]  # hashed once, as it was read
            return _Dir(name, result, overview, rel, None if is_html else rel, digest)
    return _Dir(name, result, {}, None, None)


RUN_FILES = ("result.json", "report.md", "report.html")


def _read_dir_cached(reader: _Reader, name: str, cache) -> _Dir:
    """A run directory as parsed last time when its files are unchanged, else read afresh.

    Unchanged: the same size, mtime and inode of each file; failing that, the same
    bytes (SHA-256 of each file, read again but not parsed). The problems and the
    digest entries the directory produced are replayed with it.
    """
    if cache is None:
        return _read_dir(reader, name)
    key = f"{reader.root}/{name}\0{reader.limits}"
    signature = _signature(reader.root / name)
    hit = cache.parsed_run(key)
    if hit is not None and (hit[0] == signature or _same_bytes(reader.root / name, hit[1])):
        item, problems, hashes = pickle.loads(hit[2])
        reader.problems += problems
        reader.hashes += hashes
        cache.keep_parsed_run(key, signature, hit[1], hit[2])
        return item
    problems_before, hashes_before = len(reader.problems), len(reader.hashes)
    reader.file_hashes = {}
    item = _read_dir(reader, name)
    payload = pickle.dumps((item, reader.problems[problems_before:], reader.hashes[hashes_before:]), protocol=5)
    cache.keep_parsed_run(key, signature, dict(reader.file_hashes), payload)
    return item


def _signature(directory: Path) -> str:
    parts = []
    for file in RUN_FILES:
        try:
            info = os.lstat(directory / file)
            parts.append(f"{file}:{info.st_size}:{info.st_mtime_ns}:{info.st_ino}:{info.st_mode}")
        except OSError:
            parts.append(f"{file}:-")
    return "|".join(parts)


def _same_bytes(directory: Path, hashes: dict[str, str]) -> bool:
    """True when exactly the files hashed last time are there, with the same bytes (no symlink followed)."""
    present = {f"{directory.name}/{file}" for file in RUN_FILES if os.path.lexists(directory / file)}
    if present != set(hashes):
        return False
    for rel, digest in hashes.items():
        path = directory.parent / rel
        try:
            if os.path.islink(path) or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
                return False
        except OSError:
            return False
    return True


def _identify(dirs: list[_Dir], rows: dict[str, ListRow], reader: _Reader) -> None:
    """Give each directory the best full id available (see the module docstring)."""
    for item in dirs:
        result_id = item.result.run_id if item.result is not None else None
        if result_id is not None and not result_id.startswith(item.name):
            field = "grade.run_id" if item.result.shape == "graded" else "run_id"
            reader.problems.append(Problem(
                f"{item.name}/result.json", field, f"run id {result_id} does not match the directory name"))
        item.run_id = result_id or (item.name if len(item.name) == 32 else "")
    known = set(rows) | {item.run_id for item in dirs if item.run_id}
    for item in dirs:
        if item.run_id:
            continue
        listed = [run_id for run_id in rows if run_id.startswith(item.name)]
        reported = item.overview.get("Run ID", "")
        others = [run_id for run_id in known if run_id.startswith(item.name)]
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


def _deduplicate(dirs: list[_Dir], reader: _Reader) -> list[_Dir]:
    """One directory per run id: the full-id directory wins, then the one named after its id."""
    groups: dict[str, list[_Dir]] = {}
    for item in dirs:
        groups.setdefault(item.run_id, []).append(item)
    kept = []
    for run_id, group in sorted(groups.items()):
        group.sort(key=lambda d: (d.name != run_id, not run_id.startswith(d.name), d.name))
        winner, losers = group[0], group[1:]
        kept.append(winner)
        for loser in losers:
            if winner.name == run_id and len(loser.name) == 8 and run_id.startswith(loser.name):
                reader.notes.append(f"{loser.name}/ is a stale copy of run {run_id}; {winner.name}/ is used")
            else:
                reader.problems.append(Problem(
                    loser.name, "", f"holds the same run id as {winner.name}/ ({run_id}); counted once, from {winner.name}/"))
    return kept


def _attribute(item: _Dir, row: ListRow | None, agent_names: dict[str, str], reader: _Reader) -> Run | None:
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
        secrets=result.secrets if result else (),
        answers=result.answers if result else (),
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
    return overview.version or UNATTRIBUTED
