"""Run reports to safe HTML on pulldown-cmark (the ``pyromark`` binding): the fast report renderer.

pulldown-cmark parses (CommonMark, GFM tables and ``~~strikethrough~~``) and hands over a flat
stream of events; :func:`render` turns them into the HTML markdown-it-py's ``js-default``
renderer writes for the same text (render/markdown.py keeps that engine for content pages),
with the same guarantees, in one loop without recursion:

- **No raw HTML.** markdown-it-py with ``html`` off reads ``<div>`` as text. pulldown-cmark
  has no such switch, so before parsing every ``<`` that could open a tag, comment,
  declaration or processing instruction becomes a stand-in symbol absent from the text (a
  punctuation character, like ``<``, so emphasis is delimited the same); it is written back
  as ``&lt;`` in every text. So there are no HTML blocks (which could swallow headings) and no
  inline HTML; any that still come (a ``<`` just after ``(`` or ``]:``, kept for link
  destinations, or every ``<`` of a report holding all the stand-ins) are escaped text, and an
  HTML block with a line naming a withheld section starts that section.
- **No unsafe links.** Every link, image and autolink destination is normalised and checked
  by markdown-it-py's own ``normalizeLink``/``validateLink`` (``javascript:``, ``vbscript:``,
  ``file:``, ``data:`` other than images are refused); a refused one is shown as the text it
  was written as. A link definition with a refused destination is escaped before parsing so
  that, as in markdown-it-py, it is text and cannot be referenced.
- **Images are links** (``[image: alt]``, no remote requests); links get ``rel``.
- **Withheld parts** (the second layer behind safety/withhold.py): everything under an h1/h2
  heading titled ``Artifacts`` (any element opened there is dropped whole, with what it
  holds), and every ``Value`` column of a table under ``Deterministic checks``.
- **Redaction** of every text, code, destination, title and code-block language, a run of
  text at a time across its line breaks (a secret split over lines is caught), all texts of
  a report passed to the redactor in one call (:meth:`podium.safety.redact.Redactor.many`);
  then each block's text as a reader sees it, whole (its runs and code spans joined across
  the emphasis, strike-through, code and link tags between them), the cuts mapped back onto
  its pieces (:func:`_redact_blocks`).
- **Headings** moved under the page's own, as render/markdown.py's ``_demote_headings`` does.
- **Bounded**: elements nested deeper than :data:`MAX_DEPTH` are not written as elements
  (their text still is); the caller caps the input size and escapes ``[`` floods.

tests/render/test_reportmd.py compares the output with markdown-it-py's on the real sample reports
and lists every construct rendered differently.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import markdown_it
import pyromark
from markdown_it.common.normalize_url import normalizeLink, normalizeLinkText, validateLink
from markdown_it.common.utils import MD_TRIM_RE, escapeHtml, mdTrim, unescapeAll

from podium.safety.redact import apply_cuts

DROPPED_SECTIONS = {"artifacts"}
CHECKS_SECTION = "deterministic checks"
HIDDEN_COLUMN = "value"
MAX_DEPTH = 64
REL = "nofollow noopener noreferrer"

# What the output depends on besides podium's own code (a cached report's key, render/report.py).
ENGINE = f"pyromark {pyromark.__version__}, markdown-it-py {markdown_it.__version__}"
_PARSER = pyromark.Markdown(options=pyromark.Options.ENABLE_TABLES | pyromark.Options.ENABLE_STRIKETHROUGH)

# Stand-ins for "<" and a lone "~" (Unicode symbols, so punctuation to the parser as they are),
# the first one absent from the text.
_LT_STANDINS = ("\u27e1", "\u2bd1", "\u2e3a", "\u27e2", "\u2bd2")
_TILDE_STANDINS = ("\u2053", "\u2bd3", "\u2e3b", "\u27e3", "\u2bd4")
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
_AUTOLINK = re.compile(
    r"<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\x00-\x20<>]*"
    r"|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>"
)
_LONE_TILDE = re.compile(r"(?<!~)~(?!~)")
_SURROGATES = re.compile("[\ud800-\udfff]")
_LINE_START = re.compile(r"\n[ \t>]*")
# What may follow the word on such a line (any non-ASCII byte: it may be white space).
_NOTHING_ELSE = re.compile(rb"[\s#\x80-\xff]*$")
_CHECKS_ELSE = re.compile(rb"[\s\x80-\xff]+checks[\s#\x80-\xff]*$")
_UNDERLINE = re.compile(r"[\s>]*(?:=+|-+)[ \t]*$")


class _Tail:
    """A stack entry for a refused link or image: the text written at its end."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


