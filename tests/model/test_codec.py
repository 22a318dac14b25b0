"""model/codec.py: cache rows are data read back only as the type named, and anything else is refused."""

from datetime import UTC, datetime

import pytest

from podium.model import Outline, Problem, codec


def test_a_value_comes_back_as_it_was_stored():
    problem = Problem("a/result.json", "grade.overall", "not a number")
    assert codec.loads(Problem, codec.dumps(problem)) == problem
    moment = datetime(2026, 12, 1, 5, 55, tzinfo=UTC)
    assert codec.decode(tuple[datetime, ...], [moment.isoformat()]) == (moment,)
    assert codec.decode(dict[str, int | None], {"a": 1, "b": None}) == {"a": 1, "b": None}


@pytest.mark.parametrize(
    "kind, data",
    [
        (Problem, ["a", "b"]),  # a field missing
        (Problem, ["a", "b", 3]),  # a field of the wrong type
        (Problem, {"file": "a"}),  # not the stored shape
        (tuple[int, ...], [1, "2"]),
        (tuple[int, int], [1]),
        (int, True),  # a bool is not an int here
        (float, "1.0"),
        (str | None, 3),
        (int, None),  # None only where the type allows it
        (datetime, 12),
        (Outline, []),
    ],
)
def test_anything_else_is_refused_as_a_damaged_row(kind, data):
    with pytest.raises(ValueError):
        codec.decode(kind, data)
