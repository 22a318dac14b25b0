"""The second layer against leaks: redact secret-shaped text before it is published.

The first layer is never reading or publishing the secret-bearing parts at all
(xorcise-export.md, render/withhold.py). This layer rewrites, in every piece of
free text a page or data file shows (judge text, report text, check errors,
model names): provider token shapes, bearer tokens, private keys, JWTs,
credentials in URLs, ``password=…``-style pairs, flag-shaped strings, and
literal values, each also trimmed of surrounding white space (a flag read from a
file ends in a newline) and in its encoded spellings (:func:`literal_forms`: base64
padded or not, standard or URL-safe, also inside a longer base64 text; percent-escapes
in upper or lower case, with ``+`` for a space or not; JSON-escaped):

- the values listed under ``redact:`` in podium.yaml;
- the run's own submitted check values (6 characters or more);
- the mission's known answers: every value that any run of the same mission
  (any version) submitted and passed an ``artifacts`` check with, when it is
  answer-shaped (:func:`is_answer`: 8 characters or more with a digit, symbol or
  punctuation mark, or 16 or more of letters and spaces alone). Shorter or plainer
  values (``fetched``, ``swordfish``) would redact ordinary words on other runs'
  pages; list such answers under ``redact:``.

:class:`Redaction` is built once per build from every run; literals are matched
with one trie-shaped regular expression, so thousands of answers cost one pass.
"""

from __future__ import annotations

import base64
import bisect
import functools
import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from urllib.parse import quote, quote_plus

MIN_LITERAL = 6  # configured literals and a run's own values: shorter ones would redact ordinary words
MIN_ANSWER = 8  # another run's answer with a digit, symbol or punctuation mark
MIN_PLAIN_ANSWER = 16  # another run's answer made of letters and spaces only

_SHAPES = [
    ("private-key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)")),
    ("aws-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")),
    ("api-key", re.compile(r"\bsk-[A-Za-z0-9_-]{16,}")),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    # A JWT starts a run of token characters: with a bare \b every "-eyJ" inside a long
    # run would be a new start that rescans the run (quadratic time on hostile text).
    ("jwt", re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*")),
    ("flag", re.compile(r"\b(?:FLAG|flag|Flag|CTF|ctf)\{[^}\n]{1,200}\}")),
]
_BEARER = re.compile(r"(?i)\b(bearer|token)(\s+)[A-Za-z0-9._~+/=-]{12,}")
_KEYWORD = re.compile(
    r"(?i)\b(password|passwd|pwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|client[_-]?secret)"
    r"(\s*[=:]\s*)(\"[^\"\n]*\"|'[^'\n]*'|[^\s,;]+)"
)
# The scheme must start its run of scheme characters (linear time, see the jwt shape).
_USERINFO = re.compile(r"(?i)(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*://)[^/\s@:]+(?::[^/\s@]*)?@")

