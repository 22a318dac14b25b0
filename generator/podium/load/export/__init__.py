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
from array import array
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from podium.errors import PodiumError
from podium.load.export.ahead import AHEAD_MIN, ReadAhead
from podium.load.export.reader import RUN_FILES, Dir, Limits, Reader, run_dir_names, run_key, sidecar
from podium.load.export.runs import Runs, WholeRuns, identify, own_id, whole_run, witnessed_answers
from podium.load.export.scan import Scanned, scan, stamps_digest
from podium.load.export.stored import NO_STORE, Keeper, NoStore, ParsedStore, read_dir_cached
from podium.load.sidecars import read_agent_list, read_agent_rows, read_run_list, read_run_rows
from podium.model import Export
from podium.workers import NO_WORKERS, Workers

__all__ = [
    "NO_STORE",
    "RUN_FILES",
    "Keeper",
    "Limits",
    "NoStore",
    "ParsedStore",
    "Scanned",
    "WholeRuns",
    "load_export",
    "load_exports",
    "run_key",
    "scan",
    "stamps_digest",
    "whole_run",
    "witnessed_answers",
]


def load_exports(
    roots: Sequence[Path],
    limits: Limits = Limits(),
    cache: ParsedStore = NO_STORE,
    keep=None,
    workers: Workers = NO_WORKERS,
    scanned: Scanned | None = None,
) -> Export:
    """Several exports as one (``podium build A B``): a run found in more than one is counted once,
    from the LAST export that holds it (a run exported while grading, then again once graded,
    counts as graded); each such duplicate is a note. With several exports every problem's path
    starts with its export's directory name (made unique), so no local path is published.

    ``keep(run)`` maps each run, as it is read, to what the Export holds (default: the run itself;
    the build keeps compact records, kinds.record_of; what a :class:`Keeper` makes is also stored).
    ``workers``: the build's worker processes, which may read directories ahead (:class:`ReadAhead`). ``scanned``: what
    the stat pass saw of these exports (:func:`scan`), when it ran."""
    seen = scanned.roots if scanned is not None and len(scanned.roots) == len(roots) else [None] * len(roots)
    if len(roots) == 1:
        return load_export(roots[0], limits, cache=cache, keep=keep, workers=workers, seen=seen[0])
    labels = _labels(roots)
    parts = [
        load_export(root, limits, source=i, label=labels[i], cache=cache, keep=keep, workers=workers, seen=seen[i])
        for i, root in enumerate(roots)
    ]
    runs: dict[str, object] = {}
    notes: list[str] = []
    for part in parts:
        notes += part.notes
        for run in part.runs:
            if run.run_id in runs:
                notes.append(
                    f"run {run.run_id} is in {labels[runs[run.run_id].source]}/ and "
                    f"{labels[run.source]}/; the copy from {labels[run.source]}/ (later) is counted"
                )
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


def load_export(
    root: Path,
    limits: Limits = Limits(),
    *,
    source: int = 0,
    label: str = "",
    cache: ParsedStore = NO_STORE,
    keep=None,
    workers: Workers = NO_WORKERS,
    seen: array | None = None,
) -> Export:
    """Everything podium needs from the export at ``root`` (``label``: prefixed to problem paths).

    Streams: a run directory is read, identified, attributed and handed to ``keep`` one at a time, so
    only what ``keep`` returns is held (a directory whose id needs the other directories' waits for
    them). ``cache`` (cache/store.py) keeps each directory as parsed, so a rebuild reads only the
    directories whose files changed (see :func:`read_dir_cached`). When it holds none (a cold build), the
    build's ``workers`` read the directories ahead (:class:`ReadAhead`). ``seen``: the stat pass's
    digest of each run directory (:class:`Scanned`), when it ran."""
    if not root.is_dir():
        raise PodiumError(f"{root}: export directory not found (pass EXPORT or set export: in podium.yaml)")
    reader = Reader(root.resolve(), limits, source)
    names = run_dir_names(reader)
    rows = sidecar(reader, "runs.json", read_run_rows, read_run_list)
    agent_names = sidecar(reader, "agents.json", read_agent_rows, read_agent_list)
    runs = Runs(reader, rows, agent_names, source, keep, cache)
    waiting: list[Dir] = []
    ahead = (
        ReadAhead(reader.root, limits, names, workers)
        if workers.many and len(names) >= AHEAD_MIN and cache.cold()
        else None
    )
    if seen is not None and len(seen) != len(names):
        seen = None  # directories came or went since the stat pass: every one is stamped again
    try:
        for index, name in enumerate(names):
            item = read_dir_cached(reader, name, cache, ahead, seen[index] if seen is not None else None)
            if own_id(item, reader, rows):
                runs.add(item)
            else:
                waiting.append(item.whole(reader))
    finally:
        if ahead is not None:
            ahead.close()
    for item in identify(waiting, rows, runs.ids, reader):
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
