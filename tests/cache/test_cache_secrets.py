"""The build cache holds no secret (issue 29, item 6).

``.podium-cache/`` is saved by CI and may be restored by workflows other than the one that wrote
it (docs/publishing.md): it must hold no submitted value, no mission answer, no configured literal
and no secret shape, in any of its files' bytes (SQLite pages, free pages included) or in the
zlib copies it keeps. A rebuild still redacts every answer: it reads each answer's witness
run again (one result.json per distinct answer), and is byte-identical to a clean build.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from exportkit import ExportDir, graded, report_md

import podium.load.export.reader
import podium.load.export.runs
import podium.render.site
from podium.build import build_site
from podium.config import Config
from podium.errors import BuildError
from podium.safety.redact import literal_forms

ANSWER = "FLAG{cache_answer_71}"  # the solver's passed value: the mission's answer
FILE_ANSWER = "svc-p\u00e4ss-2026!\n"  # another, read from a file (and not ASCII: JSON rows escape it)
FAILED = "own-failed-guess-x9"  # the solver's own submitted value that did not pass
OWN = "quoter-own-value-77"  # the quoter's own value, in its own model name
OWN_ALONE = "lone-own-value-55"  # another run's own value, the only secret in its names
LITERAL = "conf1gured-cache-literal"
SHAPE = "AKIAABCDEFGHIJKLMNOP"
SECRETS = (ANSWER, FILE_ANSWER.strip(), FAILED, OWN, OWN_ALONE, LITERAL, SHAPE)

# Directory names decide the order runs are read in: the quoters come before the solver, so in a cold
# build their rows are written before the answers are known (and must be swept when they are).
QUOTER, QUOTER_TWO, SOLVER, PLAIN = ("0" * 8 + "a" * 24, "1" * 8 + "a" * 24, "8" * 8 + "b" * 24, "9" * 8 + "c" * 24)


def spellings(value: str) -> list[bytes]:
    """How a value may sit in the cache's bytes: as UTF-8 text, and JSON-escaped as the rows are written."""
    return [value.encode(), json.dumps(value)[1:-1].encode(), json.dumps(value, ensure_ascii=False)[1:-1].encode()]


def checks(*values: tuple[str, bool]) -> list[dict]:
    return [
        {
            "id": f"c{i}",
            "source": "artifacts",
            "ref": "flag",
            "op": "equals",
            "value": value,
            "passed": passed,
            "weight": 1.0,
            "error": None,
            "blocked_by": [],
        }
        for i, (value, passed) in enumerate(values)
    ]


def quoting_run(
    export: ExportDir, rid: str, quoted: str, own: str = "not-it-at-all", own_named: bool = True, **extra
) -> None:
    """A run of the same mission whose agent-written names, judge texts and report quote ``quoted`` (and its
    own submitted value ``own``, in a model name, when ``own_named``)."""
    names = [f"gpt-{quoted}", f"x {own} y"] if own_named else [f"gpt-{quoted}"]
    body = graded(
        rid,
        check_breakdown=checks((own, False)),
        models_reported=names,
        model=f"declared {quoted}",
        judge_model=f"judge {quoted}",
        judge_detail=f"saw {quoted}",
        **extra,
    )
    body["conditions"]["platform"] = f"linux {quoted}"
    body["grade"]["judge_status"] = f"odd status {quoted}"  # not a status podium knows: a problem quoting it
    export.run(
        body,
        rid=rid,
        report=report_md(
            rid=rid, extra=f"| Agent model | {quoted} (reported by the harness) |\n\n## Notes\n\nIt printed {quoted}.\n"
        ),
    )


def make_export(root: Path) -> ExportDir:
    export = ExportDir(root)
    quoting_run(export, QUOTER, f"{ANSWER} {FILE_ANSWER.strip()} {LITERAL} {SHAPE}", own=OWN)
    export.run(
        graded(SOLVER, check_breakdown=checks((ANSWER, True), (FILE_ANSWER, True), (FAILED, False))),
        rid=SOLVER,
        report=report_md(rid=SOLVER),
    )
    export.run(graded(PLAIN), rid=PLAIN, report=report_md(rid=PLAIN))
    for rid, name, own in (
        ("5" * 8 + "c" * 24, f"x {OWN_ALONE} y", OWN_ALONE),
        ("6" * 8 + "c" * 24, f"m {SHAPE}", "z" * 9),
    ):
        export.run(
            graded(rid, check_breakdown=checks((own, False)), models_reported=[name]),
            rid=rid,
            report=report_md(rid=rid),
        )  # (no answer in them: only the screen keeps these rows out)
    export.sidecars()
    return export


