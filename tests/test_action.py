"""podium's GitHub Action (issues 28 and 34): action.yml's steps and scripts/action.py, which they call.

The script runs here as the runner runs it: a workspace as the current directory, the step's
inputs as PODIUM_* variables, a fake $GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY and $RUNNER_TEMP, and
the previous publish served over HTTPS from this machine (a certificate from a CA made for the
test, trusted through SSL_CERT_FILE). The action refuses to fetch from a loopback address, so a
step that talks to that server runs through a launcher that lets exactly 127.0.0.1 through the
address check (every other loopback, link-local or private address is still refused there).
Builds are real, on the demo export and on XORCISE's sample export; the install step makes a
real virtualenv from a copy of the action, its dependencies from the lock file.
"""

from __future__ import annotations

import http.server
import ipaddress
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import yaml
from conftest import SAMPLES, needs_samples
from ghrunner import runner_commands
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "action.py"
ACTION = REPO / "action.yml"
LOCK = REPO / "requirements" / "action.lock"
DEMO = REPO / "content" / "demo-export"

sys.path.insert(0, str(SCRIPT.parent))
import action  # noqa: E402  (scripts/action.py, imported for its small functions)

OUTPUT = re.compile(r"^(?P<name>[A-Za-z0-9_-]+)<<(?P<delim>\S+)$")
TEST_HOST = "127.0.0.1"  # the test server's address: the only one the launcher lets through

# scripts/action.py run as the runner runs it, after the test's changes to it (ACTION_TEST_PATCH, JSON):
# "allow", addresses the address check lets through; "constants", module constants to set.
LAUNCHER = f"""
import ipaddress, json, os, sys
sys.path.insert(0, {str(SCRIPT.parent)!r})
import action
patch = json.loads(os.environ.get("ACTION_TEST_PATCH", "{{}}"))
for name, value in patch.get("constants", {{}}).items():
    setattr(action, name, value)
allowed = {{ipaddress.ip_address(a) for a in patch.get("allow", [])}}
real = getattr(action, "address_refusal", None)
if real is not None:
    action.address_refusal = lambda address: None if address in allowed else real(address)
sys.exit(action.main(sys.argv[1:], os.environ))
"""


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

    def __init__(self, root: Path, action_path: Path = REPO, patch: dict | None = None) -> None:
        self.workspace = root / "workspace"
        self.temp = root / "runner-temp"
        self.workspace.mkdir()
        self.temp.mkdir()
        self.output = root / "github-output"
        self.summary = root / "step-summary.md"
        self.action_path = action_path
        self.patch = patch
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

    def step(self, command: str, merged: bool = False, **env: str) -> subprocess.CompletedProcess:
        """One step; ``merged``: stderr into stdout, in the order the runner would read them."""
        self.output.write_text("", encoding="utf-8")  # each step has its own GITHUB_OUTPUT file
        launch = [str(SCRIPT)]
        environ = {**self.env, **env}
        if self.patch is not None:
            launch = ["-c", LAUNCHER]
            environ["ACTION_TEST_PATCH"] = json.dumps(self.patch)
        return subprocess.run(
            [sys.executable, *launch, command],
            cwd=self.workspace,
            env=environ,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merged else subprocess.PIPE,
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


# --- the previous site: an HTTPS server on this machine -----------------------------------


@pytest.fixture(scope="session")
def tls(tmp_path_factory) -> dict[str, Path]:
    """A CA and a certificate it signed for board.test, localhost, 127.0.0.1 and ::1 (openssl)."""
    where = tmp_path_factory.mktemp("tls")
    openssl = shutil.which("openssl")
    assert openssl, "openssl is not installed (apt-get install openssl)"

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], cwd=where, check=True, capture_output=True)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    run(
        "req",
        "-x509",
        *ec,
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=podium test CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
    )
    run("req", *ec, "-keyout", "host.key", "-out", "host.csr", "-subj", "/CN=board.test")
    (where / "host.ext").write_text(
        "subjectAltName=DNS:board.test,DNS:localhost,IP:127.0.0.1,IP:::1\n"
        "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
        "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n"
    )
    run(
        "x509",
        "-req",
        "-in",
        "host.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-out",
        "host.pem",
        "-extfile",
        "host.ext",
    )
    return {"ca": where / "ca.pem", "cert": where / "host.pem", "key": where / "host.key"}


