"""What a reader of an output file sees, for the last check before a secret is published.

The build's final guard (render/site.py ``guard_secrets``) refuses a file whose bytes hold a
configured secret. Bytes are not all: a browser shows ``conf1gured-<s>literal</s>`` as
``conf1gured-literal`` and ``&#99;onf1gured`` as ``configured``, and a script reads a
``.json.gz`` part unzipped. :func:`reader_texts` gives those readings of a file: markup
(HTML, SVG, XML) with its entities decoded, with its tags and comments removed too (a block's
tags as a line break: a reader does not read two cells as one word), and a gzip file
decompressed (then read by its inner name).
"""

from __future__ import annotations

import html
import re
import zlib
from collections.abc import Iterator

MARKUP = (".html", ".htm", ".svg", ".xml")
MAX_INFLATED = 1 << 30  # a part the site holds is far smaller: past this it is not a part podium wrote
_TAG = re.compile(r"<!--.*?-->|<(/?)([A-Za-z][A-Za-z0-9]*)?[^>]*>", re.S)
# Elements a reader sees apart from what is around them: their tags read as a line break (so that
# two cells or paragraphs are not read as one word), any other tag as nothing (``<em>``, ``<a>``).
_BLOCKS = frozenset((
    "address article aside blockquote br dd details dialog div dl dt fieldset figcaption figure footer form h1 h2 "
    "h3 h4 h5 h6 header hr li main nav ol p pre section summary table tbody td tfoot th thead title tr ul "
    "caption desc text").split())


def _untagged(match: re.Match) -> str:
    name = match.group(2)
    return "\n" if name is not None and name.lower() in _BLOCKS else ""


def reader_texts(path: str, data: bytes) -> Iterator[str]:
    """The texts a reader of ``path`` (holding ``data``) may see besides its bytes: for markup its
    entities decoded (attribute values included) and its text without tags; for ``.gz`` the
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
        yield html.unescape(_TAG.sub(_untagged, text))


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
