"""Which files of a build are rendered, which are left in the previous site, which are written from the cache's
copy: decided for the whole manifest before anything is rendered (Sphinx's ``get_outdated_docs``), so the
render stage only renders (render/site.py reads these decisions through render/cached.py ``Reuse``).

A file is left in place when its key (cache/page_keys.py) is the one the last build wrote it under and the
previous site still holds that file (its stamp, else its bytes: cache/store.py ``unchanged``); written from
the cache's copy when its key is unchanged but the site no longer holds it (CI restores the cache and builds
into an empty directory); rendered otherwise. Only the keys of the files not left in place are held, and
one byte per file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from podium.cache.keys import Key
from podium.cache.page_keys import FileKeys
from podium.cache.store import NoCache
from podium.load.files import Stamp
from podium.plan.entries import Entry, LazyPage, Page, RunPage
from podium.render.output import Kept

RENDER, KEPT, STORED = 0, 1, 2  # render the file, leave it in the previous site, write the cache's copy


class Outdated:
    """The decisions for one manifest (``site``: the previous site, ``old``: its files as listed; ``explain``:
    note why each page is rendered or written again), and what came of them: ``rendered``, ``reused`` (pages),
    ``explained`` (page, why)."""

    def __init__(
        self,
        manifest: Sequence[Entry],
        keys: FileKeys,
        cache: NoCache,
        site: Path,
        old: dict[str, Stamp] | None = None,
        explain: bool = False,
    ):
        self.manifest, self.cache, self.old = manifest, cache, old or {}
        self.action = bytearray(len(manifest))  # RENDER, KEPT or STORED
        self.keys: dict[int, Key | None] = {}  # the keys of the files not left in place
        self.shas: dict[int, str] = {}  # STORED: the SHA-256 of the cache's copy
        self.rendered = 0
        self.reused = 0
        self.explained: list[tuple[str, tuple[str, ...]]] = []
        cache.expect_pages(entry.path for entry in manifest)
        for index, entry in enumerate(manifest):
            key = keys(entry)
            found = self.old.get(entry.path)
            if found is not None and cache.unchanged(entry.path, key, found, site):
                self.action[index] = KEPT
                self.reused += _is_page(entry)
                if isinstance(entry, RunPage):  # it still stands on its report: kept for the builds after this one
                    cache.still_uses_report(keys.report(keys.runs[entry.index]))
                continue
            self.keys[index] = key
            sha = cache.stored_sha(entry.path, key)
            if sha is not None:
                self.action[index], self.shas[index] = STORED, sha
                if isinstance(entry, RunPage):
                    cache.still_uses_report(keys.report(keys.runs[entry.index]))
            if explain and _is_page(entry):
                self.explained.append((entry.path, cache.why(entry.path, key, found is not None)))

    def kept(self, index: int) -> Kept | None:
        if self.action[index] != KEPT:
            return None
        self.keys.pop(index, None)
        return Kept(self.old[self.manifest[index].path].size)

    def stored(self, index: int) -> bytes | None:
        if self.action[index] != STORED:
            return None
        key = self.keys.pop(index)
        data = self.cache.stored(self.manifest[index].path, key, self.shas.pop(index)) if key is not None else None
        if data is not None:
            self.reused += _is_page(self.manifest[index])
        else:
            self.keys[index] = key  # damaged: rendered (and kept) after all
        return data

    def to_render(self, index: int) -> bool:
        return self.action[index] == RENDER

    def rendered_as(self, index: int, data: bytes) -> None:
        entry = self.manifest[index]
        self.rendered += _is_page(entry)
        self.cache.keep_page(entry.path, self.keys.pop(index, None), data)


def _is_page(entry: Entry) -> bool:
    return isinstance(entry, (Page, LazyPage))
