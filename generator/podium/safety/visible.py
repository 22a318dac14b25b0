"""What a reader of an output file sees, for the last check before a secret is published.

The build's final guard (render/site.py ``guard_secrets``) refuses a file whose bytes hold a
configured secret. Bytes are not all: a browser shows ``conf1gured-<s>literal</s>`` as
``conf1gured-literal`` and ``&#99;onf1gured`` as ``configured``, and a script reads a
``.json.gz`` part unzipped. :func:`reader_texts` gives those readings of a file: markup
(HTML, SVG, XML) with its entities decoded, and also without its inline tags and comments (a
block's tags stay between its text and the next: a reader does not read two cells as one
word), and a gzip file decompressed (then read by its inner name).
"""

from __future__ import annotations

import html
import re
import zlib
from collections.abc import Iterator

MARKUP = (".html", ".htm", ".svg", ".xml")
MAX_INFLATED = 1 << 30  # a part the site holds is far smaller: past this it is not a part podium wrote
# Elements read as part of the text around them: their tags are removed (``conf1gured-<s>literal</s>``
# reads as one word), with comments. Any other tag is left where it is, apart from the text around it,
# as a reader sees a block (two cells or paragraphs are not one word). Removing only these is also
# what keeps the pass cheap: at 10k runs (113 MB of pages) every tag took 3.3 s, these 0.6 s.
_INLINE = (
    "a abbr b bdi bdo cite code data del dfn em i ins kbd mark q s samp small span strong sub sup time tspan u var wbr"
).split()
_INLINE_NAMES = "|".join(sorted(_INLINE, key=len, reverse=True))
_INLINE_TAG = re.compile(rf"<(?:!--.*?-->|/?(?:{_INLINE_NAMES})(?=[\s/>])[^>]*>)", re.S)  # (the "<" first: fast)
_ANY_CASE_TAG = re.compile(_INLINE_TAG.pattern, re.S | re.I)  # four times slower: only for a file that needs it
_UPPER_TAG = re.compile(r"</?[A-Z]")


def reader_texts(path: str, data: bytes) -> Iterator[str]:
    """The texts a reader of ``path`` (holding ``data``) may see besides its bytes: for markup its
    entities decoded (attribute values included) and its text without inline tags; for ``.gz`` the
    decompressed text and what it holds read by the name without ``.gz``. Nothing for other files."""
    name = path.lower()
    if name.endswith(".gz"):
        inflated = _gunzip(data)
        yield inflated.decode("utf-8", "replace")
        yield from reader_texts(path[:-3], inflated)
    elif name.endswith(MARKUP):
        text = data.decode("utf-8", "replace")
        if "&" in text:
            yield html.unescape(text)
        inline = _ANY_CASE_TAG if _UPPER_TAG.search(text) else _INLINE_TAG
        yield html.unescape(inline.sub("", text))


def _gunzip(data: bytes) -> bytes:
    """A gzip file's content (every member); a ValueError past MAX_INFLATED bytes, zlib.error when it is
    not gzip."""
    out = []
    size = 0
    while data:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        chunk = inflater.decompress(data, MAX_INFLATED - size + 1)
        size += len(chunk)
        if size > MAX_INFLATED or inflater.unconsumed_tail:
            raise ValueError(f"a gzip file inflates past {MAX_INFLATED} bytes")
        out.append(chunk)
        data = inflater.unused_data
    return b"".join(out)
