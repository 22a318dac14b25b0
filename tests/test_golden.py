"""Golden site: the demo export, built, equals the committed tree file by file.

Regenerate on purpose only: `python -m pytest tests/test_golden.py --update-golden`.
"""

import difflib
import shutil
from pathlib import Path

import pytest

from podium.build import build_site
from podium.config import load_config

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden" / "demo-site"


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def built(tmp_path_factory, request) -> Path:
    out = tmp_path_factory.mktemp("golden") / "site"
    config = load_config(REPO / "podium.yaml", {"out": out})
    build_site(config, config.export)
    if request.config.getoption("--update-golden"):
        shutil.rmtree(GOLDEN, ignore_errors=True)
        shutil.copytree(out, GOLDEN)
    return out


def test_the_demo_site_matches_the_golden_tree(built):
    assert GOLDEN.is_dir(), "no golden tree: run pytest tests/test_golden.py --update-golden"
    got, want = tree(built), tree(GOLDEN)
    assert sorted(got) == sorted(want), "the site's file list changed"
    changed = [path for path in want if got[path] != want[path]]
    if changed:
        path = changed[0]
        diff = difflib.unified_diff(want[path].decode("utf-8", "replace").splitlines(),
                                    got[path].decode("utf-8", "replace").splitlines(),
                                    f"golden/{path}", f"built/{path}", lineterm="", n=2)
        pytest.fail(f"{len(changed)} file(s) differ, first {path}:\n" + "\n".join(list(diff)[:60]))


def test_the_golden_tree_covers_every_page_kind():
    files = set(tree(GOLDEN))
    for path in ("index.html", "missions/index.html", "runs/index.html", "404.html", "about/index.html",
                 "api/results/summary.json", "api/results/runs.json", "api/results/runs.csv",
                 "api/results/summary.schema.json", "api/results/ledger.js", "assets/podium.css",
                 "assets/podium.js"):
        assert path in files, path
    assert any(p.startswith("agents/") for p in files)
    assert any(p.count("/") == 3 and p.startswith("missions/") for p in files)
    assert sum(p.startswith("runs/") and len(p.split("/")[1]) == 32 for p in files) == 150
