"""What a run spent and what each scope's runs cost (docs/rules/cost.md): the data types, no arithmetic.

:class:`Spent` is one run's Telemetry values, packed: a history holds one per run (a million at 1M runs),
so eight numbers are 32 bytes (64 when one is past 2³² − 2) in one bytes object, not eight int objects
and a dataclass around them. The scope figures (:class:`Cost`, :class:`Measure`), the frontier
(:class:`Frontier`) and the price table (:class:`Prices`) are frozen dataclasses whose field names are
the keys ``summary.json`` gives them.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

# The Telemetry rows podium reads (docs/rules/cost.md §1), in the order a Spent holds them.
SPENT_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_creation_tokens",
    "reasoning_tokens",
    "total_tokens",
    "model_calls",
    "tool_calls",
)
TOKEN_FIELDS = SPENT_FIELDS[:6]  # rule 1: a total of 0 makes all six "not reported"
SOMETIMES_UNREPORTED = ("cache_read_tokens", "cache_creation_tokens", "reasoning_tokens")  # rule 3
TELEMETRY_ROWS = {  # the report's row name -> the field
    "Input tokens": "input_tokens",
    "Output tokens": "output_tokens",
    "Cache read tokens": "cache_read_tokens",
    "Cache creation tokens": "cache_creation_tokens",
    "Reasoning tokens": "reasoning_tokens",
    "Total tokens": "total_tokens",
    "Model calls": "model_calls",
    "Tool calls": "tool_calls",
}
MAX_VALUE = 10**18 - 1  # 18 digits, as strict JSON input (load/jsonfile.py): fits the wide format
_NARROW, _WIDE = struct.Struct("<8I"), struct.Struct("<8q")
_NARROW_NULL, _WIDE_NULL = 0xFFFFFFFF, -1
_INDEX = {name: i for i, name in enumerate(SPENT_FIELDS)}


class Spent(bytes):
    """One run's eight Telemetry values (SPENT_FIELDS order), each a whole number >= 0 or None ("not
    reported"), packed little-endian: 32 bytes of uint32 (None: 2³² − 1) or, when a value does not fit,
    64 of int64 (None: −1). Only :meth:`of` packs; reading back (codec, pickle) checks the length and
    the values, so a damaged cache row is refused, never misread."""

    __slots__ = ()

    def __new__(cls, data: bytes = b"") -> Spent:
        self = super().__new__(cls, data)
        if len(self) == _NARROW.size:
            return self
        if len(self) == _WIDE.size and all(-1 <= v <= MAX_VALUE for v in _WIDE.unpack(self)):
            return self
        raise ValueError("not a packed Spent")

    @classmethod
    def of(cls, values: tuple[int | None, ...] | list[int | None]) -> Spent | None:
        """The eight values packed; None when none of them is reported (a run without telemetry keeps no
        object at all)."""
        if len(values) != len(SPENT_FIELDS):
            raise ValueError("a Spent holds eight values")
        narrow, anything = True, False
        for v in values:
            if v is None:
                continue
            anything = True
            if not 0 <= v <= MAX_VALUE:
                raise ValueError("a Spent value is a whole number of at most 18 digits")
            if v >= _NARROW_NULL:
                narrow = False
        if not anything:
            return None
        if narrow:
            return cls(_NARROW.pack(*[_NARROW_NULL if v is None else v for v in values]))
        return cls(_WIDE.pack(*[_WIDE_NULL if v is None else v for v in values]))

    def raw(self) -> tuple[tuple[int, ...], int]:
        """The eight values as stored and the number that stands for "not reported" in them (one unpack, no
        mapping: for the loops over every run, count/cost.py)."""
        if len(self) == _NARROW.size:
            return _NARROW.unpack(self), _NARROW_NULL
        return _WIDE.unpack(self), _WIDE_NULL

    def values(self) -> tuple[int | None, ...]:
        if len(self) == _NARROW.size:
            return tuple([None if v == _NARROW_NULL else v for v in _NARROW.unpack(self)])
        return tuple([None if v == _WIDE_NULL else v for v in _WIDE.unpack(self)])

    def get(self, name: str) -> int | None:
        """One value by its field name."""
        index = _INDEX[name]
        if len(self) == _NARROW.size:
            value = _NARROW_ONE.unpack_from(self, 4 * index)[0]
            return None if value == _NARROW_NULL else value
        value = _WIDE_ONE.unpack_from(self, 8 * index)[0]
        return None if value == _WIDE_NULL else value

    def without(self, names: tuple[str, ...] | frozenset[str]) -> Spent | None:
        """The same values with ``names`` made "not reported" (in the same packing: a value only leaves)."""
        fmt, null = (_NARROW, _NARROW_NULL) if len(self) == _NARROW.size else (_WIDE, _WIDE_NULL)
        values = list(fmt.unpack(self))
        for name in names:
            values[_INDEX[name]] = null
        return Spent(fmt.pack(*values)) if any(v != null for v in values) else None

    def as_dict(self) -> dict[str, int | None]:
        return dict(zip(SPENT_FIELDS, self.values()))

    def __repr__(self) -> str:
        return f"Spent({', '.join(f'{k}={v}' for k, v in self.as_dict().items())})"

    __str__ = __repr__

    def __reduce__(self):
        return (Spent, (bytes(self),))


_NARROW_ONE, _WIDE_ONE = struct.Struct("<I"), struct.Struct("<q")


@dataclass(frozen=True, slots=True)
class Measure:
    """One measure over a scope's median population (docs/rules/cost.md §2): how many runs report it, and
    the median and quartiles over those (all three None when none does)."""

    reported: int
    median: float | None
    q1: float | None
    q3: float | None


_PRICED = {"json_omit": lambda cost: cost.cost_usd is None}  # a Cost's dollar keys: docs/rules/cost.md §5


@dataclass(frozen=True, slots=True)
class Cost:
    """What one scope's runs cost (docs/rules/cost.md §2): measures over the median population (``runs``),
    the spend over every counted run. ``cost_usd`` and ``spent_usd`` only with a price table (§5)."""

    runs: int
    total_tokens: Measure
    model_calls: Measure
    tool_calls: Measure
    duration_seconds: Measure
    budget_share: Measure
    spent_tokens: int
    spent_reported: int
    spent_runs: int
    spent_by_kind: dict[str, int]
    # The dollars, published only with a price table (cost_usd set; model/jsonable.py reads the metadata):
    cost_usd: Measure | None = field(default=None, metadata=_PRICED)
    spent_usd: float | None = field(default=None, metadata=_PRICED)  # None: no counted run has a price (never 0)
    spent_usd_reported: int | None = field(default=None, metadata=_PRICED)  # how many counted runs have a price


MEASURES = ("total_tokens", "model_calls", "tool_calls", "duration_seconds", "budget_share")


@dataclass(frozen=True, slots=True)
class Frontier:
    """The agents no other placed agent beats on score for less (docs/rules/cost.md §3), by rising cost,
    then agent id: by median tokens and by median duration."""

    total_tokens: tuple[str, ...] = ()
    duration_seconds: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million tokens of one model key."""

    input: float
    output: float
    cache_read: float
    cache_creation: float


PRICE_FIELDS = ("input", "output", "cache_read", "cache_creation")


@dataclass(frozen=True, slots=True)
class Prices:
    """``podium.yaml``'s ``prices`` (docs/rules/cost.md §5): when they were read, where from, by model key."""

    as_of: str  # YYYY-MM-DD
    source: str
    models: dict[str, Price] = field(metadata={"json_omit": True})  # summary.json names the table, not its prices
