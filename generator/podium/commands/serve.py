"""``podium serve``: build, serve the site on loopback, rebuild when an input changes.

The inputs (export, content, theme directories, override directory, podium.yaml)
are watched by commands/watch.py: the operating system's notifications where they work (idle
costs nothing), cheap polling where they do not; a burst of changes is one rebuild.
A failed rebuild prints its error and the last good site keeps being served.

The files on disk are exactly what ``podium build`` writes. Live reload exists
only in served responses: each HTML response gets one
``<script src="/__podium/reload.js">`` before ``</head>`` (the pages' CSP already
allows the site's own scripts and ``connect-src 'self'``), and that script polls
``/__podium/version``, reloading the page when the number changes.

What is served (issue 15.2): ``--out`` is checked first with ``podium build``'s own check
(exit 2, the same message, nothing created); then only the built site: GET and HEAD of
regular files whose every path segment is one podium writes, each opened relative to
the site root without following any symlink (a link planted in the site is a 404), no
directory listing. Only requests whose Host header names the bound address
(``127.0.0.1:PORT``, ``localhost:PORT``, ``[::1]:PORT``, ``--host``:PORT) are answered,
others get a 421 with a fixed sentence (DNS rebinding); a malformed path (bad
percent-encoding, NUL or other control characters, not UTF-8, ``..``, over 2,048
characters, not starting with ``/``) is a 400. No error answers with a traceback.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote_to_bytes

from podium.build import build_site
from podium.cache.store import DEFAULT_DIR as DEFAULT_CACHE
from podium.commands.watch import Inputs, Watcher
from podium.config import CONFIG_NAME, Config, load_config
from podium.errors import PodiumError, UnsafeOutput
from podium.inputs import check_output
from podium.render.templates import builtin_themes

PREFIX = "/__podium/"
RELOAD_TAG = b'<script src="/__podium/reload.js" defer></script>\n'
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


class BadRequest(ValueError):
    """A request path podium serve will not try to read (answered 400)."""


MAX_PATH = 2048  # characters of a request target; longer is a 400
_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_SAFE_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")  # every path the site has (write.check_relative)


def request_parts(target: str) -> tuple[list[str], bool]:
    """The decoded segments of a request target's path and whether it ends with ``/``.

    A BadRequest for anything that is not a well-formed origin-form path: not starting with
    ``/``, overlong, non-ASCII or control bytes, bad percent-encoding, bytes that are not
    UTF-8, a control character, NUL, slash or backslash once decoded, ``.`` or ``..``.
    """
    path = target.split("?", 1)[0].split("#", 1)[0]
    if not path.startswith("/") or len(target) > MAX_PATH or not all(" " < ch < "\x7f" for ch in path):
        raise BadRequest(target)
    if _PERCENT.search(path):
        raise BadRequest(target)
    raw = path[1:].split("/")
    parts = []
    for segment in raw:
        try:
            text = unquote_to_bytes(segment).decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequest(target) from None
        if text in (".", "..") or any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 or ch in "/\\" for ch in text):
            raise BadRequest(target)
        parts.append(text)
    directory = parts[-1] == ""
    if directory:
        parts.pop()
    return parts, directory


def open_in_site(root: Path, parts: list[str]) -> tuple[int | None, bool]:
    """(a descriptor of the regular file ``root/parts``, False), (None, True) for a directory, or (None, False).

    Every component is opened relative to the one before with O_NOFOLLOW: a symlink
    anywhere under ``root`` is never followed (it is a 404), so nothing outside the
    site can be reached, even when a link is planted between a check and a read.
    """
    if any(not _SAFE_PART.match(part) for part in parts):
        return None, False  # not a path podium writes (hidden files such as the marker included)
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | nofollow)
    except OSError:
        return None, False
    try:
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | nofollow, dir_fd=fd)
            os.close(fd)
            fd = inner
        if not parts:
            return None, True
        leaf = os.open(parts[-1], os.O_RDONLY | nofollow | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0), dir_fd=fd)
    except OSError:
        return None, False
    finally:
        os.close(fd)
    mode = os.fstat(leaf).st_mode
    if stat.S_ISREG(mode):
        return leaf, False
    os.close(leaf)
    return None, stat.S_ISDIR(mode)


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The Host header values that name the address podium serve is bound to (lower case)."""
    names = {"127.0.0.1", "localhost", "[::1]", f"[{host}]" if ":" in host else host}
    hosts = {f"{name}:{port}" for name in names}
    if port == 80:  # a browser leaves the default port out
        hosts |= names
    return frozenset(h.lower() for h in hosts)


