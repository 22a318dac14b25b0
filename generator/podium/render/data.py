"""The data files of site.md: the summary bundle and the ledger (JSON and CSV).

Pure: Leaderboard in, bytes out. JSON is canonical (sorted keys, no NaN, UTF-8,
one trailing newline) so two builds of the same input are byte-identical.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from importlib import resources

from podium import __version__, routes
from podium.count.cost import RunDollars, run_dollars
from podium.count.stats import rounded
from podium.load.published import RUNS_SCHEMA, SUMMARY_WHOLE_SCHEMA
from podium.model import (
    EXACT,
    INLINE,
    AgentSummary,
    Frontier,
    Leaderboard,
    LedgerPart,
    MissionVersionSummary,
    ModelSummary,
    Prices,
    Problem,
    RunRecord,
    Totals,
    iso_utc,
    unless_set,
)
from podium.model.cost import SPENT_FIELDS
from podium.model.jsonable import dump_json, jsonable
from podium.render.gzipped import gzip_bytes
from podium.render.progress_data import SummaryProgress, summary_progress
from podium.words import cost_text


def ledger_columns(prices: Prices | None) -> tuple[str, ...]:
    """The ledger's columns: LEDGER_COLUMNS, and the dollar columns when a price table is configured."""
    return LEDGER_COLUMNS + DOLLAR_COLUMNS if prices is not None else LEDGER_COLUMNS


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# A spreadsheet that splits on ";" (the list separator of most of continental Europe) starts a cell after
# each ";" of a text: one whose next character, past spaces and quotes, would start a formula gets the
# same leading "'" a cell does.
_FORMULA_AFTER_SEMICOLON = re.compile(r";(?=[\s\"]*[=+\-@\t\r])")
_CSV_QUOTED = re.compile(r'[,";\r\n]')  # RFC 4180's, and ";" so a reader that splits on both keeps the cell


def publish(value: object) -> object:
    """A typed value as summary.json and the comparisons publish it: through model/jsonable.py, every float
    rounded (docs/rules/site.md §3) but a scope's cost and frontier (``json_exact``, docs/rules/cost.md §2)."""
    return jsonable(value, floats=rounded)


@dataclass(frozen=True, slots=True)
class Generator:
    """What made a data file: ``{"name": "podium", "version": ...}``."""

    name: str
    version: str


GENERATOR = Generator("podium", __version__)


@dataclass(frozen=True, slots=True)
class Source:
    """What a summary was counted from: the run directories read and the digest of the inputs."""

    runs_read: int
    inputs_digest: str


@dataclass(frozen=True, slots=True)
class RankedAgent:
    """An entry of summary.json's ``agents`` (and of ``podium rank --json``): a ranked agent (its AgentSummary's
    keys) with its progress headline."""

    agent: AgentSummary = field(metadata=INLINE)
    progress: SummaryProgress


@dataclass(frozen=True, slots=True)
class Summary:
    """The whole summary (``podium.summary/1``): published as summary.json's index and its parts
    (render/summary_parts.py), which put together give it back. ``prices`` (every dollar figure is at these
    prices, docs/rules/cost.md §5) and ``generated_at`` only when there are."""

    schema: str
    generator: Generator
    source: Source
    totals: Totals
    agents: tuple[RankedAgent, ...]
    agents_older: tuple[AgentSummary, ...]
    missions: tuple[MissionVersionSummary, ...]
    by_model: tuple[ModelSummary, ...]
    frontier: Frontier = field(metadata=EXACT)
    problems: tuple[Problem, ...]
    prices: Prices | None = field(metadata=unless_set("prices"))
    generated_at: str | None = field(metadata=unless_set("generated_at"))


def generated(when: int | None) -> str | None:
    """A build's ``generated_at`` (seconds since the epoch) as the data files write it."""
    return iso_utc(datetime.fromtimestamp(when, UTC)) if when is not None else None


def ranked_agents(board: Leaderboard) -> tuple[RankedAgent, ...]:
    """summary.json's ``agents`` (and ``podium rank --json``): each ranked agent with its progress headline."""
    return tuple(RankedAgent(a, summary_progress(board.progress[a.agent], a.slug)) for a in board.agents)


