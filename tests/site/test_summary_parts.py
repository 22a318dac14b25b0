"""summary.json in parts (issue 33 item 4): an index bounded per agent, a part per agent and per mission version.

summary.json held every agent's figures on every mission version and every mission version's agents: 10 MB
(10,415,329 bytes) at 150 agents × 40 missions (30,000 runs of ``scripts/make_export.py --agents 150
--missions 40``). podium.summary/2 (render/summary_parts.py) is an index of a small constant per agent and
mission version (553,487 bytes there) and parts each growing with one dimension (the largest 52,832 bytes).
What is checked here:

- at 150 agents × 40 missions × 2 versions with every list of names full, the index stays under 1 MiB, grows by
  a constant per agent and by nothing per mission an agent runs, and the largest part stays far under it;
- the index and its parts, put together by brute force, hold exactly every figure the whole summary held;
- every file validates against its $defs of summary.schema.json;
- a previous summary read back: in parts (a site, or the action's download), whole (podium.summary/1, a site
  published before: read as it always was), and in parts with parts missing, foreign or hostile (a warning, and
  those agents' runs per mission version left out of the change report, never a path made of their slugs);
- hostile names make part file names through routes' slugs only.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
import sitekit
from click.testing import CliRunner
from exportkit import ExportDir, graded, run_id

from podium import routes
from podium.build import build_site
from podium.commands.cli import main
from podium.config import Config
from podium.count import bundle, diff
from podium.count.summarize import summarize
from podium.load.export import load_export
from podium.load.previous import previous_fingerprint
from podium.load.published import SUMMARY_SCHEMA, SUMMARY_WHOLE_SCHEMA
from podium.model import AgentMission, MissionAgent
from podium.plan import summary as plan_summary
from podium.render import data, summary_parts
from podium.write.hosts import HOSTS, Meter

MAIN = Path(__file__).resolve().parents[2]
MiB = 1024 * 1024
SCHEMA = json.loads((MAIN / "generator" / "podium" / "summary.schema.json").read_bytes())
HOSTILE = [*sitekit.PATHS, sitekit.XSS, "...", "con"]


def _as(kind: str) -> jsonschema.Draft202012Validator:
    """A validator for one kind of file ($defs: Index, AgentPart, MissionPart)."""
    return jsonschema.Draft202012Validator(
        {**{k: v for k, v in SCHEMA.items() if k != "oneOf"}, **SCHEMA["$defs"][kind]}
    )


def small_export(root: Path, one_more: bool = False) -> ExportDir:
    """Agents of hostile names on two missions, one with an older version (both scopes), 6 runs each on m1;
    ``one_more``: and one more run of "plain" on m1, the newest."""
    export = ExportDir(root)
    n = 80_000
    for k, name in enumerate(["plain", *HOSTILE]):
        for d in range(6):
            n += 1
            export.run(
                graded(run_id(n), det=0.9 - k / 20 - d / 100, judge=0.5), rid=run_id(n), agent=name, mission="m1"
            )
        n += 1
        export.run(
            graded(run_id(n), det=0.5, judge=0.5, mission_version="0.9.0", models_reported=[f"model-{k}"]),
            rid=run_id(n),
            agent=name,
            mission="m2",
            version="0.9.0",
        )
        if k % 2:
            n += 1
            export.run(graded(run_id(n), det=0.4, judge=0.5), rid=run_id(n), agent=name, mission="m2")
    # "elder" ran an older version only: ranked last on nothing, its part's current detail without a mission
    export.run(
        graded(run_id(89_998), mission_version="0.9.0"),
        rid=run_id(89_998),
        agent="elder",
        mission="m2",
        version="0.9.0",
    )
    if one_more:
        export.run(graded(run_id(89_999), det=0.5, judge=0.5), rid=run_id(89_999), agent="plain", mission="m1")
    return export.sidecars()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("summary-parts")
    export = small_export(root / "export")
    out = sitekit.build(export.root, root / "site")
    return {
        "export": export.root,
        "out": out,
        "files": sitekit.site_files(out),
        "board": summarize(load_export(export.root)),
    }


# ------------------------------------------------------------------ what the files hold


def _brute_force_whole(files: dict[str, bytes]) -> dict:
    """The whole summary from the index and its parts, put together here without render/summary_parts.py."""
    index = sitekit.strict_json(files[routes.SUMMARY_JSON])
    whole = json.loads(json.dumps(index))
    whole["schema"] = SUMMARY_WHOLE_SCHEMA
    for scope, key in (("agents", "current"), ("agents_older", "older")):
        for entry in whole[scope]:
            part = sitekit.strict_json(files[entry.pop("part")])
            assert (part["agent"], part["name"], part["slug"], part["url"]) == tuple(
                entry[k] for k in ("agent", "name", "slug", "url")
            )
            detail = part[key]
            assert entry["missions"] == len(detail["missions"])  # the index keeps each list's length
            if "coverage" in detail:
                assert entry["coverage"] == {
                    "missions": len(detail["coverage"]["missions"]),
                    "of": detail["coverage"]["of"],
                }
            entry.update(detail)
    for entry in whole["missions"]:
        part = sitekit.strict_json(files[entry.pop("part")])
        assert (part["mission"], part["version"], part["url"]) == (entry["mission"], entry["version"], entry["url"])
        assert entry["agents"] == len(part["agents"])
        entry["agents"] = part["agents"]
    return whole


def test_index_and_parts_hold_every_figure_of_the_whole_summary(built):
    whole = json.loads(data.dump_json(data.summary_data(built["board"])))
    assert _brute_force_whole(built["files"]) == whole == sitekit.whole_summary(built["files"])
    assert whole["agents_older"] and any(a["coverage"]["missions"] for a in whole["agents"])  # both scopes, coverage
    (elder,) = [a for a in whole["agents_older"] if a["name"] == "elder"]
    part = sitekit.strict_json(built["files"][routes.summary_agent_data_path(elder["slug"])])
    assert part["current"]["missions"] == [] and len(part["older"]["missions"]) == 1


def test_each_agent_and_mission_version_has_one_part_and_each_file_validates(built):
    files = built["files"]
    index = sitekit.strict_json(files[routes.SUMMARY_JSON])
    assert index["schema"] == SUMMARY_SCHEMA
    _as("Index").validate(index)
    agents = {e["agent"]: e["part"] for scope in ("agents", "agents_older") for e in index[scope]}
    missions = [e["part"] for e in index["missions"]]
    parts = sorted(p for p in files if p.startswith(routes.SUMMARY_PARTS + "/"))
    assert sorted({*agents.values(), *missions}) == parts and len(set(agents.values())) == len(agents)
    for path in parts:
        kind = "MissionPart" if path.startswith(routes.SUMMARY_PARTS + "/missions/") else "AgentPart"
        _as(kind).validate(sitekit.strict_json(files[path]))
        jsonschema.Draft202012Validator(SCHEMA).validate(sitekit.strict_json(files[path]))  # the file's oneOf, too
    with pytest.raises(jsonschema.ValidationError):  # a part is not an index, nor an index a part
        _as("Index").validate(sitekit.strict_json(files[parts[0]]))


def test_hostile_names_make_part_names_through_slugs(built):
    index = sitekit.strict_json(built["files"][routes.SUMMARY_JSON])
    named = {e["name"]: e for e in index["agents"]}
    assert set(HOSTILE) <= set(named)
    for name in HOSTILE:
        entry = named[name]
        assert entry["part"] == routes.summary_agent_data_path(entry["slug"])
        assert entry["part"].startswith("api/results/summary/agents/") and entry["part"].count("/") == 4
    assert named["con"]["slug"].startswith("con-x-") and named["CON"]["slug"].startswith("con-x-")  # no device name


def test_the_host_budget_counts_the_parts(built):
    meter = Meter(HOSTS["none"])
    list(meter.watch(built["files"].items()))
    files, size = meter.sections["api/results/summary"]
    parts = [p for p in built["files"] if p.startswith(routes.SUMMARY_PARTS + "/")]
    assert files == len(parts) and size == sum(len(built["files"][p]) for p in parts)


# ------------------------------------------------------------------ bounds, on a synthetic board


NAME = "n" * 200  # the longest name podium keeps (count/model_names.py caps lists at 10 such names)


def synthetic_board(board, agents: int, missions: int):
    """``board`` (a real one) grown to ``agents`` ranked agents on ``missions`` missions of 2 versions (each agent on
    every one of them, older ones included), every list of names full of the longest names."""
    names = tuple(f"{NAME[:-3]}{i:03d}" for i in range(10))
    full = {"judge_models": names, "models_reported": names, "models_declared": names}
    template = board.agents[0]
    figures = dataclasses.replace(template.figures, **full)
    cells = tuple(
        AgentMission(
            mission=f"mission-{j:03d}",
            version=version,
            current=version == "2.0.0",
            url=f"missions/mission-{j:03d}/{version}/index.html",
            figures=figures,
        )
        for j in range(missions)
        for version in ("2.0.0", "1.0.0")
    )
    grown = [
        dataclasses.replace(
            template,
            agent=f"agent-{i:04d}",
            name=f"agent {i:04d}",
            slug=f"agent-{i:04d}",
            url=f"agents/agent-{i:04d}/index.html",
            rank=i + 1,
            figures=figures,
            missions=cells,
            coverage=dataclasses.replace(
                template.coverage, missions=tuple(f"mission-{j:03d}" for j in range(missions))
            ),
            reported_models=names,
            reported_models_more=5,
        )
        for i in range(agents)
    ]
    mission = board.missions[0]
    listed = tuple(MissionAgent(a.agent, a.name, a.url, 0.5, 6, 6, False) for a in grown)
    versions = [
        dataclasses.replace(
            mission,
            mission=f"mission-{j:03d}",
            version=v,
            url=f"missions/mission-{j:03d}/{v}/index.html",
            agents=listed,
        )
        for j in range(missions)
        for v in ("2.0.0", "1.0.0")
    ]
    progress = {a.agent: board.progress[template.agent] for a in grown}
    return dataclasses.replace(board, agents=grown, agents_older=[], missions=versions, progress=progress, by_model=[])


def _sizes(board) -> tuple[int, int]:
    """The index's bytes and the largest part's."""
    index = len(data.dump_json(summary_parts.summary_index(board)))
    largest = 0
    for entry in plan_summary.data_files(board):
        if entry.kind == "summary_agent":
            value = summary_parts.agent_part(board, entry.part, entry.older)
        else:
            value = summary_parts.mission_part(board, entry.part)
        largest = max(largest, len(data.dump_json(value)))
    return index, largest


def test_the_index_is_bounded_per_agent_at_150_agents_on_40_missions(built):
    board = built["board"]
    at_150, largest = _sizes(synthetic_board(board, 150, 40))
    whole = len(data.dump_json(data.summary_data(synthetic_board(board, 150, 40))))
    assert whole > 20 * MiB  # what summary.json was, every list of names full
    assert at_150 < 1 * MiB and largest < 1 * MiB, (at_150, largest)
    # a constant per agent (under 2.5 kB, its progress headline included), and nothing per mission version it runs
    at_300, _ = _sizes(synthetic_board(board, 300, 40))
    assert at_300 - at_150 < 150 * 2500, at_300 - at_150
    more_missions, _ = _sizes(synthetic_board(board, 150, 80))
    assert more_missions - at_150 < 80 * 2500, more_missions - at_150  # the 80 more mission versions' own entries


# ------------------------------------------------------------------ reading a previous summary back


def test_a_parted_summary_reads_back_as_the_board_it_was_written_for(built):
    read = bundle.load_bundle(built["out"])
    assert read.warnings == ()
    assert read == dataclasses.replace(bundle.bundle_of(built["board"]), source=read.source)


def test_an_old_whole_summary_still_reads_and_compares(built, tmp_path):
    """A site published before the parts: its summary.json is podium.summary/1, the whole; read as it always was."""
    old = tmp_path / "summary.json"
    old.write_bytes(data.dump_json(data.summary_data(built["board"])))
    assert json.loads(old.read_bytes())["schema"] == SUMMARY_WHOLE_SCHEMA
    read_old, read_new = bundle.load_bundle(old), bundle.load_bundle(built["out"])
    assert read_old.warnings == () and dataclasses.replace(read_old, source="") == dataclasses.replace(
        read_new, source=""
    )
    assert diff.compare(read_old, read_new)["changed"] is False
    # the demo site's summary.json as published before issue 33 (podium.summary/1), against the demo site now
    demo_old = MAIN / "tests" / "data" / "summary-v1-demo.json"
    result = CliRunner().invoke(main, ["diff", str(demo_old), str(MAIN / "tests" / "golden" / "demo-site")])
    assert result.exit_code == 0, result.output
    assert "No change since the previous summary." in result.stdout and "warning" not in result.stderr


def _previous_with(tmp_path: Path, out: Path, change) -> Path:
    site = tmp_path / "previous"
    shutil.copytree(out, site)
    change(site / routes.SUMMARY_PARTS / "agents")
    return site


def _build(export: Path, out: Path, previous: Path):
    """A build with ``--previous``: its output folder and its warnings."""
    built = build_site(Config(source="", root=out.parent, out=out), export, previous=previous)
    return out, built.warnings


def _one_more_run(tmp_path: Path) -> Path:
    """The same export with one more run of "plain" on m1: a change report with one row of new runs."""
    return small_export(tmp_path / "export", one_more=True).root


@pytest.mark.parametrize(
    "change",
    [
        lambda parts: (parts / "plain.json").unlink(),
        lambda parts: (parts / "plain.json").write_text(
            '{"schema": "podium.summary-agent/1", "agent": "someone else"}'
        ),
        lambda parts: (parts / "plain.json").write_text("not json"),
    ],
    ids=["missing", "foreign", "broken"],
)
def test_a_part_not_read_is_said_and_its_rows_left_out(built, tmp_path, change):
    previous = _previous_with(tmp_path, built["out"], change)
    read = bundle.load_bundle(previous)
    (warning,) = read.warnings
    assert "1 agent part(s) of this summary could not be read" in warning and "plain" in warning
    cells = {a.name: a.cells for a in read.agents.values()}
    assert cells.pop("plain") is None and all(c is not None for c in cells.values())
    # a build with it as --previous: the warning, the change report without plain's rows of new runs
    new, warnings = _build(_one_more_run(tmp_path), tmp_path / "new", previous)
    assert any("could not be read" in w and "plain" in w for w in warnings), warnings
    report = json.loads((new / routes.CHANGES_JSON).read_bytes())["reports"][0]["report"]
    assert report["totals"]["runs"] == 1 and report["new_runs"] == []
    whole, warnings = _build(_one_more_run(tmp_path / "again"), tmp_path / "new2", built["out"])
    assert not any("could not be read" in w for w in warnings), warnings
    rows = json.loads((whole / routes.CHANGES_JSON).read_bytes())["reports"][0]["report"]["new_runs"]
    assert [(r["name"], r["mission"], r["new_runs"]) for r in rows] == [("plain", "m1", 1)]
    # podium diff says it on stderr
    result = CliRunner().invoke(main, ["diff", str(previous), str(new)])
    assert result.exit_code == 0 and "podium diff: warning:" in result.stderr and "plain" in result.stderr


def test_a_hostile_slug_in_a_previous_index_names_no_file(built, tmp_path):
    previous = tmp_path / "previous"
    shutil.copytree(built["out"], previous)
    summary = previous / routes.SUMMARY_JSON
    index = json.loads(summary.read_bytes())
    index["agents"][0]["slug"] = "../../../../../outside"  # tmp_path/outside.json
    summary.write_bytes(data.dump_json(index))
    (tmp_path / "outside.json").write_bytes((previous / index["agents"][0]["part"]).read_bytes())
    read = bundle.load_bundle(previous)
    (warning,) = read.warnings
    assert "is not one podium makes" in warning and read.agents[index["agents"][0]["agent"]].cells is None


def test_the_summary_alone_reads_with_a_warning(built, tmp_path):
    """A summary.json in parts copied without its parts (the CI recipes fetch it alone): read, with a warning."""
    alone = tmp_path / "summary.json"
    shutil.copy(built["out"] / routes.SUMMARY_JSON, alone)
    read = bundle.load_bundle(alone)
    (warning,) = read.warnings
    agents = len(read.agents) + len([a for a in read.older if a not in read.agents])
    assert f"{agents} agent part(s)" in warning and all(a.cells is None for a in read.agents.values())


def test_the_jq_lines_of_docs_data_md_read_the_index_and_the_parts(built):
    """docs/data.md's summary section: its jq lines give the ranking from the index and every agent's figures
    per mission version from the parts, as the whole summary holds them."""
    if shutil.which("jq") is None:
        if os.environ.get("PODIUM_REQUIRE_JQ") == "1":
            pytest.fail("jq is missing and PODIUM_REQUIRE_JQ=1", pytrace=False)
        pytest.skip("jq is not installed (Debian's jq; .ci/run installs it)")
    text = (MAIN / "docs" / "data.md").read_text(encoding="utf-8")
    section = text.split("## `summary.json`, in parts", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```sh\n(.*?)```", section, re.S)
    ranking, per_mission = [line for line in block.splitlines() if line and not line.startswith("#")]
    whole = sitekit.whole_summary(built["files"])

    def lines(command: str) -> list[dict]:
        done = subprocess.run(["bash", "-c", command], cwd=built["out"], capture_output=True, text=True, check=True)
        return [json.loads(line) for line in done.stdout.splitlines()]

    keys = ("rank", "name", "median", "median_ci", "in_median")
    assert lines(ranking) == [{k: a[k] for k in keys} for a in whole["agents"]]
    want = [
        {"agent": a["agent"], "mission": m["mission"], "version": m["version"], "median": m["median"]}
        for a in whole["agents"]
        for m in a["missions"]
    ]
    assert lines(per_mission) == want and want


def test_the_previous_fingerprint_covers_the_agents_parts(built, tmp_path):
    """A whole build is reused only when the previous publish it read is the same (cache/store.py): its agents'
    parts included, which the change report reads."""
    previous = _previous_with(tmp_path, built["out"], lambda parts: None)
    before = previous_fingerprint(previous)
    assert previous_fingerprint(previous / routes.SUMMARY_JSON) == before  # the summary or its site: the same files
    part = previous / routes.SUMMARY_PARTS / "agents" / "plain.json"
    part.write_bytes(part.read_bytes().replace(b'"runs": 6', b'"runs": 7', 1))
    assert previous_fingerprint(previous) != before
    part.unlink()
    assert previous_fingerprint(previous) not in (before, None)
