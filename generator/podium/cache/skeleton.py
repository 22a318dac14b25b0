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
import json
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
# A line that may be a level-1 or -2 heading (safety/withhold.py ``heading_name`` decides).
_HEADING = re.compile(r"^ {0,3}#", re.M)


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


def run_skeleton(roots: Sequence[Path], record: RunRecord, result_limit: int, report_limit: int) -> str | None:
    """The skeleton of everything ``record``'s page hands its redactor (module docstring); None when one of its
    files is one whose texts a skeleton may not hold (they are read then)."""
    parts = [skeleton(name) for name in record_texts(record)]
    result = _read(roots[record.source], f"{record.directory}/result.json", result_limit)
    if result is not None:
        seen = result_skeleton(result)
        if seen is None:
            return None
        parts.append(seen)
    if record.report_file is not None:
        report = _read(roots[record.source], record.report_file, report_limit)
        if report is not None:
            seen = report_skeleton(report)
            if seen is None:
                return None
            parts.append(seen)
    return "".join(parts)


def result_skeleton(data: bytes) -> str | None:
    """The skeleton of every string of a result.json (keys too) but the checks' submitted values (a ``value``:
    never shown, load/result.py reads it only to redact), as JSON decodes them; None when it does not decode
    (the loader may still read what json does not)."""
    strings: list[str] = []

    def pairs(items: list[tuple[str, object]]) -> None:
        for key, value in items:
            strings.append(key)
            if isinstance(value, str):
                if key != "value":
                    strings.append(value)
            elif isinstance(value, list):
                _strings_in(value, strings)

    try:
        top = json.loads(data.removeprefix(b"\xef\xbb\xbf").decode("utf-8"), object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return None
    if isinstance(top, (str, list)):
        _strings_in([top], strings)
    return skeleton("\0".join(strings))


def _strings_in(items: list, strings: list[str]) -> None:
    """The strings of ``items`` and of the lists in them (a mapping's are its pairs')."""
    for item in items:
        if isinstance(item, str):
            strings.append(item)
        elif isinstance(item, list):
            _strings_in(item, strings)


def report_skeleton(data: bytes) -> str | None:
    """The skeleton of a report.md's texts as its page hands them to the redactor: its bytes but the withheld
    sections, and podium's notes; None for a report whose texts a skeleton may not hold (module docstring)."""
    if (
        len(data) > _MOST
        or (b"]" in data and _LINKS.search(data))
        or b"&" in data
        or (b"<" in data and _AUTOLINK.search(data))
        or (b"--" in data and _PUNYCODE.search(data))
    ):
        return None
    if b"#" in data:
        data = _without_withheld(data)
    return data.translate(None, _DROPPED).decode("ascii") + NOTES


def _without_withheld(data: bytes) -> bytes:
    """The report without the sections safety/withhold.py cuts (``withheld_ranges``, on the lines that may be
    headings only: the others name no section)."""
    # as the renderer reads it (render/report.py), with withhold's line breaks
    text = drop_format(data.decode("utf-8", "replace")).replace("\r\n", "\n").replace("\r", "\n")
    starts = [m.start() for m in _HEADING.finditer(text)]
    if not starts:
        return data
    lines = [text[at : text.find("\n", at) if text.find("\n", at) >= 0 else len(text)] for at in starts]
    ranges = withheld_ranges(lines)
    if not ranges:
        return data
    ends = [*starts, len(text)]  # a range's end (exclusive) is the next heading line's start, or the end
    cut = sorted((starts[a], ends[b]) for a, b, _ in ranges)
    kept, at = [], 0
    for start, end in cut:
        kept.append(text[at:start])
        at = max(at, end)
    kept.append(text[at:])
    return "".join(kept).encode("utf-8", "surrogatepass")


def _read(root: Path, rel: str, limit: int) -> bytes | None:
    data = read_file(root / rel, rel, limit)
    return data if isinstance(data, bytes) else None
