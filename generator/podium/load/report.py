"""The Overview table of a run's report: identity and times when runs.json is silent.

counting.md §7: Agent is ``<name> v<n>``, Mission ``<slug> v<version>``, Started
``YYYY-MM-DD HH:MM:SS UTC`` and Duration ``12.3s`` / ``19m 43s`` / ``1h 2m 3s``;
completed = started + duration; Run ID the full id. Names may hold spaces, so
Agent and Mission are split on the last `` v``.

Two formats: ``report.md`` (the first ``## Overview`` table: it comes before any
agent text; cells split on unescaped ``|``) and ``report.html`` from
``--format html`` (the last ``<h2>Overview</h2>`` table: there it comes after the
artifacts, whose text XORCISE escapes; cells are unescaped, tags dropped).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from podium.load.fields import Fields, describe

_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)([dhms])")
_UNIT_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


@dataclass(frozen=True, slots=True)
class Overview:
    agent_name: str | None = None
    mission: str | None = None
    version: str | None = None
    started: datetime | None = None
    completed: datetime | None = None


def overview_table(text: str) -> dict[str, str]:
    """Field -> value of the ``## Overview`` table (empty when there is none)."""
    table: dict[str, str] = {}
    inside = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("## "):
            if inside:
                break
            inside = stripped[3:].strip().lower() == "overview"
            continue
        if not inside or not stripped.startswith("|"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in _CELL_SPLIT.split(stripped.strip("|"))]
        if set("".join(cells)) <= set("-: "):
            table.clear()  # the delimiter row: what came before it was the header row
        elif len(cells) >= 2 and cells[0] not in table:
            table[cells[0]] = cells[1]
    return table


_HTML_OVERVIEW = re.compile(r"<h2[^>]*>\s*Overview\s*</h2>(.*?)</table>", re.S | re.I)
_HTML_ROW = re.compile(r"<tr[^>]*>(.*?)</tr>", re.S | re.I)
_HTML_CELL = re.compile(r"<t[dh][^>]*>(.*?)</t[dh]>", re.S | re.I)
_HTML_TAG = re.compile(r"<[^>]*>")


def overview_table_html(text: str) -> dict[str, str]:
    """Field -> value of the last ``<h2>Overview</h2>`` table of a report.html."""
    tables = _HTML_OVERVIEW.findall(text)
    table: dict[str, str] = {}
    for row in _HTML_ROW.findall(tables[-1]) if tables else []:
        cells = [html.unescape(_HTML_TAG.sub("", c)).strip() for c in _HTML_CELL.findall(row)]
        if len(cells) >= 2 and cells[0] not in table:
            table[cells[0]] = cells[1]
    return table


def split_last_v(text: str) -> tuple[str, str | None]:
    """``"gyr falcon v2"`` -> ("gyr falcon", "2"); no `` v`` -> (text, None)."""
    head, sep, tail = text.rpartition(" v")
    if not sep or not head.strip() or not tail.strip():
        return text.strip(), None
    return head.strip(), tail.strip()


def parse_duration(text: str) -> float | None:
    """Seconds in ``12.3s``, ``19m 43s`` or ``1h 2m 3s``; None when it is none of these."""
    compact = text.replace(" ", "")
    parts = _DURATION_PART.findall(compact)
    if not parts or "".join(n + u for n, u in parts) != compact:
        return None
    return sum(float(n) * _UNIT_SECONDS[u] for n, u in parts)


def report_overview(text: str, *, is_html: bool) -> dict[str, str]:
    """The Overview table of a report in either format (field -> raw cell text)."""
    return overview_table_html(text) if is_html else overview_table(text)


def read_overview(table: dict[str, str], fields: Fields) -> Overview:
    """The identity and times in a report's Overview table; unreadable cells are reported and left None."""
    if not table:
        fields.report("Overview", "no Overview table found")
        return Overview()
    cells = {k: fields.clean(v, f"Overview.{k}", limit=200) for k, v in table.items()}
    agent = split_last_v(cells["Agent"])[0] if cells.get("Agent") else None
    mission, version = split_last_v(cells["Mission"]) if cells.get("Mission") else (None, None)
    started = _started(cells.get("Started"), fields)
    completed = None
    if started is not None and cells.get("Duration"):
        seconds = parse_duration(cells["Duration"])
        if seconds is None:
            fields.report("Overview.Duration", f"expected a duration like 19m 43s, got {describe(cells['Duration'])}")
        else:
            try:
                completed = started + timedelta(seconds=seconds)
            except OverflowError:
                fields.report("Overview.Duration", f"{describe(cells['Duration'])} ends out of range")
    return Overview(agent, mission, version, started, completed)


def _started(text: str | None, fields: Fields) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.strptime(text, "%Y-%m-%d %H:%M:%S UTC").replace(tzinfo=UTC)
    except ValueError:
        fields.report("Overview.Started", f"expected YYYY-MM-DD HH:MM:SS UTC, got {describe(text)}")
        return None
