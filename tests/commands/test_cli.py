"""The ``podium`` command (docs/usage.md "Commands"): build, rank, check, history, exit codes, safe output."""

from __future__ import annotations

import hashlib
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from exportkit import ExportDir, agent_id, env_failure, graded, run_id

from podium.commands.cli import main

SUMMARY = Path("api/results/summary.json")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    monkeypatch.chdir(tmp_path)  # no podium.yaml of the project leaks in


def podium(*args: str):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def small_export(root: Path) -> ExportDir:
    """osprey: graded 0.9 then 0.5, a no-judge run in between; kestrel: 0.75 and an infra failure."""
    export = ExportDir(root)
    export.run(graded(run_id(1), det=0.9, judge=0.9), rid=run_id(1), agent="osprey", at=0)
    export.run(
        graded(run_id(2), det=1.0, judge=0.0, judge_status="model-not-configured", judge_model=None),
        rid=run_id(2),
        agent="osprey",
        at=60,
    )
    export.run(graded(run_id(3), det=0.5, judge=0.5), rid=run_id(3), agent="osprey", at=120)
    export.run(graded(run_id(4), det=0.75, judge=0.75), rid=run_id(4), agent="kestrel", at=30)
    export.run(env_failure(run_id(5)), rid=run_id(5), agent="kestrel", at=90)
    return export.sidecars()


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(root.rglob("*"))
    }


# ------------------------------------------------------------------ help


@pytest.mark.parametrize(
    "args, words",
    [
        ([], ["build", "rank", "check", "history", "Publish XORCISE run results"]),
        (["build"], ["--out", "--config", "--theme-dir", "--strict", "EXPORT"]),
        (["rank"], ["--json", "EXPORT"]),
        (["check"], ["list every problem", "EXPORT"]),
        (["history"], ["AGENT", "--json", "oldest to newest"]),
    ],
)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_on_every_command(args, words, flag):
    result = podium(*args, flag)
    assert result.exit_code == 0
    assert result.stdout.startswith("Usage: ")
    for word in words:
        assert word in result.stdout


def test_version():
    result = podium("--version")
    assert (result.exit_code, result.stdout) == (0, "podium, version 0.1.0\n")


def test_unknown_command_and_option_exit_2(tmp_path):
    assert podium("publish").exit_code == 2
    assert podium("rank", "--colour").exit_code == 2


# ------------------------------------------------------------------ build


def test_build_reads_export_from_podium_yaml_in_cwd(tmp_path):
    small_export(tmp_path / "data" / "export")
    (tmp_path / "podium.yaml").write_text("title: Mine\nexport: data/export\n")
    result = podium("build")
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "site" / SUMMARY).read_bytes())
    assert summary["totals"]["runs"] == 5
    assert f"to {(tmp_path / 'site').resolve()}" in result.stderr
    *_, wrote, look = result.stderr.splitlines()
    assert wrote.startswith("podium: wrote ")
    index = (tmp_path / "site").resolve() / "index.html"
    assert look == f"podium: open {index} in a browser, or preview the site with `podium serve`"


def test_build_ends_with_where_to_look_and_the_serve_command_that_previews_the_same_site(tmp_path):
    """The last line names the page to open and a `podium serve` command with the build's own exports,
    config and theme directory, quoted so that it runs as printed; a rebuild with nothing changed says it too."""
    small_export(tmp_path / "my runs")
    (tmp_path / "my runs 2").mkdir()
    (tmp_path / "conf.yaml").write_text("title: Mine\n")
    (tmp_path / "over rides").mkdir()
    args = ["build", "my runs", "my runs 2", "--config", "conf.yaml", "--theme-dir", "over rides", "--out", "pub"]
    for _ in range(2):  # a first build, then one where nothing changed
        result = podium(*args)
        assert result.exit_code == 0, result.output
        look = result.stderr.splitlines()[-1]
        index = (tmp_path / "pub").resolve() / "index.html"
        prefix = f"podium: open {index} in a browser, or preview the site with `"
        assert look.startswith(prefix) and look.endswith("`"), look
        command = shlex.split(look[len(prefix) : -1])
        assert command == ["podium", "serve", *args[1:3], *args[3:7]]
        assert index.is_file()
        served = main.commands["serve"].make_context("serve", command[2:])  # podium serve takes it as printed
        assert served.params["export"] == (Path("my runs"), Path("my runs 2"))
        assert (served.params["config_path"], served.params["theme_dir"]) == (Path("conf.yaml"), Path("over rides"))
    assert "nothing changed since the last build" in result.stderr


