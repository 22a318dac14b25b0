"""The second layer against leaks: redact secret-shaped text before it is published.

The first layer is never reading or publishing the secret-bearing parts at all
(xorcise-export.md, safety/withhold.py). This layer rewrites, in every piece of
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

**As a reader sees it** (docs/rules/export.md, "never published"): a browser shows
``Answ3r`` + a line break + ``One!x7`` (a judge's reason wrapped), a tab, two spaces, a
no-break space, or ``Answ3r\u200bOne!x7`` (a zero-width space, a soft hyphen, a word
joiner: Unicode's format characters, category Cf) as the secret itself. So every step also
runs on the text's reader view (:class:`_View`: each run of white space one space, format
characters removed), and what it cuts there is cut from the text itself, the whole span the
view's characters came from; then every step runs on the text as it is (a format character
can also hide a match from the view: ``x\u200bsk-…`` reads as ``xsk-…``). The values and
their spellings are taken in their reader view too (:func:`literal_forms`).

Literal values are found by an Aho–Corasick automaton (:class:`Literals`, on the Rust
``aho-corasick`` crate through ``ahocorasick_rs``): one pass over a text whatever the
number of values, and a build makes one automaton of every value (:class:`Redaction`).
"""

from __future__ import annotations

import base64
import bisect
import functools
import hashlib
import itertools
import json
import re
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping

import ahocorasick_rs

from podium.load.fields import FORMAT_CHARACTERS, drop_format

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
# is at that step, so skipping never changes the result (tests/safety/test_redact.py compares with the
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


# A text unlike its reader view: white space other than a space, a format character, or a space before either.
_NOT_AS_READ = re.compile(f"[^\\S ]|[{FORMAT_CHARACTERS}]| [\\s{FORMAT_CHARACTERS}]")
# A run of white space and format characters other than a lone space: one holding white space (a space
# in the view) or format characters alone (nothing there).
_CHANGED_RUN = re.compile(
    f"(?P<spaced> [\\s{FORMAT_CHARACTERS}]+|[^\\S ][\\s{FORMAT_CHARACTERS}]*"
    f"|[{FORMAT_CHARACTERS}]+\\s[\\s{FORMAT_CHARACTERS}]*)|(?P<unseen>[{FORMAT_CHARACTERS}]+)"
)
_SPACE_RUN = re.compile(r"\s+")


def as_read(text: str) -> str:
    """``text`` as a reader sees it: every run of white space one space, format characters (Cf) removed."""
    return as_read_fast(text) if _NOT_AS_READ.search(text) else text


def as_read_fast(text: str) -> str:
    """The same (what :class:`_View` makes, without where each character came from) in two passes of C,
    whether or not the text needs them (the build's last guard reads every output file so: render/site.py)."""
    return _SPACE_RUN.sub(" ", drop_format(text))


