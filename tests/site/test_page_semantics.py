"""What the pages say, read from the parsed pages (site.md "Pages and permalinks").

Each test builds a small export (tests/exportkit.py), builds the site, parses the
pages (tests/sitekit.py) and reads the one element that carries the behaviour:
a card's median, its left-out line, a warning. Expected numbers are worked out by
hand in the comments (scores are multiples of 1/8 so they print exactly); nothing
is compared with a whole file.

``g(n, x)`` is a graded run whose two halves are both ``x``, so its overall is ``x``.
The run strip is read mark by mark: each column is a link to its run around its hit
area, and each mark a rectangle inside that area, in the path whose classes name the
mark (site.md "The run strip"; one path per mark class keeps a column at three elements).
"""

from __future__ import annotations

import re

import pytest
import sitekit
from exportkit import crash_fallback, env_failure, graded, grading, run_id


def g(n, x, **kw):
    return graded(run_id(n), det=x, judge=x, **kw)


def partial(n, *, det, judge, judge_upper, **kw):
    """A partial-judge run: overall = (det + judge)/2, upper = (det + judge_upper)/2."""
    return graded(
        run_id(n),
        det=det,
        judge=judge,
        judge_status="partial",
        judge_upper=judge_upper,
        overall_upper=0.5 * det + 0.5 * judge_upper,
        **kw,
    )


def no_judge(n, det=0.5, **kw):
    return graded(run_id(n), det=det, judge=0.0, judge_status="model-not-configured", judge_model=None, **kw)


def build_pages(export, tmp_path, **config) -> dict[str, sitekit.Document]:
    export.sidecars()
    out = sitekit.build(export.root, tmp_path / "site", **config)
    return {path: sitekit.parse_html(text) for path, text in sitekit.pages(sitekit.site_files(out)).items()}


def classes(element: sitekit.Element) -> set[str]:
    return set((element.get("class") or "").split())


def with_class(element: sitekit.Element, cls: str, tag: str | None = None) -> list[sitekit.Element]:
    return [e for e in element.iter(tag) if cls in classes(e)]


def one(element: sitekit.Element, cls: str, tag: str | None = None) -> sitekit.Element:
    found = with_class(element, cls, tag)
    assert len(found) == 1, f"expected one .{cls} in <{element.tag}>, found {len(found)}"
    return found[0]


def text(element: sitekit.Element) -> str:
    """The element's shown text, whitespace collapsed."""
    return re.sub(r"\s+", " ", element.text()).strip()


def agent_card(doc: sitekit.Document, slug: str) -> sitekit.Element:
    (card,) = [t for t in doc.all("article") if t.get("id") == f"agent-{slug}"]
    return card


def mission_cards(doc: sitekit.Document) -> dict[str, sitekit.Element]:
    """missions/index.html: card heading text ("m1 1.0.0") -> card."""
    cards = {}
    for article in with_class(doc.root, "plot-card", "article"):
        (h2,) = list(article.iter("h2"))
        cards[text(h2)] = article
    return cards


def warnings(element: sitekit.Element) -> list[str]:
    return [text(w) for w in with_class(element, "warn")]


# ================================================================ multi-judge warning (counting.md §6)


def test_two_judge_models_on_one_version_warn_on_its_card_and_page(export, tmp_path):
    export.run(g(1, 0.5, judge_model="judge-a"), mission="m1")
    export.run(g(2, 0.75, judge_model="judge-b"), mission="m1")
    export.run(g(3, 0.5, judge_model="judge-a"), mission="m2")
    export.run(g(4, 0.75, judge_model="judge-a"), mission="m2")
    site = build_pages(export, tmp_path)

    cards = mission_cards(site["missions/index.html"])
    assert set(cards) == {"m1 1.0.0", "m2 1.0.0"}
    (warning,) = warnings(cards["m1 1.0.0"])
    assert "Judged by 2 models (judge-a, judge-b)" in warning and "may not compare" in warning
    assert warnings(cards["m2 1.0.0"]) == []

    assert len(warnings(site["missions/m1/1.0.0/index.html"].root)) == 1
    assert warnings(site["missions/m2/1.0.0/index.html"].root) == []


