"""The head-to-head and by-model outputs: pages, compare.json and its schema, summary.json's by_model, the CLI.

One small export is built into a site once; its design (runs by hand):

- m1: osprey HIGH, harrier LOW               -> "osprey ahead"
- m2: osprey and harrier 6 x 0.5 each       -> "overlapping: not evidence of a difference";
      harrier is judged by another model here  -> judge_models_differ names "m2 1.0.0"
- m3: 3 runs each                           -> "too few runs: fewer than 6 on a side"
- m4: osprey LOW, harrier HIGH              -> "harrier ahead" (the lower-ranked agent)
- osprey reports two models on m1           -> model_changed names osprey
- kestrel on m1: 4 graded, 2 timed out, 3 no judge -> against osprey: timeout_gap (2/6 vs 0)
      and no_judge_gap (3/9 vs 0), each sentence naming kestrel
"""

from __future__ import annotations

import json
import re
from itertools import count
from pathlib import Path

import jsonschema
import pytest
import sitekit as kit
from click.testing import CliRunner
from exportkit import ExportDir, agent_id, graded, run_id

from podium.commands.cli import main
from podium.words.compare_text import OVERLAP, TOO_FEW

MAIN = Path(__file__).resolve().parents[2]
COMPARE = "api/results/compare.json"
COMPARE_SCHEMA = "api/results/compare.schema.json"
HIGH = [0.75, 0.8125, 0.875, 0.875, 0.9375, 1.0]
LOW = [0.25, 0.3125, 0.375, 0.5, 0.5, 0.625]
_ids = count(50_000)


def add(export, agent, mission, values, models_reported=("model-x",), **kw):
    for x in values:
        kw["models_reported"] = models_reported
        n = next(_ids)
        export.run(graded(run_id(n), det=x, judge=x, **kw), rid=run_id(n), agent=agent, mission=mission)


def design(root: Path) -> ExportDir:
    export = ExportDir(root)
    add(export, "osprey", "m1", HIGH[:3], models_reported=["model-x"])
    add(export, "osprey", "m1", HIGH[3:], models_reported=["model-y"])
    add(export, "harrier", "m1", LOW)
    add(export, "osprey", "m2", [0.5] * 6)
    add(export, "harrier", "m2", [0.5] * 6, judge_model="judge-2")
    add(export, "osprey", "m3", [0.75] * 3)
    add(export, "harrier", "m3", [0.25] * 3)
    add(export, "osprey", "m4", LOW)
    add(export, "harrier", "m4", HIGH)
    add(export, "kestrel", "m1", [0.5] * 4)
    add(export, "kestrel", "m1", [0.25, 0.25], partial_trigger="timeout")
    for _ in range(3):
        n = next(_ids)
        export.run(
            graded(run_id(n), det=0.5, judge=0.0, judge_status="unavailable", judge_model=None),
            rid=run_id(n),
            agent="kestrel",
            mission="m1",
        )
    return export.sidecars()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("cmp")
    export = design(root / "export")
    out = kit.build(export.root, root / "site")
    files = kit.site_files(out)
    return {"export": export.root, "files": files, "pages": kit.pages(files)}


def main_text(html: str) -> str:
    doc = kit.parse_html(html)
    (main_el,) = list(doc.root.iter("main"))
    return re.sub(r"\s+", " ", main_el.text())


def compare_json(built) -> dict:
    return kit.strict_json(built["files"][COMPARE])


def pair_entry(built, a, b) -> dict:
    """A pair with a page in full: its file, which the index names (its ``detail``), without the schema."""
    found = [p for p in compare_json(built)["pairs"] if (p["a_name"], p["b_name"]) == (a, b)]
    assert len(found) == 1
    entry = kit.strict_json(built["files"][found[0]["detail"]])
    assert entry.pop("schema") == "podium.compare-pair/1"
    assert {k: v for k, v in entry.items() if k != "versions"} == {k: v for k, v in found[0].items() if k != "detail"}
    return entry


# ------------------------------------------------------------------ the data files


