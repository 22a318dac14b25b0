"""Typed access to parsed JSON, reporting every bad field as a Problem.

A :class:`Fields` reads one file. Each getter returns the value, or None when
the field is absent, null or unusable; mistyped and out-of-range values are
reported (naming the file and the JSON path) before None is returned.
Strings are cleaned: lone surrogates and control characters become U+FFFD,
so nothing downstream can crash on them, and the change is reported.
"""

from __future__ import annotations

import math
import re

from podium.load.jsonfile import Unusable
from podium.model import Problem

_MISSING = object()
# Names, ids and versions: no line breaks (U+2028/9 included), and no invisible
# bidi controls or zero-width characters that could make one name pass for another.
_CONTROL_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_CONTROL_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def describe(value: object) -> str:
    """A short, safe description of a bad value for a message."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value[:40] + ("…" if len(value) > 40 else ""))
    return {dict: "an object", list: "an array", type(None): "null"}.get(type(value), type(value).__name__)


class Fields:
    """Getters for one file's JSON; problems go to the shared list."""

    def __init__(self, path: str, problems: list[Problem]):
        self.path = path
        self.problems = problems

    def report(self, field: str, message: str) -> None:
        self.problems.append(Problem(self.path, field, message))

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

    def number(self, obj: dict, key: str, field: str, *, lo: float | None = None, hi: float | None = None,
               required: bool = False) -> float | None:
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

    def string(self, obj: dict, key: str, field: str, *, line: bool = True, required: bool = False,
               limit: int = 512) -> str | None:
        """A string; ``line`` ones (names, ids, versions) may not hold line breaks."""
        value = self._raw(obj, key)
        if self._absent(value, field, required, "a string"):
            return None
        if not isinstance(value, str):
            self.report(field, f"expected a string, got {describe(value)}")
            return None
        return self.clean(value, field, line=line, limit=limit)

    def clean(self, value: str, field: str, *, line: bool = True, limit: int = 512) -> str:
        cleaned = _SURROGATE.sub("\ufffd", value)
        cleaned = (_CONTROL_LINE if line else _CONTROL_TEXT).sub("\ufffd", cleaned)
        if cleaned != value:
            self.report(field, "holds control characters or lone surrogates; shown as \ufffd")
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
