"""The home page says where and how clearly each median was earned (issue 36 items 1 and 2): each card names
the missions its median covers ("on 1 of 2 missions: m1"), a grid gives each agent's median on each current
mission version (runs in it, provisional under 6, blank where it never ran), and summary.json carries the same."""

from __future__ import annotations

import json

import sitekit as kit
from exportkit import graded, run_id


def _export(export):
    n = 0

    def add(agent, mission, values):
        nonlocal n
        for x in values:
            n += 1
            rid = run_id(f"home{n}")
            export.run(graded(rid, det=x, judge=x), rid=rid, agent=agent, mission=mission, version="1.0.0")

    add("easy", "m1", [0.875, 0.9375, 1.0, 0.9375, 0.875, 1.0])  # only the easy mission: ranked first
    add("both", "m1", [0.75, 0.8125, 0.875, 0.75, 0.8125, 0.875])
    add("both", "m2", [0.25, 0.3125])  # two runs on the hard one: provisional there
    export.sidecars()
    return export.root


def _cells(row):
    return [" ".join(td.text().split()) for td in row.iter("td")]


def test_cards_name_their_missions_and_the_grid_places_every_median(export, tmp_path):
    files = kit.site_files(kit.build(_export(export), tmp_path / "site", root=tmp_path))
    home = kit.parse_html(files["index.html"].decode())
    lines = [" ".join(p.text().split()) for p in home.all("p") if p.get("class") == "coverage-line"]
    assert lines == ["on 1 of 2 missions: m1", "on 2 of 2 missions: m1, m2"]
    (grid,) = [t for t in home.all("table") if t.get("class") == "grid"]
    heads = [" ".join(th.text().split()) for th in grid.iter("th") if th.get("scope") == "col"]
    assert heads == ["Agent", "m1 1.0.0", "m2 1.0.0"]
    rows = [tr for tr in grid.iter("tr") if any(th.get("scope") == "row" for th in tr.iter("th"))]
    assert _cells(rows[0]) == ["93.8% 6 runs", ""]  # easy never ran m2: a blank cell
    assert _cells(rows[1]) == ["81.2% 6 runs", "28.1% 2 runs, provisional"]  # 81.25 and 28.125 round half to even
    blank = list(rows[0].iter("td"))[1]
    assert "blank" in blank.get("class").split()
    summary = json.loads(files["api/results/summary.json"])
    both = next(a for a in summary["agents"] if a["name"] == "both")
    assert both["coverage"] == {"missions": ["m1", "m2"], "of": 2}
    assert [m["provisional"] for m in both["missions"]] == [False, True]
