#!/usr/bin/env python3
"""The logic of podium's GitHub Action (action.yml): each `run:` step there is one command here.

    python scripts/action.py install   # a virtualenv holding podium from the action's own files
    python scripts/action.py plan      # the cache's key and paths, and whether this run may use it
    python scripts/action.py build     # fetch the previous summary, build, report what changed

Why a script and not shell in the YAML: every branch of it (a first publish, a failing build,
an untrusted event, a bad input) is tested in tests/test_action.py with a fake GITHUB_OUTPUT,
GITHUB_STEP_SUMMARY and event, on real exports. Standard library only: it runs before podium
is installed, on the runner's own Python (3.11 or newer).

Inputs arrive as PODIUM_* environment variables (action.yml maps each `inputs.x` to one, so
no input is ever spliced into a shell line), the runner's context as GITHUB_* / RUNNER_*.
Exit codes: podium's own for the build and the change report (1 a `fail-on-drop` gate
tripped or `podium build` found problems under --strict, 2 a bad input or configuration,
3 the build failed), 2 for a bad action input, 3 when the previous summary could not be
fetched (nothing is built: building without it would restart the site's change history).
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import re
import secrets
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
import venv
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

EXIT_BAD_INPUT = 2
EXIT_NO_PREVIOUS = 3
MIN_PYTHON = (3, 11)

# The events whose runs may restore and save the build cache: each is started by someone with
# write access or by the schedule, and runs the default branch's own workflow on its own code.
# Everything else (pull_request from a fork, pull_request_target, workflow_run, issue_comment,
# ...) builds with --no-cache: podium trusts its cache like the export, so a cache written by
# a run on someone else's input would publish that input on the next trusted build.
TRUSTED_EVENTS = ("push", "schedule", "workflow_dispatch")

# What the action's podium is made of: the cache key changes whenever any of it does, so a
# cache is only ever restored into the podium that wrote it (podium also refuses one itself).
SOURCE_PARTS = ("pyproject.toml", "generator", "themes")

PREVIOUS_FILES = ("summary.json", "changes.json", "redirects.json")  # what `--previous` reads beside it
PREVIOUS_MAX_BYTES = 256 * 1024 * 1024  # podium reads at most this much of each (docs/publishing.md "What a previous")
FETCH_TIMEOUT_S = 60
SUMMARY_TAIL_LINES = 30  # of a failed build's log, quoted in the job summary


class ActionError(Exception):
    """A bad input or a failed step, said in one line naming the input; carries the exit code."""

    def __init__(self, message: str, code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.code = code


# --- the runner's files -------------------------------------------------------------------


def set_outputs(env: Mapping[str, str], values: Mapping[str, str]) -> None:
    """Append step outputs to $GITHUB_OUTPUT, each in the heredoc form with a random delimiter,
    so a value holding a newline (the cache paths) or `name=` text cannot set another output."""
    lines = []
    for name, value in values.items():
        delimiter = f"podium_{secrets.token_hex(8)}"
        lines.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    with open(_required(env, "GITHUB_OUTPUT"), "a", encoding="utf-8") as out:
        out.write("".join(lines))


def add_to_summary(env: Mapping[str, str], markdown: str) -> None:
    """Append Markdown to the job summary ($GITHUB_STEP_SUMMARY); without one (a local run), print it."""
    path = env.get("GITHUB_STEP_SUMMARY")
    if not path:
        print(markdown)
        return
    with open(path, "a", encoding="utf-8") as out:
        out.write(markdown if markdown.endswith("\n") else markdown + "\n")


def _required(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "")
    if not value:
        raise ActionError(f"{name} is not set: run this from the podium action (action.yml)")
    return value


def _lines(value: str) -> list[str]:
    """A multi-line input as its non-empty lines, each stripped (as actions/cache reads `path`)."""
    return [line.strip() for line in value.splitlines() if line.strip()]


def _no_newline(name: str, value: str) -> str:
    if "\n" in value or "\r" in value:
        raise ActionError(f"input {name}: one line expected, got {value!r}")
    return value


# --- install ------------------------------------------------------------------------------


def venv_python(root: Path) -> Path:
    return root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def source_version(action_path: Path) -> str:
    """podium's version as the action's pyproject.toml names it."""
    import tomllib  # here, not at the top: main() first says plainly when this Python is older than 3.11

    try:
        with open(action_path / "pyproject.toml", "rb") as f:
            project = tomllib.load(f)["project"]
        if project["name"] != "podium":
            raise KeyError("name")
        return str(project["version"])
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError) as err:
        raise ActionError(f"{action_path / 'pyproject.toml'}: not podium's project file ({err})") from None


def install(env: Mapping[str, str]) -> dict[str, str]:
    """Make a virtualenv under $RUNNER_TEMP and install podium into it from the action's own
    directory, the same commit as the action: never a package found by name on an index, so
    nobody who registers the name `podium` there gets to run in the workflow. The build then
    runs that virtualenv's Python, whatever else is installed on the runner."""
    action_path = Path(_required(env, "GITHUB_ACTION_PATH")).resolve()
    version = source_version(action_path)
    root = Path(_required(env, "RUNNER_TEMP")) / "podium-venv"
    venv.EnvBuilder(clear=True, with_pip=True).create(root)
    python = venv_python(root)
    _run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--quiet",
          str(action_path)], what="pip install podium from the action's directory")
    found = subprocess.run([str(python), "-c", "import podium; print(podium.__version__); print(podium.__file__)"],
                           capture_output=True, text=True, check=False)
    lines = found.stdout.split("\n")
    if found.returncode != 0 or len(lines) < 2:
        raise ActionError(f"podium does not import after installing it:\n{found.stderr}", 3)
    installed, module = lines[0], Path(lines[1]).resolve()
    if installed != version or not module.is_relative_to(root.resolve()):
        raise ActionError(f"the podium that imports is {installed} from {module}, not {version} from {root}", 3)
    print(f"podium action: podium {version} installed from {action_path} into {root}")
    return {"python": str(python), "version": version}


