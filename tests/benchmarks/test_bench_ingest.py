"""The ingest benchmark's LoCoMo-format history: copies of a LoCoMo file read by the LoCoMo
importer, each copy under its own sample ids and four years later than the one before."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmarks.bench_ingest import locomo_events, main

from tocsearch.importers import load_locomo

FIXTURE = Path(__file__).parent / "fixtures" / "tiny_locomo.json"


def test_copies_are_the_imported_turns_moved_on_by_four_years() -> None:
    turns = load_locomo(FIXTURE).events
    events = locomo_events(FIXTURE, 2 * len(turns) + 1)
    assert len(events) == 2 * len(turns) + 1
    assert len({event.event_id for event in events}) == len(events)
    assert [event.event_id for event in events] == sorted(event.event_id for event in events)
    first, second = events[: len(turns)], events[len(turns) : 2 * len(turns)]
    assert [event.text for event in first] == [event.text for event in turns]
    assert [event.text for event in second] == [event.text for event in turns]
    for original, moved in zip(first, second, strict=True):
        assert moved.timestamp.year == original.timestamp.year + 4
        assert moved.timestamp.replace(year=original.timestamp.year) == original.timestamp
    assert {event.session_id for event in first}.isdisjoint(event.session_id for event in second)


def test_a_locomo_run_prints_the_one_batch_build(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--locomo", str(FIXTURE), "--one-batch", "9"])
    assert "      9 events, one batch :" in capsys.readouterr().out


def test_locomo_needs_a_file() -> None:
    with pytest.raises(SystemExit, match="--locomo needs a LoCoMo-format file"):
        main(["--one-batch", "--locomo"])
