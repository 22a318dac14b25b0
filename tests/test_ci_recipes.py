"""The CI recipes of docs/ci/ (issues 8 and 28): the GitHub Actions workflows pass zizmor (offline, its
default persona) and GitHub's workflow schema, pin every action to a release's commit, grant each job only
what it needs and install nothing by a bare name; the generic publish.sh is run against a local directory
as the host. The action itself (action.yml, scripts/action.py) is tested in tests/test_action.py."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sitekit
import yaml
from exportkit import ExportDir, graded, run_id
from ghrunner import runner_commands

REPO = Path(__file__).resolve().parents[1]
WORKFLOW = REPO / "docs" / "ci" / "github-pages.yml"
WORKFLOW_PIP = REPO / "docs" / "ci" / "github-pages-pip.yml"
WORKFLOWS = [WORKFLOW, WORKFLOW_PIP]
ACTION = REPO / "action.yml"
PUBLISH = REPO / "docs" / "ci" / "publish.sh"
PLACEHOLDER = "0" * 40

# The release each action is pinned to and its commit, read from the action's own repository
# (`git rev-parse vX.Y.Z^{commit}`); the recipes and action.yml must say exactly these.
PINS = {
    "actions/checkout": ("v7.0.1", "3d3c42e5aac5ba805825da76410c181273ba90b1"),
    "actions/setup-python": ("v7.0.0", "5fda3b95a4ea91299a34e894583c3862153e4b97"),
    "actions/cache/restore": ("v5.0.5", "27d5ce7f107fe9357f9df03efb73ab90386fccae"),
    "actions/cache/save": ("v5.0.5", "27d5ce7f107fe9357f9df03efb73ab90386fccae"),
    "actions/upload-pages-artifact": ("v5.0.0", "fc324d3547104276b827a68afc52ff2a11cc49c9"),
    "actions/deploy-pages": ("v5.0.0", "cd2ce8fcbc39b97be8ca5fce6e763baed58fa128"),
}
USES_LINE = re.compile(r"^\s*(?:- )?uses: (?P<action>[^@\s]+)@(?P<ref>\S+)(?: # (?P<comment>.*))?$")


def tool(name: str) -> str:
    """A linter from the test extra, beside this Python (mandatory: the test extra pins it)."""
    found = Path(sys.executable).parent / name
    path = str(found) if found.exists() else shutil.which(name)
    assert path, f"{name} is not installed: pip install -e '.[test]'"
    return path


def zizmor(path: Path, persona: str = "regular") -> list[dict]:
    """zizmor's findings on ``path`` (its default persona unless told), offline, with no config file to relax it."""
    done = subprocess.run(
        [tool("zizmor"), "--offline", "--no-config", f"--persona={persona}", "--format=json", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 10, 11, 12, 13, 14), done.stderr  # 1x: findings of some severity
    return json.loads(done.stdout)


def check_schema(path: Path, schema: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [tool("check-jsonschema"), "--builtin-schema", schema, str(path)], capture_output=True, text=True, timeout=120
    )


def steps_by_name(job: dict) -> dict[str, dict]:
    return {step["name"]: step for step in job["steps"]}


@pytest.mark.parametrize("persona", ["regular", "pedantic"])
@pytest.mark.parametrize("path", [*WORKFLOWS, ACTION], ids=lambda p: p.name)
def test_zizmor_finds_nothing(path, persona):
    assert zizmor(path, persona) == []


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_passes_githubs_workflow_schema(path):
    done = check_schema(path, "vendor.github-workflows")
    assert done.returncode == 0, done.stdout + done.stderr


def test_action_passes_githubs_action_schema():
    done = check_schema(ACTION, "vendor.github-actions")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_audit_bites(tmp_path):
    """The unaudited recipe as it was (issue 28): zizmor's 8 findings, so a passing audit means something."""
    old = WORKFLOW.read_text(encoding="utf-8")
    for name, (tag, sha) in PINS.items():
        old = old.replace(f"{name}@{sha} # {tag}", f"{name}@{tag.split('.')[0]}")
    old = old.replace(
        "        with:\n          persist-credentials: false  # no token left in .git/config for a later step to read\n",
        "",
    )
    old = re.sub(r"\n    permissions:\n(?:      .*\n)+", "\n", old)  # the jobs' own, then the old workflow-wide grant
    old = old.replace("permissions: {}", "permissions:\n  contents: read\n  pages: write\n  id-token: write")
    bad = tmp_path / "leaderboard.yml"
    bad.write_text(old, encoding="utf-8")
    found = sorted(f["ident"] for f in zizmor(bad))
    assert found == ["artipacked", "excessive-permissions", "excessive-permissions", *["unpinned-uses"] * 4]


@pytest.mark.parametrize("path", [*WORKFLOWS, ACTION], ids=lambda p: p.name)
def test_every_action_is_pinned_to_its_release_commit(path):
    uses = [m for line in path.read_text(encoding="utf-8").splitlines() if (m := USES_LINE.match(line))]
    assert uses
    for m in uses:
        action, ref = m["action"], m["ref"]
        if action == "OWNER/podium":  # the user's choice of podium release: a placeholder they must replace
            assert ref == PLACEHOLDER and m["comment"].startswith("vX.Y.Z: replace")
            continue
        assert action in PINS, f"{path.name}: {action} has no recorded pin"
        tag, sha = PINS[action]
        assert (ref, m["comment"]) == (sha, tag), f"{path.name}: {action}@{ref} # {m['comment']}"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_permissions_are_per_job_and_least(path):
    flow = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert flow["permissions"] == {}
    assert flow["jobs"]["build"]["permissions"] == {"contents": "read"}
    assert flow["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    checkout = [s for s in flow["jobs"]["build"]["steps"] if s.get("uses", "").startswith("actions/checkout@")]
    assert [s["with"]["persist-credentials"] for s in checkout] == [False]
    # The XORCISE secrets reach the export step only, not the build or anything after it.
    for job in flow["jobs"].values():
        for step in job["steps"]:
            secret = "secrets." in json.dumps(step)
            assert secret == (step["name"] == "Export the runs from XORCISE"), step["name"]
        assert "secrets." not in json.dumps(job.get("env", {}))


def pip_lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if "pip install" in line]


def test_installs_name_no_package_by_its_bare_name():
    """Every pip install names an exact version or a commit: `podium` on an index is not this project."""
    for path in WORKFLOWS:
        for line in pip_lines(path):
            requirements = re.findall(r'"([^"]+)"', line)
            assert requirements, line
            for req in requirements:
                assert re.fullmatch(
                    r"xorcise==0\.2\.0|podium @ git\+\$\{PODIUM_REPOSITORY\}@\$\{PODIUM_COMMIT\}", req
                ), req
    assert pip_lines(WORKFLOW) == ['run: python -m pip install --disable-pip-version-check "xorcise==0.2.0"']
    assert "pip install" not in ACTION.read_text(encoding="utf-8")  # the action installs from its own directory


def test_recipe_with_the_action_is_export_action_deploy():
    flow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    build, deploy = flow["jobs"]["build"], flow["jobs"]["deploy"]
    assert list(steps_by_name(build)) == [
        "Check out",
        "Set up Python",
        "Install the XORCISE client",
        "Export the runs from XORCISE",
        "Build the site",
        "Upload the site",
    ]
    steps = steps_by_name(build)
    export = steps["Export the runs from XORCISE"]["run"]
    assert "xorcise run export --out export" in export
    assert "xorcise run list --json > export/runs.json" in export
    assert "xorcise agent list --json > export/agents.json" in export
    assert export.count("export/") == 2  # steps before the build write only where the build reads
    podium = steps["Build the site"]
    assert podium["uses"] == f"OWNER/podium@{PLACEHOLDER}"
    assert podium["with"] == {
        "export": "export",
        "out": "site",
        "host": "github-pages",
        "previous-summary-url": "${{ vars.SITE_URL }}",
    }
    action_inputs = yaml.safe_load(ACTION.read_text(encoding="utf-8"))["inputs"]
    assert set(podium["with"]) <= set(action_inputs)
    assert steps["Upload the site"]["with"]["path"] == "${{ steps.podium.outputs.site-dir }}"
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]