def test_a_judge_model_on_a_run_whose_judge_never_ran_does_not_warn(export, tmp_path):
    # judge_models counts runs whose judge ran (ok or partial) only: the no-judge run's model is not a second one.
    export.run(g(1, 0.5, judge_model="judge-a"))
    export.run(partial(2, det=0.5, judge=0.25, judge_upper=0.75, judge_model="judge-a"))
    export.run(graded(run_id(3), det=0.5, judge=0.0, judge_status="unavailable", judge_model="judge-b"))
    site = build_pages(export, tmp_path)
    assert warnings(mission_cards(site["missions/index.html"])["m1 1.0.0"]) == []
    assert warnings(site["missions/m1/1.0.0/index.html"].root) == []


def test_a_partial_judge_by_another_model_warns(export, tmp_path):
    export.run(g(1, 0.5, judge_model="judge-a"))
    export.run(partial(2, det=0.5, judge=0.25, judge_upper=0.75, judge_model="judge-b"))
    site = build_pages(export, tmp_path)
    (warning,) = warnings(mission_cards(site["missions/index.html"])["m1 1.0.0"])
    assert "judge-a, judge-b" in warning


def test_judge_models_on_two_versions_of_a_mission_are_not_mixed(export, tmp_path):
    # Each version has one judge model: neither card warns, though the mission as a whole saw two.
    export.run(g(1, 0.5, judge_model="judge-a", mission_version="1.0.0"), version="1.0.0")
    export.run(g(2, 0.5, judge_model="judge-b", mission_version="2.0.0"), version="2.0.0")
    site = build_pages(export, tmp_path)
    cards = mission_cards(site["missions/index.html"])
    assert set(cards) == {"m1 1.0.0", "m1 2.0.0"}
    assert [warnings(c) for c in cards.values()] == [[], []]


# ================================================================ models-differ flag (agent page)


def models_section(doc: sitekit.Document) -> sitekit.Element:
    (section,) = [s for s in doc.all("section") if "models" in classes(s)]
    return section


@pytest.mark.parametrize(
    "runs, differ",
    [
        pytest.param([("model-a", ["model-a"]), ("model-a", ["model-a"])], False, id="consistent"),
        pytest.param([("model-a", []), ("model-a", [])], False, id="nothing-reported"),
        pytest.param([("model-a", ["model-a"]), ("model-a", ["model-b"])], True, id="one-run-reports-another"),
        # issue 36 item 6: every run reported model-b; only the declared name differs: no model change
        pytest.param([("model-a", ["model-b"]), ("model-a", ["model-b"])], False, id="reported-is-not-declared"),
        pytest.param([("model-b", ["model-b"]), ("model-a", [])], False, id="declared-only-on-a-run-reporting-none"),
        pytest.param([("model-a", ["model-a", "model-b"])], False, id="one-run-reports-two"),  # one run: no change
        pytest.param([("model-a", ["model-a"]), ("model-b", ["model-b"])], True, id="two-declared"),
    ],
)
def test_models_differ_flag_on_the_agent_page(export, tmp_path, runs, differ):
    for n, (declared, reported) in enumerate(runs):
        export.run(g(n, 0.5, model=declared, models_reported=reported), agent="osprey")
    # A second agent whose runs are consistent: the flag is per agent.
    export.run(g(100, 0.5, model="model-z", models_reported=["model-z"]), agent="kestrel")
    site = build_pages(export, tmp_path)

    section = models_section(site["agents/osprey/index.html"])
    flags = warnings(section)
    if differ:
        assert "differ" in classes(section)
        (flag,) = flags
        assert "differ in model" in flag
    else:
        assert "differ" not in classes(section) and flags == []
    shown = {text(c) for c in section.iter("code")}
    assert shown == {d for d, _ in runs} | {m for _, r in runs for m in r}  # the warning names reported ones

    other = models_section(site["agents/kestrel/index.html"])
    assert "differ" not in classes(other) and warnings(other) == []


# ================================================================ the "up to" range


def median_figure(card: sitekit.Element) -> tuple[str, str | None]:
    """(median value, range text or None) of the card's hero figure."""
    figure = one(card, "hero", "div")
    ranges = with_class(figure, "range")
    assert len(ranges) <= 1
    return text(one(figure, "value")), (text(ranges[0]) if ranges else None)


