"""What the render stage asks of a build cache, declared here so that render never imports one.

The cache implements both protocols (cache/keys.py ``Keys``, cache/store.py ``NoCache``/``BuildCache``)
and build.py hands its instances in: :class:`FileKeys`, the key of each file from everything it is made from,
and :class:`Store`, the rows a build reads and keeps (rendered reports, pages' bytes and digests).
Without a cache the renderer uses :data:`NO_STORE` and :data:`NO_KEYS`: every lookup misses, no key
is made, nothing is kept. A page left as the last build wrote it is yielded as :class:`Kept`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

Key = Any  # a file's key: made by the cache, handed back to it, never read here

WHY_NO_CACHE = "no cache"  # why a page is rendered again by a build without a cache (--explain)


@dataclass(frozen=True)
class Kept:
    """An output file the previous build wrote with exactly the bytes this one would: left in place."""

    size: int

    def __len__(self) -> int:  # counted by the host budget like any file
        return self.size


class FileKeys(Protocol):
    """Each output file's key (None: no key, never kept), and each rendered report's."""

    def page(self, path: str, template: str, context: dict) -> Key | None: ...

    def run_page(self, chrome: Any, record: Any, report: tuple, redaction: Any) -> Key | None: ...

    def ledger_page(self, chrome: Any, path: str, parts: Any) -> Key | None: ...

    def data_file(
        self, path: str, kind: str, inputs: Any, *, once: bool = False, compressor: Any = None
    ) -> Key | None: ...

    def file(self, path: str, read: Any) -> Key | None: ...

    def report(self, report: tuple, record: Any, redaction: Any) -> str | None: ...


class Store(Protocol):
    """The rows a build reads and keeps."""

    def report(self, key: str) -> str | None: ...

    def keep_report(self, key: str, html: str) -> None: ...

    def still_uses_report(self, key: str | None) -> None: ...

    def expect_pages(self, paths: Iterable[str]) -> None: ...

    def unchanged(self, path: str, key: Key | None, found: Any, site: Any) -> bool: ...

    def keep_page(self, path: str, key: Key | None, data: bytes) -> None: ...

    def stored_sha(self, path: str, key: Key | None) -> str | None: ...

    def stored(self, path: str, key: Key, sha: str) -> bytes | None: ...

    def why(self, path: str, key: Key | None, on_disk: bool) -> tuple[str, ...]: ...


class _NoKeys:
    def page(self, path, template, context):
        return None

    def run_page(self, chrome, record, report, redaction):
        return None

    def ledger_page(self, chrome, path, parts):
        return None

    def data_file(self, path, kind, inputs, *, once=False, compressor=None):
        return None

    def file(self, path, read):
        return None

    def report(self, report, record, redaction):
        return None


class _NoStore:
    def report(self, key):
        return None

    def keep_report(self, key, html):
        pass

    def still_uses_report(self, key):
        pass

    def expect_pages(self, paths):
        pass

    def unchanged(self, path, key, found, site):
        return False

    def keep_page(self, path, key, data):
        pass

    def stored_sha(self, path, key):
        return None

    def stored(self, path, key, sha):
        return None

    def why(self, path, key, on_disk):
        return (WHY_NO_CACHE,)


NO_KEYS: FileKeys = _NoKeys()
NO_STORE: Store = _NoStore()