# A reason phrase (latin-1, as HTTP sends it) that tries every way to a command: a CR, the older
# `##[` form mid-line, a C1 control (NEL) and a soft hyphen between the characters, and length.
HOSTILE_REASON = (
    "Oops\r::add-mask::podium\r  ##[set-output name=site-dir]/tmp/evil \x85::warning::x #\xad#[error]y" + "!" * 500
)


class Published(http.server.SimpleHTTPRequestHandler):
    """The live site: files under the served directory, and these for the unhappy paths:
    /broken/ answers 500; /hostile/ 500 with a reason phrase full of workflow commands;
    /redirect/summary.json?to=URL&code=N redirects there; /drip/ sends a byte every 50 ms (at most 400);
    /stream/PATH serves a file with no Content-Length; /gzip/ answers in an encoding nobody asked for."""

    def do_GET(self) -> None:  # noqa: N802 (the handler's name)
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        if url.path.startswith("/broken/"):
            self.send_error(500, "Internal Server Error")
        elif url.path.startswith("/hostile/"):
            self.send_response(500, HOSTILE_REASON)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif url.path == "/redirect/summary.json":
            self.send_response(int(query.get("code", ["302"])[0]))
            self.send_header("Location", query["to"][0])
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif url.path.startswith("/drip/"):
            self.send_response(200)
            self.send_header("Content-Length", "400")
            self.end_headers()
            try:
                for _ in range(400):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.05)
            except OSError:
                pass  # the client gave up
        elif url.path.startswith("/stream/"):
            file = Path(self.directory) / url.path.removeprefix("/stream/")
            if not file.is_file():
                self.send_error(404)
                return
            body = file.read_bytes()
            self.send_response(200)
            self.end_headers()
            self.wfile.write(body)  # HTTP/1.0: the end of the body is the end of the connection
        elif url.path.startswith("/gzip/"):
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")
        else:
            super().do_GET()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def host(tmp_path, tls) -> Iterator[tuple[str, Path]]:
    """An HTTPS server on 127.0.0.1 serving a directory: (its base URL, the directory)."""
    served = tmp_path / "host"
    served.mkdir()
    server = http.server.ThreadingHTTPServer((TEST_HOST, 0), lambda *a: Published(*a, directory=str(served)))  # type: ignore[misc]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tls["cert"], tls["key"])
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://{TEST_HOST}:{server.server_address[1]}", served
    finally:
        server.shutdown()
        server.server_close()


def online(root: Path, tls: dict[str, Path], **patch) -> Runner:
    """A runner whose steps may fetch from the test server (and trust its CA), with ``patch`` applied."""
    runner = Runner(root, patch={"allow": [TEST_HOST], **patch})
    runner.env["SSL_CERT_FILE"] = str(tls["ca"])
    return runner


def deploy(site: Path, served: Path) -> None:
    """The deploy job: the built site becomes the live one."""
    shutil.rmtree(served / "board", ignore_errors=True)
    shutil.copytree(site, served / "board")