def test_compare_json_validates_against_the_shipped_schema(built):
    schema = kit.strict_json(built["files"][COMPARE_SCHEMA])
    assert built["files"][COMPARE_SCHEMA] == (MAIN / "generator" / "podium" / "compare.schema.json").read_bytes()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    data = compare_json(built)
    validator.validate(data)
    assert data["schema"] == "podium.compare/2"
    assert [(p["a_name"], p["b_name"]) for p in data["pairs"]] == [
        ("osprey", "harrier"),
        ("osprey", "kestrel"),
        ("harrier", "kestrel"),
    ]
    parts = [path for path in built["files"] if path.startswith("api/results/compare/")]
    assert sorted(parts) == sorted([a["part"] for a in data["agents"]] + [p["detail"] for p in data["pairs"]])
    for path in parts:
        validator.validate(kit.strict_json(built["files"][path]))


def test_compare_schema_rejects_a_broken_entry(built):
    validator = jsonschema.Draft202012Validator(kit.strict_json(built["files"][COMPARE_SCHEMA]))
    detail = compare_json(built)["pairs"][0]["detail"]
    data = kit.strict_json(built["files"][detail])
    data["versions"][0]["verdict"] = "ahead"
    assert not validator.is_valid(data)
    data = compare_json(built)
    del data["pairs"][0]["flags"]["timeout_gap"]
    assert not validator.is_valid(data)
    data = compare_json(built)
    data["pairs"][0]["versions"] = []  # the index holds no versions
    assert not validator.is_valid(data)


def test_compare_json_entry_by_hand(built):
    pair = pair_entry(built, "osprey", "harrier")
    assert [(v["mission"], v["verdict"]) for v in pair["versions"]] == [
        ("m1", "a_ahead"),
        ("m2", "overlap"),
        ("m3", "too_few"),
        ("m4", "b_ahead"),
    ]
    assert pair["verdicts"] == {"a_ahead": 1, "b_ahead": 1, "overlap": 1, "too_few": 1}
    # superiority per version: 1, 0.5 (all ties), 1, 0  -> mean 0.625
    assert [v["superiority"] for v in pair["versions"]] == [1.0, 0.5, 1.0, 0.0]
    assert pair["superiority"] == 0.625
    # median diffs: 0.4375, 0, 0.5, -0.4375  -> median of four = (0 + 0.4375) / 2
    assert pair["median_diff"] == 0.21875
    assert pair["flags"] == {
        "judge_models_differ": ["m2 1.0.0"],
        "model_changed": [agent_id("osprey")],
        "no_judge_gap": False,
        "timeout_gap": False,
        "configuration_changed": [],
    }
    assert pair["head_to_head"] == "a"  # 0.625: osprey's runs beat kestrel's more often than not
    kestrel = pair_entry(built, "osprey", "kestrel")
    assert kestrel["flags"]["no_judge_gap"] is True and kestrel["flags"]["timeout_gap"] is True
    assert (kestrel["no_judge_share_b"], kestrel["timeout_share_b"]) == (round(3 / 9, 12), round(2 / 6, 12))


def test_summary_by_model_validates_and_is_ranked(built):
    summary = kit.strict_json(built["files"]["api/results/summary.json"])
    schema = kit.strict_json(built["files"]["api/results/summary.schema.json"])
    jsonschema.Draft202012Validator(schema).validate(summary)
    assert [m["rank"] for m in summary["by_model"]] == list(range(1, len(summary["by_model"]) + 1))
    keys = {m["model"]: m for m in summary["by_model"]}
    assert set(keys) == {"model-x", "model-y", "model-a (declared)"}
    assert keys["model-x"]["agents"] == ["harrier", "kestrel", "osprey"]
    assert keys["model-a (declared)"]["agents"] == ["kestrel"]  # its no-judge runs reported no model
    bad = json.loads(json.dumps(summary))
    del bad["by_model"][0]["agents"]
    assert not jsonschema.Draft202012Validator(schema).is_valid(bad)


# ------------------------------------------------------------------ pages