def test_a_partial_judge_in_the_median_shows_the_upper_range(export, tmp_path):
    # osprey: graded 0.5; partial judge det 0.5 judge 0.25..0.75 -> overall 0.375, upper 0.625; graded 0.75.
    # median = median(0.375, 0.5, 0.75) = 0.5; median_upper = median(0.625, 0.5, 0.75) = 0.625.
    export.run(g(1, 0.5), agent="osprey")
    export.run(partial(2, det=0.5, judge=0.25, judge_upper=0.75), agent="osprey")
    export.run(g(3, 0.75), agent="osprey")
    # kestrel: the same lower scores, no partial judge: no range.
    export.run(g(4, 0.5), agent="kestrel")
    export.run(g(5, 0.375), agent="kestrel")
    export.run(g(6, 0.75), agent="kestrel")
    site = build_pages(export, tmp_path)

    index = site["index.html"]
    assert median_figure(agent_card(index, "osprey")) == ("50.0%", "up to 62.5%")
    assert median_figure(agent_card(index, "kestrel")) == ("50.0%", None)
    assert "up to" not in text(agent_card(index, "kestrel"))

    lead = one(site["agents/osprey/index.html"].root, "agent-lead", "section")
    assert median_figure(lead) == ("50.0%", "up to 62.5%")
    table_line = text(one(site["agents/osprey/index.html"].root, "summary-line"))
    assert table_line.startswith("median 50.0% (up to 62.5%)")
    assert "up to" not in text(site["agents/kestrel/index.html"].root)


def test_a_partial_judge_left_out_of_the_median_shows_no_range(export, tmp_path):
    # An older-version partial judge is not in the headline population: no range on the card.
    export.run(g(1, 0.5, mission_version="2.0.0"), version="2.0.0")
    export.run(partial(2, det=0.5, judge=0.25, judge_upper=0.75, mission_version="1.0.0"), version="1.0.0")
    site = build_pages(export, tmp_path)
    assert median_figure(agent_card(site["index.html"], "osprey")) == ("50.0%", None)


def test_a_partial_judge_shows_the_upper_range_on_the_mission_card(export, tmp_path):
    export.run(g(1, 0.5))
    export.run(partial(2, det=0.5, judge=0.25, judge_upper=0.75))
    export.run(g(3, 0.75))
    site = build_pages(export, tmp_path)
    card = mission_cards(site["missions/index.html"])["m1 1.0.0"]
    assert "up to 62.5%" in text(card)


# ================================================================ the left-out line and the older line


def median_line(element: sitekit.Element) -> str:
    return text(one(element, "median-line", "p"))


def test_the_card_line_names_every_kind_left_out_with_its_count(export, tmp_path):
    # site.md's own example: 12 in the median (9 graded, 2 partial judge, 1 timed out), 2 no judge, 1 infra failed.
    for n in range(9):
        export.run(g(n, 0.5))
    export.run(partial(9, det=0.5, judge=0.25, judge_upper=0.75))
    export.run(partial(10, det=0.5, judge=0.25, judge_upper=0.75))
    export.run(g(11, 0.25, partial_trigger="timeout"))
    export.run(no_judge(12))
    export.run(no_judge(13))
    export.run(env_failure(run_id(14)), rid=run_id(14))
    site = build_pages(export, tmp_path)
    expected = "12 of 15 runs in the median · 2 no judge · 1 infra failed"
    assert median_line(agent_card(site["index.html"], "osprey")) == expected
    assert median_line(one(site["agents/osprey/index.html"].root, "agent-lead", "section")) == expected


