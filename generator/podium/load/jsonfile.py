"""Strict JSON: bytes in, a value and the problems out. Never raises on bad input.

Python's ``json`` accepts NaN, Infinity, 1e999, duplicate keys and lone
surrogates, and raises RecursionError on deep nesting. Here:

- a UTF-8 BOM is accepted and dropped; other non-UTF-8 bytes are refused with
  their offset;
- NaN / Infinity / numbers that overflow a float / integers longer than 18
  digits become :class:`Unusable` values, and each is reported with its JSON path;
- duplicate keys are reported with their path; the value of that key is
  :class:`Unusable` (neither copy is trusted);
- nesting deeper than the parser allows is a problem, not a crash;
- memory is bounded by bytes: a document whose parsed value could take more than MEMORY_RATIO
  times its size (many tiny values: ``[{},{},…]`` takes 25 times its bytes as Python objects) is
  refused before it is parsed (:func:`parse_memory`, counted at the regular-expression engine's
  speed), at most MAX_REPORTED unusable values are reported one by one (then their count), and
  the walk that finds them holds one frame per level of nesting, never a list of every value.

Lone surrogates in strings are left to :mod:`podium.load.fields`, which
cleans every string it reads.
"""

from __future__ import annotations

import codecs
import json
import math
import re
import sys
from collections.abc import Iterator
from dataclasses import replace

from podium.model import Problem

BOM = b"\xef\xbb\xbf"
MAX_INT_DIGITS = 18
MAX_REPORTED = 100  # unusable values reported one by one in a document (then how many more there are)
# The values parsed from a document may take at most this many times its bytes (parse_memory, an upper
# bound; the decoded text takes 1 to 4 times more, by the widest character): podium's own summary.json
# counts about 3.5 (2 in fact), XORCISE's result.json with its judge prompt 1 to 4. Documents under
# DENSE_FLOOR bytes are not counted: whatever they hold, their values take a few MB at most.
MEMORY_RATIO = 6
DENSE_FLOOR = 64 * 1024
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
        self.made = 0  # Unusable values made; past MAX_REPORTED one is shared (they are only counted then)
        self.shared = Unusable("not usable (one of many unusable values)")

    def unusable(self, why: str) -> Unusable:
        self.flagged = True
        self.made += 1
        return Unusable(why) if self.made <= MAX_REPORTED else self.shared

    def pairs(self, pairs: list) -> dict:
        obj = dict(pairs)
        if len(obj) == len(pairs):
            return obj
        seen: set[str] = set()
        dups: list[str] = []
        for key, _ in pairs:
            if key in seen and key not in dups:
                dups.append(key)
            seen.add(key)
        for key in dups:
            obj[key] = self.unusable(f"duplicate key {key[:200]!r}")
        return obj

    def constant(self, name: str) -> Unusable:
        return self.unusable(f"{name} is not a JSON number")

    def float_(self, text: str) -> float | Unusable:
        value = float(text)
        if math.isfinite(value):
            return value
        return self.unusable(f"{text[:40]} overflows a 64-bit float")

    def int_(self, text: str) -> int | Unusable:
        if len(text.lstrip("-")) > MAX_INT_DIGITS:
            return self.unusable(f"integer with {len(text.lstrip('-'))} digits is too large")
        return int(text)


