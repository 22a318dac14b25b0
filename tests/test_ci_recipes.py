"""The CI recipes of docs/ci/ (issue 8): the GitHub Actions workflow is valid YAML with the
documented steps; the generic publish.sh is run against a local directory as the host."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sitekit as kit
import yaml
from exportkit import ExportDir, graded, run_id

REPO = Path(__file__).resolve().parents[1]
WORKFLOW = REPO / "docs" / "ci" / "github-pages.yml"
PUBLISH = REPO / "docs" / "ci" / "publish.sh"


def steps_by_name(job: dict) -> dict[str, dict]:
    return {step["name"]: step for step in job["steps"]}


def test_workflow_is_valid_yaml_with_the_documented_steps():
    flow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert flow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    assert set(flow["jobs"]) == {"build", "deploy"}
    build, deploy = flow["jobs"]["build"], flow["jobs"]["deploy"]
    names = list(steps_by_name(build))
    assert names == ["Check out", "Set up Python", "Install podium and the XORCISE client",
                     "Export the runs from XORCISE", "Restore the podium cache", "Fetch the published summary",
                     "Build the site", "Post the change report", "Upload the site"]
    steps = steps_by_name(build)
    assert "pip install podium" in steps["Install podium and the XORCISE client"]["run"]
    export = steps["Export the runs from XORCISE"]["run"]
    assert "xorcise run export --out export" in export
    assert "xorcise run list --json > export/runs.json" in export
    assert "xorcise agent list --json > export/agents.json" in export
    cache = steps["Restore the podium cache"]
    assert cache["uses"].startswith("actions/cache@") and cache["with"]["path"].split() == [".podium-cache/", "site/"]
    assert "curl -fsSL" in steps["Fetch the published summary"]["run"]
    assert "/api/results/summary.json" in steps["Fetch the published summary"]["run"]
    assert steps["Build the site"]["run"].strip() == "podium build export --out site"
    report = steps["Post the change report"]["run"]
    assert 'podium diff previous-summary.json site/api/results/summary.json >> "$GITHUB_STEP_SUMMARY"' in report
    upload = steps["Upload the site"]
    assert upload["uses"].startswith("actions/upload-pages-artifact@") and upload["with"]["path"] == "site"
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]
    # Steps before the build write only where the build reads.
    assert export.count("export/") == 2


@pytest.fixture
def project(tmp_path):
    export = ExportDir(tmp_path / "export")
    for n in range(3):
        rid = run_id(f"ci-{n}")
        export.run(graded(rid, det=0.25 * n), rid=rid, agent="osprey")
    export.sidecars()
    (tmp_path / "podium.yaml").write_text('title: "First"\n', encoding="utf-8")
    return tmp_path


def publish(project: Path, host: str, *, path: str | None = None, **env) -> subprocess.CompletedProcess:
    environ = {**os.environ, "EXPORT": "export", "SITE": "site", "PUBLISH_TO": host,
               "PODIUM": f"{sys.executable} -m podium", "PODIUM_ARGS": "--config podium.yaml --quiet", **env}
    if path is not None:
        environ["PATH"] = path
    return subprocess.run(["/bin/sh", str(PUBLISH)], cwd=project, env=environ, capture_output=True, text=True,
                          timeout=120)


def published(host: Path) -> dict[str, bytes]:
    return kit.site_files(host)


def check_round_trip(project: Path, path: str | None = None) -> str:
    host = project / "host" / "www"
    host.mkdir(parents=True)
    (host / "stale.html").write_text("from an older publish")
    first = publish(project, str(host), path=path)
    assert first.returncode == 0, first.stderr
    site = kit.site_files(project / "site")
    site.pop(".podium-site")
    assert published(host) == site  # stale.html is gone, the marker is not published
    (project / "podium.yaml").write_text('title: "Second"\n', encoding="utf-8")
    second = publish(project, str(host), path=path)
    assert second.returncode == 0, second.stderr
    assert b"Second" in (host / "index.html").read_bytes()
    assert [p.name for p in (project / "host").iterdir()] == ["www"]  # no leftovers beside the host dir
    return first.stdout + second.stdout


@pytest.mark.skipif(shutil.which("rsync") is None, reason="rsync is not installed (the cp fallback is tested below)")
def test_publish_sh_with_rsync_to_a_local_directory(project):
    out = check_round_trip(project)
    assert "publish.sh: rsync -a --delete-after --delay-updates" in out


def test_publish_sh_without_rsync_copies_and_swaps(project, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "cp", "mv", "rm", "mkdir", "dirname", "cat", "env"):
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    out = check_round_trip(project, path=str(bin_dir))
    assert "publish.sh: cp -a site/. " in out and "publish.sh: rsync" not in out


def test_publish_sh_dry_run_picks_s3_and_rclone_by_the_target(project):
    s3 = publish(project, "s3://bucket/board", DRY_RUN="1")
    assert s3.returncode == 0, s3.stderr
    assert "publish.sh: aws s3 sync site/ s3://bucket/board --delete" in s3.stdout
    rclone = publish(project, "rclone:remote:board", DRY_RUN="1")
    assert "publish.sh: rclone sync site/ remote:board" in rclone.stdout
    missing = publish(project, "")
    assert missing.returncode != 0 and "set PUBLISH_TO" in missing.stderr
