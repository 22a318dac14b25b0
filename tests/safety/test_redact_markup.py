"""Inline Markdown cannot split a secret past redaction (issue 29, item 2).

A report's text is redacted a block at a time as a reader sees it (render/reportmd.py
``_redact_blocks``): ``Answ3r **One**!x7`` is one text to a reader, not three, so a submitted
value, a mission answer, a configured literal or a token shape split by emphasis, strike-through,
code or a link is cut whole, in a paragraph, in the report's Conditions table (the model name the
harness reported) and in a quoted judge reason. And the build's last guard reads each file as a
reader does (tags removed, entities decoded, gzip parts unzipped), not only its bytes.

Every output file is judged here by an oracle of its own (html.parser's text and attribute values,
entities decoded; gzip parts decompressed), not by podium's.
"""

from __future__ import annotations

import gzip
import html
import random
from html.parser import HTMLParser
from pathlib import Path

import pytest
import sitekit as kit
from exportkit import ExportDir, graded, report_md, run_id
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from podium.errors import BuildError
from podium.render import reportmd
from podium.render.site import guard_secrets
from podium.safety.redact import OwnValues, Redaction, Redactor, RunRedactor

OWN = "Answ3r One!x7"  # the quoting run's own submitted value, and the mission's answer
LITERAL = "conf1gured-literal"  # under redact:
SPLIT = {  # as written in the report -> what must never be read whole
    "Answ3r **One**!x7": OWN,
    "FLAG{own_**flag**_value}": "FLAG{own_flag_value}",
    "sk-live-abcdefghij*klmnop*1234": "sk-live-abcdefghijklmnop1234",
    "conf1gured-~~literal~~": LITERAL,
    "Answ3r `One`!x7": OWN,
    "[Answ3r](https://example.org/) One!x7": OWN,
    "conf1gured-*lit*`er`~~al~~": LITERAL,
}
NEVER = sorted(set(SPLIT.values()))