class Handler(BaseHTTPRequestHandler):
    """GET and HEAD of the built site's files, nothing else.

    Only requests whose Host header names the bound address are answered (421 otherwise:
    a DNS-rebinding page must not read the site or the build's error text); a malformed
    path is a 400; only regular files reached through real directories under the site
    root are served (no symlink is followed, no directory is listed).
    """

    builds: Builds  # set on the subclass made by make_server
    site: Path
    hosts: frozenset[str] = frozenset()
    server_version = "podium-serve"
    sys_version = ""
    types = {
        ".html": "text/html; charset=utf-8",
        ".js": "text/javascript; charset=utf-8",
        ".css": "text/css; charset=utf-8",
        ".json": "application/json",
        ".csv": "text/csv; charset=utf-8",
        ".svg": "image/svg+xml",
        ".xml": "application/xml",
        ".txt": "text/plain; charset=utf-8",
        ".woff2": "font/woff2",
        ".ico": "image/x-icon",
        ".png": "image/png",
        ".gz": "application/gzip",
    }  # the ledger's JSON Lines parts (.jsonl.gz), as static hosts serve them

    def log_message(self, format, *args):  # noqa: A002 - the stdlib's name
        pass  # quiet: the build lines are what matter

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_GET(self):
        self._answer(body=True)

    def do_HEAD(self):
        self._answer(body=False)

    def _answer(self, body: bool) -> None:
        try:
            self._route(body)
        except (ConnectionError, TimeoutError):
            pass  # the client went away
        except Exception:  # noqa: BLE001 - never a traceback, never a detail of the error
            self.close_connection = True
            try:
                self._plain(HTTPStatus.INTERNAL_SERVER_ERROR, b"podium serve: internal error\n", body)
            except OSError:
                pass

    def _route(self, body: bool) -> None:
        given = self.headers.get_all("Host") or []
        if len(given) != 1:
            return self._plain(HTTPStatus.BAD_REQUEST, b"podium serve: one Host header is required\n", body)
        if given[0].strip().lower() not in self.hosts:
            return self._plain(
                HTTPStatus.MISDIRECTED_REQUEST, b"podium serve: this server answers only for its own address\n", body
            )
        try:
            parts, directory = request_parts(self.path)
        except BadRequest:
            return self._plain(HTTPStatus.BAD_REQUEST, b"podium serve: malformed request path\n", body)
        path = "/" + "/".join(parts) + ("/" if directory and parts else "")
        if path == PREFIX + "version":
            return self._send(self.builds.state(), "application/json", body)
        if path == PREFIX + "reload.js":
            return self._send(RELOAD_JS, "text/javascript; charset=utf-8", body)
        fd, is_dir = open_in_site(self.site, parts + (["index.html"] if directory else []))
        if fd is None and is_dir and not directory:  # a directory without its slash: where the browser should go
            self.send_response(HTTPStatus.MOVED_PERMANENTLY)
            self.send_header("Location", self.path.split("?", 1)[0].split("#", 1)[0] + "/")
            self.send_header("Content-Length", "0")
            return self.end_headers()
        if fd is None:
            return self._plain(HTTPStatus.NOT_FOUND, b"podium serve: not found\n", body)
        with os.fdopen(fd, "rb") as handle:
            data = handle.read()
        suffix = Path(parts[-1] if parts and not directory else "index.html").suffix.lower()
        kind = self.types.get(suffix, "application/octet-stream")
        if suffix == ".html":
            data = inject_reload(data)
        return self._send(data, kind, body)

    def _plain(self, status: HTTPStatus, text: bytes, body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(text)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if body:
            self.wfile.write(text)

    def _send(self, data: bytes, kind: str, body: bool = True) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if body:
            self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):  # the handler answers every error itself: stay quiet
        pass


def make_server(out: Path, host: str, port: int, builds: Builds) -> ThreadingHTTPServer:
    """A server for the site at ``out`` (resolved) answering only Host headers that name ``host``."""
    handler = type("PodiumHandler", (Handler,), {"builds": builds, "site": out})
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    server = type("PodiumServer", (_Server,), {"address_family": family})((host, port), handler)
    handler.hosts = allowed_hosts(host, server.server_address[1])
    return server


def watched(config: Config, exports: list[Path]) -> Inputs:
    """Every input whose change should rebuild the site, and where the build writes (never an input).

    The content directory and ``themes/`` are watched even before they exist (a page or theme added
    later is read by the next build), and so is ``./podium.yaml`` when no config file was read."""
    return Inputs.of(
        exports=exports,
        trees=[p for p in (config.root / "themes", builtin_themes(), config.theme_dir) if p is not None],
        pages=[config.content or config.root / "content"],
        files=[Path(config.source) if config.source else Path.cwd() / CONFIG_NAME],
        ignored=[config.out, config.out.parent / DEFAULT_CACHE],
    )


def describe(inputs: Inputs, batch: list[str], show: int = 3) -> str:
    """The changed paths of a batch for the log: the first few, then how many more."""
    names = ", ".join(inputs.label(path) for path in batch[:show])
    return names + (f" (+{len(batch) - show:,} more)" if len(batch) > show else "")