def test_recipe_without_the_action_has_the_documented_steps():
    flow = yaml.safe_load(WORKFLOW_PIP.read_text(encoding="utf-8"))
    build = flow["jobs"]["build"]
    assert list(steps_by_name(build)) == [
        "Check out",
        "Set up Python",
        "Install podium and the XORCISE client",
        "Export the runs from XORCISE",
        "Restore the podium cache",
        "Fetch the published summary",
        "Build the site",
        "Post the change report",
        "Save the podium cache",
        "Upload the site",
    ]
    steps = steps_by_name(build)
    for name in ("Restore the podium cache", "Save the podium cache"):
        assert steps[name]["if"] == "env.TRUSTED_RUN == 'true'"
        assert steps[name]["with"]["path"].split() == [".podium-cache/", "site/"]
        assert "${{ env.PODIUM_COMMIT }}" in steps[name]["with"]["key"]  # a cache only for the podium that wrote it
    report = steps["Post the change report"]["run"]
    assert 'podium diff previous/summary.json site/api/results/summary.json >> "$GITHUB_STEP_SUMMARY"' in report
    assert steps["Upload the site"]["with"]["path"] == "site"


# --- GitHub's expressions, as far as the recipes use them ----------------------------------


def evaluate(expression: str, github: dict) -> object:
    """A `${{ … }}` expression's value with the `github` context: literals, property paths, ! && || == !=,
    parentheses and contains / startsWith / format / fromJSON, with GitHub's semantics (strings compared
    ignoring case; && and || give an operand; null, false, 0 and '' are falsy)."""
    inner = re.fullmatch(r"\s*\$\{\{(.*)\}\}\s*", expression, re.S)
    assert inner, expression
    tokens = re.findall(r"'(?:[^']|'')*'|&&|\|\||==|!=|[()!,]|[A-Za-z_][\w.-]*|\d+(?:\.\d+)?|\S", inner[1])
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take(expected: str | None = None) -> str:
        nonlocal pos
        token = tokens[pos]
        assert expected is None or token == expected, (token, expected)
        pos += 1
        return token

    def truthy(value: object) -> bool:
        return value not in (None, False, 0, "")

    def equal(a: object, b: object) -> bool:
        if isinstance(a, str) and isinstance(b, str):
            return a.casefold() == b.casefold()
        return a == b

    def text(value: object) -> str:
        return "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)

    functions = {
        "contains": lambda where, item: (
            any(equal(x, item) for x in where)
            if isinstance(where, list)
            else text(item).casefold() in text(where).casefold()
        ),
        "startsWith": lambda value, prefix: text(value).casefold().startswith(text(prefix).casefold()),
        "format": lambda template, *args: re.sub(r"\{(\d+)\}", lambda m: text(args[int(m[1])]), template),
        "fromJSON": json.loads,
    }

    def chain(op: str, operand, pick) -> object:
        value = operand()
        while peek() == op:
            take()
            value = pick(value, operand())
        return value

    def either() -> object:
        return chain("||", both, lambda a, b: a if truthy(a) else b)

    def both() -> object:
        return chain("&&", comparison, lambda a, b: b if truthy(a) else a)

    def comparison() -> object:
        value = unary()
        while peek() in ("==", "!="):
            op = take()
            right = unary()
            value = equal(value, right) == (op == "==")
        return value

    def unary() -> object:
        if peek() == "!":
            take()
            return not truthy(unary())
        return primary()

    def primary() -> object:
        token = take()
        if token == "(":
            value = either()
            take(")")
            return value
        if token.startswith("'"):
            return token[1:-1].replace("''", "'")
        if token in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[token]
        if re.fullmatch(r"\d+(?:\.\d+)?", token):
            return float(token)
        if peek() == "(":
            take("(")
            args = []
            while peek() != ")":
                args.append(either())
                if peek() == ",":
                    take()
            take(")")
            return functions[token](*args)
        names = token.split(".")
        assert names[0] == "github", f"only the github context here, not {token}"
        value: object = github
        for name in names[1:]:
            value = value.get(name) if isinstance(value, dict) else None
        return value

    value = either()
    assert pos == len(tokens), tokens[pos:]
    return value


