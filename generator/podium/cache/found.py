"""Which of its mission's answers occur in each run page's texts: the redaction part of its keys.

A run page and its report are redacted with the run's own values, the configured ones, the secret shapes and
every answer of its mission (safety/redact.py ``Redaction.for_run``). With one answer per run (CTF platforms
deploy a fresh flag for every run) every batch adds answers to every mission, so a key holding all of them
changed on every page at every build (issue 33: the CI loop re-rendered the whole site). But the literal step
matches leftmost-longest, and its matches in a text are decided by the values whose spellings occur in the text
alone: a value that occurs nowhere in it is never a candidate, and one that occurs but is never chosen does
not change what is chosen. So a run page's key names the answers that occur in its texts
(:meth:`FoundAnswers.run_fingerprint`: ``Redaction.run_fingerprint`` with ``found``), and a page is rendered
again when one of them is removed or a new answer occurs in its texts; a new answer that occurs nowhere in them
leaves it as it is.

**Its texts.** Everything the page hands the redactor (safety/safe.py ``page_texts`` and ``record_texts``,
render/report.py ``ReportRenderer.texts``: each text of the report and each block's texts joined), taken as a
reader sees them (``as_read``: a spelling, as a reader sees it, that occurs in a text occurs in its reader
view). The redactor also matches on texts it has cut already: a step's cut leaves the text around it and puts
a ``[REDACTED:…]`` in its place, or, for a URL's credentials, nothing (``scheme://user:pw@host`` becomes
``scheme://host``). So a spelling that occurs there but in none of the texts above either holds a bracket
(a replacement's first or last character) or spans a credential's place: holds the ``/`` that ends ``://``
(or starts the spelling) followed by what followed the ``@``. Such spellings are looked for so: one with a
bracket counts as found in every text; for each such ``/`` (:func:`_places`), ``@`` followed by what comes
after it up to the next ``/`` or bracket is looked for as well.

**A glance first.** A run's texts are read only when the skeleton of its files (cache/skeleton.py: their ASCII
letters and digits, one C pass) holds the skeleton of a new answer's spelling; one that does not cannot hold
the spelling.

**What is read.** The cache keeps, per run (by its record's digest and its report's SHA-256), the digests of the
answers found and of the set of answers they were looked for among. A rebuild looks in a kept run's texts only
for the answers new since that set (one automaton of them per mission, made once), and drops the found answers
that no longer exist; a run the cache does not know is looked at for all of its mission's answers. A run whose
answers did not change is not read at all. Digests only: the cache holds no answer (cache/store.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence

import ahocorasick_rs

from podium.cache.keys import NO_KEYS, Keys, record_digest, text_digest
from podium.cache.skeleton import run_skeleton, skeleton
from podium.cache.store import NoCache
from podium.model import RunRecord
from podium.render.report import ReportRenderer
from podium.safety.redact import Redaction, _sound, as_read, literal_forms
from podium.safety.safe import page_texts, record_texts

_CUT_END = re.compile(r"[/\[\]]")  # where what follows a credential's place may end: a "/" or a bracket


class FoundAnswers:
    """Each run's ``Redaction.run_fingerprint`` from the answers found in its texts (module docstring), made once
    a build. ``texts(record)``: the texts its page hands the redactor; ``salt``: the cache's (in a run's row key).
    ``glance(record, own)``: the skeleton of those texts (cache/skeleton.py; None: not to be trusted), looked at
    first: a run whose skeleton holds none of the new answers' is not read (``own``: when its own answers are
    among them, its report's withheld sections, which hold them, are left out; they cost more to find).
    ``glanced``, ``read``: the runs looked at so, and those whose texts were read (tests count work)."""

    def __init__(
        self,
        cache: NoCache,
        redaction: Redaction,
        texts: Callable[[RunRecord], Iterable[str]],
        salt: str,
        glance: Callable[[RunRecord, bool], str | None] = lambda record, own: None,
        digest_of: Callable[[RunRecord], str] = record_digest,
    ):
        self.cache, self.redaction, self.texts, self.salt, self.glance = cache, redaction, texts, salt, glance
        self.digest_of = digest_of  # a record's digest (the build's keys make each once)
        self.read = 0
        self.glanced = 0
        self._answers: dict[str, _Answers] = {}  # mission -> its answers now
        self._sets: dict[str, frozenset[str] | None] = {}  # an earlier build's set of answers, by its digest
        self._scans: dict[tuple[str, str | None], _Scan] = {}  # (mission, the set looked for last) -> its scan
        self._made: dict[int, tuple[RunRecord, str]] = {}

    def run_fingerprint(self, record: RunRecord) -> str:
        known = self._made.get(id(record))
        if known is None or known[0] is not record:
            known = self._made[id(record)] = (record, self._fingerprint(record))  # (kept alive: its id stays its own)
        return known[1]

    def _fingerprint(self, record: RunRecord) -> str:
        answers = self._mission(record.mission)
        key = text_digest(self.salt, self.digest_of(record), record.report_digest)
        row = self.cache.found(key)
        kept: list[str] = []
        last: str | None = None  # the set of answers looked for last time (None: not known, all are new)
        if row is not None and (row[0] == answers.digest or self._last_set(row[0]) is not None):
            last, kept = row[0], [digest for digest in row[1] if digest in answers.values]
        scan = self._scan(record.mission, answers, last)
        found = kept
        if not scan.empty:
            self.glanced += 1
            if scan.may_hold(self.glance(record, last is None)):
                self.read += 1
                found = sorted({*kept, *scan.found(self.texts(record))})
            else:
                found = sorted({*kept, *scan.always})
        if row is None or row[0] != answers.digest or row[1] != found:
            self.cache.keep_found(key, answers.digest, found)
        else:  # (the same row: kept for the next build, not written again)
            self.cache.still_uses_found(key)
        return self.redaction.run_fingerprint(record, found)

    def _mission(self, mission: str) -> _Answers:
        if mission not in self._answers:
            values = {self.cache.digest(v): v for v in self.redaction.answers(mission)}
            digest = text_digest(mission, *sorted(values))
            self.cache.keep_answer_set(digest, sorted(values))
            self._answers[mission] = _Answers(digest, values)
        return self._answers[mission]

    def _last_set(self, digest: str) -> frozenset[str] | None:
        if digest not in self._sets:
            self._sets[digest] = self.cache.answer_set(digest)
        return self._sets[digest]

    def _scan(self, mission: str, answers: _Answers, last: str | None) -> _Scan:
        if (mission, last) not in self._scans:
            if last == answers.digest:
                new = []
            else:
                before = (self._last_set(last) if last is not None else None) or frozenset()
                new = [(digest, value) for digest, value in sorted(answers.values.items()) if digest not in before]
            self._scans[(mission, last)] = _Scan(new)
        return self._scans[(mission, last)]


class _Answers:
    """A mission's answers now: the digest of their set, and digest -> answer."""

    def __init__(self, digest: str, values: dict[str, str]):
        self.digest, self.values = digest, values