def test_pair_page_says_each_verdict_in_words(built):
    path = "compare/harrier/osprey/index.html"  # slugs in sorted order, whatever the ranking
    html = built["pages"][path]
    text = main_text(html)
    headings = [
        re.sub(r"\s+", " ", h.text()).strip()
        for h in kit.parse_html(html).root.iter("h2")
        if h.parent.get("class") == "pair-version"
    ]
    assert headings == ["m1 1.0.0 osprey ahead", f"m2 1.0.0 {OVERLAP}", f"m3 1.0.0 {TOO_FEW}", "m4 1.0.0 harrier ahead"]
    assert OVERLAP == "overlapping: not evidence of a difference"
    assert TOO_FEW == "too few runs: fewer than 6 on a side"
    assert "a run of osprey beats a run of harrier 62.5% of the time (ties count half)" in text
    assert "1 osprey ahead · 1 harrier ahead · 1 overlapping · 1 too few runs" in text


def test_pair_page_raises_each_trap_as_a_sentence(built):
    text = main_text(built["pages"]["compare/harrier/osprey/index.html"])
    assert "Judge models differ on m2 1.0.0: the judge halves of osprey and harrier may not compare there." in text
    assert "osprey's runs on the shared versions ran 2 models (model-x and model-y): its scores mix models." in text
    assert "timed out" not in text and "want of a judge" not in text  # not raised on this pair
    text = main_text(built["pages"]["compare/kestrel/osprey/index.html"])
    assert (
        "kestrel has 33.3% of its runs on the shared versions left out for want of a judge, against 0.0% for osprey"
    ) in text
    assert "33.3% of kestrel's runs in the median timed out, against 0.0% of osprey's" in text
    assert "Judge models differ" not in text


def test_pair_page_draws_both_intervals_on_one_axis(built):
    html = built["pages"]["compare/harrier/osprey/index.html"]
    svgs = [kit.parse_svg(s) for s in kit.inline_svgs(html) if 'class="intervals"' in s]
    assert len(svgs) == 4  # one per shared version
    ns = "{http://www.w3.org/2000/svg}"
    first = svgs[0]
    assert first.get("role") == "img"
    title = first.find("title") if first.find("title") is not None else first.find(f"{ns}title")
    desc = first.find("desc") if first.find("desc") is not None else first.find(f"{ns}desc")
    assert title.text == "Medians and 95% intervals on m1 1.0.0"
    assert desc.text == (
        "osprey: median 87.5%, 95% CI 75.0%–100.0%, 6 runs in the median. "
        "harrier: median 43.8%, 95% CI 25.0%–62.5%, 6 runs in the median."
    )
    # the numbers are also text, in the side-by-side table
    assert '<th scope="row">95% CI</th><td class="num">75.0%–100.0%</td><td class="num">25.0%–62.5%</td>' in html
    assert "none (n &lt; 6)" in html  # m3


# What each element of the interval chart covers, in SVG units (compare.css: 9 px and 11 px monospace
# text, whose glyphs advance 0.6 em; median circles r=4 with a 1.5 stroke; interval lines 3 wide).
def _anchors() -> dict[str, str]:
    """text-anchor of each interval-chart text class, as the theme's compare.css sets it."""
    css = (MAIN / "themes/default/static/compare.css").read_text(encoding="utf-8")
    out = {}
    for cls in ("no-ci", "name", "tick"):
        rule = re.search(rf"\.intervals \.{cls} \{{([^}}]*)\}}", css)
        anchor = re.search(r"text-anchor:\s*(\w+)", rule.group(1)) if rule else None
        out[cls] = anchor.group(1) if anchor else "start"
    return out


