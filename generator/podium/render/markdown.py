"""Markdown to safe HTML: content pages (markdown-it-py) and run reports (pulldown-cmark).

Content pages: markdown-it-py's ``js-default`` preset: raw HTML is escaped, tables
on, link schemes validated (``javascript:``, ``vbscript:``, ``file:``, ``data:``
other than images are refused). On top of it: images become plain links (no
remote requests), links get ``rel="nofollow noopener noreferrer"``, headings move
one level down so a page keeps one ``<h1>``, and time is bounded (input cap, and
``[`` runs that would make the parser slow are escaped).

Reports (xorcise-export.md "What a public site must never show"): the
secret-bearing sections are cut line by line before parsing (render/withhold.py
states the contract), the same bounds apply, then render/reportmd.py renders the
rest with pulldown-cmark to the HTML markdown-it-py would write, with the same
rules, and as a second layer drops anything still under an ``Artifacts`` heading
and the ``Value`` column of a checks table; every text is passed through the
redactor, a run of text at a time across its line breaks. (Reports are most of a
cold build's work, and this renderer is several times faster; docs/development.md "Dependencies, and why".)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markupsafe import Markup

from podium.render import reportmd
from podium.render.withhold import withhold

MAX_CHARS = 64 * 1024
MAX_BRACKETS = 2000
_REL = reportmd.REL


def _render_image(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    src = escapeHtml(token.attrGet("src") or "")
    alt = escapeHtml(self.renderInlineAsText(token.children or [], options, env)) or "image"
    return f'<a href="{src}" rel="{_REL}">[image: {alt}]</a>'


def _render_link_open(self, tokens, idx, options, env) -> str:
    tokens[idx].attrSet("rel", _REL)
    return self.renderToken(tokens, idx, options, env)


def _markdown() -> MarkdownIt:
    md = MarkdownIt("js-default", {"maxNesting": 40})
    md.add_render_rule("image", _render_image)
    md.add_render_rule("link_open", _render_link_open)
    return md


_MD = _markdown()


def _bounded(text: str) -> tuple[str, str]:
    """The text to parse and a note when it was cut."""
    note = ""
    if len(text) > MAX_CHARS:
        note = f"\n\n*(Cut at {MAX_CHARS // 1024} KiB of {len(text) // 1024} KiB.)*\n"
        text = text[:MAX_CHARS]
    if text.count("[") > MAX_BRACKETS:
        text = text.replace("[", "\\[")
    return text, note


def render_content(pages: tuple) -> tuple:
    """Content pages (load/content.py) with their Markdown bodies rendered."""
    return tuple(
        replace(page, html=render_markdown(page.body), description=page.description or plain_lead(page.body))
        for page in pages
    )


def render_markdown(text: str) -> Markup:
    """A trusted content page (still with raw HTML escaped)."""
    text, note = _bounded(text)
    tokens = _MD.parse(text + note)
    _demote_headings(tokens, top=2)
    return Markup(_MD.renderer.render(tokens, _MD.options, {}))


def plain_lead(text: str, limit: int = 300) -> str:
    """The first sentence of the first paragraph of ``text``, as plain text (a page's description)."""
    tokens = _MD.parse(_bounded(text)[0])
    for index, token in enumerate(tokens):
        if token.type == "paragraph_open" and index + 1 < len(tokens) and tokens[index + 1].type == "inline":
            parts = []
            for child in tokens[index + 1].children or ():
                if child.type in ("text", "code_inline"):
                    parts.append(child.content)
                elif child.type in ("softbreak", "hardbreak"):
                    parts.append(" ")
            plain = " ".join("".join(parts).split())
            if plain:
                sentence = re.split(r"(?<=[.!?])\s", plain, maxsplit=1)[0]
                return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"
    return ""


def render_report(text: str, redact: Callable[[str], str]) -> Markup:
    """A run's report.md without its secret-bearing parts, every text redacted (render/reportmd.py)."""
    text, note = _bounded(withhold(text))
    return Markup(reportmd.render(text + note, redact))


def _demote_headings(tokens: list, top: int) -> None:
    """Renumber headings to sit under the page's own: the first becomes h<top>, and each one
    is at most one level below the heading before it, so no level is ever skipped (a content
    page's "##" under its h1 becomes h2; "#" then "###" becomes h<top>, h<top+1>). Levels are
    capped at h6. (render/reportmd.py numbers a report's headings the same way.)"""
    open_levels: list[int] = []  # source levels of the headings enclosing this point
    for token in tokens:
        if token.type == "heading_open":
            level = int(token.tag[1])
            while open_levels and open_levels[-1] >= level:
                open_levels.pop()
            open_levels.append(level)
            token.tag = f"h{min(top + len(open_levels) - 1, 6)}"
        elif token.type == "heading_close":
            token.tag = f"h{min(top + len(open_levels) - 1, 6)}"
