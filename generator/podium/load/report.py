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
_DURATION = re.compile(r"(?:\d+(?:\.\d+)?[dhms])+")  # tested whole first: findall alone rescans a run of digits
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


_H2_OPEN = re.compile(r"<h2", re.I)
_OVERVIEW_TITLE = re.compile(r"\s*Overview\s*</h2>", re.I)
_TABLE_END = re.compile(r"</table>", re.I)
_ROW_OPEN, _ROW_CLOSE = re.compile(r"<tr", re.I), re.compile(r"</tr>", re.I)
_CELL_OPEN, _CELL_CLOSE = re.compile(r"<t[dh]", re.I), re.compile(r"</t[dh]>", re.I)


def _elements(text: str, opening: re.Pattern, closing: re.Pattern, title: re.Pattern | None = None) -> list[str]:
    """What ``re.findall(opening + "[^>]*>" + title + "(.*?)" + closing, text, re.S)`` returns, in linear
    time on any text (that pattern rescans to the end from every opening when no ``>`` or closing
    follows: 400 KB of ``<h2`` took 38 s). Each opening's ``>`` is the first after it, shared by every
    opening before it; once no closing follows a point, none follows any later one."""
    found: list[str] = []
    pos, gt, titled = 0, -1, -1  # titled: the ``>`` whose title was last tested and matched (``-2``: failed)
    while (start := opening.search(text, pos)) is not None:
        if gt < start.end():
            gt, titled = text.find(">", start.end()), -1
            if gt < 0:
                break
        body = gt + 1
        if title is not None:
            if titled == -1:
                match = title.match(text, body)
                titled = match.end() if match else -2
            if titled == -2:
                pos = start.start() + 1
                continue
            body = titled
        end = closing.search(text, body)
        if end is None:
            break
        found.append(text[body : end.start()])
        pos = end.end()
    return found


def _strip_tags(text: str) -> str:
    """``re.sub("<[^>]*>", "", text)`` in linear time (that pattern rescans from every ``<`` when no
    ``>`` follows)."""
    parts, pos = [], 0
    while (lt := text.find("<", pos)) >= 0 and (gt := text.find(">", lt + 1)) >= 0:
        parts.append(text[pos:lt])
        pos = gt + 1
    parts.append(text[pos:])
    return "".join(parts)


def overview_table_html(text: str) -> dict[str, str]:
    """Field -> value of the last ``<h2>Overview</h2>`` table of a report.html."""
    tables = _elements(text, _H2_OPEN, _TABLE_END, _OVERVIEW_TITLE)
    table: dict[str, str] = {}
    for row in _elements(tables[-1], _ROW_OPEN, _ROW_CLOSE) if tables else []:
        cells = [html.unescape(_strip_tags(c)).strip() for c in _elements(row, _CELL_OPEN, _CELL_CLOSE)]
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
    if not _DURATION.fullmatch(compact):
        return None
    parts = _DURATION_PART.findall(compact)
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
