"""The Claude Code transcript importer: blocks to events, skipped line types, ids per block."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tocsearch.errors import ImportFailed
from tocsearch.importers import load_claude_code
from tocsearch.importers.claude_code import tool_call_text
from tocsearch.models import EventRole, EventType

FIXTURES = Path(__file__).parent / "fixtures" / "claude_code"
FIRST = FIXTURES / "-home-dev-auth-service" / "5b1c2d3e-0001.jsonl"


def test_one_transcript_maps_text_tool_calls_and_results() -> None:
    """Text, tool_use and tool_result blocks become events; thinking and bookkeeping do not."""
    result = load_claude_code(FIRST)
    assert result.problems == ()
    assert [(e.role, e.event_type, e.text[:20]) for e in result.events] == [
        (EventRole.USER, EventType.USER_MESSAGE, "The refresh test fai"),
        (EventRole.ASSISTANT, EventType.ASSISTANT_MESSAGE, "Let me run the faili"),
        (EventRole.ASSISTANT, EventType.ASSISTANT_MESSAGE, "[tool: Bash] pytest "),
        (EventRole.TOOL, EventType.TOOL_RESULT, "FAILED tests/test_re"),
        (EventRole.ASSISTANT, EventType.ASSISTANT_MESSAGE, "The token's iat is 4"),
    ]
    assert result.records_read == 8


def test_tool_events_carry_tool_name_input_and_error_flag() -> None:
    """A call keeps its name and input; its result is linked to the call's tool name."""
    events = load_claude_code(FIRST).events
    call, answer = events[2], events[3]
    assert call.text == "[tool: Bash] pytest tests/test_refresh.py -x"
    assert call.metadata["tool"] == "Bash"
    assert json.loads(call.metadata["tool_input"])["description"] == "Run refresh tests"
    assert answer.metadata["tool"] == "Bash"
    assert answer.metadata["tool_use_id"] == "toolu_01"
    assert answer.metadata["is_error"] == "true"


def test_ids_are_uuid_plus_block_index_and_sessions_come_from_the_line() -> None:
    """Events of one line get distinct ids from its uuid and block index."""
    events = load_claude_code(FIRST).events
    suffixes = [e.event_id.split(":", 2)[2] for e in events]
    assert suffixes[1] == "a0000000-0000-0000-0000-000000000002.1"
    assert suffixes[2] == "a0000000-0000-0000-0000-000000000002.2"
    assert {e.session_id for e in events} == {"5b1c2d3e-0001"}
    assert all(e.agent == "claude-code" for e in events)
    assert events[0].metadata["cwd"] == "/home/dev/auth-service"
    assert events[1].metadata["model"] == "claude-sonnet-4-5"


def test_directory_reads_every_transcript_and_collapses_repeated_lines() -> None:
    """A directory loads all *.jsonl below it; a line repeated by a resumed session counts once."""
    result = load_claude_code(FIXTURES)
    assert result.problems == ()
    assert len(result.events) == 7
    assert [e.text for e in result.events[-2:]] == ["Resume: did the leeway fix land?", "[image]"]
    assert load_claude_code(FIXTURES).events == result.events


def test_directory_without_transcripts_is_refused(tmp_path: Path) -> None:
    """An empty directory is an error rather than an empty import."""
    with pytest.raises(ImportFailed, match=r"holds no \*\.jsonl transcript"):
        load_claude_code(tmp_path)


def _line(**overrides: Any) -> str:
    record: dict[str, Any] = {
        "type": "user",
        "uuid": "u-1",
        "sessionId": "s",
        "timestamp": "2026-01-06T09:00:00Z",
        "message": {"role": "user", "content": "hello"},
    }
    record.update(overrides)
    return json.dumps(record)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("{broken", "line 1: not valid JSON"),
        (_line(uuid=None), "line 1: 'uuid' is missing"),
        (_line(timestamp="2026-01-06 09:00"), "line 1: 'timestamp' has no UTC offset"),
        (_line(message="hi"), "line 1: 'message' must be a JSON object, got a string"),
        (_line(message={"content": 5}), "'message.content' must be a string or a list, got 5"),
        (
            _line(message={"content": [{"type": "tool_result", "content": [7]}]}),
            "tool_result content holds a non-block item: 7",
        ),
        (_line(message={"content": [{"type": "tool_use", "input": {}}]}), "'name' is missing"),
        (
            _line(message={"content": [{"type": "tool_result", "content": 3}]}),
            "tool_result content must be a string or a list, got 3",
        ),
    ],
)
def test_bad_lines_name_file_line_and_reason(tmp_path: Path, line: str, reason: str) -> None:
    """Strict mode raises on the bad line with its file and number; lenient mode reports it."""
    path = tmp_path / "s.jsonl"
    path.write_text(line + "\n" + _line(uuid="u-2") + "\n", encoding="utf-8")
    with pytest.raises(ImportFailed) as caught:
        load_claude_code(path)
    assert str(caught.value).startswith(f"{path} line 1: ")
    assert reason in str(caught.value)
    lenient = load_claude_code(path, strict=False)
    assert len(lenient.events) == 1
    assert [p.location for p in lenient.problems] == ["line 1"]


def test_problems_in_a_directory_name_the_transcript_file(tmp_path: Path) -> None:
    """When reading a directory, each problem names the transcript it came from."""
    shutil.copytree(FIXTURES, tmp_path / "projects")
    bad = tmp_path / "projects" / "other" / "broken.jsonl"
    bad.parent.mkdir()
    bad.write_text(_line(timestamp=None) + "\n", encoding="utf-8")
    result = load_claude_code(tmp_path / "projects", strict=False)
    assert len(result.events) == 7
    assert (
        str(result.problems[0])
        == f"{bad} line 1: 'timestamp' must be an ISO 8601 string, got null None"
    )


