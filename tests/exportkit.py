"""Write small XORCISE exports for tests, in the 0.2.0 format (xorcise-export.md).

``ExportDir(tmp).run(...)`` writes one run directory from a few keyword arguments;
``ExportDir.sidecars()`` writes runs.json and agents.json for the runs added with
an agent. Everything not given gets a realistic default.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

BASE = datetime(2026, 10, 1, 9, 0, 0, tzinfo=UTC)


def run_id(n: int | str) -> str:
    return hashlib.sha256(str(n).encode()).hexdigest()[:32]


def agent_id(name: str) -> str:
    return hashlib.sha256(("agent:" + name).encode()).hexdigest()[:32]


def graded(
    rid: str,
    *,
    det: float = 0.8,
    judge: float = 0.6,
    overall: float | None = None,
    judge_status: str = "ok",
    partial_trigger: str | None = None,
    overall_upper="same",
    judge_upper="same",
    judge_model: str | None = "judge-1",
    model: str | None = "model-a",
    mission_version: str | None = "1.0.0",
    install_revision: int = 1,
    models_reported=(),
    judge_detail: str | None = None,
    **grade_extra,
) -> dict:
    """A graded result.json body; ``overall`` defaults to 0.5*det + 0.5*judge."""
    if overall is None:
        overall = 0.5 * det + 0.5 * judge
    grade = {
        "run_id": rid,
        "overall": overall,
        "breakdown": {"deterministic": det, "judge": judge},
        "key_evidence": [],
        "major_deductions": [],
        "artifacts": ["flag"],
        "trace_ref": rid,
        "hard_fails": [],
        "judge_status": judge_status,
        "judge_detail": judge_detail,
        "judge_breakdown": [
            {
                "criterion_id": "recon",
                "text": "Found it",
                "weight": 1.0,
                "score": judge,
                "reason": "Because",
                "status": "ok",
                "criterion_prompt": "SECRET-CRITERION-PROMPT",
            }
        ],
        "overall_upper": overall if overall_upper == "same" else overall_upper,
        "judge_upper": judge if judge_upper == "same" else judge_upper,
        "judge_coverage": 1.0,
        "judge_prompt": "SECRET-JUDGE-PROMPT FLAG{secret}",
        "spans_truncated": 0,
        "transcript_items": 1,
        "check_breakdown": [
            {
                "id": "flag",
                "source": "artifacts",
                "ref": "flag",
                "op": "equals",
                "value": "FLAG{secret-check-value}",
                "passed": det > 0,
                "weight": 1.0,
                "error": None,
                "blocked_by": [],
            }
        ],
    }
    grade.update(grade_extra)
    return {
        "grade": grade,
        "conditions": {
            "model": model,
            "judge_model": judge_model,
            "budget_seconds": 3600,
            "sandbox_ref": "ghcr.io/x@sha256:00",
            "agent_version": 1,
            "install_revision": install_revision,
            "mission_version": mission_version,
            "mission_base_version": "2.1.0",
            "platform": "linux/amd64",
            "intel_disclosed": 0,
        },
        "partial": partial_trigger is not None,
        "partial_trigger": partial_trigger,
        "models_reported": list(models_reported),
        "models_reported_truncated": 0,
        "evidence_digest": "00" * 32,
        "evidence_verified": None,
        "evidence_status": "recorded",
    }


def env_failure(rid: str, trigger: str = "deploy_failed") -> dict:
    return {
        "run_id": rid,
        "status": "not_graded",
        "terminal_trigger": trigger,
        "run_status": {"label": "Deploy failed", "tone": "err", "detail": "x"},
        "detail": "SECRET-LOG-TAIL host db.internal:5432",
    }


def grading(rid: str) -> dict:
    return {"run_id": rid, "status": "grading"}


def crash_fallback(rid: str, **kw) -> dict:
    body = graded(
        rid,
        det=0.0,
        judge=0.0,
        judge_status="unavailable",
        judge_detail="grading failed: judge worker crashed",
        overall_upper=None,
        judge_upper=None,
        **kw,
    )
    body["grade"]["breakdown"] = {}
    return body


def report_md(
    *,
    agent: str = "osprey v1",
    mission: str = "m1 v1.0.0",
    started: str = "2026-10-01 09:00:00 UTC",
    duration: str = "19m 43s",
    rid: str = "",
    extra: str = "",
) -> str:
    return (
        f"# XORCISE Run Report — {mission.rsplit(' v', 1)[0]}\n\n## Overview\n\n| Field | Value |\n| --- | --- |\n"
        f"| Name | x |\n| Mission | {mission} |\n| Agent | {agent} |\n| Harness | codex |\n"
        f"| Started | {started} |\n| Duration | {duration} |\n| Run ID | {rid} |\n| Status | Completed |\n"
        f"| Budget | 3600s |\n\n## Scores\n\n| Score | Value |\n| --- | --- |\n| **Overall** | **0.70 (70%)** |\n\n"
        "## Deterministic checks\n\n| Result | Check | Weight | Op | Value | Blocked by | Error |\n"
        "| --- | --- | --- | --- | --- | --- | --- |\n| PASS | flag | 1.0 | equals | FLAG{report-value} | — | — |\n\n"
        "## Artifacts\n\n### flag (flag)\n\n```\nFLAG{report-artifact}\n```\n\n"
        f"## Conditions\n\n| Field | Value |\n| --- | --- |\n| Judge model | judge-1 |\n{extra}\n"
    )


class ExportDir:
    """A growing export under ``root``; call :meth:`sidecars` once runs are added."""

    def __init__(self, root: Path):
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self.rows: list[dict] = []
        self.agents: dict[str, str] = {}
        self.count = 0

    def run(
        self,
        body: dict | str | bytes | None,
        *,
        rid: str | None = None,
        agent: str | None = "osprey",
        mission: str = "m1",
        version: str | None = "1.0.0",
        trigger: str | None = None,
        outcome: str | None = None,
        at: int | None = None,
        report: str | None = None,
        dirname: str | None = None,
        row: bool = True,
    ) -> str:
        """Write one run directory; ``at`` = minutes after BASE (default: one hour per run)."""
        self.count += 1
        if rid is None:
            rid = (body.get("grade", body).get("run_id") if isinstance(body, dict) else None) or run_id(self.count)
        directory = self.root / (dirname or rid[:8])
        directory.mkdir(parents=True, exist_ok=True)
        if body is not None:
            data = (
                body
                if isinstance(body, bytes)
                else (body.encode() if isinstance(body, str) else json.dumps(body, separators=(",", ":")).encode())
            )
            (directory / "result.json").write_bytes(data)
        if report is not None:
            (directory / "report.md").write_text(report, encoding="utf-8")
        (directory / "events.jsonl").write_text('{"body": "SECRET-EVENT Bearer 0123"}\n')
        (directory / "traces.otlp.jsonl").write_text('{"resourceSpans": "SECRET-TRACE"}\n')
        if agent is not None and row:
            start = BASE + timedelta(minutes=at if at is not None else 60 * self.count)
            if isinstance(body, dict) and "grade" in body:
                trigger = trigger or body.get("partial_trigger") or "done"
            elif isinstance(body, dict) and body.get("status") == "not_graded":
                trigger = trigger or body.get("terminal_trigger")
            trigger = trigger or "done"
            outcome = outcome or {
                "done": "completed",
                "timeout": "partial",
                "operator": "partial",
                "deploy_failed": "infra_failed",
                "crashed": "infra_failed",
            }.get(trigger, trigger)
            self.agents.setdefault(agent_id(agent), agent)
            self.rows.append(
                {
                    "run_id": rid,
                    "agent_id": agent_id(agent),
                    "mission": mission,
                    "name": f"{mission} · {agent}",
                    "state": "terminal",
                    "created_at": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "completed_at": (start + timedelta(minutes=20)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "terminal_trigger": trigger,
                    "terminal_detail": "SECRET-TERMINAL-DETAIL",
                    "outcome": outcome,
                    "model": "model-a",
                    "agent_version": 1,
                    "install_revision": 1,
                    "mission_version": version,
                    "status": {"label": "x", "tone": "ok", "detail": None},
                }
            )
        return rid

    def sidecars(self, *, runs: bool = True, agents: bool = True) -> ExportDir:
        if runs:
            (self.root / "runs.json").write_text(json.dumps(self.rows[::-1], indent=2))
        if agents:
            rows = [
                {
                    "id": aid,
                    "name": name,
                    "kind": "codex",
                    "model": None,
                    "version": 1,
                    "created_at": "2026-09-01T00:00:00Z",
                    "endpoint": "https://SECRET-ENDPOINT.example",
                    "otel": {"headers": "Authorization: Bearer SECRET-OTEL-TOKEN"},
                    "launch_command_template": "SECRET-LAUNCH {prompt}",
                }
                for aid, name in sorted(self.agents.items())
            ]
            (self.root / "agents.json").write_text(json.dumps(rows, indent=2))
        return self


def flood_names(n: int, names: int = 200, length: int = 512, shape: str = "m") -> list[str]:
    """Run ``n``'s reported model names: ``names`` distinct names of ``length`` characters, none shared with
    another run (``shape`` "sk": API-key-shaped, which redaction rewrites: issue 34 items 1, 3 and 4)."""
    if shape == "sk":
        return [f"sk-{hashlib.sha256(f'{n}-{k}'.encode()).hexdigest()}"[:length] for k in range(names)]
    return [f"{shape}{n:05d}-{k:03d}-".ljust(length, "x") for k in range(names)]


def model_flood(
    export: ExportDir, runs: int = 130, *, names: int = 200, length: int = 512, agent: str = "flood", shape: str = "m"
) -> ExportDir:
    """A harness that reports ``names`` distinct long model names on each of ``runs`` runs of one agent on one
    mission (issue 34 item 1: 130 runs of 200 names of 512 characters, a 14 MB export, made a 68 MB
    summary.json), beside a plain agent "plain" with 6 runs on the same mission (so the two are a pair)."""
    for n in range(runs):
        x = (n % 10) / 10
        rid = run_id(f"flood-{agent}-{n}")
        export.run(graded(rid, det=x, judge=x, models_reported=flood_names(n, names, length, shape)), agent=agent)
    for n in range(6):
        export.run(
            graded(run_id(f"plain-{n}"), det=0.5 + n / 20, judge=0.5, models_reported=["gpt-5.5"]), agent="plain"
        )
    return export.sidecars()