class Project:
    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.export = make_export(tmp / "export")
        self.cache = tmp / "cache"

    def config(self, out: str) -> Config:
        return Config(source="", root=self.tmp, out=self.tmp / out, redact=[LITERAL])

    def build(self):
        return build_site(self.config("site"), self.export.root, cache_dir=self.cache)

    def assert_same_as_clean(self) -> None:
        clean = self.tmp / f"clean-{len(list(self.tmp.glob('clean-*')))}"
        build_site(self.config(clean.name), self.export.root)
        assert tree(self.tmp / "site") == tree(clean)


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def cache_bytes(cache: Path) -> list[tuple[str, bytes]]:
    """Every byte of every file in the cache directory, and every value of every row read back through
    SQLite, each zlib blob decompressed."""
    out = [(p.name, p.read_bytes()) for p in sorted(cache.rglob("*")) if p.is_file()]
    with sqlite3.connect(cache / "cache.sqlite") as db:
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            for row in db.execute(f"SELECT * FROM {table}"):
                for value in row:
                    if isinstance(value, bytes):
                        try:
                            value = zlib.decompress(value)
                        except zlib.error:
                            pass
                        out.append((table, value))
                    elif isinstance(value, str):
                        out.append((table, value.encode("utf-8", "surrogatepass")))
    return out


def secrets_in_cache(cache: Path, secrets=SECRETS) -> list[tuple[str, str]]:
    return sorted(
        {
            (where, secret)
            for where, data in cache_bytes(cache)
            for secret in secrets
            for form in spellings(secret)
            if form in data
        }
    )


def secrets_in_site(site: Path) -> list[tuple[str, str]]:
    return sorted(
        {
            (path, secret)
            for path, data in tree(site).items()
            for secret in SECRETS
            for form in spellings(secret)
            if form in data
        }
    )


@pytest.fixture
def project(tmp_path) -> Project:
    project = Project(tmp_path)
    project.build()
    return project


def test_the_export_plants_every_secret_and_the_site_holds_none(project):
    planted = b"".join(p.read_bytes() for p in project.export.root.rglob("*.json"))
    assert all(secret.encode() in planted for secret in (ANSWER, FAILED, OWN, OWN_ALONE, LITERAL, SHAPE))
    assert secrets_in_site(project.tmp / "site") == []


def test_no_secret_is_in_any_byte_of_the_cache_after_a_cold_build(project):
    assert (project.cache / "cache.sqlite").stat().st_size > 0
    assert secrets_in_cache(project.cache) == []


def test_no_secret_is_in_the_cache_after_rebuilds(project):
    """A rebuild that adds a run quoting the answers (known only through their witness now), one whose
    solver brings a new answer that yesterday's rows quote, and one with nothing changed."""
    quoting_run(project.export, QUOTER_TWO, f"{ANSWER} and {FILE_ANSWER.strip()}")
    project.export.sidecars()
    project.build()
    assert secrets_in_cache(project.cache) == []
    project.assert_same_as_clean()
    late = "FLAG{late_answer_3}"
    quoting_run(project.export, "2" * 8 + "d" * 24, late)  # read before the run that makes it an answer
    project.export.run(
        graded("a" * 32, check_breakdown=checks((late, True))), rid="a" * 32, report=report_md(rid="a" * 32)
    )
    project.export.sidecars()
    project.build()
    project.build()
    assert secrets_in_cache(project.cache, SECRETS + (late,)) == []
    project.assert_same_as_clean()


def test_a_row_of_yesterday_is_swept_when_what_it_quotes_becomes_an_answer(project):
    """The plain run's model name quotes a value no run has passed with yet: it is kept. When a new
    run passes with it, it is an answer: the old rows go (and their bytes with them)."""
    value = "quoted-before-solved-42"
    body = json.loads((project.export.root / PLAIN[:8] / "result.json").read_text())
    body["models_reported"] = [f"m-{value}"]
    (project.export.root / PLAIN[:8] / "result.json").write_text(json.dumps(body))
    project.build()
    assert value.encode() in b"".join(data for _, data in cache_bytes(project.cache))  # not a secret yet
    project.export.run(
        graded("b" * 32, check_breakdown=checks((value, True))), rid="b" * 32, report=report_md(rid="b" * 32)
    )
    project.export.sidecars()
    project.build()
    assert secrets_in_cache(project.cache, (value,)) == []
    project.assert_same_as_clean()


def test_a_cache_of_an_older_podium_is_emptied_to_its_last_byte(project):
    """An older format kept submitted values in plain text: its file is vacuumed, not only its tables dropped."""
    with sqlite3.connect(project.cache / "cache.sqlite") as db:
        db.execute("UPDATE meta SET format = format - 1")
        db.executemany(
            "INSERT INTO runs VALUES (?, '{}', '{}', ?)",
            [(f"k{n}", f"value FLAG{{older_podium_plain_{n}}}" * 40) for n in range(50)],
        )
    project.build()
    assert b"older_podium_plain" not in (project.cache / "cache.sqlite").read_bytes()
    assert secrets_in_cache(project.cache) == []