_ALT = object()  # stack entry of an image being written as a link: its end closes the alt text
_HARD = object()  # a hard line break inside a run of text


def _odd_backslashes(text: str, index: int) -> bool:
    count = 0
    while index > 0 and text[index - 1] == "\\":
        count += 1
        index -= 1
    return count % 2 == 1


def _standin(text: str, choices: tuple[str, ...]) -> str | None:
    return next((c for c in choices if c not in text), None)


def prepare(text: str) -> tuple[str, dict[str, str]]:
    """The text as pulldown-cmark is given it, and the stand-ins to write back (module docstring)."""
    back: dict[str, str] = {}
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")  # as CommonMark (and markdown-it-py) do
    if "<" in text and (lt := _standin(text, _LT_STANDINS)) is not None:

        def tag(match: re.Match) -> str:
            at = match.start()
            before = at
            while before > 0 and text[before - 1] in " \t":
                before -= 1
            if (
                _odd_backslashes(text, at)
                or _AUTOLINK.match(text, at)
                or text[before - 1 : before] == "("
                or text[before - 2 : before] == "]:"
            ):
                return "<"
            return lt

        replaced = _TAG_START.sub(tag, text)
        if replaced != text:
            back[lt] = "<"
            text = replaced
    if "~" in text and (tilde := _standin(text, _TILDE_STANDINS)) is not None:
        replaced = _LONE_TILDE.sub(lambda m: "~" if _odd_backslashes(text, m.start()) else tilde, text)
        if replaced != text:
            back[tilde] = "~"
            text = replaced
    if "]:" in text:
        text = _escape_refused_definitions(text, back)
    return text, back


def _restore(text: str, back: dict[str, str]) -> str:
    for standin, char in back.items():
        if standin in text:
            text = text.replace(standin, char)
    return text


def _escape_refused_definitions(text: str, back: dict[str, str]) -> str:
    """Escape the ``[`` of every link definition whose destination would be refused, so that it
    is paragraph text (as markdown-it-py reads it) and nothing can link to it."""
    starts = [
        d["span"]["start"]
        for d in _PARSER.reference_definitions(text).values()
        if not validateLink(normalizeLink(_restore(d["dest"], back)))
    ]
    if not starts:
        return text
    data = text.encode("utf-8", "surrogatepass")
    cuts = [0, *sorted(starts), len(data)]  # one join (a copy per definition was quadratic in their number)
    return b"\\".join(data[a:b] for a, b in zip(cuts, cuts[1:])).decode("utf-8", "surrogatepass")


def _href(url: str) -> str | None:
    """The destination as markdown-it-py normalises it, or None when it would refuse it."""
    url = normalizeLink(url)
    return url if validateLink(url) else None


def _plain(events: list, start: int, end: object) -> tuple[str, int]:
    """The plain text of events[start:] up to the first ``{"End": end}`` (lower-cased, runs of
    white space as one space), and the index of that End."""
    parts = []
    index = start
    stop = {"End": end}
    while index < len(events):
        event = events[index]
        if event.__class__ is dict:
            if event == stop:
                break
            if "Text" in event:
                parts.append(event["Text"])
            elif "Code" in event:
                parts.append(event["Code"])
            elif "InlineHtml" in event:
                parts.append(event["InlineHtml"])
        else:
            parts.append(" ")
        index += 1
    return " ".join("".join(parts).split()).lower(), index


def _raw(events: list, start: int, key: str, end: object) -> tuple[str, int]:
    """The ``key`` payloads of events[start:] joined, up to the first ``{"End": end}``, and its index."""
    parts = []
    index = start
    stop = {"End": end}
    while index < len(events) and events[index] != stop:
        event = events[index]
        if event.__class__ is dict and key in event:
            parts.append(event[key])
        index += 1
    return "".join(parts), index


def _hidden_columns(events: list, start: int) -> set[int]:
    """The indices of the header cells titled ``Value`` of the table starting at events[start]."""
    hidden = set()
    column = -1
    index = start + 1
    while index < len(events) and events[index] != {"End": "TableHead"}:
        if events[index] == {"Start": "TableCell"}:
            column += 1
            title, index = _plain(events, index + 1, "TableCell")
            if title == HIDDEN_COLUMN:
                hidden.add(column)
        index += 1
    return hidden


def _own_text(events: list, start: int) -> str:
    """The text of the paragraph, heading or list item whose Start is events[start - 1], a
    newline for each line break, up to its end or its first block."""
    parts = []
    index = start
    while True:
        event = events[index]
        if event.__class__ is str:
            if event == "Rule":
                break
            parts.append("\n")
        elif event is None:
            break
        else:
            ((kind, value),) = event.items()
            if kind == "Text" or kind == "Code" or kind == "InlineHtml":
                parts.append(value)
            elif (value if value.__class__ is str else next(iter(value))) not in _INLINE:
                break
        index += 1
    return "".join(parts)