def test_build_with_explicit_export_and_out(tmp_path):
    export = small_export(tmp_path / "export")
    result = podium("build", export.root, "--out", tmp_path / "public")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "public" / ".podium-site").is_file()
    assert (
        "podium: " + str(export.root) + ": 5 runs (3 graded, 1 no_judge, 1 infra_failed); 0 not a run; "
        "0 problem(s)" in result.stderr
    )


def _break(export: ExportDir) -> None:
    (export.root / run_id(3)[:8] / "result.json").write_bytes(b'{"grade": ')
    body = graded(run_id(4), det=0.75, judge=0.75)
    body["grade"]["overall"] = 1.7
    (export.root / run_id(4)[:8] / "result.json").write_text(json.dumps(body))


PROBLEM_LINES = sorted(
    [  # sorted by path: 4b227777 (run 4) before 4e074085 (run 3)
        f"problem: {run_id(3)[:8]}/result.json: invalid JSON at line 1 column 11: Expecting value",
        f"problem: {run_id(4)[:8]}/result.json: grade.overall: expected a number in [0, 1], got 1.7",
    ]
)


def test_build_strict_with_problems_writes_nothing(tmp_path):
    export = small_export(tmp_path / "export")
    assert podium("build", export.root, "--out", tmp_path / "site").exit_code == 0
    before = snapshot(tmp_path / "site")
    _break(export)
    result = podium("build", export.root, "--out", tmp_path / "site", "--strict")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert [line for line in lines if line.startswith("problem: ")] == PROBLEM_LINES
    assert "2 problem(s)" in result.stderr
    assert lines[-1] == "podium: --strict: problems found; nothing was written"
    assert snapshot(tmp_path / "site") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".podium-cache", "export", "site"]  # no staging litter


def test_build_strict_first_build_creates_nothing(tmp_path):
    export = small_export(tmp_path / "export")
    _break(export)
    result = podium("build", export.root, "--out", tmp_path / "site", "--strict")
    assert result.exit_code == 1
    assert not (tmp_path / "site").exists()


def test_build_without_strict_publishes_problems(tmp_path):
    export = small_export(tmp_path / "export")
    _break(export)
    result = podium("build", export.root, "--out", tmp_path / "site")
    assert result.exit_code == 0
    summary = json.loads((tmp_path / "site" / SUMMARY).read_bytes())
    assert [
        f"problem: {p['path']}: {p['field'] + ': ' if p['field'] else ''}{p['message']}" for p in summary["problems"]
    ] == PROBLEM_LINES
    assert summary["totals"]["counts"]["unknown"] == 2


def test_build_refuses_out_equal_to_export(tmp_path):
    export = small_export(tmp_path / "export")
    before = snapshot(export.root)
    result = podium("build", export.root, "--out", export.root)
    assert result.exit_code == 2  # a refused output directory is a usage error: nothing was written
    assert result.stderr.startswith(f"Error: {export.root}: the output directory may not contain, equal or sit inside")
    assert snapshot(export.root) == before


def test_build_bad_config_exits_2_naming_file_and_line(tmp_path):
    small_export(tmp_path / "export")
    (tmp_path / "podium.yaml").write_text("export: export\ntitle: a\ntitle: b\n")
    result = podium("build")
    assert result.exit_code == 2
    assert result.stderr == "Error: podium.yaml: line 3 column 1: duplicate key 'title'\n"
    assert not (tmp_path / "site").exists()