# Gates: a pattern can only match where one of its anchors occurs (the literal text every
# match starts with or contains) followed by what the pattern needs next, so a step whose gate
# fails is skipped: most texts hold no anchor at all, and a scan costs far more than a substring
# test. Every gate is a necessary condition for its pattern to match, tested on the text as it
# is at that step, so skipping never changes the result (tests/render/test_redact.py compares with the
# ungated steps). The tests run on the text's UTF-8 bytes (an ASCII anchor is in the text
# exactly when it is in its UTF-8 form, and byte searches are fast); the case-insensitive
# patterns' anchors on those bytes lower-cased, with the four non-ASCII characters that
# re.IGNORECASE also matches to an ASCII letter folded too (İ ı -> i, ſ -> s, K -> k), and what
# must follow an anchor is tested loosely enough for any non-ASCII character (one may be white
# space to ``\s``).
_ANCHORS = {  # shape -> a byte every anchor holds (one fast test first), the anchors as a pattern
    "private-key": (b"-", re.compile(rb"-----BEGIN ")),
    "aws-key": (b"A", re.compile(rb"A[KS]IA")),
    "github-token": (b"g", re.compile(rb"gh[pousr]_|github_pat_")),
    "api-key": (b"-", re.compile(rb"sk-")),
    "slack-token": (b"-", re.compile(rb"xox[abposr]-")),
    "jwt": (b"J", re.compile(rb"eyJ")),
    "flag": (b"{", re.compile(rb"(?:FLAG|flag|Flag|CTF|ctf)\{")),
}
_FOLDS = ((b"\xc4\xb0", b"i"), (b"\xc4\xb1", b"i"), (b"\xc5\xbf", b"s"), (b"\xe2\x84\xaa", b"k"))
_SPACE = rb"[\t\n\x0b\x0c\r\x1c-\x1f \x80-\xff]"  # what str's \s matches, any non-ASCII byte
# (words, what must follow one; a prefix of the pattern's continuation, loosened as above)
_BEARER_GATE = ((b"bearer", b"token"), re.compile(_SPACE))
_KEYWORD_GATE = (
    (b"passw", b"pwd", b"secret", b"key", b"token"),  # each keyword's last word ("passw"+"ord"/"d")
    re.compile(rb"(?:ord|d)?" + _SPACE + rb"*[=:]"),
)
_USERINFO_GATE = ((b"://",), re.compile(rb"[^/\s@:]+(?::[^/\s@]*)?@"))


# Every anchor above, lower-cased (a text that holds none needs no step but the literal values).
_ANY_ANCHOR = re.compile(
    rb"-----begin |a[ks]ia|gh[pousr]_|github_pat_|sk-|xox[abposr]-|eyj|(?:flag|ctf)\{|bearer|"
    rb"token|"
    rb"passw|pwd|secret|key|://"
)
_SHORT = 1024


def _folded(data: bytes) -> bytes:
    """UTF-8 bytes lower-cased as re.IGNORECASE compares ASCII letters."""
    data = data.lower()
    if not data.isascii() and (b"\xc4" in data or b"\xc5" in data or b"\xaa" in data):
        for char, letter in _FOLDS:
            if char in data:
                data = data.replace(char, letter)
    return data


def _gate(data: bytes, gate: tuple) -> bool:
    """Whether one of the gate's words occurs in ``data`` followed by what the pattern needs."""
    return next(_gate_hits(data, gate), None) is not None


def _gate_hits(data: bytes, gate: tuple):
    """Every position in ``data`` where one of the gate's words starts, followed by what the
    pattern needs."""
    words, then = gate
    for word in words:
        start = data.find(word)
        while start >= 0:
            if then.match(data, start + len(word)):
                yield start
            start = data.find(word, start + 1)


def _texts_at(data: bytes, positions, count: int):
    """The numbers of the texts (``count`` of them, joined by NULs into ``data``) that hold one
    of ``positions``; every text when one holds a NUL itself."""
    separators = []
    at = data.find(b"\0")
    while at >= 0:
        separators.append(at)
        at = data.find(b"\0", at + 1)
    if len(separators) != count - 1:
        return range(count)
    return sorted({bisect.bisect_right(separators, position) for position in positions})


def _shape_step(name: str, pattern: re.Pattern):
    replacement = f"[REDACTED:{name}]"
    return lambda text: pattern.sub(replacement, text)


def _bearer(text: str) -> str:
    return _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}[REDACTED:token]", text)


def _keyword(text: str) -> str:
    return _KEYWORD.sub(lambda m: f"{m.group(1)}{m.group(2)}[REDACTED:keyword]", text)


def _userinfo(text: str) -> str:
    return _USERINFO.sub(r"\1", text)


# Every step after the literal values, in order, by name.
_STEPS = {
    **{name: _shape_step(name, pattern) for name, pattern in _SHAPES},
    "token": _bearer,
    "keyword": _keyword,
    "userinfo": _userinfo,
}
_STEP_NAMES = tuple(_STEPS)


def _shape_cuts(name: str, pattern: re.Pattern):
    replacement = f"[REDACTED:{name}]"
    return lambda text: [(m.start(), m.end(), replacement) for m in pattern.finditer(text)]