def _may_name_section(source: str) -> bool:
    """Whether a line of ``source`` could be a heading naming a withheld or the checks section
    to markdown-it-py (which compares its title lower-cased: of the non-ASCII characters, only
    the Kelvin sign becomes an ASCII letter then). Without one, no text can (_named_sections)."""
    data = source.encode("utf-8", "surrogatepass")
    if b"\xe2\x84\xaa" in data:
        data = data.replace(b"\xe2\x84\xaa", b"k")
    lower = data.lower()
    for word, rest in ((b"artifacts", _NOTHING_ELSE), (b"deterministic", _CHECKS_ELSE)):
        at = lower.find(word)
        while at >= 0:
            end = lower.find(b"\n", at)
            end = len(lower) if end < 0 else end
            if rest.match(lower, at + len(word), end):  # (a quick look before the exact one)
                title = _heading_title(lower[lower.rfind(b"\n", 0, at) + 1 : end].decode("utf-8", "replace"))
                if title in DROPPED_SECTIONS or title == CHECKS_SECTION:
                    return True
            at = lower.find(word, end)
    return False


def _named_sections(text: str) -> set[str]:
    """The withheld or checks sections a line of ``text`` names as a heading would: a line that
    is the last one or is underlined (a setext heading markdown-it-py may see where
    pulldown-cmark sees paragraph text, after a link definition or in a lazy line)."""
    lower = text.lower()
    if "artifacts" not in lower and CHECKS_SECTION.split()[0] not in lower:
        return set()
    named = set()
    lines = lower.splitlines()
    for number, line in enumerate(lines):
        title = _heading_title(line)
        if (title in DROPPED_SECTIONS or title == CHECKS_SECTION) and (
            number + 1 == len(lines) or _UNDERLINE.match(lines[number + 1])
        ):
            named.add(title)
    return named


def _without_closing_hashes(title: str) -> str:
    """``re.sub("(?: #+)+$", "", title)`` in linear time: every `` #`` run the title ends with, each after a
    space (that pattern retried every run from each start: quadratic on `` # # …x#``)."""
    end = len(title)
    while True:
        start = end
        while start > 0 and title[start - 1] == "#":
            start -= 1
        if start == end or start == 0 or title[start - 1] != " ":
            return title[:end]
        end = start - 1


def _heading_title(line: str) -> str:
    """A line without container and list markers, heading #s before and after, and runs of
    white space (string methods only: linear time on any line)."""
    title = line.strip().lstrip(">*+-.)0123456789 \t").lstrip("#").strip()
    bare = title.rstrip("#")
    if bare != title and (not bare or bare[-1] in " \t"):
        title = bare
    return " ".join(title.split())


def _html_sections(html: str) -> set[str]:
    """The withheld or checks sections a line of an HTML block names as a heading would (there
    are none unless every stand-in character is in the report: prepare())."""
    titles = {_heading_title(line.lower()) for line in html.splitlines()}
    return titles & (DROPPED_SECTIONS | {CHECKS_SECTION})


class _Sources:
    """The source text around a refused link's content (as markdown-it-py shows it, as text)."""

    def __init__(self, source: str, events: list):
        self.data = source.encode("utf-8", "surrogatepass")
        self.ranges = [r for _, r in _PARSER.events_with_range(source, merge_text=True)]
        self.ends: dict[int, int] = {}  # the index of each Start's End
        if len(self.ranges) != len(events) - 1:  # (never seen: then the link is written from its parts)
            self.ranges.clear()
            return
        starts = []
        for index, event in enumerate(events):
            if event.__class__ is dict:
                if "Start" in event:
                    starts.append(index)
                elif "End" in event and starts:
                    self.ends[starts.pop()] = index

    def around(self, start: int) -> tuple[str, str] | None:
        """The text before and after the content of the link whose Start is events[start] (None: not known)."""
        end = self.ends.get(start)
        if not self.ranges or end is None:
            return None
        whole = self.ranges[start]
        if end == start + 1:  # no content
            return self._text(whole["start"], whole["end"]), ""
        return (
            self._text(whole["start"], self.ranges[start + 1]["start"]),
            self._text(self.ranges[end - 1]["end"], whole["end"]),
        )

    def _text(self, start: int, end: int) -> str:
        text = self.data[start:end].decode("utf-8", "replace")
        if "\n" in text:  # a later line's container markers are not part of it
            text = _LINE_START.sub("\n", text)
        return unescapeAll(text)  # entities and escapes read, as in text