def test_every_left_out_kind_is_named_and_nothing_else(export, tmp_path):
    export.run(g(1, 0.5))
    export.run(g(2, 0.5, partial_trigger="operator"))  # stopped
    export.run(no_judge(3))  # no judge
    export.run(env_failure(run_id(4), "crashed"), rid=run_id(4))  # infra failed
    export.run(crash_fallback(run_id(5)), rid=run_id(5))  # grading failed
    export.run(crash_fallback(run_id(6)), rid=run_id(6))  # grading failed
    export.run(grading(run_id(7)), rid=run_id(7))  # grading
    export.run(graded(run_id(8), det=0.5, judge=1.5), rid=run_id(8))  # unknown (judge out of range)
    export.run(env_failure(run_id(9), "cancelled"), rid=run_id(9), outcome="cancelled")  # not a run: nowhere
    site = build_pages(export, tmp_path)
    line = median_line(agent_card(site["index.html"], "osprey"))
    assert line == (
        "1 of 8 runs in the median · 1 no judge · 1 stopped · 1 infra failed · 2 grading failed · 1 grading · 1 unknown"
    )


def test_nothing_left_out_means_no_left_out_items(export, tmp_path):
    export.run(g(1, 0.5))
    export.run(g(2, 0.75, partial_trigger="timeout"))
    site = build_pages(export, tmp_path)
    card = agent_card(site["index.html"], "osprey")
    assert median_line(card) == "2 of 2 runs in the median"
    assert with_class(card, "older-line") == []


def test_older_version_runs_have_their_own_marked_line_never_the_headline(export, tmp_path):
    # Current m1 2.0.0: 0.25, 0.5, 0.5 -> median 0.5, 3 of 3 (+1 no judge = 3 of 4).
    # Older m1 1.0.0: three runs at 1.0 -> median 1.0; merged they would make the median 0.75 of 7.
    for n, x in enumerate((0.25, 0.5, 0.5)):
        export.run(g(n, x, mission_version="2.0.0"), version="2.0.0")
    export.run(no_judge(3, mission_version="2.0.0"), version="2.0.0")
    for n in range(4, 7):
        export.run(g(n, 1.0, mission_version="1.0.0"), version="1.0.0")
    site = build_pages(export, tmp_path)

    card = agent_card(site["index.html"], "osprey")
    assert median_figure(card) == ("50.0%", None)
    assert median_line(card) == "3 of 4 runs in the median · 1 no judge"
    older = one(card, "older-line", "p")
    assert text(older) == "older version 3 runs on older mission versions · median 100.0% · summarised apart"
    assert one(older, "older", "span")  # the marked tag
    headline = text(one(site["index.html"].root, "headline", "p"))
    assert "50.0%" in headline and "over 3 runs" in headline and "100.0%" not in headline

    page = site["agents/osprey/index.html"]
    lead = one(page.root, "agent-lead", "section")
    assert median_line(lead) == "3 of 4 runs in the median · 1 no judge"
    assert text(one(lead, "older-line", "p")).startswith(
        "older version 3 runs on older mission versions · median 100.0%"
    )
    # One table per mission version, current first, the older one marked.
    tables = with_class(page.root, "mission-table", "section")
    assert [text(next(t.iter("h2"))) for t in tables] == ["m1 2.0.0", "m1 1.0.0 older version"]
    assert ["is-older" in classes(t) for t in tables] == [False, True]


def test_an_agent_with_only_older_runs_has_an_empty_headline_and_its_older_line(export, tmp_path):
    export.run(g(1, 0.75, mission_version="2.0.0"), agent="osprey", version="2.0.0")
    export.run(g(2, 0.5, mission_version="1.0.0"), agent="kestrel", version="1.0.0")
    site = build_pages(export, tmp_path)
    card = agent_card(site["index.html"], "kestrel")
    assert median_figure(card) == ("—", None)
    assert median_line(card) == "0 of 0 runs in the median"
    assert text(one(card, "older-line", "p")).startswith("older version 1 run on older mission versions · median 50.0%")


# ================================================================ docs/development.md "Decisions": pages the golden tree alone covered