def test_tool_call_text_shows_the_gist_of_the_input() -> None:
    """Common tools show their main argument; others show their input as compact JSON."""
    assert tool_call_text("Bash", {"command": "npm test"}) == "[tool: Bash] npm test"
    assert tool_call_text("Custom", {"b": 1, "a": "x"}) == '[tool: Custom] {"a": "x", "b": 1}'
    assert tool_call_text("TodoWrite", {}) == "[tool: TodoWrite]"
    assert len(tool_call_text("Bash", {"command": "x" * 1000})) < 330


def _session_line(uuid: str, text: str, *, session: str, minute: int, **extra: Any) -> str:
    return json.dumps(
        {
            "type": "user",
            "uuid": uuid,
            "sessionId": session,
            "timestamp": f"2026-02-03T10:{minute:02d}:00Z",
            "cwd": "/home/dev/shop",
            "message": {"role": "user", "content": text},
            **extra,
        }
    )


def test_subagent_transcripts_belong_to_their_sessions_project(tmp_path: Path) -> None:
    """A transcript under <project>/<session>/subagents/ is of <project>, and keeps its agent."""
    project = tmp_path / "-home-dev-shop"
    (project / "s1" / "subagents").mkdir(parents=True)
    (project / "s1.jsonl").write_text(
        _session_line("u1", "main work", session="s1", minute=1) + "\n"
    )
    (project / "s1" / "subagents" / "agent-a1.jsonl").write_text(
        _session_line(
            "u2", "explore the code", session="s1", minute=2, agentId="a1", isSidechain=True
        )
        + "\n"
    )
    events = load_claude_code(tmp_path).events
    assert [(e.metadata["project"], e.metadata.get("agent_id")) for e in events] == [
        ("-home-dev-shop", None),
        ("-home-dev-shop", "a1"),
    ]


def test_a_summary_line_titles_the_session_that_holds_its_leaf(tmp_path: Path) -> None:
    """Claude Code's summary of a conversation (found in any transcript read together, as a
    resumed session writes it) becomes the title of every event of the summarised session,
    the newest summary winning; other sessions get none."""
    project = tmp_path / "-home-dev-shop"
    project.mkdir()
    (project / "old.jsonl").write_text(
        _session_line("u1", "first", session="old", minute=1)
        + "\n"
        + _session_line("u2", "second", session="old", minute=2)
        + "\n"
    )
    summaries = [
        {"type": "summary", "summary": "Early  draft", "leafUuid": "u1"},
        {"type": "summary", "summary": "Checkout retry fix", "leafUuid": "u2"},
    ]
    (project / "new.jsonl").write_text(
        "\n".join(json.dumps(line) for line in summaries)
        + "\n"
        + _session_line("u3", "go on", session="new", minute=5)
        + "\n"
    )
    events = load_claude_code(tmp_path).events
    assert [(e.session_id, e.metadata.get("title")) for e in events] == [
        ("old", "Checkout retry fix"),
        ("old", "Checkout retry fix"),
        ("new", None),
    ]


def test_unknown_blocks_keep_their_text_and_are_counted(tmp_path: Path) -> None:
    """Block types the importer does not know (at the top or inside a tool result) keep their
    text where they have any, are counted by type, and never fail a strict import."""
    blocks = [
        {"type": "hologram", "text": "a projected diagram of the auth flow"},
        {"type": "hologram"},
        {
            "type": "tool_result",
            "tool_use_id": "toolu_9",
            "content": [
                {"type": "tool_reference", "tool_name": "mcp__github__create_issue"},
                {"type": "server_note", "content": "rate limit near"},
                {"type": "server_note"},
            ],
        },
    ]
    path = tmp_path / "s.jsonl"
    path.write_text(_line(message={"role": "user", "content": blocks}) + "\n", encoding="utf-8")
    result = load_claude_code(path)
    assert result.problems == ()
    assert [event.text for event in result.events] == [
        "a projected diagram of the auth flow",
        "[tool reference: mcp__github__create_issue]\nrate limit near",
    ]
    assert result.events[0].metadata["block_type"] == "hologram"
    assert result.unknown_content == {"hologram": 2, "server_note": 2}
    assert load_claude_code(path, strict=False) == result


def test_a_tool_search_result_lists_the_tools_it_found(tmp_path: Path) -> None:
    """A 2026 transcript's ToolSearch result (tool_reference blocks) loads in strict mode as the
    names of the tools found, with nothing counted as unknown."""
    call = _line(
        type="assistant",
        uuid="u-1",
        message={
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "ToolSearch",
                    "input": {"query": "select:mcp__echo__echo", "max_results": 1},
                },
            ],
        },
    )
    answer = _line(
        uuid="u-2",
        timestamp="2026-01-06T09:00:01Z",
        message={
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [{"type": "tool_reference", "tool_name": "mcp__echo__echo"}],
                },
            ],
        },
    )
    path = tmp_path / "s.jsonl"
    path.write_text(call + "\n" + answer + "\n", encoding="utf-8")
    result = load_claude_code(path)
    assert result.events[-1].text == "[tool reference: mcp__echo__echo]"
    assert result.events[-1].metadata["tool"] == "ToolSearch"
    assert result.unknown_content == {}
