"""The LoCoMo importer: one event per turn, times inside the session's day, dia_id kept."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime, timezone
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tocsearch.errors import ImportFailed, InvalidArgument
from tocsearch.importers import load_events, load_locomo
from tocsearch.importers.locomo import TURN_STEP, parse_session_start, turn_times

FIXTURES = Path(__file__).parent / "fixtures"
LOCOMO = Path("/work/shared/data/locomo/locomo-dev.json")


def test_fixture_gives_one_event_per_turn_with_speaker_and_dia_id() -> None:
    """Every turn of every session with turns becomes a USER event named after its speaker."""
    result = load_locomo(FIXTURES / "locomo_small.json")
    assert len(result.events) == 9
    assert result.records_read == 9
    by_dia = {(e.metadata["sample_id"], e.metadata["dia_id"]): e for e in result.events}
    first = by_dia[("demo-1", "D1:1")]
    assert first.text == "Ada: Hi Grace! I finished the compiler talk."
    assert first.metadata["speaker"] == "Ada"
    assert first.session_id == "demo-1:session_1"
    assert first.timestamp == datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    assert first.event_id == "evt:1683554160000:demo-1:D1:1"
    assert by_dia[("demo-1", "D1:3")].timestamp - first.timestamp == 2 * TURN_STEP


def test_shared_photo_caption_is_part_of_the_text() -> None:
    """A turn's blip_caption is appended as '[shares a photo: ...]' so it can be searched."""
    result = load_locomo(FIXTURES / "locomo_small.json")
    photo = next(e for e in result.events if e.metadata["dia_id"] == "D1:2")
    assert photo.text == (
        "Grace: Wonderful! Look at this. [shares a photo: a photo of a moth taped into a logbook]"
    )


def test_session_near_midnight_stays_on_its_day_in_order() -> None:
    """A session starting at 11:59 pm keeps all its turns before midnight, in turn order."""
    result = load_locomo(FIXTURES / "locomo_small.json")
    late = [e for e in result.events if e.session_id == "demo-1:session_2"]
    assert [e.metadata["dia_id"] for e in late] == ["D2:1", "D2:2", "D2:3", "D2:4"]
    assert all(e.timestamp.date().isoformat() == "2023-05-09" for e in late)
    assert len({e.timestamp for e in late}) == 4


def test_samples_filter_keeps_only_named_samples() -> None:
    """samples= restricts the import to those sample ids."""
    result = load_locomo(FIXTURES / "locomo_small.json", samples={"demo-2"})
    assert {e.metadata["sample_id"] for e in result.events} == {"demo-2"}
    assert len(result.events) == 2


def test_samples_filter_naming_an_unknown_sample_is_refused() -> None:
    """Asking for a sample the file lacks is an error that lists the samples it has."""
    with pytest.raises(InvalidArgument, match=r"no sample 'nope' \(it has demo-1, demo-2\)"):
        load_locomo(FIXTURES / "locomo_small.json", samples=["nope"])


def test_samples_filter_refuses_a_bare_string() -> None:
    """A string is a collection of characters, not of sample ids, so it is refused."""
    with pytest.raises(InvalidArgument, match="got the string"):
        load_locomo(FIXTURES / "locomo_small.json", samples="demo-1")


def _sample(**conversation: Any) -> list[dict[str, Any]]:
    base: dict[str, Any] = {"speaker_a": "A", "speaker_b": "B"}
    base.update(conversation)
    return [{"sample_id": "x", "conversation": base}]


@pytest.mark.parametrize(
    ("conversation", "reason"),
    [
        (
            {"session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]},
            "sample 'x', session_1: 'session_1_date_time' is missing, so its 1 turns have no time",
        ),
        (
            {
                "session_1_date_time": "noon on Monday",
                "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}],
            },
            "sample 'x', session_1: 'session_1_date_time': not a LoCoMo session date",
        ),
        (
            {
                "session_1_date_time": "1:00 pm on 31 February, 2023",
                "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}],
            },
            "names no real date and time",
        ),
        (
            {
                "session_1_date_time": "1:00 pm on 1 May, 2023",
                "session_1": [{"speaker": "A", "text": "hi"}],
            },
            "sample 'x', session_1, turn 1: 'dia_id' is missing",
        ),
        (
            {
                "session_1_date_time": "1:00 pm on 1 May, 2023",
                "session_1": [{"dia_id": "D1:1", "text": "hi"}],
            },
            "sample 'x', session_1, turn 'D1:1': 'speaker' is missing",
        ),
        (
            {"session_1_date_time": "1:00 pm on 1 May, 2023", "session_1": ["hello"]},
            "turn 1: a turn must be a JSON object, got a string",
        ),
        (
            {
                "session_1_date_time": "1:00 pm on 1 May, 2023",
                "session_\u0661": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}],
            },
            "sample 'x': 'session_\u0661' is not a session key (session_ and up to 9 of the "
            "digits 0-9), so its 1 turns were not read",
        ),
        (
            {
                "session_1_date_time": "1:00 pm on 1 May, 2023",
                "session_" + "9" * 5000: [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}],
            },
            "sample 'x': 'session_999999999999999999999999999999999999999999999",
        ),
        (
            {
                "session_1_date_time": "1:56 pm on 31 December, 9999",
                "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}],
            },
            "turn 'D1:1': timestamp 9999-12-31T13:56:00+00:00 is outside 1970-01-01 .. 2286-11-20",
        ),
    ],
)
def test_bad_sessions_and_turns_name_sample_session_and_turn(
    tmp_path: Path, conversation: dict[str, Any], reason: str
) -> None:
    """Strict mode raises naming the sample, session and turn; lenient mode reports it."""
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(_sample(**conversation)), encoding="utf-8")
    with pytest.raises(ImportFailed) as caught:
        load_locomo(path)
    assert reason in str(caught.value)
    lenient = load_locomo(path, strict=False)
    assert lenient.events == ()
    assert len(lenient.problems) == 1
    assert reason in str(lenient.problems[0])