# ------------------------------------------------------------------ check


def test_check_clean_export(tmp_path):
    export = small_export(tmp_path / "export")
    result = podium("check", export.root)
    assert result.exit_code == 0
    assert "problem:" not in result.stderr
    assert result.stderr.endswith("0 not a run; 0 problem(s)\n")
    assert not (tmp_path / "site").exists()  # check writes nothing


def test_check_with_problems(tmp_path):
    export = small_export(tmp_path / "export")
    _break(export)
    result = podium("check", export.root)
    assert result.exit_code == 1
    assert [line for line in result.stderr.splitlines() if line.startswith("problem: ")] == PROBLEM_LINES
    assert result.stderr.endswith("; 2 problem(s)\n")


def test_check_prints_notes(tmp_path):
    export = small_export(tmp_path / "export")
    (export.root / "__MACOSX").mkdir()
    result = podium("check", export.root)
    assert result.exit_code == 0
    assert "note: ignored '__MACOSX': not a run directory name\n" in result.stderr


# ------------------------------------------------------------------ rank


def test_rank_prose(tmp_path):
    export = small_export(tmp_path / "export")
    result = podium("rank", export.root)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["rank", "agent", "median", "95%", "CI", "mean", "runs"]
    # both rest on fewer than 6 runs in the median: provisional ranks (site.md "Ranks on few runs")
    assert lines[1].split()[:6] == ["1", "provisional", "kestrel", "75.0%", "—", "75.0%"]
    assert lines[1].endswith("1 of 2 runs in the median · 1 infra failed")
    assert lines[2].split()[:6] == ["2", "provisional", "osprey", "70.0%", "—", "70.0%"]
    assert lines[2].endswith("2 of 3 runs in the median · 1 no judge")
    assert lines[3].startswith("provisional: fewer than 6 runs in the median")
    assert len(lines) == 4


