"""Memory is bounded by bytes, not only by count (issue 29, item 12).

On 8a7d1ab a 63 MiB result.json of tiny values peaked at 1.7 GB (times --jobs across the read-ahead
workers) and a 255 MB previous summary.json took `podium diff` to 7 GB: parsed JSON takes up to 25 times
its bytes as Python objects. Now:

- a document over 64 KiB is parsed only when its values can take at most MEMORY_RATIO (6) times its bytes,
  counted before parsing (load/jsonfile.py ``parse_memory``, an upper bound), else it is a problem;
- result.json is capped at 4 MiB by default (the real ones are 1-12 KB) and adds at most 100 problems;
- a previous summary.json, changes.json or redirects.json at 64 MiB (exit 2 naming the file);
- the read-ahead workers have at most 64 MiB of result.json out at once (workers.in_order's budget).

The peak-memory tests run podium in a fresh interpreter and compare its peak RSS with a run on small
input: the difference must stay under 8 times the file's size, whatever the file holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from conftest import SAMPLES, SAMPLES_HTML, needs_samples
from cputime import least_cpu
from exportkit import ExportDir, graded, report_md, run_id

from podium import workers
from podium.load.export import Limits, ahead, load_export
from podium.load.fields import MAX_PROBLEMS
from podium.load.jsonfile import (
    DENSE_FLOOR,
    MAX_REPORTED,
    MEMORY_RATIO,
    _Parse,
    _string_by_string,
    _width,
    parse_json,
    parse_memory,
)

MiB = 1 << 20
GOLDEN_SUMMARY = Path(__file__).parents[1] / "golden" / "demo-site" / "api" / "results" / "summary.json"

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


def padded(key: str, item: str, size: int, rid: str) -> bytes:
    """A graded result.json of about ``size`` bytes: ``grade[key]`` is ``item`` repeated (JSON text)."""
    body = json.dumps(graded(rid), sort_keys=True)
    marker = '"__PAD__"'
    head, tail = json.dumps(graded(rid, **{key: "__PAD__"}), sort_keys=True).split(marker)
    assert body and head
    count = max(1, (size - len(head) - len(tail) - 2) // (len(item) + 1))
    return (head + "[" + ",".join([item] * count) + "]" + tail).encode()


def one_run_export(root: Path, result: bytes) -> Path:
    export = ExportDir(root)
    rid = run_id("big")
    export.run(result, rid=rid, report=report_md(rid=rid))
    export.sidecars()
    return export.root


def build_peak(tmp: Path, name: str, result: bytes, limit: int | None) -> tuple[int, str]:
    root = tmp / name
    export = one_run_export(root / "export", result)
    config = root / "podium.yaml"
    config.write_text(f"title: Board\nlimits: {{result_bytes: {limit}}}\n" if limit else "title: Board\n")
    return peak_rss("build", export, "--config", config, "--out", root / "site", "--no-cache", "--jobs", "1", "-q")


SHAPES = {  # (the key of grade it fills, one element): each a shape that costs much memory per byte
    "empty objects": ("transcript_items", "{}"),
    "small objects": ("transcript_items", '{"a":0}'),
    "numbers": ("transcript_items", "1000"),
    "short strings": ("transcript_items", '"abcdefgh"'),
    "criteria": ("judge_breakdown", '{"criterion_id":"c","text":"' + "x" * 60 + '","score":0.5,"status":"ok"}'),
    "bad criteria": ("judge_breakdown", '"' + "x" * 20 + '"'),  # each a problem
    "a long judge prompt": ("judge_prompt", '"' + "transcript " * 40 + '"'),
}


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> int:
    tmp = tmp_path_factory.mktemp("baseline")
    peak, said = build_peak(tmp, "small", json.dumps(graded(run_id("big"))).encode(), None)
    assert (tmp / "small" / "site" / "index.html").is_file(), said
    return peak


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_result_json_takes_under_8_times_its_bytes(tmp_path, baseline, shape):
    """A result.json at the default limit (4 MiB) of each costly shape: the build's peak grows by less than 8
    times the file (8a7d1ab: up to 25 times)."""
    key, item = SHAPES[shape]
    result = padded(key, item, 4 * MiB - 4096, run_id("big"))
    peak, said = build_peak(tmp_path, "big", result, None)
    assert "Error" not in said, said
    grown = peak - baseline
    assert grown < 8 * len(result), f"{shape}: {grown / MiB:.0f} MiB for {len(result) / MiB:.1f} MiB ({said})"


def test_a_dense_result_is_a_problem_naming_the_file(tmp_path):
    result = padded("transcript_items", "{}", 2 * MiB, run_id("big"))
    export = load_export(one_run_export(tmp_path / "export", result))
    problems = [p for p in export.problems if p.path.endswith("result.json")]
    assert problems and "too many small values" in problems[0].message, problems
    assert [r.shape for r in export.runs] == ["unreadable"]  # counted as unknown, from runs.json


def test_the_default_result_limit_refuses_what_no_real_result_is(tmp_path, baseline):
    """The default cap (4 MiB) refuses the review's 63 MiB result.json without reading it: the peak does not
    grow (8a7d1ab read it: 1.7 GB)."""
    assert Limits().result_bytes == 4 * MiB
    result = padded("transcript_items", "{}", 63 * MiB, run_id("big"))
    peak, said = build_peak(tmp_path, "big", result, None)
    assert peak - baseline < 16 * MiB, f"{(peak - baseline) / MiB:.0f} MiB"
    export = load_export(tmp_path / "big" / "export")
    assert any("over the 4194304-byte limit" in p.message for p in export.problems)


@needs_samples()
def test_real_results_are_far_under_the_limit():
    results = [*SAMPLES.glob("*/result.json"), *SAMPLES_HTML.glob("*/*/result.json")]
    assert len(results) >= 14 and max(p.stat().st_size for p in results) * 100 < Limits().result_bytes


def test_a_result_adds_at_most_a_hundred_problems(tmp_path):
    result = padded("judge_breakdown", '"' + "x" * 40 + '"', 200_000, run_id("big"))
    export = load_export(one_run_export(tmp_path / "export", result))
    mine = [p for p in export.problems if p.path.endswith("result.json")]
    assert len(mine) == MAX_PROBLEMS + 1 and any("the rest are not listed" in p.message for p in mine)
    assert any(p.field == "grade.judge_breakdown" and "the first 500 are read" in p.message for p in mine)
    assert [r.shape for r in export.runs] == ["graded"]  # still read: only the list is cut


# ------------------------------------------------------------------ previous summaries (podium diff, --previous)


def test_a_summary_over_the_cap_is_refused_naming_the_file(tmp_path):
    """A previous summary.json over 64 MiB: exit 2 naming it, before a byte is read (sparse here)."""
    big = tmp_path / "summary.json"
    with open(big, "wb") as handle:
        handle.truncate(64 * MiB + 1)
    peak, said = peak_rss("diff", big, GOLDEN_SUMMARY)
    assert f"{big}: is {64 * MiB + 1} bytes, over the {64 * MiB}-byte limit" in said, said


def _summary_with(problems: str, count: int) -> bytes:
    top = json.loads(GOLDEN_SUMMARY.read_text())
    top["problems"] = "__PAD__"
    head, tail = json.dumps(top, sort_keys=True).split('"__PAD__"')
    return (head + "[" + ",".join([problems] * count) + "]" + tail).encode()


@pytest.mark.parametrize("problem", ["{}", '{"field":"x","message":"m","path":"p"}'])
def test_a_dense_summary_is_refused_in_bounded_memory(tmp_path, problem):
    """A 12 MiB summary.json of tiny problems: `podium diff` exits 2 naming it, its peak grows by less than
    8 times the file (8a7d1ab parsed it: 25 times; 255 MB took 7 GB in the review)."""
    small, _ = peak_rss("diff", GOLDEN_SUMMARY, GOLDEN_SUMMARY)
    big = tmp_path / "summary.json"
    big.write_bytes(_summary_with(problem, 12 * MiB // (len(problem) + 1)))
    peak, said = peak_rss("diff", big, GOLDEN_SUMMARY)
    assert f"{big}: " in said and "too many small values" in said, said
    assert peak - small < 8 * big.stat().st_size, f"{(peak - small) / MiB:.0f} MiB"


def test_a_big_real_shaped_summary_is_read_in_bounded_memory(tmp_path):
    """A 12 MiB summary.json shaped as podium writes it (many problems, each with its text): read, compared,
    and the peak grows by less than 8 times the file."""
    problem = json.dumps(
        {"field": "grade.overall", "message": "expected a number in [0, 1], got 1.5", "path": "0b5e8d2f/result.json"},
        sort_keys=True,
    )
    big = tmp_path / "summary.json"
    big.write_bytes(_summary_with(problem, 12 * MiB // (len(problem) + 1)))
    small, _ = peak_rss("diff", GOLDEN_SUMMARY, GOLDEN_SUMMARY)
    peak, said = peak_rss("diff", big, GOLDEN_SUMMARY)
    assert "not a podium summary" not in said and "Error" not in said, said
    assert peak - small < 8 * big.stat().st_size, f"{(peak - small) / MiB:.0f} MiB"


# ------------------------------------------------------------------ the count itself


def _real(text: str) -> int:
    """What json.loads takes to parse ``text`` as parse_json has it parse, measured (the text included)."""
    parse = _Parse()
    tracemalloc.start()
    try:
        value = json.loads(
            text,
            object_pairs_hook=parse.pairs,
            parse_constant=parse.constant,
            parse_float=parse.float_,
            parse_int=parse.int_,
        )
        used = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del value
    return used + sys.getsizeof(text)


COSTLY = {
    "objects": "[" + ",".join(['{"k":"' + "x" * 30 + '"}'] * 40_000) + "]",
    "one big object": "{" + ",".join(f'"k{i}":"' + "x" * 30 + '"' for i in range(40_000)) + "}",
    "numbers": "[" + ",".join(["1000"] * 100_000) + "]",
    "floats": "[" + ",".join(["0.123456789012"] * 50_000) + "]",
    "strings": "[" + ",".join(['"abcdefgh"'] * 100_000) + "]",
    "nested": "[" + ",".join(["[[[1]]]"] * 40_000) + "]",
    "text": json.dumps(["words, and: more {words} [x]" * 10] * 4_000),
    "wide text": json.dumps(["\U0001f600" + "x" * 1000] * 400, ensure_ascii=False),
}


@pytest.mark.parametrize("shape", list(COSTLY))
def test_the_count_is_an_upper_bound(shape):
    text = COSTLY[shape]
    data = text.encode()
    for budget in (10**12, 0):  # the first count (no budget), then the second one whole
        counted = parse_memory(data, text, budget) if budget else _string_by_string(data, _width(text), 10**12)
        assert counted + sys.getsizeof(text) >= _real(text), (shape, budget)


def test_podiums_own_summary_is_well_under_the_ratio():
    """The golden summary, and one of 2,000 problems as podium writes them, indented and minified (jq -c):
    counted well under MEMORY_RATIO, read (the values of such files take 2-4 times their bytes in fact)."""
    data = GOLDEN_SUMMARY.read_bytes()
    top = json.loads(data)
    top["problems"] = [
        {"field": "", "message": "missing: the run cannot be classified", "path": f"{n:08x}/result.json"}
        for n in range(2000)
    ]
    indented = json.dumps(top, indent=2, sort_keys=True).encode()
    minified = json.dumps(top, separators=(",", ":")).encode()
    for doc, most in ((data, 0.65), (indented, 0.7), (minified, 0.9)):
        assert _string_by_string(doc, 1, 10**12) < most * MEMORY_RATIO * len(doc)
    for doc in (indented, minified):
        assert len(doc) > DENSE_FLOOR and parse_json(doc, "summary.json")[1] == []


def test_deep_nesting_is_still_said_as_such():
    data = b"[" * 100_000
    assert parse_json(data, "x.json")[1][0].message == "JSON is nested too deeply to read"


def test_unusable_values_are_reported_a_hundred_at_most(tmp_path):
    data = ("[" + ",".join(['"' + "x" * 40 + '", 1e999'] * 10_000) + "]").encode()
    value, problems = parse_json(data, "x.json")
    assert len(problems) == MAX_REPORTED + 1 and problems[-1].message.startswith("9,900 more unusable values")
    assert len({id(v) for v in value[1::2]}) == MAX_REPORTED + 1  # past the hundredth, one shared value


def test_a_string_left_open_is_counted_in_linear_time():
    """An unclosed string full of escaped quotes: each quote would start a string again for a pattern that
    backtracks (quadratic); the count's pattern runs to the end once."""

    times = []
    for n in (200_000, 400_000):
        data = b'["' + b'\\"' * n
        times.append(least_cpu(parse_memory, data, data.decode(), 0, tries=1))
    assert times[1] < 3 * max(times[0], 0.01)


