"""podium's GitHub Action (issue 28): action.yml's steps and scripts/action.py, which they call.

The script runs here as the runner runs it: a workspace as the current directory, the step's
inputs as PODIUM_* variables, a fake $GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY and $RUNNER_TEMP, and
the previous publish served over HTTP from this machine. Builds are real, on the demo export and
on XORCISE's sample export; the install step makes a real virtualenv from a copy of the action.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from conftest import SAMPLES, needs_samples

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "action.py"
ACTION = REPO / "action.yml"
DEMO = REPO / "content" / "demo-export"

sys.path.insert(0, str(SCRIPT.parent))
import action  # noqa: E402  (scripts/action.py, imported for its small functions)

OUTPUT = re.compile(r"^(?P<name>[A-Za-z0-9_-]+)<<(?P<delim>\S+)$")


def read_outputs(path: Path) -> dict[str, str]:
    """$GITHUB_OUTPUT as the runner reads it (the heredoc form, name<<DELIMITER ... DELIMITER)."""
    outputs, lines = {}, path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        if not lines[i]:
            i += 1
            continue
        m = OUTPUT.match(lines[i])
        assert m, f"not an output line: {lines[i]!r}"
        end = lines.index(m["delim"], i + 1)
        outputs[m["name"]] = "\n".join(lines[i + 1 : end])
        i = end + 1
    return outputs


class Runner:
    """One job's workspace and runner files; ``step`` runs one of the action's commands in it."""

    def __init__(self, root: Path, action_path: Path = REPO) -> None:
        self.workspace = root / "workspace"
        self.temp = root / "runner-temp"
        self.workspace.mkdir()
        self.temp.mkdir()
        self.output = root / "github-output"
        self.summary = root / "step-summary.md"
        self.action_path = action_path
        self.env = {
            "PATH": os.environ["PATH"],
            "HOME": str(root),
            "GITHUB_ACTION_PATH": str(action_path),
            "GITHUB_OUTPUT": str(self.output),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "RUNNER_TEMP": str(self.temp),
            "RUNNER_OS": "Linux",
            "RUNNER_ARCH": "X64",
            "GITHUB_EVENT_NAME": "schedule",
            "GITHUB_REF": "refs/heads/main",
            "PODIUM_DEFAULT_BRANCH": "main",
            "GITHUB_RUN_ID": "1001",
            "GITHUB_RUN_ATTEMPT": "1",
            "PODIUM_PYTHON": sys.executable,
            "PODIUM_EXPORT": "export",
            "PODIUM_OUT": "site",
            "PODIUM_CACHE": "auto",
        }

    def export_from(self, source: Path) -> None:
        """The export step: the runs copied to ./export, as `xorcise run export --out export` leaves them."""
        shutil.rmtree(self.workspace / "export", ignore_errors=True)
        shutil.copytree(source, self.workspace / "export")

    def step(self, command: str, **env: str) -> subprocess.CompletedProcess:
        self.output.write_text("", encoding="utf-8")  # each step has its own GITHUB_OUTPUT file
        return subprocess.run(
            [sys.executable, str(SCRIPT), command],
            cwd=self.workspace,
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=300,
        )

    def outputs(self) -> dict[str, str]:
        return read_outputs(self.output)

    def summary_text(self) -> str:
        return self.summary.read_text(encoding="utf-8") if self.summary.exists() else ""

    def plan_and_build(self, **env: str) -> subprocess.CompletedProcess:
        """The plan step, then the build step with its use-cache output, as action.yml wires them."""
        planned = self.step("plan", **env)
        assert planned.returncode == 0, planned.stderr
        return self.step("build", PODIUM_USE_CACHE=self.outputs()["use-cache"], **env)


class Published(http.server.SimpleHTTPRequestHandler):
    """The live site: files under the served directory; /broken/ answers 500, /moved/ redirects to plain http."""

    def do_GET(self) -> None:  # noqa: N802 (the handler's name)
        if self.path.startswith("/broken/"):
            self.send_error(500, "Internal Server Error")
        elif self.path.startswith("/moved/"):
            self.send_response(302)
            self.send_header("Location", "http://example.com/api/results/summary.json")
            self.end_headers()
        else:
            super().do_GET()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def host(tmp_path) -> Iterator[tuple[str, Path]]:
    """A web server on 127.0.0.1 serving a directory: (its base URL, the directory)."""
    served = tmp_path / "host"
    served.mkdir()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: Published(*a, directory=str(served)))  # type: ignore[misc]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", served
    finally:
        server.shutdown()
        server.server_close()


def deploy(site: Path, served: Path) -> None:
    """The deploy job: the built site becomes the live one."""
    shutil.rmtree(served / "board", ignore_errors=True)
    shutil.copytree(site, served / "board")


# --- action.yml ---------------------------------------------------------------------------


def test_action_yml_runs_each_step_through_the_script_with_inputs_as_env():
    spec = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    steps = spec["runs"]["steps"]
    assert spec["runs"]["using"] == "composite"
    runs = [s for s in steps if "run" in s]
    assert [s["run"] for s in runs] == [
        f'python3 "$GITHUB_ACTION_PATH/scripts/action.py" {c}' for c in ("plan", "install", "build")
    ]
    assert all(s["shell"] == "bash" and "${{" not in s["run"] for s in runs)  # no input spliced into a shell line
    mapped = {v for s in runs for v in s.get("env", {}).values()}
    for name in spec["inputs"]:
        assert f"${{{{ inputs.{name} }}}}" in mapped, f"input {name} reaches no step"
    cache = [s for s in steps if "uses" in s]
    assert [s["uses"].split("@")[0] for s in cache] == ["actions/cache/restore", "actions/cache/save"]
    assert all(s["if"] == "steps.plan.outputs.use-cache == 'true'" for s in cache)
    assert {s["with"]["key"] for s in cache} == {"${{ steps.plan.outputs.cache-key }}"}
    assert {s["with"]["path"] for s in cache} == {"${{ steps.plan.outputs.cache-paths }}"}
    assert spec["outputs"]["site-dir"]["value"] == "${{ steps.build.outputs.site-dir }}"


# --- plan: who may use the cache ----------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "ref", "default", "use"),
    [
        ("schedule", "refs/heads/main", "main", True),
        ("push", "refs/heads/main", "main", True),
        ("workflow_dispatch", "refs/heads/trunk", "trunk", True),
        ("push", "refs/heads/feature", "main", False),  # another branch
        ("workflow_dispatch", "refs/tags/v1", "main", False),
        ("pull_request", "refs/pull/7/merge", "main", False),  # a pull request, from a fork or not
        ("pull_request_target", "refs/heads/main", "main", False),  # runs on the default branch, for a fork's PR
        ("workflow_run", "refs/heads/main", "main", False),
        ("issue_comment", "refs/heads/main", "main", False),
        ("push", "refs/heads/main", "", False),  # the default branch is not known
    ],
)
def test_plan_uses_the_cache_only_on_trusted_runs_of_the_default_branch(tmp_path, event, ref, default, use):
    runner = Runner(tmp_path)
    done = runner.step("plan", GITHUB_EVENT_NAME=event, GITHUB_REF=ref, PODIUM_DEFAULT_BRANCH=default)
    assert done.returncode == 0, done.stderr
    out = runner.outputs()
    assert out["use-cache"] == str(use).lower()
    assert f"cache {'used' if use else 'not used'}" in done.stdout


def test_plan_cache_off_and_a_bad_value(tmp_path):
    runner = Runner(tmp_path)
    assert runner.step("plan", PODIUM_CACHE="off").returncode == 0
    assert runner.outputs()["use-cache"] == "false"
    bad = runner.step("plan", PODIUM_CACHE="yes")
    assert bad.returncode == 2 and "input cache: expected auto or off, got 'yes'" in bad.stderr
    assert "::error title=podium action::" in bad.stderr


def copy_of_action(to: Path) -> Path:
    """The action as the runner downloads it: the repository's files at one commit (here, the work tree)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    to.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "action.yml"):
        shutil.copy2(REPO / name, to / name)
    for name in ("generator", "themes", "scripts"):
        shutil.copytree(REPO / name, to / name, ignore=ignore)
    return to