def _chart_boxes(svg) -> tuple[list, list]:
    """(text boxes, mark boxes) of one rendered interval chart: (x0, y0, x1, y1, what)."""
    ns = "{http://www.w3.org/2000/svg}"
    texts, marks = [], []
    sizes = {"no-ci": 9.0, "name": 11.0, "tick": 9.0}
    anchors = _anchors()
    for el in svg.iter():
        tag, cls = el.tag.removeprefix(ns), el.get("class", "").split(" ")[0]  # "name side-a": name
        if tag == "text":
            size = sizes[cls]
            x, y, width = float(el.get("x")), float(el.get("y")), len(el.text) * 0.6 * size
            left = {"start": x, "middle": x - width / 2, "end": x - width}[anchors[cls]]
            texts.append((left, y - 0.8 * size, left + width, y + 0.25 * size, f"{cls} {el.text!r}"))
        elif tag == "circle":
            cx, cy, reach = float(el.get("cx")), float(el.get("cy")), float(el.get("r")) + 0.75
            marks.append((cx - reach, cy - reach, cx + reach, cy + reach, "median"))
        elif tag == "line":
            x1, x2, y1, y2 = (float(el.get(k)) for k in ("x1", "x2", "y1", "y2"))
            half = {"ci": 1.5, "ci-end": 0.75}.get(cls, 0.5)
            marks.append((min(x1, x2) - half, min(y1, y2) - half, max(x1, x2) + half, max(y1, y2) + half, cls))
        elif tag == "path":  # the grid, an interval's ends: straight segments "M x y V y2" / "M x y H x2"
            half = {"ci": 1.5, "ci-end": 0.75}.get(cls, 0.5)
            for x, y, axis, to in re.findall(r"M([-\d.]+) ([-\d.]+)([VH])([-\d.]+)", el.get("d")):
                x1, y1 = float(x), float(y)
                x2, y2 = (x1, float(to)) if axis == "V" else (float(to), y1)
                marks.append((min(x1, x2) - half, min(y1, y2) - half, max(x1, x2) + half, max(y1, y2) + half, cls))
            assert re.fullmatch(r"(M[-\d.]+ [-\d.]+[VH][-\d.]+)+", el.get("d")), el.get("d")
    return texts, marks


def _overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_no_text_is_drawn_over_a_mark_of_the_interval_chart(tmp_path):
    """Issue 17.3: "no CI" once sat over a median near 100%. Every label box (no CI, names, ticks)
    against every mark box (medians, intervals, their ends, grid and axis), medians from 0 to 100%."""
    from podium.model import PairVersion
    from podium.plan.compare_charts import intervals
    from podium.render.templates import builtin_themes, make_environment, theme_chain

    env = make_environment(theme_chain("default", [builtin_themes()]))
    macro = env.get_template("svg/intervals.svg").module.intervals_svg
    cases, notes = [], 0
    for median in (0.0, 0.01, 0.5, 0.9, 0.97, 0.99, 1.0):
        for ci in (None, (max(0.0, median - 0.1), min(1.0, median + 0.1)), (median, 1.0)):
            cases.append((median, ci))
    for median_a, ci_a in cases:
        for median_b, ci_b in [(1.0, None), (0.99, None), (0.0, (0.0, 1.0))]:
            v = PairVersion(
                mission="m",
                version="1",
                url=None,
                n_a=6,
                n_b=3,
                median_a=median_a,
                median_b=median_b,
                median_ci_a=ci_a,
                median_ci_b=ci_b,
                median_diff=median_a - median_b,
                median_deterministic_a=None,
                median_deterministic_b=None,
                median_judge_a=None,
                median_judge_b=None,
                judge_models_a=(),
                judge_models_b=(),
                superiority=0.5,
                verdict="too_few",
            )
            chart = intervals(v, "A" * 40, "Søren Recon")
            svg = kit.parse_svg(str(macro(chart, "t")))
            texts, marks = _chart_boxes(svg)
            notes += sum("no CI" in t[4] for t in texts)
            for text in texts:
                assert 0 <= text[0] and text[2] <= chart.width, text  # inside the chart
                for mark in marks:
                    if mark[4] in ("grid", "axis") and text[4].startswith("tick"):
                        continue  # a tick label under its own grid line, below the axis: not a mark
                    assert not _overlaps(text, mark), (median_a, ci_a, median_b, ci_b, text, mark)
    assert notes > len(cases)  # "no CI" was drawn, beside medians from 0 to 100%


