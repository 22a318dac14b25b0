"""Figures podium computes are published without float noise (issue 36 item 8): every float of the summary,
the comparisons and the progress files is written rounded to 12 significant digits, while a run's own scores
(the ledger) stay as result.json holds them, and so do the cost figures (docs/rules/cost.md §2: published unrounded,
as computed in float64)."""

from __future__ import annotations

import json
import re

import sitekit
from exportkit import graded, run_id

# 0.4 and 0.45 are a median of (0.4 + 0.45) / 2 = 0.42500000000000004 in floating point
NOISY = 0.42500000000000004
LONG_SCORE = 0.1234567890123456  # a score result.json holds with 16 digits: the ledger keeps all of them


def _export(export):
    values = {"ab": [0.4, 0.45], "cd": [0.45, 0.4, 0.3, 0.5, 0.6, 0.55, LONG_SCORE]}
    n = 0
    for agent, scores in values.items():
        for score in scores:
            n += 1
            rid = run_id(f"noise{n}")
            export.run(
                graded(rid, det=score, judge=score, overall=score), rid=rid, agent=agent, mission="m1", version="1.0.0"
            )
    export.sidecars()
    return export.root


def _floats(value):
    if isinstance(value, float):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key != "cost":  # cost figures are published as computed (docs/rules/cost.md §2)
                yield from _floats(item)
    elif isinstance(value, list):
        for item in value:
            yield from _floats(item)


def test_computed_figures_are_rounded_and_run_scores_kept(export, tmp_path):
    files = sitekit.site_files(sitekit.build(_export(export), tmp_path / "site", root=tmp_path))
    summary = json.loads(files["api/results/summary.json"])
    ab = next(a for a in summary["agents"] if a["name"] == "ab")
    assert ab["median"] == 0.425 and ab["avg_overall"] == 0.425
    assert b"0.42500000000000004" not in files["api/results/summary.json"]
    assert ab["cost"]["budget_share"]["median"] == 1200 / 3600  # 20 min of a 1 h budget, unrounded (cost.md §2)
    computed = [
        path
        for path in files
        if path.endswith(".json")
        and path.startswith("api/results/")
        and "schema" not in path
        and path != "api/results/runs.json"
    ]
    assert "api/results/compare.json" in computed and any(p.startswith("api/results/progress/") for p in computed)
    for path in computed:
        document = json.loads(files[path])
        if path.startswith("api/results/progress/"):
            document.pop("method")  # the method's constants (ln 1.25, …) are written exactly as defined
        for number in _floats(document):
            assert float(f"{number:.12g}") == number, f"{path}: {number!r} has float noise"
    ledger = sitekit.ledger_rows(files)
    assert LONG_SCORE in [row["overall"] for row in ledger]  # a run's own score keeps its 16 digits
    csv = b"".join(body for path, body in files.items() if path.endswith(".csv"))
    assert re.search(rb"0\.1234567890123456\b", csv)
