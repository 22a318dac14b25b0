"""The tree as tools read it (issue 19.7): ruff finds nothing, and the type checker finds nothing new.

mypy (configured in pyproject.toml) checks generator/podium. The findings it had when it was
added are listed in tests/mypy-baseline.txt (file, message and code, without line numbers, so
an edit elsewhere in a file does not move them); this test fails on any finding not listed
there, and on a listed one that is gone, so the list only shrinks. After fixing findings, run
``PODIUM_UPDATE_MYPY_BASELINE=1 python -m pytest tests/test_lint.py`` and commit the list.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "tests" / "mypy-baseline.txt"
FINDING = re.compile(r"^(?P<file>[^:]+):\d+: error: (?P<rest>.*)$")


def test_ruff_finds_nothing():
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "generator", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_changes_nothing():
    """The tree is as ``ruff format`` writes it (pyproject.toml [tool.ruff.format] names the files left out)."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "generator", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def findings(output: str) -> Counter:
    return Counter(f"{m['file']}: {m['rest']}" for line in output.splitlines() if (m := FINDING.match(line)))


def test_findings_are_read_without_line_numbers():
    out = "generator/podium/a.py:12: error: Bad thing  [arg-type]\ngenerator/podium/a.py:40: note: see\n"
    assert findings(out) == Counter({"generator/podium/a.py: Bad thing  [arg-type]": 1})


def test_mypy_finds_nothing_new():
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--no-error-summary"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 2: mypy itself failed
    found = findings(done.stdout)
    if os.environ.get("PODIUM_UPDATE_MYPY_BASELINE"):
        BASELINE.write_text("".join(f"{line}\n" for line in sorted(found.elements())), encoding="utf-8")
    known = Counter(line for line in BASELINE.read_text(encoding="utf-8").splitlines() if line)
    new, gone = found - known, known - found
    assert not new, "mypy: new findings (fix them):\n" + "\n".join(sorted(new.elements()))
    assert not gone, "mypy: fixed findings still listed (remove them from tests/mypy-baseline.txt):\n" + "\n".join(
        sorted(gone.elements())
    )
