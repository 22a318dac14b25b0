"""The Overview and Telemetry tables of a run's report, read in one pass over its text.

The Overview gives identity and times when runs.json is silent:

counting.md §7: Agent is ``<name> v<n>``, Mission ``<slug> v<version>``, Started
``YYYY-MM-DD HH:MM:SS UTC`` and Duration ``12.3s`` / ``19m 43s`` / ``1h 2m 3s``;
completed = started + duration; Run ID the full id. Names may hold spaces, so
Agent and Mission are split on the last `` v``.

Two formats: ``report.md`` (the first ``## Overview`` table: it comes before any
agent text; cells split on unescaped ``|``) and ``report.html`` from
``--format html`` (the last ``<h2>Overview</h2>`` table: there it comes after the
artifacts, whose text XORCISE escapes; cells are unescaped, tags dropped).

The Telemetry table (docs/rules/cost.md §1: what the run spent) is the last ``## Telemetry`` table of a
report.md (it comes after the artifacts, whose agent-written text may hold a heading of that name) and the
last ``<h2>Activity</h2>`` table of a report.html (the same rows); only the rows podium reads are kept, as
text (:func:`read_telemetry` reads them).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from podium.load.fields import Fields, describe
from podium.model.cost import MAX_VALUE, SPENT_FIELDS, TELEMETRY_ROWS, Spent

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


TELEMETRY_HEADING = "## Telemetry"


def _last_heading(text: str, heading: str) -> int:
    """Where the line after the last line that is exactly ``heading`` (trailing white space allowed) starts;
    -1 when there is none. Found from the end with ``rfind`` (a report is read whole once: a pattern
    tried at every position of every report was a tenth of a cold build's count step)."""
    end = len(text)
    while (at := text.rfind(heading, 0, end)) >= 0:
        end = at
        if at and text[at - 1] != "\n":
            continue  # not at a line's start (checked first: each line is then scanned to its end once)
        line_end = text.find("\n", at)
        line_end = len(text) if line_end < 0 else line_end
        if not text[at + len(heading) : line_end].strip():
            return line_end + 1
    return -1


def telemetry_table(text: str) -> dict[str, str]:
    """Row -> cell of the last ``## Telemetry`` section's first table, the rows podium reads only (empty
    when there is none: no such section, or XORCISE's "No telemetry snapshot was recorded" in its place)."""
    pos = _last_heading(text, TELEMETRY_HEADING)
    if pos < 0:
        return {}
    xorcise = _XORCISE_TABLE.match(text, pos)
    if xorcise is not None:  # XORCISE's own layout (every export it writes): the eight rows first, in order
        return {row: cell.strip() for row, cell in zip(TELEMETRY_ROWS, xorcise.groups())}
    return _first_table(text, pos)


def _first_table(text: str, pos: int) -> dict[str, str]:
    """Row -> cell of the first table of the section that starts at ``pos``, the rows podium reads only: what
    :func:`telemetry_table` reads of a table in any other layout (its rows in any order, other spacing, text
    before it)."""
    section_end = text.find("\n#", pos)  # the next heading: the table is in between
    section_end = len(text) if section_end < 0 else section_end
    start = _TABLE_LINE.search(text, pos, section_end)
    if start is None:
        return {}
    begin = start.start()
    end = _NOT_TABLE_LINE.search(text, begin, section_end)  # the first table only: a second one (padding)
    stop = end.start() if end is not None else section_end  # is not read
    delimiter = _DELIMITER_ROW.search(text, begin, stop)
    if delimiter is not None:
        begin = delimiter.end()  # what came before it was the header row
    table: dict[str, str] = {}
    for row in _TELEMETRY_ROW.finditer(text, begin, stop):  # only the rows podium reads are matched
        name, cell = row.groups()
        if name not in table:
            table[name] = cell.strip()
            if len(table) == len(TELEMETRY_ROWS):
                break  # every row podium reads (XORCISE lists them first): the rest of the table is not scanned
    return table


_XORCISE_TABLE = re.compile(  # blank lines, the header row, the delimiter row, then the eight rows in order
    r"\n*\|[ \t]*Field[ \t]*\|[ \t]*Value[ \t]*\|[ \t]*\n\|[ \t]*---[ \t]*\|[ \t]*---[ \t]*\|[ \t]*"
    + "".join(rf"\n\|[ \t]*{re.escape(row)}[ \t]*\|([^|\n]*)\|" for row in TELEMETRY_ROWS)
)
_TABLE_LINE = re.compile(r"^[ \t]*\|", re.M)
_NOT_TABLE_LINE = re.compile(r"\n(?![ \t]*\|)")
_DELIMITER_ROW = re.compile(r"^[ \t]*\|(?=[^\n]*-)[ \t|:-]*$", re.M)
_TELEMETRY_ROW = re.compile(
    r"^[ \t]*\|[ \t]*(" + "|".join(map(re.escape, TELEMETRY_ROWS)) + r")[ \t]*\|([^|\n]*)", re.M
)


_H2_OPEN = re.compile(r"<h2", re.I)
_OVERVIEW_TITLE = re.compile(r"\s*Overview\s*</h2>", re.I)
_TITLES = re.compile(r"\s*(Overview|Activity)\s*</h2>", re.I)
_TABLE_END = re.compile(r"</table>", re.I)
_ROW_OPEN, _ROW_CLOSE = re.compile(r"<tr", re.I), re.compile(r"</tr>", re.I)
_CELL_OPEN, _CELL_CLOSE = re.compile(r"<t[dh]", re.I), re.compile(r"</t[dh]>", re.I)


def _elements(
    text: str,
    opening: re.Pattern,
    closing: re.Pattern,
    title: re.Pattern | None = None,
    titles: list[str] | None = None,
) -> list[str]:
    """What ``re.findall(opening + "[^>]*>" + title + "(.*?)" + closing, text, re.S)`` returns, in linear
    time on any text (that pattern rescans to the end from every opening when no ``>`` or closing
    follows: 400 KB of ``<h2`` took 38 s). Each opening's ``>`` is the first after it, shared by every
    opening before it; once no closing follows a point, none follows any later one. With ``titles``, the
    title each element had (``title``'s first group) is added to it, in the same order."""
    found: list[str] = []
    pos, gt, titled = 0, -1, -1  # titled: the ``>`` whose title was last tested and matched (``-2``: failed)
    name = ""
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
                name = match.group(1) if match and titles is not None else ""
            if titled == -2:
                pos = start.start() + 1
                continue
            body = titled
        end = closing.search(text, body)
        if end is None:
            break
        found.append(text[body : end.start()])
        if titles is not None:
            titles.append(name)
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
    return _rows_html(tables[-1]) if tables else {}


def tables_html(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """The Overview table (as :func:`overview_table_html`) and the Telemetry rows podium reads (the last
    ``<h2>Activity</h2>`` table) of a report.html, in one pass over its headings."""
    titles: list[str] = []
    tables = _elements(text, _H2_OPEN, _TABLE_END, _TITLES, titles)
    if any(name.lower() == "activity" and _H2_OPEN.search(body) for name, body in zip(titles, tables)):
        # an Activity section without a table of its own ("No telemetry snapshot was recorded") ran into the
        # next section's table and took it: no telemetry, and the Overview read on its own (rare: a second scan)
        return overview_table_html(text), {}
    last = {name.lower(): body for name, body in zip(titles, tables)}
    overview = _rows_html(last["overview"]) if "overview" in last else {}
    telemetry = _rows_html(last["activity"]) if "activity" in last else {}
    return overview, {row: cell for row, cell in telemetry.items() if row in TELEMETRY_ROWS}


def _rows_html(table_html: str) -> dict[str, str]:
    table: dict[str, str] = {}
    for row in _elements(table_html, _ROW_OPEN, _ROW_CLOSE):
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


def report_tables(text: str, *, is_html: bool) -> tuple[dict[str, str], dict[str, str]]:
    """The Overview table and the Telemetry rows podium reads of a report in either format (field -> raw
    cell text), in one pass over it."""
    if is_html:
        return tables_html(text)
    return overview_table(text), telemetry_table(text)


_WHOLE = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+")
NOT_REPORTED = "\u2014"  # "—": XORCISE's cell for a value it does not have
_ROW_INDEX = {row: SPENT_FIELDS.index(name) for row, name in TELEMETRY_ROWS.items()}


def read_telemetry(table: dict[str, str], fields: Fields, section: str = "Telemetry") -> Spent | None:
    """The eight values of a report's Telemetry rows (docs/rules/cost.md §1), as the report gives them: a whole
    number (``80,070``), or None when its row is missing or its cell is ``—``. Any other cell is None too,
    and a problem naming the file and the row (``section``: ``Activity`` in a report.html)."""
    if not table:
        return None  # no Telemetry table: nothing reported
    values: list[int | None] = [None] * len(SPENT_FIELDS)
    for row, cell in table.items():
        index = _ROW_INDEX.get(row)
        if index is None or cell == NOT_REPORTED:
            continue
        if cell.isdigit() and cell.isascii() and len(cell) <= _MOST_DIGITS:
            values[index] = int(cell)  # the usual cell: digits only (XORCISE writes 4 and more with commas)
            continue
        digits = cell.replace(",", "") if _WHOLE.fullmatch(cell) else None
        if digits is None:
            fields.report(f"{section}.{row}", f"expected a whole number, got {describe(cell)}")
        elif len(digits.lstrip("0")) > _MOST_DIGITS:
            fields.report(f"{section}.{row}", f"a whole number of more than 18 digits, got {describe(cell)}")
        else:
            values[index] = int(digits)
    return Spent.of(values)


_MOST_DIGITS = len(str(MAX_VALUE))


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
