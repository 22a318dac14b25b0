"""The report renderer podium had before render/reportmd.py: markdown-it-py's token stream,
withheld parts dropped, every text redacted. Kept verbatim as the reference the new renderer
is compared with (tests/render/test_reportmd.py, benchmarks/reports.py); not used to build sites.
"""

from __future__ import annotations

from collections.abc import Callable

from markupsafe import Markup

from podium.load.content import bounded
from podium.render.markdown import _MD, _demote_headings
from podium.safety.withhold import withhold

DROPPED_SECTIONS = {"artifacts"}
CHECKS_SECTION = "deterministic checks"
HIDDEN_COLUMN = "value"


def render_report(text: str, redact: Callable[[str], str]) -> Markup:
    """A run's report.md without its secret-bearing parts, every text redacted."""
    text, note = bounded(withhold(text))
    return render_cut(text + note, redact)


def render_cut(text: str, redact: Callable[[str], str]) -> Markup:
    """The same, for a text already cut and bounded (what render/reportmd.render takes)."""
    tokens = _strip_secrets(_MD.parse(text))
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
