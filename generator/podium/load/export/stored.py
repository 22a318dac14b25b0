"""Parsed run directories kept between builds: what this stage asks of a store (:class:`ParsedStore`,
:class:`Keeper`; the cache implements them, the build hands one in), the store that keeps nothing, and a
run directory taken back from a store or read afresh (:func:`read_dir_cached`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from podium.load.export.ahead import ReadAhead
from podium.load.export.reader import RUN_FILES, Dir, Reader, read_dir, with_values
from podium.load.export.scan import stamps_digest
from podium.model import GRADING_FAILED, Problem, Run, codec


class ParsedStore(Protocol):
    """Where parsed run directories are kept between builds: cache/store.py's ``NoCache`` and ``BuildCache`` (the
    build hands one in; this stage never imports the cache, which sits above it). ``stored`` may give no
    payload: then the directory is not kept."""

    def parsed(
        self,
        directory: str,
        salt: str,
        files: Sequence[str],
        limit: int,
        read: Callable,
        stored: Callable,
        replay: Callable,
        seen: Callable | None = None,
        key: str | None = None,
    ) -> Any: ...

    def kept(self, key: str, salt: str) -> str | None:
        """What ``keep`` made of the directory's run last time (:class:`Runs`), as stored text (``key``: the
        directory's key, :meth:`Reader.key`)."""
        ...

    def keep_kept(self, key: str, salt: str, text: str) -> None: ...

    def may_keep(self, text: str, own: Sequence[str] = ()) -> bool:
        """Whether a row's text may be kept: it holds no secret (cache/store.py ``BuildCache.may_keep``)."""
        ...

    def cold(self) -> bool:
        """Whether it holds no parsed directory (every one will be read afresh)."""
        ...

    def damaged(self, row: str, key: str = "") -> None:
        """A stored row (``row``: its table and column, ``key``: which) that did not read back: it is made
        again, and the build says so under ``--verbose``."""
        ...


class NoParsedStore:
    """A :class:`ParsedStore` that keeps nothing: every directory is read afresh (cache/store.py's ``NoCache`` is
    one)."""

    def parsed(
        self,
        directory: str,
        salt: str,
        files: Sequence[str],
        limit: int,
        read: Callable,
        stored: Callable,
        replay: Callable,
        seen: Callable | None = None,
        key: str | None = None,
    ) -> Any:
        """A run directory parsed: ``read(None)`` (see cache/store.py ``BuildCache.parsed``)."""
        return read(None)

    def kept(self, key: str, salt: str) -> str | None:
        return None

    def keep_kept(self, key: str, salt: str, text: str) -> None:
        pass

    def may_keep(self, text: str, own: Sequence[str] = ()) -> bool:
        return True

    def cold(self) -> bool:
        """Whether no parsed run directory is kept (every one will be read afresh)."""
        return True

    def damaged(self, row: str, key: str = "") -> None:
        pass


NO_PARSED_STORE = NoParsedStore()  # nothing kept: every directory read afresh


class Keeper(Protocol):
    """A ``keep`` whose results the store keeps (build.py's): a rebuild takes an unchanged run's back
    instead of decoding, attributing and keeping the run again."""

    def __call__(self, run: Run) -> Any: ...

    def dumps(self, run: Run, kept: Any) -> str:
        """What ``self(run)`` made, as text (data only: codec.py)."""
        ...

    def loads(self, text: str) -> Any | None:
        """That text made a kept value again, with whatever ``self(run)`` also did; None when it does not
        read back."""
        ...


@dataclass
class Replayed:
    """A run directory the store kept, as a rebuild first takes it: its id and shape, and the directory
    itself still as stored text (``body``), decoded only when it is counted afresh (:meth:`whole`)."""

    name: str
    result_id: str | None
    shape: str | None
    body: str
    stored: str  # the SHA-256 of ``body``
    run_id: str = ""
    store: ParsedStore | None = None  # told when ``body`` does not read back

    def whole(self, reader: Reader) -> Dir:
        """The directory decoded; a body that does not read back is read again from disk (into a reader
        of its own: the store's problems and digest entries for it are in ``reader`` already)."""
        try:
            item = codec.loads(Dir, self.body)
        except (ValueError, TypeError, KeyError):
            if self.store is not None:
                self.store.damaged("runs.value", f"{reader.root}/{self.name}")
            item = read_dir(Reader(reader.root, reader.limits), self.name)
        if item.without_values:
            item = with_values(reader, item)
        item.run_id = self.run_id
        return item