def as_env(value: object) -> str:
    return "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def github_context(event: str, ref: str, default_branch: str | None) -> dict:
    """The `github` context of a run: a schedule event's payload holds no repository (GitHub sends only the cron)."""
    payload: dict = {"schedule": "17 * * * *"} if event == "schedule" else {}
    if default_branch is not None:
        payload["repository"] = {"default_branch": default_branch, "fork": False}
    return {"event_name": event, "ref": ref, "event": payload}


@pytest.mark.parametrize(
    ("event", "ref", "default", "trusted"),
    [
        ("schedule", "refs/heads/main", None, True),  # every run of the hourly recipe (issue 34)
        ("schedule", "refs/heads/trunk", None, True),
        ("schedule", "refs/tags/v1", None, False),
        ("push", "refs/heads/main", "main", True),
        ("push", "refs/heads/feature", "main", False),
        ("workflow_dispatch", "refs/heads/main", "main", True),
        ("workflow_dispatch", "refs/heads/feature", "main", False),
        ("workflow_dispatch", "refs/heads/main", None, False),
        ("pull_request", "refs/pull/7/merge", "main", False),  # from a fork or not
        ("pull_request_target", "refs/heads/main", "main", False),  # runs on the default branch, for a fork's PR
        ("workflow_run", "refs/heads/main", "main", False),
        ("issue_comment", "refs/heads/main", "main", False),
    ],
)
def test_pip_recipe_trusts_the_cache_on_the_default_branchs_own_runs(event, ref, default, trusted):
    """TRUSTED_RUN as GitHub evaluates it: scheduled runs use the cache too; no pull request does."""
    flow = yaml.safe_load(WORKFLOW_PIP.read_text(encoding="utf-8"))
    expression = flow["jobs"]["build"]["env"]["TRUSTED_RUN"]
    assert as_env(evaluate(expression, github_context(event, ref, default))) == str(trusted).lower()