def test_the_pair_page_keeps_no_ci_off_a_median_near_100(tmp_path):
    """The case of the real export: one side without an interval and its median near 100%."""
    export = ExportDir(tmp_path / "export")
    add(export, "merlin", "heap", [0.5] * 6)
    add(export, "soren", "heap", [0.975, 0.99])  # 2 runs: no interval, median 98.25%
    export.sidecars()
    out = kit.build(export.root, tmp_path / "site")
    html = next(p.read_text(encoding="utf-8") for p in (out / "compare").glob("*/*/index.html"))
    (svg,) = [kit.parse_svg(s) for s in kit.inline_svgs(html) if 'class="intervals"' in s]
    texts, marks = _chart_boxes(svg)
    (note,) = [t for t in texts if t[4] == "no-ci 'no CI'"]
    assert not [m for m in marks if _overlaps(note, m)]


def test_compare_index_matrix_links_every_pair(built):
    html = built["pages"]["compare/index.html"]
    doc = kit.parse_html(html)
    links = {a.get("href") for a in doc.root.iter("a")}
    for target in ("harrier/osprey/index.html", "kestrel/osprey/index.html", "harrier/kestrel/index.html"):
        assert f"../compare/{target}" in links
    text = main_text(html)
    assert "62.5% 1 ahead 1 behind 1 overlap 1 too few" in text
    assert "100.0% 1 ahead " in text  # osprey vs kestrel: only the non-zero counts
    assert "All 3 ranked agents are in the matrix; 3 pairs share a mission version." in text


def test_agent_and_mission_pages_link_to_the_pairs(built):
    doc = kit.parse_html(built["pages"]["agents/osprey/index.html"])
    assert {"../../compare/harrier/osprey/index.html", "../../compare/kestrel/osprey/index.html"} <= {
        a.get("href") for a in doc.root.iter("a")
    }
    html = built["pages"]["missions/m2/1.0.0/index.html"]
    assert 'href="../../../compare/harrier/osprey/index.html#v-m2-1-0-0"' in html
    assert 'id="v-m2-1-0-0"' in built["pages"]["compare/harrier/osprey/index.html"]


def test_models_pages(built):
    text = main_text(built["pages"]["models/index.html"])
    assert "model-a (declared)" in text and "run by" in text
    assert "models/model-x/index.html" in built["files"] or "models/model-x/index.html" in built["pages"]
    page = main_text(built["pages"]["models/model-a-declared/index.html"])
    assert "Agents behind this model" in page and "kestrel" in page
    assert "3 no judge" in page  # the left-outs are named


def test_nav_and_footer_reach_the_new_pages(built):
    html = built["pages"]["index.html"]
    assert 'href="compare/index.html"' in html and 'href="models/index.html"' in html
    assert 'href="api/results/compare.json"' in html


# ------------------------------------------------------------------ hostile names and long keys


def test_hostile_names_and_model_keys_are_escaped_and_isolated(tmp_path):
    export = ExportDir(tmp_path / "export")
    evil = "<script>alert(1)</script>"
    key = "<img src=x onerror=alert(1)>"
    add(export, evil, "m1", HIGH, models_reported=[key, "gpt-5.5-pro-with-a-very-long-routing-name"])
    add(export, "osprey", "m1", LOW)
    export.sidecars()
    files = kit.site_files(kit.build(export.root, tmp_path / "site"))
    htmls = {p: t for p, t in kit.pages(files).items() if p.startswith(("compare/", "models/"))}
    assert len(htmls) == 5  # compare index, one pair, models index, two model pages
    for path, html in htmls.items():
        doc = kit.parse_html(html)
        assert not any(
            t.tag in ("img", "script")
            and t.get("src") != "../assets/podium.js"
            and not (t.get("src") or "").endswith("assets/podium.js")
            for t in doc.tags
        ), path
        assert "<script>alert" not in html and "<img src=x" not in html, path
    pair_path = next(p for p in htmls if p.count("/") == 3)
    doc = kit.parse_html(htmls[pair_path])
    assert evil in [b.text() for b in doc.root.iter("bdi")]
    models = kit.parse_html(htmls["models/index.html"])
    keys = [b for b in models.root.iter("bdi") if "model-key" in (b.get("class") or "")]
    assert any(key in b.text() for b in keys)
    css = files["assets/compare.css"].decode()
    assert re.search(r"\.model-key \{[^}]*overflow-wrap: anywhere", css)