class _Scan:
    """Looks for some answers (``answers``: (digest, answer)) in a run's texts, as the module docstring says: one
    automaton of their spellings and of what follows a credential's place (overlapping matches)."""

    def __init__(self, answers: Sequence[tuple[str, str]]):
        self.always: set[str] = set()  # answers with a spelling that holds a bracket: found in any text
        patterns: dict[str, set[str]] = {}  # a pattern -> the answers it stands for
        for digest, value in answers:
            for form in literal_forms((value,)):
                if "[" in form or "]" in form:
                    self.always.add(digest)
                    break
                patterns.setdefault(form, set()).add(digest)
                for place in _places(form):
                    after = form[place + 1 :]
                    end = _CUT_END.search(after, 1)
                    patterns.setdefault("@" + after[: end.start() if end else len(after)], set()).add(digest)
        self.empty = not answers
        self._patterns = patterns
        self._owners = [sorted(patterns[p]) for p in patterns]
        self._automaton = None  # made the first time a run's texts are read (a glance is enough for most)
        rough = {skeleton(p) for p in patterns}
        self._rough_always = "" in rough  # (a spelling without a letter or digit: every run's texts are read)
        self._rough = _automaton(sorted(rough))

    def may_hold(self, glance: str | None) -> bool:
        """Whether texts of this skeleton (cache/skeleton.py; None: not known) may hold one of the answers (but
        those found everywhere: ``always``)."""
        if glance is None or self._rough_always:
            return True
        return self._rough is not None and bool(self._rough.find_matches_as_indexes(glance))

    def found(self, texts: Iterable[str]) -> set[str]:
        """The digests of the answers that occur in ``texts`` (as a reader sees them)."""
        found = set(self.always)
        if self._automaton is None and self._patterns:
            self._automaton = _automaton([_sound(p) for p in self._patterns])
        if self._automaton is not None:
            text = _sound("\0".join(as_read(t) for t in texts if t))
            for number, _, _ in self._automaton.find_matches_as_indexes(text, overlapping=True):
                found.update(self._owners[number])
        return found


def _places(form: str) -> Iterator[int]:
    """Where in ``form`` a URL's credentials may have been cut (the "/" just before: the module docstring): its
    first character, its second after a "/", or a "/" after "://"."""
    for at, ch in enumerate(form[:-1]):
        if ch == "/" and (at == 0 or (at == 1 and form[0] == "/") or form[at - 2 : at] == ":/"):
            yield at


def _automaton(patterns: list[str]):
    """An automaton of ``patterns`` (every match, overlapping ones too); None for none."""
    if not patterns:
        return None
    return ahocorasick_rs.AhoCorasick(
        patterns,
        matchkind=ahocorasick_rs.MatchKind.Standard,
        implementation=ahocorasick_rs.Implementation.ContiguousNFA,
    )


def found_answers(
    cache: NoCache, keys: Keys, redaction: Redaction, whole, reports: ReportRenderer
) -> FoundAnswers | None:
    """The build's FoundAnswers (None without a cache: no key is made), reading a run's texts as its page does:
    its whole run read again (``whole``: load/export/runs.py WholeRuns), its public record, its report."""
    if keys is NO_KEYS:
        return None

    def texts(record: RunRecord) -> list[str]:
        return [*page_texts(whole.whole(record)), *record_texts(record), *reports.texts(record)]

    def glance(record: RunRecord, own: bool) -> str | None:
        return run_skeleton(whole.roots, record, whole.limits.result_bytes, reports.limit, cut=own)

    return FoundAnswers(cache, redaction, texts, keys.salt, glance, keys.record_digest)