def test_cache_key_names_os_podium_and_its_source_and_the_run(tmp_path):
    copy = copy_of_action(tmp_path / "action")
    runner = Runner(tmp_path, action_path=copy)
    assert runner.step("plan").returncode == 0
    first = runner.outputs()
    prefix = first["restore-key"]
    assert re.fullmatch(r"podium-Linux-X64-0\.1\.0-[0-9a-f]{16}-[0-9a-f]{8}-", prefix), prefix
    assert first["cache-key"] == prefix + "1001-1"  # this run's own entry; a restore takes the newest of the prefix
    assert first["cache-paths"].split("\n") == [".podium-cache", "site"]
    # Another run: the same prefix. Another OS, another board, or any change to podium's source: another prefix.
    assert runner.step("plan", GITHUB_RUN_ID="1002", GITHUB_RUN_ATTEMPT="2").returncode == 0
    assert runner.outputs()["restore-key"] == prefix and runner.outputs()["cache-key"] == prefix + "1002-2"
    for env in ({"RUNNER_OS": "macOS"}, {"PODIUM_OUT": "public/board"}, {"PODIUM_CONFIG": "boards/b.yaml"}):
        assert runner.step("plan", **env).returncode == 0
        assert runner.outputs()["restore-key"] != prefix, env
    assert runner.outputs()["cache-paths"].split("\n") == [".podium-cache", "site"]
    template = copy / "themes" / "default" / "templates" / "base.html"
    assert template.exists()
    template.write_text(template.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert runner.step("plan").returncode == 0
    assert runner.outputs()["restore-key"] != prefix
    # Bytes the build leaves in the action's directory (pip's egg-info, caches) are not podium's source.
    (copy / "generator" / "podium.egg-info").mkdir()
    (copy / "generator" / "podium.egg-info" / "PKG-INFO").write_text("x")
    changed = runner.outputs()["restore-key"]
    assert runner.step("plan").returncode == 0 and runner.outputs()["restore-key"] == changed


def test_plan_output_dir_in_a_subfolder_keeps_the_cache_beside_it(tmp_path):
    runner = Runner(tmp_path)
    assert runner.step("plan", PODIUM_OUT="public/board").returncode == 0
    assert runner.outputs()["cache-paths"].split("\n") == ["public/.podium-cache", "public/board"]


# --- build --------------------------------------------------------------------------------


def test_first_publish_on_the_demo_export_with_the_cache(tmp_path):
    runner = Runner(tmp_path)
    runner.export_from(DEMO)
    done = runner.plan_and_build(PODIUM_HOST="github-pages")
    assert done.returncode == 0, done.stdout + done.stderr
    out = runner.outputs()
    site = runner.workspace / "site"
    assert out["site-dir"] == str(site) and out["summary-json"] == str(site / "api/results/summary.json")
    assert out["first-publish"] == "false" and out["change-report"] == ""
    summary = json.loads((site / "api/results/summary.json").read_text(encoding="utf-8"))
    assert summary["totals"]["runs"] == 381
    assert (runner.workspace / ".podium-cache").is_dir()  # the cache where plan said, beside the site
    assert "--cache-dir .podium-cache" in done.stdout
    text = runner.summary_text()
    assert text.startswith(
        "### podium: first publish\n\nNo previous summary.json to compare with (no `previous-summary-url` given).\n"
    )
    assert re.search(r"podium: wrote [\d.]+ MB in \d+ files \(GitHub Pages: [\d.]+% of its 1\.0 GB\) to ", text)


def test_the_host_input_overrides_podium_yaml(tmp_path):
    """`host` reaches `podium build --host`, which wins over podium.yaml's `host:`."""
    runner = Runner(tmp_path)
    runner.export_from(SAMPLES if SAMPLES.is_dir() else DEMO)
    (runner.workspace / "podium.yaml").write_text("host: github-pages\n", encoding="utf-8")
    done = runner.plan_and_build(PODIUM_CONFIG="podium.yaml", PODIUM_HOST="cloudflare-free", PODIUM_CACHE="off")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "--config podium.yaml --host cloudflare-free --no-cache" in done.stdout
    assert "(Cloudflare Pages (free plan): " in runner.summary_text() and "GitHub Pages" not in runner.summary_text()
    without = runner.plan_and_build(PODIUM_CONFIG="podium.yaml", PODIUM_CACHE="off")
    assert without.returncode == 0 and "(GitHub Pages: " in without.stdout


def test_an_untrusted_run_builds_without_the_cache(tmp_path):
    runner = Runner(tmp_path)
    runner.export_from(DEMO)
    done = runner.plan_and_build(GITHUB_EVENT_NAME="pull_request", GITHUB_REF="refs/pull/3/merge")
    assert done.returncode == 0, done.stderr
    assert "--no-cache" in done.stdout and "--cache-dir" not in done.stdout
    assert not (runner.workspace / ".podium-cache").exists()
    assert (runner.workspace / "site" / "index.html").is_file()


@needs_samples()
def test_publishes_in_a_row_carry_the_change_report_and_history(tmp_path, host):
    """Three publishes against the live site: first (nothing there: a 404), then the sample export grows to
    the demo's runs (a change report), then an unchanged rebuild, whose site still carries report 1."""
    base, served = host
    url = f"{base}/board/"  # a site's address: the action reads api/results/summary.json under it
    runner = Runner(tmp_path)
    runner.export_from(SAMPLES)
    first = runner.plan_and_build(PODIUM_PREVIOUS_URL=url)
    assert first.returncode == 0, first.stdout + first.stderr
    assert runner.outputs()["first-publish"] == "true"
    assert f"nothing published at {base}/board/api/results/summary.json yet" in runner.summary_text()
    deploy(runner.workspace / "site", served)

    runner.summary.unlink()
    runner.export_from(DEMO)
    second = runner.plan_and_build(PODIUM_PREVIOUS_URL=url)
    assert second.returncode == 0, second.stdout + second.stderr
    out = runner.outputs()
    assert out["first-publish"] == "false"
    report = Path(out["change-report"]).read_text(encoding="utf-8")
    assert report.startswith("### podium: what changed\n")
    assert "**381 runs** (+375 since the previous summary)" in report  # the samples' 6, then the demo's 381
    assert runner.summary_text().startswith(report)
    assert "--previous" in second.stdout and (runner.workspace / "site" / "changes" / "1" / "index.html").is_file()
    deploy(runner.workspace / "site", served)

    third = runner.plan_and_build(PODIUM_PREVIOUS_URL=f"{base}/board/api/results/summary.json")
    assert third.returncode == 0, third.stdout + third.stderr
    assert "No change since the previous summary." in Path(runner.outputs()["change-report"]).read_text()
    history = json.loads((runner.workspace / "site/api/results/changes.json").read_text(encoding="utf-8"))
    assert len(history["reports"]) == 1  # changes.json was fetched beside the summary, and carried on
    assert (runner.workspace / "site" / "changes" / "1" / "index.html").is_file()


def test_a_previous_summary_that_cannot_be_fetched_stops_before_building(tmp_path, host):
    base, _ = host
    runner = Runner(tmp_path)
    runner.export_from(DEMO)
    done = runner.plan_and_build(PODIUM_PREVIOUS_URL=f"{base}/broken/api/results/summary.json")
    assert done.returncode == 3
    assert f"{base}/broken/api/results/summary.json: HTTP 500" in done.stderr
    assert not (runner.workspace / "site").exists()  # nothing built: the history would have restarted


def test_a_redirect_to_plain_http_is_refused(tmp_path, host):
    base, _ = host
    runner = Runner(tmp_path)
    runner.export_from(DEMO)
    done = runner.plan_and_build(PODIUM_PREVIOUS_URL=f"{base}/moved/")
    assert done.returncode == 3 and "redirected to 'http://example.com/api/results/summary.json'" in done.stderr
    assert not (runner.workspace / "site").exists()


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/board/",
        "ftp://example.com/summary.json",
        "https://user:secret@example.com/",
        "file:///etc/passwd",
        "board/summary.json",
    ],
)
def test_previous_url_must_be_https(tmp_path, url):
    runner = Runner(tmp_path)
    done = runner.step("build", PODIUM_PREVIOUS_URL=url)
    assert done.returncode == 2 and "input previous-summary-url:" in done.stderr
    assert not (runner.workspace / "site").exists()


