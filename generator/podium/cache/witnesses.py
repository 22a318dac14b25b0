"""What a build keeps of each run as it is read, and the answers it gets back without the cache holding them.

The cache keeps no answer (cache/store.py: no secret is kept), only a run holding each (its "witness": a run
directory and its result.json's SHA-256). A rebuild reads each witness's result.json again (one file per
distinct answer, when still unchanged: :func:`known_answers`) and so knows every answer a kept record's
salted digests stand for (:class:`RunKeeper`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from podium.cache.store import NO_CACHE, NoCache
from podium.count.kinds import record_of, shared_record
from podium.load.export import run_key, witnessed_answers
from podium.model import Run, RunRecord, codec
from podium.safety.redact import Answers, exposed_values

Row = tuple[str, str | None, str | None, str | None]  # a redacted value: its digest, mission, witness, SHA-256


def known_answers(cache: NoCache, roots: Sequence[Path], limit: int) -> dict[str, str]:
    """The last build's answers, by their salted digests: each read again from its witness's result.json (one
    file per distinct answer, when still unchanged; ``limit``: the largest result.json read)."""
    wanted: dict[tuple[str, str], set[str]] = {}
    for digest, _, witness, sha in cache.redacted_values():
        if witness and sha:
            wanted.setdefault((witness, sha), set()).add(digest)
    known = {}
    for (witness, sha), digests in wanted.items():
        for answer in witnessed_answers(roots, witness, sha, limit):
            if (digest := cache.digest(answer)) in digests:
                known[digest] = answer
    return known


class RunKeeper:
    """What the build keeps of each run as it is read (load/export/stored.py ``Keeper``): its compact record, and
    its answers added to its mission's. The cache stores both as data, the answers as their salted digests
    only, and a rebuild takes them back for a run whose inputs did not change, each digest made an answer
    again by ``known`` (digest -> answer: the last build's, read from their witnesses, and those of the runs
    read so far); a digest it does not know makes the run counted afresh (its result.json read again).

    Made by :meth:`start` (with the last build's answers, read from their witnesses) and ended by :meth:`finish`
    (which hands the cache this build's redacted values: cache/store.py ``keep_redacted``)."""

    STORED = tuple[RunRecord, tuple[str, ...]]  # the record, its answers' salted digests

    def __init__(
        self,
        cache: NoCache = NO_CACHE,
        roots: Sequence[Path] = (),
        known: dict[str, str] | None = None,
    ):
        self.answers = Answers()
        self.cache = cache
        self.roots = list(roots)
        self.known = dict(known or {})
        self.stored = bool(roots) and cache.digest("") != ""  # a cache that keeps runs (no digest: NoCache)
        self.witnesses: dict[str, tuple[str, str, str]] = {}  # digest -> (mission, a run holding it, its SHA-256)

    @classmethod
    def start(cls, cache: NoCache, roots: Sequence[Path], limit: int) -> RunKeeper:
        """The keeper of a build reading ``roots`` (``limit``: the largest result.json read)."""
        return cls(cache, roots, known_answers(cache, roots, limit))

    def finish(self, configured: Sequence[str]) -> None:
        """Every run was read: the cache keeps this build's redacted values (``configured``: the literals under
        ``redact:``)."""
        self.cache.keep_redacted(*self.redacted(configured))

    def __call__(self, run: Run) -> RunRecord:
        self.answers.add(run)
        if run.answers and self.stored:
            self._witness(run.mission, run.answers, run.source, run.directory, run.result_digest)
        return record_of(run, exposed=exposed_values(run))

    def _witness(self, mission: str, answers: Iterable[str], source: int, directory: str, sha: str | None) -> None:
        for answer in answers:
            digest = self.cache.digest(answer)
            self.known.setdefault(digest, answer)
            if sha and digest not in self.witnesses:
                self.witnesses[digest] = (mission, run_key(source, directory), sha)

    def dumps(self, run: Run, record: RunRecord) -> str:
        return codec.dumps((record, tuple(sorted(self.cache.digest(answer) for answer in run.answers))))

    def loads(self, text: str) -> RunRecord | None:
        try:
            record, digests = codec.loads(self.STORED, text)
        except (ValueError, TypeError, KeyError):
            return None
        answers = [answer for digest in digests if (answer := self.known.get(digest)) is not None]
        if len(answers) != len(digests):
            return None  # an answer no witness gave back: counted afresh
        if answers:
            self.answers.add_values(record.mission, answers)
            if record.source < len(self.roots):
                self._witness(record.mission, answers, record.source, record.directory, record.digest)
        return shared_record(record)

    def redacted(self, configured: Sequence[str]) -> tuple[list[Row], dict[str, str]]:
        """What the cache keeps of this build's redacted values (cache/store.py ``keep_redacted``): each answer's
        digest, mission and witness, each configured literal's digest; and digest -> value for all of them."""
        if not self.stored:
            return [], {}
        plain = {digest: answer for digest, answer in self.known.items() if digest in self.witnesses}
        rows: list[Row] = [(digest, *self.witnesses[digest]) for digest in sorted(plain)]
        for value in configured:
            digest = self.cache.digest(value)
            if digest not in plain:
                plain[digest] = value
                rows.append((digest, None, None, None))
        return rows, plain
