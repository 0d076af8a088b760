"""The summarizer does not read agent-client noise, while the store keeps every word."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from tocsearch import InMemoryStorage, TocBuilder, TocLevel, ids
from tocsearch.ingest import BuildConfig
from tocsearch.ingest._noise import for_summary, without_client_markup
from tocsearch.models import Event, EventRole, EventType

T0 = datetime(2026, 5, 4, 9, 0, tzinfo=timezone.utc)


def _event(i: int, text: str, *, tool: str | None = None) -> Event:
    when = T0 + timedelta(minutes=i)
    return Event(
        event_id=ids.event_id(when, f"n{i}"),
        session_id="s",
        timestamp=when,
        role=EventRole.ASSISTANT if tool else EventRole.USER,
        event_type=EventType.ASSISTANT_MESSAGE if tool else EventType.USER_MESSAGE,
        text=text,
        metadata={"tool": tool} if tool else {},
    )


def test_client_blocks_go_and_command_text_stays() -> None:
    """Reminder and IDE blocks go whole; command tags go but the command and its output stay."""
    text = (
        "<system-reminder>Remember the todo list.</system-reminder>"
        "<command-name>/review</command-name><command-args>src/cart.py</command-args>"
        "<local-command-stdout>3 findings</local-command-stdout>"
        "<ide_opened_file>The user opened cart.py in the IDE.</ide_opened_file>"
    )
    assert without_client_markup(text) == "/reviewsrc/cart.py3 findings"


@given(st.text())
def test_text_without_client_tags_is_unchanged(text: str) -> None:
    """Text holding no client tag (HTML included) reaches the summarizer as it is."""
    assert without_client_markup(text.replace("<", "")) == text.replace("<", "")
    assert without_client_markup(f"<strong>{text}</strong>") == f"<strong>{text}</strong>"


def test_todo_bookkeeping_is_left_out_unless_it_is_all_there_is() -> None:
    """TodoWrite calls are not summarised; a segment of nothing else still is."""
    todo = _event(1, "[tool: TodoWrite] fix the flaky retry test", tool="TodoWrite")
    said = _event(2, "The retry test is flaky because the clock is not frozen.")
    assert for_summary([todo, said], BuildConfig()) == [said]
    assert for_summary([todo], BuildConfig()) == [todo]


def test_noise_names_no_segment_but_stays_searchable() -> None:
    """A segment whose turns are wrapped in client markup is titled from what was said, and
    its stored events keep the markup words."""
    events = [
        _event(0, "<command-message>deploy is running</command-message> ship the checkout fix"),
        _event(1, "<system-reminder>ide_selection command-message</system-reminder> ok"),
        _event(2, "Checkout fix shipped; the payment retry works again."),
    ]
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(events)
    (segment,) = storage.get_nodes_by_level(TocLevel.SEGMENT)
    words = f"{segment.title} {segment.summary} {' '.join(segment.keywords)}".casefold()
    assert "command-message" not in words
    assert "ide_selection" not in words
    assert "checkout" in words
    assert any("ide_selection" in event.text for event in storage.get_events())
