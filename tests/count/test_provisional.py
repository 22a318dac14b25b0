"""site.md "Ranks on few runs": a rank resting on fewer than 6 runs in the median is provisional.

The order stays counting.md §5's; every place that shows such a rank marks it and no headline
calls a provisional agent the leader or the next one without saying so. One small export:

  agent  runs (overall)                 in median  rank  provisional
  tern   1 × 0.9        (model-y)       1          #1    yes  (ranked first on one run)
  kite   6 × 0.5        (model-x)       6          #2    no
  wren   5 × 0.4        (model-x)       5          #3    yes  (one short of an interval)
  gull   1 environment failure          0          #4    yes  (no median: ranked last, on nothing)

By model: model-y (tern's run) #1 provisional, model-x (11 runs) #2 not,
"model-a (declared)" (gull's failed run, no median) #3 provisional.
"""

from __future__ import annotations

import json
import re
from itertools import count
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest
import sitekit as kit
from click.testing import CliRunner
from exportkit import ExportDir, env_failure, graded, run_id

from podium.commands.cli import main
from podium.count.summarize import summarize
from podium.load.export import load_export
from podium.words import figures_text as numbers

_ids = count(70_000)
SUMMARY = "api/results/summary.json"
SCHEMA = "api/results/summary.schema.json"


def add(export, agent, values, models_reported, mission="m1"):
    for x in values:
        n = next(_ids)
        export.run(
            graded(run_id(n), det=x, judge=x, models_reported=models_reported),
            rid=run_id(n),
            agent=agent,
            mission=mission,
        )


def design(root: Path) -> ExportDir:
    export = ExportDir(root)
    add(export, "tern", [0.875], ["model-y"])
    add(export, "kite", [0.5] * 6, ["model-x"])
    add(export, "wren", [0.375] * 5, ["model-x"])
    n = next(_ids)
    export.run(env_failure(run_id(n)), rid=run_id(n), agent="gull", mission="m1")
    return export.sidecars()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("prov")
    export = design(root / "export")
    out = kit.build(export.root, root / "site", base_url="https://example.org/board/")
    files = kit.site_files(out)
    return {"export": export.root, "files": files, "pages": kit.pages(files)}


def text_of(html: str, tag: str = "main") -> str:
    (element,) = list(kit.parse_html(html).root.iter(tag))
    return re.sub(r"\s+", " ", element.text()).strip()


def by_class(html: str, cls: str) -> list[str]:
    doc = kit.parse_html(html)
    return [re.sub(r"\s+", " ", e.text()).strip() for e in doc.tags if cls in (e.get("class") or "").split()]


def description(html: str) -> str:
    return next(t.get("content") for t in kit.parse_html(html).all("meta") if t.get("name") == "description")


# ------------------------------------------------------------------ the summary


def test_summary_marks_provisional_agents_and_model_keys(built):
    summary = kit.strict_json(built["files"][SUMMARY])
    agents = [(a["name"], a["rank"], a["in_median"], a["provisional"]) for a in summary["agents"]]
    # the order is counting.md §5's: the provisional tern stays first
    assert agents == [("tern", 1, 1, True), ("kite", 2, 6, False), ("wren", 3, 5, True), ("gull", 4, 0, True)]
    models = [(m["model"], m["rank"], m["provisional"]) for m in summary["by_model"]]
    assert models == [("model-y", 1, True), ("model-x", 2, False), ("model-a (declared)", 3, True)]
    assert all("provisional" not in a for a in summary["agents_older"])


def test_the_schema_requires_provisional_as_a_boolean(built):
    summary = kit.strict_json(built["files"][SUMMARY])
    schema = json.loads(built["files"][SCHEMA])
    jsonschema.validate(summary, schema)
    for where in ("agents", "by_model"):
        for broken in (None, "yes", 1):
            copy = json.loads(json.dumps(summary))
            if broken is None:
                del copy[where][0]["provisional"]
            else:
                copy[where][0]["provisional"] = broken
            with pytest.raises(jsonschema.ValidationError):
                jsonschema.validate(copy, schema)