def test_a_rebuild_reads_again_one_result_json_per_answer_not_per_run(project, monkeypatch):
    for n in range(12):  # twelve more solvers of the same answers
        rid = f"{n + 0xC0:08x}" + "e" * 24
        project.export.run(
            graded(rid, check_breakdown=checks((ANSWER, True), (FILE_ANSWER, True))), rid=rid, report=report_md(rid=rid)
        )
    project.export.sidecars()
    project.build()
    reads: list[str] = []  # result.json files read to count the runs (a run page rendered reads its own too)
    original, page_read = podium.load.export.reader.read_file, podium.load.export.runs.whole_run
    rendering = []

    def counting(path, rel, limit):
        if rel.endswith("result.json") and not rendering:
            reads.append(rel)
        return original(path, rel, limit)

    def for_a_page(*args, **kwargs):
        rendering.append(1)
        try:
            return page_read(*args, **kwargs)
        finally:
            rendering.pop()

    monkeypatch.setattr(podium.load.export.reader, "read_file", counting)
    monkeypatch.setattr(podium.load.export.runs, "read_file", counting)
    monkeypatch.setattr(podium.load.export.runs, "whole_run", for_a_page)
    quoting_run(project.export, QUOTER_TWO, ANSWER)
    project.export.sidecars()
    project.build()
    # the new run, and the runs whose names quote a secret (their rows are not kept: they are read every time);
    # then one witness per distinct answer: one of the thirteen solvers for ANSWER and FILE_ANSWER (each holds
    # both), the plain run for exportkit's default value; not every solver
    solvers = {f"{n + 0xC0:08x}/result.json" for n in range(12)} | {f"{SOLVER[:8]}/result.json"}
    not_kept = {f"{name[:8]}/result.json" for name in (QUOTER_TWO, QUOTER, "5" * 8, "6" * 8)}
    assert len(reads) == len(set(reads)) and len(set(reads) & solvers) == 1, reads
    assert set(reads) - solvers == not_kept | {f"{PLAIN[:8]}/result.json"}, reads
    monkeypatch.undo()
    page = (project.tmp / "site" / "runs" / QUOTER_TWO / "index.html").read_text()
    assert ANSWER not in page and "[REDACTED:value]" in page
    project.assert_same_as_clean()


@pytest.mark.parametrize("how", ["witness deleted", "witness changed", "redacted rows lost", "salt lost"])
def test_a_lost_witness_makes_the_runs_counted_afresh_and_the_site_the_same(project, how):
    for n in range(3):  # other solvers that can stand in
        rid = f"{n + 0xD0:08x}" + "f" * 24
        project.export.run(graded(rid, check_breakdown=checks((ANSWER, True))), rid=rid, report=report_md(rid=rid))
    project.export.sidecars()
    project.build()
    with sqlite3.connect(project.cache / "cache.sqlite") as db:
        (witness,) = db.execute(
            "SELECT witness FROM redacted WHERE witness IS NOT NULL AND witness LIKE ?", (f"%:{SOLVER[:8]}",)
        ).fetchone() or (None,)
        if how == "redacted rows lost":
            db.execute("DELETE FROM redacted")
        if how == "salt lost":
            db.execute("DELETE FROM salt")
    directory = project.export.root / SOLVER[:8]
    if how == "witness deleted":
        shutil.rmtree(directory)
        project.export.rows = [row for row in project.export.rows if row["run_id"] != SOLVER]
        project.export.sidecars()
    elif how == "witness changed":
        body = json.loads((directory / "result.json").read_text())
        body["grade"]["judge_detail"] = "edited"
        (directory / "result.json").write_text(json.dumps(body))
    project.build()
    project.assert_same_as_clean()
    page = (project.tmp / "site" / "runs" / QUOTER / "index.html").read_text()
    assert ANSWER not in page
    # with the solver gone, its file's answer and its failed value are no one's secret any more
    still = (ANSWER, OWN, OWN_ALONE, LITERAL, SHAPE) if how == "witness deleted" else SECRETS
    assert secrets_in_cache(project.cache, still) == []
    assert how == "redacted rows lost" or witness is not None  # (the solver was a witness: the case bites)


def test_rows_written_before_an_answer_was_known_again_are_swept(project):
    """The witness of FILE_ANSWER (the solver, its only holder) changed: the rebuild cannot read the answer
    back at its start, so a run read before the solver, quoting only it, is screened without it; once the
    solver is read, that run's rows go."""
    quoter = "0a" * 4 + "e" * 24
    quoting_run(project.export, quoter, FILE_ANSWER.strip(), own_named=False)
    project.export.sidecars()
    project.build()
    with sqlite3.connect(project.cache / "cache.sqlite") as db:  # (the case: the solver is the witness)
        assert db.execute("SELECT count(*) FROM redacted WHERE witness LIKE ?", (f"%:{SOLVER[:8]}",)).fetchone() == (2,)
    directory = project.export.root / SOLVER[:8]
    body = json.loads((directory / "result.json").read_text())
    body["grade"]["judge_detail"] = "edited"
    (directory / "result.json").write_text(json.dumps(body))
    project.build()
    assert secrets_in_cache(project.cache) == []
    project.assert_same_as_clean()