def _run(command: list[str], *, what: str) -> None:
    done = subprocess.run(command, check=False)
    if done.returncode != 0:
        raise ActionError(f"{what} failed (exit {done.returncode}): {' '.join(command)}", 3)


# --- plan: the cache ----------------------------------------------------------------------


def source_digest(action_path: Path) -> str:
    """SHA-256 over the action's podium (paths and bytes of SOURCE_PARTS), 16 hex digits: the
    same commit gives the same digest whether the action was named by tag, by SHA or as ./."""
    digest = hashlib.sha256()
    for path in _source_files(action_path):
        digest.update(path.relative_to(action_path).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _source_files(action_path: Path) -> Iterator[Path]:
    for part in SOURCE_PARTS:
        top = action_path / part
        if top.is_file():
            yield top
            continue
        for path in sorted(top.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and not any(
                    p.endswith(".egg-info") for p in path.parts):
                yield path


def cache_trusted(env: Mapping[str, str]) -> tuple[bool, str]:
    """May this run restore and save the cache? Only a push, schedule or manual run of the
    default branch itself. Returns the answer and the reason, which the log shows."""
    event = env.get("GITHUB_EVENT_NAME", "")
    if event not in TRUSTED_EVENTS:
        return False, (f"a {event or 'unknown'} event: only {', '.join(TRUSTED_EVENTS)} runs of the default "
                       "branch use the cache")
    default = env.get("PODIUM_DEFAULT_BRANCH", "")
    ref = env.get("GITHUB_REF", "")
    if not default:
        return False, "the default branch is not known (github.event.repository.default_branch is empty)"
    if ref != f"refs/heads/{default}":
        return False, f"{ref or 'no ref'} is not the default branch (refs/heads/{default})"
    return True, f"a {event} run of {ref}"


def cache_dir(out: Path) -> Path:
    """Where the build keeps its cache: podium's default, `.podium-cache` beside the output."""
    return out.parent / ".podium-cache"


def plan(env: Mapping[str, str]) -> dict[str, str]:
    """The cache key, its restore prefix and paths, and whether to restore and save.

    The key names the runner's OS and architecture, podium's version and the digest of its
    source, and the board (its config, output and exports), then this run: a save never
    overwrites another run's, and a restore takes the newest entry with the same prefix."""
    mode = env.get("PODIUM_CACHE", "auto").strip() or "auto"
    if mode not in ("auto", "off"):
        raise ActionError(f"input cache: expected auto or off, got {mode!r}")
    out = Path(_no_newline("out", env.get("PODIUM_OUT", "").strip() or "site"))
    action_path = Path(_required(env, "GITHUB_ACTION_PATH")).resolve()
    board = hashlib.sha256("\0".join([env.get("PODIUM_CONFIG", "").strip(), str(out),
                                      *_lines(env.get("PODIUM_EXPORT", ""))]).encode()).hexdigest()[:8]
    prefix = "-".join(["podium", env.get("RUNNER_OS", "unknown"), env.get("RUNNER_ARCH", "unknown"),
                       source_version(action_path), source_digest(action_path), board]) + "-"
    run = f"{env.get('GITHUB_RUN_ID', '0')}-{env.get('GITHUB_RUN_ATTEMPT', '1')}"
    trusted, why = cache_trusted(env)
    use = mode == "auto" and trusted
    if mode == "off":
        why = "the cache input is off"
    print(f"podium action: cache {'used' if use else 'not used'}: {why}")
    return {"use-cache": str(use).lower(), "cache-key": prefix + run, "restore-key": prefix,
            "cache-paths": f"{cache_dir(out)}\n{out}", "cache-reason": why}


# --- build: the previous summary ----------------------------------------------------------


def check_url(url: str) -> str:
    """An https URL (http only to this machine, for a local test server), no credentials in it."""
    parts = urllib.parse.urlsplit(url)
    if parts.username or parts.password:
        raise ActionError("input previous-summary-url: holds credentials; the summary is fetched without any")
    host = parts.hostname or ""
    if parts.scheme == "https" and host:
        return url
    if parts.scheme == "http" and _loopback(host):
        return url
    raise ActionError(f"input previous-summary-url: expected an https:// URL, got {url!r}")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _CheckedRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only to a URL check_url accepts (no https → http downgrade)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        try:
            check_url(newurl)
        except ActionError:
            raise ActionError(f"{req.full_url}: redirected to {newurl!r}, which is not https",
                              EXIT_NO_PREVIOUS) from None
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def summary_url(value: str) -> str:
    """The input as the summary's URL: a URL ending in .json as it is, a site's address with
    api/results/summary.json under it (so `${{ vars.SITE_URL }}` works with or without a final /)."""
    path = urllib.parse.urlsplit(value).path
    return value if path.endswith(".json") else value.rstrip("/") + "/api/results/summary.json"


def fetch(url: str, limit: int = PREVIOUS_MAX_BYTES) -> bytes | None:
    """The body at ``url``; None when it is not there (404 or 410, as on a first publish). Any
    other failure is an error: the caller stops rather than build as if there were no history."""
    opener = urllib.request.build_opener(_CheckedRedirects())
    request = urllib.request.Request(check_url(url), headers={"User-Agent": "podium-action"})
    try:
        with opener.open(request, timeout=FETCH_TIMEOUT_S) as response:
            body: bytes = response.read(limit + 1)
    except urllib.error.HTTPError as err:
        if err.code in (404, 410):
            return None
        raise ActionError(f"{url}: HTTP {err.code} {err.reason}", EXIT_NO_PREVIOUS) from None
    except (urllib.error.URLError, OSError) as err:
        raise ActionError(f"{url}: {getattr(err, 'reason', err)}", EXIT_NO_PREVIOUS) from None
    if len(body) > limit:
        raise ActionError(f"{url}: larger than {limit:,} bytes, more than podium reads", EXIT_NO_PREVIOUS)
    return body


def fetch_previous(url: str, into: Path) -> Path | None:
    """Download the published summary.json and, beside it, changes.json and redirects.json (so
    the change history and rename redirects carry on); the summary's path, or None when the
    site has none yet."""
    summary = fetch(url)
    if summary is None:
        return None
    into.mkdir(parents=True, exist_ok=True)
    (into / "summary.json").write_bytes(summary)
    base, _, name = url.partition("?")[0].rpartition("/")
    if name == "summary.json":
        for sibling in PREVIOUS_FILES[1:]:
            body = fetch(f"{base}/{sibling}")
            if body is not None:
                (into / sibling).write_bytes(body)
    return into / "summary.json"


# --- build --------------------------------------------------------------------------------


def build_command(python: str, env: Mapping[str, str], previous: Path | None, use_cache: bool) -> list[str]:
    """The `podium build` command line the inputs make (the exports as arguments, never shell)."""
    out = env.get("PODIUM_OUT", "").strip() or "site"
    command = [python, "-m", "podium", "build", *_lines(env.get("PODIUM_EXPORT", "")), "--out", out]
    config = env.get("PODIUM_CONFIG", "").strip()
    if config:
        command += ["--config", _no_newline("config", config)]
    host = env.get("PODIUM_HOST", "").strip()
    if host:
        command += ["--host", _no_newline("host", host)]
    command += ["--cache-dir", str(cache_dir(Path(out)))] if use_cache else ["--no-cache"]
    if previous is not None:
        command += ["--previous", str(previous)]
    return command


def gates(env: Mapping[str, str]) -> list[str]:
    """`fail-on-drop` lines as `podium diff` flags; each must read AGENT=PP."""
    flags = []
    for line in _lines(env.get("PODIUM_FAIL_ON_DROP", "")):
        if "=" not in line:
            raise ActionError(f"input fail-on-drop: expected AGENT=PP on each line, got {line!r}")
        flags += ["--fail-on-drop", line]
    return flags


def run_logged(command: list[str]) -> tuple[int, list[str]]:
    """Run ``command`` with its output passed through to the log; its exit code and its lines."""
    print(f"podium action: {' '.join(command)}", flush=True)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               encoding="utf-8", errors="replace")
    lines = []
    assert process.stdout is not None
    for line in process.stdout:
        sys.stdout.write(line)
        lines.append(line.rstrip("\n"))
    sys.stdout.flush()
    return process.wait(), lines


def fenced(lines: Iterable[str]) -> str:
    """Log lines quoted as a code block in Markdown, with a fence longer than any run of backticks in them."""
    text = "\n".join(lines)
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}\n"