def test_the_expression_evaluator_bites():
    context = github_context("push", "refs/heads/Main", "main")
    assert evaluate("${{ github.ref == format('refs/heads/{0}', github.event.repository.default_branch) }}", context)
    assert evaluate("${{ github.event.nothing.here }}", context) is None
    assert evaluate("${{ !startsWith(github.ref, 'refs/tags/') && 'yes' || 'no' }}", context) == "yes"
    assert not evaluate('${{ contains(fromJSON(\'["a", "b"]\'), github.event_name) }}', context)


# --- the pip recipe's fetch of the published summary --------------------------------------


FAKE_CURL = """#!{python}
import json, os, sys
args = sys.argv[1:]
with open(os.environ["CURL_LOG"], "a") as log:
    log.write(json.dumps(args) + "\\n")
url = args[-1]
status, code = json.loads(os.environ["CURL_ANSWERS"]).get(url.rsplit("/", 1)[1], [404, 0])
if "-o" in args and status == 200:
    body = json.loads(os.environ.get("CURL_BODIES", "{{}}")).get(url.rsplit("/", 1)[1], "{{}}")
    open(args[args.index("-o") + 1], "w").write(body)
if "-w" in args:
    sys.stdout.write(str(status))
sys.exit(code)
"""


def fetch_step(
    tmp_path: Path, answers: dict[str, list[int]], bodies: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess, list[list[str]]]:
    """The recipe's fetch step with a curl that answers ``answers[file] = [HTTP status, curl's exit]`` (404 else),
    with ``bodies[file]`` (``{}`` else)."""
    steps = steps_by_name(yaml.safe_load(WORKFLOW_PIP.read_text(encoding="utf-8"))["jobs"]["build"])
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "curl").write_text(FAKE_CURL.format(python=sys.executable))
    (bin_dir / "curl").chmod(0o755)
    log = tmp_path / "curl.log"
    log.write_text("")
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "SITE_URL": "https://board.example/",
        "CURL_LOG": str(log),
        "CURL_ANSWERS": json.dumps(answers),
        "CURL_BODIES": json.dumps(bodies or {}),
    }
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", steps["Fetch the published summary"]["run"]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done, [json.loads(line) for line in log.read_text().splitlines()]


CAPPED = ["--proto", "=https", "--connect-timeout", "20", "--max-time", "120", "--max-filesize", "67108864"]


def test_pip_recipe_fetches_over_https_only_with_a_deadline_and_a_cap(tmp_path):
    done, calls = fetch_step(tmp_path, {"summary.json": [200, 0], "changes.json": [200, 0]})
    assert done.returncode == 0, done.stdout + done.stderr
    assert [call[-1] for call in calls] == [
        f"https://board.example/api/results/{f}" for f in ("summary.json", "changes.json", "redirects.json")
    ]
    for call in calls:
        assert call[: len(CAPPED) + 1] == ["-sS", *CAPPED], call  # and no -L: a redirect is not followed
        assert not {"-L", "--location", "-k", "--insecure"} & set(call)
    assert sorted(p.name for p in (tmp_path / "previous").iterdir()) == ["changes.json", "summary.json"]


def test_pip_recipe_fetches_a_summary_in_parts_with_its_agents_parts(tmp_path):
    """podium.summary/2: each agent's part (a slug podium makes, once for both scopes) beside the summary, as a site
    holds it; one not there is left out (podium warns); a slug podium cannot make is never fetched."""
    if shutil.which("jq") is None:
        if os.environ.get("PODIUM_REQUIRE_JQ") == "1":
            pytest.fail("jq is missing and PODIUM_REQUIRE_JQ=1", pytrace=False)
        pytest.skip("jq is not installed")
    index = {
        "schema": "podium.summary/2",
        "agents": [{"slug": "osprey"}, {"slug": "../../evil"}, {"slug": "kestrel"}],
        "agents_older": [{"slug": "osprey"}, {"slug": "merlin"}],
    }
    answers = {name: [200, 0] for name in ("summary.json", "osprey.json", "merlin.json")}
    done, calls = fetch_step(tmp_path, answers, {"summary.json": json.dumps(index), "osprey.json": '{"part": 1}'})
    assert done.returncode == 0, done.stdout + done.stderr
    parts = "https://board.example/api/results/summary/agents/"
    assert [call[-1] for call in calls][3:] == [f"{parts}{slug}.json" for slug in ("kestrel", "merlin", "osprey")]
    assert all(call[: len(CAPPED) + 1] == ["-sS", *CAPPED] for call in calls)
    agents = tmp_path / "previous" / "summary" / "agents"
    assert sorted(p.name for p in agents.iterdir()) == ["merlin.json", "osprey.json"]
    assert (agents / "osprey.json").read_text() == '{"part": 1}'


