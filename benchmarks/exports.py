"""Synthetic exports for the harness, cached in the work directory, and the one-change
edits of the incremental scenarios (add a run, change a report, delete a run).

The base export is generated once per (runs, seed, report size, sidecar size) and never
edited. Each repetition starts from a fresh hard-linked copy of it (`cp -al`, which keeps
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
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MAKE_EXPORT = REPO / "scripts" / "make_export.py"
CHANGED_NOTE = "_Re-graded after an appeal: no score changed._\n\n"


@dataclass(frozen=True)
class ExportSpec:
    runs: int
    seed: int
    report_kb: str | None      # "KB" or "LO-HI"; None keeps the natural (~2-3 KB) reports
    sidecar_kb: float | None

    @property
    def key(self) -> str:
        return (f"runs{self.runs}-seed{self.seed}-report{self.report_kb or 'natural'}"
                f"-sidecar{self.sidecar_kb or 'natural'}")

    def args(self) -> list[str]:
        args = ["--runs", str(self.runs), "--seed", str(self.seed)]
        if self.report_kb:
            args += ["--report-kb", self.report_kb]
        if self.sidecar_kb:
            args += ["--sidecar-kb", str(self.sidecar_kb)]
        return args


@dataclass(frozen=True)
class BaseExport:
    export: Path       # the run export (never edited)
    spare: Path        # one more run, outside the export, for "add one run"


def script_digest() -> str:
    return hashlib.sha256(MAKE_EXPORT.read_bytes()).hexdigest()


def ensure_export(spec: ExportSpec, work: Path) -> BaseExport:
    """The cached export for spec, generated when missing or made by another make_export."""
    folder = work / "exports" / spec.key
    stamp = folder / "complete"
    base = BaseExport(folder / "export", folder / "spare")
    if stamp.is_file() and stamp.read_text() == script_digest():
        return base
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    print(f"bench: generating export {spec.key} …", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, str(MAKE_EXPORT), str(base.export), *spec.args(),
                    "--spare-run", str(base.spare)], check=True, stderr=subprocess.DEVNULL)
    stamp.write_text(script_digest())
    return base


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


# --- the one-change edits --------------------------------------------------------------------
def add_run(export: Path, spare: Path) -> str:
    """Copy the spare run in and list it first (newest) in runs.json; its directory name."""
    (run_dir,) = [p for p in spare.iterdir() if p.is_dir()]
    shutil.copytree(run_dir, export / run_dir.name)
    row = json.loads((spare / "runs-row.json").read_text(encoding="utf-8"))
    chunk = ("  " + json.dumps(row, indent=2).replace("\n", "\n  ")).encode()
    listing = (export / "runs.json").read_bytes()
    if listing.strip() == b"[]":
        replace_file(export / "runs.json", b"[\n" + chunk + b"\n]\n")
    else:
        assert listing.startswith(b"[\n"), "runs.json is not in make_export's layout"
        replace_file(export / "runs.json", b"[\n" + chunk + b",\n" + listing[2:])
    return run_dir.name


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
        if (export / run_id).exists():       # a stale short directory beside the full one
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
    if listing[end:end + 2] == b",\n":
        return listing[:start] + listing[end + 2:]
    before = listing[:start - 1]                        # the last row: drop the comma before it
    return (before[:-1] if before.endswith(b",") else before) + listing[end:]