def build(env: Mapping[str, str]) -> tuple[int, dict[str, str]]:
    """Fetch the previous summary, build the site, write the change report to the job summary.
    Returns the exit code and the outputs (written even when the build failed, for a later step)."""
    python = env.get("PODIUM_PYTHON", "").strip() or sys.executable
    out = Path(env.get("PODIUM_OUT", "").strip() or "site")
    temp = Path(_required(env, "RUNNER_TEMP"))
    use_cache = env.get("PODIUM_USE_CACHE", "false") == "true"
    gate_flags = gates(env)
    url = env.get("PODIUM_PREVIOUS_URL", "").strip()
    if url:
        url = summary_url(check_url(_no_newline("previous-summary-url", url)))
    previous = fetch_previous(url, temp / "podium-previous") if url else None
    outputs = {"site-dir": str(out.resolve()), "summary-json": str((out / "api/results/summary.json").resolve()),
               "change-report": "", "first-publish": str(bool(url) and previous is None).lower()}
    code, log = run_logged(build_command(python, env, previous, use_cache))
    if code != 0:
        add_to_summary(env, f"### podium: the build failed (exit {code})\n\nThe published site is unchanged. "
                            f"The end of the build's log:\n\n{fenced(log[-SUMMARY_TAIL_LINES:])}")
        return code, outputs
    wrote = [line for line in log if line.startswith(("podium: wrote ", "podium: nothing changed"))]
    if previous is None:
        why = "no `previous-summary-url` given" if not url else f"nothing published at {url} yet"
        add_to_summary(env, f"### podium: first publish\n\nNo previous summary.json to compare with ({why}).\n"
                            + (f"\n{fenced(wrote)}" if wrote else ""))
        return 0, outputs
    report = temp / "podium-change-report.md"
    diff = [python, "-m", "podium", "diff", str(previous), outputs["summary-json"], *gate_flags]
    print(f"podium action: {' '.join(diff)}", flush=True)
    done = subprocess.run(diff, capture_output=True, text=True, encoding="utf-8", errors="replace", check=False)
    sys.stderr.write(done.stderr)
    report.write_text(done.stdout, encoding="utf-8")
    outputs["change-report"] = str(report)
    add_to_summary(env, done.stdout + (f"\n{fenced(wrote)}" if wrote else ""))
    if done.returncode != 0:
        add_to_summary(env, f"\n**podium diff exited {done.returncode}**"
                            + (" (a fail-on-drop gate tripped)" if done.returncode == 1 else "")
                            + f"\n\n{fenced(done.stderr.splitlines()[-SUMMARY_TAIL_LINES:])}")
    return done.returncode, outputs


# --- main ---------------------------------------------------------------------------------


def main(argv: list[str], env: Mapping[str, str]) -> int:
    if len(argv) != 1 or argv[0] not in ("install", "plan", "build"):
        print("usage: action.py install|plan|build (the podium action's steps; see action.yml)", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        if sys.version_info < MIN_PYTHON:
            raise ActionError(f"podium needs Python {'.'.join(map(str, MIN_PYTHON))} or newer; this is "
                              f"{sys.version.split()[0]} ({sys.executable}): add actions/setup-python first")
        if argv[0] == "install":
            set_outputs(env, install(env))
        elif argv[0] == "plan":
            set_outputs(env, plan(env))
        else:
            code, outputs = build(env)
            set_outputs(env, outputs)
            return code
    except ActionError as err:
        print(f"::error title=podium action::{_one_line(str(err))}", file=sys.stderr)
        print(f"podium action: {err}", file=sys.stderr)
        return err.code
    return 0


def _one_line(text: str) -> str:
    """Workflow-command data escaped as the runner expects (%, CR, LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], os.environ))
