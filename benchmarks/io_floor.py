"""The I/O floor: the least any generator must do. Reads and JSON-parses every run's
result.json and writes one small HTML page per run; nothing else.

    python benchmarks/io_floor.py EXPORT OUT
"""

import html
import json
import os
import sys


def page(run_dir: str, result: object) -> str:
    grade = result.get("grade") if isinstance(result, dict) else None
    overall = grade.get("overall") if isinstance(grade, dict) else None
    name = html.escape(run_dir)
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{name}</title></head>"
        f"<body><h1>Run {name}</h1><p>overall: {html.escape(str(overall))}</p></body></html>\n"
    )


def main(export: str, out: str) -> int:
    runs = os.path.join(out, "runs")
    os.makedirs(runs)
    for entry in sorted(os.scandir(export), key=lambda e: e.name):
        if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
            continue
        try:
            with open(os.path.join(entry.path, "result.json"), "rb") as fh:
                result = json.loads(fh.read())
        except (OSError, ValueError):
            result = None
        os.mkdir(os.path.join(runs, entry.name))
        with open(os.path.join(runs, entry.name, "index.html"), "w", encoding="utf-8") as fh:
            fh.write(page(entry.name, result))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
