"""Every key of the build cache: a SHA-256 over the digests of the parts its callers name (cache/store.py).

Equal keys mean equal inputs; a part that cannot be pickled makes no key (that file is never cached).
The parts stay readable in the key (:class:`Key`), so the next build can say which part of a page's key
changed (cache/explain.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import operator
import pickle  # only to hash keys (key_of): nothing is ever unpickled
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple, Protocol

import podium
from podium.model import RunRecord
from podium.render.cached import NoReportKeys

BRIEF = 12  # hex digits of a part's digest kept to explain a key (never to decide one)


def code_fingerprint() -> str:
    """podium's version and every source file of the package: a changed podium never reuses a cached page."""
    digest = hashlib.sha256(podium.__version__.encode())
    for entry in _files(Path(podium.__file__).parent, lambda rel: rel.suffix in _SOURCE and "themes" not in rel.parts):
        digest.update(entry)
    return digest.hexdigest()


def tree_fingerprint(directories: list[Path]) -> str:
    """Every file under ``directories`` (a theme chain: templates and static files), by path and bytes."""
    digest = hashlib.sha256()
    for directory in directories:
        for entry in _files(directory):
            digest.update(entry)
        digest.update(b"\1")
    return digest.hexdigest()


_SOURCE = (".py", ".json", ".md")  # podium's own files that decide what it makes (themes are keyed apart)


def _files(directory: Path, keep: Callable[[Path], bool] = lambda rel: True) -> Iterator[bytes]:
    """Each file under ``directory`` whose relative path ``keep`` takes, in path order: its path and bytes (what
    a fingerprint of files digests)."""
    for path in sorted(directory.rglob("*")) if directory.is_dir() else ():
        rel = path.relative_to(directory)
        if keep(rel) and path.is_file():
            yield rel.as_posix().encode() + b"\0" + path.read_bytes() + b"\0"


def key_of(*parts: object, memo: dict | None = None) -> str | None:
    """A SHA-256 over the pickled ``parts``; None when one cannot be pickled (then nothing is cached).

    The pickler runs without its memo ("fast" mode), so equal values give equal bytes
    whether or not they share objects (a freshly parsed run and one from the cache).
    With ``memo`` (a dict kept for one build), every value of the board a page shows (a run
    record, an agent's or a mission version's summary, a pair, their figures: the frozen
    dataclasses of podium.model and podium.count) stands in every key as its digest, made once
    per build (a Merkle tree): a page's key costs what the page itself adds, not what the board
    objects it holds weigh (a mission page's context holds every pair of its version: pickled
    whole, its key cost 24 ms at 10k runs)."""
    buffer = io.BytesIO()
    pickler = _Pickler(buffer, memo) if memo is not None else pickle.Pickler(buffer, protocol=5)
    pickler.fast = True
    try:
        pickler.dump(parts)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
        return None
    return hashlib.sha256(buffer.getvalue()).hexdigest()


_RECORD_FIELDS = operator.attrgetter(*(field.name for field in dataclasses.fields(RunRecord)))


def record_digest(record: RunRecord) -> str:
    """A run record's digest: the repr of its fields in order (text, numbers, None, booleans, datetimes and
    tuples of text, each of which its repr spells unambiguously), twice as fast as pickling the record.
    Equal reprs mean equal records; a field type whose repr could hide a difference would break that,
    which tests/test_incremental.py checks field by field."""
    return hashlib.sha256(repr(_RECORD_FIELDS(record)).encode("utf-8", "surrogatepass")).hexdigest()


def _digest_once(memo: dict, record: RunRecord) -> str:
    """``record``'s digest, made once per build (``memo``: by the record's id; a run page's key names it
    directly, any other key holds it where the record would be pickled)."""
    known = memo.get(id(record))
    if known is None or known[1] is not record:
        known = memo[id(record)] = (record_digest(record), record)  # kept alive: its id stays its own
    return known[0]


def _record(digest: str) -> str:
    """A run record inside a key, by its digest: pickled as a call, never the bytes of a plain string."""
    return digest


def _value(digest: bytes) -> bytes:
    """A board value inside a key, by its digest (:func:`key_of`)."""
    return digest


def _dataclass(module: str, name: str, values: tuple) -> tuple:
    """Any other dataclass value inside a key: its type and its fields, pickled in line (never through its
    ``__dict__``, which pickling would make and leave on every object of a page's context)."""
    return values


_SHARED_MODULES = ("podium.model", "podium.count")
_FIELDS: dict[type, tuple[Callable[[object], tuple], bool] | None] = {}  # a type -> (its fields' getter, shared)


