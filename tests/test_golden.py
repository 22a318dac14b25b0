"""Golden site: the demo export, built, equals the committed tree file by file.

The tree holds every file except most run pages (one per kind: the smallest run id
of each), most pair pages and most model pages (the first of each, by path), so it
stays small enough to review.
Regenerate on purpose only: `python -m pytest tests/test_golden.py --update-golden`.
"""

import difflib
import gzip
import json
import re
import shutil
from pathlib import Path

import pytest
from sitekit import ledger_rows_at

from podium.build import build_site
from podium.config import load_config

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden" / "demo-site"


RUN_PAGE = re.compile(r"^runs/([0-9a-f]{32})/index\.html$")
SAMPLED = (re.compile(r"^compare/[^/]+/[^/]+/index\.html$"), re.compile(r"^models/[^/]+/index\.html$"))


def golden_runs(root: Path) -> set[str]:
    """One run per kind: the smallest run id of each kind in the site's runs.json."""
    rows = ledger_rows_at(root)
    chosen: dict[str, str] = {}
    for row in sorted(rows, key=lambda r: r["run_id"]):
        chosen.setdefault(row["kind"], row["run_id"])
    return set(chosen.values())


def tree(root: Path) -> dict[str, bytes]:
    keep = golden_runs(root)
    files = {}
    sampled: set[int] = set()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        match = RUN_PAGE.match(rel)
        kind = next((i for i, pattern in enumerate(SAMPLED) if pattern.match(rel)), None)
        if not path.is_file() or (match is not None and match.group(1) not in keep) or kind in sampled:
            continue
        if kind is not None:
            sampled.add(kind)
        files[rel] = path.read_bytes()
    return files


@pytest.fixture(scope="module")
def built(tmp_path_factory, request) -> Path:
    out = tmp_path_factory.mktemp("golden") / "site"
    config = load_config(REPO / "podium.yaml", {"out": out})
    build_site(config, config.export)
    if request.config.getoption("--update-golden"):
        shutil.rmtree(GOLDEN, ignore_errors=True)
        for rel, data in tree(out).items():
            (GOLDEN / rel).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / rel).write_bytes(data)
    return out


def test_the_demo_site_matches_the_golden_tree(built):
    assert GOLDEN.is_dir(), "no golden tree: run pytest tests/test_golden.py --update-golden"
    got, want = tree(built), tree(GOLDEN)
    assert sorted(got) == sorted(want), "the site's file list changed"
    changed = [path for path in want if got[path] != want[path]]
    if changed:
        path = changed[0]

        def text(data: bytes) -> list[str]:  # a .gz part shown gunzipped
            return (gzip.decompress(data) if path.endswith(".gz") else data).decode("utf-8", "replace").splitlines()

        diff = difflib.unified_diff(
            text(want[path]), text(got[path]), f"golden/{path}", f"built/{path}", lineterm="", n=2
        )
        pytest.fail(f"{len(changed)} file(s) differ, first {path}:\n" + "\n".join(list(diff)[:60]))


def test_the_golden_tree_covers_every_page_kind():
    files = tree(GOLDEN)
    for path in (
        "index.html",
        "missions/index.html",
        "runs/index.html",
        "404.html",
        "about/index.html",
        "api/results/summary.json",
        "api/results/runs.json",
        "api/results/runs.schema.json",
        "api/results/summary.schema.json",
        "api/results/ledger.js",
        "assets/podium.css",
        "assets/podium.js",
    ):
        assert path in files, path
    assert any(p.startswith("agents/") for p in files)
    assert any(p.count("/") == 3 and p.startswith("missions/") for p in files)
    assert any(p.startswith("api/results/ledger/") and p.endswith(".csv") for p in files)  # runs.csv's parts
    kinds = {kind for part in json.loads(files["api/results/runs.json"])["parts"] for kind in part["kinds"]}
    assert len(kinds) >= 8
    assert sum(bool(RUN_PAGE.match(p)) for p in files) == len(kinds)


def test_every_run_has_a_page(built):
    rows = ledger_rows_at(built)
    assert len(rows) == 385
    assert all((built / row["url"]).is_file() for row in rows)
