"""Per-report cost of the report renderer: parse, redact, render (issue 16, target 4: <= 0.4 ms).

    PYTHONPATH=generator python benchmarks/reports.py [--export DIR ...] [--reps 40]

Reports: the real XORCISE 0.2.0 sample reports in ../shared/xorcise-samples*/ (12 of them),
redacted as a run with known answers, own values and a configured literal is; and every
report of each --export directory (e.g. one written by ``python scripts/make_export.py OUT
--runs 300``), each with its run's redactor as a build of that export makes it. Each design renders every
report of a set
once per repetition (the designs interleaved); the table gives the per-report CPU time
(``time.process_time``) of the fastest repetition (the one least disturbed by other processes
on a shared machine) and of the median one.

Designs:

- ``markdown-it-py (before)``: render_report as podium had it (tests/mdit_reference.py): the
  withholding cut (safety/withhold.py) and bounds, parse, redact, render.
- ``pyromark events + ours (now)``: render/markdown.render_report: the same cut and bounds,
  then render/reportmd.py.
- parts and floors, for reading the above: the cut and bounds alone; each renderer alone on
  the cut text (parse, redact, render: issue 16's target 4); markdown-it-py's parse alone;
  pulldown-cmark's events as Python objects alone; pulldown-cmark's own HTML writer
  (``pyromark.html``: not usable, it passes raw HTML through); the redactor on a whole
  report.md, with and without its gates (tests/safety/test_redact.py's reference).

Not a test: timings on a shared machine vary; read the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "generator"), str(REPO / "tests"), str(REPO / "tests" / "render")]

import pyromark  # noqa: E402
from mdit_reference import render_cut  # noqa: E402
from mdit_reference import render_report as reference_report  # noqa: E402
from test_redact import ungated  # noqa: E402

from podium.load.export import load_export  # noqa: E402
from podium.render import reportmd  # noqa: E402
from podium.render.markdown import _MD, _bounded, render_report  # noqa: E402
from podium.safety.redact import Redaction  # noqa: E402
from podium.safety.withhold import withhold  # noqa: E402

SHARED = REPO.parent / "shared"
TARGET_MS = 0.4


class _Run:
    mission = "jwt-none-bypass"
    answers = ("FLAG{n0n3_alg_1s_n0t_a_s1gnatur3}", "Token verification accepts alg=none; pin the algorithm")
    secrets = ("FLAG{n0n3_alg_1s_n0t_a_s1gnatur3}", "an-own-submitted-value")


def redactor():
    """What a report of a run with known answers and own values is redacted with."""
    run = _Run()
    return Redaction(["a-configured-literal"], [run]).for_run(run)


def measure(fns: list, texts: list[str], reps: int) -> list[tuple[float, float]]:
    """(fastest, median) CPU seconds per text for each of ``fns``, over ``reps`` passes over all
    of ``texts``, the designs interleaved (each pass runs every design once, so a busy spell of
    the machine slows them alike)."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(reps):
        for number, fn in enumerate(fns):
            start = time.process_time()
            for text in texts:
                fn(text)
            times[number].append((time.process_time() - start) / len(texts))
    return [(min(t), statistics.median(t)) for t in times]


def cut(text: str) -> str:
    return "".join(_bounded(withhold(text)))


def designs() -> list[tuple[str, object, bool]]:
    """(label, fn(text, redact), whether it is given the cut text)."""
    parser = reportmd._PARSER
    return [
        ("markdown-it-py (before)", reference_report, False),
        ("pyromark events + ours (now)", render_report, False),
        ("  the cut and bounds alone", lambda t, r: cut(t), False),
        ("  before, renderer alone: parse, redact, render", render_cut, True),
        ("  now, renderer alone: parse, redact, render", reportmd.render, True),
        ("  markdown-it-py parse alone", lambda t, r: _MD.parse(t), True),
        ("  pulldown-cmark events alone", lambda t, r: list(parser.events(t)), True),
        ("  pyromark.html (unsafe floor)", lambda t, r: pyromark.html(t), True),
        ("  redactor, whole report, gated", lambda t, r: r(t), False),
        ("  redactor, whole report, ungated", lambda t, r: ungated(r._mission, r._own.sub(t)), False),
    ]


def export_reports(root: Path) -> list[tuple[str, object]]:
    """Every report of an export with its run's redactor, as a build makes it (every mission's
    answers, the run's own values)."""
    export = load_export(root)
    redaction = Redaction((), export.runs)
    return [
        ((root / run.report_file).read_text(encoding="utf-8", errors="replace"), redaction.for_run(run))
        for run in export.runs
        if run.report_file
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--export", action="append", default=[], type=Path, help="more reports: an export directory")
    parser.add_argument("--reps", type=int, default=40)
    args = parser.parse_args(argv)
    redact = redactor()
    samples = sorted(p for d in SHARED.glob("xorcise-samples*") for p in d.rglob("report.md"))
    sets = {"real samples": [(p.read_text(encoding="utf-8", errors="replace"), redact) for p in samples]}
    for export in args.export:
        sets[export.name] = export_reports(export)
    print(f"pyromark {pyromark.__version__}; {reportmd.ENGINE}; Python {sys.version.split()[0]}")
    ok = True
    for name, pairs in sets.items():
        if not pairs:
            print(f"\n{name}: no report.md found")
            continue
        texts = [text for text, _ in pairs]
        redactors = [r for _, r in pairs]
        reps = max(3, args.reps * 12 // len(texts)) if len(texts) > 12 else args.reps
        size = sum(map(len, texts)) / len(texts) / 1024
        print(f"\n{name}: {len(texts)} reports, {size:.1f} KB each on average, {reps} repetitions")
        print("| design | fastest ms/report | median ms/report |\n|---|---|---|")
        results = {}
        chosen = designs()
        cut_texts = [cut(t) for t in texts]
        fns = [
            (lambda i, fn=fn, src=cut_texts if on_cut else texts, red=redactors: fn(src[i], red[i]))
            for _, fn, on_cut in chosen
        ]
        for (label, _, _), (fastest, median) in zip(chosen, measure(fns, list(range(len(texts))), reps)):
            results[label] = fastest
            print(f"| {label} | {fastest * 1000:.3f} | {median * 1000:.3f} |")
        before, now = results["markdown-it-py (before)"], results["pyromark events + ours (now)"]
        alone = results["  now, renderer alone: parse, redact, render"]
        print(
            f"\nnow / before: {now / before:.3f} ({before / now:.1f}x faster). Target 4 (parse, redact, "
            f"render <= {TARGET_MS} ms): {'met' if alone * 1000 <= TARGET_MS else 'missed'} "
            f"({alone * 1000:.3f} ms; with the cut and bounds {now * 1000:.3f} ms)"
        )
        ok = ok and (name != "real samples" or alone * 1000 <= TARGET_MS)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