def summary_of(board: Leaderboard, generated_at: int | None = None) -> Summary:
    """The whole summary of ``board`` (``generated_at``: seconds since the epoch)."""
    return Summary(
        schema=SUMMARY_WHOLE_SCHEMA,
        generator=GENERATOR,
        source=Source(board.runs_read, board.inputs_digest),
        totals=board.totals,
        agents=ranked_agents(board),
        agents_older=board.agents_older,
        missions=board.missions,
        by_model=board.by_model,
        frontier=board.frontier,
        problems=board.problems,
        prices=board.prices,
        generated_at=generated(generated_at),
    )


def summary_data(board: Leaderboard, generated_at: int | None = None) -> dict:
    """The whole summary as published data (render/summary_parts.py cuts it into summary.json's parts)."""
    out = publish(summary_of(board, generated_at))
    assert isinstance(out, dict)  # a dataclass is published as an object
    return out


@dataclass(slots=True)  # not frozen: one is made for each run in each format, and a frozen one sets each field slower
class LedgerRow:
    """One run as the ledger shows it, its fields the ledger's columns in order (LEDGER_COLUMNS): None where the
    page shows "—" (judge: see judge_status), and where a value was not reported (docs/rules/cost.md §1); the
    dollar columns (DOLLAR_COLUMNS) with a price table only."""

    run_id: str
    date: str | None
    agent: str
    agent_name: str
    mission: str
    version: str
    older: bool
    kind: str
    status: str
    overall: float | None
    overall_upper: float | None
    deterministic: float | None
    judge: float | None
    judge_upper: float | None
    judge_status: str | None
    judge_model: str | None
    model_declared: str | None
    models_reported: tuple[str, ...]
    models_more: int  # reported past the 8 models_reported keeps (export.md §3.2)
    started_at: str | None
    completed_at: str | None
    # what the run spent (docs/rules/cost.md §1, §6): null / empty when not reported
    harness: str | None
    total_tokens: int | None
    input_tokens: int | None
    output_tokens: int | None
    cache_read_tokens: int | None
    cache_creation_tokens: int | None
    reasoning_tokens: int | None
    model_calls: int | None
    tool_calls: int | None
    duration_seconds: float | None
    budget_seconds: float | None
    budget_share: float | None
    url: str
    dollars: RunDollars | None = field(default=None, metadata={**INLINE, **unless_set("dollars")})


LEDGER_COLUMNS = tuple(f.name for f in fields(LedgerRow))[:-1]  # a row's columns but its dollars
DOLLAR_COLUMNS = tuple(f.name for f in fields(RunDollars))  # with a price table only (docs/rules/cost.md §5)
_AT = {name: place for place, name in enumerate(SPENT_FIELDS)}  # each Telemetry row's place in a Spent's values
NOT_SPENT = (None,) * len(SPENT_FIELDS)


def ledger_row(record: RunRecord, prices: Prices | None = None) -> dict:
    """One run's row of the ledger (:class:`LedgerRow`), published: its keys in column order."""
    spent = record.spent.values() if record.spent is not None else NOT_SPENT
    seconds, budget = record.duration_seconds, record.budget_seconds
    row = LedgerRow(  # by position, in column order: a row is made for every run in every format
        record.run_id,
        iso_utc(record.when),
        record.agent,
        record.agent_name,
        record.mission,
        record.version,
        record.older,
        record.kind,
        record.status,
        record.overall,
        record.overall_upper,
        record.deterministic,
        record.judge,
        record.judge_upper,
        record.judge_status,
        record.judge_model,
        record.model_declared,
        record.models_reported,
        record.models_more,
        iso_utc(record.started),
        iso_utc(record.completed),
        record.harness,
        spent[_AT["total_tokens"]],
        spent[_AT["input_tokens"]],
        spent[_AT["output_tokens"]],
        spent[_AT["cache_read_tokens"]],
        spent[_AT["cache_creation_tokens"]],
        spent[_AT["reasoning_tokens"]],
        spent[_AT["model_calls"]],
        spent[_AT["tool_calls"]],
        seconds,
        budget,
        seconds / budget if seconds is not None and budget is not None else None,
        record.url,
        run_dollars(record, prices) if prices is not None else None,
    )
    out = jsonable(row)
    assert isinstance(out, dict)  # a dataclass is published as an object
    return out