def light(item: Dir) -> Dir:
    """What a rebuild needs of a directory to count its run again: the result without the texts only its
    page shows (rubric, checks, judge detail), its page reads result.json afresh (:func:`whole_run`); and
    without its submitted values, which the store must not hold (cache/store.py): a directory counted afresh
    reads them again (:func:`with_values`)."""
    result = item.result
    if result is None or result.grade is None:
        return item
    grade = result.grade
    detail = GRADING_FAILED if (grade.judge_detail or "").startswith(GRADING_FAILED) else None
    values = bool(result.secrets or result.answers)
    return replace(
        item,
        result=replace(
            result, grade=replace(grade, criteria=(), checks=(), judge_detail=detail), secrets=(), answers=()
        ),
        without_values=values,
    )


@dataclass(frozen=True)
class _Head:
    """One directory as the build cache keeps it (codec.py: data only), but the directory itself, which is
    stored after it as text of its own (:class:`Replayed`): its result's id and shape, the problems and
    digest entries reading it produced."""

    result_id: str | None
    shape: str | None
    problems: tuple[Problem, ...]
    digests: tuple[tuple[str, str], ...]


def read_dir_cached(
    reader: Reader, name: str, cache: ParsedStore, ahead: ReadAhead | None = None, seen: int | None = None
) -> Dir | Replayed:
    """A run directory, as parsed last time when its files are unchanged (cache/store.py ``parsed``: the same
    stamps, else the same bytes), else read afresh (by a worker ahead of time, when there are some).
    The problems and the digest entries the directory produced are replayed with it; the directory
    itself stays stored text until it is needed (:class:`Replayed`). ``seen``: the stat pass's digest
    of the directory's stamps: a stored parse with those stamps is taken without stamping its files again."""
    reader.start_dir()
    before = len(reader.problems)

    def read(stamps: dict[str, str] | None) -> Dir:
        item = ahead.take(reader, name, stamps) if ahead is not None else None
        if item is None:
            item = read_dir(reader, name)
        reader.end_dir(reader.hashes)
        return item

    def stored(item: Dir) -> tuple[str | None, dict[str, str]]:
        body = codec.dumps(light(item))  # codec's JSON is ASCII on one line: the head ends at the first newline
        head = _Head(item.result_id, item.shape, tuple(reader.problems[before:]), tuple(reader.hashes))
        payload = f"{codec.dumps(head)}\n{body}"
        hashes = {rel.rpartition("/")[2]: digest for rel, digest in reader.file_hashes.items()}
        if not cache.may_keep(payload, item.result.secrets if item.result is not None else ()):
            return None, hashes  # a name or the report's Overview quotes a secret: read again next time
        item.stored = hashlib.sha256(body.encode()).hexdigest()
        return payload, hashes

    def replay(payload: str) -> Replayed | None:
        head_text, _, body = payload.partition("\n")
        try:
            head = codec.loads(_Head, head_text)
        except (ValueError, TypeError, KeyError):
            return None  # a damaged row: the directory is read again
        reader.problems += head.problems
        reader.end_dir(head.digests)
        return Replayed(name, head.result_id, head.shape, body, hashlib.sha256(body.encode()).hexdigest(), store=cache)

    def as_seen(stamps: dict[str, str]) -> bool:
        return stamps_digest(name, [stamps.get(file, "") for file in RUN_FILES]) == seen

    limits = reader.limits
    return cache.parsed(
        f"{reader.root}/{name}",
        str(limits),  # text: a Path per directory cost more than its lstat
        RUN_FILES,
        max(limits.result_bytes, limits.report_bytes),
        read,
        stored,
        replay,
        as_seen if seen is not None else None,
        key=reader.key(name),
    )
