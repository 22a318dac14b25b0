"""The redactor's gates (safety/redact.py) skip a step only when it would change nothing:
gated redaction, one text at a time or a report's texts together (``many``), equals every
step applied in order, on texts built from the pieces of every secret shape, keyword,
literal form and the non-ASCII letters re.IGNORECASE folds to ASCII."""

from __future__ import annotations

import functools
import itertools
import re

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from podium.safety import redact as r
from podium.safety.redact import Redaction, Redactor

LITERALS = ("s3cr3t-v@lue!", "two words/x y", "ab\ncd-ef", "FLAG{shared}")
PIECES = (
    "AKIA",
    "ASIA",
    "0123456789ABCDEF",
    "ABCDEFGHIJKLMNOP",
    "ghp_",
    "gho_",
    "github_pat_",
    "abcdefghij0123456789",
    "sk-",
    "xoxb-",
    "xoxp-",
    "0123-4567-89",
    "eyJ",
    "eyJhbGci",
    ".",
    "abcd",
    "FLAG{",
    "flag{",
    "CTF{",
    "}",
    "{",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "-----BEGIN ",
    "Bearer",
    "TOKEN",
    "token",
    "tokens",
    "password",
    "PASSWD",
    "pwd",
    "secret",
    "api_key",
    "API-KEY",
    "access-key",
    "auth_token",
    "client_secret",
    "key",
    "=",
    ":",
    " ",
    "  ",
    "\t",
    "\n",
    "\u00a0",
    "\u2003",
    "\x1c",
    "'q u'",
    '"dq"',
    "https://",
    "HTTP://",
    "git+ssh://",
    "user",
    "user:pw",
    "@",
    "/",
    "host",
    ",",
    ";",
    "\u0130",
    "\u0131",
    "\u017f",
    "\u212a",
    "pa\u017f\u017fword",
    "cl\u0130ent_secret",
    "\u212aey",
    "to\u212aen",
    "[REDACTED:api-key]",
    "[REDACTED:github-token]",
    "\u2014",
    "\u00b7",
    "x",
    "Z",
    "9",
    "_",
    "-",
    "\x00",
    *LITERALS,
    *(r.literal_forms(LITERALS)),
)
ANCHORS = (
    "AKIA",
    "ghp_",
    "github_pat_",
    "sk-",
    "xoxb-",
    "eyJhbGci.eyJzdWIi.",
    "FLAG{",
    "CTF{",
    "-----BEGIN EC PRIVATE KEY-----",
    "Bearer",
    "toKen",
    "password",
    "passwd",
    "PWD",
    "secret",
    "api_key",
    "apikey",
    "access-key",
    "auth_token",
    "client_secret",
    "https://",
    "ftp+x://",
    "pa\u017f\u017fword",
    "cl\u0130ent_secret",
    "api\u212aey",
    "bearer",
    "[REDACTED:api-key]",
)
SEPARATORS = ("", " ", "=", ":", " = ", "\t:\t", "\u00a0", "\u2003", "\x1c", "\n", "=\u00a0", "user:pw@", "u@", "/")
VALUES = ("0123456789ABCDEF", "abcdefghij0123456789_-.x", "x", "'q u'", '"dq"', "}", "a/b}", "h@st", *LITERALS)
segment = st.one_of(
    st.sampled_from(PIECES),
    st.tuples(
        st.sampled_from(ANCHORS),
        st.sampled_from(SEPARATORS),
        st.sampled_from(VALUES),
        st.sampled_from(("", "}", "@", " ", "-----END EC PRIVATE KEY-----")),
    ).map("".join),
)
texts = st.lists(segment, max_size=8).map("".join)


@functools.cache
def _flat(values: tuple[str, ...]):
    """The values' forms as the one regular expression they were matched with before the automaton
    (longest first)."""
    literals = r.literal_forms(values)
    return (
        re.compile("|".join(re.escape(v) for v in sorted(literals, key=lambda v: (-len(v), v)))) if literals else None
    )


def _every_step(redactor: Redactor, text: str) -> str:
    pattern = _flat(redactor.values)
    if pattern is not None:
        text = pattern.sub("[REDACTED:value]", text)
    for name, shape in r._SHAPES:
        text = shape.sub(f"[REDACTED:{name}]", text)
    text = r._BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}[REDACTED:token]", text)
    text = r._KEYWORD.sub(lambda m: f"{m.group(1)}{m.group(2)}[REDACTED:keyword]", text)
    return r._USERINFO.sub(r"\1", text)


def ungated(redactor: Redactor, text: str) -> str:
    """Every step of Redactor, in order, without the gates (its code before they were added): on the
    text's reader view (mapped back onto the text), then on the text."""
    if not text:
        return text
    text = r._through_view([text], lambda views: [_every_step(redactor, v) for v in views], redactor._traced)[0]
    return _every_step(redactor, text)