def _refused(sources: _Sources, start: int, tag: str, data: dict, dest: str, back: dict[str, str]) -> tuple[str, str]:
    """A refused link's or image's source text before and after its content (whose Start is events[start]):
    as the source has it, else made again from the event (:func:`_tail`)."""
    around = sources.around(start)
    if around is None:
        title = _restore(data["title"], back) if back else data["title"]
        link_type = data["link_type"]
        head = ("!" if tag == "Image" else "") + ("<" if link_type in ("Autolink", "Email") else "[")
        around = head, _tail(link_type, dest, title, data["id"])
    head, tail = around
    return (_restore(head, back), _restore(tail, back)) if back else (head, tail)


def _tail(link_type: str, dest: str, title: str, label: str) -> str:
    """How a refused link or image is written after its content."""
    if link_type in ("Autolink", "Email"):
        return ">"
    if link_type == "Inline":
        return "](" + dest + (f' "{title}"' if title else "") + ")"
    if link_type == "Reference":
        return "][" + label + "]"
    if link_type == "Collapsed":
        return "][]"
    return "]"


_INLINE = frozenset(("Emphasis", "Strong", "Strikethrough", "Link", "Image", "Superscript", "Subscript"))
_LI_CLOSE = "</li>\n"
_START_CELL = {"Start": "TableCell"}
_END_CELL = {"End": "TableCell"}
_END_ROW = {"End": "TableRow"}
_END_HEAD = {"End": "TableHead"}
_END_PARAGRAPH = {"End": "Paragraph"}


def _redact_blocks(red: list[str], inline: list[tuple[int, int]], redact: Callable[[str], str]) -> None:
    """Redact each block's text as a reader sees it, whole: the texts of a block (the runs of one
    paragraph, heading or cell between its inline elements, already redacted one by one) joined, so
    that ``Answ3r **One**!x7`` or ``sk-live-abcdefghij*klmnop*1234`` is found across the tags that
    split it; each cut is mapped back onto the texts it covers (the replacement in the one where
    it starts, the rest of the cut removed), so the markup around it stays."""
    blocks = _blocks(inline)
    if not blocks:
        return
    joined = ["".join(red[n] for n in numbers) for numbers in blocks]
    many = getattr(redact, "many", None)
    again = many(joined) if many is not None else [redact(t) for t in joined]
    cuts_of = getattr(redact, "cuts", None)
    for numbers, before, after in zip(blocks, joined, again):
        if before == after:
            continue
        cuts = cuts_of(before) if cuts_of is not None else None
        if cuts is None or apply_cuts(before, cuts) != after:  # (a redactor that cannot say where): the whole
            red[numbers[0]] = after  # block's text in its first place
            for n in numbers[1:]:
                red[n] = ""
            continue
        bounds, start = [], 0
        for n in numbers:
            bounds.append((start, start + len(red[n])))
            start += len(red[n])
        for n, piece in zip(numbers, _cut_pieces(before, bounds, cuts)):
            red[n] = piece


def _blocks(inline: list[tuple[int, int]]) -> list[list[int]]:
    """The numbers of the texts of each block that has more than one (``inline``: each text's block, in order)."""
    blocks: list[list[int]] = []
    last = None
    for number, where in inline:
        if where == last:
            blocks[-1].append(number)
        else:
            blocks.append([number])
            last = where
    return [numbers for numbers in blocks if len(numbers) > 1]


def _cut_pieces(text: str, bounds: list[tuple[int, int]], cuts: list[tuple[int, int, str]]) -> list[str]:
    """Each piece text[start:end] of ``bounds`` (in order, adjoining) with the cuts made in it: a cut's
    replacement where the cut starts, the part of a cut begun before the piece removed. One pass over the
    pieces and the cuts together (each cut is met by the pieces it covers only: issue 34, 15)."""
    out = []
    first = 0  # the first cut that may still reach into a piece
    for start, end in bounds:
        while first < len(cuts) and cuts[first][1] <= start:
            first += 1
        pieces, at = [], start
        number = first
        while number < len(cuts) and cuts[number][0] < end:
            cut_start, cut_end, replacement = cuts[number]
            if cut_end > start:
                if cut_start > at:
                    pieces.append(text[at:cut_start])
                if cut_start >= start:
                    pieces.append(replacement)
                at = max(at, min(cut_end, end))
            number += 1
        pieces.append(text[at:end])
        out.append("".join(pieces))
    return out