# ------------------------------------------------------------------ the read-ahead workers


class _Pool:
    """An executor that runs nothing until asked for a result, and notes what is out at once."""

    def __init__(self):
        self.out: list[int] = []
        self.most = 0

    def submit(self, function, *args):
        pool = self

        class Future:
            def result(self):
                pool.out.remove(args[0])
                return function(*args)

        self.out.append(args[0])
        self.most = max(self.most, sum(self.out))
        return Future()

    def shutdown(self, wait=True, cancel_futures=False):
        pass


def test_the_tasks_out_at_once_weigh_at_most_the_budget():
    weights = [3, 5, 1, 9, 2, 2, 12, 1]  # 12: over the budget alone, sent when nothing else is out
    pool = _Pool()
    tasks = (workers.Weighed((w,), w) for w in weights)
    done = list(workers.in_order(pool, lambda w: w * 10, tasks, ahead=100, budget=10))
    assert done == [w * 10 for w in weights]  # in order, every one
    assert pool.most == 12  # never more than 10 out, but the one heavier alone
    unbounded = _Pool()
    list(workers.in_order(unbounded, lambda w: w, ((w,) for w in weights), ahead=100))
    assert unbounded.most == sum(weights)


def test_read_ahead_tasks_are_cut_by_the_bytes_they_read(tmp_path, monkeypatch):
    monkeypatch.setattr(ahead, "AHEAD_TASK_BYTES", 10_000)
    export = ExportDir(tmp_path / "export")
    names = []
    for n in range(12):
        rid = run_id(f"ahead{n}")
        body = padded("judge_prompt", '"' + "x" * 100 + '"', 4_000 if n % 3 else 200, rid)
        export.run(body, rid=rid)
        names.append(rid[:8])
    names.sort()
    tasks = list(ahead._ahead_tasks(export.root, Limits(), names))
    assert [name for task in tasks for name in task.args[2]] == names
    assert all(task.weight <= 10_000 or len(task.args[2]) == 1 for task in tasks) and len(tasks) > 1
    assert all(
        task.weight == sum((export.root / n / "result.json").stat().st_size for n in task.args[2]) for task in tasks
    )
    over = list(ahead._ahead_tasks(export.root, Limits(result_bytes=1000), names))
    assert sum(task.weight for task in over) < 12 * 1000  # a file over the limit is never read: it weighs nothing
    assert ahead.AHEAD_BYTES == 64 * MiB
