"""The one-liners over the ledger's JSON Lines parts that docs/data.md shows, run as written.

docs/data.md "The ledger as data" shows how pandas, DuckDB, jq and the standard library read the parts
(the README shows one of them: tests/test_docs.py checks it is one of these); each block is taken from
docs/data.md and run in the root of a built site, and what it reads must be
the ledger: one row per run, every column, the same values as runs.json's parts hold (sitekit.ledger_rows).
Two sites: the demo, and one whose first 40 parts (in file-name order) have no score, judge model or
reported model at all, where a reader that guesses a column's type from the first files would read
those columns as null everywhere.

jq is Debian's: its test skips where jq is absent, unless PODIUM_REQUIRE_JQ=1 (.ci/run installs it).
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
import sitekit as kit
from exportkit import ExportDir, env_failure, graded, run_id

from podium.build import build_site
from podium.config import load_config

MAIN = Path(__file__).resolve().parents[2]
SCORES = ("overall", "overall_upper", "deterministic", "judge", "judge_upper")


BLOCKS = kit.ledger_readers()
assert set(BLOCKS) == {"pandas", "DuckDB", "jq", "standard library"}, sorted(BLOCKS)


def demo(out: Path) -> Path:
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(MAIN)
        build_site(load_config(Path("podium.yaml"), {"out": out}), Path("content/demo-export"))
    return out


def nulls_first(root: Path) -> Path:
    """40 agents ("a00"…) whose only run failed to deploy (every score, judge and model null), then "zz"
    with graded, timed-out and partial-judge runs on two missions."""
    export = ExportDir(root / "export")
    for n in range(40):
        export.run(env_failure(run_id(f"n{n}")), rid=run_id(f"n{n}"), agent=f"a{n:02d}", mission="m1", at=n)
    for n in range(6):
        export.run(
            graded(
                run_id(f"z{n}"),
                det=0.25 * (n % 4),
                judge=0.5,
                models_reported=["model-z"],
                partial_trigger="timeout" if n == 1 else None,
                judge_status="partial" if n == 2 else "ok",
                overall_upper=0.9 if n == 2 else "same",
                judge_upper=0.75 if n == 2 else "same",
            ),
            rid=run_id(f"z{n}"),
            agent="zz",
            mission=f"m{1 + n % 2}",
            at=100 + n,
        )
    export.sidecars()
    return kit.build(export.root, root / "site")


@pytest.fixture(scope="module", params=["demo", "nulls-first"])
def site(request, tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp(request.param)
    out = demo(root / "site") if request.param == "demo" else nulls_first(root)
    index = kit.strict_json((out / "api/results/runs.json").read_bytes())
    rows = kit.ledger_rows_at(out)
    if request.param == "nulls-first":
        first = sorted(p["jsonl_gz"] for p in index["parts"])[:32]
        assert all(
            r["overall"] is None
            for r in rows
            if any(r["agent"] == p["agent"] for p in index["parts"] if p["jsonl_gz"] in first)
        )
    return {"root": out, "index": index, "rows": rows}


def run_python(block: str, root: Path, monkeypatch) -> dict:
    monkeypatch.chdir(root)
    namespace: dict = {}
    exec(compile(block, "docs/data.md", "exec"), namespace)
    return namespace


def same(x, y) -> bool:
    if isinstance(x, float) and math.isnan(x):
        return y is None
    return x == y


def test_pandas_reads_one_row_per_run(site, monkeypatch):
    language, block = BLOCKS["pandas"]
    assert language == "python"
    runs = run_python(block, site["root"], monkeypatch)["runs"]
    assert list(runs.columns) == site["index"]["columns"]
    assert len(runs) == site["index"]["runs"] == runs["run_id"].nunique()
    for column in SCORES:
        assert str(runs[column].dtype) == "float64", column
    by_id = {r["run_id"]: r for r in site["rows"]}
    for row in runs.to_dict("records"):
        want = by_id[row["run_id"]]
        for column in ("agent", "agent_name", "mission", "version", "kind", "older", *SCORES):
            assert same(row[column], want[column]), (column, row[column], want[column])
        assert list(row["models_reported"] or []) == want["models_reported"]


def test_duckdb_reads_one_row_per_run(site):
    duckdb = pytest.importorskip("duckdb")
    language, block = BLOCKS["DuckDB"]
    assert language == "sql"
    source = re.search(r" FROM (read_json_auto\(.*?\)) ", block).group(1)  # the block's table of every run
    connection = duckdb.connect()
    cwd = os.getcwd()
    os.chdir(site["root"])
    try:
        counted = connection.sql(block).fetchall()
        typed = {row[0]: row[1] for row in connection.sql(f"DESCRIBE SELECT * FROM {source}").fetchall()}
        zz = connection.sql(f"SELECT run_id, overall, judge_upper, models_reported FROM {source}").fetchall()
    finally:
        os.chdir(cwd)
    assert list(typed) == site["index"]["columns"]
    want = Counter((r["agent_name"], r["kind"]) for r in site["rows"])
    assert counted == sorted((name, kind, n) for (name, kind), n in want.items())
    for column in SCORES:
        assert typed[column] == "DOUBLE", (column, typed[column])
    by_id = {r["run_id"]: r for r in site["rows"]}
    for rid, overall, judge_upper, models in zz:
        assert (overall, judge_upper) == (by_id[rid]["overall"], by_id[rid]["judge_upper"]), rid
        assert list(models or []) == by_id[rid]["models_reported"], rid


def test_jq_reads_one_object_per_run(site):
    if shutil.which("jq") is None or shutil.which("zcat") is None:
        if os.environ.get("PODIUM_REQUIRE_JQ") == "1":
            pytest.fail("jq (or zcat) is missing and PODIUM_REQUIRE_JQ=1", pytrace=False)
        pytest.skip("jq is not installed (Debian's jq; .ci/run installs it)")
    language, block = BLOCKS["jq"]
    assert language == "sh"
    result = subprocess.run(["bash", "-c", block], cwd=site["root"], capture_output=True, text=True, check=True)
    got = [kit.strict_json(line, sorted_keys=False) for line in result.stdout.splitlines()]
    want = [
        {"run_id": r["run_id"], "agent_name": r["agent_name"], "overall": r["overall"]}
        for r in site["rows"]
        if r["kind"] == "timed_out"
    ]
    assert want  # the block really selects something on this site
    assert sorted(got, key=lambda r: r["run_id"]) == sorted(want, key=lambda r: r["run_id"])


def test_the_standard_library_reads_one_row_per_run(site, monkeypatch):
    language, block = BLOCKS["standard library"]
    assert language == "python"
    runs = run_python(block, site["root"], monkeypatch)["runs"]
    assert sorted(runs, key=lambda r: r["run_id"]) == sorted(site["rows"], key=lambda r: r["run_id"])
    assert all(list(r) == site["index"]["columns"] for r in runs)