def test_an_agent_with_only_cancelled_runs_has_no_card_and_its_runs_are_greyed_in_the_ledger(export, tmp_path):
    export.run(g(1, 0.5), agent="osprey")
    ghost = export.run(env_failure(run_id(2), "cancelled"), rid=run_id(2), agent="ghost", outcome="cancelled")
    export.run(env_failure(run_id(3), "never_started"), rid=run_id(3), agent="ghost", outcome="never_started")
    site = build_pages(export, tmp_path)

    index = site["index.html"]
    assert [t.get("id") for t in with_class(index.root, "agent-card", "article")] == ["agent-osprey"]
    assert not any(path.startswith("agents/ghost") for path in site)
    totals = text(one(index.root, "totals", "p"))
    assert totals == "1 run evaluated · 1 graded · 2 cancelled or never started, not counted"

    ledger = site["runs/index.html"]
    rows = [tr for tr in ledger.all("tr") if any(c.startswith("k-row-") for c in classes(tr))]
    assert len(rows) == 3
    greyed = [tr for tr in rows if "k-row-not_a_run" in classes(tr)]
    assert sorted(text(next(tr.iter("a"))) for tr in greyed) == sorted([ghost[:8], run_id(3)[:8]])
    assert "3 runs, newest first: 1 counted and 2 cancelled or never started" in text(one(ledger.root, "headline"))
    css = (tmp_path / "site" / "assets" / "podium.css").read_text(encoding="utf-8")
    assert re.search(r"tr\.k-row-not_a_run[^{]*\{[^}]*color:\s*var\(--muted\)", css), "not-a-run rows are not greyed"


def test_ledger_cells_dash_for_no_score_and_no_judge_for_a_judge_that_never_ran(export, tmp_path):
    export.run(g(1, 0.5), rid=run_id(1))
    export.run(no_judge(2, det=0.75), rid=run_id(2))
    export.run(grading(run_id(3)), rid=run_id(3))
    export.run(env_failure(run_id(4)), rid=run_id(4))
    export.run(crash_fallback(run_id(5)), rid=run_id(5))
    export.run(partial(6, det=0.5, judge=0.25, judge_upper=0.75), rid=run_id(6))
    site = build_pages(export, tmp_path)
    cells = {}
    for tr in site["runs/index.html"].all("tr"):
        links = list(tr.iter("a"))
        if links and "k-row-" in (tr.get("class") or ""):
            tds = list(tr.iter("td"))
            cells[text(links[0])] = [text(td) for td in tds[-5:-2]]  # Overall, Checks, Judge (then Tokens, Time)
    assert (
        cells
        == {
            run_id(1)[:8]: ["50.0%", "50.0%", "50.0%"],
            run_id(2)[:8]: ["37.5%*", "75.0%", "No judge"],  # overall 0.5*0.75 = 0.375, marked: no judge
            run_id(3)[:8]: ["—", "—", "—"],
            run_id(4)[:8]: ["—", "—", "—"],
            run_id(5)[:8]: ["—", "—", "—"],
            run_id(6)[:8]: ["37.5–62.5%", "50.0%", "25.0–75.0%"],  # a partial judge reads as its range
        }
    )


def test_caps_are_said_on_the_page(export, tmp_path, monkeypatch):
    """docs/development.md ("Bounded pages"): each cap is said on the page (the card plot draws the newest 200; an agent page lists the
    newest runs of each version, a mission page its newest 20)."""
    from podium.plan import site as plan

    monkeypatch.setattr(plan, "VERSION_RUNS", (3, 3))
    monkeypatch.setattr(plan, "MISSION_RUNS", 3)
    monkeypatch.setattr(plan, "CARD_POINTS", 2)
    for n in range(5):
        export.run(g(n, 0.5))
    site = build_pages(export, tmp_path)
    card = mission_cards(site["missions/index.html"])["m1 1.0.0"]
    assert "The newest 2 of 5 graded runs are drawn." in text(card)
    agent = site["agents/osprey/index.html"]
    (table,) = with_class(agent.root, "mission-table", "section")
    assert len([tr for tr in table.iter("tr") if "k-row-graded" in classes(tr)]) == 3
    assert "2 earlier runs are in the ledger." in text(table)
    assert "2 earlier runs are in the ledger." in text(site["missions/m1/1.0.0/index.html"].root)


# ---------------------------------------------------------------------- the run strip


RECT = re.compile(r"M([-\d.]+) ([-\d.]+)h([-\d.]+)v([-\d.]+)h-?[\d.]+z")