def csv_cell(value: object) -> str:
    """A CSV cell: empty for no value (data tools then read the column as numbers; ``judge_status``
    says why a judge score is missing), formulas neutralised in text cells: at its start and after
    each ``;`` (csv_line quotes such a cell too)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        value = " ".join(value)
    text = str(value)
    if ";" in text:
        text = _FORMULA_AFTER_SEMICOLON.sub(";'", text)
    return "'" + text if text.startswith(_FORMULA_START) else text


def csv_line(cells: list[str]) -> str:
    """One CSV record (RFC 4180, CRLF): a cell holding a comma, quote, line break or ``;`` is quoted."""
    return ",".join('"' + c.replace('"', '""') + '"' if _CSV_QUOTED.search(c) else c for c in cells) + "\r\n"


def summary_schema() -> bytes:
    """The JSON Schema of summary.json, shipped with the site."""
    return resources.files("podium").joinpath("summary.schema.json").read_bytes()


# ---------------------------------------------------------------- the ledger, in parts (count/ledger.py)


@dataclass(frozen=True, slots=True)
class LedgerIndex:
    """``runs.json``: the ledger's columns and parts (``generated_at`` only when there is one)."""

    schema: str
    generator: Generator
    runs: int
    columns: tuple[str, ...]
    parts: tuple[LedgerPart, ...]
    generated_at: str | None = field(metadata=unless_set("generated_at"))


def ledger_index(board: Leaderboard, generated_at: int | None = None) -> bytes:
    """``runs.json``: the ledger's index, every part in every format (the whole ledger is their union)."""
    index = LedgerIndex(
        schema=RUNS_SCHEMA,
        generator=GENERATOR,
        runs=board.totals.listed,
        columns=ledger_columns(board.prices),
        parts=board.ledger.parts if board.ledger else (),
        generated_at=generated(generated_at),
    )
    return dump_json(jsonable(index))


def ledger_part(board: Leaderboard, index: int) -> LedgerPart:
    """The ``index``-th part of the ledger (a board with runs has a ledger: count/ledger.py; a part is planned
    only from it)."""
    if board.ledger is None:
        raise ValueError("a ledger part of a board without a ledger")
    return board.ledger.parts[index]


