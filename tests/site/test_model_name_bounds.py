"""What agent-reported model names can add to the site, bounded (issue 34 item 1).

A run may report 200 model names of 512 characters each, and nothing bounded their sum: every distinct
name or configuration was repeated on the summary, the agent page, the by-model pages, the comparison
parts and the progress file. 130 such runs (a 14 MB export, exportkit.model_flood) made a 70 MB
summary.json (over the 64 MiB podium reads back as ``--previous``), a 26 MB agent page, 5.3 MB models
index, 0.7 MB per model page and an 81 MB progress file. Now a run keeps its first 8 names (the rest
counted, the whole list still telling keys and configurations apart: docs/rules/export.md §3.2), every
list of names a figure or a pair publishes keeps 10 (the rest counted), and pages shorten long names.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sitekit as kit
from exportkit import ExportDir, graded, model_flood, run_id

KB = 1000


def _sizes(site: Path) -> dict[str, int]:
    return {p.relative_to(site).as_posix(): p.stat().st_size for p in site.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def flooded(tmp_path_factory) -> tuple[Path, dict[str, int]]:
    root = tmp_path_factory.mktemp("flood")
    export = model_flood(ExportDir(root / "export"), 130)
    site = kit.build(export.root, root / "site")
    return site, _sizes(site)


# The bounds: what 130 hostile runs may publish. Each is several times what the build writes now (the
# docstring of each test says), and hundreds of times under what it wrote before.


def test_summary_is_bounded(flooded):
    """summary.json: 70 MB before; a run adds at most one by-model key of 8 names (about 4 kB of JSON)."""
    site, sizes = flooded
    assert sizes["api/results/summary.json"] < 1_000 * KB
    summary = json.loads((site / "api/results/summary.json").read_bytes())
    (agent,) = [a for a in summary["agents"] if a["name"] == "flood"]
    assert len(agent["models_reported"]) == 10
    assert agent["models_reported_more"] == 130 * 8 - 10
    assert len(summary["by_model"]) == 131  # every run its own key (each reported another list), and plain's


def test_agent_page_is_bounded(flooded):
    """The agent page: 26 MB before (its configuration band's title joined 130 "since model …" texts)."""
    _, sizes = flooded
    assert sizes["agents/flood/index.html"] < 150 * KB


def test_progress_file_is_bounded(flooded):
    """The progress file: 81 MB before; 130 configurations of at most 8 names each now."""
    _, sizes = flooded
    assert sizes["api/results/progress/flood.json"] < 2_500 * KB


def test_by_model_pages_are_bounded(flooded):
    """The models index: 5.3 MB before; a model page 0.7 MB."""
    _, sizes = flooded
    assert sizes["models/index.html"] < 300 * KB
    model_pages = [size for path, size in sizes.items() if path.startswith("models/") and path != "models/index.html"]
    assert len(model_pages) == 131
    assert max(model_pages) < 80 * KB


def test_compare_parts_are_bounded(flooded):
    """The pair's models_a / models_b lists keep 10 names, the rest counted."""
    site, sizes = flooded
    parts = {path: size for path, size in sizes.items() if path.startswith("api/results/compare")}
    assert parts and max(parts.values()) < 60 * KB
    (pair,) = json.loads((site / "api/results/compare.json").read_bytes())["pairs"]
    flood = "a" if pair["a_name"] == "flood" else "b"
    assert len(pair[f"models_{flood}"]) == 10
    assert pair[f"models_{flood}_more"] == 120


# ------------------------------------------------------------------ what a run keeps, and what it makes


def _board(export):
    from podium.count.summarize import summarize
    from podium.load.export import load_export

    return summarize(load_export(export.sidecars().root))


def _names(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{k:02d}" for k in range(count)]


def test_a_run_keeps_its_first_8_names_and_counts_the_rest(export):
    from podium.load.fields import Fields
    from podium.load.result import MODELS_PER_RUN, read_models

    problems: list = []
    got = read_models({"models_reported": ["", "a", 7, *_names("m", 199), "x" * 600]}, Fields("r.json", problems))
    assert MODELS_PER_RUN == 8
    assert got["models_reported"] == ("a", *_names("m", 7))
    assert got["models_more"] == 193 and len(got["models_digest"]) == 8
    messages = [(p.field, p.message) for p in problems]
    assert ("models_reported[2]", "expected a string, got 7") in messages
    assert ("models_reported", "holds 201 model names; the first 8 are kept and the other 193 counted") in messages
    assert not any("cut to" in m for _, m in messages)  # the long name is past the 8 kept: counted, not reported
    long = read_models({"models_reported": ["y" * 600]}, Fields("r.json", problems))
    assert long == {"models_reported": ("y" * 200 + "…",)}
    assert read_models({"models_reported": _names("m", 8)}, Fields("r.json", [])) == {
        "models_reported": tuple(_names("m", 8))
    }


def test_lists_that_differ_past_the_kept_names_stay_apart(export):
    """Keys and configurations are made from the kept names and a digest of the whole list: two runs whose lists
    differ only in the 9th name are two keys and two configurations; the same list, one (compare.md §2.1,
    progress.md §7 reading 16)."""
    from podium.count.compare import model_key, run_model

    first, other = [*_names("m", 8), "ninth"], [*_names("m", 8), "other"]
    for n, names in enumerate([first, first, other, list(reversed(_names("m", 8)))]):
        export.run(graded(run_id(f"k{n}"), models_reported=names))
    board = _board(export)
    by_run = {r.run_id: r for r in board.runs}
    a, b, c, d = (by_run[run_id(f"k{n}")] for n in range(4))
    assert model_key(a) == model_key(b) != model_key(c)
    assert model_key(a).startswith(" + ".join(_names("m", 8)) + " + 1 more #")
    assert run_model(a) == model_key(a) and len(model_key(a)) < 200
    assert a.configuration == b.configuration != c.configuration
    assert d.configuration.model == " + ".join(_names("m", 8))  # 8 names: sorted, as §1.3 says, no rest
    assert model_key(d) == " + ".join(reversed(_names("m", 8)))
    assert sorted(m.figures.runs for m in board.by_model) == [1, 1, 2]


def test_a_figure_lists_the_10_names_of_the_most_runs(export):
    """counting.md §3.7: at most 10 names, those the most runs name (ties by name), sorted; the rest counted."""
    for n in range(12):
        export.run(graded(run_id(f"f{n}"), models_reported=[f"z-rare-{n:02d}"], model=f"declared-{n:02d}"))
    for n in range(3):
        export.run(graded(run_id(f"g{n}"), models_reported=["a-common"], model="declared-00"))
    (agent,) = _board(export).agents
    fig = agent.figures
    assert fig.models_reported == ("a-common", *[f"z-rare-{n:02d}" for n in range(9)])
    assert fig.models_reported_more == 3
    assert fig.models_declared[0] == "declared-00" and len(fig.models_declared) == 10
    assert fig.models_declared_more == 2


def test_pages_shorten_long_names_and_show_them_whole_on_their_own(export, tmp_path):
    """A name over 64 characters: shortened on the agent page and the models index (start, "…", end), whole on
    its model key's page and its run's page (site.md §9); every cut list says how many it leaves out."""
    from podium.words.names_text import short_name

    name = "provider/" + "very-long-model-name-" * 8 + "2026-01-01"
    export.run(graded(run_id("long"), models_reported=[name]), agent="longname")
    export.run(graded(run_id("long2"), models_reported=[name]), agent="longname")  # listed: 2 runs name it
    for n in range(11):
        export.run(graded(run_id(f"many{n}"), models_reported=[f"model-{n:02d}"]), agent="longname")
    site = kit.build(export.sidecars().root, tmp_path / "site")
    pages = kit.pages(kit.site_files(site))
    shown = short_name(name)
    assert len(shown) == 64 and shown.endswith("2026-01-01") and "…" in shown
    agent_page = pages["agents/longname/index.html"]
    assert name not in agent_page and shown in agent_page and "and 2 more" in agent_page
    assert name not in pages["models/index.html"] and shown in pages["models/index.html"]
    (own,) = [text for path, text in pages.items() if path.startswith("models/") and name in text]
    assert f'<h1><bdi class="model-key">{name}</bdi></h1>' in own
    assert name in pages[f"runs/{run_id('long')}/index.html"]


def test_the_outputs_do_not_grow_with_the_names_a_run_reports(tmp_path):
    """The same 20 runs reporting 100 names each, then 1,600 (a 4 MB result.json; podium read 200 and dropped
    the rest without a word): every output the same size within a few bytes a run (the problems' counts)."""
    sizes = []
    for names in (100, 1_600):
        export = model_flood(ExportDir(tmp_path / f"e{names}"), 20, names=names, length=300)
        sizes.append(_sizes(kit.build(export.root, tmp_path / f"s{names}")))
    small, large = sizes
    assert small.keys() == large.keys()
    for path in ("api/results/summary.json", "agents/flood/index.html", "api/results/progress/flood.json"):
        assert abs(large[path] - small[path]) < 20 * 20, path