def _fields_of(cls: type) -> tuple[Callable[[object], tuple], bool] | None:
    """How a dataclass value of ``cls`` stands in a key: its fields' getter, and whether it stands by its digest
    (a frozen dataclass of the board: podium.model, podium.count; a value that can change, or that only one
    page holds, is not worth a digest of its own and is pickled in line); None for anything else."""
    if cls not in _FIELDS:
        if not dataclasses.is_dataclass(cls):
            _FIELDS[cls] = None
        else:
            getter = operator.attrgetter(*(f.name for f in dataclasses.fields(cls)))
            many = len(dataclasses.fields(cls)) > 1
            fields = getter if many else (lambda obj, get=getter: (get(obj),))
            shared = cls.__dataclass_params__.frozen and cls.__module__.startswith(_SHARED_MODULES)  # type: ignore[attr-defined]
            _FIELDS[cls] = (fields, shared)
    return _FIELDS[cls]


class _Pickler(pickle.Pickler):
    def __init__(self, buffer: io.BytesIO, memo: dict):
        super().__init__(buffer, protocol=5)
        self.digests = memo

    def reducer_override(self, obj):
        cls = type(obj)
        if cls is RunRecord:
            return (_record, (_digest_once(self.digests, obj),))
        how = _fields_of(cls)
        if how is None:
            return NotImplemented
        fields, shared = how
        if not shared:
            return (_dataclass, (cls.__module__, cls.__qualname__, fields(obj)))
        known = self.digests.get(id(obj))
        if known is None or known[1] is not obj:
            buffer = io.BytesIO()
            nested = _Pickler(buffer, self.digests)
            nested.fast = True
            nested.dump((cls.__module__, cls.__qualname__, fields(obj)))
            known = self.digests[id(obj)] = (hashlib.sha256(buffer.getvalue()).digest(), obj)  # kept alive
        return (_value, (known[0],))


class Key(NamedTuple):
    """A cache key. ``digest`` decides: a SHA-256 over every part's digest. ``parts`` explains: the names of
    the build-wide parts it holds, then each of its own parts with the start of its digest, e.g.
    ``podium theme secrets chrome record=3f2a9c1b0d4e result=… report=… redaction=…``."""

    digest: str
    parts: str

    def __str__(self) -> str:
        return f"{self.digest[:BRIEF]} ({self.parts})"


def text_digest(*values: object) -> str:
    """The digest of plain values (text, numbers, None, tuples of them)."""
    return hashlib.sha256(repr(values).encode("utf-8", "surrogatepass")).hexdigest()


def make_key(shared: dict[str, str], own: Mapping[str, str | None]) -> Key | None:
    """The key of ``shared`` and ``own`` parts (by name); None when one of ``own`` is (nothing is cached)."""
    parts: dict[str, str] = {}
    for name, value in own.items():
        if value is None:
            return None
        parts[name] = value
    digest = hashlib.sha256()
    for name, value in (*shared.items(), *parts.items()):
        digest.update(f"{name}={value}\n".encode())
    return Key(digest.hexdigest(), " ".join([*shared, *(f"{name}={value[:BRIEF]}" for name, value in parts.items())]))


class RunFingerprints(Protocol):
    """What decides how each run's texts are redacted (cache/found.py ``FoundAnswers``)."""

    def run_fingerprint(self, record: RunRecord) -> str: ...