# Characters str.splitlines() ends a line at that json.dumps leaves as they are (it escapes every other one):
# escaped too, so each run is one line to every reader, whichever way it splits lines.
_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def part_jsonl(board: Leaderboard, index: int) -> bytes:
    """One part as JSON Lines: one JSON object per run (newest first), every column of the ledger in
    ``columns`` order, its part's agent and mission included, so each line is a table row on its own:
    ``pandas.read_json(..., lines=True)``, DuckDB's ``read_json_auto``, ``jq`` and ``json.loads`` per line
    read one row per run, and parts concatenate (podium.runs/5: /4 and what each run spent, docs/rules/cost.md;
    /3 wrote one document of array rows, which data tools read as one row per part)."""
    lines = [
        json.dumps(ledger_row(board.runs[i], board.prices), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        for i in ledger_part(board, index).runs
    ]
    return ("\n".join(lines) + "\n").translate(_LINE_BREAKS).encode("utf-8")


def part_jsonl_gz(board: Leaderboard, index: int) -> bytes:
    """One part as gzipped JSON Lines (``.jsonl.gz``): a fifth of the bytes, the one format of the three a
    site at 1M runs must shrink to fit a 1 GB host (the CSV stays plain for spreadsheets; the page needs its
    script). No file name, time or platform in the gzip header, so the same part is the same bytes wherever
    the same compressor makes them (render/gzipped.py: the cache keys these parts on it)."""
    return gzip_bytes(part_jsonl(board, index))


def part_csv(board: Leaderboard, index: int) -> bytes:
    """One part as CSV: every column on every row (parts concatenate), an empty cell for no value."""
    columns = ledger_columns(board.prices)
    lines = [csv_line(list(columns))]
    for i in ledger_part(board, index).runs:
        row = ledger_row(board.runs[i], board.prices)
        lines.append(csv_line([csv_cell(row[c]) for c in columns]))
    return "".join(lines).encode("utf-8")


def runs_schema() -> bytes:
    """The JSON Schema of runs.json and of each row of its JSON Lines parts, shipped with the site."""
    return resources.files("podium").joinpath("runs.schema.json").read_bytes()


# The ledger page's data, as scripts (a script loads from file:// where fetch() does not): ASCII-only
# JSON (astral characters as surrogate pairs, which JavaScript reads back) with every ``<`` escaped,
# so no name can close a script element or start a comment.


SCRIPT_PART_COLUMNS = ("agent", "slug", "mission", "runs", "kinds", "first", "last", "script")


@dataclass(frozen=True, slots=True)
class ScriptIndex:
    """``ledger.js``: how many runs, and a row per part (SCRIPT_PART_COLUMNS) to choose the parts a filter loads."""

    runs: int
    columns: tuple[str, ...]
    parts: tuple[tuple[object, ...], ...]


@dataclass(frozen=True, slots=True)
class ScriptPart:
    """One part's script: its agent and mission (with their pages) once, each version's page and whether it is
    older, the ledger pages its runs are listed on, then a row per run (LEDGER_CELLS)."""

    script: str
    agent: str
    slug: str
    agent_url: str
    mission: str
    versions: dict[str, list]  # version -> [its page, older]
    pages: tuple[str, ...]
    columns: tuple[str, ...]
    rows: list[list]


_LT = "\\u003c"  # "<" in a script's JSON: no name can close a script element or start a comment


def _script(call: str, value: ScriptIndex | ScriptPart) -> bytes:
    made = jsonable(value)
    body = json.dumps(made, sort_keys=True, allow_nan=False, ensure_ascii=True, separators=(",", ":"))
    return f"{call}({body.replace('<', _LT)});\n".encode("ascii")


def ledger_index_script(board: Leaderboard) -> bytes:
    """``ledger.js``: what the ledger page needs to choose the parts a filter loads."""
    parts = board.ledger.parts if board.ledger else ()
    rows = tuple(
        (p.agent_name, p.agent_slug, p.mission, len(p.runs), p.kinds, p.first, p.last, p.paths["script"]) for p in parts
    )
    return _script("podiumLedger.index", ScriptIndex(board.totals.listed, SCRIPT_PART_COLUMNS, rows))


LEDGER_CELLS = (
    "run",
    "url",
    "date",
    "version",
    "kind",
    "status",
    "overall",
    "overall_text",
    "deterministic",
    "deterministic_text",
    "judge",
    "judge_text",
    "tokens",
    "tokens_text",
    "duration",
    "duration_text",
)


def part_script(board: Leaderboard, index: int) -> bytes:
    """One part for the ledger page: its agent and mission (with their pages) once, each version's page and
    whether it is older, the ledger pages its runs are listed on, then a row per run: raw numbers to sort by
    and the exact text the HTML table shows."""
    part = ledger_part(board, index)
    records = [board.runs[i] for i in part.runs]
    versions = {r.version: [r.mission_url or "", r.older] for r in reversed(records)}
    pages: dict[str, int] = {}
    rows = [ledger_cells(r, pages) for r in records]
    script = ScriptPart(
        script=part.paths["script"],
        agent=part.agent_name,
        slug=part.agent_slug,
        agent_url=records[0].agent_url or "",
        mission=part.mission,
        versions=versions,
        pages=tuple(pages),
        columns=LEDGER_CELLS,
        rows=rows,
    )
    return _script("podiumLedger.part", script)


def ledger_cells(record: RunRecord, pages: dict[str, int]) -> list:
    """One ledger row for the page's script. Its url: None when it is the run's own page (the script knows
    that path), else the number of its ledger page in ``pages`` (added when new; the script adds ``#run-<id>``),
    as a link to the row on a ledger page is most of a row's bytes when runs have no page of their own."""
    cells = cost_text.ledger_cells(record)
    url: int | None = None
    if record.url != routes.run_path(record.run_id):
        url = pages.setdefault(record.url.partition("#")[0], len(pages))  # ledger.anchor(): <page>#run-<id>
    return [
        record.run_id,
        url,
        iso_utc(record.when) or "",
        record.version,
        record.kind,
        record.status,
        record.overall,
        cells["overall"],
        record.deterministic,
        cells["deterministic"],
        record.judge,
        cells["judge"],
        record.total_tokens,
        cells["tokens"],
        round(duration) if (duration := record.duration_seconds) is not None else None,  # whole seconds sort alike
        cells["duration"],
    ]
