"""The data files of site.md: the summary bundle and the ledger (JSON and CSV).

Pure: Leaderboard in, bytes out. JSON is canonical (sorted keys, no NaN, UTF-8,
one trailing newline) so two builds of the same input are byte-identical.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timezone
from importlib import resources

from podium import __version__
from podium.model import (
    AgentSummary,
    Figures,
    Leaderboard,
    MissionVersionSummary,
    ModelSummary,
    RunRecord,
    iso_utc,
)
from podium.render.numbers import ledger_texts

SCHEMA = "podium.summary/1"
LEDGER_COLUMNS = (
    "run_id", "date", "agent", "agent_name", "mission", "version", "older", "kind", "status",
    "overall", "overall_upper", "deterministic", "judge", "judge_upper", "judge_status",
    "judge_model", "model_declared", "models_reported", "started_at", "completed_at", "url",
)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def dump_json(value: object, *, indent: int | None = 2) -> bytes:
    """Canonical JSON bytes: sorted keys, finite numbers only, trailing newline."""
    text = json.dumps(value, sort_keys=True, allow_nan=False, ensure_ascii=False, indent=indent,
                      separators=(",", ": ") if indent else (",", ":"))
    return (text + "\n").encode("utf-8")


def figures_dict(fig: Figures) -> dict:
    return {
        "runs": fig.runs,
        "in_median": fig.in_median,
        "median": fig.median,
        "median_upper": fig.median_upper,
        "median_ci": list(fig.median_ci) if fig.median_ci else None,
        "avg_overall": fig.avg_overall,
        "best_overall": fig.best_overall,
        "counts": dict(fig.counts),
        "judge_degraded": fig.judge_degraded,
        "completion_rate": fig.completion_rate,
        "partial_rate": fig.partial_rate,
        "judge_models": list(fig.judge_models),
        "models_reported": list(fig.models_reported),
        "models_declared": list(fig.models_declared),
        "last_run": fig.last_run,
    }


def agent_dict(agent: AgentSummary) -> dict:
    out = {
        "agent": agent.agent,
        "name": agent.name,
        "slug": agent.slug,
        "url": agent.url,
        "scope": agent.scope,
        "missions": [
            {"mission": m.mission, "version": m.version, "current": m.current, "url": m.url,
             **figures_dict(m.figures)}
            for m in agent.missions
        ],
        **figures_dict(agent.figures),
    }
    if agent.rank is not None:
        out["rank"] = agent.rank
        out["provisional"] = bool(agent.provisional)
    return out


def mission_dict(mission: MissionVersionSummary) -> dict:
    return {
        "mission": mission.mission,
        "version": mission.version,
        "current": mission.current,
        "url": mission.url,
        "judge_vs_checks": mission.judge_vs_checks,
        "agents": [
            {"agent": a.agent, "name": a.name, "url": a.url, "median": a.median, "in_median": a.in_median,
             "runs": a.runs}
            for a in mission.agents
        ],
        **figures_dict(mission.figures),
    }


def model_dict(model: ModelSummary) -> dict:
    """One by_model entry (compare.md §2): the key, its rank, the agents behind it, every figure."""
    return {
        "model": model.model,
        "slug": model.slug,
        "url": model.url,
        "rank": model.rank,
        "provisional": model.provisional,
        "agents": list(model.agents),
        "members": [
            {"agent": a.agent, "name": a.name, "url": a.url, "median": a.median, "in_median": a.in_median,
             "runs": a.runs}
            for a in model.members
        ],
        **figures_dict(model.figures),
    }


def summary_dict(board: Leaderboard, generated_at: int | None = None) -> dict:
    out = {
        "schema": SCHEMA,
        "generator": {"name": "podium", "version": __version__},
        "source": {"runs_read": board.runs_read, "inputs_digest": board.inputs_digest},
        "totals": {"runs": board.totals.runs, "not_a_run": board.totals.not_a_run,
                   "counts": dict(board.totals.counts)},
        "agents": [agent_dict(a) for a in board.agents],
        "agents_older": [agent_dict(a) for a in board.agents_older],
        "missions": [mission_dict(m) for m in board.missions],
        "by_model": [model_dict(m) for m in board.by_model],
        "problems": [{"path": p.path, "field": p.field, "message": p.message} for p in board.problems],
    }
    if generated_at is not None:
        out["generated_at"] = iso_utc(datetime.fromtimestamp(generated_at, timezone.utc))
    return out


def ledger_row(record: RunRecord) -> dict:
    """One run as the ledger shows it: None where the page shows "—" (judge: see judge_status)."""
    return {
        "run_id": record.run_id,
        "date": iso_utc(record.when),
        "agent": record.agent,
        "agent_name": record.agent_name,
        "mission": record.mission,
        "version": record.version,
        "older": record.older,
        "kind": record.kind,
        "status": record.status,
        "overall": record.overall,
        "overall_upper": record.overall_upper,
        "deterministic": record.deterministic,
        "judge": record.judge,
        "judge_upper": record.judge_upper,
        "judge_status": record.judge_status,
        "judge_model": record.judge_model,
        "model_declared": record.model_declared,
        "models_reported": list(record.models_reported),
        "started_at": iso_utc(record.started),
        "completed_at": iso_utc(record.completed),
        "url": record.url,
    }


def ledger_json(board: Leaderboard) -> bytes:
    """The ledger as a JSON array, one run per line (newest first)."""
    rows = [dump_json(ledger_row(r), indent=None).decode("utf-8").rstrip("\n") for r in board.runs]
    return ("[\n" + ",\n".join(rows) + ("\n" if rows else "") + "]\n").encode("utf-8")


def csv_cell(value: object) -> str:
    """A CSV cell: empty for no value (data tools then read the column as numbers; ``judge_status``
    says why a judge score is missing), formulas neutralised in text cells."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        value = " ".join(value)
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def ledger_csv(board: Leaderboard) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(LEDGER_COLUMNS)
    for record in board.runs:
        row = ledger_row(record)
        writer.writerow(csv_cell(row[c]) for c in LEDGER_COLUMNS)
    return out.getvalue().encode("utf-8")


def summary_schema() -> bytes:
    """The JSON Schema of summary.json, shipped with the site."""
    return resources.files("podium").joinpath("summary.schema.json").read_bytes()


def ledger_script(board: Leaderboard) -> bytes:
    """The ledger for in-browser sorting and filtering, as a script (works from file://).

    ASCII-only JSON (astral characters as surrogate pairs, which JavaScript reads back) with
    every ``<`` escaped, so no name can close a script element or start a comment.
    """
    rows = [ledger_cells(r) for r in board.runs]
    body = json.dumps({"columns": list(LEDGER_CELLS), "rows": rows}, sort_keys=True, allow_nan=False,
                      ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c")
    return f"window.podiumLedger = {body};\n".encode("ascii")


LEDGER_CELLS = ("run", "url", "date", "agent", "agent_url", "mission", "version", "mission_url", "older", "kind",
                "status", "overall", "overall_text", "deterministic", "deterministic_text", "judge", "judge_text")


def ledger_cells(record: RunRecord) -> list:
    """One ledger row: raw numbers to sort by and the exact text the HTML table shows."""
    cells = ledger_texts(record)
    return [record.run_id, record.url, iso_utc(record.when) or "", record.agent_name, record.agent_url or "",
            record.mission, record.version, record.mission_url or "", record.older, record.kind, record.status,
            record.overall, cells["overall"], record.deterministic, cells["deterministic"], record.judge,
            cells["judge"]]
