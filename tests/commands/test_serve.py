"""`podium serve` end to end (issue 8): a real process on a free loopback port.

Start it, fetch a page, change an input, see the page and /__podium/version change,
break the config and see the last good site still served, stop it. The files on
disk stay byte for byte what `podium build` writes: the reload script exists only
in served responses.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
import sitekit
from exportkit import ExportDir, graded, run_id

from podium.commands.serve import RELOAD_TAG, inject_reload

WAIT = 60  # seconds: the longest any one step may take on a loaded machine


def make_export(root: Path, runs: int = 4) -> ExportDir:
    export = ExportDir(root)
    for n in range(runs):
        rid = run_id(f"serve-{n}")
        export.run(graded(rid, det=0.5 + n / 10), rid=rid, agent="osprey" if n % 2 else "kestrel")
    return export.sidecars()


class Server:
    def __init__(self, args: list[str], cwd: Path, env: dict | None = None):
        self.lines: queue.Queue[str] = queue.Queue()
        self.log: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "podium", "serve", *args],
            cwd=cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.url = self.wait_for(r"serving (http://\S+/)").group(1)

    def _read(self):
        for line in self.proc.stderr:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, pattern: str) -> re.Match:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                if self.proc.poll() is not None:
                    raise AssertionError(f"podium serve exited {self.proc.returncode}: {self.log}") from None
                continue
            self.log.append(line)
            if match := re.search(pattern, line):
                return match
        raise AssertionError(f"no line matching {pattern!r} within {WAIT} s: {self.log}")

    def get(self, path: str) -> tuple[bytes, str]:
        with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=10) as response:
            return response.read(), response.headers.get("Content-Type", "")

    def version(self) -> dict:
        return json.loads(self.get("/__podium/version")[0])

    def wait_version(self, after: int) -> dict:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            state = self.version()
            if state["version"] > after:
                return state
            time.sleep(0.2)
        raise AssertionError(f"the site was not rebuilt within {WAIT} s: {self.log}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=WAIT)
        self.reader.join(timeout=WAIT)
        while not self.lines.empty():
            self.log.append(self.lines.get())


@pytest.fixture
def export(tmp_path):
    return make_export(tmp_path / "export")


@pytest.fixture
def project(tmp_path, export):
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "about.md").write_text("---\ntitle: About\n---\nFirst words.\n", encoding="utf-8")
    (tmp_path / "podium.yaml").write_text('title: "Serve one"\nexport: export\n', encoding="utf-8")
    return tmp_path


def test_serve_rebuilds_on_change_and_reloads(project, export):
    out = project / "served"
    server = Server(["--port", "0", "--out", str(out), "--config", "podium.yaml"], project)
    try:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", server.url)
        body, kind = server.get("/")
        assert kind.startswith("text/html")
        assert b"Serve one" in body and body.count(RELOAD_TAG) == 1
        # The page's own CSP lets the injected script and its polling through.
        csp = next(
            m.get("content")
            for m in sitekit.parse_html(body.decode()).all("meta")
            if m.get("http-equiv") == "Content-Security-Policy"
        )
        assert "script-src 'self'" in csp and "connect-src 'self'" in csp
        script, kind = server.get("/__podium/reload.js")
        assert kind.startswith("text/javascript") and b"/__podium/version" in script
        first = server.version()
        assert first == {"version": 1, "error": None}
        # Non-HTML files are served untouched.
        assert server.get("/api/results/summary.json")[0] == (out / "api/results/summary.json").read_bytes()

        # An edit to the content page rebuilds the site.
        (project / "content" / "about.md").write_text("---\ntitle: About\n---\nSecond words.\n", encoding="utf-8")
        second = server.wait_version(first["version"])
        assert b"Second words." in server.get("/about/index.html")[0]
        rebuilt = server.wait_for(r"\(\d+ runs; (\d+) pages rendered, (\d+) unchanged\)")
        assert int(rebuilt[1]) <= 2 < int(rebuilt[2])  # the build cache: only the edited page again

        # A new run in the export shows up.
        rid = run_id("serve-new")
        export.run(graded(rid, det=1.0, judge=1.0), rid=rid, agent="heron")
        export.sidecars()
        third = server.wait_version(second["version"])
        assert b"heron" in server.get("/")[0]
        assert rid.encode() in server.get("/runs/index.html")[0]

        # A broken config: the error is reported, the last good site stays served.
        (project / "podium.yaml").write_text('title: "Serve one"\nexport: export\nhost: moon\n', encoding="utf-8")
        server.wait_for(r"rebuild failed")
        state = server.version()
        assert state["version"] == third["version"] and "host" in state["error"]
        assert b"heron" in server.get("/")[0]

        # Fixed again: rebuilt, and the new title is on the page.
        (project / "podium.yaml").write_text('title: "Serve two"\nexport: export\n', encoding="utf-8")
        server.wait_version(third["version"])
        assert b"Serve two" in server.get("/")[0]
        assert server.version()["error"] is None
    finally:
        server.stop()
    assert server.proc.returncode == 0
    assert server.log[-1] == "podium serve: stopped"

    # What is on disk is exactly a plain build (no reload script anywhere).
    plain = project / "plain"
    result = subprocess.run(
        [sys.executable, "-m", "podium", "build", "--out", str(plain), "--config", "podium.yaml", "--quiet"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert result.returncode == 0, result.stderr
    served, built = sitekit.site_files(out), sitekit.site_files(plain)
    assert served.keys() == built.keys()
    assert [p for p in served if served[p] != built[p]] == []
    assert not any(b"__podium" in data for data in served.values())


def test_serve_binds_loopback_by_default_and_cleans_its_temporary_dir(project, tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    server = Server.__new__(Server)
    server.lines, server.log = queue.Queue(), []
    server.proc = subprocess.Popen(
        [sys.executable, "-m", "podium", "serve", "--port", "0", "--config", "podium.yaml"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    server.reader = threading.Thread(target=server._read, daemon=True)
    server.reader.start()
    try:
        server.url = server.wait_for(r"serving (http://\S+/)").group(1)
        assert server.url.startswith("http://127.0.0.1:")
        assert [p.name.startswith("podium-serve-") for p in (tmp_path / "tmp").iterdir()] == [True]
        body, _ = server.get("/runs/")
        assert body.count(RELOAD_TAG) == 1
    finally:
        server.stop()
    assert list((tmp_path / "tmp").iterdir()) == []


def test_inject_reload_puts_one_script_before_head_end():
    page = b"<html><head><title>x</title></head><body></body></html>"
    assert inject_reload(page) == b"<html><head><title>x</title>" + RELOAD_TAG + b"</head><body></body></html>"
    assert inject_reload(b"<p>no head</p>").startswith(RELOAD_TAG)


# ------------------------------------------------------------------ issue 15.2: serve only the site, only to its host


def raw_get(url: str, target: bytes, host: bytes | None = None, method: bytes = b"GET") -> tuple[int, bytes]:
    """One request sent as bytes (urllib would fix a malformed one); (status, body)."""
    address = url.split("//", 1)[1].rstrip("/")
    name, port = address.rsplit(":", 1)
    with socket.create_connection((name.strip("[]"), int(port)), timeout=10) as sock:
        head = method + b" " + target + b" HTTP/1.1\r\n"
        head += b"Host: " + (address.encode() if host is None else host) + b"\r\n" if host != b"" else b""
        sock.sendall(head + b"Connection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status, _, rest = data.partition(b"\r\n")
    return int(status.split()[1]), rest.partition(b"\r\n\r\n")[2]


def serve_cli(args: list, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "podium", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=WAIT,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.parametrize("case", ["home", "foreign", "under-a-file", "loop"])
def test_serve_refuses_every_output_build_refuses_with_builds_message(tmp_path, export, case):
    home, work = tmp_path / "home", tmp_path / "work"
    (home / "notes").mkdir(parents=True)
    work.mkdir()
    (tmp_path / "afile").write_text("a file")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "thesis.tex").write_text("years of work")
    os.symlink("loop", tmp_path / "loop")
    out = {
        "home": home,
        "foreign": tmp_path / "docs",
        "under-a-file": tmp_path / "afile" / "site",
        "loop": tmp_path / "loop" / "site",
    }[case]
    env = {"HOME": str(home)}
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    built = serve_cli(["build", export.root, "--out", out, "--quiet"], work, env)
    served = serve_cli(["serve", export.root, "--port", "0", "--out", out], work, env)
    assert built.returncode == served.returncode == 2, (built.stderr, served.stderr)
    assert served.stderr == built.stderr and served.stderr.startswith(f"Error: {out}: ")
    assert "serving" not in served.stderr and "Traceback" not in served.stderr
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before  # nothing created, no cache beside it


def test_serve_refuses_the_root_as_build_does_and_creates_nothing_there(tmp_path, export):
    if os.path.lexists("/.podium-cache"):
        pytest.skip("/.podium-cache exists already; cannot tell who made it")
    try:
        built = serve_cli(["build", export.root, "--out", "/", "--quiet"], tmp_path)
        served = serve_cli(["serve", export.root, "--port", "0", "--out", "/"], tmp_path)
        assert built.returncode == served.returncode == 2 and served.stderr == built.stderr
        assert "filesystem root" in served.stderr and not os.path.lexists("/.podium-cache")
    finally:  # a regression must not leave litter at the root of the machine
        if os.path.isdir("/.podium-cache") and not os.path.islink("/.podium-cache"):
            shutil.rmtree("/.podium-cache", ignore_errors=True)


@pytest.fixture
def served(project):
    server = Server(["--port", "0", "--out", str(project / "served"), "--config", "podium.yaml"], project)
    try:
        yield server
    finally:
        server.stop()
    assert not any("Traceback" in line for line in server.log), server.log


def test_serve_never_follows_a_symlink_out_of_its_site_nor_lists_a_directory(served, project, tmp_path):
    out, url = project / "served", served.url
    secret = tmp_path / "outside" / "secret.html"
    secret.parent.mkdir()
    secret.write_text("<html><head></head>TOP-SECRET-OUTSIDE</html>")
    assert raw_get(url, b"/index.html")[0] == 200
    os.symlink(secret, out / "planted.html")
    os.symlink(secret.parent, out / "planted-dir")
    os.symlink(secret.parent, out / "runs" / "deeper")
    (out / "api" / "results" / "listing").mkdir()
    for target in (
        b"/planted.html",
        b"/planted-dir/secret.html",
        b"/runs/deeper/secret.html",
        b"/planted-dir/",
        b"/etc/passwd",
        b"/.podium-site",
        b"/api/results/listing/",
        b"/api/",
        b"/nothing/here.html",
    ):
        status, body = raw_get(url, target)
        assert status == 404 and b"TOP-SECRET" not in body and b"root:" not in body, (target, status)
    assert raw_get(url, b"/runs")[0] == 301  # a directory without its slash
    assert raw_get(url, b"/runs/")[0] == 200
    assert raw_get(url, b"/index.html", method=b"HEAD")[0] == 200


def test_serve_answers_a_malformed_request_with_400_never_a_traceback(served):
    for target in (
        b"/index.html%00.txt",
        b"/%zz",
        b"/a%2",
        b"/%ff%fe.html",
        b"/\xff\xfe.html",
        b"/" + b"a" * 5000,
        b"/../../etc/passwd",
        b"/%2e%2e/%2e%2e/etc/passwd",
        b"/a%2f..%2fb",
        b"/a\\..\\b",
        b"/a%5c..%5cb",
        b"/%01",
        b"http://evil.example/",
    ):
        status, body = raw_get(served.url, target)
        assert status == 400 and b"<html" not in body.lower(), (target, status)
    assert raw_get(served.url, b"/index.html")[0] == 200  # still serving


def test_serve_answers_only_host_headers_naming_its_address(served, project):
    url = served.url
    port = url.rsplit(":", 1)[1].rstrip("/").encode()
    # A broken config: the build's error text is there for a page on the bound address only.
    # (No wait needed: the watcher starts before the first build, so it sees any change after it.)
    (project / "podium.yaml").write_text('title: "Serve one"\nexport: export\nhost: moon-base\n', encoding="utf-8")
    served.wait_for(r"rebuild failed")
    assert b"moon-base" in raw_get(url, b"/__podium/version")[1]
    for host in (
        b"rebind.attacker.example",
        b"rebind.attacker.example:" + port,
        b"127.0.0.1:1",
        b"127.0.0.2:" + port,
        b"localhost.attacker.example:" + port,
        b"[::2]:" + port,
    ):
        for target in (b"/", b"/index.html", b"/__podium/version", b"/__podium/reload.js"):
            status, body = raw_get(url, target, host=host)
            assert status == 421, (host, target, status)
            assert b"moon-base" not in body and b"Serve one" not in body and b"<html" not in body.lower()
    assert raw_get(url, b"/", host=b"")[0] == 400  # no Host header at all
    for host in (b"localhost:" + port, b"LOCALHOST:" + port, b"127.0.0.1:" + port, b"[::1]:" + port):
        assert raw_get(url, b"/", host=host)[0] == 200, host


# ------------------------------------------------------------------ issue 27.4: watched, not polled every half second

MODES = ["notify", "poll"]  # the operating system's notifications; the polling fallback (PODIUM_SERVE_POLL=1)
CHANGED = r"podium serve: changed: (.*); rebuilding$"


def serve_env(mode: str) -> dict:
    env = {key: value for key, value in os.environ.items() if key != "PODIUM_SERVE_POLL"}
    return {**env, "PODIUM_SERVE_POLL": "1"} if mode == "poll" else env


@pytest.fixture
def themed(project):
    """The project with an override directory holding one template (the content page's)."""
    (project / "overrides" / "templates").mkdir(parents=True)
    write_page_template(project, "TEMPLATE-ONE")
    (project / "podium.yaml").write_text('title: "Serve one"\nexport: export\ntheme_dir: overrides\n', encoding="utf-8")
    return project


def write_page_template(project: Path, words: str) -> None:
    (project / "overrides" / "templates" / "page.html").write_text(
        '{% extends "default:page.html" %}{% block title %}' + words + "{% endblock %}", encoding="utf-8"
    )


def start(project: Path, mode: str) -> Server:
    server = Server(
        ["--port", "0", "--out", str(project / "served"), "--config", "podium.yaml"], project, serve_env(mode)
    )
    watching = next(line for line in server.log if line.startswith("podium serve: watching the inputs"))
    assert ("by polling: PODIUM_SERVE_POLL is set" in watching) == (mode == "poll"), watching
    assert ("operating system's notifications" in watching) == (mode == "notify"), watching
    return server


def run_page(server: Server, rid: str) -> bytes:
    return server.get(f"/runs/{rid}/index.html")[0]


def edited(server: Server, label: str) -> None:
    """The next rebuild names exactly ``label`` (so no rebuild came between, nor another path with it),
    and the site was replaced."""
    version = server.version()["version"]
    assert server.wait_for(CHANGED)[1] == label
    server.wait_version(version)


def sentinel(project: Path, words: str) -> None:
    (project / "content" / "about.md").write_text(f"---\ntitle: About\n---\n{words}\n", encoding="utf-8")


@pytest.mark.parametrize("mode", MODES)
def test_each_kind_of_input_is_one_rebuild_and_its_page_is_served(themed, export, mode):
    project = themed
    server = start(project, mode)
    try:
        rid = run_id("serve-1")  # det 0.6, judge 0.6: overall 60.0%
        assert b"60.0%" in run_page(server, rid) and b"TEMPLATE-ONE" in server.get("/about/")[0]

        # A run re-evaluated: its result.json rewritten in place (same inode), nothing else touched.
        result = export.root / rid[:8] / "result.json"
        inode = result.stat().st_ino
        result.write_text(json.dumps(graded(rid, det=1.0, judge=0.9)), encoding="utf-8")
        assert result.stat().st_ino == inode
        edited(server, f"export/{rid[:8]}/result.json")
        assert b"95.0%" in run_page(server, rid) and b"60.0%" not in run_page(server, rid)

        sentinel(project, "Second words.")  # a content page
        edited(server, "content/about.md")
        assert b"Second words." in server.get("/about/")[0]

        write_page_template(project, "TEMPLATE-TWO")  # a template of the override directory
        edited(server, "overrides/templates/page.html")
        assert b"TEMPLATE-TWO" in server.get("/about/")[0]

        (project / "podium.yaml").write_text(
            'title: "Serve two"\nexport: export\ntheme_dir: overrides\n', encoding="utf-8"
        )
        edited(server, "podium.yaml")
        assert b"Serve two" in server.get("/")[0]

        sentinel(project, "Third words.")  # and the config's rebuild was the only one
        edited(server, "content/about.md")
    finally:
        server.stop()
    assert server.proc.returncode == 0


@pytest.mark.parametrize("mode", MODES)
def test_a_burst_of_fifty_new_runs_is_one_or_two_rebuilds(project, export, mode):
    server = start(project, mode)
    try:
        version = server.version()["version"]
        new = []
        for n in range(50):
            rid = run_id(f"burst-{n}")
            new.append(export.run(graded(rid, det=0.9), rid=rid, agent="heron"))
        export.sidecars()
        server.wait_version(version)
        sentinel(project, "After the burst.")
        rebuilds = []
        while (line := server.wait_for(CHANGED)[1]) != "content/about.md":
            rebuilds.append(line)
        assert 1 <= len(rebuilds) <= 2, rebuilds
        assert any("(+" in line for line in rebuilds)  # a batch, named by its first paths and a count
        server.wait_version(server.version()["version"] - 1)
        ledger = server.get("/api/results/summary.json")[0]
        assert json.loads(ledger)["totals"]["runs"] == 54
        assert all(rid.encode() in run_page(server, rid) for rid in new[::10])
    finally:
        server.stop()


@pytest.mark.parametrize("mode", MODES)
def test_output_cache_dot_entries_and_files_never_read_are_not_inputs(project, export, mode):
    server = start(project, mode)
    try:
        out, run_dir = project / "served", export.root / run_id("serve-0")[:8]
        (out / "stray.txt").write_text("written by hand")  # the output (removed again: the build would refuse it)
        (out / "stray.txt").unlink()
        (project / ".podium-cache" / "stray").write_text("x")  # the cache beside it
        staging = export.root / ".xorcise-export-x1y2"  # an interrupted export's litter
        staging.mkdir()
        (staging / "result.json").write_text("{}")
        (run_dir / "events.jsonl").write_text("{}\n")  # never read by a build
        (run_dir / "traces.otlp.jsonl").write_text("")
        (run_dir / ".result.json.swp").write_text("x")
        for name in (".about.md.swp", "about.md~", "#about.md#", "4913", "notes.txt"):  # editors' files, not *.md
            (project / "content" / name).write_text("x")
        (project / "content" / "drafts").mkdir()
        (project / "content" / "drafts" / "later.md").write_text("---\ntitle: Later\n---\n")  # not directly inside
        (project / ".podium.yaml.swp").write_text("x")
        sentinel(project, "Only this.")
        edited(server, "content/about.md")  # the first rebuild since, and it names the page alone
        assert b"Only this." in server.get("/about/")[0]
    finally:
        server.stop()
    assert not any("Traceback" in line for line in server.log), server.log