def live_demo(root: Path, tls: dict[str, Path], served: Path, **patch) -> Runner:
    """A runner online (``patch`` applied) whose first build of the demo export is the live site; its job summary emptied."""
    runner = online(root, tls, **patch)
    runner.export_from(DEMO)
    assert runner.plan_and_build().returncode == 0
    deploy(runner.workspace / "site", served)
    runner.summary.unlink()
    return runner


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
        ("workflow_dispatch", "refs/heads/main", "", False),
        # A schedule event's payload has no repository, so no default_branch (issue 34): its ref is the default branch.
        ("schedule", "refs/heads/main", "", True),
        ("schedule", "refs/heads/trunk", "", True),
        ("schedule", "refs/heads/feature", "main", False),  # should the payload ever name it, it must match
        ("schedule", "refs/tags/v1", "", False),
        ("schedule", "", "", False),
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
    for name in ("generator", "themes", "scripts", "requirements"):
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
    assert runner.step("plan").returncode == 0
    before_lock = runner.outputs()["restore-key"]
    lock = copy / "requirements" / "action.lock"
    lock.write_text(lock.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # new dependencies: another podium
    assert runner.step("plan").returncode == 0
    assert runner.outputs()["restore-key"] != before_lock
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
    assert "--cache-dir=.podium-cache" in done.stdout
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
    assert "--config=podium.yaml --host=cloudflare-free --no-cache -- export" in done.stdout
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
def test_publishes_in_a_row_carry_the_change_report_and_history(tmp_path, host, tls):
    """Three publishes against the live site: first (nothing there: a 404), then the sample export grows to
    the demo's runs (a change report), then an unchanged rebuild, whose site still carries report 1."""
    base, served = host
    url = f"{base}/board/"  # a site's address: the action reads api/results/summary.json under it
    runner = online(tmp_path, tls)
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


def test_a_previous_summary_that_cannot_be_fetched_stops_before_building(tmp_path, host, tls):
    base, _ = host
    runner = online(tmp_path, tls)
    runner.export_from(DEMO)
    done = runner.plan_and_build(PODIUM_PREVIOUS_URL=f"{base}/broken/api/results/summary.json")
    assert done.returncode == 3
    assert f"{base}/broken/api/results/summary.json: HTTP 500 'Internal Server Error'" in done.stderr
    assert not (runner.workspace / "site").exists()  # nothing built: the history would have restarted


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/board/",
        "http://127.0.0.1:8000/board/",  # plain http even to this machine (issue 34: no exception for loopback)
        "ftp://example.com/summary.json",
        "https://user:secret@example.com/",
        "https:///summary.json",
        "https://example.com:99999/",
        "file:///etc/passwd",
        "board/summary.json",
    ],
)
def test_previous_url_must_be_https(tmp_path, url):
    runner = Runner(tmp_path)
    done = runner.step("build", PODIUM_PREVIOUS_URL=url)
    assert done.returncode == 2 and "input previous-summary-url:" in done.stderr
    assert not (runner.workspace / "site").exists()


# --- the previous summary's fetch (issue 34, items 10 and 11) ------------------------------


def redirect(base: str, to: str, code: int = 302) -> str:
    return f"{base}/redirect/summary.json?" + urlencode({"to": to, "code": code})


@pytest.mark.parametrize(
    ("target", "refused"),
    [
        ("http://{h}:{p}/board/api/results/summary.json", "not https"),  # https → http, on the host itself
        ("https://127.0.0.2:{p}/board/api/results/summary.json", "127.0.0.2, a loopback address"),
        ("https://[::1]:{p}/board/api/results/summary.json", "::1, a loopback address"),
        ("https://user:pw@{h}:{p}/board/api/results/summary.json", "holds credentials"),
    ],
)
def test_a_redirect_is_followed_only_over_https_to_a_public_address(tmp_path, host, tls, target, refused):
    """The test server itself (127.0.0.1) is let through; the redirect's target is checked as the first URL was."""
    base, served = host
    port = base.rsplit(":", 1)[1]
    runner = live_demo(tmp_path, tls, served)
    shutil.rmtree(runner.workspace / "site")
    done = runner.plan_and_build(PODIUM_PREVIOUS_URL=redirect(base, target.format(h=TEST_HOST, p=port)))
    assert done.returncode == 3, done.stdout + done.stderr
    assert refused in done.stderr
    assert not (runner.workspace / "site").exists()


def test_a_redirect_over_https_is_followed_a_few_times(tmp_path, host, tls):
    base, served = host
    runner = live_demo(tmp_path, tls, served)
    done = runner.plan_and_build(PODIUM_PREVIOUS_URL=redirect(base, "/board/api/results/summary.json", 301))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "--previous=" in done.stdout and "No change since the previous summary." in runner.summary_text()
    chain = "/nothing/summary.json"
    for _ in range(action.MAX_REDIRECTS):
        chain = redirect(base, chain)
    assert runner.plan_and_build(PODIUM_PREVIOUS_URL=chain).returncode == 0  # five hops to a 404: a first publish
    too_many = runner.plan_and_build(PODIUM_PREVIOUS_URL=redirect(base, chain))
    assert too_many.returncode == 3 and f"more than {action.MAX_REDIRECTS} redirects" in too_many.stderr


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.5.5.5",
        "::1",
        "0.0.0.0",
        "::",
        "169.254.169.254",
        "fe80::1",  # link-local: where cloud metadata services answer
        "10.0.0.1",
        "172.16.0.1",
        "192.168.1.1",
        "100.64.0.1",
        "fc00::1",
        "fd12:3456::1",
        "224.0.0.1",
        "240.0.0.1",
        "255.255.255.255",
        "ff02::1",
        "192.0.2.1",
        "2001:db8::1",
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",
        "64:ff9b::a9fe:a9fe",
        "2002:7f00:1::1",
        "::127.0.0.1",
    ],
)
def test_no_address_but_a_public_one_is_fetched_from(address):
    assert action.address_refusal(ipaddress.ip_address(address)) is not None, address


