"""The ledger's view of one agent is keyed by its slug, not its name (issue 29 item 9).

Two agents may have one display name (agents.json names them; the ids differ). Each gets its own
slug (routes.unique_slugs), and everything that links to or loads "this agent's runs" uses it: the
agent page's ledger links, the ledger page's agent choices, ledger.js and each part's script, so the
two never share a view. The browser half is tests/test_browser.py::test_two_agents_of_one_name_*.
"""

from __future__ import annotations

import dataclasses
import json
import re
from urllib.parse import unquote

import pytest
import sitekit
from exportkit import TWIN, run_id, twins

from podium.count import ledger
from podium.model import RunRecord


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("twins")
    out = sitekit.build(twins(root / "export").root, root / "site")
    return sitekit.site_files(out)


def script_value(data: bytes, call: str):
    text = data.decode("ascii")
    assert text.startswith(call + "(") and text.endswith(");\n")
    return json.loads(text[len(call) + 1 : -3])


def fragment_agent(href: str) -> str | None:
    found = re.search(r"#(?:.*&)?agent=([^&]*)", href)
    return unquote(found.group(1)) if found else None


def test_two_agents_of_one_name_link_to_two_views(built):
    summary = sitekit.strict_json(built["api/results/summary.json"])
    twins_ = [a for a in summary["agents"] if a["name"] == TWIN]
    assert len(twins_) == 2 and twins_[0]["slug"] != twins_[1]["slug"]
    index = script_value(built["api/results/ledger.js"], "podiumLedger.index")
    parts = [dict(zip(index["columns"], p)) for p in index["parts"]]
    for agent in twins_:
        page = built[agent["url"]].decode("utf-8")
        linked = {fragment_agent(href) for href in re.findall(r'href="([^"]*runs/index\.html#[^"]*)"', page)}
        assert linked == {agent["slug"]}, (agent["slug"], linked)  # every ledger link names this agent only
        # the view's key selects exactly this agent's parts, and their rows are this agent's runs
        own = [p for p in parts if p["slug"] == agent["slug"]]
        assert own and all(p["agent"] == TWIN for p in own)
        rows = []
        for part in own:
            data = script_value(built[part["script"]], "podiumLedger.part")
            assert data["slug"] == agent["slug"]
            rows += data["rows"]
        assert len(rows) == agent["runs"]
        ledger_rows = {r["run_id"]: r for r in sitekit.ledger_rows(built)}
        assert {ledger_rows[row[0]]["agent"] for row in rows} == {agent["agent"]}


def test_the_ledger_page_offers_each_agent_once_by_its_slug(built):
    html = built["runs/index.html"].decode("utf-8")
    select = re.search(r'<select name="agent">(.*?)</select>', html, re.S).group(1)
    options = re.findall(r'<option value="([^"]*)">([^<]*)</option>', select)
    index = script_value(built["api/results/ledger.js"], "podiumLedger.index")
    slugs = sorted({dict(zip(index["columns"], p))["slug"] for p in index["parts"]})
    assert sorted(value for value, _ in options if value) == slugs  # every agent of the ledger, once
    labels = {value: label for value, label in options}
    twins_ = [value for value, label in options if label.startswith(TWIN)]
    assert len(twins_) == 3  # the two with pages and the one whose run was cancelled
    assert all(labels[v] == f"{TWIN} ({v})" for v in twins_)  # told apart by their slugs
    assert labels["osprey"] == "osprey"  # a name no other agent has is shown alone


def test_an_agent_without_a_page_gets_a_slug_no_page_has():
    """The ledger's slugs are the pages' where there is a page; the others are made unique against them."""
    pages = {"a1": "kestrel-1a2b3c", "a2": "kestrel", "a3": "osprey"}
    names = {"a1": "kestrel", "a2": "kestrel", "a3": "osprey", "a4": "kestrel", "a5": "Osprey", "a6": "merlin"}
    slugs = ledger.ledger_agent_slugs(names, pages)
    assert {k: slugs[k] for k in pages} == pages
    assert len(set(slugs.values())) == len(names)
    assert slugs["a6"] == "merlin" and slugs["a4"].startswith("kestrel-") and slugs["a5"].startswith("osprey-")


def test_parts_carry_their_agents_page_slug():
    blank = dict.fromkeys(f.name for f in dataclasses.fields(RunRecord))
    runs = [
        RunRecord(
            **{
                **blank,
                "run_id": run_id(n),
                "directory": run_id(n)[:8],
                "agent": f"id{n % 2}",
                "agent_name": "twin",
                "mission": "m1",
                "version": "1.0.0",
                "kind": "graded",
                "models_reported": (),
                "exposed": (),
            }
        )
        for n in range(4)
    ]
    layout = ledger.layout(runs, {"id0": "twin-aaaaaa", "id1": "twin-bbbbbb"})
    assert sorted(p.agent_slug for p in layout.parts) == ["twin-aaaaaa", "twin-bbbbbb"]
    assert sorted(p.paths["script"].split("/")[3] for p in layout.parts) == ["twin-aaaaaa", "twin-bbbbbb"]