@pytest.mark.parametrize(
    ("answer", "code", "said"),
    [
        ([404, 0], 0, "Nothing published at https://board.example/api/results yet: a first publish"),
        ([410, 0], 0, "a first publish"),
        ([200, 63], 0, "::warning::https://board.example/api/results/summary.json is larger than 64 MiB"),
        ([301, 0], 3, "::error::https://board.example/api/results/summary.json redirects (HTTP 301): set SITE_URL"),
        ([500, 0], 3, "::error::https://board.example/api/results/summary.json: HTTP 500, curl exit 0; not building"),
        ([0, 28], 3, "HTTP 0, curl exit 28; not building"),  # --max-time ran out
        ([0, 1], 3, "curl exit 1; not building"),  # --proto: not https
    ],
)
def test_pip_recipe_fetch_outcomes(tmp_path, answer, code, said):
    done, _ = fetch_step(tmp_path, {"summary.json": answer})
    assert done.returncode == code, done.stdout + done.stderr
    assert said in done.stdout
    assert not (tmp_path / "previous" / "summary.json").exists()


def fake_tools(tmp_path: Path, *names: str) -> Path:
    """Commands on PATH that record their arguments (one line each, NUL-separated) instead of running."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name in names:
        script = bin_dir / name
        script.write_text(
            f'#!/bin/sh\nprintf \'%s\\0\' "$@" >> "{tmp_path}/{name}.args"\necho >> "{tmp_path}/{name}.args"\n'
        )
        script.chmod(0o755)
    return bin_dir


def run_step(tmp_path: Path, step: dict, env: dict[str, str], *tools: str) -> subprocess.CompletedProcess:
    bin_dir = fake_tools(tmp_path, *tools)
    environ = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(tmp_path), **env}
    return subprocess.run(
        ["bash", "-e", "-c", step["run"]], cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=60
    )


def recorded(tmp_path: Path, name: str) -> list[list[str]]:
    path = tmp_path / f"{name}.args"
    if not path.exists():
        return []
    return [line.split("\0")[:-1] for line in path.read_text().splitlines() if line]


@pytest.mark.parametrize("commit", [PLACEHOLDER, "v0.1.0", "abc123", "0123456789abcdef0123456789abcdef0123456"])
def test_pip_recipe_refuses_podium_without_a_full_commit(tmp_path, commit):
    steps = steps_by_name(yaml.safe_load(WORKFLOW_PIP.read_text(encoding="utf-8"))["jobs"]["build"])
    done = run_step(
        tmp_path,
        steps["Install podium and the XORCISE client"],
        {"PODIUM_REPOSITORY": "https://github.com/example/podium", "PODIUM_COMMIT": commit},
        "python",
    )
    assert done.returncode == 2 and "PODIUM_COMMIT must be the full 40-hex commit" in done.stdout
    assert recorded(tmp_path, "python") == []


def test_pip_recipe_installs_podium_from_the_named_commit(tmp_path):
    steps = steps_by_name(yaml.safe_load(WORKFLOW_PIP.read_text(encoding="utf-8"))["jobs"]["build"])
    sha = "8a7d1ab" + "0" * 32 + "1"
    done = run_step(
        tmp_path,
        steps["Install podium and the XORCISE client"],
        {"PODIUM_REPOSITORY": "https://github.com/example/podium", "PODIUM_COMMIT": sha},
        "python",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert recorded(tmp_path, "python") == [
        [
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            f"podium @ git+https://github.com/example/podium@{sha}",
            "xorcise==0.2.0",
        ]
    ]


@pytest.mark.parametrize(
    ("trusted", "previous", "flags"),
    [
        ("true", True, ["--cache-dir", ".podium-cache", "--previous", "previous/summary.json"]),
        ("true", False, ["--cache-dir", ".podium-cache"]),
        ("false", True, ["--no-cache", "--previous", "previous/summary.json"]),
    ],
)
def test_pip_recipe_builds_without_the_cache_on_an_untrusted_run(tmp_path, trusted, previous, flags):
    steps = steps_by_name(yaml.safe_load(WORKFLOW_PIP.read_text(encoding="utf-8"))["jobs"]["build"])
    if previous:
        (tmp_path / "previous").mkdir()
        (tmp_path / "previous" / "summary.json").write_text("{}")
    done = run_step(tmp_path, steps["Build the site"], {"TRUSTED_RUN": trusted}, "podium")
    assert done.returncode == 0, done.stderr
    assert recorded(tmp_path, "podium") == [["build", "export", "--out", "site", "--host", "github-pages", *flags]]
    assert [name for name, _ in runner_commands(done.stdout)] == ["stop-commands"]  # podium's output: no command


@pytest.mark.parametrize("step", ["Build the site", "Post the change report"])
def test_pip_recipe_reads_no_workflow_command_from_podium(tmp_path, step):
    """podium quotes the export and the previous summary; between stop-commands and its resume the runner
    reads no command from it, and the step still fails when podium does."""
    steps = steps_by_name(yaml.safe_load(WORKFLOW_PIP.read_text(encoding="utf-8"))["jobs"]["build"])
    (tmp_path / "previous").mkdir()
    (tmp_path / "previous" / "summary.json").write_text("{}")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "podium").write_text("#!/bin/sh\necho '::add-mask::x'\necho '##[set-output name=a]b' >&2\nexit 3\n")
    (bin_dir / "podium").chmod(0o755)
    summary = tmp_path / "summary.md"
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", steps[step]["run"]],
        cwd=tmp_path,
        env={"PATH": f"{bin_dir}:{os.environ['PATH']}", "TRUSTED_RUN": "false", "GITHUB_STEP_SUMMARY": str(summary)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3, done.stdout
    assert [name for name, _ in runner_commands(done.stdout)] == ["stop-commands"], done.stdout


@pytest.fixture
def project(tmp_path):
    export = ExportDir(tmp_path / "export")
    for n in range(3):
        rid = run_id(f"ci-{n}")
        export.run(graded(rid, det=0.25 * n), rid=rid, agent="osprey")
    export.sidecars()
    (tmp_path / "podium.yaml").write_text('title: "First"\n', encoding="utf-8")
    return tmp_path


def publish(project: Path, host: str, *, path: str | None = None, **env) -> subprocess.CompletedProcess:
    environ = {
        **os.environ,
        "EXPORT": "export",
        "SITE": "site",
        "PUBLISH_TO": host,
        "PODIUM": f"{sys.executable} -m podium",
        "PODIUM_ARGS": "--config podium.yaml --quiet",
        **env,
    }
    if path is not None:
        environ["PATH"] = path
    return subprocess.run(
        ["/bin/sh", str(PUBLISH)], cwd=project, env=environ, capture_output=True, text=True, timeout=120
    )


def published(host: Path) -> dict[str, bytes]:
    return sitekit.site_files(host)


def check_round_trip(project: Path, path: str | None = None) -> str:
    host = project / "host" / "www"
    host.mkdir(parents=True)
    (host / "stale.html").write_text("from an older publish")
    first = publish(project, str(host), path=path)
    assert first.returncode == 0, first.stderr
    site = sitekit.site_files(project / "site")
    site.pop(".podium-site")
    assert published(host) == site  # stale.html is gone, the marker is not published
    (project / "podium.yaml").write_text('title: "Second"\n', encoding="utf-8")
    second = publish(project, str(host), path=path)
    assert second.returncode == 0, second.stderr
    assert b"Second" in (host / "index.html").read_bytes()
    assert [p.name for p in (project / "host").iterdir()] == ["www"]  # no leftovers beside the host dir
    return first.stdout + second.stdout


@pytest.mark.skipif(shutil.which("rsync") is None, reason="rsync is not installed (the cp fallback is tested below)")
def test_publish_sh_with_rsync_to_a_local_directory(project):
    out = check_round_trip(project)
    assert "publish.sh: rsync -a --delete-after --delay-updates" in out


def test_publish_sh_without_rsync_copies_and_swaps(project, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "cp", "mv", "rm", "mkdir", "dirname", "cat", "env"):
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    out = check_round_trip(project, path=str(bin_dir))
    assert "publish.sh: cp -a site/. " in out and "publish.sh: rsync" not in out


def test_publish_sh_fetches_the_previous_summary_over_https_with_a_deadline(project, tmp_path):
    bin_dir = fake_tools(tmp_path, "curl")
    path = f"{bin_dir}:{os.environ['PATH']}"
    done = publish(
        project, "s3://bucket/board", DRY_RUN="1", PREVIOUS_SUMMARY_URL="https://x.example/s.json", PATH=path
    )
    assert done.returncode == 0, done.stderr
    [call] = recorded(tmp_path, "curl")
    assert call[:-3] == ["-fsSL", "--proto", "=https", "--proto-redir", "=https", "--max-redirs", "5", *CAPPED[2:]]
    assert call[-3:] == ["https://x.example/s.json", "-o", call[-1]]


def test_publish_sh_on_github_actions_reads_no_command_from_podium(project, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "podium").write_text(f"#!/bin/sh\necho '::add-mask::x'\nexec {sys.executable} -m podium \"$@\"\n")
    (bin_dir / "podium").chmod(0o755)
    done = publish(project, "s3://bucket/board", DRY_RUN="1", PODIUM=str(bin_dir / "podium"), GITHUB_ACTIONS="true")
    assert done.returncode == 0, done.stderr
    assert [name for name, _ in runner_commands(done.stdout)] == ["stop-commands"], done.stdout


def test_publish_sh_dry_run_picks_s3_and_rclone_by_the_target(project):
    s3 = publish(project, "s3://bucket/board", DRY_RUN="1")
    assert s3.returncode == 0, s3.stderr
    assert "publish.sh: aws s3 sync site/ s3://bucket/board --delete" in s3.stdout
    rclone = publish(project, "rclone:remote:board", DRY_RUN="1")
    assert "publish.sh: rclone sync site/ remote:board" in rclone.stdout
    missing = publish(project, "")
    assert missing.returncode != 0 and "set PUBLISH_TO" in missing.stderr


# --- publish.sh's fetch of the previous summary and its agents' parts ----------------------------------
SERVING_CURL = """#!{python}
import json, os, sys
args = sys.argv[1:]
with open(os.environ["CURL_LOG"], "a") as log:
    log.write(json.dumps(args) + "\\n")
