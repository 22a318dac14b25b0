"""Every output file of the site, as site path -> bytes (pure; the writer writes them)."""

from __future__ import annotations

from generator import routes
from generator.model import Leaderboard
from generator.render import data


def data_files(board: Leaderboard, generated_at: int | None) -> dict[str, bytes]:
    """The JSON/CSV files of site.md: summary bundle, its schema, and the ledger."""
    return {
        routes.SUMMARY_JSON: data.dump_json(data.summary_dict(board, generated_at)),
        routes.SUMMARY_SCHEMA: data.summary_schema(),
        routes.RUNS_JSON: data.ledger_json(board),
        routes.RUNS_CSV: data.ledger_csv(board),
    }


def site_files(board: Leaderboard, generated_at: int | None) -> dict[str, bytes]:
    return data_files(board, generated_at)