def test_provisional_is_computed_once_in_the_summary_step(built):
    board = summarize(load_export(built["export"]))
    assert [(a.name, a.provisional) for a in board.agents] == [
        ("tern", True),
        ("kite", False),
        ("wren", True),
        ("gull", True),
    ]
    assert [(m.model, m.provisional) for m in board.by_model] == [
        ("model-y", True),
        ("model-x", False),
        ("model-a (declared)", True),
    ]
    assert all(a.provisional is None for a in board.agents_older)


# ------------------------------------------------------------------ headlines


def test_headline_says_the_leader_is_provisional(built):
    home = built["pages"]["index.html"]
    (headline,) = by_class(home, "headline")
    expected = (
        "tern leads with a median of 87.5% over 1 run, a provisional rank (fewer than 6 runs in the "
        "median); next is kite at 50.0%."
    )
    assert headline == expected
    assert description(home) == expected


def test_headline_says_the_next_one_is_provisional(tmp_path):
    export = ExportDir(tmp_path / "export")
    add(export, "kite", [0.75] * 6, ["model-x"])
    add(export, "tern", [0.625], ["model-x"])
    export.sidecars()
    board = summarize(load_export(export.root))
    assert numbers.plain(numbers.home_headline(board.agents)) == (
        "kite leads with a median of 75.0% over 6 runs; next is tern at 62.5%, a provisional rank on 1 run."
    )
    out = kit.build(export.root, tmp_path / "site")
    home = (out / "index.html").read_text(encoding="utf-8")
    assert by_class(home, "headline") == [numbers.plain(numbers.home_headline(board.agents))]


def test_headline_with_no_provisional_rank_is_unchanged(tmp_path):
    export = ExportDir(tmp_path / "export")
    add(export, "kite", [0.75] * 6, ["model-x"])
    add(export, "tern", [0.625] * 7, ["model-x"])
    export.sidecars()
    board = summarize(load_export(export.root))
    assert numbers.plain(numbers.home_headline(board.agents)) == (
        "kite leads with a median of 75.0% over 6 runs; next is tern at 62.5%. "
        "A clear lead: its 95% interval lies above that of tern."  # both have an interval: how clear is said
    )
    assert not any(a.provisional for a in board.agents)


# ------------------------------------------------------------------ pages


def test_cards_mark_provisional_ranks(built):
    home = built["pages"]["index.html"]
    assert by_class(home, "rank") == [
        "#1 · provisional, 1 run",
        "#2 · could be #1–#3",  # no agent without an interval is clearly better or worse (docs/rules/counting.md §9)
        "#3 · provisional, 5 runs",
        "#4 · provisional, no median",
    ]


def test_agent_page_marks_its_provisional_rank(built):
    tern = built["pages"]["agents/tern/index.html"]
    (eyebrow,) = by_class(tern, "eyebrow")
    assert eyebrow == "Agents · rank #1 · provisional, 1 run"
    assert by_class(tern, "provisional-line") == [
        "Provisional rank: only 1 run in the median, fewer than the 6 a confidence interval needs, "
        "so rank #1 may move as runs come in."
    ]
    assert description(tern).startswith("tern, rank #1 (provisional, 1 run): median 87.5%")
    kite = built["pages"]["agents/kite/index.html"]
    assert by_class(kite, "eyebrow") == ["Agents · rank #2 · could be #1–#3"]
    assert by_class(kite, "provisional-line") == []
    assert description(kite).startswith("kite, rank #2: median 50.0%")
    # the "Compare with…" links mark the other agent's provisional rank
    (compare,) = [p for p in by_class(kite, "compare-with")]
    assert "tern #1 · provisional" in compare and "wren #3 · provisional" in compare


def test_compare_pages_mark_provisional_ranks(built):
    matrix = built["pages"]["compare/index.html"]
    heads = by_class(matrix, "col-agent") + by_class(matrix, "row-agent")
    assert "#1 · provisional tern" in heads and "#2 kite" in heads and "#3 · provisional wren" in heads
    (headline,) = by_class(matrix, "headline")
    assert "tern's rank #1 is provisional (1 run in the median)." in headline
    pair = built["pages"]["compare/kite/tern/index.html"]
    assert "Ranks overall: tern #1 (provisional, 1 run), kite #2." in text_of(pair)