def test_summary_url_from_a_site_address():
    assert action.summary_url("https://x.example/board") == "https://x.example/board/api/results/summary.json"
    assert action.summary_url("https://x.example/board/") == "https://x.example/board/api/results/summary.json"
    assert action.summary_url("https://x.example/s.json?v=1") == "https://x.example/s.json?v=1"


def test_a_failing_build_exits_with_podiums_code_and_says_so_in_the_summary(tmp_path):
    runner = Runner(tmp_path)
    runner.export_from(DEMO)
    (runner.workspace / "podium.yaml").write_text("host: moon\n", encoding="utf-8")
    done = runner.plan_and_build(PODIUM_CONFIG="podium.yaml")
    assert done.returncode == 2
    text = runner.summary_text()
    assert text.startswith("### podium: the build failed (exit 2)\n\nThe published site is unchanged.")
    assert "podium.yaml: host: expected one of none, github-pages" in text
    assert runner.outputs()["site-dir"] == str(runner.workspace / "site")  # outputs are written all the same
    assert not (runner.workspace / "site").exists()
    (runner.workspace / "podium.yaml").unlink()
    runner.summary.unlink()
    missing = runner.plan_and_build(PODIUM_EXPORT="no-such-export")
    assert missing.returncode == 2 and "no-such-export" in runner.summary_text()
    runner.summary.unlink()
    bad_host = runner.plan_and_build(PODIUM_HOST="moon")
    assert bad_host.returncode == 2 and "'moon' is not one of" in runner.summary_text()