def test_a_session_is_read_under_its_own_key(tmp_path: Path) -> None:
    """session_01 is not session_1: each session is dated by its own date key and named by
    its own key, whatever number the two keys share."""
    turn = {"speaker": "A", "text": "hi"}
    path = tmp_path / "locomo.json"
    document = _sample(
        session_1_date_time="1:00 pm on 1 May, 2023",
        session_1=[dict(turn, dia_id="D1:1")],
        session_01_date_time="1:00 pm on 9 May, 2023",
        session_01=[dict(turn, dia_id="D2:1")],
    )
    path.write_text(json.dumps(document), encoding="utf-8")
    by_dia = {event.metadata["dia_id"]: event for event in load_locomo(path).events}
    assert by_dia["D1:1"].session_id == "x:session_1"
    assert by_dia["D1:1"].timestamp == datetime(2023, 5, 1, 13, tzinfo=timezone.utc)
    assert by_dia["D2:1"].session_id == "x:session_01"
    assert by_dia["D2:1"].metadata["session"] == "session_01"
    assert by_dia["D2:1"].timestamp == datetime(2023, 5, 9, 13, tzinfo=timezone.utc)


def test_sample_without_id_is_a_problem(tmp_path: Path) -> None:
    """A sample with no sample_id is reported by its position in the file."""
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([{"conversation": {}}]), encoding="utf-8")
    result = load_locomo(path, strict=False)
    assert str(result.problems[0]) == f"{path} sample 1: 'sample_id' is missing"


def test_single_sample_object_is_accepted(tmp_path: Path) -> None:
    """A file holding one sample object (not a list) loads like a list of one."""
    path = tmp_path / "one.json"
    sample = json.loads((FIXTURES / "locomo_small.json").read_text())[1]
    path.write_text(json.dumps(sample), encoding="utf-8")
    assert len(load_locomo(path).events) == 2


def test_session_start_parses_twelve_hour_clock() -> None:
    """12 am is midnight, 12 pm is noon, month names may be abbreviated."""
    assert parse_session_start("12:09 am on 13 September, 2023").hour == 0
    assert parse_session_start("12:30 pm on 1 Jan, 2024") == datetime(
        2024, 1, 1, 12, 30, tzinfo=timezone.utc
    )


@given(
    # Any day a session line can name, the last one of the calendar included.
    start=st.datetimes().map(
        lambda naive: naive.replace(second=0, microsecond=0, tzinfo=timezone.utc)
    ),
    count=st.integers(min_value=1, max_value=400),
)
@example(start=datetime(9999, 12, 31, 23, 59, tzinfo=timezone.utc), count=400)
def test_turn_times_are_ordered_and_stay_on_the_start_day(start: datetime, count: int) -> None:
    """Turn times never go backwards, start at the session start and end before midnight."""
    times = turn_times(start, count)
    assert len(times) == count
    assert times[0] == start
    assert all(a <= b for a, b in pairwise(times))
    assert all(b - a <= TURN_STEP for a, b in pairwise(times))
    assert times[-1].date() == start.date()


@pytest.mark.skipif(not LOCOMO.exists(), reason=f"LoCoMo evaluation data not present at {LOCOMO}")
def test_real_locomo_file_gives_one_event_per_turn() -> None:
    """The shared LoCoMo file loads strictly: one event per turn, each with its dia_id."""
    raw = json.loads(LOCOMO.read_text(encoding="utf-8"))
    turns: Counter[tuple[str, str]] = Counter()
    for sample in raw:
        for key, value in sample["conversation"].items():
            if key.startswith("session_") and isinstance(value, list):
                for turn in value:
                    turns[(sample["sample_id"], turn["dia_id"])] += 1
    result = load_events(LOCOMO)
    assert result.problems == ()
    assert len(result.events) == sum(turns.values())
    assert Counter((e.metadata["sample_id"], e.metadata["dia_id"]) for e in result.events) == turns
    days_by_session: dict[str, set[object]] = {}
    for event in result.events:
        days_by_session.setdefault(event.session_id, set()).add(event.timestamp.date())
    assert all(len(days) == 1 for days in days_by_session.values())
