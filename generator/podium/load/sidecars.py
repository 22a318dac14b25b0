"""The optional sidecars at the export root: ``runs.json`` and ``agents.json``.

Either may be absent or broken: then the reader falls back to report.md
(counting.md §7) and the breakage is a problem. Launch settings in agents.json
(endpoint, otel, launch_command_template, …) are never kept.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from podium.load.fields import Fields, describe
from podium.model import RUN_ID


@dataclass(frozen=True, slots=True)
class ListRow:
    """One row of runs.json (``xorcise run list --json``), only the fields podium uses."""

    run_id: str
    agent_id: str | None
    mission: str | None
    created_at: datetime | None
    completed_at: datetime | None
    terminal_trigger: str | None
    outcome: str | None
    model: str | None
    mission_version: str | None
    install_revision: str | None
    source_agent: str | None = None  # the harness kind (docs/rules/cost.md §1: when the report names none)


def parse_time(fields: Fields, obj: dict, key: str, field: str) -> datetime | None:
    """An ISO-8601 time; one without an offset is taken as UTC (docs/development.md "Decisions")."""
    text = fields.string(obj, key, field, limit=64)
    if text is None:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        fields.report(field, f"expected an ISO-8601 time, got {describe(text)}")
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        fields.report(field, f"{describe(text)} is out of range in UTC")
        return None


def read_run_list(value: object, fields: Fields) -> dict[str, ListRow] | None:
    """runs.json rows by run id; None when the file's shape is unusable."""
    if not isinstance(value, list):
        fields.report("", f"expected a JSON array of runs, got {describe(value)}; falling back to report.md")
        return None
    return read_run_rows(value, fields)


def read_run_rows(items: Iterable[object], fields: Fields) -> dict[str, ListRow]:
    """runs.json rows by run id, from its elements one at a time (load/jsonfile.py ``iter_json_array``)."""
    rows: dict[str, ListRow] = {}
    for index, item in enumerate(items):
        where = f"[{index}]"
        if not isinstance(item, dict):
            fields.report(where, f"expected an object, got {describe(item)}")
            continue
        run_id = fields.string(item, "run_id", f"{where}.run_id", required=True, limit=64)
        if run_id is None:
            continue
        if not RUN_ID.match(run_id):
            fields.report(f"{where}.run_id", f"expected 32 lower-case hex characters, got {describe(run_id)}")
            continue
        if run_id in rows:
            fields.report(f"{where}.run_id", f"run {run_id} is listed twice; the first row is used")
            continue
        rows[run_id] = ListRow(  # names shared between rows: a long history repeats them on every row
            run_id=run_id,
            agent_id=_shared(fields.string(item, "agent_id", f"{where}.agent_id", limit=128)),
            mission=_shared(fields.string(item, "mission", f"{where}.mission", limit=200)),
            created_at=parse_time(fields, item, "created_at", f"{where}.created_at"),
            completed_at=parse_time(fields, item, "completed_at", f"{where}.completed_at"),
            terminal_trigger=_shared(fields.string(item, "terminal_trigger", f"{where}.terminal_trigger", limit=64)),
            outcome=_shared(fields.string(item, "outcome", f"{where}.outcome", limit=64)),
            model=_shared(fields.string(item, "model", f"{where}.model", limit=200)),
            mission_version=_shared(fields.string(item, "mission_version", f"{where}.mission_version", limit=64)),
            install_revision=_shared(fields.integer_text(item, "install_revision", f"{where}.install_revision")),
            source_agent=_shared(fields.string(item, "source_agent", f"{where}.source_agent", limit=200)),
        )
    return rows


def read_agent_list(value: object, fields: Fields) -> dict[str, str] | None:
    """agent id -> display name from agents.json; None when the file's shape is unusable."""
    if not isinstance(value, list):
        fields.report("", f"expected a JSON array of agents, got {describe(value)}; falling back to report.md")
        return None
    return read_agent_rows(value, fields)


def read_agent_rows(items: Iterable[object], fields: Fields) -> dict[str, str]:
    """agent id -> display name, from agents.json's elements one at a time."""
    names: dict[str, str] = {}
    for index, item in enumerate(items):
        where = f"[{index}]"
        if not isinstance(item, dict):
            fields.report(where, f"expected an object, got {describe(item)}")
            continue
        agent_id = fields.string(item, "id", f"{where}.id", required=True, limit=128)
        name = fields.string(item, "name", f"{where}.name", required=True, limit=200)
        if agent_id is None:
            continue
        if agent_id in names:
            fields.report(f"{where}.id", f"agent {agent_id} is listed twice; the first row is used")
            continue
        names[_shared(agent_id)] = _shared(name if name else agent_id)
    return names


def _shared(text: str | None) -> str | None:
    return sys.intern(text) if text is not None else None