def parse_json(data: bytes, path: str) -> tuple[object | None, list[Problem]]:
    """Parse ``data`` (the bytes of ``path``); on failure the value is None."""
    if data.startswith(BOM):
        data = data[len(BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        bad = data[err.start]
        return None, [Problem(path, "", f"not UTF-8: byte 0x{bad:02x} at offset {err.start}")]
    if not text.strip():
        return None, [Problem(path, "", "file is empty")]
    if len(data) > DENSE_FLOOR:
        budget = MEMORY_RATIO * len(data)
        need = parse_memory(data, text, budget)
        if need > budget:
            if _deep_at_start(text):
                return None, [Problem(path, "", "JSON is nested too deeply to read")]
            return None, [
                Problem(
                    path,
                    "",
                    f"holds too many small values to read: its values could take more than "
                    f"{MEMORY_RATIO} times its {len(data):,} bytes in memory, the most "
                    "podium allows (a file XORCISE or podium writes takes under 4); "
                    "not read",
                )
            ]
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


def _deep_at_start(text: str) -> bool:
    """Whether the document's first DENSE_FLOOR characters are nested past the parser's depth (what such a
    document is refused for, rather than for its size; parsing that much takes a few MB at most)."""
    try:
        json.loads(text[:DENSE_FLOOR])
    except RecursionError:
        return True
    except ValueError:
        pass
    return False


def _safe_key(key: str) -> str:
    """A key as it may appear in a field path: no lone surrogates or control characters, capped."""
    cleaned = _UNSAFE_KEY.sub("\ufffd", key)
    return cleaned if len(cleaned) <= 200 else cleaned[:200] + "…"


def _report_unusable(value: object, path: str) -> list[Problem]:
    """Walk the parsed value and name each Unusable by its JSON path: the first MAX_REPORTED met, then how
    many more there are. The walk holds one iterator per level of nesting (never a list of every value),
    and makes a path only for a value that is a container or unusable."""
    problems: list[Problem] = []
    more = 0
    stack: list[Iterator[tuple[str, object]]] = [iter((("", value),))]
    while stack:
        step = next(stack[-1], None)
        if step is None:
            stack.pop()
            continue
        where, node = step
        if isinstance(node, Unusable):
            if len(problems) < MAX_REPORTED:
                problems.append(Problem(path, where, node.why))
            else:
                more += 1
        elif isinstance(node, (dict, list)):
            stack.append(_children(where, node))
    problems.sort()
    if more:
        problems.append(Problem(path, "", f"{more:,} more unusable values are not listed one by one"))
    return problems


def _children(where: str, node: dict | list) -> Iterator[tuple[str, object]]:
    """The containers and unusable values directly in ``node`` (at ``where``), each with its path."""
    if isinstance(node, dict):
        for key, child in node.items():
            if isinstance(child, (dict, list, Unusable)):
                key = _safe_key(key)
                yield (f"{where}.{key}" if where else key), child
    else:
        for index, child in enumerate(node):
            if isinstance(child, (dict, list, Unusable)):
                yield f"{where}[{index}]", child


# A string, for parse_memory, which meets them one at a time: its quantifiers are possessive and a string
# left open runs to the end of the document, so it never backtracks nor starts again inside one; quotes and
# backslashes are ASCII, so it runs on the UTF-8 bytes. Group 2: the colon after it when it is a key.
_STRING_OR_KEY = re.compile(rb'"([^"\\]*+(?:\\.?[^"\\]*+)*+)(?:"|\Z)([ \t\n\r]*+:)?', re.DOTALL)
# Upper bounds, in bytes, of what CPython's json module makes for each thing it meets (64-bit, pymalloc's
# rounding included), each value also its slot in its container (8, and a list's growth: 9): a dict of m
# members (_dict); a list 56 and room for 4 (its first growth); a string 49 and its characters; a number
# 32 (literals are shared); a new key its string and its entry in the parser's memo. The pairs (a 2-tuple
# and its slot, 72 bytes) of an object's members live until the object is made: at most those of the
# objects open at one time. Counted without knowing each object's members (the first, quick count), an
# object is _OBJECT and a member _MEMBER.
_LIST, _STRING, _NUMBER, _NEW_KEY, _PAIR = 56 + 32 + 9, 64 + 9, 32 + 9, 104, 72
_OBJECT, _MEMBER = 192 + 8, 45
_CHECK_EVERY = 1024  # strings counted between two looks at the budget
_GAP_PIECE = 1 << 20  # bytes of structure copied at a time to count its scalars
# Scalars (numbers and literals) as runs of "x": their characters become "x", every other byte a space.
_SCALARS = bytes(ord("x") if chr(i) in "0123456789+-.eEtrufalsn" else ord(" ") for i in range(256))
_BRACE = re.compile(rb"[{}]")


def _dict(members: int) -> int:
    """A dict of ``members`` made from its pairs, and its slot: 64 bytes empty, 184 up to 5 members, then
    under 45 a member (CPython 3.11-3.13: 272 at 6, 832 at 22, 38 a member from a few hundred)."""
    return 8 + (64 if members == 0 else 192 if members <= 5 else 64 + _MEMBER * members)


def parse_memory(data: bytes, text: str, budget: int) -> int:
    """An upper bound of the memory ``json.loads`` would take, beside ``text``, to parse ``data`` (``text``
    decoded): every object, member, list, string and number it would make, counted without making them.

    First at the speed of ``bytes.count``, as if every brace, bracket, colon, quote and word were
    structure, every key new and every member's pair alive at once; when that is over ``budget``, again
    string by string: what is inside strings then counts only as characters, a key met before only in
    its object, an object by its members, and the pairs only of the objects open at one time. That stops
    once over ``budget``, and holds no more than the distinct keys met."""
    width = _width(text)
    crude = (
        _structure(data, 0, len(data))
        + data.count(b"{") * _OBJECT
        + data.count(b":") * (_MEMBER + _PAIR + _NEW_KEY)
        + (data.count(b'"') // 2) * _STRING
        + len(data) * width
    )
    return crude if crude <= budget else _string_by_string(data, width, budget)


def _string_by_string(data: bytes, width: int, budget: int) -> int:
    """parse_memory's second count (see there), ``width`` bytes a character."""
    need, pairs, most_pairs = 0, 0, 0
    open_objects: list[int] = []  # the members of each object open at this point, innermost last
    seen: set[bytes] = set()
    gaps: dict[bytes, tuple[int, int, bool]] = {}  # what a short stretch between strings makes (most repeat)
    at = 0
    for index, match in enumerate(_STRING_OR_KEY.finditer(data)):
        start, end = match.span()
        if start - at > 64:  # a long stretch of structure: counted in place (in pieces), never kept
            known = (_structure(data, at, start), data.count(b"{", at, start), True)
        else:
            gap = data[at:start]
            cached = gaps.get(gap)
            if cached is None:
                cached = (_structure(gap, 0, len(gap)), gap.count(b"{"), b"{" in gap or b"}" in gap)
                if len(gaps) < 4096:
                    gaps[gap] = cached
            known = cached
        need += known[0]
        if need + known[1] * _dict(0) > budget:  # each object takes at least that: over without walking them
            return need + known[1] * _dict(0)
        if known[2]:
            for brace in _BRACE.finditer(data, at, start):
                if brace.group() == b"{":
                    open_objects.append(0)
                elif open_objects:
                    members = open_objects.pop()
                    need += _dict(members)
                    pairs -= members
        if need > budget:
            return need
        if match.group(2) is None:
            need += _STRING + (end - start) * width
        else:  # a key: a member of the innermost object, its pair, and the key itself when it is new
            if open_objects:
                open_objects[-1] += 1
            pairs += 1
            most_pairs = max(most_pairs, pairs)
            if match.group(1) not in seen:
                seen.add(match.group(1))
                need += _NEW_KEY + (end - start) * width
        at = end
        if index % _CHECK_EVERY == 0 and need + most_pairs * _PAIR > budget:
            break  # over already: the rest need not be counted (nor its keys held)
    else:  # after the last string: no key follows, so each object there has no member
        need += _structure(data, at, len(data)) + data.count(b"{", at) * _OBJECT
    return need + sum(map(_dict, open_objects)) + most_pairs * _PAIR


def _width(text: str) -> int:
    """Bytes a character of ``text`` takes (1, 2 or 4: CPython's str stores the widest character's size),
    so at most for each string parsed from it."""
    if text.isascii() or not text:
        return 1
    return min(4, max(1, round((sys.getsizeof(text) - sys.getsizeof(text[:1])) / max(len(text) - 1, 1))))


def _structure(data: bytes, start: int, end: int) -> int:
    """What ``data[start:end]`` makes when none of it is inside a string, but its objects: lists and scalars
    (scalars counted _GAP_PIECE bytes at a time: one cut by a piece's end counts twice, an upper bound)."""
    scalars = 0
    for at in range(start, end, _GAP_PIECE):
        piece = data[at : min(at + _GAP_PIECE, end)].translate(_SCALARS)
        scalars += piece.count(b" x") + piece.startswith(b"x")
    return data.count(b"[", start, end) * _LIST + scalars * _NUMBER


_SPACE = re.compile(r"[ \t\n\r]*")
CHUNK = 1 << 20  # characters decoded at a time
MAX_ITEM = 1 << 20  # one element of a streamed array may not be larger (a runs.json row is ~1.3 KB): parsed,
# it takes at most ~25 times that


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
            data = data[len(BOM) :]
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
        drop = self.text[: self.pos]
        if "\n" in drop:
            self.lines += drop.count("\n")
            self.last_newline = self.dropped + drop.rfind("\n")
        self.dropped += self.pos
        self.text, self.pos = self.text[self.pos :] + text, 0
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
    scanner = json.JSONDecoder(
        object_pairs_hook=parse.pairs, parse_constant=parse.constant, parse_float=parse.float_, parse_int=parse.int_
    )
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
        value, found = parse_json(text.text[text.pos :].encode("utf-8", "surrogatepass"), path)
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
            problems.extend(
                replace(p, field=f"[{index}]" + (f".{p.field}" if p.field else ""))
                for p in _report_unusable(value, path)
            )
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
