"""One checker for JSON podium reads back from a previous publish: a shape in, the value rebuilt or a misfit.

A shape (load/published.py declares podium's) is one of:

- a :class:`Leaf` (``COUNT``, ``TEXT``, ``SCORE`` …): a test and what it expects;
- a ``dict``: an object holding those keys (each required unless it is a :class:`Maybe`); other keys
  are dropped, never carried;
- ``[shape]``: a list of values of that shape;
- :class:`Opt` (null or the shape), :class:`Maybe` (a key that may be absent: then its default, or
  left out), :class:`Map` (an object whose keys are free, or only some of them kept), :class:`Either`
  (the shape, else a fallback: never a misfit), :class:`OneOf` (one of a few strings).

:func:`pick` rebuilds the value from the shape (text cleaned and capped, scores as floats) or raises
:class:`Misfit` at the first value that does not fit, naming it by its path (``agents[0].median``).
"""

from __future__ import annotations

import math
import re

from podium.load.fields import clean_name

NAME_CAP = 200  # characters of a name, id or version read from a previous publish (the loader's own cap)
TOP = "(top level)"
_NONE = object()


def capped(text: str) -> str:
    """Text read back from a previous publish as a name: invisible characters as U+FFFD (load/fields.py),
    at most NAME_CAP characters and an ellipsis (a name the loader cut, 200 + "…", stays as it is)."""
    text = clean_name(text)[0]
    return text if len(text) <= NAME_CAP + 1 else text[:NAME_CAP] + "…"


class Misfit(ValueError):
    """A value that does not have its shape: ``field`` is its path, ``message`` what was expected."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class Leaf:
    """A value tested whole: ``test(value)``, then ``clean(value)`` is what is kept."""

    def __init__(self, expected: str, test, clean=None):
        self.expected = expected
        self.test = test
        self.clean = clean


class Opt:
    """null, or ``shape``."""

    def __init__(self, shape):
        self.shape = shape


class Maybe:
    """A key an object may lack (written by an older podium): ``default`` then, or left out without one."""

    def __init__(self, shape, default=_NONE):
        self.shape = shape
        self.default = default


class Map:
    """An object of ``shape`` values; with ``keys``, keys outside them are dropped."""

    def __init__(self, shape, keys: frozenset[str] | None = None):
        self.shape = shape
        self.keys = keys


class Either:
    """``shape`` when the value has it, else ``fallback`` (for what a reader may ignore)."""

    def __init__(self, shape, fallback):
        self.shape = shape
        self.fallback = fallback


class OneOf:
    """One of ``values`` (text); ``noun`` names what any other value is not."""

    def __init__(self, values, noun: str | None = None):
        self.values = frozenset(values)
        self.noun = noun


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -(10**15) < value < 10**15


def _score(value) -> bool:
    return _number(value) and 0 <= value <= 1


TIME = re.compile(r"[0-9][0-9T:.Z+-]{0,39}")
DIGEST_TEXT = re.compile(r"[A-Za-z0-9:._-]{1,200}")
SITE_PATH = re.compile(r"(?:[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}/){0,8}(?:[A-Za-z0-9_][A-Za-z0-9_.-]{0,199})?")

TEXT = Leaf("text", lambda v: isinstance(v, str), capped)
COUNT = Leaf("a whole number >= 0", lambda v: _int(v) and v >= 0)
INT = Leaf("a whole number", _int)
BOOL = Leaf("true or false", lambda v: isinstance(v, bool))
NUMBER = Leaf("a number", lambda v: _number(v) and -1e6 < v < 1e6)
AMOUNT = Leaf("a number >= 0", lambda v: _number(v) and 0 <= v < 1e18, float)  # tokens, seconds (cost.md)
PAIR = Leaf("[number, number]", lambda v: isinstance(v, list) and len(v) == 2 and all(NUMBER.test(x) for x in v))
SCORE = Leaf("a score in [0, 1]", _score, float)
CI = Leaf(
    "[low, high] (scores, low <= high)",
    lambda v: isinstance(v, list) and len(v) == 2 and all(map(_score, v)) and v[0] <= v[1],
    lambda v: (float(v[0]), float(v[1])),
)
TIME_TEXT = Leaf("an ISO-8601 time", lambda v: isinstance(v, str) and bool(TIME.fullmatch(v)))
DIGEST = Leaf("a digest", lambda v: isinstance(v, str) and bool(DIGEST_TEXT.fullmatch(v)))
URL = Leaf("a site path", lambda v: isinstance(v, str) and 0 < len(v) <= 400 and bool(SITE_PATH.fullmatch(v)))
ANY = Leaf("anything", lambda v: True, lambda v: None)  # counted, never kept


def pick(value, shape, field: str = TOP):
    """``value`` rebuilt from ``shape``; a Misfit names the first value that does not fit."""
    if isinstance(shape, Leaf):
        if not shape.test(value):
            raise Misfit(field, f"expected {shape.expected}, got {kind(value)}")
        return shape.clean(value) if shape.clean else value
    if isinstance(shape, Opt):
        if value is None:
            return None
        if isinstance(shape.shape, Leaf) and not shape.shape.test(value):
            raise Misfit(field, f"expected {shape.shape.expected} or null, got {kind(value)}")
        return pick(value, shape.shape, field)
    if isinstance(shape, OneOf):
        if not isinstance(value, str) or value not in shape.values:
            wanted = " or ".join(repr(v) for v in sorted(shape.values))
            raise Misfit(field, f"expected {wanted}, got {kind(value)}" + (f": not {shape.noun}" if shape.noun else ""))
        return value
    if isinstance(shape, Either):
        try:
            return pick(value, shape.shape, field)
        except Misfit:
            return shape.fallback
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            raise Misfit(field, f"expected an object, got {kind(value)}")
        out = {}
        for key, inner in shape.items():
            name = key if field == TOP else f"{field}.{key}"
            if isinstance(inner, Maybe):
                if key in value:
                    out[key] = pick(value[key], inner.shape, name)
                elif inner.default is not _NONE:
                    out[key] = inner.default
            elif key in value:
                out[key] = pick(value[key], inner, name)
            else:
                raise Misfit(name, "missing")
        return out
    if isinstance(shape, Map):
        if not isinstance(value, dict):
            raise Misfit(field, f"expected an object, got {kind(value)}")
        return {
            k: pick(v, shape.shape, f"{field}.{capped(k)}")
            for k, v in value.items()
            if isinstance(k, str) and (shape.keys is None or k in shape.keys)
        }
    if isinstance(shape, list):
        if not isinstance(value, list):
            raise Misfit(field, f"expected a list, got {kind(value)}")
        return [pick(v, shape[0], f"{'' if field == TOP else field}[{i}]") for i, v in enumerate(value)]
    raise TypeError(f"not a shape: {shape!r}")


def fits(value, shape) -> bool:
    """Whether ``value`` has ``shape``."""
    try:
        pick(value, shape)
    except Misfit:
        return False
    return True


def kind(value) -> str:
    """A value as a message shows it: short text quoted, long text as "text", containers by their kind."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return "text" if len(value) > 40 else repr(value)
    return {"dict": "an object", "list": "a list"}.get(type(value).__name__, type(value).__name__)
