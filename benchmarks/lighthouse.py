"""Lighthouse performance of built pages, served locally (issue 18: >= 95 on home, agent and mission pages).

Not a test: a measuring script. It serves SITE with ``python -m http.server`` on a free
port, runs Lighthouse (mobile emulation, its default form factor; performance only) on each
PAGE in turn and prints one line per page: the score, LCP, TBT, CLS, the DOM size Lighthouse
counted and the bytes the page fetched.

    npm install --prefix /tmp/lh lighthouse        # once
    CHROME_PATH=/usr/bin/chromium python benchmarks/lighthouse.py SITE index.html \\
        agents/osprey/index.html missions/blind-sqli-portal/2.0.1/index.html

``--lighthouse`` names the CLI (default: ``lighthouse`` on PATH, else
``/tmp/lh/node_modules/.bin/lighthouse``); ``--runs N`` repeats each page and prints the
median score; ``--json DIR`` keeps each report. Chromium runs headless without a sandbox
(``--chrome-flags``), as in a container.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHROME_FLAGS = "--headless --no-sandbox --disable-gpu"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def lighthouse_cli(given: str | None) -> str:
    for candidate in (given, shutil.which("lighthouse"), "/tmp/lh/node_modules/.bin/lighthouse"):
        if candidate and (shutil.which(candidate) or Path(candidate).is_file()):
            return candidate
    sys.exit("lighthouse: not found (npm install --prefix /tmp/lh lighthouse, or --lighthouse PATH)")


def audit(cli: str, url: str, out: Path) -> dict:
    subprocess.run(
        [
            cli,
            url,
            "--only-categories=performance",
            "--output=json",
            f"--output-path={out}",
            f"--chrome-flags={CHROME_FLAGS}",
            "--quiet",
        ],
        check=True,
    )
    report = json.loads(out.read_text(encoding="utf-8"))
    audits = report["audits"]
    return {
        "score": round(100 * report["categories"]["performance"]["score"]),
        "lcp_ms": audits["largest-contentful-paint"]["numericValue"],
        "tbt_ms": audits["total-blocking-time"]["numericValue"],
        "cls": audits["cumulative-layout-shift"]["numericValue"],
        "dom": audits["dom-size"].get("numericValue"),
        "bytes": audits["total-byte-weight"]["numericValue"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("pages", nargs="+", help="site paths, e.g. index.html agents/osprey/index.html")
    parser.add_argument("--lighthouse")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--json", type=Path, help="keep each Lighthouse report in this directory")
    args = parser.parse_args()
    os.environ.setdefault("CHROME_PATH", shutil.which("chromium") or "/usr/bin/chromium")
    cli = lighthouse_cli(args.lighthouse)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(args.site)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(1.0)
        keep = args.json or Path(tempfile.mkdtemp(prefix="lighthouse-"))
        keep.mkdir(parents=True, exist_ok=True)
        print(f"{'page':60} score  LCP ms  TBT ms   CLS   DOM  bytes")
        for page in args.pages:
            results = []
            for n in range(args.runs):
                name = page.replace("/", "_").removesuffix(".html") + f".{n}.json"
                results.append(audit(cli, f"http://127.0.0.1:{port}/{page}", keep / name))
            best = sorted(results, key=lambda r: r["score"])[len(results) // 2]
            score = statistics.median(r["score"] for r in results)
            print(
                f"{page:60} {score:5.0f} {best['lcp_ms']:7.0f} {best['tbt_ms']:7.0f} {best['cls']:5.3f} "
                f"{best['dom'] or 0:5.0f} {best['bytes']:6.0f}"
            )
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