class _Reader(HTMLParser):
    """What a browser shows of a page (its text) and keeps in its attributes, entities decoded."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.attributes: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)

    def handle_starttag(self, tag, attrs) -> None:
        self.attributes += [value for _, value in attrs if value]


def reader_sees(path: str, data: bytes) -> list[str]:
    """Every reading of an output file: its text, its text without tags (markup), its attributes."""
    if path.endswith(".gz"):
        data = gzip.decompress(data)
        path = path[:-3]
    text = data.decode("utf-8", "replace")
    if not path.endswith((".html", ".svg", ".xml")):
        return [text]
    reader = _Reader()
    reader.feed(text)
    reader.close()
    return [text, html.unescape(text), "".join(reader.parts), *reader.attributes]


def leaks(files: dict[str, bytes], secrets=NEVER) -> list[tuple[str, str]]:
    return sorted(
        {
            (path, secret)
            for path, data in files.items()
            for text in reader_sees(path, data)
            for secret in secrets
            if secret in text
        }
    )


def raw_files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def checks(value: str, passed: bool = True) -> list[dict]:
    return [
        {
            "id": "flag",
            "source": "artifacts",
            "ref": "flag",
            "op": "equals",
            "value": value,
            "passed": passed,
            "weight": 1.0,
            "error": None,
            "blocked_by": [],
        }
    ]


def split_report(rid: str) -> str:
    """Every split spelling in a paragraph, a list, the Conditions table's model cell and a quoted
    judge reason (the two places the issue names)."""
    said = " and ".join(SPLIT)
    conditions = "".join(f"| Agent model | {written} (reported by the harness) |\n" for written in SPLIT)
    rubric = "".join(
        f"### recon — 1.00 (100%) (weight 1.0)\n\nFound it\n\n> The agent said {w} twice\n\n" for w in SPLIT
    )
    body = report_md(rid=rid, extra=conditions)
    return body.replace(
        "## Deterministic checks",
        f"## Notes\n\nIt wrote {said} in its notes.\n\n"
        + "".join(f"- item {w} end\n" for w in SPLIT)
        + f"\n## Judge rubric\n\n{rubric}"
        + "## Deterministic checks",
    )


@pytest.fixture(scope="module")
def split_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("split")
    export = ExportDir(root / "export")
    solver, quoter, other = run_id("solver"), run_id("quoter"), run_id("other")
    export.run(graded(solver, check_breakdown=checks(OWN)), rid=solver, report=report_md(rid=solver))
    export.run(graded(quoter, check_breakdown=checks(OWN, passed=False)), rid=quoter, report=split_report(quoter))
    export.run(
        graded(other, check_breakdown=checks("not-it-at-all", passed=False)), rid=other, report=split_report(other)
    )
    export.sidecars()
    out = kit.build(export.root, root / "site", root=root, redact=[LITERAL])
    return {"files": raw_files(out), "quoter": quoter, "other": other}


def test_no_split_secret_is_read_whole_in_any_file(split_site):
    assert leaks(split_site["files"]) == []


@pytest.mark.parametrize("which", ["quoter", "other"])
def test_each_split_secret_is_cut_where_it_was_and_the_rest_stays(split_site, which):
    """The run's own value (quoter) and the mission's answer (other, which never submitted it) alike."""
    page = split_site["files"][f"runs/{split_site[which]}/index.html"].decode()
    reader = _Reader()
    reader.feed(page)
    text = "".join(reader.parts)
    assert text.count("The agent said [REDACTED:") == len(SPLIT)
    assert text.count("(reported by the harness)") == len(SPLIT)
    assert text.count("item [REDACTED:") == len(SPLIT) and "It wrote [REDACTED:" in text
    for kind in ("value", "flag", "api-key"):
        assert f"[REDACTED:{kind}]" in text
    assert "Answ3r" not in text and "klmnop" not in text and "own_" not in text
    assert '<a href="https://example.org/"' in page  # the link itself stays; only its text was the secret


def test_a_split_secret_keeps_the_markup_around_it():
    redact = Redactor([OWN])
    assert (
        reportmd.render("say *Answ3r **One**!x7* now", redact)
        == "<p>say <em>[REDACTED:value]<strong></strong></em> now</p>\n"
    )
    assert (
        reportmd.render("an *emphasised* word and Answ3r **One**!x7", redact)
        == "<p>an <em>emphasised</em> word and [REDACTED:value]<strong></strong></p>\n"
    )
    # a secret never spans two blocks (cells, paragraphs): each is read alone, as a reader does
    assert reportmd.render("| a | b |\n| --- | --- |\n| Answ3r | One!x7 |\n", redact).count("Answ3r") == 1


MARKS = ("**", "*", "~~", "`", "_")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(NEVER),
    st.lists(st.tuples(st.integers(1, 40), st.sampled_from(MARKS)), max_size=4),
    st.sampled_from(("", "x ", "> ", "- ", "| a |\n| - |\n| ", "# ")),
)
def test_markup_anywhere_in_a_secret_never_lets_it_through(secret, marks, prefix):
    """Inline markers opened and closed at any points inside a secret (so that they split it, or are
    left as text): the rendered report's text, as a reader sees it, never holds the secret whole."""
    written = secret
    for at, mark in sorted(marks, reverse=True):
        at = at % (len(written) + 1)
        end = min(len(written), at + 1 + at % 5)
        written = written[:at] + mark + written[at:end] + mark + written[end:]
    redaction = Redaction([LITERAL], {"m1": [OWN]})
    out = reportmd.render(prefix + "said " + written + " end\n", redaction.mission("m1"))
    assert [s for text in reader_sees("r.html", out.encode()) for s in NEVER if s in text] == []