def strip_columns(svg: sitekit.Element) -> dict[str, list[tuple[set[str], float]]]:
    """Run id -> the marks of its column, each (classes, height). A column is a link to its run
    around its hit area; the marks are one path per class, a rectangle per column that has it,
    placed inside the column's hit area."""
    hits = {}
    for link in svg.iter("a"):
        rid = re.search(r"runs/([0-9a-f]{32})/", link.get("href")).group(1)
        (hit,) = [r for r in link.iter("rect") if classes(r) == {"hit"}]
        hits[rid] = (float(hit.get("x")), float(hit.get("x")) + float(hit.get("width")))
    columns: dict[str, list] = {rid: [] for rid in hits}
    for path in svg.iter("path"):
        assert path.parent.get("aria-hidden") == "true"
        for x, _, w, h in RECT.findall(path.get("d")):
            (rid,) = [r for r, (lo, hi) in hits.items() if lo <= float(x) and float(x) + float(w) <= hi]
            columns[rid].append((classes(path), float(h)))
    return columns


def strip_marks(doc: sitekit.Document) -> dict[str, set[str]]:
    """Run id -> the mark classes of its column in the page's first run strip."""
    svg = next(e for e in doc.root.iter("svg") if "strip" in classes(e))
    return {rid: {cls for mark, _ in marks for cls in mark} for rid, marks in strip_columns(svg).items()}


def test_every_kind_has_its_mark_on_the_strip(export, tmp_path):
    export.run(g(1, 0.75))
    export.run(graded(run_id(2), det=0.5, judge=0.5, partial_trigger="timeout"))
    export.run(graded(run_id(3), det=0.5, judge=0.5, partial_trigger="operator"))
    export.run(no_judge(4))
    export.run(partial(5, det=0.5, judge=0.25, judge_upper=0.75))
    export.run(env_failure(run_id(6)))
    export.run(crash_fallback(run_id(7)))
    export.run(grading(run_id(8)))
    export.run(no_judge(9, partial_trigger="timeout"))  # rule 7 before 8: no_judge, still capped
    export.run(partial(10, det=0.5, judge=0.25, judge_upper=0.75, partial_trigger="timeout"))
    marks = strip_marks(build_pages(export, tmp_path)["agents/osprey/index.html"])
    assert marks == {
        run_id(1): {"checks", "judge"},
        run_id(2): {"checks", "judge", "cap"},  # timed out: a red cap on top
        run_id(3): {"checks", "stopped", "judge"},  # stopped: the column in grey
        run_id(4): {"checks", "nojudge"},  # no judge: the judge half as an outline
        run_id(5): {"checks", "judge", "hatch"},  # partial judge: hatching up to its upper bound
        run_id(6): {"slot", "infra"},  # environment failure: a striped empty slot
        run_id(7): {"slot", "pending"},  # grading failed: a dashed empty slot
        run_id(8): {"slot", "pending"},  # still grading: the same
        run_id(9): {"checks", "nojudge", "cap"},
        run_id(10): {"checks", "judge", "hatch", "cap"},
    }


def test_strip_columns_measure_the_two_halves_and_the_median_line(export, tmp_path):
    export.run(graded(run_id(1), det=1.0, judge=0.5))
    export.run(graded(run_id(2), det=0.5, judge=0.0))
    doc = build_pages(export, tmp_path)["agents/osprey/index.html"]
    svg = next(e for e in doc.root.iter("svg") if "strip" in classes(e))
    heights = {rid: {next(iter(mark)): h for mark, h in marks} for rid, marks in strip_columns(svg).items()}
    full = heights[run_id(1)]["checks"]  # 0.5 x 1.0 of the column's height
    assert heights[run_id(1)]["judge"] == pytest.approx(full / 2)  # 0.5 x 0.5
    assert heights[run_id(2)]["checks"] == pytest.approx(full / 2) and heights[run_id(2)]["judge"] == 0
    assert svg.get("role") == "group" and "median" in text(next(svg.iter("desc")))
    medians = [e for e in svg.iter("line") if "median" in classes(e)]
    assert len(medians) == 1  # the median (75% + 25%) / 2 = 50%: half the column's full height
    base = float(next(e for e in svg.iter("line") if "axis" in classes(e)).get("y1"))
    assert base - float(medians[0].get("y1")) == pytest.approx(full)
    for link in svg.iter("a"):
        assert next(link.iter("title")).text().startswith(("75.0%", "25.0%"))  # each column names its run
