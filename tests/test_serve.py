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
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

import sitekit as kit
from exportkit import ExportDir, graded, run_id
from podium.serve import RELOAD_TAG, inject_reload

WAIT = 60  # seconds: the longest any one step may take on a loaded machine


def make_export(root: Path, runs: int = 4) -> ExportDir:
    export = ExportDir(root)
    for n in range(runs):
        rid = run_id(f"serve-{n}")
        export.run(graded(rid, det=0.5 + n / 10), rid=rid, agent="osprey" if n % 2 else "kestrel")
    return export.sidecars()


class Server:
    def __init__(self, args: list[str], cwd: Path):
        self.lines: queue.Queue[str] = queue.Queue()
        self.log: list[str] = []
        self.proc = subprocess.Popen([sys.executable, "-m", "podium", "serve", *args], cwd=cwd,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
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
                    raise AssertionError(f"podium serve exited {self.proc.returncode}: {self.log}")
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
        csp = next(m.get("content") for m in kit.parse_html(body.decode()).all("meta")
                   if m.get("http-equiv") == "Content-Security-Policy")
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
    result = subprocess.run([sys.executable, "-m", "podium", "build", "--out", str(plain), "--config", "podium.yaml",
                             "--quiet"], cwd=project, capture_output=True, text=True, timeout=WAIT)
    assert result.returncode == 0, result.stderr
    served, built = kit.site_files(out), kit.site_files(plain)
    assert served.keys() == built.keys()
    assert [p for p in served if served[p] != built[p]] == []
    assert not any(b"__podium" in data for data in served.values())


def test_serve_binds_loopback_by_default_and_cleans_its_temporary_dir(project, tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    server = Server.__new__(Server)
    server.lines, server.log = queue.Queue(), []
    server.proc = subprocess.Popen([sys.executable, "-m", "podium", "serve", "--port", "0", "--config", "podium.yaml"],
                                   cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
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
