#!/usr/bin/env python3
"""What `podium serve` costs while nothing changes, and how soon it serves an edit (issue 27.4).

    python benchmarks/serve_idle.py [--runs 10000] [--seconds 60] [--watch auto|poll|both]
                                    [--export DIR] [--work-dir DIR] [--json FILE]

Serves a hard-linked copy of a synthetic export (benchmarks/exports.py, as run.py makes it:
`scripts/make_export.py --runs N --seed 7`), waits until the first build is done and the
watcher has settled, then reads the CPU time (utime + stime, /proc/<pid>/stat) of the whole
process tree (serve and any worker it left) before and after SECONDS of idling: the idle
share of one core. Then three edits, each timed from the write to the version number
`/__podium/version` moving on (what an open page's reload script waits for) and checked on
the served page: a content page written in place, one run's report.md replaced (a new inode,
as make_export's edits are), and a batch of 100 new run directories (with their runs.json
rows), for which it counts the rebuilds that followed.

`--watch poll` sets PODIUM_SERVE_POLL=1 (the polling fallback); `both` measures the
default watcher and then the fallback.

`--watcher-only --runs 100000` measures the watcher alone (podium.commands.watch.Watcher in this
process, no build, no server) on a bare tree of that many run directories (result.json,
report.md and the two sidecars, a few bytes each: quick to make at any size): how long it
takes to start, its idle CPU share, and how long an in-place edit of the last run
directory's result.json takes to be seen (polling's worst case: a whole round of slices).

podium runs as `PY -m podium` with this environment, so `PYTHONPATH=<tree>/generator`
measures another work tree (e.g. main before the change).
A harness, not a test: nothing here runs in the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from exports import ExportSpec, add_batch, change_report, ensure_export, fresh_copy  # noqa: E402
from measure import CLOCK_TICKS, cpu_ticks, process_tree  # noqa: E402

READY_S = 1800  # the first build of a big export on a loaded machine
EDIT_S = 300  # one rebuild at most
CONTENT = "---\ntitle: About\n---\n{words}\n"


class Serve:
    """One `podium serve` process and the lines it writes to stderr."""

    def __init__(self, python: str, export: Path, project: Path, env: dict):
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        self.log: list[str] = []
        self.stamps: list[float] = []  # when each line of log was read (time.monotonic)
        self.proc = subprocess.Popen(
            [
                python,
                "-m",
                "podium",
                "serve",
                str(export),
                "--port",
                "0",
                "--out",
                str(project / "site"),
                "--config",
                "podium.yaml",
            ],
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        self.url = self.wait_for(r"serving (http://\S+/)", READY_S).group(1)

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.lines.put((time.monotonic(), line.rstrip("\n")))

    def wait_for(self, pattern: str, seconds: float) -> re.Match:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                stamp, line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"podium serve exited {self.proc.returncode}: {self.log[-5:]}") from None
                continue
            self.log.append(line)
            self.stamps.append(stamp)
            if match := re.search(pattern, line):
                return match
        raise RuntimeError(f"no line matching {pattern!r} in {seconds} s: {self.log[-5:]}")

    def drain(self) -> list[str]:
        new = []
        while True:
            try:
                stamp, line = self.lines.get_nowait()
            except queue.Empty:
                return new
            new.append(line)
            self.log.append(line)
            self.stamps.append(stamp)

    def get(self, path: str) -> bytes:
        with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=30) as response:
            return response.read()

    def version(self) -> int:
        return json.loads(self.get("/__podium/version"))["version"]

    def wait_version(self, after: int, seconds: float = EDIT_S) -> tuple[int, float]:
        """(the new version, seconds waited) once it is above ``after``, polled every 20 ms."""
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            now = self.version()
            if now > after:
                return now, time.monotonic() - started
            time.sleep(0.02)
        raise RuntimeError(f"no rebuild within {seconds} s: {self.log[-5:]}")

    def cpu_seconds(self) -> dict[tuple[int, int], int]:
        """Clock ticks of user + system time of every process in the tree, by (pid, start time)."""
        ticks = {}
        for pid in process_tree(self.proc.pid):
            if (sample := cpu_ticks(pid)) is not None:
                ticks[sample[0]] = sample[1]
        return ticks

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(2)  # SIGINT: podium serve's Ctrl-C
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def idle_share(serve: Serve, seconds: float) -> dict:
    """CPU time of the serve tree over ``seconds`` of nothing happening, as a share of one core."""
    before, started = serve.cpu_seconds(), time.monotonic()
    time.sleep(seconds)
    after, wall = serve.cpu_seconds(), time.monotonic() - started
    ticks = sum(t - before.get(key, 0) for key, t in after.items())
    cpu = ticks / CLOCK_TICKS
    return {
        "seconds": round(wall, 2),
        "cpu_s": round(cpu, 3),
        "share_of_core": round(cpu / wall, 4),
        "processes": len(after),
    }


def timed_edit(serve: Serve, edit, quiet: float) -> dict:
    """Make one edit; from the write: when serve said it saw it ("rebuilding"), how long that rebuild
    took by its own line, when the version moved on; and how many rebuilds it caused, counted once
    ``quiet`` seconds have passed without a line."""
    serve.drain()
    version, mark = serve.version(), len(serve.log)
    started = time.monotonic()
    edit()
    _, waited = serve.wait_version(version)
    quiet_until = time.monotonic() + quiet
    while time.monotonic() < quiet_until:
        time.sleep(0.2)
        if serve.drain():
            quiet_until = time.monotonic() + quiet
    lines = list(zip(serve.stamps[mark:], serve.log[mark:]))
    seen = next((stamp for stamp, line in lines if "rebuilding" in line), None)
    built = [line for _, line in lines if line.startswith("podium serve: built")]
    took = re.search(r" in ([\d.]+) s \(", built[0]) if built else None
    return {
        "seen_s": round(seen - started, 2) if seen is not None else None,
        "rebuild_s": float(took[1]) if took else None,
        "to_new_version_s": round(waited, 2),
        "rebuilds": len(built),
    }


def edits(serve: Serve, project: Path, export: Path, spare: Path) -> dict:
    """Each edit timed (timed_edit) and checked on the served page."""
    results: dict = {}
    about = project / "content" / "about.md"

    def content() -> None:
        with open(about, "w", encoding="utf-8") as fh:  # in place, as most editors save
            fh.write(CONTENT.format(words="Edited while serving."))

    results["content_page"] = timed_edit(serve, content, 3)
    results["content_page"]["served"] = b"Edited while serving." in serve.get("/about/")
    changed: list[str] = []
    results["run_report"] = timed_edit(serve, lambda: changed.append(change_report(export)), 3)
    page = next(p.name for p in (project / "site" / "runs").iterdir() if p.name.startswith(changed[0]))
    results["run_report"]["served"] = b"Re-graded after an appeal" in serve.get(f"/runs/{page}/")
    added: list[str] = []
    results["batch_of_100"] = timed_edit(serve, lambda: added.extend(add_batch(export, spare)), 10)
    results["batch_of_100"]["served"] = added[0].encode() in serve.get("/runs/index.html")
    return results


def measure(mode: str, args, base, work: Path) -> dict:
    project = work / f"serve-{mode}"
    export = project / "export"
    fresh_copy(base.export, export)
    (project / "content").mkdir(exist_ok=True)
    (project / "content" / "about.md").write_text(CONTENT.format(words="First words."), encoding="utf-8")
    (project / "podium.yaml").write_text('title: "Serve benchmark"\n', encoding="utf-8")
    env = dict(os.environ)
    env.pop("PODIUM_SERVE_POLL", None)
    if mode == "poll":
        env["PODIUM_SERVE_POLL"] = "1"
    started = time.monotonic()
    serve = Serve(args.podium_python, export, project, env)
    try:
        ready = time.monotonic() - started
        print(f"serve_idle: {mode}: serving after {ready:.0f} s; settling {args.settle:.0f} s", file=sys.stderr)
        time.sleep(args.settle)
        idle = idle_share(serve, args.seconds)
        print(
            f"serve_idle: {mode}: idle {idle['share_of_core']:.1%} of a core over {idle['seconds']:.0f} s",
            file=sys.stderr,
        )
        result = {"mode": mode, "first_build_s": round(ready, 1), "idle": idle}
        if not args.no_edits:
            result["edits"] = edits(serve, project, export, base.spare)
            print(f"serve_idle: {mode}: edits {result['edits']}", file=sys.stderr)
        result["watch_lines"] = [line for line in serve.log if "watch" in line][:5]
        return result
    finally:
        serve.stop()


def bare_tree(root: Path, runs: int) -> Path:
    """``runs`` run directories of tiny files (made once per size)."""
    export = root / f"bare-{runs}"
    if (export / "agents.json").is_file():
        return export
    export.mkdir(parents=True, exist_ok=True)
    for n in range(runs):
        run = export / f"{n:08x}"
        run.mkdir(exist_ok=True)
        (run / "result.json").write_text('{"run_id": "x"}')
        (run / "report.md").write_text("# report\n")
        (run / "events.jsonl").write_text("")
    (export / "runs.json").write_text("[]")
    (export / "agents.json").write_text("[]")
    return export


def watcher_only(args, work: Path) -> dict:
    import resource
    import threading

    from podium.commands.watch import Inputs, Watcher

    export = bare_tree(work / "bare", args.runs)
    inputs = Inputs.of(exports=[export])
    results = {}
    for mode in ["notify", "poll"] if args.watch == "both" else ["poll" if args.watch == "poll" else "notify"]:
        started = time.perf_counter()
        said: list[str] = []
        watcher = Watcher(inputs, said.append, poll=mode == "poll")
        start_s = time.perf_counter() - started
        try:
            time.sleep(args.settle)
            usage, wall = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
            time.sleep(args.seconds)
            after = resource.getrusage(resource.RUSAGE_SELF)
            cpu = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
            idle = {
                "seconds": round(time.monotonic() - wall, 2),
                "cpu_s": round(cpu, 3),
                "share_of_core": round(cpu / (time.monotonic() - wall), 4),
            }
            last = export / f"{args.runs - 1:08x}" / "result.json"
            stop = threading.Event()
            timer = threading.Timer(600, stop.set)
            timer.start()
            edited = time.perf_counter()
            with open(last, "r+", encoding="utf-8") as fh:  # in place, same size
                fh.write('{"run_id": "y"}')
            batch = watcher.next_batch(stop)
            seen_s = time.perf_counter() - edited
            timer.cancel()
        finally:
            watcher.close()
        results[watcher.mode] = {
            "start_s": round(start_s, 3),
            "idle": idle,
            "in_place_edit_seen_s": round(seen_s, 2),
            "seen": batch == [str(last)],
            "said": said,
        }
        print(f"serve_idle: watcher {watcher.mode} at {args.runs:,} runs: {results[watcher.mode]}", file=sys.stderr)
    return {"runs": args.runs, "watcher_only": results}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10000)
    parser.add_argument("--seconds", type=float, default=60.0, help="idle window measured")
    parser.add_argument("--settle", type=float, default=10.0, help="wait after 'serving' before measuring")
    parser.add_argument("--watch", choices=["auto", "poll", "both"], default="both")
    parser.add_argument("--work-dir", type=Path, default=HERE / ".work")
    parser.add_argument("--podium-python", default=sys.executable)
    parser.add_argument("--no-edits", action="store_true", help="measure the idle share only")
    parser.add_argument("--watcher-only", action="store_true", help="the watcher alone on a bare tree (see above)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    work = args.work_dir.resolve()
    if args.watcher_only:
        text = json.dumps(watcher_only(args, work), indent=2)
        if args.json:
            args.json.write_text(text + "\n")
        print(text)
        return 0
    base = ensure_export(ExportSpec(runs=args.runs, seed=7, report_kb=None, sidecar_kb=None), work)
    origin = subprocess.run(
        [args.podium_python, "-c", "import podium; print(podium.__file__)"], capture_output=True, text=True, check=True
    ).stdout.strip()
    modes = ["auto", "poll"] if args.watch == "both" else [args.watch]
    machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "load_before": os.getloadavg()}
    report = {
        "runs": args.runs,
        "podium": origin,
        "machine": machine,
        "results": [measure(mode, args, base, work) for mode in modes],
    }
    text = json.dumps(report, indent=2)
    if args.json:
        args.json.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
