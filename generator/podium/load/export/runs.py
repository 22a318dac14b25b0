"""The runs of one export: each directory identified (its own id, else the best one available), deduplicated
by id, attributed to an agent, a mission version and times, and kept as the build's ``keep`` makes it; and a
counted run read again for its own page.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from podium.errors import BuildError
from podium.load.export.reader import Dir, Limits, Reader
from podium.load.export.stored import NO_PARSED_STORE, ParsedStore, Replayed
from podium.load.fields import MAX_PROBLEMS, Fields
from podium.load.files import read_file
from podium.load.jsonfile import parse_json
from podium.load.report import NOT_REPORTED, Overview, read_overview
from podium.load.result import Result, read_result
from podium.load.sidecars import ListRow
from podium.model import RUN_DIR, UNATTRIBUTED, Problem, Run, RunRecord, Spent, codec


class Runs:
    """The runs of one export as they are identified: one per run id (the full-id directory wins, then the
    one named after its id, then the first name), each attributed and kept as ``keep`` makes it.

    With a store and a :class:`Keeper`, what ``keep`` made of each directory's run is stored with the
    problems its attribution found, under the digest of everything that made it (the directory as
    stored, its id, its runs.json row, its agent's name, its export: :meth:`_inputs`); a rebuild whose
    directory and inputs are unchanged takes that back (a 100-run rebuild at 30k runs decodes and
    counts only what changed)."""

    def __init__(
        self,
        reader: Reader,
        rows: dict[str, ListRow],
        agent_names: dict[str, str],
        source: int,
        keep,
        store: ParsedStore = NO_PARSED_STORE,
    ):
        self.reader, self.rows, self.agent_names, self.source, self.keep = reader, rows, agent_names, source, keep
        self.store = store if all(hasattr(keep, name) for name in ("dumps", "loads")) else NO_PARSED_STORE
        self.salt = str(reader.limits)
        self.all_agents = hashlib.sha256(repr(sorted(agent_names.items())).encode()).hexdigest()
        self.kept: dict[str, tuple[tuple, object | None]] = {}  # run id -> (its directory's rank, what keep made)
        self.ids: set[str] = set()  # every id a directory was given
        self.losers: list[tuple[str, str, str]] = []  # (run id, winner's directory, loser's directory)

    def add(self, item: Dir | Replayed) -> None:
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
        inputs = self._inputs(item, row) if item.stored is not None and self.store is not NO_PARSED_STORE else None
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
        return hashlib.sha256(
            repr((item.stored, item.run_id, row, agent, self.source)).encode("utf-8", "surrogatepass")
        ).hexdigest()

    def _replay(self, item, inputs: str):
        """What ``keep`` made of this run last time, when it was made from the same ``inputs``; else None."""
        text = self.store.kept(self.reader.key(item.name), self.salt)
        if text is None or not text.startswith(inputs + "\n"):
            return None
        problems, _, stored = text[len(inputs) + 1 :].partition("\n")
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
                self.reader.problems.append(
                    Problem(loser, "", f"holds the same run id as {winner}/ ({run_id}); counted once, from {winner}/")
                )
        return notes


def own_id(item: Dir | Replayed, reader: Reader, rows: dict[str, ListRow]) -> bool:
    """Give a directory the id it holds itself (result.json's, or its own 32-hex name); False when it
    needs the others' (an 8-hex directory without an id inside, or whose result.json names another
    run while runs.json lists a run for the directory: runs.json's run is the one exported there)."""
    result_id = item.result_id
    if result_id is not None and not result_id.startswith(item.name):
        field = "grade.run_id" if item.shape == "graded" else "run_id"
        reader.problems.append(
            Problem(f"{item.name}/result.json", field, f"run id {result_id} does not match the directory name")
        )
        if len(item.name) == 8 and sum(1 for run_id in rows if run_id.startswith(item.name)) == 1:
            item.run_id = ""
            return False
    item.run_id = result_id or (item.name if len(item.name) == 32 else "")
    return bool(item.run_id)


def identify(waiting: list[Dir], rows: dict[str, ListRow], ids: set[str], reader: Reader) -> Iterator[Dir]:
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
            reader.problems.append(
                Problem(
                    item.overview_file, "Overview.Run ID", f"run id {reported[:40]!r} does not match the directory name"
                )
            )
            item.run_id = item.name
        elif len(others) == 1:
            item.run_id = others[0]
        else:
            item.run_id = item.name
        yield item


def _attribute(
    item: Dir, row: ListRow | None, agent_names: dict[str, str], reader: Reader, source: int = 0
) -> Run | None:
    """Agent, mission, version and times (counting.md §7); None when nothing identifies a broken run."""
    result = item.result
    overview = Overview()
    needs_report = (
        row is None or not row.agent_id or not row.mission or row.created_at is None or row.agent_id not in agent_names
    )  # display name: agents.json, else the report
    if item.overview_file is not None and needs_report:
        overview = read_overview(item.overview, Fields(item.overview_file, reader.problems))
    if result is None and row is None and overview.agent_name is None:
        return None  # unreadable and unidentifiable: listed under problems only
    agent, agent_name = _agent(row, overview, agent_names)
    conditions = result.conditions if result else None
    harness, spent = _spent(item, row, reader)
    return Run(
        **_from_result(result),
        run_id=item.run_id,
        directory=item.name,
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
        source=source,
        harness=harness,
        spent=spent,
    )


def _spent(item: Dir, row: ListRow | None, reader: Reader) -> tuple[str | None, Spent | None]:
    """The run's harness (the report's Overview Harness, else runs.json's source_agent) and its Telemetry
    values as the report gives them (docs/rules/cost.md §1; read with its report, load/export/reader.py)."""
    if item.overview_file is None:
        return (row.source_agent if row is not None else None), None
    cell = item.overview.get("Harness")
    harness = _harness(cell, Fields(item.overview_file, reader.problems)) if cell and cell != NOT_REPORTED else None
    if harness is None and row is not None:
        harness = row.source_agent
    return harness, item.spent


_HARNESSES: dict[str, str] = {}  # a harness cell that reads without a problem -> its text: an export has a few


def _harness(cell: str, fields: Fields) -> str:
    """The report's Harness cell as one line of at most 200 characters (a problem when it is not), one string per
    harness (interned)."""
    known = _HARNESSES.get(cell)
    if known is not None:
        return known
    reported = fields.reported
    harness = sys.intern(fields.clean(cell, "Overview.Harness", limit=200))
    if fields.reported == reported and len(_HARNESSES) < 1024:  # a cell with a problem is cleaned again each time
        _HARNESSES[cell] = harness
    return harness


def _from_result(result: Result | None) -> dict:
    """The fields of a Run its result.json gives (an unreadable run's when there is none): one list for a run
    counted (:func:`_attribute`) and a run read again for its page (:func:`whole_run`)."""
    if result is None:
        return dict(
            shape="unreadable",
            result_trigger=None,
            grade=None,
            conditions=None,
            partial=None,
            partial_trigger=None,
            models_reported=(),
            models_more=0,
            models_digest=None,
            secrets=(),
            answers=(),
        )
    return dict(
        shape=result.shape,
        result_trigger=result.result_trigger,
        grade=result.grade,
        conditions=result.conditions,
        partial=result.partial,
        partial_trigger=result.partial_trigger,
        models_reported=result.models_reported,
        models_more=result.models_more,
        models_digest=result.models_digest,
        secrets=result.secrets,
        answers=result.answers,
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
        **_from_result(result),
        run_id=record.run_id,
        directory=record.directory,
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
        source=record.source,
    )


def witnessed_answers(roots: Sequence[Path], witness: str, sha: str, limit: int) -> tuple[str, ...]:
    """The values submitted to checks in the result.json of ``witness`` (a run directory as the store keys it,
    ``<export's place in roots>:<directory name>``: :meth:`Reader.key`), its answers among them, when that file
    still has the SHA-256 ``sha``; () otherwise, or when ``witness`` names no run directory of these exports
    (the build cache keeps no answer, only a run holding each: cache/store.py, which keeps those whose digests
    it holds). Read from the file's bytes: every ``"value": "…"`` string, decoded (a file of that SHA-256 was
    read whole before, so it is JSON; one per distinct answer is read at each rebuild: a parse of each cost
    10k-run histories of per-run flags seconds)."""
    source, _, name = witness.partition(":")
    if not (
        source.isascii() and source.isdigit() and len(source) <= 6 and int(source) < len(roots)
    ) or not RUN_DIR.match(name):  # (a damaged row may hold anything: never past int()'s digit limit)
        return ()
    rel = f"{name}/result.json"
    data = read_file(roots[int(source)] / rel, rel, limit)
    if not isinstance(data, bytes) or hashlib.sha256(data).hexdigest() != sha:
        return ()
    values = []
    for match in _CHECK_VALUE.finditer(data):
        try:
            value = json.loads(match.group(1))
        except (ValueError, RecursionError):
            continue
        if isinstance(value, str):
            values.append(value)
    return tuple(values)


_CHECK_VALUE = re.compile(rb'"value"\s*:\s*("(?:[^"\\]|\\.)*")', re.S)  # a value's string (escapes kept)
