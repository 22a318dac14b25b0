"""Why a page is rendered again, and why a build did not stop early (``podium build --explain``).

A key's parts (cache/keys.py :class:`Key`) stay readable in the cache: the part that changed since the last
build names the reason.
"""

from __future__ import annotations

from collections.abc import Mapping

# Why a page was rendered again, by the part of its key that changed (--explain).
WHY = {
    "podium": "podium changed",
    "theme": "its template or theme changed",
    "template": "its template or theme changed",
    "secrets": "the redaction changed",
    "settings": "the site settings changed",
    "chrome": "the site settings changed",
    "clock": "the build time changed (SOURCE_DATE_EPOCH)",
    "result": "its run changed (result.json)",
    "report": "its report changed",
    "record": "its run's listing changed (runs.json, agents.json or its mission's versions)",
    "runs": "its runs or its neighbours changed",
    "redaction": "the redaction changed",
    "content": "what it shows changed",
    "data": "its data changed",
    "source": "its source changed",
    "compressor": "the gzip compressor changed (another zlib build)",
}
IMPLIED = {"record": {"result", "report"}, "redaction": {"result"}}  # parts that change with these
WHY_NEW = "new page"
WHY_NO_CACHE = "no cache"
WHY_BY_HAND = "the file on disk was changed by hand"
WHY_NOT_THERE = "the previous site does not have it"
WHY_UNKEYED = "its inputs cannot be keyed (never cached)"
# Why a build did not stop early, by the part of its key that changed.
BUILD_WHY = {
    "podium": "podium changed",
    "theme": "the theme changed",
    "content": "the content pages changed",
    "settings": "the settings changed",
    "clock": "the build time changed (SOURCE_DATE_EPOCH)",
    "previous": "the previous publish changed (--previous)",
    "exports": "the export changed",
    "compressor": "the gzip compressor changed (another zlib build)",
}


def reasons(changed: set[str], words: dict[str, str]) -> tuple[str, ...]:
    changed = {name for name in changed if not IMPLIED.get(name, set()) & changed}
    order = list(words)
    out: list[str] = []
    for name in sorted(changed, key=lambda n: (order.index(n) if n in order else len(order), n)):
        text = words.get(name, f"its {name} changed")
        if text not in out:
            out.append(text)
    return tuple(out)


def parts_of(text: str) -> dict[str, str | None]:
    """A key's ``parts`` read back: own part -> the start of its digest; a build-wide part -> None."""
    out: dict[str, str | None] = {}
    for word in text.split():
        name, _, value = word.partition("=")
        out[name] = value or None
    return out


def why(
    then: tuple[str, str] | None,
    key,
    on_disk: bool,
    last_shared: Mapping[str, str],
    shared_now: Mapping[str, str | None],
) -> tuple[str, ...]:
    """Why a page is rendered again under ``key`` (None: its inputs cannot be keyed): new (``then``, the last
    build's key of it, digest and parts, is None), or which part of its key changed, or its file
    (``on_disk``: the previous site has one there) is no longer the one written. ``last_shared``,
    ``shared_now``: the digests of the build-wide parts then and now."""
    if then is None:
        return (WHY_NEW,)
    if key is None:
        return (WHY_UNKEYED,)
    if then[0] == key.digest:
        return (WHY_BY_HAND if on_disk else WHY_NOT_THERE,)
    before, now = parts_of(then[1]), parts_of(key.parts)
    changed = {
        name
        for name in before.keys() | now.keys()
        if name not in before
        or name not in now
        or before[name] != now[name]
        or (now[name] is None and last_shared.get(name) != shared_now.get(name))
    }
    return reasons(changed, WHY) or ("its inputs changed",)