url = args[args.index("-o") - 1]
path = url.removeprefix("https://board.example/")
code = json.loads(os.environ.get("CURL_EXITS", "{{}}")).get(path, 0)
served = os.path.join(os.environ["HOST_ROOT"], path)
if code == 0 and not (url.startswith("https://board.example/") and os.path.isfile(served)):
    code = 22  # -f: an HTTP error
if code == 0:
    with open(served, "rb") as body, open(args[args.index("-o") + 1], "wb") as out:
        out.write(body.read())
sys.exit(code)
"""
SUMMARY_URL = "https://board.example/api/results/summary.json"
PARTS_URL = "https://board.example/api/results/summary/agents/"
PUBLISH_CURL = ["-fsSL", "--proto", "=https", "--proto-redir", "=https", "--max-redirs", "5", *CAPPED[2:]]
PUBLISH_TOOLS = ("sh", "mktemp", "rm", "mkdir", "date", "grep", "sort", "wc", "tr", "cat", "env", "dirname")


def serving(tmp_path: Path, host: Path, reader: str, **exits: int) -> dict[str, str]:
    """publish.sh's environment with only its tools on PATH, the slugs read by ``reader`` (jq or python3), and a
    curl serving ``host`` as https://board.example/ (``exits``: a path's curl exit instead, 63 for too large)."""
    bin_dir = tmp_path / "serving-bin"
    bin_dir.mkdir()
    for tool in PUBLISH_TOOLS:
        (bin_dir / tool).symlink_to(shutil.which(tool) or pytest.fail(tool))
    found = sys.executable if reader == "python3" else shutil.which(reader)
    if found is None:
        if os.environ.get("PODIUM_REQUIRE_JQ") == "1":
            pytest.fail("jq is missing and PODIUM_REQUIRE_JQ=1", pytrace=False)
        pytest.skip(f"{reader} is not installed")
    (bin_dir / reader).symlink_to(found)
    (bin_dir / "curl").write_text(SERVING_CURL.format(python=sys.executable))
    (bin_dir / "curl").chmod(0o755)
    return {
        "PATH": str(bin_dir),
        "HOST_ROOT": str(host),
        "CURL_LOG": str(tmp_path / "curl.log"),
        "CURL_EXITS": json.dumps(exits),
        "PREVIOUS_SUMMARY_URL": SUMMARY_URL,
        "DRY_RUN": "1",
    }