def render(text: str, redact: Callable[[str], str], top: int = 2) -> str:
    """``text`` (already cut by safety/withhold.py and bounded) as safe HTML (module docstring): parsed
    (:func:`_parse`), written with a place for each text (:func:`_write`, which asks :func:`_heading_section`,
    :func:`_block_section` and :func:`_html_section` which section a block opens), the texts redacted and
    escaped into their places (:func:`_assemble`)."""
    source, back, events = _parse(text)
    out, texts, inline, hard_runs = _write(source, back, events, top)
    return _assemble(out, texts, inline, hard_runs, redact)


def texts_to_redact(text: str, top: int = 2) -> list[str]:
    """What :func:`render` hands its redactor, before any of it is redacted: every text, then each block's
    texts joined (:func:`_redact_blocks` joins them once redacted one by one). What the build cache reads to
    tell which answers a report holds (cache/found.py)."""
    source, back, events = _parse(text)
    _, texts, inline, _ = _write(source, back, events, top)
    return texts + ["".join(texts[n] for n in numbers) for numbers in _blocks(inline)]


def _parse(text: str) -> tuple[str, dict[str, str], list]:
    """``text`` with its stand-ins (:func:`prepare`) and pulldown-cmark's events over it, ending in None
    (so that looking one event ahead never runs off the end)."""
    try:
        source, back = prepare(text)
        events = list(_PARSER.events(source))
    except UnicodeEncodeError:  # a lone surrogate (a decoded file has none): the replacement character
        source, back = prepare(_SURROGATES.sub("\ufffd", text))
        events = list(_PARSER.events(source))
    events.append(None)
    return source, back, events


_SHOW, _HIDE, _DROP = 0, 1, 2  # a block whose text may name a section: written; dropped; a withheld section begins


def _heading_section(events: list, index: int, level: str) -> str | None:
    """The section an H1 or H2 heading (its text from ``events[index]``) opens; None when its title may be a
    table to markdown-it-py (then the section goes on)."""
    following = events[index]
    if following.__class__ is dict and "Text" in following and "End" in events[index + 1]:
        title = " ".join(following["Text"].split()).lower()  # the common case: one text
    else:
        title, _ = _plain(events, index, {"Heading": level})
    if title.endswith("#"):
        title = _without_closing_hashes(title)  # pulldown-cmark keeps "\t##" as text
    return title if "|" not in title else None


def _block_section(events: list, index: int, section: str) -> tuple[str, int]:
    """The section in force after a paragraph, item or heading whose own text (from ``events[index]``) may
    name one (a heading to markdown-it-py, maybe), and what becomes of the block: _SHOW; _HIDE (table rows of
    the checks section, maybe); _DROP (a withheld section begins: dropped from here on)."""
    following = events[index]
    if following.__class__ is dict and "Text" in following and "End" in events[index + 1]:
        said = following["Text"]  # the common case: one text
    else:
        said = _own_text(events, index)
    if said:
        named = _named_sections(said)
        if named & DROPPED_SECTIONS:
            return min(named & DROPPED_SECTIONS), _DROP
        if CHECKS_SECTION in named:
            section = CHECKS_SECTION
        if section == CHECKS_SECTION and "|" in said:
            return section, _HIDE
    return section, _SHOW


def _html_section(html: str, section: str) -> tuple[str, int]:
    """The same for an HTML block (``html``: its text), which markdown-it-py may read as a heading or as table
    rows: _HIDE in the checks section."""
    named = _html_sections(html)
    if named & DROPPED_SECTIONS:
        return min(named & DROPPED_SECTIONS), _DROP
    if CHECKS_SECTION in named:
        section = CHECKS_SECTION
    return section, _HIDE if section == CHECKS_SECTION else _SHOW


def _code_block(events: list, index: int, data: object, back: dict[str, str]) -> tuple[str, str, int]:
    """A code block whose text starts at ``events[index]``: its code and language (as markdown-it-py reads the
    info string: "" for none), both restored, and the index after its End."""
    code, end = _raw(events, index, "Text", "CodeBlock")
    if data == "Indented" and code and not code.endswith("\n"):  # at the very end
        code += "\n"
    lang = ""
    if isinstance(data, dict):
        info = mdTrim(_restore(data["Fenced"], back) if back else data["Fenced"])
        if info:
            lang = MD_TRIM_RE.split(info, maxsplit=1)[0]
    return (_restore(code, back) if back else code), lang, end + 1


def _header_cells(alignments: list[str]) -> list[str]:
    """A table's header cell tags, by column (a column's alignment as a style)."""
    return ["<th>" if a == "None" else f'<th style="text-align:{a.lower()}">' for a in alignments]


