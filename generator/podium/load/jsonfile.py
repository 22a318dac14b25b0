"""Strict JSON: bytes in, a value and the problems out. Never raises on bad input.

Python's ``json`` accepts NaN, Infinity, 1e999, duplicate keys and lone
surrogates, and raises RecursionError on deep nesting. Here:

- a UTF-8 BOM is accepted and dropped; other non-UTF-8 bytes are refused with
  their offset;
- NaN / Infinity / numbers that overflow a float / integers longer than 18
  digits become :class:`Unusable` values, and each is reported with its JSON path;
- duplicate keys are reported with their path; the value of that key is
  :class:`Unusable` (neither copy is trusted);
- nesting deeper than the parser allows is a problem, not a crash.

Lone surrogates in strings are left to :mod:`podium.load.fields`, which
cleans every string it reads.
"""

from __future__ import annotations

import json
import math
import re

from podium.model import Problem

BOM = b"\xef\xbb\xbf"
MAX_INT_DIGITS = 18
_UNSAFE_KEY = re.compile(r"[\ud800-\udfff\x00-\x1f\x7f-\x9f]")


class Unusable:
    """A JSON value podium refuses to use (already reported as a problem)."""

    __slots__ = ("why",)

    def __init__(self, why: str):
        self.why = why

    def __repr__(self) -> str:
        return f"Unusable({self.why!r})"


class _Parse:
    """One parse: collects whether anything needs reporting."""

    def __init__(self) -> None:
        self.flagged = False

    def pairs(self, pairs: list) -> dict:
        obj = dict(pairs)
        if len(obj) == len(pairs):
            return obj
        self.flagged = True
        seen: set[str] = set()
        dups: list[str] = []
        for key, _ in pairs:
            if key in seen and key not in dups:
                dups.append(key)
            seen.add(key)
        for key in dups:
            obj[key] = Unusable(f"duplicate key {key!r}")
        return obj

    def constant(self, name: str) -> Unusable:
        self.flagged = True
        return Unusable(f"{name} is not a JSON number")

    def float_(self, text: str) -> float | Unusable:
        value = float(text)
        if math.isfinite(value):
            return value
        self.flagged = True
        return Unusable(f"{text} overflows a 64-bit float")

    def int_(self, text: str) -> int | Unusable:
        if len(text.lstrip("-")) > MAX_INT_DIGITS:
            self.flagged = True
            return Unusable(f"integer with {len(text.lstrip('-'))} digits is too large")
        return int(text)


def parse_json(data: bytes, path: str) -> tuple[object | None, list[Problem]]:
    """Parse ``data`` (the bytes of ``path``); on failure the value is None."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        bad = data[err.start]
        return None, [Problem(path, "", f"not UTF-8: byte 0x{bad:02x} at offset {err.start}")]
    if not text.strip():
        return None, [Problem(path, "", "file is empty")]
    parse = _Parse()
    try:
        value = json.loads(
            text,
            object_pairs_hook=parse.pairs,
            parse_constant=parse.constant,
            parse_float=parse.float_,
            parse_int=parse.int_,
        )
    except json.JSONDecodeError as err:
        return None, [Problem(path, "", f"invalid JSON at line {err.lineno} column {err.colno}: {err.msg}")]
    except RecursionError:
        return None, [Problem(path, "", "JSON is nested too deeply to read")]
    if value is None:  # a document of just `null` is as unusable as a broken one, and must say so
        return None, [Problem(path, "", "the top level is null; nothing to read")]
    problems = _report_unusable(value, path) if parse.flagged else []
    return value, problems


def _safe_key(key: str) -> str:
    """A key as it may appear in a field path: no lone surrogates or control characters, capped."""
    cleaned = _UNSAFE_KEY.sub("\ufffd", key)
    return cleaned if len(cleaned) <= 200 else cleaned[:200] + "…"


def _report_unusable(value: object, path: str) -> list[Problem]:
    """Walk the parsed value (iteratively) and name every Unusable by its JSON path."""
    problems = []
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, Unusable):
            problems.append(Problem(path, where, node.why))
        elif isinstance(node, dict):
            for key, child in node.items():
                key = _safe_key(key)
                stack.append((f"{where}.{key}" if where else key, child))
        elif isinstance(node, list):
            for index, child in enumerate(node):
                stack.append((f"{where}[{index}]", child))
    return sorted(problems)
