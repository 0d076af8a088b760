"""Hypothesis strategies for event streams that exercise segmentation: short and long silences,
midnights, several sessions, long tool results, and texts of varied size."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import strategies as st

from tocsearch import ids
from tocsearch.ingest import BuildConfig
from tocsearch.models import Event, EventRole, EventType

STREAM_START = datetime(2026, 1, 28, 22, 0, tzinfo=timezone.utc)

# Small limits so that a few dozen events hit every segmentation rule.
SMALL_CONFIG = BuildConfig(
    segment_gap=timedelta(minutes=30),
    max_segment_tokens=120,
    overlap_window=timedelta(minutes=5),
    overlap_max_tokens=40,
    tool_result_cut=90,
)

_SENTENCES = (
    "The JWT refresh token expires too early and the API answers 401.",
    "We moved the expiry check in auth/middleware.py below the refresh handling.",
    "Postgres migration 0042 holds a lock on the sessions table.",
    "Set lock_timeout to 5s so the connection pool stops timing out.",
    "Caroline asked about the adoption agency and the support group.",
    "The flaky CI job fails when the pytest cache key changes.",
    "Really, the thing is fine.",
    "ok",
    "Docker image size dropped after the multi-stage build.",
)

_ROLES = {
    EventRole.USER: EventType.USER_MESSAGE,
    EventRole.ASSISTANT: EventType.ASSISTANT_MESSAGE,
    EventRole.TOOL: EventType.TOOL_RESULT,
    EventRole.SYSTEM: EventType.SESSION_START,
}

# Seconds to the next event: mostly a conversation's pace, sometimes a pause past the gap,
# sometimes hours (which crosses midnight from the 22:00 start).
gaps = st.one_of(
    st.integers(0, 240),
    st.integers(0, 240),
    st.integers(1_700, 1_900),
    st.integers(3_600, 30_000),
)


@st.composite
def event_streams(draw: st.DrawFn, min_size: int = 1, max_size: int = 30) -> list[Event]:
    """Events in time order with unique ids, over one to a few days."""
    count = draw(st.integers(min_size, max_size))
    clock = STREAM_START + timedelta(milliseconds=draw(st.integers(0, 3_600_000)))
    made: list[Event] = []
    for index in range(count):
        clock += timedelta(seconds=draw(gaps), milliseconds=draw(st.integers(0, 999)))
        role = draw(st.sampled_from(list(_ROLES)))
        parts = draw(st.lists(st.sampled_from(_SENTENCES), min_size=0, max_size=4))
        text = " ".join(parts)
        if role is EventRole.TOOL and draw(st.booleans()):
            text += " log" * draw(st.integers(50, 200))
        made.append(
            Event(
                event_id=ids.event_id(clock, f"e{index}"),
                session_id=draw(st.sampled_from(["s1", "s2"])),
                timestamp=clock,
                role=role,
                event_type=_ROLES[role],
                text=text,
            )
        )
    return made


@st.composite
def batchings(draw: st.DrawFn, events: list[Event]) -> list[list[Event]]:
    """The events shuffled and cut into batches, some events repeated."""
    shuffled = draw(st.permutations(events))
    repeats = draw(st.lists(st.sampled_from(events), max_size=3)) if events else []
    pool = list(shuffled) + repeats
    cuts = sorted(draw(st.lists(st.integers(0, len(pool)), max_size=4)))
    batches: list[list[Event]] = []
    previous = 0
    for cut in [*cuts, len(pool)]:
        batches.append(pool[previous:cut])
        previous = cut
    return batches
