"""Each shared rule of tocsearch is spelled in one place: id formats in ids.py, argument checks
in _checks.py, clipping in text.py. The source scans here fail when a module spells one again;
the behaviour tests show every user of a rule answering the same way."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tocsearch import ids
from tocsearch.errors import InvalidArgument
from tocsearch.ingest import BuildConfig
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate import Navigator, TimeRange, parse_time_hints
from tocsearch.search import rank_nodes
from tocsearch.storage import InMemoryStorage
from tocsearch.summarize import ExtractiveSummarizer, Summary
from tocsearch.text import ELLIPSIS, clip, collapse_spaces

SOURCE = Path(__file__).resolve().parents[1] / "src" / "tocsearch"
NAIVE = datetime(2026, 1, 30, 9, 0)


def _spelled_outside(pattern: str, home: str) -> list[str]:
    """The lines of src/tocsearch, outside ``home``, that match ``pattern``."""
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        relative = path.relative_to(SOURCE).as_posix()
        if relative == home:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(pattern, line):
                found.append(f"{relative}:{number}: {line.strip()}")
    return found


def test_id_formats_are_spelled_in_ids_only() -> None:
    """No module but ids.py builds or tests an id from its literal prefix."""
    assert _spelled_outside(r"""f["'](evt|grip|toc):|\(["'](evt|grip|toc):""", "ids.py") == []
    # Nor reads an id's parts by position.
    assert _spelled_outside(r"_id\[\d*:\d*\]", "ids.py") == []


def test_timezone_and_whole_number_checks_are_spelled_once() -> None:
    """No module but _checks.py tests for a naive datetime or a bool posing as a count."""
    assert _spelled_outside(r"utcoffset\(\) is None", "_checks.py") == []
    assert (
        _spelled_outside(
            r"isinstance\(\w+, bool\).*[<>]|[<>].*isinstance\(\w+, bool\)", "_checks.py"
        )
        == []
    )


def test_text_is_clipped_in_text_py_only() -> None:
    """No module but text.py ends a cut text with an ellipsis of its own or shortens text."""
    assert _spelled_outside(r"""\+ ["'](\.\.\.|…)["']|textwrap\.shorten""", "text.py") == []


WHOLE_NUMBER_USERS: list[tuple[str, Callable[[], object]]] = [
    ("width", lambda: Navigator(InMemoryStorage(), width=0)),
    ("text_cache", lambda: Navigator(InMemoryStorage(), text_cache=-1)),
    ("ExtractiveSummarizer.max_bullets", lambda: ExtractiveSummarizer(max_bullets=0)),
    ("BuildConfig.max_segment_tokens", lambda: BuildConfig(max_segment_tokens=True)),
    ("limit", lambda: rank_nodes([], "jwt", limit=0)),
]


@pytest.mark.parametrize(
    ("name", "make"), WHOLE_NUMBER_USERS, ids=[n for n, _ in WHOLE_NUMBER_USERS]
)
def test_every_count_is_refused_alike(name: str, make: Callable[[], object]) -> None:
    """A count that is not a whole number in range is refused with one message everywhere."""
    with pytest.raises(
        InvalidArgument, match=rf"^{re.escape(name)} must be a whole number of at least \d+, got "
    ):
        make()


AWARE_USERS: list[Callable[[], object]] = [
    lambda: ids.to_epoch_ms(NAIVE),
    lambda: ids.calendar_node_id(TocLevel.DAY, NAIVE),
    lambda: TimeRange(NAIVE, NAIVE + timedelta(days=1)),
    lambda: parse_time_hints("last week", now=NAIVE),
    lambda: Navigator(InMemoryStorage(), now=NAIVE),
]


@pytest.mark.parametrize("make", AWARE_USERS)
def test_every_naive_time_is_refused_alike(make: Callable[[], object]) -> None:
    """A naive datetime is refused with one message everywhere, showing the value."""
    with pytest.raises(
        InvalidArgument, match="must be timezone-aware, got naive 2026-01-30T09:00:00"
    ):
        make()


@given(text=st.text(max_size=300), limit=st.integers(1, 200))
def test_a_clipped_text_fits_on_one_line_and_starts_the_text(text: str, limit: int) -> None:
    """clip gives at most ``limit`` characters on one line: the whole text when it fits, else
    a start of it ended by the ellipsis."""
    clipped = clip(text, limit)
    whole = collapse_spaces(text)
    assert len(clipped) <= limit
    assert "\n" not in clipped
    if len(whole) <= limit:
        assert clipped == whole
    elif limit > 1:
        assert clipped.endswith(ELLIPSIS)
        assert whole.startswith(clipped[: -len(ELLIPSIS)])


RECORD_USERS: list[tuple[str, Callable[[], object]]] = [
    (
        "bullets must hold TocBullet records, got 'x'",
        lambda: TocNode(
            node_id="toc:day:2026-01-30",
            level=TocLevel.DAY,
            title="t",
            start_time=NAIVE.replace(tzinfo=timezone.utc),
            end_time=NAIVE.replace(tzinfo=timezone.utc),
            bullets=["x"],  # type: ignore[list-item]
        ),
    ),
    (
        "Summary.bullets must hold SummaryBullet records, got 'x'",
        lambda: Summary("t", ["x"]),  # type: ignore[list-item]
    ),
    (
        "Summary.bullets must be a collection of SummaryBullet records, got 3",
        lambda: Summary("t", 3),  # type: ignore[arg-type]
    ),
]


@pytest.mark.parametrize(("message", "make"), RECORD_USERS)
def test_every_collection_of_records_is_checked_alike(
    message: str, make: Callable[[], object]
) -> None:
    """A collection that holds something other than the records it should is refused with one
    message shape everywhere, naming the field and the stray value."""
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        make()
