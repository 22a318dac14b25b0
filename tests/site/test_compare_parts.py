"""The comparison data in parts, each file bounded (issue 29 item 5).

compare.json held every pair with every shared version: agents² × versions (56 MiB at 150 agents × 40
missions here, 717 MB at 300). podium.compare/2 (render/compare_data.py) is an index (every agent, the
pairs with a page), a part per agent (its pairs, without versions) and a file per pair with a page (in
full); ``podium compare A B --json`` computes any pair in full. What is checked here:

- a pair made in full later (compare.full_pair) is exactly the one the summary step would have made;
- the parts hold every pair, each in both its agents' parts, and the CLI prints a pair without a page
  in full, its figures those of the parts;
- each file stays far under 4 MiB at 300 rivals × 40 shared versions with every flag raised;
- (slow) a 150-agent × 40-mission synthetic export: every comparison file under 4 MiB, far less in all
  than compare.json alone was, and the build's peak memory far below what it was.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from itertools import count
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import pytest
import sitekit as kit
from click.testing import CliRunner
from exportkit import ExportDir, graded, run_id

from podium.commands.cli import main
from podium.count import compare
from podium.count.summarize import summarize
from podium.load.export import load_export
from podium.model import Pair, PairFlags, PairVersion
from podium.render import compare_data

MAIN = Path(__file__).resolve().parents[2]
MiB = 1024 * 1024
_ids = count(70_000)


def add(export, agent, mission, values, **kw):
    for x in values:
        n = next(_ids)
        export.run(graded(run_id(n), det=x, judge=x, **kw), rid=run_id(n), agent=agent, mission=mission)


def many_agents(root: Path) -> ExportDir:
    """33 agents on m1 (6 runs each: intervals), every third also on m2 with another judge: pairs with and
    without a page (the matrix holds the top 30), with every kind of verdict and flag."""
    export = ExportDir(root)
    for k in range(33):
        add(export, f"agent-{k:02d}", "m1", [round(1.0 - k / 40 - d / 100, 4) for d in range(6)])
        if k % 3 == 0:
            add(
                export,
                f"agent-{k:02d}",
                "m2",
                [0.5, 0.25 + k / 100],
                judge_model=f"judge-{k % 2}",
                models_reported=[f"model-{k % 4}"],
            )
    return export.sidecars()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("parts")
    export = many_agents(root / "export")
    out = kit.build(export.root, root / "site")
    return {"export": export.root, "files": kit.site_files(out), "board": summarize(load_export(export.root))}


def test_a_pair_made_in_full_later_is_the_one_the_summary_makes(built):
    board = built["board"]
    paged = [p for p in board.pairs if p.url is not None]
    unpaged = [p for p in board.pairs if p.url is None]
    assert paged and unpaged
    assert all(len(p.versions) == p.shared for p in paged)  # a page's pair keeps its versions…
    assert all(p.versions == () for p in unpaged)  # …no other does: agents² × versions of them
    for pair in paged:
        assert compare.full_pair(board, dataclasses.replace(pair, versions=())) == pair
    for pair in unpaged:
        full = compare.full_pair(board, pair)
        assert len(full.versions) == full.shared and dataclasses.replace(full, versions=()) == pair


def _nearest(board, agent: str) -> set[tuple[str, str]]:
    """compare.md §3.1, by hand: the pairs an agent's part lists (every pair with a page, and the pairs with
    the NEAREST rivals ranked just above it and the NEAREST just below, among those it makes a pair with)."""
    rank = {a.agent: a.rank for a in board.agents}
    mine = [p for p in board.pairs if agent in (p.a, p.b)]
    other = {(p.a, p.b): rank[p.b if p.a == agent else p.a] for p in mine}
    above = sorted((r, k) for k, r in other.items() if r < rank[agent])[-compare.NEAREST :]
    below = sorted((r, k) for k, r in other.items() if r > rank[agent])[: compare.NEAREST]
    return {k for _, k in above + below} | {(p.a, p.b) for p in mine if p.url is not None}


def test_each_agents_part_lists_its_pages_and_nearest_rivals_and_counts_the_rest(built):
    """Issue 34 item 6: an agent's part lists its pairs with a page and with its 10 nearest rivals above and
    below (the rest counted: pairs_more); every pair with a page is in both its agents' parts, alike."""
    files = built["files"]
    index = kit.strict_json(files["api/results/compare.json"])
    board = built["board"]
    assert [a["agent"] for a in index["agents"]] == [a.agent for a in board.agents]  # rank order
    seen: dict[tuple[str, str], list[dict]] = {}
    cut = 0
    for agent in index["agents"]:
        part = kit.strict_json(files[agent["part"]])
        assert (part["agent"], part["slug"], part["rank"]) == (agent["agent"], agent["slug"], agent["rank"])
        assert len(part["pairs"]) + part["pairs_more"] == agent["pairs"]
        assert {(p["a"], p["b"]) for p in part["pairs"]} == _nearest(board, agent["agent"])
        order = [(p.a, p.b) for p in board.pairs]
        assert [(p["a"], p["b"]) for p in part["pairs"]] == [k for k in order if k in _nearest(board, agent["agent"])]
        cut += part["pairs_more"] > 0
        for p in part["pairs"]:
            seen.setdefault((p["a"], p["b"]), []).append(p)
    assert cut  # some parts leave pairs out here (33 agents: most are in 32 pairs)
    assert set(seen) <= {(p.a, p.b) for p in board.pairs}
    assert all(copies[0] == copies[-1] for copies in seen.values())
    shown = [(p["a"], p["b"]) for p in index["pairs"]]
    assert shown == [(p.a, p.b) for p in board.pairs if p.url is not None]
    assert all(len(seen[key]) == 2 and seen[key][0] == p for key, p in zip(shown, index["pairs"]))
    for p in (copies[0] for copies in seen.values()):
        assert (p["detail"] is None) == (p["url"] is None)
        if p["detail"]:
            full = kit.strict_json(files[p["detail"]])
            assert len(full["versions"]) == full["shared"] == p["shared"]
    pages = {path for path in files if path.startswith("compare/") and path.count("/") == 3}
    assert {p["url"] for p in index["pairs"]} == pages