@pytest.mark.parametrize("address", ["8.8.8.8", "185.199.108.153", "104.16.0.1", "2606:4700:4700::1111"])
def test_public_addresses_are_fetched_from(address):
    assert action.address_refusal(ipaddress.ip_address(address)) is None


def fake_dns(monkeypatch, answers: dict[str, list[list[str]]]) -> dict[str, int]:
    """socket.getaddrinfo answering ``answers[name][n]`` to the n-th lookup of a name (the last one after that);
    any other name as the system would. Returns the count of lookups per name."""
    real = socket.getaddrinfo
    counts: dict[str, int] = {}

    def getaddrinfo(host, port, *args, **kwargs):
        if host not in answers:
            return real(host, port, *args, **kwargs)
        n = counts[host] = counts.get(host, 0) + 1
        found = answers[host][min(n, len(answers[host])) - 1]
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in found]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return counts


def test_a_name_with_any_address_that_is_not_public_is_refused_before_connecting(monkeypatch):
    fake_dns(monkeypatch, {"board.test": [["8.8.8.8", "169.254.169.254"]], "meta.test": [["::ffff:169.254.169.254"]]})

    def no_connection(*args, **kwargs):
        raise AssertionError("the fetch connected although the name's addresses were refused")

    monkeypatch.setattr(socket, "create_connection", no_connection)
    deadline = time.monotonic() + 30
    with pytest.raises(action.ActionError, match=r"board\.test resolves to 169\.254\.169\.254, a link-local address"):
        action.fetch("https://board.test/api/results/summary.json", deadline)
    with pytest.raises(action.ActionError, match=r"meta\.test resolves to ::ffff:169\.254\.169\.254, a link-local"):
        action.fetch("https://meta.test/api/results/summary.json", deadline)


def test_the_connection_goes_to_the_address_that_was_checked(monkeypatch, host, tls):
    """DNS rebinding: a name that answers a checked address, then another, is reached at the first; one lookup."""
    base, served = host
    (served / "summary.json").write_text('{"ok": true}')
    port = base.rsplit(":", 1)[1]
    counts = fake_dns(monkeypatch, {"board.test": [[TEST_HOST], ["127.0.0.2"]]})
    real = action.address_refusal
    monkeypatch.setattr(action, "address_refusal", lambda a: None if str(a) == TEST_HOST else real(a))
    monkeypatch.setenv("SSL_CERT_FILE", str(tls["ca"]))
    body = action.fetch(f"https://board.test:{port}/summary.json", time.monotonic() + 30)
    assert body == b'{"ok": true}' and counts == {"board.test": 1}


def test_the_certificate_is_checked_against_the_name(monkeypatch, host):
    """Without the test CA trusted, the test server's certificate is refused (TLS is verified, not just used)."""
    base, served = host
    (served / "summary.json").write_text("{}")
    monkeypatch.setattr(action, "address_refusal", lambda a: None)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    with pytest.raises(action.ActionError, match="CERTIFICATE_VERIFY_FAILED"):
        action.fetch(f"{base}/summary.json", time.monotonic() + 30)


def test_an_encoding_nobody_asked_for_is_refused(monkeypatch, host, tls):
    base, _ = host
    monkeypatch.setattr(action, "address_refusal", lambda a: None)
    monkeypatch.setenv("SSL_CERT_FILE", str(tls["ca"]))
    with pytest.raises(action.ActionError, match="sent with Content-Encoding 'gzip'"):
        action.fetch(f"{base}/gzip/summary.json", time.monotonic() + 30)


