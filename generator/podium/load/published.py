"""What podium publishes as data, by name, and the one way it reads a published file back.

The schema names below are written into the files (render/data.py, render/compare_data.py,
count/diff.py, plan/changes.py) and checked when one is read back (count/bundle.py, count/changes.py); the shipped
JSON Schemas (``*.schema.json``) say the same names, which tests/site/test_data_files.py checks.

:func:`read` reads a previous publish's summary.json, changes.json or redirects.json: a
regular file only (never through a symlink at the file itself, never a FIFO or a device: no
read can hang or go on without end), at most MAX_BYTES, strict JSON (load/jsonfile.py: no
NaN or Infinity, no duplicate keys, no number that overflows, no values that would take more than
6 times its bytes in memory). What it holds is then checked against its shape (load/shape.py).
"""

from __future__ import annotations

from pathlib import Path

from podium.load.files import NotReadable, read_regular
from podium.load.jsonfile import parse_json

SUMMARY_SCHEMA = "podium.summary/2"  # api/results/summary.json, the index (summary.schema.json)
SUMMARY_AGENT_SCHEMA = "podium.summary-agent/1"  # api/results/summary/agents/<agent>.json: one agent's detail
SUMMARY_MISSION_SCHEMA = "podium.summary-mission/1"  # api/results/summary/missions/<mission>/<version>.json
SUMMARY_WHOLE_SCHEMA = "podium.summary/1"  # the summary in one file, as sites before issue 33 published it
COMPARE_SCHEMA = "podium.compare/2"  # api/results/compare.json, the index of the comparisons (compare.schema.json)
COMPARE_AGENT_SCHEMA = "podium.compare-agent/2"  # api/results/compare/<agent>.json: one agent's nearest pairs
COMPARE_PAIR_SCHEMA = "podium.compare-pair/1"  # api/results/compare/<agent>/<agent>.json: a pair in full
RUNS_SCHEMA = "podium.runs/5"  # api/results/runs.json, the ledger's index, and its parts' rows (runs.schema.json)
REPORT_SCHEMA = "podium.diff/1"  # a change report (podium diff --json, changes.json's reports)
CHANGES_SCHEMA = "podium.changes/1"  # api/results/changes.json
REDIRECTS_SCHEMA = "podium.redirects/1"  # api/results/redirects.json

# The largest published file podium reads back: its own summary.json was 1.7 MB at a million runs and
# 18 MB at 500 agents on 40 missions in one file (podium.summary/1, still read back); in parts (/2) the index is
# about 1.5 kB an agent and each agent's part a few kB a mission version. Parsed, a file may take at most 6 times
# its size (load/jsonfile.py).
MAX_BYTES = 64 * 1024 * 1024


def read(path: Path, limit: int = MAX_BYTES) -> object:
    """The JSON value in the published file ``path``. FileNotFoundError when there is none; NotReadable
    (the reason, without the path) when it is not a regular file, is over ``limit`` bytes, is not
    UTF-8 (a BOM is allowed) or not strict JSON."""
    data = read_regular(path, limit)
    value, problems = parse_json(data, path.name)
    if problems:
        first = problems[0]
        if first.message.startswith("not UTF-8"):
            raise NotReadable(first.message)
        where = f"{first.field}: " if first.field else ""
        raise NotReadable(f"not JSON: {where}{first.message.removeprefix('invalid JSON ')}")
    return value