def test_the_matrix_names_how_many_agents_are_left_out(tmp_path):
    export = ExportDir(tmp_path / "export")
    for k in range(32):
        add(export, f"agent-{k:02d}", "m1", [1.0 - k / 64])
    export.sidecars()
    files = kit.site_files(kit.build(export.root, tmp_path / "site"))
    text = main_text(files["compare/index.html"].decode())
    assert "2 agents ranked below #30 are left out of this matrix (agent-30, agent-31)" in text
    pair_pages = [p for p in files if p.startswith("compare/") and p.count("/") == 3]
    assert len(pair_pages) == 30 * 29 // 2
    data = kit.strict_json(files[COMPARE])
    assert len(data["pairs"]) == 30 * 29 // 2  # the index: the pairs with a page
    parts = {a["name"]: kit.strict_json(files[a["part"]]) for a in data["agents"]}
    everyone = {(p["a"], p["b"]): p for part in parts.values() for p in part["pairs"]}
    # every pair with a page is in the data, and those of the nearest rivals (compare.md §3.1): agent-30 lists
    # agent-20 … agent-29 and agent-31, agent-31 lists agent-21 … agent-30; the others are counted
    assert len(everyone) == 30 * 29 // 2 + 11 + 9
    assert sum(p["url"] is None and p["detail"] is None for p in everyone.values()) == 20
    assert (parts["agent-30"]["pairs_more"], parts["agent-31"]["pairs_more"]) == (20, 21)
    assert all(len(part["pairs"]) + part["pairs_more"] == 31 for part in parts.values())


# ------------------------------------------------------------------ CLI


def podium(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def test_cli_compare_json_is_the_compare_json_entry_in_either_order(built):
    export = built["export"]
    want = pair_entry(built, "osprey", "harrier")
    for a, b in (("osprey", "harrier"), ("harrier", "osprey"), (agent_id("harrier"), "osprey"), ("Harrier", "OSPREY")):
        result = podium("compare", a, b, export, "--json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.output) == want


def test_cli_compare_text(built):
    result = podium("compare", "harrier", "osprey", built["export"])
    assert result.exit_code == 0
    out = result.output
    assert out.startswith("osprey (#1) vs harrier (#2): 4 shared mission versions\n")
    assert "1 osprey ahead · 1 harrier ahead · 1 overlapping · 1 too few runs" in out
    assert f"{OVERLAP}\n" in out and "harrier ahead\n" in out
    assert "! Judge models differ on m2 1.0.0" in out
    assert "! osprey's runs on the shared versions ran 2 models" in out


def test_cli_compare_refuses_no_pair_and_unknown_agents(built, tmp_path):
    export = ExportDir(tmp_path / "export")
    add(export, "osprey", "m1", [0.75])
    add(export, "harrier", "m2", [0.5])
    export.sidecars()
    result = podium("compare", "osprey", "harrier", export.root)
    assert result.exit_code == 2
    assert "share no current mission version" in result.output
    assert podium("compare", "osprey", "nobody", export.root).exit_code == 2
    assert podium("compare", "osprey", "osprey", export.root).exit_code == 2


def test_cli_rank_by_model(built):
    result = podium("rank", "--by", "model", built["export"], "--json")
    assert result.exit_code == 0
    summary = kit.strict_json(built["files"]["api/results/summary.json"])
    assert json.loads(result.output) == summary["by_model"]
    text = podium("rank", "--by", "model", built["export"]).output
    assert text.splitlines()[0].split() == ["rank", "model", "median", "95%", "CI", "mean", "agents", "runs"]
    assert "model-a (declared)" in text
    assert podium("rank", built["export"], "--json").output.startswith("[")  # --by agent stays the default