# Each step of _STEPS as the cuts it makes in a text: (start, end, what replaces text[start:end]), in
# order; replacing them gives what the step's substitution gives (the part a step keeps, such as
# ``password=`` before a redacted value, is left out of its cut).
_STEP_CUTS = {
    **{name: _shape_cuts(name, pattern) for name, pattern in _SHAPES},
    "token": lambda text: [(m.end(2), m.end(), "[REDACTED:token]") for m in _BEARER.finditer(text)],
    "keyword": lambda text: [(m.end(2), m.end(), "[REDACTED:keyword]") for m in _KEYWORD.finditer(text)],
    "userinfo": lambda text: [(m.end(1), m.end(), "") for m in _USERINFO.finditer(text)],
}


def _literal_cuts(pattern: re.Pattern | None):
    if pattern is None:
        return lambda text: []
    return lambda text: [(m.start(), m.end(), "[REDACTED:value]") for m in pattern.finditer(text)]


class _Trace:
    """A text as successive steps rewrite it, each character with the span of the original text it
    stands for (itself, or the whole span a replacement took the place of), so that the final text
    can be told as cuts in the original (:meth:`cuts`)."""

    def __init__(self, text: str):
        self.original = text
        self.text = text
        self.lo = list(range(len(text)))
        self.hi = list(range(1, len(text) + 1))
        self.new = [False] * len(text)

    def _group(self, at: int) -> tuple:
        return (self.lo[at], self.hi[at]) if self.new[at] else ()

    def apply(self, cuts: list[tuple[int, int, str]]) -> None:
        """Make ``cuts`` (in the current text, in order, not overlapping). A cut reaching into an
        earlier replacement takes all of it, so no two replacements stand for overlapping spans."""
        if not cuts:
            return
        text, lo, hi, new = self.text, self.lo, self.hi, self.new
        clusters: list[list] = []  # [start, end, [cuts]] in the current text
        for start, end, replacement in cuts:
            wide_start, wide_end = start, end
            group = self._group(wide_start) if wide_start < len(text) else ()
            while group and wide_start > 0 and self._group(wide_start - 1) == group:
                wide_start -= 1
            group = self._group(wide_end - 1)
            while group and wide_end < len(text) and self._group(wide_end) == group:
                wide_end += 1
            if clusters and wide_start < clusters[-1][1]:
                clusters[-1][1] = max(clusters[-1][1], wide_end)
                clusters[-1][2].append((start, end, replacement))
            else:
                clusters.append([wide_start, wide_end, [(start, end, replacement)]])
        out_text, out_lo, out_hi, out_new = [], [], [], []
        at = 0
        for start, end, inside in clusters:
            out_text.append(text[at:start])
            out_lo += lo[at:start]
            out_hi += hi[at:start]
            out_new += new[at:start]
            pieces, position = [], start
            for cut_start, cut_end, replacement in inside:
                pieces += [text[position:cut_start], replacement]
                position = cut_end
            pieces.append(text[position:end])
            piece = "".join(pieces)
            out_text.append(piece)
            out_lo += [lo[start]] * len(piece)
            out_hi += [hi[end - 1]] * len(piece)
            out_new += [True] * len(piece)
            at = end
        out_text.append(text[at:])
        out_lo += lo[at:]
        out_hi += hi[at:]
        out_new += new[at:]
        self.text, self.lo, self.hi, self.new = "".join(out_text), out_lo, out_hi, out_new

    def cuts(self) -> list[tuple[int, int, str]]:
        """The rewriting so far as cuts in the original text: (start, end, replacement), in order."""
        text, lo, hi, new = self.text, self.lo, self.hi, self.new
        out = []
        expect = 0  # the next original character an unchanged one would be
        at = 0
        while at < len(text):
            if not new[at]:
                if lo[at] > expect:
                    out.append((expect, lo[at], ""))  # removed (a URL's credentials)
                expect = lo[at] + 1
                at += 1
                continue
            group = (lo[at], hi[at])
            end = at
            while end < len(text) and new[end] and (lo[end], hi[end]) == group:
                end += 1
            if group[0] > expect:
                out.append((expect, group[0], ""))
            out.append((group[0], group[1], text[at:end]))
            expect = group[1]
            at = end
        if expect < len(self.original):
            out.append((expect, len(self.original), ""))
        return out


