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

import contextlib
import hashlib
import http.client
import ipaddress
import os
import re
import secrets
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse
import venv
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TextIO, TypeVar

T = TypeVar("T")

EXIT_BAD_INPUT = 2
EXIT_NO_PREVIOUS = 3
MIN_PYTHON = (3, 11)

# The events whose runs may restore and save the build cache: each is started by someone with
# write access or by the schedule, and runs the default branch's own workflow on its own code.
# Everything else (pull_request from a fork, pull_request_target, workflow_run, issue_comment,
# ...) builds with --no-cache: podium trusts its cache like the export, so a cache written by
# a run on someone else's input would publish that input on the next trusted build.
TRUSTED_EVENTS = ("push", "schedule", "workflow_dispatch")

# podium's dependencies and build backend, each pinned with the hashes of its files (docs/publishing.md,
# "The action's lock file", says how to refresh it). The install step installs exactly these.
LOCK = "requirements/action.lock"

# What the action's podium is made of: the cache key changes whenever any of it does, so a
# cache is only ever restored into the podium that wrote it (podium also refuses one itself).
SOURCE_PARTS = ("pyproject.toml", "generator", "themes", LOCK)

PREVIOUS_FILES = ("summary.json", "changes.json", "redirects.json")  # what `--previous` reads beside it
# podium reads at most this much of each (load/published.py MAX_BYTES, docs/publishing.md "What a previous
# site can carry"; tests/test_action.py checks they agree):
# a larger one is not fetched further and not used, as podium would not use it.
PREVIOUS_MAX_BYTES = 64 * 1024 * 1024
FETCH_DEADLINE_S = 120.0  # for the previous site's files together: a host that drips bytes cannot hold the job
FETCH_TIMEOUT_S = 30.0  # for one connect or one read
MAX_REDIRECTS = 5
SHOWN_MAX_CHARS = 200  # of a text from elsewhere (a server's reason phrase, a redirect's address) in the log
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
        with commands_stopped(sys.stdout):  # the change report quotes the previous summary
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


# --- the log: no text from elsewhere is read as a workflow command ------------------------
#
# The runner reads a line of a step's output as a workflow command (`::add-mask::…`,
# `::set-output …`, `::stop-commands::…`) when it starts with `::` after any white space, and in
# the older form `##[command]…` anywhere in the line; it ends a line at CR as well as LF. So a
# server's reason phrase printed as it came could mask, annotate or stop the log. Text the
# action did not write is either shown() inside one of the action's own lines, or, for the
# output of podium and pip (which quotes file names and values from the export and the
# previous summary), passed through whole between `::stop-commands::` and its resume line.