TEXTS = st.lists(
    st.sampled_from(
        [
            "Answ3r One!x7",
            "Answ3r",
            " One",
            "!x7",
            "password",
            "=",
            ": ",
            "hunter2",
            " ",
            "sk-",
            "abcdefghijklmnopqrst",
            "FLAG{",
            "}",
            "https://",
            "u:p@",
            "h/x",
            "token ",
            "0123456789abcdef",
            "QW5zdzNyIE9uZSF4Nw",
            "conf1gured-literal",
            "\n",
            "[REDACTED:value]",
        ]
    ),
    max_size=10,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_cuts_say_exactly_what_the_redactor_changes(text):
    from podium.safety.redact import apply_cuts  # (new with the block pass: imported here, so the rest runs on 8a7d1ab)

    mission = Redactor([OWN, LITERAL])
    for redact in (mission, RunRedactor(OwnValues(("hunter2",)), mission), Redactor()):
        cuts = redact.cuts(text)
        assert apply_cuts(text, cuts) == redact(text)
        assert all(end <= start for (_, end, _), (start, _, _) in zip(cuts, cuts[1:])), cuts  # in order, apart
        assert all(start < end for start, end, _ in cuts)


def test_the_last_guard_reads_a_page_as_a_reader_does():
    literals = Redaction([LITERAL]).literals
    for path, data in [
        ("x/index.html", b"<p>conf1gured-<s>literal</s></p>"),
        ("x/index.html", b"<p>&#99;onf1gured-literal</p>"),
        ("x/index.html", b"<P>conf1gured-<EM CLASS=x>lit</EM><!-- x -->eral</P>"),
        ("x/index.html", b'<a title="conf1gured&#45;literal">x</a>'),
        ("badge.svg", b"<svg><title>conf1gured-<tspan>literal</tspan></title></svg>"),
        ("feed.xml", b"<feed><title>conf1gured&#x2d;literal</title></feed>"),
        ("ledger/a/m/1.json.gz", gzip.compress(b'{"model": "conf1gured-literal"}')),
        ("x/index.html.gz", gzip.compress(b"<p>conf1gured-<b>literal</b></p>")),
    ]:
        with pytest.raises(BuildError, match=path.replace(".", r"\.")):
            list(guard_secrets([(path, data)], literals))
    fine = [
        ("x/index.html", b"<p>conf1gured-</p><p>literal</p>\n"),
        ("a.csv", b"conf1gured-&#108;iteral"),
        ("a.json.gz", gzip.compress(b"{}")),
    ]
    assert list(guard_secrets(fine, literals)) == fine


def test_a_template_that_splits_a_configured_literal_stops_the_build(tmp_path):
    export = ExportDir(tmp_path / "export")
    export.run(graded(run_id("t")), rid=run_id("t"), report=report_md(rid=run_id("t")))
    export.sidecars()
    theme = tmp_path / "theme" / "templates"
    theme.mkdir(parents=True)
    (theme / "index.html").write_text(
        '{% extends "default:index.html" %}{% block main %}{{ super() }}'
        "<p>conf1gured-<em>lit</em>&#101;ral</p>{% endblock %}",
        encoding="utf-8",
    )
    with pytest.raises(BuildError, match=r"index\.html: a value listed under `redact:` would be published"):
        kit.build(export.root, tmp_path / "site", root=tmp_path, redact=[LITERAL], theme_dir=tmp_path / "theme")
    assert not (tmp_path / "site").exists()


def test_joining_a_blocks_texts_costs_little_when_nothing_is_split():
    """The block pass redacts only blocks of several texts, and maps cuts only where the joined text
    changes: a report with markup but no secret comes out as before, byte for byte."""
    random.seed(4)
    words = ["plain", "*emph*", "**strong**", "`code`", "[link](https://example.org/)", "~~gone~~", "sk-short"]
    text = "\n\n".join(" ".join(random.choice(words) for _ in range(12)) for _ in range(40))
    redact = Redactor([OWN, LITERAL])
    assert reportmd.render(text, redact) == reportmd.render(text, lambda t: t)