class Keys:
    """Every key of one build's files and reports, from the parts the callers name (made by
    BuildCache.keys; NoCache's makes none). The build-wide parts (``shared``): podium's code,
    the theme's files, the configured secrets and, once a run page is keyed, the context every
    run page shares."""

    def __init__(self, code: str, theme: str, secrets: Sequence[str], salt: str = ""):
        self.salt = salt  # the cache's (BuildCache.salt): in every part made from a secret
        self.shared = {"podium": code, "theme": theme, "secrets": text_digest(salt, *secrets)}
        self.memo: dict = {}  # key_of's run record digests, for this build
        self.found: RunFingerprints | None = None  # cache/found.py FoundAnswers: from the answers its texts hold
        self._once: dict[str, tuple[object, str | None]] = {}  # an input many files share: itself, its digest

    def __getstate__(self) -> dict:  # to a worker process: only what a report's key needs
        return {"salt": self.salt, "shared": self.shared, "memo": {}, "_once": {}, "found": None}

    def _shared_input(self, name: str, value: object) -> str | None:
        known = self._once.get(name)
        if known is None or known[0] is not value:
            known = self._once[name] = (value, key_of(value, memo=self.memo))
        return known[1]

    def _with(self, names: Sequence[str], own: dict[str, str | None]) -> Key | None:
        return make_key({name: self.shared[name] for name in names}, own)

    def page(self, path: str, template: str, context: dict) -> Key | None:
        """A page: its template; the site settings it shows (its context's ``site`` but the build time, and
        its ``page`` but the description: its path, canonical URL, section); the build time; everything
        else its context holds, what it shows ("content"). ``href`` is made from the path and base_url."""
        site, page = context.get("site"), context.get("page")
        clock = site.get("generated_at") if isinstance(site, dict) else None
        if isinstance(site, dict):
            site = {k: v for k, v in site.items() if k != "generated_at"}
        description = page.get("description") if isinstance(page, dict) else None
        if isinstance(page, dict):
            page = {k: v for k, v in page.items() if k != "description"}
        content = {k: v for k, v in context.items() if k not in ("site", "page", "href")}
        return self._with(
            ("podium", "theme", "secrets"),
            {
                "template": text_digest(template),
                "settings": key_of(path, site, page),
                "clock": text_digest(clock),
                "content": key_of(content, description, memo=self.memo),
            },
        )

    def run_page(
        self, chrome: dict, record: RunRecord, report: tuple, redaction, configuration: object = None
    ) -> Key | None:
        """A run's page (its path is its record's): the context every run page shares (``chrome``: the site
        settings and navigation); its record (as the board lists it); its result.json; its report
        (``report``: ReportRenderer.inputs); how its texts are redacted (:meth:`redaction_of`); and its
        configuration as the public record carries it (``configuration``: its model names redacted with every
        mission's answers, safety/safe.py ``_ModelTexts``, which :meth:`redaction_of` does not name)."""
        chrome_digest = self._shared_input("chrome", chrome)
        if chrome_digest is None:
            return None
        self.shared["chrome"] = chrome_digest
        return self._with(
            ("podium", "theme", "secrets", "chrome"),
            {  # (the raw record: its names may hold secrets)
                "record": text_digest(self.salt, _digest_once(self.memo, record)),
                "result": text_digest(record.digest),
                "report": text_digest(*report),
                "redaction": text_digest(self.salt, self.redaction_of(record, redaction)),
                "configuration": key_of(configuration, memo=self.memo),
            },
        )

    def record_digest(self, record: RunRecord) -> str:
        """``record``'s digest (:func:`record_digest`), made once per build."""
        return _digest_once(self.memo, record)

    def redaction_of(self, record: RunRecord, redaction) -> str:
        """What decides how a run's texts are redacted: with :attr:`found`, the answers that occur in them
        (cache/found.py); else all of its mission's (``redaction.run_fingerprint``)."""
        found = self.found
        return found.run_fingerprint(record) if found is not None else redaction.run_fingerprint(record)

    def ledger_page(self, chrome: dict, path: str, parts: tuple) -> Key | None:
        """A page of the ledger: the context every such page shares (``chrome``), its path and ``parts``
        (plan.LedgerPages.key_parts: its month, number, neighbours and run records)."""
        chrome_digest = self._shared_input("chrome", chrome)
        if chrome_digest is None:
            return None
        self.shared["chrome"] = chrome_digest
        return self._with(
            ("podium", "theme", "secrets", "chrome"), {"path": text_digest(path), "runs": key_of(parts, memo=self.memo)}
        )

    def data_file(
        self, path: str, kind: str, inputs: Callable[[], tuple], *, once: bool = False, compressor: str | None = None
    ) -> Key | None:
        """A data file: its path, kind and ``inputs()`` (called only when a key is made; ``once``: the same
        inputs for every such file of the build, digested once); a gzipped one also the ``compressor`` that
        makes its bytes (render/gzipped.py: another zlib makes other bytes)."""
        if once:
            if "board" not in self._once:
                self._once["board"] = (None, key_of(*inputs(), memo=self.memo))
            data = self._once["board"][1]
        else:
            data = key_of(*inputs(), memo=self.memo)
        own = {"data": None if data is None else text_digest(path, kind, data)}
        if compressor is not None:
            own["compressor"] = text_digest(compressor)
        return self._with(("podium", "secrets"), own)

    def file(self, path: str, read: Callable[[], bytes]) -> Key | None:
        """A file copied as it is (a theme's asset) or made whole elsewhere (sitemap.xml): its bytes."""
        source = hashlib.sha256(path.encode() + b"\0" + read()).hexdigest()
        return self._with(("podium", "secrets"), {"source": source})

    def report(self, report: tuple, record: RunRecord, redaction) -> str | None:
        """A rendered report (render/report.py): podium's code, ``report`` (ReportRenderer.inputs: the
        engines, the size limit, the report's SHA-256; None without a report) and its redaction."""
        if report[-1] is None:
            return None
        parts = (self.shared["podium"], *map(str, report), self.salt, self.redaction_of(record, redaction))
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()


class _NoKeys(NoReportKeys, Keys):
    """The keys of a build without a cache: none, and nothing computed for them (no report's either:
    render/cached.py ``NoReportKeys``)."""

    def __init__(self):
        super().__init__("", "", ())

    def page(self, path, template, context):
        return None

    def run_page(self, chrome, record, report, redaction, configuration=None):
        return None

    def ledger_page(self, chrome, path, parts):
        return None

    def data_file(self, path, kind, inputs, *, once=False, compressor=None):
        return None

    def file(self, path, read):
        return None


NO_KEYS = _NoKeys()
