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

import re
from collections.abc import Sequence
from pathlib import Path

from podium.load.content import MAX_CHARS
from podium.load.files import read_file
from podium.model import RunRecord
from podium.safety.safe import record_texts
from podium.safety.withhold import WITHHELD

_DROPPED = bytes(b for b in range(256) if not (48 <= b <= 57 or 65 <= b <= 90 or 97 <= b <= 122))
# A report whose texts the skeleton does not hold (module docstring): a link, image or reference (``](``,
# ``][``, a definition's ``]:``), an entity, an autolink (the start of one: a scheme or an e-mail address), punycode.
_READ_WHOLE = re.compile(rb"\]\(|\]\[|\]:|&|<[A-Za-z][A-Za-z0-9+.-]*:|<[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@|[xX][nN]--")
# A report's bytes past which the renderer may cut it and add its note (at least as many bytes as characters, and
# the withheld sections' notes added: safety/withhold.py).
_MOST = MAX_CHARS - 1024
_JSON_ESCAPE = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|.)", re.S)
_SIMPLE_ESCAPE = re.compile(rb"\\.", re.S)


def skeleton(text: str) -> str:
    """The ASCII letters and digits of ``text``, in order."""
    return text.encode("utf-8", "surrogatepass").translate(None, _DROPPED).decode("ascii")


def _bytes_skeleton(data: bytes) -> str:
    return data.translate(None, _DROPPED).decode("ascii")


def _notes() -> str:
    """Every note safety/withhold.py puts in place of withheld sections, as one skeleton."""
    sections = [section.capitalize() for section, _ in WITHHELD]
    names = sections + [" and ".join(sections)]
    return "".join(skeleton(f"Withheld here: {name}, which hold submitted values.") for name in names)


NOTES = _notes()


def json_skeleton(data: bytes) -> str:
    """A JSON file's skeleton with its escapes decoded (``\\u0041`` is an ``A``; ``\\n`` no letter at all)."""
    if b"\\" in data:
        if b"\\u" in data:
            data = _JSON_ESCAPE.sub(lambda m: _escaped(m.group(1)), data)
        else:
            data = _SIMPLE_ESCAPE.sub(b" ", data)
    return _bytes_skeleton(data)


def _escaped(code: bytes | None) -> bytes:
    value = int(code, 16) if code else 0
    return bytes([value]) if code and 48 <= value < 128 else b" "


def run_skeleton(roots: Sequence[Path], record: RunRecord, result_limit: int, report_limit: int) -> str | None:
    """The skeleton of everything ``record``'s page hands its redactor (module docstring); None when its report
    is one whose texts a skeleton may not hold (they are read then)."""
    parts = [skeleton(name) for name in record_texts(record)]
    result = _read(roots[record.source], f"{record.directory}/result.json", result_limit)
    if result is not None:
        parts.append(json_skeleton(result))
    if record.report_file is not None:
        report = _read(roots[record.source], record.report_file, report_limit)
        if report is not None:
            seen = report_skeleton(report)
            if seen is None:
                return None
            parts.append(seen)
    return "".join(parts)


def report_skeleton(data: bytes) -> str | None:
    """The skeleton of a report.md's texts as its page hands them to the redactor, podium's notes included; None
    for a report whose texts a skeleton may not hold (module docstring)."""
    if len(data) > _MOST or _READ_WHOLE.search(data):
        return None
    return _bytes_skeleton(data) + NOTES


def _read(root: Path, rel: str, limit: int) -> bytes | None:
    data = read_file(root / rel, rel, limit)
    return data if isinstance(data, bytes) else None
