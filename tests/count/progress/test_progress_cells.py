"""podium.count.progress.cells and columns: cells, segments, left-out and undated runs, run order (progress rules §1),
and bad input refused naming the run and the field."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest
from progresskit import (
    HIGH,
    LOW,
    T0,
    A,
    B,
    C,
    headline,
    mixed_fixture,
    only_cell,
    progress_document,
    progress_of,
    run,
    runs_of,
)

from podium.count.progress.cells import NO_CONDITIONS
from podium.model import Configuration

# --- §1: cells, segments, counting ------------------------------------------------------------------


def test_left_out_runs_counted_in_their_segment_or_unplaced():
    runs = (
        runs_of(LOW, conf=A)
        + [run(0.2, conf=A, kind="stopped"), run(kind="infra_failed", conf=A), run(kind="infra_failed", conf=A)]
        + runs_of(HIGH, conf=B)
        + [run(kind="grading", conf=B)]
        + [run(kind="unknown", conf=None), run(kind="grading_failed", conf=C), run(kind="infra_failed", conf=None)]
    )
    cell = only_cell(progress_of(runs))
    assert [dict(s.left_out) for s in cell.segments] == [{"stopped": 1, "infra_failed": 2}, {"grading": 1}]
    assert dict(cell.left_out_unplaced) == {"infra_failed": 1, "grading_failed": 1, "unknown": 1}
    assert [dict(s.runs) for s in cell.segments] == [{"overall": 8, "checks": 8, "judge": 8}] * 2


def test_a_left_out_run_before_its_configurations_first_counted_run_is_still_placed():
    runs = [run(kind="infra_failed", conf=B)] + runs_of(LOW, conf=A) + runs_of(HIGH, conf=B)
    cell = only_cell(progress_of(runs))
    assert dict(cell.segments[1].left_out) == {"infra_failed": 1} and not cell.left_out_unplaced


def test_counted_runs_without_conditions_are_one_null_configuration():
    runs = runs_of(LOW, conf=None) + [run(kind="stopped", conf=None), run(kind="stopped", conf=NO_CONDITIONS)]
    cell = only_cell(progress_of(runs))
    assert cell.segments[0].configuration == Configuration(None, None, None, None)
    # the left-out run with no readable conditions is unplaced; the one with null fields is placed
    assert dict(cell.segments[0].left_out) == {"stopped": 1} and dict(cell.left_out_unplaced) == {"stopped": 1}
    doc = progress_document(progress_of(runs))
    assert doc["cells"][0]["segments"][0]["configuration"] == {
        "agent_version": None,
        "model": None,
        "judge_model": None,
        "budget_seconds": None,
    }


def test_series_membership_by_kind():
    runs = runs_of([0.5] * 3, conf=A) + [
        run(0.4, conf=A, kind="timed_out"),
        run(0.4, conf=A, kind="partial_judge", judge_upper=0.6),
        run(0.9, conf=A, kind="no_judge"),
        run(0.9, conf=A, kind="stopped"),
    ]
    seg = only_cell(progress_of(runs)).segments[0]
    assert dict(seg.runs) == {"overall": 5, "checks": 6, "judge": 5}
    assert dict(seg.left_out) == {"stopped": 1}
    assert seg.median == 0.5  # the overall series' plain median: 0.4, 0.4, 0.5, 0.5, 0.5


def test_undated_runs_are_in_no_segment_and_no_left_out_count():
    runs = runs_of(LOW, conf=A) + [
        run(0.9, conf=A, started=None),
        run(kind="infra_failed", started=None),
        run(0.1, conf=B, started=None),
    ]
    cell = only_cell(progress_of(runs))
    assert cell.undated == 3
    assert len(cell.segments) == 1 and cell.segments[0].runs["overall"] == 8
    assert not cell.segments[0].left_out and not cell.left_out_unplaced


def test_a_cell_with_only_undated_or_left_out_runs_exists():
    p = progress_of([run(kind="infra_failed", mission="m2"), run(0.5, mission="m3", started=None)])
    assert [(c.mission, len(c.segments), dict(c.left_out_unplaced), c.undated) for c in p.cells] == [
        ("m2", 0, {"infra_failed": 1}, 0),
        ("m3", 0, {}, 1),
    ]
    assert p.segments == () and p.steps == () and p.newest_segment is None
    assert headline(p)["reason"] == "no_counted_runs"


def test_rollback_adds_to_the_earlier_segment():
    runs = runs_of(LOW, conf=A) + runs_of(HIGH, conf=B) + runs_of([0.31, 0.3], conf=A)
    cell = only_cell(progress_of(runs))
    assert [s.configuration for s in cell.segments] == [A, B]
    assert cell.segments[0].runs["overall"] == 10
    assert cell.segments[0].last_run_id == runs[-1].run_id and cell.segments[0].first_run_id == runs[0].run_id
    assert cell.newest_segment == 0  # the page says the newest run belongs to an earlier segment
    assert cell.newest_step.to == B and len(cell.steps) == 1


def test_alternating_models_make_two_segments_not_forty():
    one, two = replace(A, model="model-x"), replace(A, model="model-y")
    runs = [run(0.3 + 0.01 * (i % 3), conf=one if i % 2 else two) for i in range(40)]
    cell = only_cell(progress_of(runs))
    assert [s.configuration.model for s in cell.segments] == ["model-y", "model-x"]
    assert [s.runs["overall"] for s in cell.segments] == [20, 20]
    assert len(cell.steps) == 1 and cell.steps[0].changed == ("model",)


def test_older_versions_are_cells_of_their_own_and_no_part_of_agent_segments():
    runs = (
        runs_of(LOW, conf=A, version="1.0.0", current=False)
        + runs_of(HIGH, conf=B, version="1.0.0", current=False)
        + runs_of(LOW, conf=C, version="1.2.0")
    )
    p = progress_of(runs)
    assert [(c.version, c.current, len(c.steps)) for c in p.cells] == [("1.0.0", False, 1), ("1.2.0", True, 0)]
    assert [s.configuration for s in p.segments] == [C]  # only current versions
    assert headline(p)["reason"] == "one_configuration" and headline(p)["verdict"] is None


def test_cells_sorted_by_mission_then_version_oldest_first():
    runs = [
        run(0.5, mission=m, version=v, current=cur)
        for m, v, cur in [
            ("b", "1.10.0", True),
            ("b", "1.9.0", False),
            ("a", "r3", False),
            ("a", "2.0.0", True),
            ("b", "1.9.1", False),
        ]
    ]
    assert [(c.mission, c.version) for c in progress_of(runs).cells] == [
        ("a", "r3"),
        ("a", "2.0.0"),
        ("b", "1.9.0"),
        ("b", "1.9.1"),
        ("b", "1.10.0"),
    ]


def test_runs_are_ordered_by_start_then_run_id():
    t = T0 + timedelta(hours=1)
    late = run(0.9, conf=B, started=t, run_id="f" * 32)
    early = run(0.9, conf=A, started=t, run_id="0" * 32)  # the same instant: the run id decides
    other_zone = run(0.5, conf=C, started=(t - timedelta(microseconds=1)).astimezone(timezone(timedelta(hours=5))))
    cell = only_cell(progress_of([late, early, other_zone]))
    assert [s.configuration for s in cell.segments] == [C, A, B]


def test_instants_one_float_apart_keep_their_order():
    """In the year 9000 a float timestamp cannot tell two microseconds apart: the exact start decides."""
    t = datetime(9000, 1, 1, tzinfo=UTC)
    assert (t + timedelta(microseconds=1)).timestamp() == t.timestamp()
    later = run(0.5, conf=A, started=t + timedelta(microseconds=1), run_id="0" * 32)
    earlier = run(0.5, conf=B, started=t, run_id="f" * 32)
    cell = only_cell(progress_of([later, earlier]))
    assert [s.configuration for s in cell.segments] == [B, A]


def test_agent_segments_ordered_by_first_run_over_all_current_cells():
    runs = (
        runs_of([0.5] * 3, conf=B, mission="m2")
        + runs_of([0.5] * 3, conf=A, mission="m2")
        + runs_of([0.5] * 3, conf=A, mission="m1")
        + runs_of([0.5] * 3, conf=C, mission="m1")
    )
    p = progress_of(runs)
    assert [s.configuration for s in p.segments] == [B, A, C]
    assert [dict(s.runs) for s in p.segments] == [
        {"overall": 3, "checks": 3, "judge": 3},
        {"overall": 6, "checks": 6, "judge": 6},
        {"overall": 3, "checks": 3, "judge": 3},
    ]
    # A's first run is in m2, its last in m1 (cells are read m1 first)
    assert p.segments[1].first_run_id == runs[3].run_id and p.segments[1].last_run_id == runs[8].run_id
    # m2's cell has B before A; the agent step A → C has m1 only as a stratum, B → A has m2 only
    assert [[(s.mission) for s in step.overall.strata] for step in p.steps] == [["m2"], ["m1"]]
    assert p.newest_segment == 2


# --- order, guards against input, the document ---------------------------------------------------------------


def test_the_order_of_the_runs_changes_nothing():
    runs = mixed_fixture()
    expected = json.dumps(progress_document(progress_of(runs)), sort_keys=True)
    for seed in range(3):
        shuffled = runs[:]
        random.Random(seed).shuffle(shuffled)
        assert json.dumps(progress_document(progress_of(shuffled)), sort_keys=True) == expected


def test_shuffling_runs_inside_a_segment_changes_only_what_time_order_decides():
    """Values reordered inside a segment (same times, values permuted): shift, intervals and
    verdicts before the guards are the same; the series are kept in time order."""
    base = runs_of(LOW, conf=A) + runs_of(HIGH, conf=B)
    permuted = base[:]
    values = [r.overall for r in base[8:]]
    random.Random(3).shuffle(values)
    for i, v in enumerate(values):
        permuted[8 + i] = replace(base[8 + i], overall=v, overall_upper=v, deterministic=v, judge=v)
    one = only_cell(progress_of(base)).newest_step.overall
    two = only_cell(progress_of(permuted)).newest_step.overall
    assert (one.shift, one.ci99, one.ci90, one.delta_median) == (two.shift, two.ci99, two.ci90, two.delta_median)
    assert one.verdict == two.verdict == "improved"


@pytest.mark.parametrize(
    "change, field",
    [
        (dict(started=datetime(2026, 9, 1)), "started"),
        (dict(overall=None), "overall"),
        (dict(judge=1.5), "judge"),
        (dict(deterministic="0.5"), "deterministic"),
        (dict(kind="not_a_run"), "kind"),
        (dict(run_id=None), "run_id"),
        (dict(current=False), "current"),
        (dict(judge_upper=0.1, judge_status="partial"), "judge_upper"),
    ],
)
def test_bad_input_names_the_run_and_the_field(change, field):
    runs = runs_of(LOW, conf=A)
    runs[3] = replace(runs[3], **change)
    with pytest.raises(ValueError) as caught:
        progress_of(runs)
    message = str(caught.value)
    assert f": {field}:" in message and "jwt 1.0.0" in message
    if field != "current":
        assert repr(runs[3].run_id) in message


def test_any_run_id_is_counted():
    """A run the export identifies only by its directory has the directory's 8 hex digits for an id, and two
    exports may each hold a run of one id: both are counted, never refused (the build must not stop)."""
    runs = runs_of(LOW, conf=A)
    runs[0] = replace(runs[0], run_id="dc8ffdbf")
    twin = replace(runs[2], started=T0 + timedelta(days=3))
    cell = only_cell(progress_of(runs + [twin]))
    assert cell.segments[0].runs["overall"] == len(LOW) + 1
    assert cell.segments[0].first_run_id == "dc8ffdbf"