def curl_calls(tmp_path: Path) -> list[list[str]]:
    log = tmp_path / "curl.log"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.mark.parametrize("reader", ["jq", "python3"])
def test_publish_sh_fetches_the_agents_parts_its_change_report_counts_new_runs_from(project, tmp_path, reader):
    """A summary in parts (podium.summary/2) and each agent's part beside it, as the live site holds them: the
    change report has every agent's new runs per mission version, and no warning of parts left out."""
    built = subprocess.run(
        [sys.executable, "-m", "podium", "build", "export", "--out", "host", "--config", "podium.yaml", "--quiet"],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    export = ExportDir(project / "export")
    rid = run_id("ci-new")
    export.run(graded(rid, det=0.75), rid=rid, agent="osprey")
    export.sidecars()
    done = publish(project, "s3://bucket/board", **serving(tmp_path, project / "host", reader))
    assert done.returncode == 0, done.stdout + done.stderr
    assert [call[-3] for call in curl_calls(tmp_path)] == [SUMMARY_URL, f"{PARTS_URL}osprey.json"]
    assert all(call[:-3] == PUBLISH_CURL for call in curl_calls(tmp_path))  # the same caps for each
    assert "**New runs by agent and mission version**" in done.stdout
    assert "\n- osprey on m1 1.0.0: " in done.stdout  # (a row only osprey's part tells)
    assert "could not be read" not in done.stdout + done.stderr


HOSTILE = {
    "schema": "podium.summary/2",
    "agents": [
        {"slug": "../../evil"},
        {"slug": "a/b"},
        {"slug": "Osprey"},
        {"slug": "x\nosprey"},
        {"slug": "https://elsewhere.example/x"},
        {"slug": 5},
        {"slug": "a" * 101},
        "kestrel",
        {"slug": "merlin"},
        {"slug": "-dash"},
    ],
    "agents_older": [{"slug": "merlin"}, {"slug": "kestrel"}, {"slug": "too-big"}],
    "missions": [{"slug": "mission-slug"}],
}


@pytest.mark.parametrize("reader", ["jq", "python3"])
def test_publish_sh_fetches_only_parts_podium_names_from_a_hostile_index(project, tmp_path, reader):
    """The index is the live site's, untrusted: only slugs podium makes become paths (no "/", "..", newline,
    capital, other host, nor other key's slug), each fetched once with the summary's caps; a part over 64 MiB
    (curl exit 63) or not there is left out, and the publish goes on with podium's warning."""
    host = tmp_path / "host"
    (host / "api" / "results" / "summary" / "agents").mkdir(parents=True)
    (host / "api" / "results" / "summary.json").write_text(json.dumps(HOSTILE))
    (host / "api" / "results" / "summary" / "agents" / "kestrel.json").write_text("{}")
    env = serving(tmp_path, host, reader, **{"api/results/summary/agents/too-big.json": 63})
    done = publish(project, "s3://bucket/board", **env)
    assert done.returncode == 0, done.stdout + done.stderr
    calls = curl_calls(tmp_path)
    assert [call[-3] for call in calls] == [SUMMARY_URL] + [
        f"{PARTS_URL}{s}.json" for s in ("kestrel", "merlin", "too-big")
    ]
    for call in calls:
        assert call[:-3] == PUBLISH_CURL
    assert "publish.sh: published site to s3://bucket/board" in done.stdout


@pytest.mark.parametrize(
    ("index", "env", "said"),
    [
        ({**HOSTILE, "schema": "podium.summary/1"}, {}, ""),  # not in parts: no part to fetch
        ({**HOSTILE, "agents": [{"slug": f"a{n}"} for n in range(10001)]}, {}, "more than 10000: none is fetched"),
        (HOSTILE, {"PARTS_SECONDS": "0"}, "took over 0 s: the rest are not fetched"),
    ],
)
def test_publish_sh_fetches_no_part_past_its_bounds(project, tmp_path, index, env, said):
    host = tmp_path / "host"
    (host / "api" / "results").mkdir(parents=True)
    (host / "api" / "results" / "summary.json").write_text(json.dumps(index))
    done = publish(project, "s3://bucket/board", **serving(tmp_path, host, "python3"), **env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [call[-3] for call in curl_calls(tmp_path)] == [SUMMARY_URL]
    assert said in done.stdout


def test_publish_sh_fetches_no_part_beside_a_summary_of_another_name(project, tmp_path):
    host = tmp_path / "host"
    (host / "api" / "results").mkdir(parents=True)
    (host / "api" / "results" / "s.json").write_text(json.dumps(HOSTILE))
    env = {**serving(tmp_path, host, "python3"), "PREVIOUS_SUMMARY_URL": "https://board.example/api/results/s.json"}
    done = publish(project, "s3://bucket/board", **env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(curl_calls(tmp_path)) == 1
    assert "is not named summary.json: the agents' parts beside it are not fetched" in done.stdout
