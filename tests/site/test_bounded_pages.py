"""Bounded pages (site.md "Bounded"), read as a reader without JavaScript reads them.

An agent page or a mission-version page shows its newest runs and reaches every other
run in one link: the ledger filtered by its fragment. The missions index pages its cards;
the home page and the models page list the ranks below their cards as a table. Each test
builds a small export, lowers a limit where that makes the point with few runs, and reads
the built HTML with the DOM oracle of tests/sitekit.py: what is in the file is what a
reader with scripts off gets.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

import pytest
import sitekit as kit
from exportkit import graded, run_id


def no_judge_body(rid: str) -> dict:
    return graded(rid, det=0.5, judge=0.0, judge_status="model-not-configured", judge_model=None)


def build_pages(export, tmp_path, **config) -> dict[str, kit.Document]:
    export.sidecars()
    out = kit.build(export.root, tmp_path / "site", **config)
    return {path: kit.parse_html(text) for path, text in kit.pages(kit.site_files(out)).items()}


def classes(element: kit.Element) -> set[str]:
    return set((element.get("class") or "").split())


def text(element: kit.Element) -> str:
    return re.sub(r"\s+", " ", element.text()).strip()


def run_rows(element: kit.Element) -> list[str]:
    """The run ids of the run rows inside ``element``, in page order."""
    return [tr.get("id").removeprefix("run-") for tr in element.iter("tr") if (tr.get("id") or "").startswith("run-")]


def ledger_filter(href: str) -> dict[str, str]:
    """A link to the ledger filtered by fragment -> its filters, decoded."""
    parts = urlsplit(href)
    assert parts.path.endswith("runs/index.html"), href
    return dict(parse_qsl(parts.fragment, strict_parsing=True))


def sections(doc: kit.Document) -> dict[str, kit.Element]:
    """The agent page's mission-version sections by their heading's text."""
    return {text(next(s.iter("h2"))): s for s in doc.root.iter("section") if "mission-table" in classes(s)}


AGENT = "Osprey/β & co"  # a name whose slug is not the name
AGENT_SLUG = "osprey-co"  # the ledger's view of an agent is keyed by its slug (issue 29: names repeat)


def test_an_agent_page_lists_the_newest_runs_of_each_version_and_links_the_ledger_for_the_rest(export, tmp_path):
    newest_first = {}
    for version, count in (("2.0.0", 14), ("1.0.0", 4)):
        ids = [
            export.run(
                graded(run_id(f"{version}-{n}"), mission_version=version),
                agent=AGENT,
                version=version,
                at=1000 * n + (7 if version == "2.0.0" else 0),
            )
            for n in range(count)
        ]
        newest_first[version] = ids[::-1]
    other = [export.run(graded(run_id(f"m2-{n}")), agent=AGENT, mission="m2", at=500 + 1000 * n) for n in range(13)]
    newest_first["m2"] = other[::-1]
    pages = build_pages(export, tmp_path)
    (path,) = [p for p in pages if p.startswith("agents/")]
    doc = pages[path]

    # Three versions: each lists its newest min(10, 100 // 3) = 10 (plan.AGENT_ROWS, plan.VERSION_RUNS).
    found = sections(doc)
    assert list(found) == ["m1 2.0.0", "m2 1.0.0", "m1 1.0.0 older version"]  # current first, older marked
    assert run_rows(found["m1 2.0.0"]) == newest_first["2.0.0"][:10]
    assert run_rows(found["m2 1.0.0"]) == newest_first["m2"][:10]
    assert run_rows(found["m1 1.0.0 older version"]) == newest_first["1.0.0"]  # all 4: nothing more
    assert "Each mission version below lists its newest 10." in text(doc.root)

    # The rest is one link away: the ledger filtered to the agent on that version.
    for title, version, more in (("m1 2.0.0", ("m1", "2.0.0"), 4), ("m2 1.0.0", ("m2", "1.0.0"), 3)):
        caption = next(found[title].iter("caption"))
        assert text(caption).endswith(f"{more} earlier runs are in the ledger."), text(caption)
        (link,) = list(caption.iter("a"))
        assert ledger_filter(link.get("href")) == {"agent": AGENT_SLUG, "mission": " ".join(version)}
        assert link.get("href").startswith("../../runs/index.html#agent=osprey-co&mission=")
    assert "earlier run" not in text(next(found["m1 1.0.0 older version"].iter("caption")))
    # and every run of the agent, from the top of its runs
    every = [a for a in doc.root.iter("a") if text(a).startswith("Every run of")]
    assert [ledger_filter(a.get("href")) for a in every] == [{"agent": AGENT_SLUG}]

    # The strip draws every run here (fewer than charts.PAGE_SLOTS), each a link with its tooltip.
    strip = next(e for e in doc.root.iter("svg") if "strip" in classes(e))
    links = list(strip.iter("a"))
    assert len(links) == 14 + 13 and all(next(a.iter("title")).text() for a in links)


def test_an_agent_page_with_many_versions_lists_fewer_runs_of_each(export, tmp_path, monkeypatch):
    from podium.plan import site as plan

    monkeypatch.setattr(plan, "AGENT_ROWS", 12)  # 5 versions: 12 // 5 = 2 each
    for m in range(5):
        for n in range(4):
            export.run(graded(run_id(f"{m}-{n}")), mission=f"m{m}", at=100 * n + m)
    doc = build_pages(export, tmp_path)["agents/osprey/index.html"]
    found = sections(doc)
    assert len(found) == 5 and all(len(run_rows(s)) == 2 for s in found.values())
    assert all("2 earlier runs are in the ledger." in text(s) for s in found.values())


def test_a_mission_page_draws_and_lists_its_newest_runs_and_links_the_ledger(export, tmp_path, monkeypatch):
    from podium.plan import charts
    from podium.plan import site as plan

    monkeypatch.setattr(plan, "MISSION_RUNS", 4)
    monkeypatch.setattr(charts, "PLOT_POINTS", 6)
    ids = [export.run(graded(run_id(n)), agent=("osprey", "kestrel")[n % 2], at=10 * n) for n in range(9)]
    ids.append(export.run(no_judge_body(run_id(9)), agent="kestrel", at=95))  # scored: on the no-judge strip
    pages = build_pages(export, tmp_path)
    doc = pages["missions/m1/1.0.0/index.html"]
    newest = ids[::-1]

    plot = next(e for e in doc.root.iter("svg") if "plot" in classes(e))
    drawn = [re.search(r"runs/([0-9a-f]{32})/", a.get("href")).group(1) for a in plot.iter("a")]
    assert sorted(drawn) == sorted(newest[:6])  # the newest 6, a link each
    assert "The newest 6 of 10 graded runs are drawn." in text(doc.root)
    assert "the newest 6 of 10 runs are drawn" in text(next(plot.iter("desc")))

    runs_section = next(s for s in doc.root.iter("section") if "Runs" == text(next(s.iter("h2"))))
    assert run_rows(runs_section) == newest[:4]
    assert "6 earlier runs are in the ledger." in text(runs_section)
    filters = {
        tuple(ledger_filter(a.get("href")).items())
        for a in runs_section.iter("a")
        if "runs/index.html#" in a.get("href")
    }
    assert filters == {(("mission", "m1 1.0.0"),)}


def test_the_missions_index_pages_its_cards_current_versions_first(export, tmp_path, monkeypatch):
    from podium.plan import site as plan

    monkeypatch.setattr(plan, "MISSION_CARDS", 2)
    for m in range(3):
        export.run(graded(run_id(f"{m}-new"), mission_version="2.0.0"), mission=f"m{m}", version="2.0.0")
    for m in range(2):
        export.run(graded(run_id(f"{m}-old"), mission_version="1.0.0"), mission=f"m{m}", version="1.0.0")
    pages = build_pages(export, tmp_path)
    paths = ["missions/index.html", "missions/page/2/index.html", "missions/page/3/index.html"]
    assert {p for p in pages if p.startswith("missions/page/") or p == "missions/index.html"} == set(paths)
    cards = []
    for number, path in enumerate(paths, start=1):
        doc = pages[path]
        here = [text(next(c.iter("h2"))) for c in doc.root.iter("article") if "plot-card" in classes(c)]
        cards += here
        assert len(here) == (2 if number < 3 else 1)
        (pager, _) = [n for n in doc.root.iter("nav") if "pager" in classes(n)]
        (current,) = [e for e in pager.iter() if e.get("aria-current") == "page"]
        assert text(current) == str(number)
        assert [a.get("href") for a in pager.iter("a")] == [kit_rel(path, p) for p in paths if p != path]
        assert f"Mission versions {2 * number - 1}–{min(5, 2 * number)} of 5, page {number} of 3." in text(doc.root)
        for svg in doc.root.iter("svg"):  # a card's plot draws paths, no link per point: an image
            assert svg.get("role") == "img" and not list(svg.iter("a"))
            assert next(svg.iter("title")).text() and next(svg.iter("desc")).text()
    assert cards == ["m0 2.0.0", "m1 2.0.0", "m2 2.0.0", "m0 1.0.0", "m1 1.0.0"]


def kit_rel(from_path: str, to_path: str) -> str:
    return "../" * from_path.count("/") + to_path


def test_the_home_page_shows_the_top_agents_as_cards_and_ranks_the_rest_in_a_table(export, tmp_path, monkeypatch):
    from podium.plan import site as plan

    monkeypatch.setattr(plan, "HOME_CARDS", 2)
    monkeypatch.setattr(plan, "HOME_ROWS", 2)
    for n, name in enumerate(("a1", "a2", "a3", "a4", "a5")):
        for k in range(2):
            export.run(graded(run_id(f"{name}-{k}"), det=1 - n / 8, judge=1 - n / 8), agent=name)
    doc = build_pages(export, tmp_path)["index.html"]
    cards = [c.get("id") for c in doc.root.iter("article") if "agent-card" in classes(c)]
    assert cards == ["agent-a1", "agent-a2"]
    (table,) = [s for s in doc.root.iter("section") if "ranked" in classes(s)]
    rows = [[text(td) for td in tr.iter("td")] for tr in table.iter("tr") if list(tr.iter("td"))]
    assert rows == [
        ["#3 · provisional, 2 runs", "a3", "75.0%", "2 of 2"],
        ["#4 · provisional, 2 runs", "a4", "62.5%", "2 of 2"],
    ]
    assert "1 more agent ranked below #4" in text(table)


@pytest.mark.parametrize("count", [0, 1])
def test_a_small_board_has_no_pager_and_no_rank_table(export, tmp_path, count):
    for n in range(count):
        export.run(graded(run_id(n)))
    pages = build_pages(export, tmp_path)
    assert not [p for p in pages if "/page/" in p and p.startswith("missions/")]
    assert not [n for n in pages["missions/index.html"].root.iter("nav") if "pager" in classes(n)]
    assert not [s for s in pages["index.html"].root.iter("section") if "ranked" in classes(s)]