def apply_cuts(text: str, cuts: list[tuple[int, int, str]]) -> str:
    """``text`` with each cut (start, end, replacement; in order, not overlapping) made."""
    pieces, at = [], 0
    for start, end, replacement in cuts:
        pieces += [text[at:start], replacement]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


def is_answer(value: str) -> bool:
    """Whether another run's passed value is distinctive enough to redact everywhere (module docstring)."""
    value = value.strip()
    if len(value) < MIN_ANSWER:
        return False
    plain = all(ch.isalpha() or ch.isspace() for ch in value)
    return not plain or len(value) >= MIN_PLAIN_ANSWER


def literal_forms(values: Iterable[str]) -> list[str]:
    """Every spelling of each value (6 characters or more) to redact, longest first: the value as
    written and trimmed of the white space around it (a flag read from a file ends in ``\n``, and a
    judge quotes it without), each in every encoding :func:`_encodings` lists."""
    forms: set[str] = set()
    for value in values:
        if len(value) < MIN_LITERAL:
            continue
        forms.update(_encodings(value))
        trimmed = value.strip()
        if trimmed != value and len(trimmed) >= MIN_LITERAL:
            forms.update(_encodings(trimmed))
    return sorted((f for f in forms if len(f) >= MIN_LITERAL), key=lambda f: (-len(f), f))


_UPPER_ESCAPE = re.compile(r"%[0-9A-F]{2}")


@functools.lru_cache(maxsize=8192)  # the same values come again and again (a mission's flag, on every run)
def _encodings(value: str) -> frozenset[str]:
    """``value`` as written, JSON-escaped (ASCII-only or not), percent-encoded (every reserved byte
    escaped, hex digits upper- or lower-case, a space as ``%20`` or as ``+`` in form encoding) and
    base64-encoded (standard and URL-safe alphabets, padded and unpadded; also of the value with the
    newline ``echo`` adds, and the part of its encoding that is the same wherever it starts in a
    longer base64 text: :func:`_base64_cores`)."""
    raw = value.encode("utf-8", "surrogatepass")
    forms = {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}
    for escaped in (quote(value, safe=""), quote_plus(value, safe="")):
        forms.add(escaped)
        forms.add(_UPPER_ESCAPE.sub(lambda m: m.group().lower(), escaped))
    encoded = set(_base64_cores(raw))
    for data in (raw, raw + b"\n") if not raw.endswith(b"\n") else (raw,):
        padded = base64.b64encode(data).decode()
        encoded.update({padded, padded.rstrip("=")})
    return frozenset(forms | encoded | {form.translate(_URL_SAFE) for form in encoded})


_URL_SAFE = str.maketrans("+/", "-_")