def test_rank_json_is_summary_agents(tmp_path):
    export = small_export(tmp_path / "export")
    assert podium("build", export.root, "--out", tmp_path / "site").exit_code == 0
    summary = json.loads((tmp_path / "site" / SUMMARY).read_bytes())
    result = podium("rank", export.root, "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == summary["agents"]
    assert [a["name"] for a in summary["agents"]] == ["kestrel", "osprey"]
    assert result.stderr == ""


def test_rank_empty_export(tmp_path):
    (tmp_path / "export").mkdir()
    result = podium("rank", tmp_path / "export", "--json")
    assert (result.exit_code, result.stdout) == (0, "[]\n")
    result = podium("rank", tmp_path / "export")
    assert result.exit_code == 0
    assert "no finished runs yet" in result.stdout


def test_rank_only_unranked_runs_still_json_list(tmp_path):
    export = ExportDir(tmp_path / "export")
    export.run(env_failure(run_id(1), trigger="cancelled"), rid=run_id(1))
    export.sidecars()
    result = podium("rank", export.root, "--json")
    assert (result.exit_code, result.stdout) == (0, "[]\n")


# ------------------------------------------------------------------ history


@pytest.mark.parametrize("who", ["osprey", "OSPREY", agent_id("osprey"), "osprey-slug"])
def test_history_by_name_id_and_slug(tmp_path, who):
    export = small_export(tmp_path / "export")
    if who == "osprey-slug":
        who = json.loads(podium("rank", export.root, "--json").stdout)[1]["slug"]
        assert who == "osprey"
    result = podium("history", who, export.root)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["date", "run", "mission"]
    rows = lines[1:4]
    assert [row.split()[2] for row in rows] == [run_id(1)[:8], run_id(2)[:8], run_id(3)[:8]]  # oldest first
    assert [row.split()[:2] for row in rows] == [
        ["2026-10-01", "09:20"],
        ["2026-10-01", "10:20"],
        ["2026-10-01", "11:20"],
    ]
    assert rows[0].split()[6:7] == ["90.0%"]
    assert rows[1].split()[6:7] == ["50.0%*"]  # no judge ran
    assert rows[2].split()[6:7] == ["50.0%"]
    assert lines[4].startswith("* no judge ran")
    # then which way it is moving: the run with no judge model configured is a configuration of its own
    assert lines[5:7] == [
        "",
        "Which way it is moving: ≠ not comparable since no judge model: on the checks, … too few runs (1 of the 5 runs needed)",
    ]


def test_history_json(tmp_path):
    export = small_export(tmp_path / "export")
    assert podium("build", export.root, "--out", tmp_path / "site").exit_code == 0
    result = podium("history", "kestrel", export.root, "--json")
    assert result.exit_code == 0
    # the agent's progress file, byte for byte as the site publishes it
    assert result.stdout_bytes == (tmp_path / "site" / "api/results/progress/kestrel.json").read_bytes()
    progress = json.loads(result.stdout)
    assert progress["schema"] == "podium.progress/2" and progress["name"] == "kestrel"
    cells = {(c["mission"], c["version"]): c for c in progress["cells"]}
    assert (
        sum(sum(s["left_out"].values()) for c in cells.values() for s in c["segments"])
        + sum(sum(c["left_out_unplaced"].values()) for c in cells.values())
        == 1
    )  # its infra failure, counted beside


def test_history_unknown_agent(tmp_path):
    export = small_export(tmp_path / "export")
    result = podium("history", "nobody", export.root)
    assert result.exit_code == 2
    assert result.stderr == "Error: no agent 'nobody' in this export (agents: kestrel, osprey)\n"


def test_missing_export_is_one_line_exit_2(tmp_path):
    for command in (["check"], ["rank"], ["rank", "--json"], ["build"], ["history", "osprey"]):
        args = (
            command[:1] + [tmp_path / "nowhere"] + command[1:]
            if command[0] != "history"
            else command + [tmp_path / "nowhere"]
        )
        result = podium(*args)
        assert result.exit_code == 2, command
        assert result.stderr == (
            f"Error: {tmp_path / 'nowhere'}: export directory not found (pass EXPORT or set export: in podium.yaml)\n"
        ), command
        assert result.stdout == ""


def test_no_export_given(tmp_path):
    result = podium("check")
    assert result.exit_code == 2
    assert result.stderr == "Error: no export given: pass EXPORT or set `export:` in podium.yaml\n"


# ------------------------------------------------------------------ G8: no CI workflow command can be formed


def test_hostile_names_print_escaped(tmp_path):
    export = ExportDir(tmp_path / "export")
    names = ["::error::pwned\n::add-mask::x", "x\u2028::warning::y", "\r::notice::z"]
    for n, name in enumerate(names):
        export.run(graded(run_id(n)), rid=run_id(n), agent=name, mission="::group::m")
    (export.root / "::error::dir\n::x").mkdir()
    export.sidecars()
    outputs = []
    for args in (
        ["check", export.root],
        ["rank", export.root],
        ["rank", export.root, "--json"],
        ["build", export.root, "--out", tmp_path / "site"],
        ["history", names[0], export.root],
        ["history", "::error::x\n::y", export.root],
    ):
        result = podium(*args)
        outputs += [result.stdout, result.stderr]
    for text in outputs:
        for line in text.splitlines():
            assert not line.lstrip().startswith("::"), line


# ------------------------------------------------------------------ the installed console script


def test_console_script(tmp_path):
    script = shutil.which("podium", path=str(Path(sys.executable).parent)) or shutil.which("podium")
    if script is None:
        pytest.skip("the podium console script is not installed (pip install .)")
    export = small_export(tmp_path / "export")
    done = subprocess.run(
        [script, "rank", str(export.root), "--json"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert [a["name"] for a in json.loads(done.stdout)] == ["kestrel", "osprey"]
    done = subprocess.run(
        [script, "check", str(tmp_path / "nowhere")], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"Error: {tmp_path / 'nowhere'}: export directory not found (pass EXPORT or set export: in podium.yaml)"
    ]