def test_a_host_that_drips_bytes_meets_the_deadline(tmp_path, host, tls):
    """The host sends a byte every 50 ms (a 400-byte body: 20 s); the fetch's whole deadline is 1 s here."""
    base, _ = host
    runner = online(tmp_path, tls, constants={"FETCH_DEADLINE_S": 1.0})
    runner.export_from(DEMO)
    done = runner.plan_and_build(PODIUM_PREVIOUS_URL=f"{base}/drip/summary.json")
    assert done.returncode == 3, done.stdout + done.stderr
    assert f"{base}/drip/summary.json: no complete answer within 1 s for the previous site's files" in done.stderr
    assert not (runner.workspace / "site").exists()


@pytest.mark.parametrize("path", ["board/", "stream/board/api/results/summary.json"], ids=["length", "no-length"])
def test_a_summary_larger_than_podium_reads_is_not_used(tmp_path, host, tls, path):
    """Over the cap (1,000 bytes here; podium's 64 MiB on a runner), announced or not: a warning, no change
    report, and the site is built (not a publish that fails forever, issue 34 item 1)."""
    base, served = host
    runner = live_demo(tmp_path, tls, served, constants={"PREVIOUS_MAX_BYTES": 1000})
    done = runner.plan_and_build(PODIUM_PREVIOUS_URL=f"{base}/{path}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "::warning title=podium action::" in done.stdout
    assert "is larger than 1,000 bytes, more than podium reads: built without it" in done.stdout
    assert "--previous" not in done.stdout
    assert runner.summary_text().startswith("### podium: no change report\n\nThe previous summary was not used: ")
    assert runner.outputs()["first-publish"] == "false"


def test_a_history_file_larger_than_podium_reads_is_left_out(monkeypatch, host, tls, tmp_path, capsys):
    """changes.json over the cap is not fetched further nor used (podium would ignore it: a fresh history),
    with a warning; the summary and redirects.json beside it are."""
    base, served = host
    results = served / "api" / "results"
    results.mkdir(parents=True)
    (results / "summary.json").write_text("{}")
    (results / "changes.json").write_text(" " * 2000)
    (results / "redirects.json").write_text("[]")
    monkeypatch.setattr(action, "address_refusal", lambda a: None)
    monkeypatch.setattr(action, "PREVIOUS_MAX_BYTES", 1000)
    monkeypatch.setenv("SSL_CERT_FILE", str(tls["ca"]))
    summary, unused = action.fetch_previous(f"{base}/api/results/summary.json", tmp_path / "previous")
    assert summary == tmp_path / "previous" / "summary.json" and unused == ""
    assert sorted(p.name for p in summary.parent.iterdir()) == ["redirects.json", "summary.json"]
    assert f"::warning title=podium action::{base}/api/results/changes.json is larger than 1,000 bytes" in (
        capsys.readouterr().out
    )


def test_the_byte_cap_is_podiums_own():
    from podium.load.published import MAX_BYTES

    assert action.PREVIOUS_MAX_BYTES == MAX_BYTES


# --- nothing from elsewhere runs as a workflow command (issue 34, item 9) -----------------


def test_shown_text_is_one_bounded_line_with_no_command_in_it():
    text = action.shown(HOSTILE_REASON)
    assert "\r" not in text and "\n" not in text and len(text) <= action.SHOWN_MAX_CHARS
    assert "::" not in text and "##[" not in text and all(" " <= c <= "~" or c == "…" for c in text)
    assert text.startswith(
        "Oops : :add-mask: :podium # #[set-output name=site-dir]/tmp/evil : :warning: :x #\\xad#[error]y!!"
    )
    assert runner_commands(text) == [] and runner_commands("x\n" + text) == []
    assert action.shown("https://[::1]/a") == "https://[: :1]/a"


def test_the_actions_own_lines_start_no_command(capsys):
    action.say("  ::add-mask::secret\nok ##[error]x")
    out = capsys.readouterr().out
    assert out == ">   ::add-mask::secret\nok # #[error]x\n" and runner_commands(out) == []


def test_a_hostile_reason_phrase_runs_no_workflow_command(tmp_path, host, tls):
    base, _ = host
    runner = online(tmp_path, tls)
    runner.export_from(DEMO)
    done = runner.step("build", merged=True, PODIUM_PREVIOUS_URL=f"{base}/hostile/summary.json")
    assert done.returncode == 3
    commands = runner_commands(done.stdout)
    assert [name for name, _ in commands] == ["error"], commands
    data = commands[0][1]
    assert data.startswith(f"{base}/hostile/summary.json: HTTP 500 'Oops : :add-mask: :podium # #[set-output")
    assert "%0D" not in data and "%0A" not in data  # one line, as the reason was shown
    assert data.endswith("!…'")  # cut at SHOWN_MAX_CHARS


def test_podiums_output_passes_through_with_commands_stopped(tmp_path):
    """podium's log quotes the export and the previous summary: it reaches the log verbatim, and the
    runner reads no command from it (a stand-in for podium prints the lines a hostile export could make)."""
    fake = tmp_path / "fake-python"
    fake.write_text(
        "#!/bin/sh\nmkdir -p site/api/results\n"
        "printf '::add-mask::podium\\n  ##[set-output name=site-dir]/tmp/evil\\n::stop-commands::guess\\n'\n"
        "printf 'problem: export/runs/x: a name ::warning::y\\r::error::z\\n' >&2\n"
    )
    fake.chmod(0o755)
    runner = Runner(tmp_path)
    runner.export_from(DEMO)
    done = runner.step("build", merged=True, PODIUM_PYTHON=str(fake))
    assert done.returncode == 0, done.stdout
    assert "::add-mask::podium\n  ##[set-output name=site-dir]/tmp/evil\n" in done.stdout  # verbatim
    commands = runner_commands(done.stdout)
    assert [name for name, _ in commands] == ["stop-commands"], commands
    assert re.fullmatch(r"[0-9a-f]{32}", commands[0][1])


# --- an export line is an export (issue 34, item 12) ---------------------------------------


def test_an_export_line_that_looks_like_an_option_is_an_export(tmp_path):
    """`--theme-dir=evil` as a line of `export` once reached `podium build` as its option, and the
    templates there ran: the exports now follow `--`, so it is an export that does not exist."""
    runner = Runner(tmp_path)
    runner.export_from(DEMO)
    evil = runner.workspace / "evil" / "templates"
    evil.mkdir(parents=True)
    (evil / "base.html").write_text('{% extends "default:base.html" %}{% block title %}EVIL-MARKER{% endblock %}')
    done = runner.plan_and_build(PODIUM_EXPORT="export\n--theme-dir=evil", PODIUM_CACHE="off")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "-- export --theme-dir=evil" in done.stdout
    assert "--theme-dir=evil" in runner.summary_text()  # named as the export that is not there
    assert not (runner.workspace / "site").exists()
    assert action.build_command("py", {"PODIUM_OUT": "-o", "PODIUM_CONFIG": "-c"}, None, False) == [
        "py",
        "-m",
        "podium",
        "build",
        "--out=-o",
        "--config=-c",
        "--no-cache",
    ]


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


def test_a_tripped_gate_fails_the_step_after_the_report(tmp_path, host, tls):
    base, served = host
    runner = live_demo(tmp_path, tls, served)
    summary = served / "board" / "api" / "results" / "summary.json"
    data = json.loads(summary.read_text(encoding="utf-8"))
    harrier = next(a for a in data["agents"] if a["name"] == "harrier")  # a median (42.5%) with room above
    harrier["median"] = min(1.0, harrier["median"] + 0.1)  # harrier was 10 points higher last time
    summary.write_text(json.dumps(data), encoding="utf-8")
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


def read_lock(path: Path = LOCK) -> dict[str, tuple[str, list[str]]]:
    """requirements/action.lock as {name: (version, hashes)}; every line that is not a comment is
    part of a `name==version \\` entry followed by its `--hash=sha256:…` lines."""
    entries: dict[str, tuple[str, list[str]]] = {}
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.split("#", 1)[0].strip().removesuffix("\\").strip()
        if not text:
            continue
        if m := re.fullmatch(r"([A-Za-z0-9._-]+)==([A-Za-z0-9.+!-]+)", text):
            current = m[1].lower().replace("_", "-").replace(".", "-")
            assert current not in entries, f"{current} twice"
            entries[current] = (m[2], [])
        else:
            m = re.fullmatch(r"--hash=sha256:([0-9a-f]{64})", text)
            assert m and current, f"not a pinned requirement or its hash: {line!r}"
            entries[current][1].append(m[1])
    return entries


def test_the_lock_pins_every_dependency_and_the_build_backend_with_hashes():
    """Every runtime dependency in pyproject.toml and its build backend, pinned to a version they accept, each
    with the hashes of its files; click's Windows-only colorama too (the lock is compiled on Linux). That
    nothing else is missing (a dependency of a dependency) the install step checks with `pip check`."""
    locked = read_lock()
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = [*project["project"]["dependencies"], *project["build-system"]["requires"], "colorama"]
    for spec in map(Requirement, wanted):
        name = spec.name.lower().replace("_", "-")
        assert name in locked, f"{name} is not in {LOCK.name}"
        assert spec.specifier.contains(locked[name][0], prereleases=True), f"{name}=={locked[name][0]} vs {spec}"
    for name, (version, hashes) in locked.items():
        assert hashes, f"{name}=={version} has no hash"
    assert action.LOCK == "requirements/action.lock" and action.LOCK in action.SOURCE_PARTS


def test_install_puts_the_actions_own_podium_in_a_virtualenv(tmp_path):
    """The real step: a virtualenv under RUNNER_TEMP, podium's dependencies and setuptools from the lock
    (hashes checked, wheels only), podium built from the action's directory without an index or build
    isolation, `pip check`; the build step then runs that Python."""
    copy = copy_of_action(tmp_path / "action")
    runner = Runner(tmp_path, action_path=copy)
    done = runner.step("install")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "--require-hashes --no-deps --only-binary=:all: -r " in done.stdout
    assert (
        "--no-deps --no-build-isolation --no-index " in done.stdout
        and "-m pip --disable-pip-version-check --no-input check" in done.stdout
    )
    out = runner.outputs()
    python = runner.temp / "podium-venv" / "bin" / "python"
    assert out == {"python": str(python), "version": "0.1.0"}
    where = subprocess.run(
        [out["python"], "-c", "import podium; print(podium.__file__)"], capture_output=True, text=True, check=True
    )
    assert Path(where.stdout.strip()).is_relative_to(runner.temp / "podium-venv")
    frozen = subprocess.run([out["python"], "-m", "pip", "freeze", "--all"], capture_output=True, text=True, check=True)
    installed = {
        name.lower().replace("_", "-"): version
        for name, _, version in (line.partition("==") for line in frozen.stdout.splitlines())
        if version
    }
    for name, (version, _) in read_lock().items():
        assert installed.get(name) == version, f"{name}: {installed.get(name)} installed, {version} locked"
    runner.export_from(SAMPLES if SAMPLES.is_dir() else DEMO)
    built = runner.plan_and_build(PODIUM_PYTHON=out["python"])
    assert built.returncode == 0, built.stdout + built.stderr
    assert f"{python} -m podium build --out=site " in built.stdout


def test_install_refuses_a_file_whose_hash_is_not_in_the_lock(tmp_path):
    copy = copy_of_action(tmp_path / "action")
    lock = copy / "requirements" / "action.lock"
    text = lock.read_text(encoding="utf-8")
    _, hashes = read_lock(lock)["mdurl"]
    for digest in hashes:
        text = text.replace(digest, "0" * 64)
    lock.write_text(text, encoding="utf-8")
    runner = Runner(tmp_path, action_path=copy)
    done = runner.step("install")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "DO NOT MATCH THE HASHES" in done.stdout and "mdurl" in done.stdout
    assert "pip install of podium's dependencies from requirements/action.lock failed" in done.stderr
    python = runner.temp / "podium-venv" / "bin" / "python"
    assert subprocess.run([python, "-c", "import podium"], capture_output=True).returncode != 0
    (copy / "requirements" / "action.lock").unlink()
    missing = runner.step("install")
    assert missing.returncode == 2 and "the action's lock file is missing" in missing.stderr


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
