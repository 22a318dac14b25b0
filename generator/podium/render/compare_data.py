"""``api/results/compare.json`` (compare.md §3): every pair, as the summary step computed it.

Pure: Leaderboard in, dicts and bytes out; the bytes go through ``data.dump_json``
(sorted keys, no NaN), so two builds of the same input are byte-identical.
"""

from __future__ import annotations

from importlib import resources

from podium.load.published import COMPARE_SCHEMA
from podium.model import Leaderboard, Pair, PairVersion
from podium.render.data import dump_json


def _ci(ci: tuple[float, float] | None) -> list[float] | None:
    return list(ci) if ci else None


def version_dict(v: PairVersion) -> dict:
    return {
        "mission": v.mission,
        "version": v.version,
        "url": v.url,
        "n_a": v.n_a,
        "n_b": v.n_b,
        "median_a": v.median_a,
        "median_b": v.median_b,
        "median_ci_a": _ci(v.median_ci_a),
        "median_ci_b": _ci(v.median_ci_b),
        "median_diff": v.median_diff,
        "median_deterministic_a": v.median_deterministic_a,
        "median_deterministic_b": v.median_deterministic_b,
        "median_judge_a": v.median_judge_a,
        "median_judge_b": v.median_judge_b,
        "judge_models_a": list(v.judge_models_a),
        "judge_models_b": list(v.judge_models_b),
        "superiority": v.superiority,
        "verdict": v.verdict,
    }


def pair_dict(pair: Pair) -> dict:
    """One pair entry of compare.json (also what ``podium compare A B --json`` prints)."""
    return {
        "a": pair.a,
        "b": pair.b,
        "a_name": pair.a_name,
        "b_name": pair.b_name,
        "url": pair.url,
        "shared": pair.shared,
        "superiority": pair.superiority,
        "verdicts": dict(pair.verdicts),
        "median_diff": pair.median_diff,
        "flags": {
            "judge_models_differ": list(pair.flags.judge_models_differ),
            "model_changed": list(pair.flags.model_changed),
            "no_judge_gap": pair.flags.no_judge_gap,
            "timeout_gap": pair.flags.timeout_gap,
        },
        "models_a": list(pair.models_a),
        "models_b": list(pair.models_b),
        "no_judge_share_a": pair.no_judge_share_a,
        "no_judge_share_b": pair.no_judge_share_b,
        "timeout_share_a": pair.timeout_share_a,
        "timeout_share_b": pair.timeout_share_b,
        "versions": [version_dict(v) for v in pair.versions],
    }


def compare_json(board: Leaderboard) -> bytes:
    """compare.json, one pair per line (it grows with the square of the agents); keys sorted."""
    rows = [dump_json(pair_dict(p), indent=None).decode("utf-8").rstrip("\n") for p in board.pairs]
    body = ",\n".join(rows)
    head = dump_json(COMPARE_SCHEMA, indent=None).decode("utf-8").rstrip("\n")
    return ('{"pairs": [' + ("\n" + body + "\n" if rows else "") + '], "schema": ' + head + "}\n").encode("utf-8")


def compare_schema() -> bytes:
    """The JSON Schema of compare.json, shipped with the site."""
    return resources.files("podium").joinpath("compare.schema.json").read_bytes()
