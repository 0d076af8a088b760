"""Event ids written short: a segment's pattern and each event's reference under it."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.strategies import suffixes, utc_datetimes

from tocsearch import ids
from tocsearch.errors import InvalidArgument
from tocsearch.navigate import cited_event_ids
from tocsearch.navigate._event_refs import id_pattern, resolve_ref, run_pattern, short_ref

_event_ids = st.builds(ids.event_id, utc_datetimes(), suffixes)


@given(first=_event_ids, other=_event_ids)
def test_a_reference_fills_its_pattern_back_to_the_id(first: str, other: str) -> None:
    """Under the pattern of any event id, that id has a reference, and every id that has one
    (any other) is given back whole by filling it in; a reference is shorter than its id."""
    pattern = id_pattern(first)
    assert pattern is not None
    own = short_ref(pattern, first)
    assert own is not None
    assert resolve_ref(pattern, own) == first
    assert len(own) < len(first)
    ref = short_ref(pattern, other)
    if ref is not None:
        assert resolve_ref(pattern, ref) == other


@given(
    at=utc_datetimes(),
    step=st.integers(1, 3_600_000),
    stem=st.sampled_from(["conv-26:D1:", "a:b:", ""]),
)
def test_events_of_one_conversation_within_an_hour_share_a_pattern(
    at: datetime, step: int, stem: str
) -> None:
    """Two events of one conversation (ids that share the suffix up to its last ':') an hour
    apart at most share the first one's pattern unless a 28-hour block of milliseconds turns
    over between them, or the second's time is finer than the first's."""
    first = ids.event_id(at, f"{stem}1")
    second = ids.event_id(at + timedelta(milliseconds=step), f"{stem}2")
    pattern = run_pattern([first, second])
    first_ms, second_ms = ids.event_id_ms(first), ids.event_id_ms(second)
    zeros = min(3, len(str(first_ms)) - len(str(first_ms).rstrip("0")))
    same_block = first_ms // 10**8 == second_ms // 10**8
    assert (pattern is not None) == (same_block and second_ms % 10**zeros == 0)


def test_a_run_without_a_second_fitting_event_writes_no_pattern() -> None:
    """One event alone, or followed only by events of other conversations or statements (no
    event id of their own), writes every id in full."""
    first = "evt:1683554220000:conv-26:D1:3"
    assert run_pattern([first]) is None
    assert run_pattern([first, "evt:1683554280000:conv-30:D1:3", None]) is None
    assert run_pattern([None, first, first]) is None
    assert run_pattern([first, None, "evt:1683554280000:conv-26:D1:5"]) == (
        "evt:16835*000:conv-26:D1:*"
    )


@pytest.mark.parametrize(
    ("pattern", "ref", "message"),
    [
        ("evt:16835*000:conv-26:D1:*", "5422:3", "takes 5 digits"),
        ("evt:16835*000:conv-26:D1:*", "54220", "takes 5 digits"),
        ("evt:16835*000:conv-26:D1:*", "5422x:3", "takes 5 digits"),
        ("evt:16835*000:conv-26:D1:*", "54220:a b", "under"),
        ("evt:16835*000:*", "54220:", "under"),
        ("evt:1683*000:*", "54220:3", "is not an event id pattern"),
        ("evt:16835*000:conv-26", "54220:3", "is not an event id pattern"),
        (["evt:16835*000:*"], "54220:3", "is not an event id pattern"),
        ("evt:16835*000:*", 54220, "takes"),
    ],
)
def test_a_reference_that_does_not_fill_its_pattern_is_refused(
    pattern: object, ref: object, message: str
) -> None:
    """A malformed pattern or a reference of the wrong shape is a clear error, never an id
    that was not written."""
    with pytest.raises(InvalidArgument, match=message):
        resolve_ref(pattern, ref)  # type: ignore[arg-type]


def test_the_markdown_of_a_bad_reference_is_refused() -> None:
    """A reference in Markdown that does not fill its heading's pattern is a clear error."""
    markdown = (
        '**toc:segment:2023-05-08:x** (ids evt:16835*000:conv-26:D1:*)\n- 13:57 "hi" [54:3]\n'
    )
    with pytest.raises(InvalidArgument, match="takes 5 digits"):
        cited_event_ids(markdown)
    # Without a pattern above it nothing is a reference: only ids in full are cited.
    plain = '**toc:segment:2023-05-08:x**\n- 13:57 "hi" [54220:3] [evt:1683554220000:c:1]\n'
    assert cited_event_ids(plain) == ("evt:1683554220000:c:1",)
