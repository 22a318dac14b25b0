"""Typed access to parsed JSON, reporting every bad field as a Problem.

A :class:`Fields` reads one file. Each getter returns the value, or None when
the field is absent, null or unusable; mistyped and out-of-range values are
reported (naming the file and the JSON path) before None is returned.
Strings are cleaned: lone surrogates, control characters and noncharacters become
U+FFFD, so nothing downstream can crash on them or write invalid XML, and the change
is reported (with the code points); names, ids and versions also lose every invisible
character (:func:`clean_name`).
"""

from __future__ import annotations

import math
import re
import unicodedata

from podium.load.jsonfile import Unusable
from podium.model import Problem

_MISSING = object()
# Noncharacters (U+FDD0-U+FDEF and the last two code points of every plane): not allowed
# in XML (feed.xml, badges), never meaningful in any text.
_NONCHARACTERS = "\ufdd0-\ufdef" + "".join(f"{chr(p * 0x10000 + 0xFFFE)}{chr(p * 0x10000 + 0xFFFF)}" for p in range(17))
_CONTROL_TEXT = re.compile(f"[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f{_NONCHARACTERS}]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# Names, ids and versions: no line breaks, and nothing invisible that could make one name pass
# for another ("osprey" and "os\u2060prey"): every character of the Unicode categories Cc
# (controls), Cf (format: bidi controls, zero-width and joiners, soft hyphen, tags), Cs, Co
# (private use) and Cn (unassigned in Python's Unicode database, noncharacters included),
# separators other than the space (Zl, Zp, and Zs spaces such as U+00A0 that pass for
# U+0020), and the invisible letters and marks: U+034F, U+115F/U+1160, U+17B4/U+17B5,
# U+180B-U+180F, U+2800, U+3164, U+FFA0, variation selectors.
_INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u2800\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)
_NOT_IN_NAMES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})


# Unicode's format characters (category Cf) in Python 3.11's database (Unicode 14.0): invisible, and so
# removed from a text's reader view (tests/safety/test_redact_view.py checks the list against unicodedata).
_CF_RANGES = (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891),
    (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)  # fmt: skip
FORMAT_CHARACTERS = "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in _CF_RANGES)  # a class's body
_FORMAT = re.compile(f"[{FORMAT_CHARACTERS}]")
_DROP_FORMAT = {code: None for a, b in _CF_RANGES for code in range(a, b + 1)}  # (str.translate: removed)


def drop_format(text: str) -> str:
    """``text`` without its format characters (Cf: zero-width spaces and joiners, soft hyphens, bidi
    controls), which a reader does not see: a secret they split reads whole, and a bidi override shows
    text in another order than it holds (docs/rules/export.md, "never published")."""
    return text.translate(_DROP_FORMAT) if _FORMAT.search(text) else text


def _name_character(ch: str) -> bool:
    """May ``ch`` stand in a name, an id or a version?"""
    if " " <= ch <= "~":
        return True
    return ch not in _INVISIBLE and unicodedata.category(ch) not in _NOT_IN_NAMES


def clean_name(value: str) -> tuple[str, list[str]]:
    """``value`` with every character a name may not hold (see above) as U+FFFD, and those characters."""
    if value.isascii() and value.isprintable():
        return value, []
    bad = [ch for ch in value if not _name_character(ch)]
    if not bad:
        return value, []
    return "".join(ch if _name_character(ch) else "\ufffd" for ch in value), bad


def code_points(chars: list[str], most: int = 5) -> str:
    """``U+2060, U+00AD`` for the distinct characters, in order of appearance."""
    seen = list(dict.fromkeys(chars))
    text = ", ".join(f"U+{ord(ch):04X}" for ch in seen[:most])
    return text + (", …" if len(seen) > most else "")