class _View:
    """A text as a reader sees it (:func:`as_read`) and where each of its characters came from, to tell a
    span of the view as the span of the text it stands for (:meth:`source_cuts`)."""

    __slots__ = ("text", "_starts", "_runs")

    def __init__(self, source: str):
        self.text = as_read_fast(source)
        runs: list[tuple[int, int, int, int]] = []  # each run changed: (view start, its length there, source span)
        removed = 0  # source characters before the run that are not in the view
        for match in _CHANGED_RUN.finditer(source):  # (a lone space, the most common run, is left as it is)
            start, end = match.span()
            size = 1 if match.lastgroup == "spaced" else 0
            runs.append((start - removed, size, start, end))
            removed += end - start - size
        self._starts = [run[0] for run in runs]
        self._runs = runs

    def _start(self, at: int) -> int:
        """Where the view's character ``at`` starts in the source (a run's space: the run's start)."""
        k = bisect.bisect_right(self._starts, at) - 1
        if k < 0:
            return at
        start, size, source_start, source_end = self._runs[k]
        return source_start if at < start + size else source_end + at - start - size

    def _end(self, end: int) -> int:
        """Where the view's characters up to ``end`` end in the source (a run's space: the run's end)."""
        k = bisect.bisect_right(self._starts, end - 1) - 1
        if k < 0:
            return end
        start, size, source_start, source_end = self._runs[k]
        return source_end if end - 1 < start + size else source_end + end - start - size

    def source_cuts(self, cuts: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
        """Cuts in the view as cuts in the source: each the whole span its characters came from."""
        return [(self._start(start), self._end(end), replacement) for start, end, replacement in cuts]


_SURROGATE = re.compile("[\ud800-\udfff]")


def _digest64(text: str) -> int:
    """A stable 64-bit digest of ``text`` (a sound one: no lone surrogate), as a signed integer."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little", signed=True)


def _sound(text: str) -> str:
    """``text`` with each lone surrogate (which has no UTF-8) a U+FFFD, every character where it was."""
    return _SURROGATE.sub("\ufffd", text)


ANCHOR = 8  # characters of a form's end that :class:`Literals`' automaton holds


class Literals:
    """Where any of ``forms`` occurs in a text, as one regular expression of them all (longest first)
    finds it: the leftmost, the longest there, then on after it. One pass of an Aho–Corasick automaton
    over the text, made once in time linear in the forms' length: the cost of a text does not grow
    with the number of forms (a trie-shaped regular expression did, past ~500 values: issue 34, 5).
    ``owners``: for each form, the set it belongs to (None: to every set), read by :meth:`matches`.

    The automaton holds each form's last ``ANCHOR`` characters (its anchor; a shorter form, whole), not
    the form: a form occurs where its anchor ends and the text before it is the rest of it, which is
    checked there (:meth:`_found_at`), so the automaton finds every anchor, overlapping, and the matches
    are chosen from the forms found. A form's spellings are mostly random characters (a flag, its base64),
    which an automaton stores at ~6 bytes a character: its anchor alone took the automaton of 46,736
    spellings of one answer per run at 10k runs from 26 MB to ~9 MB of Rust heap, in every process that
    holds one, and its making from ~3× that to ~2× (issue 33, 3). A text's cost is still one pass and a
    check per anchor found (a form's anchor, or another of the same end: each check one comparison per
    length of the forms that end so).

    Nor are the forms kept as strings (~110 bytes each in every process): each is kept as its length and
    a 64-bit digest (:func:`_digest64`), ~20 bytes, and checked by the digest of the text's characters
    where it would be. Two different strings of one digest are a 2^-64 chance, and would only redact the
    text's, never leave a form's unredacted (a form's own digest always matches)."""

    made = 0  # automata made, the characters of the forms they were made of, and of the anchors they
    characters = 0  # hold (tests count work and memory)
    held = 0

    def __init__(self, forms: Iterable[str], owners: list | None = None):
        self.owners = owners
        self._lengths = array("i")  # each form's length and digest (as matched: a lone surrogate as U+FFFD)
        self._digests = array("q")
        self._ending = array("i")  # anchor number -> the one form that ends so, or -1: several, in _shared
        self._shared: dict[int, dict[int, dict[int, int]]] = {}  # anchor number -> length -> digest -> form
        anchors: dict[str, int] = {}
        lengths, digests, ending, shared = self._lengths, self._digests, self._ending, self._shared
        for number, form in enumerate(forms):
            if _SURROGATE.search(form):
                form = _sound(form)
            lengths.append(len(form))
            digests.append(_digest64(form))
            anchor = anchors.setdefault(form[-ANCHOR:], len(anchors))
            if anchor == len(ending):
                ending.append(number)
                continue
            if ending[anchor] >= 0:  # a second form of this end
                first = ending[anchor]
                shared[anchor] = {lengths[first]: {digests[first]: first}}
                ending[anchor] = -1
            shared[anchor].setdefault(len(form), {}).setdefault(digests[number], number)  # (twice: the first)
        self._anchors = "".join(anchors)  # every anchor, one after the other, and where each ends
        self._anchor_ends = array("i", itertools.accumulate(map(len, anchors)))
        self._make()

    def __getstate__(self) -> dict:  # (a worker process makes the automaton again from the anchors)
        return {name: value for name, value in self.__dict__.items() if name != "_automaton"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._make()

    def _make(self) -> None:
        self._automaton = None
        if not self._lengths:
            return
        Literals.made += 1
        Literals.characters += sum(self._lengths)
        Literals.held += len(self._anchors)
        ends = self._anchor_ends
        self._automaton = ahocorasick_rs.AhoCorasick(
            [self._anchors[start:end] for start, end in zip(itertools.chain((0,), ends), ends)],
            matchkind=ahocorasick_rs.MatchKind.Standard,
            implementation=ahocorasick_rs.Implementation.ContiguousNFA,
            store_patterns=False,
        )

    def matches(self, text: str) -> list[tuple[int, int, int]]:
        """Each match in ``text``: (the form's number, start, end), in order, not overlapping."""
        if self._automaton is None or not text:
            return []
        try:
            hits = self._automaton.find_matches_as_indexes(text, overlapping=True)
        except UnicodeEncodeError:  # a lone surrogate
            text = _sound(text)
            hits = self._automaton.find_matches_as_indexes(text, overlapping=True)
        if not hits:
            return []
        found = sorted(
            (start, -end, number) for anchor, _, end in hits for number, start in self._found_at(text, anchor, end)
        )
        out, after = [], 0
        for start, minus_end, number in found:  # the leftmost, the longest there, then on after it
            if start >= after:
                out.append((number, start, -minus_end))
                after = -minus_end
        return out

    def _found_at(self, text: str, anchor: int, end: int):
        """(number, start) of each form with this anchor that ends at ``end`` in ``text``."""
        number = self._ending[anchor]
        if number >= 0:
            start = end - self._lengths[number]
            if start >= 0 and (end - start <= ANCHOR or _digest64(text[start:end]) == self._digests[number]):
                yield number, start
            return
        for length, forms in self._shared[anchor].items():
            if length <= end and (number := forms.get(_digest64(text[end - length : end]), -1)) >= 0:
                yield number, end - length

    def spans(self, text: str) -> list[tuple[int, int]]:
        return [(start, end) for _, start, end in self.matches(text)]

    def found(self, text: str) -> bool:
        """Whether ``text`` holds one of the forms, as a reader sees it (:func:`as_read`)."""
        return bool(self._automaton is not None and text and self.matches(as_read(text)))

    def sub(self, text: str) -> str:
        spans = self.spans(text)
        if not spans:
            return text
        return apply_cuts(text, [(start, end, "[REDACTED:value]") for start, end in spans])

    def cuts(self, text: str) -> list[tuple[int, int, str]]:
        return [(start, end, "[REDACTED:value]") for start, end in self.spans(text)]


_NO_LITERALS = Literals(())


class _Trace:
    """A text as successive steps rewrite it, told as segments: a piece of the original as it was, or
    a replacement standing for a span of the original (the whole span it took the place of), so that
    the final text can be told as cuts in the original (:meth:`cuts`). A step costs one pass over the
    segments and its cuts, whatever their number (issue 34, 15: per character it cost cuts × pieces)."""

    def __init__(self, text: str):
        self.original = text
        self.text = text
        # (start, end) in the text, replaced or not, (low, high) in the original: an unreplaced segment's
        # characters are the original's from low on; a replaced one stands for the original's [low, high)
        self.segments: list[tuple[int, int, bool, int, int]] = [(0, len(text), False, 0, len(text))] if text else []

    def _segment(self, at: int) -> int:
        """The number of the segment holding the text's character ``at``."""
        return bisect.bisect_right(self._starts, at) - 1

    def apply(self, cuts: list[tuple[int, int, str]]) -> None:
        """Make ``cuts`` (in the current text, in order, not overlapping). A cut reaching into an
        earlier replacement takes all of it, so no two replacements stand for overlapping spans."""
        if not cuts:
            return
        text, segments = self.text, self.segments
        self._starts = [segment[0] for segment in segments]
        clusters: list[list] = []  # [start, end, [cuts]] in the current text
        for start, end, replacement in cuts:
            wide_start, wide_end = start, end
            if start < len(text):
                first = segments[self._segment(start)]
                if first[2]:
                    wide_start = first[0]
            if end > 0:
                last = segments[self._segment(end - 1)]
                if last[2]:
                    wide_end = last[1]
            if clusters and wide_start < clusters[-1][1]:
                clusters[-1][1] = max(clusters[-1][1], wide_end)
                clusters[-1][2].append((start, end, replacement))
            else:
                clusters.append([wide_start, wide_end, [(start, end, replacement)]])
        out_text: list[str] = []
        out: list[tuple[int, int, bool, int, int]] = []
        shift = position = 0
        for start, end, inside in clusters:
            self._keep(position, start, shift, out_text, out)
            pieces, inner = [], start
            for cut_start, cut_end, replacement in inside:
                pieces += [text[inner:cut_start], replacement]
                inner = cut_end
            pieces.append(text[inner:end])
            piece = "".join(pieces)
            first, last = segments[self._segment(start)], segments[self._segment(end - 1)]
            low = first[3] if first[2] else first[3] + start - first[0]
            high = last[4] if last[2] else last[3] + end - last[0]
            if piece:
                out.append((start + shift, start + shift + len(piece), True, low, high))
                out_text.append(piece)
            shift += len(piece) - (end - start)
            position = end
        self._keep(position, len(text), shift, out_text, out)
        self.text, self.segments = "".join(out_text), out

    def _keep(self, start: int, end: int, shift: int, out_text: list[str], out: list) -> None:
        """The text's [start, end) as it is (its segments moved by ``shift``), onto ``out_text`` and ``out``."""
        if start >= end:
            return
        out_text.append(self.text[start:end])
        number = self._segment(start)
        while number < len(self.segments) and self.segments[number][0] < end:
            seg_start, seg_end, replaced, low, high = self.segments[number]
            a, b = max(start, seg_start), min(end, seg_end)
            if replaced:  # (whole: a cluster takes all of a replacement it touches)
                out.append((a + shift, b + shift, True, low, high))
            else:
                out.append((a + shift, b + shift, False, low + a - seg_start, low + b - seg_start))
            number += 1

    def cuts(self) -> list[tuple[int, int, str]]:
        """The rewriting so far as cuts in the original text: (start, end, replacement), in order."""
        out = []
        expect = 0  # the next original character an unchanged one would be
        for start, end, replaced, low, high in self.segments:
            if low > expect:
                out.append((expect, low, ""))  # removed (a URL's credentials)
            if replaced:
                out.append((low, high, self.text[start:end]))
            expect = high
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


def _through_view(texts: list[str], rewrite: Callable, trace_of: Callable) -> list[str]:
    """``texts`` with what ``rewrite`` (texts -> texts) changes in each one's reader view made in the text
    itself (``trace_of(view)``: the same as a :class:`_Trace`, to tell where)."""
    odd = [number for number, text in enumerate(texts) if text and _NOT_AS_READ.search(text)]
    if not odd:
        return texts
    views = [as_read_fast(texts[number]) for number in odd]  # (where each character came from: only if needed)
    after = rewrite(views)
    texts = list(texts)
    for number, view, done in zip(odd, views, after):
        if done != view:
            mapped = _View(texts[number])
            texts[number] = apply_cuts(texts[number], mapped.source_cuts(trace_of(mapped.text).cuts()))
    return texts


def _trace_through_view(trace: _Trace, trace_of: Callable) -> None:
    """:func:`_through_view` on a trace (its text as it is: the original)."""
    if trace.text and _NOT_AS_READ.search(trace.text):
        view = _View(trace.text)
        trace.apply(view.source_cuts(trace_of(view.text).cuts()))


def is_answer(value: str) -> bool:
    """Whether another run's passed value is distinctive enough to redact everywhere (module docstring),
    as a reader sees it."""
    value = as_read(value).strip()
    if len(value) < MIN_ANSWER:
        return False
    plain = all(ch.isalpha() or ch.isspace() for ch in value)
    return not plain or len(value) >= MIN_PLAIN_ANSWER


def literal_forms(values: Iterable[str]) -> list[str]:
    """Every spelling of each value (6 characters or more) to redact, longest first: the value as
    written and trimmed of the white space around it (a flag read from a file ends in ``\\n``, and a
    judge quotes it without), each in every encoding :func:`_encodings` lists, each as a reader sees it
    (:func:`as_read`: a spelling shorter than 6 characters then is dropped)."""
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
# What percent-encoders leave unescaped besides ASCII letters and digits (each spelling with a space as
# %20 and as +, hex digits in upper and lower case): RFC 3986's unreserved characters (Python's quote,
# PHP's rawurlencode); PHP's urlencode; the WHATWG form encoding (URLSearchParams, a form post; Java's
# URLEncoder); JavaScript's encodeURIComponent; encodeURI; and what RFC 3986 lets a path or a query hold
# unescaped (its sub-delimiters, ":" and "@").
_URL_SAFE_SETS = ("-._~", "-._", "-._*", "-._~!'()*", "-._~!'()*;,/?:@&=+$#", "-._~!$&'()*+,;=:@")


def _percent(raw: bytes, safe: str, plus: bool) -> str:
    keep = frozenset(safe.encode())
    out = []
    for byte in raw:
        if byte < 128 and (chr(byte).isalnum() or byte in keep):
            out.append(chr(byte))
        elif byte == 0x20 and plus:
            out.append("+")
        else:
            out.append(f"%{byte:02X}")
    return "".join(out)


@functools.lru_cache(maxsize=1 << 15)  # the same values come again and again (a mission's flag, on every run)
def _encodings(value: str) -> frozenset[str]:
    """``value`` as written, JSON-escaped (ASCII-only or not), percent-encoded (each of the encoders of
    ``_URL_SAFE_SETS``, hex digits upper- or lower-case, a space as ``%20`` or as ``+``) and
    base64-encoded (standard and URL-safe alphabets, padded and unpadded; also of the value with the
    newline ``echo`` adds, and the part of its encoding that is the same wherever it starts in a
    longer base64 text: :func:`_base64_cores`); each as a reader sees it (:func:`as_read`)."""
    raw = value.encode("utf-8", "surrogatepass")
    forms = {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}
    if any(not (byte < 128 and chr(byte).isalnum()) for byte in raw):  # (else every encoder leaves it alone)
        for safe in _URL_SAFE_SETS:
            for plus in (False, True):
                escaped = _percent(raw, safe, plus)
                forms.add(escaped)
                forms.add(_UPPER_ESCAPE.sub(lambda m: m.group().lower(), escaped))
    encoded = set(_base64_cores(raw))
    for data in (raw, raw + b"\n") if not raw.endswith(b"\n") else (raw,):
        padded = base64.b64encode(data).decode()
        encoded.update({padded, padded.rstrip("=")})
    return frozenset(as_read(form) for form in forms | encoded | {form.translate(_URL_SAFE) for form in encoded})


_URL_SAFE = str.maketrans("+/", "-_")


def forget_spellings() -> None:
    """Empty :func:`_encodings`' cache. A build fills it as it reads (each run's own values, each answer) and,
    once its :class:`Redaction` holds every answer's spellings, asks it again only for a run's own values
    that are not answers, a few: kept, it held a set of spellings for each of up to 32,768 values (~10 MB of
    sets and strings at 10k runs with one answer per run, issue 33, 3)."""
    _encodings.cache_clear()


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
    judge model, judge status), as a reader sees them: the only own values its public record must be
    redacted with."""
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
    text = "\n".join(as_read(n) for n in names if n)
    # every form of a value is at least as long as the value read: a longer one cannot occur in the names
    return (
        tuple(
            v
            for v in run.secrets
            if len(as_read(v).strip()) <= len(text) and any(form in text for form in literal_forms((v,)))
        )
        if text
        else ()
    )


class Redactor:
    """Rewrites text: the literal values it was given (in every form), then every secret shape; in the
    text's reader view and then in the text itself (module docstring). ``found``: the values' forms as
    :class:`Literals` (made from ``values`` when not given: :class:`Redaction` hands in its shared one)."""

    def __init__(self, values: Iterable[str] = (), found=None):
        self.values = tuple(values)
        if found is None:
            found = Literals(literal_forms(self.values)) if self.values else _NO_LITERALS
        self._found = found
        self._steps = (("value",) if self.values else ()) + _STEP_NAMES  # (names: picklable)

    @property
    def literals(self) -> list[str]:
        """The values' forms, longest first."""
        return literal_forms(self.values)

    def __call__(self, text: str) -> str:
        if not text:
            return text
        return self.many([text])[0]

    def many(self, texts: list[str]) -> list[str]:
        """``[self(t) for t in texts]``, each gate tested once on all of them together (a
        report's hundreds of texts usually cost one look), each step applied only to the texts
        where its gate holds."""
        texts = list(texts)
        if not texts:
            return texts
        texts = _through_view(texts, self._joined, self._traced)
        return self._rewrite(texts, "\0".join(texts))

    def _joined(self, texts: list[str]) -> list[str]:
        return self._rewrite(texts, "\0".join(texts))

    def _traced(self, text: str) -> _Trace:
        return self._trace(_Trace(text))

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
                hit = bool(self._found.spans(joined))
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
            step = self._found.sub if name == "value" else _STEPS[name]
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

    def cuts(self, text: str) -> list[tuple[int, int, str]]:
        """What ``self(text)`` changes, as cuts in ``text`` (start, end, replacement; in order):
        ``apply_cuts(text, self.cuts(text)) == self(text)``. For mapping a redaction of a block's
        text back onto the pieces it was joined from (render/reportmd.py); every step runs ungated."""
        trace = _Trace(text)
        _trace_through_view(trace, self._traced)
        return self._trace(trace).cuts()

    def _trace(self, trace: _Trace) -> _Trace:
        for name in self._steps:
            trace.apply(self._found.cuts(trace.text) if name == "value" else _STEP_CUTS[name](trace.text))
        return trace


class OwnValues:
    """A run's own values in every form, as one automaton made the first time a text holds one (most
    runs' texts never do: a build would otherwise make one per run)."""

    def __init__(self, values: tuple[str, ...]):
        self.forms = literal_forms(values)
        self._found: Literals | None = None

    def _literals(self) -> Literals:
        if self._found is None:
            self._found = Literals(self.forms)
        return self._found

    def held_by(self, text: str) -> bool:
        """Whether ``text`` may hold one of the forms (a few substring tests; past 32 forms, the automaton)."""
        if not self.forms:
            return False
        if len(self.forms) <= 32:
            return any(form in text for form in self.forms)
        return bool(self._literals().spans(text))

    def sub(self, text: str) -> str:
        return self._literals().sub(text) if self.held_by(text) else text

    def cuts(self, text: str) -> list[tuple[int, int, str]]:
        """Where :meth:`sub` replaces, as cuts (see :meth:`Redactor.cuts`)."""
        return self._literals().cuts(text) if self.held_by(text) else []


_NO_OWN_VALUES = OwnValues(())


class RunRedactor:
    """One run's values first (those its mission's redactor does not already cover), then the mission's;
    in each text's reader view, then in the text (:class:`Redactor`)."""

    def __init__(self, own: OwnValues, mission: Redactor):
        self._own = own
        self._mission = mission

    def __call__(self, text: str) -> str:
        if not text:
            return text
        return self.many([text])[0]

    def many(self, texts: list[str]) -> list[str]:
        """``[self(t) for t in texts]`` (see :meth:`Redactor.many`)."""
        texts = list(texts)
        if not texts:
            return texts
        return self._rewrite(_through_view(texts, self._rewrite, self._traced))

    def _rewrite(self, texts: list[str]) -> list[str]:
        joined = "\0".join(texts)
        if self._own.held_by(joined):
            texts = [self._own.sub(t) if t else t for t in texts]
            joined = "\0".join(texts)
        return self._mission._rewrite(texts, joined)

    def _traced(self, text: str) -> _Trace:
        trace = _Trace(text)
        trace.apply(self._own.cuts(text))
        return self._mission._trace(trace)

    def cuts(self, text: str) -> list[tuple[int, int, str]]:
        """What ``self(text)`` changes, as cuts in ``text`` (see :meth:`Redactor.cuts`)."""
        trace = _Trace(text)
        _trace_through_view(trace, self._traced)
        trace.apply(self._own.cuts(trace.text))
        return self._mission._trace(trace).cuts()


_SHAPES_ONLY = Redactor()


class Screen:
    """Whether a text holds nothing a page would redact that is known when it is read: a run's own
    values and every secret shape, in every spelling, as a reader sees it. What the build cache may keep
    is screened so (cache/store.py ``may_keep``) as each run is read; the configured literals and every
    mission's answers are looked for once they are all known (:meth:`Redaction.holds_any`, cache/store.py
    ``settle``), before anything read is written to the cache file. Together they judge a text as one
    redactor of every value does (tests/safety/test_redact.py)."""

    def __init__(self) -> None:
        self._own: tuple[tuple[str, ...], RunRedactor] = ((), RunRedactor(_NO_OWN_VALUES, _SHAPES_ONLY))

    def clean(self, text: str, own: Iterable[str] = ()) -> bool:
        own = tuple(own)
        if self._own[0] != own:  # (the last run's: its two rows)
            self._own = (own, RunRedactor(OwnValues(own) if own else _NO_OWN_VALUES, _SHAPES_ONLY))
        return self._own[1](text) == text


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


class _MissionLiterals:
    """One mission's literal step on the build's one automaton of every value (:class:`Redaction`): its
    matches there are the mission's own when each belongs to the mission (or to every mission: a configured
    value), since the mission's forms are among them: the leftmost-longest match of the whole set is then
    the mission's. A text holding another mission's answer (rare) is matched by an automaton of the
    mission's forms alone, made the first time one is needed."""

    def __init__(self, every: Literals, mission: str, values: tuple[str, ...]):
        self._every = every
        self._mission = mission
        self._values = values
        self._alone: Literals | None = None

    def spans(self, text: str) -> list[tuple[int, int]]:
        found = self._every.matches(text)
        owners = self._every.owners or []
        if all(owners[number] is None or self._mission in owners[number] for number, _, _ in found):
            return [(start, end) for _, start, end in found]
        if self._alone is None:
            self._alone = Literals(literal_forms(self._values))
        return self._alone.spans(text)

    def sub(self, text: str) -> str:
        spans = self.spans(text)
        return apply_cuts(text, [(s, e, "[REDACTED:value]") for s, e in spans]) if spans else text

    def cuts(self, text: str) -> list[tuple[int, int, str]]:
        return [(start, end, "[REDACTED:value]") for start, end in self.spans(text)]


class Redaction:
    """Everything a build must not publish, computed once from every run's answers: one automaton of every
    configured value and answer (:class:`Literals`), each form knowing its missions."""

    def __init__(self, configured: Iterable[str], answers: Mapping[str, Iterable[str]] | Iterable = ()) -> None:
        """``answers``: mission -> the values its runs passed an artifacts check with (Answers collects
        them as runs are read); or the runs themselves."""
        self.configured = tuple(configured)
        if not isinstance(answers, Mapping):
            answers = Answers.of(answers).by_mission
        self.base = Redactor(self.configured)
        kept = {m: tuple(sorted(v for v in a if is_answer(v))) for m, a in sorted(answers.items())}
        kept = {m: values for m, values in kept.items() if values}
        # each form's mission, or its missions when several share it (None: every mission's, a configured value)
        owners: dict[str, str | set[str] | None] = dict.fromkeys(self.base.literals)
        for mission, values in kept.items():
            for value in values:
                for form in literal_forms((value,)):
                    held = owners.setdefault(form, mission)
                    if held is None or held == mission:
                        continue
                    if isinstance(held, str):  # a second mission's (a set only then: one per form was ~10 MB at 10k)
                        owners[form] = held = {held}
                    held.add(mission)
        self._every = Literals(owners, _owner_sets(owners.values()))
        self._missions = {
            m: Redactor(self.configured + values, _MissionLiterals(self._every, m, self.configured + values))
            for m, values in kept.items()
        }
        self._anywhere_redactor = Redactor(
            self.configured + tuple(v for values in kept.values() for v in values), self._every
        )
        self._digests = {m: _digest(r.values) for m, r in self._missions.items()}
        self._base_digest = _digest(self.configured)
        self._anywhere: dict[str, str] = {}

    @property
    def literals(self) -> list[str]:
        """The configured values in every form: no output file may hold one (render/site.py)."""
        return self.base.literals

    def holds_any(self, text: str) -> bool:
        """Whether ``text`` holds, as a reader sees it, a configured value or any mission's answer in any
        spelling (what the build cache may not keep: cache/store.py ``settle``)."""
        return self._every.found(text)

    def mission(self, mission: str) -> Redactor:
        return self._missions.get(mission, self.base)

    def for_run(self, run) -> RunRedactor:
        """Redacts the run's own values, its mission's answers, configured values and secret shapes
        (``run``: a whole run; a compact record brings only its ``exposed`` values, all its names need)."""
        mission = self.mission(run.mission)
        own = run.secrets if hasattr(run, "secrets") else run.exposed
        key = tuple(v for v in own if v not in mission.values)
        return RunRedactor(OwnValues(key) if key else _NO_OWN_VALUES, mission)

    def answers(self, mission: str) -> tuple[str, ...]:
        """The mission's answers its redactor redacts (those :func:`is_answer` takes), sorted."""
        redactor = self._missions.get(mission)
        return redactor.values[len(self.configured) :] if redactor is not None else ()

    def run_fingerprint(self, record, found: Iterable[str] | None = None) -> str:
        """Everything that decides how this run's texts are redacted (a cache key part): the configured values,
        the run itself (its record's digest covers its own values) and its mission's answers; with ``found``,
        only the answers that occur in the run's texts (their digests, from the build cache: cache/found.py),
        which redact its texts exactly as all of them do (leftmost-longest matching of a set of values gives
        what the values occurring in the text give)."""
        if found is None:
            mission = self._digests.get(record.mission, self._base_digest)
        else:
            mission = _digest(("found", self._base_digest, *found))
        return _digest((mission, record.digest))

    def anywhere(self, text: str) -> str:
        """Text not tied to one mission (a model name on an agent's card): every mission's answers, as one
        set (the leftmost-longest of them all)."""
        if text not in self._anywhere:
            self._anywhere[text] = self._anywhere_redactor(text)
        return self._anywhere[text]


def _owner_sets(owners: Iterable[str | set[str] | None]) -> list[frozenset[str] | None]:
    """Each form's missions as a frozenset (None: every mission's), one object per distinct set."""
    shared: dict[str | frozenset[str], frozenset[str]] = {}
    out: list[frozenset[str] | None] = []
    for held in owners:
        if held is None:
            out.append(None)
            continue
        key = held if isinstance(held, str) else frozenset(held)
        found = shared.get(key)
        if found is None:
            found = shared[key] = frozenset((held,)) if isinstance(held, str) else frozenset(held)
        out.append(found)
    return out


def _digest(values: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for value in values:
        digest.update(value.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()
