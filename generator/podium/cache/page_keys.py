"""What each output file of a build is made from: its cache key, from the parts cache/keys.py names.

A page: its template and context (a run page: its raw record, its report and its redaction instead of the
public record; a ledger page: its month, neighbours and runs); a ledger part: its runs (a gzipped one: and the
compressor); a part of the comparisons: its pairs; an agent's progress file: its result; any other data file:
the summary without the runs (which no other data file lists); a file copied or made whole: its bytes or what
makes them. None without a cache (NoCache's keys make none).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import cast

from podium.cache.keys import Key, Keys
from podium.model import Leaderboard, LedgerPart, RunRecord
from podium.plan.entries import (
    Asset,
    CrawlerFile,
    DataFile,
    Document,
    Entry,
    LazyLedgerPage,
    LedgerPageMaker,
    Page,
    RunPage,
)
from podium.render import data, gzipped
from podium.render.report import ReportRenderer
from podium.safety.redact import Redaction

LEDGER_PARTS = frozenset({"part_jsonl_gz", "part_csv", "part_script"})  # a DataFile's part: a ledger part
GZIPPED = frozenset({"part_jsonl_gz"})  # data files whose bytes depend on the compressor (render/gzipped.py)


class FileKeys:
    """The key of each file of one build's manifest (``board``: the public one; ``runs``: the raw records, in its
    order; ``reports``: what a run page's report renders from; ``redaction``: the build's)."""

    def __init__(
        self,
        keys: Keys,
        board: Leaderboard,
        runs: Sequence[RunRecord],
        reports: ReportRenderer,
        redaction: Redaction,
        generated_at: int | None,
    ):
        self.keys, self.board, self.runs, self.reports = keys, board, runs, reports
        self.redaction, self.generated_at = redaction, generated_at

    def __call__(self, entry: Entry) -> Key | None:
        keys = self.keys
        if isinstance(entry, DataFile):
            return self._data_file(entry)
        if isinstance(entry, Document):
            return keys.file(entry.path, lambda: data.dump_json(entry.value))
        if isinstance(entry, CrawlerFile):
            made_of = (entry.kind, entry.base_url, entry.listed, entry.search_engines)
            return keys.file(entry.path, lambda: repr(made_of).encode())
        if isinstance(entry, Asset):
            return keys.file(entry.path, entry.source.read_bytes)
        if isinstance(entry, RunPage):
            record = self.runs[entry.index]
            shown = self.board.runs[entry.index].configuration
            return keys.run_page(entry.pages.chrome, record, self.reports.inputs(record), self.redaction, shown)
        if isinstance(entry, LazyLedgerPage):
            pages = cast(LedgerPageMaker, entry.pages)
            return keys.ledger_page(pages.chrome, entry.path, pages.key_parts(entry.index))
        page = entry if isinstance(entry, Page) else entry.page
        return keys.page(page.path, page.template, page.context)

    def report(self, record: RunRecord) -> str | None:
        """The key of the report a run page shows."""
        return self.reports.key(record)

    def _data_file(self, entry: DataFile) -> Key | None:
        keys, board, number = self.keys, self.board, entry.part
        if number is not None and entry.kind == "progress":  # an agent's progress file: its result alone
            owner = board.agents[number]
            return keys.data_file(
                entry.path, entry.kind, lambda: (owner.agent, owner.name, owner.slug, board.progress[owner.agent])
            )
        if number is not None and entry.kind == "compare_agent":  # what it writes of the agent, and its pairs
            agent = board.agents[number]
            return keys.data_file(
                entry.path,
                entry.kind,
                lambda: (
                    (agent.agent, agent.name, agent.slug, agent.rank, entry.more),
                    [board.pairs[i] for i in entry.pairs],
                ),
            )
        if entry.kind == "summary_agent":  # an agent's part of summary.json: its entries in both scopes alone
            ranked = board.agents[number] if number is not None else None
            older = board.agents_older[entry.older] if entry.older is not None else None
            return keys.data_file(entry.path, entry.kind, lambda: (ranked, older))
        if number is not None and entry.kind == "summary_mission":  # a mission version's part: its summary alone
            mission = board.missions[number]
            return keys.data_file(entry.path, entry.kind, lambda: (mission,))
        if number is not None and entry.kind == "compare_pair":
            pair = board.pairs[number]
            return keys.data_file(entry.path, entry.kind, lambda: (pair,))
        if number is not None and entry.kind in LEDGER_PARTS:
            part = (board.ledger.parts if board.ledger else ())[number]
            return keys.data_file(
                entry.path,
                entry.kind,
                lambda: (_part_key(part), [board.runs[i] for i in part.runs]),
                compressor=gzipped.compressor_fingerprint() if entry.kind in GZIPPED else None,
            )
        return keys.data_file(entry.path, entry.kind, lambda: (_without_runs(board), self.generated_at), once=True)


def _part_key(part: LedgerPart) -> tuple:
    """A ledger part in a key: without its runs' indexes (its runs are keyed by their records), with their number."""
    return (*_without(part, "runs"), len(part.runs))


def _without(value, name: str) -> tuple:
    """A frozen dataclass value's fields but one, in order (a key's part: no copy of the value is made, which
    the keys would hold for the build: cache/keys.py keeps every value it digests)."""
    return tuple(getattr(value, f.name) for f in fields(value) if f.name != name)


def _without_runs(board: Leaderboard) -> tuple:
    """What every data file but the ledger's parts is made from: the board without its runs."""
    ledger = board.ledger
    parts = tuple(_part_key(p) for p in ledger.parts) if ledger else ()
    return (
        board.totals,
        board.agents,
        board.agents_older,
        board.missions,
        board.problems,
        board.runs_read,
        board.inputs_digest,
        board.pairs,
        tuple(_without(m, "runs") for m in board.by_model),
        parts,
        len(board.runs),
    )
