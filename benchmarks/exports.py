"""Synthetic exports for the harness, cached in the work directory, and the edits of the
incremental scenarios (add 100 runs, add a run, change a report, delete a run).

The base export is generated once per (runs, seed, report size, sidecar size, agents,
missions) and never edited; BATCH + 1 spare runs, newer than all of its runs, are written
beside it (make_export --spare-runs): the oldest BATCH for "100 runs added", the newest
for "one run added". Each repetition starts from a fresh hard-linked copy of it (`cp -al`, which keeps
every file's size and mtime); the edits replace files (write + rename) rather than
writing into them, so they never reach the base export through a shared inode.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MAKE_EXPORT = REPO / "scripts" / "make_export.py"
CHANGED_NOTE = "_Re-graded after an appeal: no score changed._\n\n"
BATCH = 100  # runs added by the "add100" scenario
SPARE_RUNS = BATCH + 1  # and one more, the newest, for "add"


@dataclass(frozen=True)
class ExportSpec:
    runs: int
    seed: int
    report_kb: str | None  # "KB" or "LO-HI"; None keeps the natural (~2-3 KB) reports
    sidecar_kb: float | None  # None (or 0) keeps the natural (~2-3 KB) sidecars
    agents: int | None = None  # None: make_export's default for the size
    missions: int | None = None
    per_run_answers: bool = False  # make_export --per-run-answers: one distinct answer (flag) per run

    @property
    def key(self) -> str:
        shape = "".join(
            f"-{name}{value}" for name, value in (("agents", self.agents), ("missions", self.missions)) if value
        )
        return (
            f"runs{self.runs}-seed{self.seed}-report{self.report_kb or 'natural'}"
            f"-sidecar{self.sidecar_kb or 'natural'}{shape}{'-answersperrun' if self.per_run_answers else ''}"
        )

    def args(self) -> list[str]:
        args = ["--runs", str(self.runs), "--seed", str(self.seed)]
        if self.report_kb:
            args += ["--report-kb", self.report_kb]
        if self.sidecar_kb:
            args += ["--sidecar-kb", str(self.sidecar_kb)]
        if self.agents:
            args += ["--agents", str(self.agents)]
        if self.missions:
            args += ["--missions", str(self.missions)]
        if self.per_run_answers:
            args.append("--per-run-answers")
        return args


@dataclass(frozen=True)
class BaseExport:
    export: Path  # the run export (never edited)
    spare: Path  # SPARE_RUNS more runs, outside the export, for "add100" and "add"
    info: dict  # bytes, files and disk use of the export, make_export's time


def script_digest() -> str:
    return hashlib.sha256(MAKE_EXPORT.read_bytes()).hexdigest()


def tree_size(path: Path) -> dict:
    """Apparent bytes, regular files, directories and disk use (allocated blocks) under path."""
    size = files = dirs = disk = 0
    for dirpath, dirnames, names in os.walk(path):
        dirs += len(dirnames)
        disk += os.lstat(dirpath).st_blocks * 512
        for name in names:
            st = os.lstat(os.path.join(dirpath, name))
            size, files, disk = size + st.st_size, files + 1, disk + st.st_blocks * 512
    return {"bytes": size, "files": files, "dirs": dirs, "disk_bytes": disk}


def _stamp(spec: ExportSpec) -> str:
    return f"{script_digest()} {' '.join(spec.args())} --spare-runs {SPARE_RUNS}"


def export_ready(spec: ExportSpec, work: Path) -> bool:
    """Whether the cached export for spec is there, complete, from this make_export."""
    folder = work / "exports" / spec.key
    stamp = folder / "complete"
    return stamp.is_file() and stamp.read_text() == _stamp(spec) and (folder / "export-info.json").is_file()


def ensure_export(spec: ExportSpec, work: Path) -> BaseExport:
    """The cached export for spec, generated when missing or made by another make_export
    (or other arguments)."""
    folder = work / "exports" / spec.key
    stamp, info_file = folder / "complete", folder / "export-info.json"
    args = [*spec.args(), "--spare-runs", str(SPARE_RUNS)]
    base = BaseExport(folder / "export", folder / "spare", {})
    if export_ready(spec, work):
        return BaseExport(base.export, base.spare, json.loads(info_file.read_text()))
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    print(f"bench: generating export {spec.key} …", file=sys.stderr, flush=True)
    started = time.perf_counter()
    with open(folder / "make_export.log", "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, str(MAKE_EXPORT), str(base.export), *args, "--spare-run", str(base.spare)],
            stderr=subprocess.PIPE,
        )
        for line in proc.stderr:  # progress of a big export, and its summary
            log.write(line)
            print(f"bench:   {line.decode(errors='replace').rstrip()}", file=sys.stderr, flush=True)
        if proc.wait():
            raise subprocess.CalledProcessError(proc.returncode, "make_export.py")
    info = {
        "make_export_s": round(time.perf_counter() - started, 2),
        **tree_size(base.export),
        "spare_runs": SPARE_RUNS,
    }
    print(
        f"bench: export {spec.key}: {info['bytes'] / 1e6:,.0f} MB in {info['files']:,} files, "
        f"{info['disk_bytes'] / 1e6:,.0f} MB on disk, made in {info['make_export_s']:.0f} s",
        file=sys.stderr,
        flush=True,
    )
    info_file.write_text(json.dumps(info) + "\n")
    stamp.write_text(_stamp(spec))
    return BaseExport(base.export, base.spare, info)


def fresh_copy(base: Path, live: Path) -> None:
    """live = a hard-linked copy of base (same sizes and mtimes, directories included)."""
    if live.exists():
        shutil.rmtree(live)
    live.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-al", str(base), str(live)], check=True)


def replace_file(path: Path, data: bytes) -> None:
    """Write data to path through a new inode (breaks any hard link to the base export)."""
    tmp = path.with_name(f".{path.name}.bench-tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def run_dirs(export: Path) -> list[Path]:
    return sorted(p for p in export.iterdir() if p.is_dir() and not p.name.startswith("."))


# --- the edits -----------------------------------------------------------------------------
def spare_rows(spare: Path) -> list[dict]:
    """The spare runs' runs.json rows, newest first (runs-rows.json, or the one runs-row.json
    an older make_export wrote)."""
    many = spare / "runs-rows.json"
    if many.is_file():
        return json.loads(many.read_text(encoding="utf-8"))
    return [json.loads((spare / "runs-row.json").read_text(encoding="utf-8"))]


def add_runs(export: Path, spare: Path, rows: list[dict]) -> list[str]:
    """Copy the spare runs of rows (newest first) in and list them first in runs.json, in
    that order; their directory names. runs.json is rewritten as a stream (it holds ~1.4 KB
    a run: 1.4 GB at 1M runs)."""
    names = []
    for row in rows:
        run_id = row["run_id"]
        name = run_id[:8] if (spare / run_id[:8]).is_dir() else run_id
        shutil.copytree(spare / name, export / name)
        names.append(name)
    chunk = ",\n".join("  " + json.dumps(row, indent=2).replace("\n", "\n  ") for row in rows).encode()
    listing = export / "runs.json"
    tmp = listing.with_name(f".{listing.name}.bench-tmp")
    with open(listing, "rb") as old, open(tmp, "wb") as new:
        head = old.read(3)
        if head.startswith(b"[]"):
            new.write(b"[\n" + chunk + b"\n]\n")
        else:
            assert head.startswith(b"[\n"), "runs.json is not in make_export's layout"
            new.write(b"[\n" + chunk + b",\n" + head[2:])
            shutil.copyfileobj(old, new, 1 << 20)
    os.replace(tmp, listing)  # a new inode: the base export's runs.json is untouched
    return names


def add_run(export: Path, spare: Path) -> str:
    """Copy the newest spare run in and list it first (newest) in runs.json; its directory."""
    return add_runs(export, spare, spare_rows(spare)[:1])[0]


def add_batch(export: Path, spare: Path, count: int = BATCH) -> list[str]:
    """Copy the oldest count spare runs in (all but the newest, which "add" adds later) and
    list them first in runs.json, newest first; their directories."""
    rows = spare_rows(spare)
    if len(rows) < count + 1:
        raise RuntimeError(f"{spare}: {len(rows)} spare runs, {count + 1} needed")
    return add_runs(export, spare, rows[-count:])


def change_report(export: Path) -> str:
    """Add a note under `## Judge rubric` of the first graded run's report; its directory."""
    for run_dir in run_dirs(export):
        report = run_dir / "report.md"
        if not report.is_file():
            continue
        text = report.read_bytes()
        marker = b"## Judge rubric\n\n"
        if marker in text:
            replace_file(report, text.replace(marker, marker + CHANGED_NOTE.encode(), 1))
            return run_dir.name
    raise RuntimeError(f"{export}: no report with a Judge rubric to change")


def delete_run(export: Path) -> str:
    """Remove the last run directory (by name) that has a report, and its runs.json row."""
    listing = (export / "runs.json").read_bytes()
    for run_dir in reversed(run_dirs(export)):
        if len(run_dir.name) != 8 or not (run_dir / "report.md").is_file():
            continue
        run_id = json.loads((run_dir / "result.json").read_bytes())["grade"]["run_id"]
        if (export / run_id).exists():  # a stale short directory beside the full one
            continue
        shutil.rmtree(run_dir)
        replace_file(export / "runs.json", without_row(listing, run_id))
        return run_dir.name
    raise RuntimeError(f"{export}: no run to delete")


def without_row(listing: bytes, run_id: str) -> bytes:
    """runs.json (make_export's indent=2 layout) without the row of run_id."""
    at = listing.index(f'"run_id": "{run_id}"'.encode())
    start = listing.rindex(b"\n  {", 0, at) + 1
    end = listing.index(b"\n  }", at) + len(b"\n  }")
    if listing[end : end + 2] == b",\n":
        return listing[:start] + listing[end + 2 :]
    before = listing[: start - 1]  # the last row: drop the comma before it
    return (before[:-1] if before.endswith(b",") else before) + listing[end:]