@pytest.mark.parametrize(
    "witness",
    [
        "9" * 5000 + ":0a0a0a0a",
        "1:0a0a0a0a",
        "-1:0a0a0a0a",
        "0:../0a0a0a0a",
        "0:0a0a0a0a/../x",
        "٣:0a0a0a0a",
        "0a0a0a0a",
        "",
    ],
)
def test_a_forged_witness_names_no_file(tmp_path, witness):
    """A witness comes from the cache (load/export/runs.py ``witnessed_answers``): one that names no run
    directory of these exports, by place and name, reads nothing and raises nothing."""
    from podium.load.export import witnessed_answers

    (tmp_path / "0a0a0a0a").mkdir()
    (tmp_path / "0a0a0a0a" / "result.json").write_text("{}")
    assert witnessed_answers([tmp_path], witness, "0" * 64, 1 << 20) == ()


# --- a build that fails or is killed after reading (issue 34, 8) ------------------------------------------
EARLY_QUOTER = "0b" * 4 + "f" * 24  # read before the solver, quoting its answer alone


def every_spelling_in(data: list[tuple[str, bytes]], secrets=SECRETS) -> list[tuple[str, str, str]]:
    """Each (file or table, secret, spelling) found: a value in every spelling pages redact it in
    (safety/redact.py literal_forms), and as the rows write it."""
    forms = {secret: {form.encode("utf-8", "surrogatepass") for form in literal_forms([secret])} for secret in secrets}
    for secret in secrets:
        forms[secret].update(spellings(secret))
    return sorted(
        {
            (where, secret, form.decode())
            for where, blob in data
            for secret in secrets
            for form in forms[secret]
            if form in blob
        }
    )


def test_a_build_that_fails_after_reading_leaves_no_answer_in_the_cache(tmp_path, monkeypatch):
    """The quoter's rows are read before the solver makes its quote an answer: before, they were written as
    read and swept only by a build that succeeded, so a build failing while it wrote pages (exit 3) left them
    in cache.sqlite in plain text until the next successful one."""
    project = Project(tmp_path)
    quoting_run(project.export, EARLY_QUOTER, FILE_ANSWER.strip(), own_named=False)  # (an answer alone: no shape)
    project.export.sidecars()

    def fail(*args, **kwargs):
        raise BuildError("a template failed")

    monkeypatch.setattr(podium.render.site, "render_page", fail)
    with pytest.raises(BuildError):
        project.build()
    assert (project.cache / "cache.sqlite").stat().st_size > 0
    assert every_spelling_in(cache_bytes(project.cache)) == []
    with sqlite3.connect(project.cache / "cache.sqlite") as db:  # (the rows read did reach the file, checked)
        assert db.execute("SELECT count(*) FROM runs").fetchone()[0] >= 2


_KILLED = """
import os, signal, sys
from pathlib import Path
import podium.build
import podium.cache.store
import podium.views
from podium.config import Config

podium.cache.store.SAVE_EVERY = 1  # every row written as soon as it is made


def killed(*args, **kwargs):  # every run is read: the build is killed before it makes the redaction
    os.kill(os.getpid(), signal.SIGKILL)


podium.views.Redaction = killed
tmp = Path(sys.argv[1])
podium.build.build_site(
    Config(source="", root=tmp, out=tmp / "site", redact=[sys.argv[2]]), tmp / "export", cache_dir=tmp / "cache"
)
"""


def test_a_build_killed_after_reading_leaves_no_answer_anywhere(tmp_path):
    """Killed (no commit, no close), with every row written as it is made: cache.sqlite and any journal
    beside it, and the temporary directory SQLite uses, hold no answer in any spelling."""
    export = make_export(tmp_path / "export")
    quoting_run(export, EARLY_QUOTER, FILE_ANSWER.strip(), own_named=False)
    export.sidecars()
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED, str(tmp_path), LITERAL],
        env={**os.environ, "TMPDIR": str(scratch), "SQLITE_TMPDIR": str(scratch)},
        capture_output=True,
        text=True,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    left = [(p.name, p.read_bytes()) for p in sorted((tmp_path / "cache").rglob("*")) if p.is_file()]
    left += [(p.name, p.read_bytes()) for p in sorted(scratch.rglob("*")) if p.is_file()]
    assert any(name == "cache.sqlite" for name, _ in left)
    assert every_spelling_in(left) == []
