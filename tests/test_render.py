"""What a person reads from ``expand``: where it was said, how to resume it, clipped tool output."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import attrs

from tocsearch import _render, ids
from tocsearch.models import Event, EventRole, EventType
from tocsearch.service import ExpandEventResponse

T0 = datetime(2026, 7, 1, 3, 30, tzinfo=timezone.utc)


def _event(i: int, text: str, *, tool: bool = False) -> Event:
    when = T0 + timedelta(minutes=i)
    return Event(
        event_id=ids.event_id(when, f"r{i}"),
        session_id="5b1c2d3e-0001",
        timestamp=when,
        role=EventRole.TOOL if tool else EventRole.USER,
        event_type=EventType.TOOL_RESULT if tool else EventType.USER_MESSAGE,
        text=text,
        metadata={"project": "-home-dev-shop", "cwd": "/home/dev/my shop", "git_branch": "main"},
        agent="claude-code",
    )


def test_a_claude_code_event_shows_its_place_and_how_to_resume() -> None:
    """Project, session and branch head the context, then the command that resumes it."""
    shown = _render.event_context(ExpandEventResponse(_event(0, "run the tests"), (), ()))
    assert "project /home/dev/my shop  session 5b1c2d3e-0001  branch main" in shown
    assert "resume: cd '/home/dev/my shop' && claude -r 5b1c2d3e-0001" in shown


def test_long_tool_output_is_clipped_and_says_so() -> None:
    """A tool output past the limit is cut with a note of how much is hidden; --full shows it;
    what people said is never cut."""
    output = "Q" * (_render.TOOL_OUTPUT_SHOWN + 250)
    said = "Z" * (_render.TOOL_OUTPUT_SHOWN + 250)
    response = ExpandEventResponse(_event(1, output, tool=True), (_event(0, said),), ())
    clipped = _render.event_context(response)
    assert "tool output clipped: 250 more characters; --full shows all" in " ".join(clipped.split())
    assert clipped.count("Q") == _render.TOOL_OUTPUT_SHOWN
    assert clipped.count("Z") == len(said)
    full = _render.event_context(response, full=True)
    assert full.count("Q") == len(output)
    assert "clipped" not in full


def test_times_show_on_the_readers_clock() -> None:
    """03:30 UTC shows as 20:30 the day before in UTC-7."""
    response = ExpandEventResponse(_event(0, "hello"), (), ())
    assert "2026-07-01 03:30" in _render.event_context(response)
    shown = _render.event_context(response, zone=timezone(timedelta(hours=-7)))
    assert "2026-06-30 20:30" in shown


def test_the_resume_command_quotes_what_the_shell_would_read() -> None:
    """A session id or directory the shell would split or run is quoted; a source other than
    Claude Code has no resume command."""
    hostile = attrs.evolve(_event(0, "hi"), session_id="a;rm -rf ~")
    assert _render.resume_command(hostile) == "cd '/home/dev/my shop' && claude -r 'a;rm -rf ~'"
    assert _render.resume_command(attrs.evolve(hostile, metadata={})) == "claude -r 'a;rm -rf ~'"
    assert _render.resume_command(attrs.evolve(hostile, agent="chatgpt")) == ""
