"""Redaction as a reader sees the text (issue 34, 2), the automaton against a brute force, and the URL
spellings (issue 34, 16): safety/redact.py.

A secret split by a line break (a judge's reason wrapped), a tab, two spaces, a no-break space, or by an
invisible format character (zero-width space, soft hyphen, word joiner; raw, or as an entity in a report
a reader sees decoded) reads as the secret: it is redacted, the whole span it was written over replaced.
"""

from __future__ import annotations

import re
import unicodedata
from html import unescape

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from podium.errors import BuildError
from podium.load.fields import _CF_RANGES, Fields, drop_format
from podium.render import reportmd
from podium.render.site import guard_secrets
from podium.safety import redact
from podium.safety.redact import Literals, Redaction, Redactor, apply_cuts, as_read, literal_forms

ANSWER = "Answ3r One!x7"
SPLITS = {
    "a line break": "\n",
    "a wrapped line": "\n    ",
    "a tab": "\t",
    "two spaces": "  ",
    "a no-break space": "\u00a0",
    "a zero-width space": " \u200b",
    "a soft hyphen": " \u00ad",
    "a word joiner": "\u2060 ",
}


def test_the_format_characters_are_unicodes_category_cf():
    every = {chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"}
    listed = {chr(c) for a, b in _CF_RANGES for c in range(a, b + 1)}
    assert listed == every


@pytest.mark.parametrize("split", sorted(SPLITS), ids=sorted(SPLITS))
def test_an_answer_split_as_a_reader_reads_it_whole_is_redacted_whole(split):
    redaction = Redaction([], {"m": {ANSWER}})
    text = f"the judge wrote: Answ3r{SPLITS[split]}One!x7 was found."
    out = redaction.mission("m")(text)
    assert out == "the judge wrote: [REDACTED:value] was found."
    assert redaction.anywhere(text) == out
    assert apply_cuts(text, redaction.mission("m").cuts(text)) == out


@pytest.mark.parametrize("split", sorted(SPLITS), ids=sorted(SPLITS))
@pytest.mark.parametrize(
    "secret,shape",
    [
        ("FLAG{split across lines}", "flag"),
        ("sk-abcdefgh ijklmnopqrstu", "api-key"),
        ("ghp_abcdefghij klmnopqrstuvwxyz0123", "github-token"),
    ],
    ids=["flag", "sk-", "ghp_"],
)
def test_a_secret_shape_split_as_a_reader_reads_it_whole_is_redacted(split, secret, shape):
    """A flag may hold a space: split by white space it still reads as one. A key may not: split by white
    space it reads as two words (docs/rules/export.md's readings), so keys are split by the invisible
    character alone."""
    joint = SPLITS[split]
    if shape != "flag":
        joint = joint.strip(" \u00a0\t\n")
        if not joint:
            return
    text = "before " + secret.replace(" ", joint) + " after"
    out = Redactor()(text)
    assert f"[REDACTED:{shape}]" in out and "abcdefgh" not in out and "split across" not in out


@pytest.mark.parametrize("split", sorted(SPLITS), ids=sorted(SPLITS))
def test_a_configured_literal_split_is_redacted_and_stopped_by_the_last_guard(split):
    literal = "conf1gured literal"
    text = "x conf1gured" + SPLITS[split] + "literal y"
    assert Redactor([literal])(text) == "x [REDACTED:value] y"
    page = f"<p>{text}</p>".encode()
    with pytest.raises(BuildError, match="as a reader"):
        list(guard_secrets([("index.html", page)], Redaction([literal]).literals))


@pytest.mark.parametrize(
    "entity",
    ["&nbsp;", "&#160;", "&#x200b;", "&#8203;", "&shy;", "&#x2060;", "&NewLine;", "\n"],
)
def test_a_report_splitting_an_answer_with_an_entity_shows_no_answer(entity):
    """A report's entities are decoded before its texts are redacted (pulldown-cmark's text events), so a
    secret split by one reads whole to the redactor as to the reader (an invisible one inside a word, a
    space between two)."""
    mission_redactor = Redaction([], {"m": {ANSWER, "Answ3r-One!x7"}}).mission("m")
    split = f"Answ3r{entity}One!x7" if as_read(unescape(entity)) == " " else f"Answ3r-{entity}One!x7"
    html = reportmd.render(f"The flag: {split}, and the rest.\n", mission_redactor)
    assert "[REDACTED:value]" in html and "x7" not in html
    assert ANSWER not in as_read(re.sub(r"<[^>]+>", "", html))


def test_the_view_maps_every_span_back_to_the_characters_it_came_from():
    text = "a \u200b\n\tb\u00ad c  d\u2060\u2060e \n"
    view = redact._View(text)
    assert view.text == as_read(text) == "a b c de "
    for start in range(len(view.text)):
        for end in range(start + 1, len(view.text) + 1):
            ((low, high, _),) = view.source_cuts([(start, end, "")])
            assert as_read(text[low:high]) == view.text[start:end], (start, end, text[low:high])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet="ab \n\t\u00a0\u200b\u00ad", max_size=24), st.data())
