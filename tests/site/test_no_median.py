"""An export with no run in any median (three runs, no judge anywhere): every page says so, none names a leader.

The models page's headline comes from the same Python as the home page's (words/figures_text.py
``home_headline`` and ``models_lead``): before, it was built in the template and read "model-a
leads with a median of — over 0 runs" while the home page said no agent had a run in a median.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sitekit
from exportkit import ExportDir, graded, run_id


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    root = tmp_path_factory.mktemp("no-median")
    export = ExportDir(root / "export")
    for n, agent in enumerate(("osprey", "kestrel", "osprey")):
        export.run(
            graded(run_id(60_000 + n), det=0.5, judge=0.0, judge_status="model-not-configured", judge_model=None),
            agent=agent,
        )
    export.sidecars()
    return sitekit.pages(sitekit.site_files(sitekit.build(export.root, root / "site")))


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def test_home_and_models_pages_say_the_same(pages):
    assert "No agent has a run in a median yet." in text(pages["index.html"])
    models = text(pages["models/index.html"])
    assert "No model has a run in a median yet." in models
    assert "leads with" not in models


@pytest.mark.parametrize("phrase", ["leads with", "median of —", "over 0 runs", "next is"])
def test_no_page_names_a_leader(pages, phrase):
    assert len(pages) > 5
    assert [path for path, html in pages.items() if phrase in text(html)] == []


def test_templates_and_script_state_no_rule():
    """The provisional threshold reaches templates as ``provisional_below`` (model.PROVISIONAL_BELOW); the
    ledger's script is handed a run page's path and the no-judge text (data- attributes), never spells them."""
    theme = Path(__file__).resolve().parents[2] / "themes" / "default"
    for template in (theme / "templates").rglob("*.*"):
        source = re.sub(r"\{#.*?#\}", "", template.read_text(encoding="utf-8"), flags=re.S)
        assert not re.search(r"\b6 runs|than 6\b|n (<|&lt;) 6|\|length", source), template
    script = (theme / "static" / "podium.js").read_text(encoding="utf-8")
    assert '"No judge"' not in script and '"runs/"' not in script
