"""``podium serve``: build, serve the site on loopback, rebuild when an input changes.

The inputs (export, content, theme directories, override directory, podium.yaml)
are watched by polling their files' mtimes and sizes: no dependency, works on
every filesystem. A failed rebuild prints its error and the last good site keeps
being served.

The files on disk are exactly what ``podium build`` writes. Live reload exists
only in served responses: each HTML response gets one
``<script src="/__podium/reload.js">`` before ``</head>`` (the pages' CSP already
allows the site's own scripts and ``connect-src 'self'``), and that script polls
``/__podium/version``, reloading the page when the number changes.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from podium.build import build_site, content_dir
from podium.cache import DEFAULT_DIR as DEFAULT_CACHE
from podium.config import Config, load_config
from podium.errors import PodiumError
from podium.render.templates import builtin_themes

PREFIX = "/__podium/"
RELOAD_TAG = b'<script src="/__podium/reload.js" defer></script>\n'
POLL_SECONDS = 0.5
LOOPBACK = {"127.0.0.1", "localhost", "::1"}

RELOAD_JS = b"""/* podium serve: reload this page after each rebuild. Only served by `podium serve`. */
(function () {
  "use strict";
  var seen = null;
  function check() {
    fetch("/__podium/version", { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (v) {
      if (seen !== null && v.version !== seen) { window.location.reload(); return; }
      seen = v.version;
    }).catch(function () { /* the server is restarting or gone: try again */ }).then(function () {
      window.setTimeout(check, 1000);
    });
  }
  check();
})();
"""


class Builds:
    """The current site's version (bumped after every good build) and the last error."""

    def __init__(self):
        self.version = 0
        self.error: str | None = None
        self.lock = threading.Lock()

    def state(self) -> bytes:
        with self.lock:
            return json.dumps({"version": self.version, "error": self.error}).encode("utf-8")


def inject_reload(body: bytes) -> bytes:
    """The page with the reload script before ``</head>`` (or at the start when there is no head)."""
    at = body.find(b"</head>")
    return body[:at] + RELOAD_TAG + body[at:] if at >= 0 else RELOAD_TAG + body


class Handler(SimpleHTTPRequestHandler):
    builds: Builds  # set on the subclass made by make_server

    def log_message(self, format, *args):  # noqa: A002 - the stdlib's name
        pass  # quiet: the build lines are what matter

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_GET(self):
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if path == PREFIX + "version":
            return self._send(self.builds.state(), "application/json")
        if path == PREFIX + "reload.js":
            return self._send(RELOAD_JS, "text/javascript; charset=utf-8")
        local = Path(self.translate_path(self.path))
        if local.is_dir() and path.endswith("/"):
            local = local / "index.html"
        if local.suffix == ".html" and local.is_file():
            try:
                body = local.read_bytes()
            except OSError:
                return self.send_error(HTTPStatus.NOT_FOUND)
            return self._send(inject_reload(body), "text/html; charset=utf-8")
        return super().do_GET()

    def _send(self, body: bytes, kind: str) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def make_server(out: Path, host: str, port: int, builds: Builds) -> ThreadingHTTPServer:
    handler = type("PodiumHandler", (Handler,), {"builds": builds})
    server = ThreadingHTTPServer((host, port), partial(handler, directory=str(out)))
    server.daemon_threads = True
    return server


def watched(config: Config, exports: list[Path]) -> list[Path]:
    """Every input whose change should rebuild the site."""
    paths = [*exports, config.root / "themes", builtin_themes()]
    paths += [p for p in (content_dir(config), config.theme_dir) if p is not None]
    if config.source:
        paths.append(Path(config.source))
    return paths


def fingerprint(paths: list[Path]) -> tuple:
    """(path, mtime, size) of every file under ``paths``; changes when any file is added, removed or edited."""
    seen = []
    stack = [str(p) for p in paths]
    while stack:
        top = stack.pop()
        try:
            info = os.stat(top, follow_symlinks=False)
        except OSError:
            seen.append((top, None, None))
            continue
        if not os.path.isdir(top) or os.path.islink(top):
            seen.append((top, info.st_mtime_ns, info.st_size))
            continue
        seen.append((top, info.st_mtime_ns, -1))
        try:
            with os.scandir(top) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    else:
                        try:
                            st = entry.stat(follow_symlinks=False)
                            seen.append((entry.path, st.st_mtime_ns, st.st_size))
                        except OSError:
                            seen.append((entry.path, None, None))
        except OSError:
            continue
    return tuple(sorted(seen, key=lambda item: item[0]))


class Session:
    """One ``podium serve``: the build inputs, the output directory and the rebuild loop."""

    def __init__(self, config_path: Path | None, export: tuple[Path, ...], overrides: dict,
                 say: Callable[[str], None], jobs: int = 1):
        self.config_path = config_path
        self.jobs = jobs
        self.export_arg = export
        self.overrides = overrides
        self.say = say
        self.builds = Builds()
        self.inputs: list[Path] = []

    def _config(self) -> tuple[Config, list[Path]]:
        config = load_config(self.config_path, self.overrides)
        exports = list(self.export_arg or config.export)
        if not exports:
            raise PodiumError("no export given: pass EXPORT or set `export:` in podium.yaml")
        return config, exports

    def build(self) -> bool:
        """Build once; True when the site was replaced. An error is printed, the old site stays."""
        started = time.monotonic()
        try:
            config, export = self._config()
            self.inputs = watched(config, export)
            built = build_site(config, export, cache_dir=config.out.parent / DEFAULT_CACHE, jobs=self.jobs)
        except Exception as err:  # noqa: BLE001 - any failure must leave the server running
            message = getattr(err, "message", None) or f"{type(err).__name__}: {err}"
            with self.builds.lock:
                self.builds.error = message
            self.say(f"podium serve: rebuild failed, still serving the last good site:\n{message}")
            return False
        with self.builds.lock:
            self.builds.version += 1
            self.builds.error = None
        meter = built.meter
        self.say(f"podium serve: built {meter.summary() if meter else built.files} in "
                 f"{time.monotonic() - started:.1f} s ({built.board.totals.runs} runs; {built.rendered:,} pages "
                 f"rendered, {built.reused:,} unchanged)")
        return True

    def watch(self, stop: threading.Event, poll: float = POLL_SECONDS) -> None:
        """Rebuild whenever the inputs' fingerprint changes, until ``stop`` is set."""
        last = fingerprint(self.inputs)
        while not stop.wait(poll):
            now = fingerprint(self.inputs)
            if now != last:
                time.sleep(poll)  # let an editor or exporter finish writing
                self.say("podium serve: inputs changed, rebuilding")
                self.build()
                last = fingerprint(self.inputs)


def serve(config_path: Path | None, export: tuple[Path, ...], *, host: str, port: int, out: Path | None,
          theme_dir: Path | None, say: Callable[[str], None], ready: Callable[[str], None] | None = None,
          jobs: int = 1) -> None:
    """Build, serve and rebuild until interrupted (Ctrl-C or SIGTERM); each rebuild uses the build
    cache beside the output (cache.py), so an edit re-renders only the pages it changes."""
    own_dir = None
    if out is None:
        own_dir = Path(tempfile.mkdtemp(prefix="podium-serve-"))
        out = own_dir / "site"
    session = Session(config_path, export, {"out": out, "theme_dir": theme_dir}, say, jobs)
    if not session.build():
        say("podium serve: the first build failed; fix the error and save: the site is rebuilt on change")
        out.mkdir(parents=True, exist_ok=True)
        if session.inputs == []:
            raise SystemExit(2)
    server = make_server(out.resolve(), host, port, session.builds)
    name, bound = server.server_address[:2]
    url = f"http://{'[' + name + ']' if ':' in name else name}:{bound}/"
    if host not in LOOPBACK:
        say(f"podium serve: warning: listening on {host}, reachable from other machines")
    say(f"podium serve: serving {url} (Ctrl-C to stop)")
    if ready is not None:
        ready(url)
    stop = threading.Event()
    thread = threading.Thread(target=server.serve_forever, name="podium-http", daemon=True)
    thread.start()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set()) if _main_thread() else None
    try:
        session.watch(stop)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if own_dir is not None:
            shutil.rmtree(own_dir, ignore_errors=True)
        say("podium serve: stopped")
        sys.stderr.flush()


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()