def test_models_pages_mark_provisional_ranks(built):
    models = built["pages"]["models/index.html"]
    assert by_class(models, "rank") == ["#1 · provisional, 1 run", "#2"]
    # the key with no median (gull's failed run) is folded into one line, not a card (issue 36 item 6)
    (folded,) = by_class(models, "empty-keys")
    assert folded.startswith("1 more model key holds no run in a median") and "model-a (declared)" in folded
    (headline,) = by_class(models, "headline")
    assert (
        "model-y leads with a median of 87.5% over 1 run, a provisional rank (fewer than 6 runs in the "
        "median)." in headline
    )
    model_y = next(
        html
        for path, html in built["pages"].items()
        if path.startswith("models/model-y") and path.endswith("/index.html")
    )
    assert by_class(model_y, "eyebrow") == ["Models · rank #1 · provisional, 1 run"]
    assert len(by_class(model_y, "provisional-line")) == 1
    model_x = next(
        html
        for path, html in built["pages"].items()
        if path.startswith("models/model-x") and path.endswith("/index.html")
    )
    assert by_class(model_x, "eyebrow") == ["Models · rank #2"]


def test_badges_mark_provisional_ranks(built):
    def badge(slug):
        svg = ET.fromstring(built["files"][f"badges/{slug}.svg"])
        ns = "{http://www.w3.org/2000/svg}"
        texts = [t.text for t in svg.iter(f"{ns}text")]
        fills = [r.get("fill") for r in svg.iter(f"{ns}rect")]
        return svg.find(f"{ns}title").text, texts[-1], fills

    title, value, fills = badge("tern")
    assert value == "median 87.5% · #1 provisional"
    assert "rank 1 of 4 (provisional, 1 run: fewer than 6 runs in the median)" in title
    assert "#8a5d00" in fills  # its own tone, not the ranked green
    title, value, fills = badge("kite")
    assert value == "median 50.0% · #2" and "provisional" not in title and "#2b7a4b" in fills
    assert badge("gull")[1] == "no median yet · #4 provisional"


# ------------------------------------------------------------------ the CLI


def podium(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_podium_rank_marks_provisional_ranks(built):
    lines = podium("rank", built["export"]).stdout.splitlines()
    assert [line.split()[:3] for line in lines[1:5]] == [
        ["1", "provisional", "tern"],
        ["2", "kite", "50.0%"],
        ["3", "provisional", "wren"],
        ["4", "provisional", "gull"],
    ]
    assert lines[5] == (
        "provisional: fewer than 6 runs in the median, so no confidence interval; the rank may move as runs come in"
    )
    by_model = podium("rank", built["export"], "--by", "model").stdout.splitlines()
    assert by_model[1].split()[:3] == ["1", "provisional", "model-y"]
    assert by_model[2].split()[:2] == ["2", "model-x"]
    assert json.loads(podium("rank", built["export"], "--json").stdout)[0]["provisional"] is True


def test_podium_compare_marks_provisional_ranks(built):
    first = podium("compare", "tern", "kite", built["export"]).stdout.splitlines()[0]
    assert first.startswith("tern (#1 · provisional, 1 run) vs kite (#2): 1 shared mission version")


def test_no_headline_calls_a_provisional_agent_leader_or_next_unmarked(built):
    """Every sentence of a page that says "leads" or "next is" about a provisional agent also says so."""
    provisional = {a["name"] for a in kit.strict_json(built["files"][SUMMARY])["agents"] if a["provisional"]}
    for path, html in built["pages"].items():
        for sentence in re.split(r"(?<=[.;])\s", text_of(html)):
            for name in provisional:
                if re.search(rf"\b{name} leads\b|next is {name}\b", sentence):
                    assert "provisional" in sentence, (path, sentence)
