"""A run's texts at a glance, from its files' bytes: what cache/found.py reads first, to leave a run's texts unread
when none of a batch's new answers can occur in them.

The skeleton of a text is its ASCII letters and digits, in order (every other character dropped): one C pass
over a file's bytes (``bytes.translate``). If a spelling of an answer occurs in a text the run's page hands its
redactor, the spelling's skeleton occurs in the run's skeleton (:func:`run_skeleton`: its result.json's, its
report's, its record's names and podium's own notes, one after the other), because between a text and the bytes
it is read from only characters that are neither letters nor digits are dropped or put in:

- the report renderer (render/reportmd.py) drops markup (emphasis, code, strike-through, heading and list marks,
  table pipes, block quotes, backslash escapes), joins lines and runs across it, puts stand-ins for ``<`` and
  ``~`` and U+FFFD for NUL; the report is read as UTF-8 with U+FFFD for bad bytes, without format characters
  (multi-byte characters are not in a skeleton at all); a withheld section becomes podium's note
  (safety/withhold.py, :data:`NOTES`);
- the loader (load/fields.py ``Fields.clean``) puts U+FFFD for control characters and lone surrogates, drops
  format characters and cuts a long text with ``…``; a JSON escape is decoded here before (a ``\\n`` is not an
  ``n``);
- the reader view (``as_read``) folds white space and drops format characters.

What else could put letters or digits between a text's pieces or into a text is refused: a report with a link
or image (its destination, title or label sits between the link's text and what follows; a destination is
percent-encoded), a character entity (``&#108;`` is an ``l``), an autolink (its text is percent-decoded,
its host's punycode decoded), ``xn--`` anywhere, or past the renderer's size bound (a note with numbers is
added): such a run's texts are read (:func:`run_skeleton` gives None). tests/cache/test_found.py holds the claim
against hostile reports and result.json files.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from pathlib import Path

from podium.load.content import MAX_CHARS
from podium.load.fields import drop_format
from podium.load.files import read_file
from podium.model import RunRecord
from podium.safety.safe import record_texts
from podium.safety.withhold import WITHHELD, withheld_ranges

_DROPPED = bytes(b for b in range(256) if not (48 <= b <= 57 or 65 <= b <= 90 or 97 <= b <= 122))
# A report whose texts the skeleton does not hold (module docstring): a link, image or reference (``](``,
# ``][``, a definition's ``]:``), an entity, an autolink (the start of one: a scheme or an e-mail address), punycode.
# Each is looked for only when the byte it needs is there (most reports hold none of them).
_LINKS = re.compile(rb"\]\(|\]\[|\]:")
_AUTOLINK = re.compile(rb"<(?:[A-Za-z][A-Za-z0-9+.-]*:|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@)")
_PUNYCODE = re.compile(rb"(?i)xn--")
# A report's bytes past which the renderer may cut it and add its note (at least as many bytes as characters, and
# the withheld sections' notes added: safety/withhold.py).
_MOST = MAX_CHARS - 1024
_CHECK_VALUE = re.compile(rb'"value"\s*:\s*"(?:[^"\\]|\\.)*"', re.S)
_JSON_ESCAPE = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|.)", re.S)
_SIMPLE_ESCAPE = re.compile(rb"\\.", re.S)
# A line that may be a level-1 or -2 heading (safety/withhold.py ``heading_name`` decides).
_HEADING = re.compile(rb"^[ \x80-\xff]*#", re.M)


def skeleton(text: str) -> str:
    """The ASCII letters and digits of ``text``, in order."""
    return text.encode("utf-8", "surrogatepass").translate(None, _DROPPED).decode("ascii")


def _notes() -> str:
    """Every note safety/withhold.py puts in place of withheld sections, as one skeleton."""
    sections = [section.capitalize() for section, _ in WITHHELD]
    names = [  # the sections of one cut run, in the report's order: any of them, in any order
        " and ".join(some) for size in range(1, len(sections) + 1) for some in itertools.permutations(sections, size)
    ]
    return "".join(skeleton(f"Withheld here: {name}, which hold submitted values.") for name in names)


NOTES = _notes()


def run_skeleton(
    roots: Sequence[Path], record: RunRecord, result_limit: int, report_limit: int, cut: bool = True
) -> str | None:
    """The skeleton of everything ``record``'s page hands its redactor (module docstring); None when one of its
    files is one whose texts a skeleton may not hold (they are read then). ``cut``: without the report's withheld
    sections (which hold the run's own submitted values); else with them (more than its texts: a cheaper glance
    for answers not its own)."""
    parts = [skeleton(name) for name in record_texts(record)]
    result = _read(roots[record.source], f"{record.directory}/result.json", result_limit)
    if result is not None:
        parts.append(result_skeleton(result))
    if record.report_file is not None:
        report = _read(roots[record.source], record.report_file, report_limit)
        if report is not None:
            seen = report_skeleton(report, cut)
            if seen is None:
                return None
            parts.append(seen)
    return "".join(parts)


def result_skeleton(data: bytes) -> str:
    """The skeleton of every string of a result.json (keys too) but the checks' submitted values (a ``value``:
    never shown, load/result.py reads it only to redact), its escapes decoded (``\\u0041`` is an ``A``; ``\\n``
    no letter at all). On its bytes: a ``"value": "…"`` is a key's string and its own (every ``"`` in a string is
    escaped), or a string ending in ``\\"value`` (then a key the loader does not read either)."""
    if b'"value"' in data:
        data = _CHECK_VALUE.sub(b" ", data)
    if b"\\" in data:
        if b"\\u" in data:
            data = _JSON_ESCAPE.sub(lambda m: _escaped(m.group(1)), data)
        else:
            data = _SIMPLE_ESCAPE.sub(b" ", data)
    return data.translate(None, _DROPPED).decode("ascii")


