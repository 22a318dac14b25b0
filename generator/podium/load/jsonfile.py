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

import codecs
import json
import math
import re
from dataclasses import replace

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



_SPACE = re.compile(r"[ \t\n\r]*")
CHUNK = 1 << 20  # characters decoded at a time
MAX_ITEM = 16 << 20  # one element of a streamed array may not be larger


class _Text:
    """A window on a file's text, read a chunk at a time; positions are kept for error messages."""

    def __init__(self, handle, path: str, problems: list[Problem]):
        self.handle, self.path, self.problems = handle, path, problems
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.text, self.pos, self.eof, self.offset = "", 0, False, 0
        self.lines = 0  # newlines in the text already dropped
        self.dropped = 0  # characters already dropped
        self.last_newline = -1  # absolute index of the last dropped newline
        self.failed = False

    def more(self) -> bool:
        if self.eof:
            return False
        data = self.handle.read(CHUNK)
        if self.offset == 0 and data.startswith(BOM):
            data = data[len(BOM):]
        try:
            text = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError as err:
            where = f"byte 0x{data[err.start]:02x} at offset {self.offset + err.start}" if data else "at the end"
            self.problems.append(Problem(self.path, "", f"not UTF-8: {where}"))
            self.eof = self.failed = True
            return False
        self.offset += len(data)
        if not data:
            self.eof = True
        drop = self.text[:self.pos]
        if "\n" in drop:
            self.lines += drop.count("\n")
            self.last_newline = self.dropped + drop.rfind("\n")
        self.dropped += self.pos
        self.text, self.pos = self.text[self.pos:] + text, 0
        return bool(data) or bool(text)

    def skip_space(self) -> bool:
        """Past white space; False at the end of the file."""
        while True:
            self.pos = _SPACE.match(self.text, self.pos).end()
            if self.pos < len(self.text):
                return True
            if not self.more():
                return self.pos < len(self.text)

    def where(self, pos: int) -> str:
        line = self.lines + self.text.count("\n", 0, pos) + 1
        last = self.text.rfind("\n", 0, pos)
        column = pos - last if last >= 0 else self.dropped + pos - self.last_newline
        return f"line {line} column {column}"

    def broken(self, pos: int, message: str) -> None:
        self.failed = True
        self.problems.append(Problem(self.path, "", f"invalid JSON at {self.where(pos)}: {message}"))


def iter_json_array(handle, path: str, problems: list[Problem], outcome: dict | None = None):
    """The elements of the JSON array in the binary file ``handle``, one at a time, under the same strict
    rules as :func:`parse_json`; each element's unusable values are reported with ``[index]`` paths.

    For the sidecars, which grow with the history (runs.json holds ~1.3 KB per run): neither the file
    nor its parsed value is ever held whole. A document that is not an array is parsed whole and
    yielded once, wrapped in :class:`NotAnArray`. A break in the file is a problem that says where,
    after the elements before it were yielded, and ``outcome["broken"]`` is set."""
    parse = _Parse()
    scanner = json.JSONDecoder(object_pairs_hook=parse.pairs, parse_constant=parse.constant,
                               parse_float=parse.float_, parse_int=parse.int_)
    text = _Text(handle, path, problems)
    try:
        yield from _elements(text, scanner, parse, path, problems)
    finally:
        if outcome is not None:
            outcome["broken"] = text.failed


def _elements(text: _Text, scanner, parse: _Parse, path: str, problems: list[Problem]):
    if not text.skip_space():
        if not text.failed:
            text.failed = True
            problems.append(Problem(path, "", "file is empty"))
        return
    if text.text[text.pos] != "[":
        while text.more():
            if len(text.text) > MAX_ITEM:
                text.failed = True
                problems.append(Problem(path, "", "expected a JSON array"))
                return
        value, found = parse_json(text.text[text.pos:].encode("utf-8", "surrogatepass"), path)
        problems.extend(found)
        text.failed = value is None
        if value is not None:
            yield NotAnArray(value)
        return
    text.pos += 1
    index = 0
    while True:
        if not text.skip_space():
            text.broken(text.pos, "the array is not closed")
            return
        if index == 0 and text.text[text.pos] == "]":
            break
        while True:
            try:
                value, end = scanner.raw_decode(text.text, text.pos)
            except json.JSONDecodeError as err:
                if len(text.text) - text.pos > MAX_ITEM:
                    text.broken(text.pos, f"element [{index}] is over {MAX_ITEM >> 20} MiB")
                    return
                at = text.dropped + err.pos  # the window moves when more is read
                if not text.more():
                    text.broken(at - text.dropped, err.msg)
                    return
                continue
            except RecursionError:
                text.broken(text.pos, f"element [{index}] is nested too deeply to read")
                return
            if end < len(text.text) or not text.more():  # a number at the end of the window may go on
                break
        text.pos = end
        if parse.flagged:
            problems.extend(replace(p, field=f"[{index}]" + (f".{p.field}" if p.field else ""))
                            for p in _report_unusable(value, path))
            parse.flagged = False
        if value is None:
            value = Unusable("null")
        yield value
        index += 1
        if not text.skip_space():
            text.broken(text.pos, "the array is not closed")
            return
        mark = text.text[text.pos]
        if mark == "]":
            break
        if mark != ",":
            text.broken(text.pos, "Expecting ',' delimiter")
            return
        text.pos += 1
    text.pos += 1
    if text.skip_space():
        text.broken(text.pos, "Extra data")


class NotAnArray:
    """A whole document that was not the array expected (its reader reports the shape it found)."""

    __slots__ = ("value",)

    def __init__(self, value: object):
        self.value = value