def test_any_view_span_maps_back_onto_what_reads_as_it(text, data):
    view = redact._View(text)
    if not view.text:
        return
    start = data.draw(st.integers(0, len(view.text) - 1))
    end = data.draw(st.integers(start + 1, len(view.text)))
    ((low, high, _),) = view.source_cuts([(start, end, "")])
    assert as_read(text[low:high]) == view.text[start:end]


# --- the automaton against trying every literal at every position -------------------------------------
def _brute(text: str, literals: list[str]) -> list[tuple[int, int]]:
    out, at = [], 0
    while at < len(text):
        longest = max((len(v) for v in literals if text.startswith(v, at)), default=0)
        if longest:
            out.append((at, at + longest))
            at += longest
        else:
            at += 1
    return out


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(st.text(alphabet="abcé\ud800", min_size=1, max_size=7), min_size=1, max_size=8, unique=True),
    st.text(alphabet="abcé\ud800 ", max_size=40),
)
def test_the_automaton_finds_what_trying_every_literal_at_every_position_finds(literals, text):
    """Leftmost, the longest at that position, then on after it (lone surrogates included)."""
    assert Literals(literals).spans(text) == _brute(text, literals)


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(st.text(alphabet="abé\ud800", min_size=1, max_size=20), min_size=1, max_size=10, unique=True),
    st.text(alphabet="abé\ud800 ", max_size=60),
    st.sampled_from([redact.ANCHOR, 1, 3]),
)
def test_the_automaton_of_anchors_finds_what_trying_every_literal_at_every_position_finds(literals, text, anchor):
    """The automaton holds each form's last ANCHOR characters, and many forms share an end on two letters (one
    anchor, several lengths; forms longer than their anchor, and shorter): still the leftmost, the longest
    there, then on after it, each match numbered as its form (lone surrogates matched as U+FFFD)."""
    kept = redact.ANCHOR
    redact.ANCHOR = anchor
    try:
        found = Literals(literals).matches(text)
    finally:
        redact.ANCHOR = kept
    assert [(start, end) for _, start, end in found] == _brute(
        redact._sound(text), [redact._sound(v) for v in literals]
    )
    assert all(redact._sound(text[start:end]) == redact._sound(literals[n]) for n, start, end in found)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.from_regex(r"[ab{}!-]{6,9}", fullmatch=True), min_size=1, max_size=6, unique=True),
    st.text(alphabet="ab{}!- \n\u200b", max_size=50),
)
def test_a_redactor_cuts_where_the_brute_force_finds_in_the_reader_view(values, text):
    """With no secret shape about, a redactor's first cuts are the brute force's on the text as read,
    mapped back; and what it says it cut is what it did."""
    redactor = Redactor(values)
    forms = literal_forms(values)
    view = redact._View(text)
    expected = apply_cuts(text, view.source_cuts([(s, e, "[REDACTED:value]") for s, e in _brute(view.text, forms)]))
    assert redactor(text) == Redactor(values).many([expected])[0] == expected
    assert apply_cuts(text, redactor.cuts(text)) == expected


# --- the URL spellings (issue 34, 16) --------------------------------------------------------------------
@pytest.mark.parametrize(
    "spelling",
    [
        "Answ3r%20One!x7",  # encodeURIComponent
        "Answ3r+One!x7",  # a form post through encodeURIComponent (jQuery.param)
        "Answ3r+One%21x7",  # URLSearchParams, a browser's form post
        "Answ3r%20One%21x7",  # RFC 3986 (Python's quote)
        "answ3r%20one%21x7".replace("answ3r", "Answ3r").replace("one", "One"),
    ],
)
def test_every_url_spelling_of_an_answer_is_redacted(spelling):
    mission_redactor = Redaction([], {"m": {ANSWER}}).mission("m")
    assert mission_redactor(f"https://x.example/?q={spelling}&n=1") == "https://x.example/?q=[REDACTED:value]&n=1"
    html = reportmd.render(f"[the target](https://x.example/?q={spelling})\n", mission_redactor)
    assert "x7" not in html and "[REDACTED:value]" in html


@pytest.mark.parametrize("char", list("!'()*~$&+,;=:@/?#"))
def test_the_characters_url_encoders_leave_unescaped_are_spelled_unescaped(char):
    value = f"pre{char}fix value"
    forms = literal_forms([value])
    assert f"pre{char}fix%20value" in forms or f"pre{char}fix+value" in forms
    assert f"pre%{ord(char):02X}fix+value" in forms  # (and escaped, as the WHATWG form encoding does but "*")


def test_free_text_loses_its_format_characters_when_read():
    fields = Fields("result.json", [])
    assert fields.clean("Answ3r\u200bOne\u00ad!x7 \u202egnp.exe", "grade.reason", line=False) == "Answ3rOne!x7 gnp.exe"
    assert [p.message for p in fields.problems] == [
        "holds invisible format characters; removed (U+200B, U+00AD, U+202E)"
    ]
    assert drop_format("plain") == "plain"