def _base64_cores(raw: bytes) -> list[str]:
    """The base64 characters that ``raw`` alone decides, for each of the three offsets (modulo 3 bytes)
    it may start at inside a longer encoded text (``user:password`` in a Basic credential, a flag in
    an encoded JSON body): a character holds 6 bits, and only those wholly inside ``raw``'s bits are
    the same whatever comes before and after it."""
    cores = []
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + raw).decode()
        first = -(-8 * offset // 6)  # the first character whose bits all come from raw
        last = 8 * (offset + len(raw)) // 6  # one past the last such character
        cores.append(encoded[first:last])
    return cores


def exposed_values(run) -> tuple[str, ...]:
    """A run's submitted values that occur, in any form, in a name its compact record carries (models,
    judge model, judge status): the only own values its public record must be redacted with."""
    if not run.secrets:
        return ()
    conditions = run.conditions
    names = [
        *run.models_reported,
        run.model_declared,
        run.grade.judge_status if run.grade else None,
        conditions.judge_model if conditions else None,
        conditions.model if conditions else None,
    ]
    text = "\n".join(n for n in names if n)
    # every form of a value is at least as long as the value: a longer one cannot occur in the names
    return (
        tuple(v for v in run.secrets if len(v) <= len(text) and any(form in text for form in literal_forms((v,))))
        if text
        else ()
    )


class Redactor:
    """Rewrites text: the literal values it was given (in every form), then every secret shape."""

    def __init__(self, values: Iterable[str] = ()):
        self.values = tuple(values)
        self.literals = literal_forms(self.values)
        self._literal_re = literal_pattern(self.literals)
        self._literal_bytes = [form.encode("utf-8", "surrogatepass") for form in self.literals]
        self._steps = (("value",) if self._literal_re is not None else ()) + _STEP_NAMES  # (names: picklable)

    def __call__(self, text: str) -> str:
        if not text:
            return text
        return self._rewrite([text], text)[0]

    def many(self, texts: list[str]) -> list[str]:
        """``[self(t) for t in texts]``, each gate tested once on all of them together (a
        report's hundreds of texts usually cost one look), each step applied only to the texts
        where its gate holds."""
        texts = list(texts)
        return self._rewrite(texts, "\0".join(texts)) if texts else texts

    def _rewrite(self, texts: list[str], joined: str) -> list[str]:
        """Each step in order, on the texts where its gate (a necessary condition for its pattern
        to match; the comment above _ANCHORS) holds in ``joined``, the texts as they are at that
        step joined by NULs: on the others it would change nothing."""
        data = joined.encode("utf-8", "surrogatepass")
        folded = None
        steps = self._steps
        if len(data) < _SHORT:  # one look for every anchor (on a long text the gates below are faster)
            folded = _folded(data)
            if _ANY_ANCHOR.search(folded) is None:
                steps = steps[:1] if steps[:1] == ("value",) else ()
        for name in steps:
            where = None  # (the bytes searched, where the gate holds in them); None: every text
            if name == "value":
                hit = (
                    any(form in data for form in self._literal_bytes)
                    if len(self._literal_bytes) <= 32 and len(data) >= _SHORT
                    else self._literal_re.search(joined) is not None
                )
            elif name in _ANCHORS:
                byte, anchors = _ANCHORS[name]
                hit = byte in data and anchors.search(data) is not None
                if hit:
                    where = data, (match.start() for match in anchors.finditer(data))
            elif name == "userinfo":
                hit = _gate(data, _USERINFO_GATE)
                if hit:
                    where = data, _gate_hits(data, _USERINFO_GATE)
            else:
                if folded is None:
                    folded = _folded(data)
                gate = _BEARER_GATE if name == "token" else _KEYWORD_GATE
                hit = _gate(folded, gate)
                if hit:
                    where = folded, _gate_hits(folded, gate)
            if not hit:
                continue
            step = self._literal if name == "value" else _STEPS[name]
            changed = list(texts)
            for number in (
                range(len(texts)) if where is None or len(texts) == 1 else _texts_at(where[0], where[1], len(texts))
            ):
                if texts[number]:
                    changed[number] = step(texts[number])
            if changed != texts:
                texts = changed
                joined = "\0".join(texts)
                data = joined.encode("utf-8", "surrogatepass")
                folded = None
        return texts

    def _literal(self, text: str) -> str:
        return self._literal_re.sub("[REDACTED:value]", text)

    def cuts(self, text: str) -> list[tuple[int, int, str]]:
        """What ``self(text)`` changes, as cuts in ``text`` (start, end, replacement; in order):
        ``apply_cuts(text, self.cuts(text)) == self(text)``. For mapping a redaction of a block's
        text back onto the pieces it was joined from (render/reportmd.py); every step runs ungated."""
        return self._trace(_Trace(text)).cuts()

    def _trace(self, trace: _Trace) -> _Trace:
        for name in self._steps:
            step = _literal_cuts(self._literal_re) if name == "value" else _STEP_CUTS[name]
            trace.apply(step(trace.text))
        return trace


class OwnValues:
    """A run's own values in every form, as one pattern compiled the first time a text holds one
    (most runs' texts never do: a build would otherwise compile one pattern per run)."""

    def __init__(self, values: tuple[str, ...]):
        self.forms = literal_forms(values)
        self._pattern: re.Pattern | None = None

    def sub(self, text: str) -> str:
        if not any(form in text for form in self.forms):
            return text
        return self._compiled().sub("[REDACTED:value]", text)

    def _compiled(self) -> re.Pattern:
        if self._pattern is None:
            self._pattern = literal_pattern(self.forms)
        return self._pattern  # type: ignore[return-value]

    def cuts(self, text: str) -> list[tuple[int, int, str]]:
        """Where :meth:`sub` replaces, as cuts (see :meth:`Redactor.cuts`)."""
        if not any(form in text for form in self.forms):
            return []
        return _literal_cuts(self._compiled())(text)


_NO_OWN_VALUES = OwnValues(())


class RunRedactor:
    """One run's values first (those its mission's redactor does not already cover), then the mission's."""

    def __init__(self, own: OwnValues, mission: Redactor):
        self._own = own
        self._mission = mission

    def __call__(self, text: str) -> str:
        if text:
            text = self._own.sub(text)
        return self._mission(text)

    def many(self, texts: list[str]) -> list[str]:
        """``[self(t) for t in texts]`` (see :meth:`Redactor.many`)."""
        texts = list(texts)
        if not texts:
            return texts
        joined = "\0".join(texts)
        if self._own.forms and any(form in joined for form in self._own.forms):
            texts = [self._own.sub(t) if t else t for t in texts]
            joined = "\0".join(texts)
        return self._mission._rewrite(texts, joined)

    def cuts(self, text: str) -> list[tuple[int, int, str]]:
        """What ``self(text)`` changes, as cuts in ``text`` (see :meth:`Redactor.cuts`)."""
        trace = _Trace(text)
        trace.apply(self._own.cuts(text))
        return self._mission._trace(trace).cuts()


class Screen:
    """Whether a text holds nothing a page would redact: the configured literals and the answers known
    (answer-shaped ones, :func:`is_answer`, as pages redact them), a run's own values, every secret
    shape, in every spelling. What the build cache may keep is screened so (cache/store.py ``may_keep``):
    it must hold no more than the site does. Answers are added as a build meets them."""

    FRESH = 64  # answers learned since the last full redactor are screened by their own pattern up to this many

    def __init__(self, configured: Iterable[str] = (), answers: Iterable[str] = ()):
        self._values = set(configured) | {v for v in answers if is_answer(v)}
        self._redactor: Redactor | None = None
        # Answers learned since ``_redactor`` was made: only their spellings' pattern (the redactor's first
        # step), so a build that meets a new answer in every run does not make the full redactor again each
        # time (at 10k runs, 6 ms a run). A text is clean when the redactor leaves it alone and the pattern
        # finds nothing: exactly when a redactor of both sets would leave it alone.
        self._fresh: set[str] = set()
        self._fresh_pattern: re.Pattern | None = None
        self._own: tuple[tuple[str, ...], OwnValues] = ((), _NO_OWN_VALUES)  # the last run's (its two rows)

    def learn(self, answers: Iterable[str]) -> None:
        new = {v for v in answers if v not in self._values and v not in self._fresh and is_answer(v)}
        if not new:
            return
        self._fresh |= new
        self._fresh_pattern = None
        if len(self._fresh) > self.FRESH:
            self._values |= self._fresh
            self._fresh = set()
            self._redactor = None  # made again with them when next needed

    def clean(self, text: str, own: Iterable[str] = ()) -> bool:
        if self._redactor is None:
            self._redactor = Redactor(sorted(self._values))
        own = tuple(own)
        if own:
            if self._own[0] != own:
                self._own = (own, OwnValues(own))
            if self._own[1].sub(text) != text:
                return False
        if self._redactor(text) != text:
            return False
        if self._fresh and self._fresh_pattern is None:
            self._fresh_pattern = literal_pattern(literal_forms(sorted(self._fresh)))
        return self._fresh_pattern is None or self._fresh_pattern.search(text) is None


class Answers:
    """Each mission's answers, collected as the runs are read (the records do not keep them)."""

    def __init__(self) -> None:
        self.by_mission: dict[str, set[str]] = defaultdict(set)

    def add(self, run) -> None:
        self.add_values(run.mission, run.answers)

    def add_values(self, mission: str, answers: Iterable[str]) -> None:
        if answers:
            self.by_mission[mission].update(answers)

    @classmethod
    def of(cls, runs: Iterable) -> Answers:
        answers = cls()
        for run in runs:
            answers.add(run)
        return answers


class Redaction:
    """Everything a build must not publish, computed once from every run's answers."""

    def __init__(self, configured: Iterable[str], answers: Mapping[str, Iterable[str]] | Iterable = ()) -> None:
        """``answers``: mission -> the values its runs passed an artifacts check with (Answers collects
        them as runs are read); or the runs themselves."""
        self.configured = tuple(configured)
        if not isinstance(answers, Mapping):
            answers = Answers.of(answers).by_mission
        self.base = Redactor(self.configured)
        self._missions = {
            m: Redactor(self.configured + tuple(sorted(v for v in a if is_answer(v))))
            for m, a in sorted(answers.items())
            if any(is_answer(v) for v in a)
        }
        self._digests = {m: _digest(r.values) for m, r in self._missions.items()}
        self._base_digest = _digest(self.configured)
        self._anywhere: dict[str, str] = {}

    @property
    def literals(self) -> list[str]:
        """The configured values in every form: no output file may hold one (render/site.py)."""
        return self.base.literals

    def mission(self, mission: str) -> Redactor:
        return self._missions.get(mission, self.base)

    def for_run(self, run) -> RunRedactor:
        """Redacts the run's own values, its mission's answers, configured values and secret shapes
        (``run``: a whole run; a compact record brings only its ``exposed`` values, all its names need)."""
        mission = self.mission(run.mission)
        own = run.secrets if hasattr(run, "secrets") else run.exposed
        key = tuple(v for v in own if v not in mission.values)
        return RunRedactor(OwnValues(key) if key else _NO_OWN_VALUES, mission)

    def fingerprint(self, record) -> str:
        """Everything that decides how this run's texts are redacted (a cache key part): its mission's
        answers, the configured values, and the run itself (its record's digest covers its own values)."""
        mission = self._digests.get(record.mission, self._base_digest)
        return _digest((mission, record.digest))

    def anywhere(self, text: str) -> str:
        """Text not tied to one mission (a model name on an agent's card): every mission's answers."""
        if text not in self._anywhere:
            out = self.base(text)
            for redactor in self._missions.values():
                out = redactor(out)
            self._anywhere[text] = out
        return self._anywhere[text]


def _digest(values: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for value in values:
        digest.update(value.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()


def literal_pattern(literals: list[str]) -> re.Pattern | None:
    """One regular expression matching any of ``literals``, longest first, shaped as a trie.

    A plain alternation tries every literal at every position; the trie shares
    prefixes, so matching costs about one step per character whatever the count.
    """
    if not literals:
        return None
    trie: dict = {}
    for literal in literals:
        node = trie
        for char in literal:
            node = node.setdefault(char, {})
        node[""] = {}
    try:
        return re.compile(_trie_regex(trie))
    except (RecursionError, re.error, OverflowError):  # hostile nesting: the slow but flat alternation
        return re.compile("|".join(re.escape(v) for v in sorted(literals, key=lambda v: (-len(v), v))))


def _trie_regex(node: dict) -> str:
    parts = []
    while len(node) == 1 and "" not in node:  # a chain of single characters: no group needed
        ((char, node),) = node.items()
        parts.append(re.escape(char))
    branches = [re.escape(char) + _trie_regex(child) for char, child in sorted(node.items()) if char]
    if branches:
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        parts.append(f"(?:{body})?" if "" in node else body)
    return "".join(parts)