def _escaped(code: bytes | None) -> bytes:
    value = int(code, 16) if code else 0
    return bytes([value]) if code and 48 <= value < 128 else b" "


def report_skeleton(data: bytes, cut: bool = True) -> str | None:
    """The skeleton of a report.md's texts as its page hands them to the redactor: its bytes but the withheld
    sections (with ``cut``), and podium's notes; None for a report whose texts a skeleton may not hold (module
    docstring)."""
    if (
        len(data) > _MOST
        or (b"]" in data and _LINKS.search(data))
        or b"&" in data
        or (b"<" in data and _AUTOLINK.search(data))
        or ((b"n--" in data or b"N--" in data) and _PUNYCODE.search(data))
    ):
        return None
    if cut and b"#" in data:
        data = _without_withheld(data)
    return data.translate(None, _DROPPED).decode("ascii") + NOTES


def _without_withheld(data: bytes) -> bytes:
    """The report without the sections safety/withhold.py cuts: its ranges (``withheld_ranges``) on the lines that
    may be headings, each read as the renderer reads the report (render/report.py: UTF-8, without format
    characters; withhold's line breaks). A line that is none, not even once its format characters are dropped,
    names no section; every other line is among them (its first bytes but spaces and non-ASCII ones a ``#``)."""
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    starts = [m.start() for m in _HEADING.finditer(data)]
    lines = []
    for at in starts:
        end = data.find(b"\n", at)
        lines.append(drop_format(data[at : end if end >= 0 else len(data)].decode("utf-8", "replace")))
    ranges = withheld_ranges(lines)
    if not ranges:
        return data
    ends = [*starts, len(data)]  # a range's end (exclusive) is the next such line's start, or the end
    kept, at = [], 0
    for start, end in sorted((starts[a], ends[b]) for a, b, _ in ranges):
        kept.append(data[at:start])
        at = max(at, end)
    kept.append(data[at:])
    return b"".join(kept)


def _read(root: Path, rel: str, limit: int) -> bytes | None:
    data = read_file(root / rel, rel, limit)
    return data if isinstance(data, bytes) else None