REDACTORS = (Redactor(), Redactor(LITERALS), Redactor([f"answer-{n:03d}!" for n in range(40)] + list(LITERALS)))


@seed(20261201)
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts, st.integers(0, len(REDACTORS) - 1))
def test_a_gated_text_is_redacted_as_by_every_step(text, which):
    redactor = REDACTORS[which]
    assert redactor(text) == ungated(redactor, text)


@seed(20261202)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(texts, max_size=6), st.integers(0, len(REDACTORS) - 1))
def test_many_texts_are_redacted_as_one_at_a_time(batch, which):
    redactor = REDACTORS[which]
    assert redactor.many(batch) == [ungated(redactor, t) for t in batch]


class _Run:
    def __init__(self, mission: str, answers: tuple, secrets: tuple):
        self.mission, self.answers, self.secrets = mission, answers, secrets


@seed(20261203)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(texts, max_size=6))
def test_a_runs_redactor_does_many_texts_as_one_at_a_time(batch):
    run = _Run("m1", ("FLAG{shared}",), ("own-value-77", "FLAG{shared}"))
    redaction = Redaction(["two words/x y"], [run])
    redact = redaction.for_run(run)
    batch = [t + " own-value-77 b3duLXZhbHVlLTc3" if i % 2 else t for i, t in enumerate(batch)]
    assert redact.many(batch) == [redact(t) for t in batch]


def test_the_gates_see_through_case_folding_and_unicode_white_space():
    redactor = Redactor()
    assert redactor("pa\u017f\u017fword = hunter2") == "pa\u017f\u017fword = [REDACTED:keyword]"
    assert redactor("cl\u0130ent_secret: x") == "cl\u0130ent_secret: [REDACTED:keyword]"
    assert redactor("api\u212aey=x") == "api\u212aey=[REDACTED:keyword]"
    assert redactor("Bearer\u00a0abcdefghijklmnop") == "Bearer\u00a0[REDACTED:token]"
    assert redactor("https://user:pw@host/") == "https://host/"
    assert redactor("ordinary text with tokens and keys") == "ordinary text with tokens and keys"


@seed(20261206)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(texts, min_size=1, max_size=6), st.integers(0, len(REDACTORS) - 1))
def test_long_texts_are_redacted_as_by_every_step(batch, which):
    """Past r._SHORT bytes the one-look prefilter is skipped: the gates alone decide."""
    redactor = REDACTORS[which]
    batch = [t + " filler" * (r._SHORT // 7 + 1) if i == 0 else t for i, t in enumerate(batch)]
    assert redactor.many(batch) == [ungated(redactor, t) for t in batch]
    assert redactor(batch[0]) == ungated(redactor, batch[0])


@pytest.mark.parametrize("which", range(len(REDACTORS)))
def test_every_anchor_separator_and_value_together(which):
    """Each of the hypothesis tests' segments alone, every combination (short and long)."""
    redactor = REDACTORS[which]
    filler = "f" * r._SHORT
    for anchor, separator, value, end in itertools.product(ANCHORS, SEPARATORS, VALUES, ("", "}", "@", " ")):
        text = anchor + separator + value + end
        assert redactor(text) == ungated(redactor, text), text
        if end == " ":
            assert redactor(filler + " " + text) == ungated(redactor, filler + " " + text), text


# --- what the build cache may keep (safety/redact.py Screen, then Redaction.holds_any) ---------------------
_ANSWER = st.from_regex(r"[a-z0-9_{}-]{6,10}", fullmatch=True)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    answers=st.lists(st.lists(_ANSWER, max_size=5), min_size=1, max_size=8),
    texts=st.lists(st.text(alphabet="abcdef0123_{}- \n\u200b", max_size=40), min_size=1, max_size=6),
    own=st.lists(_ANSWER, max_size=2),
)
def test_the_screen_and_the_settled_check_judge_as_one_redactor_of_every_value(answers, texts, own):
    """A row is kept when the screen (a run's own values, the shapes: as the run is read) passes it and,
    once every answer is known, no configured value or answer is in it (cache/store.py settle): exactly
    when one redactor of every value, with the run's own, leaves it alone."""
    by_mission = {f"m{n}": set(values) for n, values in enumerate(answers)}
    redaction = r.Redaction(["conf1gured-literal"], by_mission)
    every = sorted({"conf1gured-literal", *(v for values in answers for v in values if r.is_answer(v))})
    whole = r.RunRedactor(r.OwnValues(tuple(own)) if own else r._NO_OWN_VALUES, Redactor(every))
    screen = r.Screen()
    for text in texts + [f"x {answers[0][0]} y" if answers[0] else "plain", f"{own[0]}\n" if own else "z"]:
        kept = screen.clean(text, own) and not redaction.holds_any(text)
        assert kept == (whole(text) == text), (text, answers, own)