def test_a_tripped_gate_fails_the_step_after_the_report(tmp_path, host):
    base, served = host
    runner = Runner(tmp_path)
    runner.export_from(DEMO)
    assert runner.plan_and_build().returncode == 0
    deploy(runner.workspace / "site", served)
    summary = served / "board" / "api" / "results" / "summary.json"
    data = json.loads(summary.read_text(encoding="utf-8"))
    harrier = next(a for a in data["agents"] if a["name"] == "harrier")  # a median (42.5%) with room above
    harrier["median"] = min(1.0, harrier["median"] + 0.1)  # harrier was 10 points higher last time
    summary.write_text(json.dumps(data), encoding="utf-8")
    runner.summary.unlink()
    done = runner.plan_and_build(PODIUM_PREVIOUS_URL=f"{base}/board/", PODIUM_FAIL_ON_DROP="harrier=5\n")
    assert done.returncode == 1, done.stdout + done.stderr
    text = runner.summary_text()
    assert text.startswith("### podium: what changed")
    assert "**podium diff exited 1** (a fail-on-drop gate tripped)" in text
    passed = runner.plan_and_build(PODIUM_PREVIOUS_URL=f"{base}/board/", PODIUM_FAIL_ON_DROP="harrier=15")
    assert passed.returncode == 0, passed.stderr
    bad = runner.step("build", PODIUM_FAIL_ON_DROP="osprey")
    assert bad.returncode == 2 and "input fail-on-drop: expected AGENT=PP" in bad.stderr


