"""Markdown to safe HTML: content pages and run reports.

markdown-it-py's ``js-default`` preset: raw HTML is escaped, tables on, link
schemes validated (``javascript:``, ``vbscript:``, ``file:``, ``data:`` other
than images are refused). On top of it: images become plain links (no remote
requests), links get ``rel="nofollow noopener noreferrer"``, headings move one
level down so a page keeps one ``<h1>``, and time is bounded (input cap, and
``[`` runs that would make the parser slow are escaped).

For reports (xorcise-export.md "What a public site must never show") the
secret-bearing sections are cut line by line before parsing (render/withhold.py
states the contract), then, as a second layer, anything still under an
``Artifacts`` heading and the ``Value`` column of a checks table are dropped from
the parsed tokens; every text is passed through the redactor, a run of text at a
time across its line breaks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markupsafe import Markup
from podium.render.withhold import withhold

MAX_CHARS = 64 * 1024
MAX_BRACKETS = 2000
DROPPED_SECTIONS = {"artifacts"}
CHECKS_SECTION = "deterministic checks"
HIDDEN_COLUMN = "value"
_REL = "nofollow noopener noreferrer"


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
    return tuple(replace(page, html=render_markdown(page.body), description=page.description or plain_lead(page.body))
                 for page in pages)


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
    """A run's report.md without its secret-bearing parts, every text redacted."""
    text, note = _bounded(withhold(text))
    tokens = _strip_secrets(_MD.parse(text + note))
    _demote_headings(tokens, top=2)
    for token in tokens:
        _redact_token(token, redact)
    return Markup(_MD.renderer.render(tokens, _MD.options, {}))


def _strip_secrets(tokens: list) -> list:
    """Drop the Artifacts section and the Value column of the checks table."""
    out = []
    section = ""
    hidden_cell = None  # column index to drop in the current table
    cell = -1
    skipping_cell = False
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag in ("h1", "h2"):
            title = tokens[index + 1].content if index + 1 < len(tokens) else ""
            section = title.strip().lower()
        if section in DROPPED_SECTIONS:
            continue
        if token.type == "table_open":
            hidden_cell = _column_index(tokens, index, HIDDEN_COLUMN) if section == CHECKS_SECTION else None
        elif token.type == "tr_open":
            cell = -1
        elif token.type in ("th_open", "td_open"):
            cell += 1
            skipping_cell = cell == hidden_cell
        if skipping_cell:
            if token.type in ("th_close", "td_close"):
                skipping_cell = False
            continue
        out.append(token)
    return out


def _column_index(tokens: list, start: int, name: str) -> int | None:
    """The index of the header cell called ``name`` in the table opening at ``start``."""
    cell = -1
    for index in range(start, len(tokens)):
        token = tokens[index]
        if token.type == "th_open":
            cell += 1
            if tokens[index + 1].content.strip().lower() == name:
                return cell
        elif token.type in ("thead_close", "table_close"):
            return None
    return None


def _demote_headings(tokens: list, top: int) -> None:
    """Renumber headings to sit under the page's own: the first becomes h<top>, and each one
    is at most one level below the heading before it, so no level is ever skipped (a content
    page's "##" under its h1 becomes h2; "#" then "###" becomes h<top>, h<top+1>). Levels are
    capped at h6."""
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


def _redact_token(token, redact: Callable[[str], str]) -> None:
    if token.type in ("text", "code_inline", "code_block", "fence", "html_inline", "html_block"):
        token.content = redact(token.content)
    for attr in ("href", "src"):
        if token.attrGet(attr):
            token.attrSet(attr, redact(token.attrGet(attr)))
    if token.children:
        token.children = _redact_lines(token.children, redact)
    for child in token.children or []:
        if child.type != "text":  # text runs were redacted whole by _redact_lines
            _redact_token(child, redact)


_LINE_TOKENS = ("text", "softbreak", "hardbreak")


def _redact_lines(children: list, redact: Callable[[str], str]) -> list:
    """Redact each run of text across its line breaks, so a secret written over
    several lines (a PEM key in a paragraph) is matched whole, not line by line.
    A run the redactor changes becomes one text token (its breaks kept as newlines)."""
    out: list = []
    index = 0
    while index < len(children):
        if children[index].type not in _LINE_TOKENS:
            out.append(children[index])
            index += 1
            continue
        end = index
        while end < len(children) and children[end].type in _LINE_TOKENS:
            end += 1
        run = children[index:end]
        text = "".join(t.content if t.type == "text" else "\n" for t in run)
        redacted = redact(text)
        if redacted == text:
            out.extend(run)
        else:
            first = next((t for t in run if t.type == "text"), run[0])
            first.type, first.tag, first.content, first.children = "text", "", redacted, None
            out.append(first)
        index = end
    return out