def test_the_parts_grow_with_the_agents_not_their_square(tmp_path):
    """300 one-run agents on one mission made 45 MB of parts (each listed its 299 rivals), 1,400 of them 989 MB.
    Now a part lists at most 29 + 20 pairs: twice the agents, about twice the bytes."""
    from podium.plan import compare as plan

    totals = {}
    for agents in (80, 160):
        export = ExportDir(tmp_path / f"e{agents}")
        for k in range(agents):
            add(export, f"solo-{k:03d}", "m1", [round(1 - k / (2 * agents), 4)])
        board = summarize(load_export(export.sidecars().root))
        files = [f for f in plan.data_files(board) if f.kind == "compare_agent"]
        parts = [compare_data.compare_agent_part(board, board.agents[f.part], list(f.pairs), f.more) for f in files]
        assert len(parts) == agents and max(len(f.pairs) for f in files) <= compare.MATRIX_AGENTS - 1 + 20
        assert all(len(f.pairs) + f.more == agents - 1 for f in files)
        totals[agents] = sum(map(len, parts))
    assert totals[160] < 2.3 * totals[80], totals


def test_the_cli_prints_a_pair_without_a_page_in_full(built):
    files = built["files"]
    index = kit.strict_json(files["api/results/compare.json"])
    last = index["agents"][-1]
    summary = next(p for p in kit.strict_json(files[last["part"]])["pairs"] if p["url"] is None)
    result = CliRunner().invoke(
        main, ["compare", summary["b"], summary["a"], str(built["export"]), "--json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    entry = json.loads(result.output)
    assert {k: v for k, v in entry.items() if k != "versions"} == {k: v for k, v in summary.items() if k != "detail"}
    assert len(entry["versions"]) == entry["shared"] >= 1
    schema = kit.strict_json(files["api/results/compare.schema.json"])
    jsonschema.validate(entry, {**schema, "oneOf": [{"$ref": "#/$defs/Pair"}]})  # the entry in full
    text = CliRunner().invoke(main, ["compare", summary["a"], summary["b"], str(built["export"])]).output
    assert text.count("\n") > entry["shared"]  # a table row per version, as for a pair with a page


# ------------------------------------------------------------------ bounds, at 300 rivals × 40 versions


def _pair(i: int, versions: int, *, with_versions: bool) -> Pair:
    name = "agent-with-a-long-name-" + "x" * 40
    missions = [(f"mission-with-a-long-slug-{m:03d}", "10.20.30") for m in range(versions)]
    judges = tuple(f"judge-model-{k}-" + "j" * 40 for k in range(3))
    vs = tuple(
        PairVersion(
            mission=m,
            version=v,
            url=f"missions/{m}/{v}/index.html",
            n_a=1000,
            n_b=999,
            median_a=0.123456789012345,
            median_b=0.987654321098765,
            median_ci_a=(0.111111111111111, 0.999999999999999),
            median_ci_b=(0.111111111111112, 0.999999999999998),
            median_diff=-0.864197532086420,
            median_deterministic_a=0.333333333333333,
            median_deterministic_b=0.666666666666667,
            median_judge_a=0.142857142857143,
            median_judge_b=0.857142857142857,
            judge_models_a=judges,
            judge_models_b=judges[::-1],
            superiority=0.499999999999999,
            verdict="overlap",
        )
        for m, v in missions
    )
    return Pair(
        a=f"{i:032x}",
        b=f"{i + 1:032x}",
        a_name=name + str(i),
        b_name=name + str(i + 1),
        url=f"compare/{name}{i}/{name}{i + 1}/index.html" if with_versions else None,
        shared=versions,
        superiority=0.499999999999999,
        verdicts={"a_ahead": 13, "b_ahead": 13, "overlap": 13, "too_few": 1},
        median_diff=-0.864197532086420,
        flags=PairFlags(
            judge_models_differ=tuple(f"{m} {v}" for m, v in missions),
            model_changed=(f"{i:032x}", f"{i + 1:032x}"),
            no_judge_gap=True,
            timeout_gap=True,
        ),
        models_a=tuple("model-" + "m" * 60 + str(k) for k in range(3)),
        models_b=tuple("model-" + "n" * 60 + str(k) for k in range(3)),
        no_judge_share_a=0.333333333333333,
        no_judge_share_b=0.666666666666667,
        timeout_share_a=0.142857142857143,
        timeout_share_b=0.857142857142857,
        versions=vs if with_versions else (),
    )


def test_every_file_stays_far_under_4_mib_at_300_rivals_and_40_shared_versions():
    """The worst an agent with 300 rivals on 40 shared versions can be: long names, three models a side,
    every flag raised (judge models differ on every version). Its part lists 300 pairs, 29 with a page."""
    pairs = tuple(_pair(i, 40, with_versions=i < 29) for i in range(300))
    agents = [SimpleNamespace(agent=f"{i:032x}", name=f"agent {i}", slug=f"agent-{i}", rank=i + 1) for i in range(301)]
    board = SimpleNamespace(pairs=pairs, agents=agents)
    part = compare_data.compare_agent_part(board, agents[0], list(range(300)))
    index = compare_data.compare_index(board)
    pair_file = compare_data.compare_pair_file(pairs[0])
    sizes = {"agent part": len(part), "index": len(index), "pair file": len(pair_file)}
    assert all(size < MiB for size in sizes.values()), sizes  # a quarter of the bound, at the least
    assert len(json.loads(part)["pairs"]) == 300 and len(json.loads(pair_file)["versions"]) == 40
    # each grows with one dimension only: twice the rivals, twice the part; versions are in the pair file
    doubled = compare_data.compare_agent_part(
        SimpleNamespace(pairs=pairs * 2, agents=agents), agents[0], list(range(600))
    )
    assert len(doubled) < 2.05 * len(part)


# ------------------------------------------------------------------ 150 agents × 40 missions (slow)


def _peak_build(export: Path, out: Path) -> int:
    """Build in a fresh process (no cache, one job); its own peak resident memory in bytes (VmHWM:
    test_memory_bounds.peak_rss; ru_maxrss would keep the pytest process's high-water mark across exec,
    which in a whole suite is several hundred MB)."""
    from test_memory_bounds import peak_rss

    peak, said = peak_rss("build", export, "--out", out, "--no-cache", "--jobs", "1", "--quiet")
    assert (out / "index.html").is_file(), said
    return peak


@pytest.mark.slow
def test_150_agents_on_40_missions(tmp_path):
    """Before (8a7d1ab) this export's compare.json alone was 56 MiB (58,755,384 bytes) and the build peaked at
    384 MB; now every comparison file is far under 4 MiB, the comparison data under 17 MiB in all (pairs are
    in both their agents' parts), and the build peaks under 200 MB (141 MB measured)."""
    export = tmp_path / "export"
    subprocess.run(
        [
            sys.executable,
            str(MAIN / "scripts" / "make_export.py"),
            str(export),
            "--agents",
            "150",
            "--missions",
            "40",
            "--runs",
            "6000",
        ],
        check=True,
        capture_output=True,
    )
    out = tmp_path / "site"
    peak = _peak_build(export, out)
    files = [
        p for p in (out / "api" / "results").rglob("*") if p.is_file() and "compare" in p.relative_to(out).as_posix()
    ]
    sizes = {p.relative_to(out).as_posix(): p.stat().st_size for p in files}
    index = json.loads((out / "api/results/compare.json").read_text(encoding="utf-8"))
    assert len(index["agents"]) == 150 and len(index["pairs"]) == 435
    assert len([p for p in sizes if p.count("/") == 3]) == 150  # a part per agent
    assert max(sizes.values()) < 1 * MiB, max(sizes.items(), key=lambda item: item[1])
    assert sum(sizes.values()) < 17 * MiB, sum(sizes.values())
    assert peak < 200 * 1024 * 1024, peak
