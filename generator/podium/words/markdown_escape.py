"""Text and links set into Markdown (the change report, a badge's snippet): the one escaper.

Every name that lands in Markdown goes through :func:`md`; a link's target through :func:`md_url`.
"""

from __future__ import annotations

import re

PUNCTUATION = frozenset("\\`*_[]<>#!|~@&$:")  # escaped in running text: no link, image, HTML, cell or @-mention
LINK_TEXT = frozenset("\\`*_[]<>")  # escaped inside a link's or image's brackets (a badge's alt text)
_WWW_DOT = re.compile(r"(?i)(?<=www)\.")


def md(text: object, punctuation: frozenset[str] = PUNCTUATION) -> str:
    """Text for Markdown: ``punctuation`` backslash-escaped (inside brackets, :data:`LINK_TEXT` is enough),
    no ``www.`` autolink, control characters and line separators shown as U+FFFD.

    No name can open a link, an image, HTML, a table cell or an @-mention, nor close the brackets it sits in.
    """
    out = []
    text = _WWW_DOT.sub("\x00", str(text))
    for ch in text:
        if ch == "\x00":
            out.append("\\.")
            continue
        if ch in punctuation:
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 or ch in "\u2028\u2029":
            out.append("\ufffd")
        else:
            out.append(ch)
    return "".join(out)


def md_url(url: str) -> str:
    """A link's target in Markdown ``(…)``: the characters that would end or break it percent-encoded."""
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")