class Session:
    """One ``podium serve``: the build inputs, the output directory and the rebuild loop."""

    def __init__(
        self,
        config_path: Path | None,
        export: tuple[Path, ...],
        overrides: dict,
        say: Callable[[str], None],
        jobs: int = 1,
    ):
        self.config_path = config_path
        self.jobs = jobs
        self.export_arg = export
        self.overrides = overrides
        self.say = say
        self.builds = Builds()
        self.watcher: Watcher | None = None  # started with the first build whose config could be read
        self.failure: Exception | None = None  # why the last build failed

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
            inputs = watched(config, export)
            if self.watcher is None:  # before the build reads anything: a change made meanwhile is a rebuild
                self.watcher = Watcher(inputs, self.say)
            else:
                self.watcher.update(inputs)
            built = build_site(config, export, cache_dir=config.out.parent / DEFAULT_CACHE, jobs=self.jobs)
        except Exception as err:  # noqa: BLE001 - any failure must leave the server running
            self.failure = err
            message = getattr(err, "message", None) or f"{type(err).__name__}: {err}"
            with self.builds.lock:
                self.builds.error = message
            self.say(f"podium serve: rebuild failed, still serving the last good site:\n{message}")
            return False
        self.failure = None
        with self.builds.lock:
            self.builds.version += 1
            self.builds.error = None
        meter = built.meter
        self.say(
            f"podium serve: built {meter.summary() if meter else built.files} in "
            f"{time.monotonic() - started:.1f} s ({built.outline.totals.runs} runs; {built.rendered:,} pages "
            f"rendered, {built.reused:,} unchanged)"
        )
        return True

    def watch(self, stop: threading.Event) -> None:
        """Rebuild after each burst of changes to the inputs, until ``stop`` is set."""
        while self.watcher is not None and (batch := self.watcher.next_batch(stop)) is not None:
            self.say(f"podium serve: changed: {describe(self.watcher.inputs, batch)}; rebuilding")
            self.build()

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.close()


def serve(
    config_path: Path | None,
    export: tuple[Path, ...],
    *,
    host: str,
    port: int,
    out: Path | None,
    theme_dir: Path | None,
    say: Callable[[str], None],
    ready: Callable[[str], None] | None = None,
    jobs: int = 1,
) -> None:
    """Build, serve and rebuild until interrupted (Ctrl-C or SIGTERM); each rebuild uses the build
    cache beside the output (cache/store.py), so an edit re-renders only the pages it changes."""
    own_dir = None
    if out is not None:
        _check_output(config_path, export, out, theme_dir)  # exit 2 exactly where `podium build` is, creating nothing
    else:
        own_dir = Path(tempfile.mkdtemp(prefix="podium-serve-"))
        out = own_dir / "site"
    session = Session(config_path, export, {"out": out, "theme_dir": theme_dir}, say, jobs)
    try:
        if not session.build():
            if isinstance(session.failure, UnsafeOutput):
                raise session.failure  # never serve a directory the build refused
            say("podium serve: the first build failed; fix the error and save: the site is rebuilt on change")
            if session.watcher is None:
                raise SystemExit(2)
            out.mkdir(parents=True, exist_ok=True)
        server = make_server(out.resolve(), host, port, session.builds)
    except BaseException:
        session.close()
        if own_dir is not None:
            shutil.rmtree(own_dir, ignore_errors=True)
        raise
    stop = threading.Event()
    thread = threading.Thread(target=server.serve_forever, name="podium-http", daemon=True)
    previous = None
    try:  # from here on, an interrupt at any point still stops the server and removes own_dir
        if _main_thread():
            previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
        thread.start()
        name, bound = server.server_address[:2]
        url = f"http://{'[' + name + ']' if ':' in name else name}:{bound}/"
        if host not in LOOPBACK:
            say(f"podium serve: warning: listening on {host}, reachable from other machines")
        say(f"podium serve: serving {url} (Ctrl-C to stop)")
        if ready is not None:
            ready(url)
        session.watch(stop)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        if thread.ident is not None:  # shutdown() waits for serve_forever, which must have started
            server.shutdown()
        server.server_close()
        session.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if own_dir is not None:
            shutil.rmtree(own_dir, ignore_errors=True)
        say("podium serve: stopped")
        sys.stderr.flush()


def _check_output(config_path: Path | None, export: tuple[Path, ...], out: Path, theme_dir: Path | None) -> None:
    """``podium build``'s own output check (build.check_output) for ``--out``; an UnsafeOutput (exit 2) when
    it refuses. A config or export that cannot be read is left to the first build, which reports it."""
    try:
        config = load_config(config_path, {"out": out, "theme_dir": theme_dir})
    except PodiumError:
        return
    exports = list(export or config.export)
    if exports:
        check_output(config, exports)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()