def test_log_lines_are_fenced_longer_than_any_backticks_in_them():
    assert action.fenced(["plain"]) == "```text\nplain\n```\n"
    fenced = action.fenced(["problem: a name with ```` four backticks"])
    assert fenced.startswith("`````text\n") and fenced.endswith("\n`````\n")


def test_outputs_cannot_smuggle_another_output(tmp_path):
    out = tmp_path / "out"
    out.write_text("")
    action.set_outputs({"GITHUB_OUTPUT": str(out)}, {"site-dir": "a\nsite-dir<<EOF\nevil\nEOF", "b": "two\nlines"})
    assert read_outputs(out) == {"site-dir": "a\nsite-dir<<EOF\nevil\nEOF", "b": "two\nlines"}


def test_an_old_python_is_told_to_set_up_a_newer_one(monkeypatch, capsys):
    monkeypatch.setattr(action, "MIN_PYTHON", (99, 0))
    assert action.main(["plan"], {}) == 2
    assert "podium needs Python 99.0 or newer; this is " in capsys.readouterr().err


def test_no_subcommand_is_a_usage_error(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert done.returncode == 2 and "usage: action.py install|plan|build" in done.stderr


# --- install ------------------------------------------------------------------------------


def test_install_puts_the_actions_own_podium_in_a_virtualenv(tmp_path):
    """The real step: a virtualenv under RUNNER_TEMP, podium built from the action's directory (pip
    fetches podium's dependencies, never podium itself), and the build step runs that Python."""
    copy = copy_of_action(tmp_path / "action")
    runner = Runner(tmp_path, action_path=copy)
    done = runner.step("install")
    assert done.returncode == 0, done.stdout + done.stderr
    out = runner.outputs()
    python = runner.temp / "podium-venv" / "bin" / "python"
    assert out == {"python": str(python), "version": "0.1.0"}
    where = subprocess.run(
        [out["python"], "-c", "import podium; print(podium.__file__)"], capture_output=True, text=True, check=True
    )
    assert Path(where.stdout.strip()).is_relative_to(runner.temp / "podium-venv")
    runner.export_from(SAMPLES if SAMPLES.is_dir() else DEMO)
    built = runner.plan_and_build(PODIUM_PYTHON=out["python"])
    assert built.returncode == 0, built.stdout + built.stderr
    assert f"{python} -m podium build export" in built.stdout


def test_install_refuses_a_directory_that_is_not_podium(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text('[project]\nname = "podium-lookalike"\nversion = "9.9"\n')
    runner = Runner(tmp_path, action_path=other)
    done = runner.step("install")
    assert done.returncode == 2 and "pyproject.toml: not podium's project file" in done.stderr
    assert not (runner.temp / "podium-venv").exists()


def test_the_script_passes_ruff_and_strict_mypy():
    """tests/test_lint.py lints generator/ and tests/; the action's script is held to ruff and to mypy --strict here."""
    ruff = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", str(SCRIPT)], cwd=REPO, capture_output=True, text=True
    )
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    mypy = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--no-error-summary",
            "--python-version",
            "3.11",
            str(SCRIPT),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