def _cell_tags(cells: list[str], kind: str) -> tuple[list[str], list[str], list[str]]:
    """A table part's cell tags by column, as ``kind`` ("th" or "td"; ``cells``: the header's): each opening tag,
    that cell around one text (a NUL where it goes), and that cell empty."""
    opening = cells if kind == "th" else [c.replace("<th", "<td", 1) for c in cells]
    return opening, [c + f"\0</{kind}>\n" for c in opening], [c + f"</{kind}>\n" for c in opening]


def _heading_level(levels: list[int], level: int, top: int) -> int:
    """The HTML level of a visible heading of source ``level`` (``levels``: the source levels of the visible
    headings enclosing it, updated): ``top`` for the outermost, one more per enclosing heading, at most 6."""
    while levels and levels[-1] >= level:
        levels.pop()
    levels.append(level)
    return min(top + len(levels) - 1, 6)


def _write(source: str, back: dict[str, str], events: list, top: int) -> tuple[list, list, list, dict]:
    """The writer: the HTML of ``events`` with a NUL where each text (to redact and escape) goes, those texts
    in order, the (text, block) pairs of the texts a block may have several of, and the runs of lines between
    hard breaks by text number."""
    may_name = _may_name_section(source)
    out: list = []  # the HTML, with a NUL where each text (to redact and escape) goes
    texts: list[str] = []  # those texts, in order
    hard_runs: dict[int, list[str]] = {}  # slot number -> its run's lines between hard breaks
    inline: list[tuple[int, int]] = []  # (slot number, its block) of the texts a block may have several of
    block = 0  # the number of the block (paragraph, heading, cell, item's own text, alt text) being written
    run: list = []  # the current run of text: strings, _HARD for a hard break
    stack: list = []  # per open element: its closing tag ("" if not written), None (a table), _Tail, _ALT
    hidden = 0  # depth inside a dropped element (0: visible)
    dropping = False  # inside a withheld section
    section = ""
    hidden_columns: set[int] = set()
    column = -1
    cells: list[str] = []  # each column's cell tag in the current table part ("<td>" or with a style)
    text_cells: list[str] = []  # and that cell around one text
    empty_cells: list[str] = []  # and that cell empty
    body_open = False
    alt = False  # inside the alt text of an image written as a link
    alt_slots = 0
    levels: list[int] = []  # source levels of the visible headings enclosing this point
    lf_if_block = False  # a <li> or <blockquote> was just written: "\n" if a block comes next
    after_inline = False  # the last thing written was inline content
    sources = None  # where each event is in the source, found when a link is refused
    target = ""  # the href of the link or image being opened
    emit = out.append
    keep = texts.append

    def slot(value: str) -> None:
        keep(value)
        emit("\0")

    def flush() -> None:
        if len(run) == 1 and run[0] is not _HARD:
            keep(run[0])
        elif _HARD in run:
            lines = "".join("\0" if piece is _HARD else piece for piece in run).split("\0")
            hard_runs[len(texts)] = lines
            keep("\n".join(lines))
        else:
            keep("".join(run))
        emit("\0")
        run.clear()
        inline.append((len(texts) - 1, block))

    index = 0
    count = len(events) - 1
    while index < count:
        event = events[index]
        index += 1
        if event.__class__ is str:  # SoftBreak, HardBreak, Rule
            if hidden or dropping:
                continue
            if event == "SoftBreak":
                run.append("\n")
            elif event == "HardBreak":
                run.append("\n" if alt else _HARD)
            else:
                if run:
                    flush()
                block += 1
                if lf_if_block or (after_inline and stack and stack[-1] == _LI_CLOSE):
                    emit("\n")
                emit("<hr>\n")
                lf_if_block = after_inline = False
            continue
        value = event.get("Text")
        if value is not None:
            if hidden or dropping:
                continue
            run.append(_restore(value, back) if back else value)
            lf_if_block = False
            after_inline = True
            continue
        value = event.get("Start")
        if value is not None:
            if (
                (value == "TableRow" or value == "TableHead")
                and not hidden
                and not dropping
                and len(stack) < MAX_DEPTH - 1
            ):
                # the common case first: a row of cells of plain text, written at once
                column = -1
                if value == "TableHead":
                    emit("<thead>\n<tr>\n")
                    stack.append("</tr>\n</thead>\n")
                    row_end = _END_HEAD
                else:
                    if not body_open:
                        emit("<tbody>\n")
                        body_open = True
                        cells, text_cells, empty_cells = _cell_tags(cells, "td")
                    emit("<tr>\n")
                    stack.append("</tr>\n")
                    row_end = _END_ROW
                last = len(cells) - 1
                while True:
                    event = events[index]
                    if event == _START_CELL and column < last and column + 1 not in hidden_columns:
                        following = events[index + 1]
                        if following.__class__ is dict and "Text" in following and events[index + 2] == _END_CELL:
                            column += 1
                            emit(text_cells[column])
                            keep(_restore(following["Text"], back) if back else following["Text"])
                            index += 3
                            continue
                        if following == _END_CELL:
                            column += 1
                            emit(empty_cells[column])
                            index += 2
                            continue
                    elif event == row_end:
                        emit(stack.pop())
                        index += 1
                    break  # anything else: the general way, from this event on
                continue
            if value == "TableCell" and not hidden and not dropping:
                column += 1
                block += 1
                if column in hidden_columns:
                    hidden += 1
                elif len(stack) >= MAX_DEPTH:
                    stack.append("")
                else:
                    cell = cells[column] if column < len(cells) else "<td>"
                    emit(cell)
                    stack.append("</th>\n" if cell[2] == "h" else "</td>\n")
                continue
            if value.__class__ is dict:
                ((tag, data),) = value.items()
            else:
                tag, data = value, None
            if tag == "Heading" and data["level"] in ("H1", "H2"):
                title = _heading_section(events, index, data["level"])
                if title is not None:
                    section = title
                    dropping = section in DROPPED_SECTIONS
            if hidden or dropping:
                hidden += 1
                continue
            if (tag == "Paragraph" or tag == "Item" or tag == "Heading") and (may_name or section == CHECKS_SECTION):
                section, fate = _block_section(events, index, section)
                if fate:
                    dropping = dropping or fate == _DROP
                    hidden += 1
                    continue
            if tag == "Link" or tag == "Image":
                link_type = data["link_type"]
                dest = _restore(data["dest_url"], back) if back else data["dest_url"]
                href = _href("mailto:" + dest if link_type == "Email" else dest)
                if href is None:  # written as the text it was, its content rendered as usual
                    if sources is None:
                        sources = _Sources(source, events)
                    head, tail = _refused(sources, index - 1, tag, data, dest, back)
                    run.append(head)
                    stack.append(_Tail(tail))
                    lf_if_block = False
                    after_inline = True
                    continue
                target = href
            if run:
                flush()
            if tag not in _INLINE or tag == "Image":  # (an image's alt text is a block of its own)
                block += 1
            if tag in _INLINE:
                lf_if_block = False
                after_inline = True
                if tag == "Link" and link_type in ("Autolink", "Email"):  # its text as markdown-it-py shows it
                    following = events[index]
                    if following.__class__ is dict and "Text" in following:
                        events[index] = {"Text": normalizeLinkText(following["Text"])}
                if alt or len(stack) >= MAX_DEPTH:
                    stack.append("")
                elif tag == "Link":
                    emit('<a href="')
                    slot(target)
                    if data["title"]:
                        emit('" title="')
                        slot(_restore(data["title"], back) if back else data["title"])
                    emit(f'" rel="{REL}">')
                    stack.append("</a>")
                elif tag == "Image":
                    emit('<a href="')
                    slot(target)
                    emit(f'" rel="{REL}">[image: ')
                    alt = True
                    alt_slots = len(texts)
                    stack.append(_ALT)
                elif tag == "Emphasis":
                    emit("<em>")
                    stack.append("</em>")
                elif tag == "Strong":
                    emit("<strong>")
                    stack.append("</strong>")
                elif tag == "Strikethrough":
                    emit("<s>")
                    stack.append("</s>")
                else:
                    stack.append("")
                continue
            if tag == "HtmlBlock":
                html, end = _raw(events, index, "Html", "HtmlBlock")
                index = end + 1
                section, fate = _html_section(html, section)
                if fate:
                    dropping = dropping or fate == _DROP
                    continue
            if lf_if_block or (after_inline and tag != "CodeBlock" and stack and stack[-1] == _LI_CLOSE):
                emit("\n")
            lf_if_block = after_inline = False
            if tag == "CodeBlock":
                code, lang, index = _code_block(events, index, data, back)
                if lang:
                    emit('<pre><code class="language-')
                    slot(lang)
                    emit('">')
                else:
                    emit("<pre><code>")
                slot(code)
                emit("</code></pre>\n")
                continue
            if tag == "HtmlBlock":  # escaped, as the paragraph markdown-it-py would see
                emit("<p>")
                slot((_restore(html, back) if back else html).rstrip("\n"))
                emit("</p>\n")
                continue
            if len(stack) >= MAX_DEPTH:
                stack.append("")
            elif tag == "Paragraph":
                following = events[index]
                if following.__class__ is dict and "Text" in following and events[index + 1] == _END_PARAGRAPH:
                    emit("<p>\0</p>\n")  # the common case: one text
                    keep(_restore(following["Text"], back) if back else following["Text"])
                    index += 2
                    continue
                emit("<p>")
                stack.append("</p>\n")
            elif tag == "TableRow":  # (at the maximum depth: not written)
                column = -1
                stack.append("")
            elif tag == "Item":
                emit("<li>")
                stack.append(_LI_CLOSE)
                lf_if_block = True
            elif tag == "Heading":
                h = _heading_level(levels, int(data["level"][1]), top)
                following = events[index]
                if (
                    following.__class__ is dict
                    and "Text" in following
                    and events[index + 1] == {"End": {"Heading": data["level"]}}
                ):
                    emit(f"<h{h}>\0</h{h}>\n")  # the common case: one text
                    keep(_restore(following["Text"], back) if back else following["Text"])
                    index += 2
                    continue
                emit(f"<h{h}>")
                stack.append(f"</h{h}>\n")
            elif tag == "List":
                if data is None:
                    emit("<ul>\n")
                    stack.append("</ul>\n")
                else:
                    emit("<ol>\n" if data == 1 else f'<ol start="{data}">\n')
                    stack.append("</ol>\n")
            elif tag == "BlockQuote":
                emit("<blockquote>")
                stack.append("</blockquote>\n")
                lf_if_block = True
            elif tag == "TableHead":  # (at the maximum depth: not written)
                column = -1
                stack.append("")
            elif tag == "Table":
                body_open = False
                cells, text_cells, empty_cells = _cell_tags(_header_cells(data), "th")
                hidden_columns = _hidden_columns(events, index - 1) if section == CHECKS_SECTION else set()
                emit("<table>\n")
                stack.append(None)
            else:  # not enabled: footnotes, definition lists, metadata blocks
                stack.append("")
            continue
        value = event.get("End")
        if value is not None:
            if hidden:
                hidden -= 1
                continue
            entry = stack.pop()
            if entry.__class__ is _Tail:  # a refused link's text goes on in the run
                run.append(entry.text)
                after_inline = True
                continue
            if run:
                flush()
            name = value if value.__class__ is str else next(iter(value))
            if name not in _INLINE or name == "Image":
                block += 1
            lf_if_block = False
            if entry.__class__ is str:
                if entry:
                    if entry.startswith("</tr>") and out[-1].endswith("<tr>\n"):
                        out[-1] = out[-1][:-1]  # a row whose every cell was dropped: "<tr></tr>"
                    emit(entry)
                    after_inline = entry[-1] != "\n"
                else:
                    after_inline = name in _INLINE
            elif entry is None:
                if body_open:
                    emit("</tbody>\n")
                emit("</table>\n")
                after_inline = False
            else:  # _ALT
                if len(texts) == alt_slots:
                    emit("image")
                emit("]</a>")
                alt = False
                after_inline = True
            continue
        value = event.get("Code")
        if value is not None:
            if hidden or dropping:
                continue
            if run:
                flush()
            lf_if_block = False
            after_inline = True
            if not alt:
                emit("<code>")
            slot(_restore(value, back) if back else value)
            inline.append((len(texts) - 1, block))
            if not alt:
                emit("</code>")
            continue
        value = event.get("InlineHtml")
        if value is not None and not hidden and not dropping:  # escaped text, as markdown-it-py shows it
            run.append(_restore(value, back) if back else value)
            lf_if_block = False
            after_inline = True
        # anything else (footnotes, math, task list markers: not enabled) is not written
    if run:
        flush()
    return out, texts, inline, hard_runs


def _assemble(
    out: list,
    texts: list[str],
    inline: list[tuple[int, int]],
    hard_runs: dict[int, list[str]],
    redact: Callable[[str], str],
) -> str:
    """The HTML ``out`` (as :func:`_write` gives it) with each text redacted and escaped in its place."""
    many = getattr(redact, "many", None)
    red = many(texts) if many is not None else [redact(t) for t in texts]
    if len(inline) > 1:
        _redact_blocks(red, inline, redact)
    escaped = escapeHtml("\0".join(red)).split("\0")
    if len(escaped) != len(red):  # a text with a NUL (none expected): one at a time
        escaped = [escapeHtml(t) for t in red]
    for number, lines in hard_runs.items():  # unchanged by the redactor: the line breaks come back
        if red[number] == texts[number]:
            escaped[number] = "<br>\n".join(escapeHtml(line) for line in lines)
    parts = "".join(out).split("\0")  # the HTML written has no NUL but these
    if len(parts) != len(escaped) + 1:
        raise AssertionError("report renderer: texts and places differ in number")
    html = [""] * (2 * len(parts) - 1)
    html[0::2] = parts
    html[1::2] = escaped
    return "".join(html)