def shown(text: str, limit: int = SHOWN_MAX_CHARS) -> str:
    """Text from elsewhere as the log may show it: one line (white space collapsed), ASCII only
    (anything else as a \\x/\\u escape, so no invisible or look-alike character survives), no
    `::` nor `##[` for the runner to read as a command, at most ``limit`` characters."""
    text = " ".join(text.split())
    text = "".join(c if " " <= c <= "~" else c.encode("unicode_escape").decode("ascii") for c in text)
    text = _broken_commands(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _broken_commands(text: str) -> str:
    """``text`` with every `::` and `##[` broken by a space: nothing in it starts a workflow command."""
    return re.sub(r":(?=:)", ": ", text).replace("##[", "# #[")


def say(text: str, stream: TextIO | None = None) -> None:
    """Print the action's own message, each of its lines made safe as well (a message quotes the
    inputs, and shown() text from elsewhere): no line starts a workflow command."""
    out = stream or sys.stdout
    for line in text.splitlines() or [""]:
        line = line.replace("##[", "# #[")
        if line.lstrip().startswith("::"):
            line = "> " + line
        out.write(line + "\n")
    out.flush()


def warn(message: str) -> None:
    """A warning annotation on the run, and the same line in the log."""
    print(f"::warning title=podium action::{_one_line(message)}", flush=True)
    say(f"podium action: warning: {message}")


@contextlib.contextmanager
def commands_stopped(*streams: TextIO) -> Iterator[None]:
    """While the block runs, the runner reads no workflow command from the step's output: what a
    program prints passes through verbatim (`::stop-commands::` with a random token, which nothing
    printed can know, then `::token::` to resume; GitHub's documented way to log untrusted text)."""
    token = secrets.token_hex(16)
    for stream in streams:
        stream.flush()
        stream.write(f"::stop-commands::{token}\n")
        stream.flush()
    try:
        yield
    finally:
        for stream in streams:
            stream.flush()
            stream.write(f"\n::{token}::\n")
            stream.flush()


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
    nobody who registers the name `podium` there gets to run in the workflow. Its dependencies
    and its build backend come from the action's lock file, each file checked against the
    hashes there (--require-hashes, wheels only: nothing is built from a source archive); then
    podium itself is built from the directory with that setuptools (no build isolation, no
    index: nothing unpinned is fetched) and `pip check` confirms every dependency is met. The
    build then runs that virtualenv's Python, whatever else is installed on the runner."""
    action_path = Path(_required(env, "GITHUB_ACTION_PATH")).resolve()
    version = source_version(action_path)
    lock = action_path / LOCK
    if not lock.is_file():
        raise ActionError(f"{lock}: the action's lock file is missing; the action's directory is not a podium release")
    root = Path(_required(env, "RUNNER_TEMP")) / "podium-venv"
    venv.EnvBuilder(clear=True, with_pip=True).create(root)
    python = venv_python(root)
    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "--no-input"]
    _run(
        [*pip, "install", "--quiet", "--require-hashes", "--no-deps", "--only-binary=:all:", "-r", str(lock)],
        what=f"pip install of podium's dependencies from {LOCK}",
    )
    _run(
        [*pip, "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", str(action_path)],
        what="pip install of podium from the action's directory",
    )
    _run([*pip, "check"], what="pip check (every dependency of podium installed, at a version it accepts)")
    found = subprocess.run(
        [str(python), "-c", "import podium; print(podium.__version__); print(podium.__file__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    lines = found.stdout.split("\n")
    if found.returncode != 0 or len(lines) < 2:
        raise ActionError(f"podium does not import after installing it:\n{found.stderr}", 3)
    installed, module = lines[0], Path(lines[1]).resolve()
    if installed != version or not module.is_relative_to(root.resolve()):
        raise ActionError(f"the podium that imports is {installed} from {module}, not {version} from {root}", 3)
    say(
        f"podium action: podium {version} installed from {action_path} into {root}, "
        f"its dependencies from {LOCK} (hashes checked)"
    )
    return {"python": str(python), "version": version}


def _run(command: list[str], *, what: str) -> None:
    """Run ``command`` with its output in the log (as it is, no workflow command read from it)."""
    say(f"podium action: {' '.join(command)}")
    with commands_stopped(sys.stdout):
        done = subprocess.run(command, stderr=subprocess.STDOUT, check=False)
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
            if (
                path.is_file()
                and "__pycache__" not in path.parts
                and not any(p.endswith(".egg-info") for p in path.parts)
            ):
                yield path


def cache_trusted(env: Mapping[str, str]) -> tuple[bool, str]:
    """May this run restore and save the cache? Only a push, schedule or manual run of the
    default branch itself. Returns the answer and the reason, which the log shows.

    A `schedule` event's payload has no `repository`, so github.event.repository.default_branch
    is empty on exactly the runs the hourly recipe makes; GitHub starts a scheduled workflow only
    from the default branch's latest commit, with GITHUB_REF naming that branch (docs: "Events
    that trigger workflows", schedule). So a schedule run of a branch is a run of the default
    branch; the other two events must name the default branch through their payload."""
    event = env.get("GITHUB_EVENT_NAME", "")
    if event not in TRUSTED_EVENTS:
        return False, (
            f"a {event or 'unknown'} event: only {', '.join(TRUSTED_EVENTS)} runs of the default branch use the cache"
        )
    default = env.get("PODIUM_DEFAULT_BRANCH", "")
    ref = env.get("GITHUB_REF", "")
    if event == "schedule" and not default:
        if not ref.startswith("refs/heads/"):
            return False, f"a schedule run of {ref or 'no ref'}, not of a branch"
        return True, f"a schedule run of {ref} (scheduled runs are of the default branch only)"
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
    board = hashlib.sha256(
        "\0".join([env.get("PODIUM_CONFIG", "").strip(), str(out), *_lines(env.get("PODIUM_EXPORT", ""))]).encode()
    ).hexdigest()[:8]
    prefix = (
        "-".join(
            [
                "podium",
                env.get("RUNNER_OS", "unknown"),
                env.get("RUNNER_ARCH", "unknown"),
                source_version(action_path),
                source_digest(action_path),
                board,
            ]
        )
        + "-"
    )
    run = f"{env.get('GITHUB_RUN_ID', '0')}-{env.get('GITHUB_RUN_ATTEMPT', '1')}"
    trusted, why = cache_trusted(env)
    use = mode == "auto" and trusted
    if mode == "off":
        why = "the cache input is off"
    say(f"podium action: cache {'used' if use else 'not used'}: {why}")
    return {
        "use-cache": str(use).lower(),
        "cache-key": prefix + run,
        "restore-key": prefix,
        "cache-paths": f"{cache_dir(out)}\n{out}",
        "cache-reason": why,
    }


# --- build: the previous summary ----------------------------------------------------------


# The previous summary comes from a host the action does not control (a site's address, its DNS,
# its redirects). So: https only, at every hop; the name resolved once, every address it gives
# checked (only globally reachable ones: no loopback, link-local such as the cloud metadata
# address 169.254.169.254, private or reserved range), and the connection made to that checked
# address (a second lookup could answer otherwise: DNS rebinding), the certificate verified
# against the name; no proxy from the environment (the address checked is the one reached);
# at most MAX_REDIRECTS redirects; at most PREVIOUS_MAX_BYTES a file; and FETCH_DEADLINE_S for
# all of it, however slowly the bytes come.

REDIRECT_STATUSES = (301, 302, 303, 307, 308)


class TooLarge(Exception):
    """The file at a URL is larger than podium reads (PREVIOUS_MAX_BYTES)."""


def url_problem(url: str) -> str | None:
    """Why the action will not fetch ``url``, or None: an https URL with a host, a valid port and no credentials."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "https":
        return "not https"
    if not parts.hostname:
        return "no host"
    if parts.username or parts.password:
        return "holds credentials"
    try:
        parts.port  # noqa: B018 (a bad port raises here)
    except ValueError:
        return "not a valid port"
    return None


def check_url(url: str) -> str:
    """The input's URL, checked by url_problem (credentials are refused: the summary is fetched without any)."""
    problem = url_problem(url)
    if problem == "holds credentials":
        raise ActionError("input previous-summary-url: holds credentials; the summary is fetched without any")
    if problem:
        raise ActionError(f"input previous-summary-url: expected an https:// URL, got '{shown(url)}' ({problem})")
    return url


IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
NAT64 = ipaddress.ip_network("64:ff9b::/96")


def address_refusal(address: IPAddress) -> str | None:
    """Why the fetch must not connect to ``address``, or None for a globally reachable one. An
    IPv6 address that carries an IPv4 one (mapped, 6to4, NAT64) is judged by that one too."""
    for each in (*_embedded_ipv4(address), address):
        if each.is_loopback:
            return "a loopback address"
        if each.is_link_local:
            return "a link-local address (where cloud metadata services answer)"
        if each.is_private:
            return "a private address"
        if each.is_multicast or each.is_reserved or each.is_unspecified or not each.is_global:
            return "not a public address"
    return None


def _embedded_ipv4(address: IPAddress) -> list[ipaddress.IPv4Address]:
    if isinstance(address, ipaddress.IPv4Address):
        return []
    inner = [address.ipv4_mapped, address.sixtofour]
    if address in NAT64:
        inner.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return [each for each in inner if each is not None]


def resolve(host: str, port: int) -> str:
    """The address to connect to for ``host``: every address the name resolves to is checked
    (one that is not public refuses the host), and the first is returned for the connection."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as err:
        raise ActionError(f"{shown(host)}: does not resolve ({shown(str(err))})", EXIT_NO_PREVIOUS) from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in found))
    if not addresses:
        raise ActionError(f"{shown(host)}: resolves to no address", EXIT_NO_PREVIOUS)
    for address in addresses:
        why = address_refusal(ipaddress.ip_address(address.partition("%")[0]))
        if why:
            raise ActionError(
                f"{shown(host)} resolves to {address}, {why}: the previous summary is fetched "
                "only from a public address",
                EXIT_NO_PREVIOUS,
            )
    return addresses[0]


class CheckedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to ``host`` at the address resolve() checked, never looked up a second time; the
    certificate is verified against the host's name, as for any HTTPS request."""

    def __init__(self, host: str, port: int, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._tls = ssl.create_default_context()

    def connect(self) -> None:
        address = resolve(self.host, self.port)
        raw = socket.create_connection((address, self.port), self.timeout)
        try:
            self.sock = self._tls.wrap_socket(raw, server_hostname=self.host)
        except BaseException:
            raw.close()
            raise


def fetch(url: str, deadline: float, limit: int | None = None) -> bytes | None:
    """The body at ``url``; None when it is not there (404 or 410, as on a first publish);
    TooLarge past ``limit`` bytes (PREVIOUS_MAX_BYTES by default). Any other failure, or no
    complete answer by ``deadline`` (time.monotonic()), is an error: the caller stops rather
    than build as if there were no history. The request runs in a thread the deadline cuts
    short, whatever blocks it (a name lookup, a host that drips bytes)."""
    opened: list[CheckedHTTPSConnection] = []
    cap = PREVIOUS_MAX_BYTES if limit is None else limit
    try:
        return _within(deadline, lambda: _get(url, deadline, cap, opened))
    except TimeoutError:
        for connection in opened:
            _abort(connection)
        raise ActionError(
            f"{shown(url)}: no complete answer within {FETCH_DEADLINE_S:g} s for the previous "
            "site's files; not building without them",
            EXIT_NO_PREVIOUS,
        ) from None


def _within(deadline: float, work: Callable[[], T]) -> T:
    """``work()``'s value or exception, or TimeoutError when it has not finished by ``deadline``."""
    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as err:  # handed to the caller's thread
            failed.append(err)

    thread = threading.Thread(target=run, name="podium-fetch", daemon=True)
    thread.start()
    thread.join(max(0.0, deadline - time.monotonic()))
    if thread.is_alive():
        raise TimeoutError
    if failed:
        raise failed[0]
    return done[0]


def _abort(connection: http.client.HTTPConnection) -> None:
    """Shut a connection another thread is blocked on, so that thread ends too."""
    with contextlib.suppress(OSError, AttributeError):
        if connection.sock is not None:
            connection.sock.shutdown(socket.SHUT_RDWR)


def _get(url: str, deadline: float, limit: int, opened: list[CheckedHTTPSConnection]) -> bytes | None:
    first = url
    for _ in range(MAX_REDIRECTS + 1):
        parts = urllib.parse.urlsplit(url)
        timeout = max(0.1, min(FETCH_TIMEOUT_S, deadline - time.monotonic()))
        connection = CheckedHTTPSConnection(parts.hostname or "", parts.port or 443, timeout)
        opened.append(connection)
        try:
            connection.request(
                "GET",
                urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, "")),
                headers={"User-Agent": "podium-action", "Accept-Encoding": "identity"},
            )
            response = connection.getresponse()
            if response.status in REDIRECT_STATUSES:
                url = _redirect(url, response)
                continue
            if response.status in (404, 410):
                return None
            if response.status != 200:
                raise ActionError(f"{shown(url)}: HTTP {response.status} '{shown(response.reason)}'", EXIT_NO_PREVIOUS)
            encoding = response.getheader("Content-Encoding", "identity").strip().lower()
            if encoding != "identity":
                raise ActionError(
                    f"{shown(url)}: sent with Content-Encoding '{shown(encoding)}', which the action did not ask for",
                    EXIT_NO_PREVIOUS,
                )
            length = response.getheader("Content-Length", "")
            if length.isdigit() and int(length) > limit:
                raise TooLarge(url)
            body = response.read(limit + 1)
            if len(body) > limit:
                raise TooLarge(url)
            return body
        except (OSError, http.client.HTTPException) as err:
            raise ActionError(f"{shown(url)}: {shown(str(err)) or type(err).__name__}", EXIT_NO_PREVIOUS) from None
        finally:
            connection.close()
    raise ActionError(f"{shown(first)}: more than {MAX_REDIRECTS} redirects", EXIT_NO_PREVIOUS)


def _redirect(url: str, response: http.client.HTTPResponse) -> str:
    """Where a redirect leads, if the action may follow it: https, to a host it then checks like the first."""
    location = response.getheader("Location")
    if not location:
        raise ActionError(f"{shown(url)}: HTTP {response.status} without a Location", EXIT_NO_PREVIOUS)
    target = urllib.parse.urljoin(url, location.strip())
    problem = url_problem(target)
    if problem:
        raise ActionError(
            f"{shown(url)}: redirected to '{shown(target)}', {problem}: the previous summary is "
            "fetched over https only, with no credentials in its URL",
            EXIT_NO_PREVIOUS,
        )
    return target


def summary_url(value: str) -> str:
    """The input as the summary's URL: a URL ending in .json as it is, a site's address with
    api/results/summary.json under it (so `${{ vars.SITE_URL }}` works with or without a final /)."""
    path = urllib.parse.urlsplit(value).path
    return value if path.endswith(".json") else value.rstrip("/") + "/api/results/summary.json"


def fetch_previous(url: str, into: Path) -> tuple[Path | None, str]:
    """Download the published summary.json and, beside it, changes.json and redirects.json (so
    the change history and rename redirects carry on). Returns the summary's path (None when
    the site has none yet, or it is not used) and, when one is there but not used, why. A file
    over PREVIOUS_MAX_BYTES is not used, as podium would not use it: a summary that large
    means no change report (better than a site that can never be published again), a larger
    history file a fresh one."""
    deadline = time.monotonic() + FETCH_DEADLINE_S
    try:
        summary = fetch(url, deadline)
    except TooLarge:
        why = (
            f"{shown(url)} is larger than {PREVIOUS_MAX_BYTES:,} bytes, more than podium reads: "
            "built without it (no change report this time)"
        )
        warn(why)
        return None, why
    if summary is None:
        return None, ""
    into.mkdir(parents=True, exist_ok=True)
    (into / "summary.json").write_bytes(summary)
    base, _, name = url.partition("?")[0].rpartition("/")
    if name == "summary.json":
        for sibling in PREVIOUS_FILES[1:]:
            try:
                body = fetch(f"{base}/{sibling}", deadline)
            except TooLarge:
                warn(
                    f"{shown(base)}/{sibling} is larger than {PREVIOUS_MAX_BYTES:,} bytes, more than podium "
                    "reads: not used"
                )
                continue
            if body is not None:
                (into / sibling).write_bytes(body)
    return into / "summary.json", ""


# --- build --------------------------------------------------------------------------------


def build_command(python: str, env: Mapping[str, str], previous: Path | None, use_cache: bool) -> list[str]:
    """The `podium build` command line the inputs make (arguments, never shell): every option in
    its --name=value form and the exports after `--`, so no input line (an export named
    `--theme-dir=…`, an output directory starting with `-`) can be read as another option."""
    out = env.get("PODIUM_OUT", "").strip() or "site"
    command = [python, "-m", "podium", "build", f"--out={out}"]
    config = env.get("PODIUM_CONFIG", "").strip()
    if config:
        command.append(f"--config={_no_newline('config', config)}")
    host = env.get("PODIUM_HOST", "").strip()
    if host:
        command.append(f"--host={_no_newline('host', host)}")
    command.append(f"--cache-dir={cache_dir(Path(out))}" if use_cache else "--no-cache")
    if previous is not None:
        command.append(f"--previous={previous}")
    exports = _lines(env.get("PODIUM_EXPORT", ""))
    return command + ["--", *exports] if exports else command


def gates(env: Mapping[str, str]) -> list[str]:
    """`fail-on-drop` lines as `podium diff` flags; each must read AGENT=PP."""
    flags = []
    for line in _lines(env.get("PODIUM_FAIL_ON_DROP", "")):
        if "=" not in line:
            raise ActionError(f"input fail-on-drop: expected AGENT=PP on each line, got {line!r}")
        flags.append(f"--fail-on-drop={line}")
    return flags


def run_logged(command: list[str]) -> tuple[int, list[str]]:
    """Run ``command`` with its output passed through to the log (verbatim, no workflow command
    read from it: it quotes file names and values from the export); its exit code and its lines."""
    say(f"podium action: {' '.join(command)}")
    lines = []
    with commands_stopped(sys.stdout):
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8", errors="replace"
        )
        assert process.stdout is not None
        for line in process.stdout:
            sys.stdout.write(line)
            lines.append(line.rstrip("\n"))
        code = process.wait()
    return code, lines


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
    previous, unused_because = fetch_previous(url, temp / "podium-previous") if url else (None, "")
    outputs = {
        "site-dir": str(out.resolve()),
        "summary-json": str((out / "api/results/summary.json").resolve()),
        "change-report": "",
        "first-publish": str(bool(url) and previous is None and not unused_because).lower(),
    }
    code, log = run_logged(build_command(python, env, previous, use_cache))
    if code != 0:
        add_to_summary(
            env,
            f"### podium: the build failed (exit {code})\n\nThe published site is unchanged. "
            f"The end of the build's log:\n\n{fenced(log[-SUMMARY_TAIL_LINES:])}",
        )
        return code, outputs
    wrote = [line for line in log if line.startswith(("podium: wrote ", "podium: nothing changed"))]
    if previous is None:
        if unused_because:
            add_to_summary(
                env,
                f"### podium: no change report\n\nThe previous summary was not used: {unused_because}.\n"
                + (f"\n{fenced(wrote)}" if wrote else ""),
            )
            return 0, outputs
        why = "no `previous-summary-url` given" if not url else f"nothing published at {url} yet"
        add_to_summary(
            env,
            f"### podium: first publish\n\nNo previous summary.json to compare with ({why}).\n"
            + (f"\n{fenced(wrote)}" if wrote else ""),
        )
        return 0, outputs
    report = temp / "podium-change-report.md"
    diff = [python, "-m", "podium", "diff", *gate_flags, "--", str(previous), outputs["summary-json"]]
    say(f"podium action: {' '.join(diff)}")
    done = subprocess.run(diff, capture_output=True, text=True, encoding="utf-8", errors="replace", check=False)
    if done.stderr:
        with commands_stopped(sys.stderr):
            sys.stderr.write(done.stderr)
    report.write_text(done.stdout, encoding="utf-8")
    outputs["change-report"] = str(report)
    add_to_summary(env, done.stdout + (f"\n{fenced(wrote)}" if wrote else ""))
    if done.returncode != 0:
        add_to_summary(
            env,
            f"\n**podium diff exited {done.returncode}**"
            + (" (a fail-on-drop gate tripped)" if done.returncode == 1 else "")
            + f"\n\n{fenced(done.stderr.splitlines()[-SUMMARY_TAIL_LINES:])}",
        )
    return done.returncode, outputs


# --- main ---------------------------------------------------------------------------------


def main(argv: list[str], env: Mapping[str, str]) -> int:
    if len(argv) != 1 or argv[0] not in ("install", "plan", "build"):
        print("usage: action.py install|plan|build (the podium action's steps; see action.yml)", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        if sys.version_info < MIN_PYTHON:
            raise ActionError(
                f"podium needs Python {'.'.join(map(str, MIN_PYTHON))} or newer; this is "
                f"{sys.version.split()[0]} ({sys.executable}): add actions/setup-python first"
            )
        if argv[0] == "install":
            set_outputs(env, install(env))
        elif argv[0] == "plan":
            set_outputs(env, plan(env))
        else:
            code, outputs = build(env)
            set_outputs(env, outputs)
            return code
    except ActionError as err:
        print(f"::error title=podium action::{_one_line(str(err))}", file=sys.stderr, flush=True)
        say(f"podium action: {err}", sys.stderr)
        return err.code
    return 0


def _one_line(text: str) -> str:
    """Workflow-command data escaped as the runner expects (%, CR, LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], os.environ))