def describe(value: object) -> str:
    """A short, safe description of a bad value for a message."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value[:40] + ("…" if len(value) > 40 else ""))
    return {dict: "an object", list: "an array", type(None): "null"}.get(type(value), type(value).__name__)


MAX_PROBLEMS = 100  # problems a result.json may add (its elements may each be wrong: 4 MiB hold 300,000)


class Fields:
    """Getters for one file's JSON; problems go to the shared list (with ``most``, no more than that many,
    then one saying the rest are not listed: a problem is a few hundred bytes, a bad value a few)."""

    def __init__(self, path: str, problems: list[Problem], most: int | None = None):
        self.path = path
        self.problems = problems
        self.most = most
        self.reported = 0

    def report(self, field: str, message: str) -> None:
        self.reported += 1
        if self.most is None or self.reported <= self.most:
            self.problems.append(Problem(self.path, field, message))
        elif self.reported == self.most + 1:
            self.problems.append(Problem(self.path, "", f"has more than {self.most} problems; the rest are not listed"))

    def _raw(self, obj: dict, key: str):
        return obj.get(key, _MISSING) if isinstance(obj, dict) else _MISSING

    def _absent(self, value, field: str, required: bool, expected: str) -> bool:
        """True when there is no value to use; reports a missing or null required field."""
        if isinstance(value, Unusable):
            return True  # already reported by the parser
        if value is _MISSING or value is None:
            if required:
                self.report(field, f"{'missing' if value is _MISSING else 'is null'}; expected {expected}")
            return True
        return False

    def present(self, obj: dict, key: str) -> bool:
        return isinstance(obj, dict) and key in obj

    def number(
        self,
        obj: dict,
        key: str,
        field: str,
        *,
        lo: float | None = None,
        hi: float | None = None,
        required: bool = False,
    ) -> float | None:
        value = self._raw(obj, key)
        if self._absent(value, field, required, "a number"):
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            self.report(field, f"expected a number, got {describe(value)}")
            return None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            self.report(field, f"expected a number in [{lo:g}, {hi:g}], got {describe(value)}")
            return None
        return float(value)

    def integer_text(self, obj: dict, key: str, field: str) -> str | None:
        """A counter such as install_revision or agent_version, as text ("3")."""
        value = self._raw(obj, key)
        if self._absent(value, field, False, ""):
            return None
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return str(value)
        if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 18:
            return str(int(value))
        self.report(field, f"expected a whole number, got {describe(value)}")
        return None

    def string(
        self, obj: dict, key: str, field: str, *, line: bool = True, required: bool = False, limit: int = 512
    ) -> str | None:
        """A string; ``line`` ones (names, ids, versions) may not hold line breaks."""
        value = self._raw(obj, key)
        if self._absent(value, field, required, "a string"):
            return None
        if not isinstance(value, str):
            self.report(field, f"expected a string, got {describe(value)}")
            return None
        return self.clean(value, field, line=line, limit=limit)

    def clean(self, value: str, field: str, *, line: bool = True, limit: int = 512) -> str:
        if line:
            cleaned, bad = clean_name(value)
        else:
            bad = _SURROGATE.findall(value) + _CONTROL_TEXT.findall(value)
            cleaned = _CONTROL_TEXT.sub("\ufffd", _SURROGATE.sub("\ufffd", value)) if bad else value
            unseen = _FORMAT.findall(cleaned)
            if unseen:  # free text: a reader does not see them (drop_format)
                cleaned = drop_format(cleaned)
                self.report(field, f"holds invisible format characters; removed ({code_points(unseen)})")
        if bad:
            self.report(field, f"holds control characters or lone surrogates; shown as \ufffd ({code_points(bad)})")
        if len(cleaned) > limit:
            self.report(field, f"is {len(cleaned)} characters long; cut to {limit}")
            cleaned = cleaned[:limit] + "…"
        return cleaned

    def boolean(self, obj: dict, key: str, field: str) -> bool | None:
        value = self._raw(obj, key)
        if self._absent(value, field, False, ""):
            return None
        if not isinstance(value, bool):
            self.report(field, f"expected true or false, got {describe(value)}")
            return None
        return value

    def mapping(self, obj: dict, key: str, field: str, *, required: bool = False) -> dict | None:
        value = self._raw(obj, key)
        if self._absent(value, field, required, "an object"):
            return None
        if not isinstance(value, dict):
            self.report(field, f"expected an object, got {describe(value)}")
            return None
        return value

    def array(self, obj: dict, key: str, field: str) -> list | None:
        value = self._raw(obj, key)
        if self._absent(value, field, False, ""):
            return None
        if not isinstance(value, list):
            self.report(field, f"expected an array, got {describe(value)}")
            return None
        return value

    def strings(self, obj: dict, key: str, field: str, *, limit: int = 200) -> tuple[str, ...]:
        """An array of strings (model names, artifact names); bad items are reported and skipped."""
        items = self.array(obj, key, field) or []
        out = []
        for index, item in enumerate(items[:limit]):
            if isinstance(item, str):
                out.append(self.clean(item, f"{field}[{index}]"))
            elif not isinstance(item, Unusable):
                self.report(f"{field}[{index}]", f"expected a string, got {describe(item)}")
        return tuple(out)
