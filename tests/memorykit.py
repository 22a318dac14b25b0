"""A podium command's peak memory, measured in a process of its own (tests/site/test_memory_bounds.py,
test_compare_parts.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# podium's command in a fresh interpreter, then its own peak RSS (bytes) on the last line of stderr: VmHWM,
# the high-water mark of this process's memory alone (ru_maxrss keeps the parent's across exec)
_MEASURED = """
import sys
from podium.commands.cli import main
try:
    main(sys.argv[1:], prog_name="podium")
except SystemExit:
    pass
except Exception as err:
    print(f"{type(err).__name__}: {err}", file=sys.stderr)
with open("/proc/self/status") as status:
    peak = next(line for line in status if line.startswith("VmHWM:"))
print(int(peak.split()[1]) * 1024, file=sys.stderr)
"""


def peak_rss(*args: str | Path) -> tuple[int, str]:
    """``podium ARGS`` in a new process: its peak RSS in bytes, and what it printed."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    *said, peak = done.stderr.strip().splitlines()
    return int(peak), done.stdout + "\n".join(said)
