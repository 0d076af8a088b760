"""The ChatGPT export importer: which branch is read, what is skipped, how null times are set."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tocsearch.errors import ImportFailed
from tocsearch.importers import load_chatgpt
from tocsearch.importers.chatgpt import branch_node_ids
from tocsearch.importers.jsonl import event_to_json_line
from tocsearch.models import EventRole, EventType

FIXTURE = Path(__file__).parent / "fixtures" / "chatgpt_conversations.json"


def test_current_branch_is_followed_and_hidden_messages_skipped() -> None:
    """With current_node set, only its path to the root is read; hidden system text is skipped."""
    events = [
        e for e in load_chatgpt(FIXTURE).events if e.metadata["title"] == "Postgres 16 upgrade plan"
    ]
    assert [e.metadata["message_id"] for e in events] == ["m1", "m2", "m3", "m4b"]
    assert all(e.session_id == "c1a2b3c4-0000-0000-0000-000000000001" for e in events)
    assert events[1].metadata["model"] == "gpt-4o"
    assert events[-1].text == "Set lock_timeout = '3s' and retry the ALTER in a loop."


def test_null_create_time_follows_the_previous_message_by_one_millisecond() -> None:
    """A message without a time sits 1 ms after the one before it, keeping the order."""
    events = [
        e for e in load_chatgpt(FIXTURE).events if e.metadata["title"] == "Postgres 16 upgrade plan"
    ]
    assert events[1].timestamp - events[0].timestamp == timedelta(milliseconds=1)


def test_conversation_without_current_node_reads_the_tree_and_maps_roles() -> None:
    """Without current_node every message is read depth-first; tool output is a TOOL_RESULT."""
    events = [e for e in load_chatgpt(FIXTURE).events if e.metadata["title"] == "Flaky CI"]
    assert [(e.role, e.event_type) for e in events] == [
        (EventRole.USER, EventType.USER_MESSAGE),
        (EventRole.TOOL, EventType.TOOL_RESULT),
        (EventRole.ASSISTANT, EventType.ASSISTANT_MESSAGE),
    ]
    assert events[0].session_id == "c1a2b3c4-0000-0000-0000-000000000002"
    assert events[1].metadata["tool"] == "python"
    assert events[1].text == "AssertionError: expected 900, got 899"
    assert events[2].text == "It reads the wall clock twice; inject a clock.\n[image]"


def test_records_read_counts_every_message_node() -> None:
    """Message nodes on the branch read are counted, whether they become events or are skipped."""
    result = load_chatgpt(FIXTURE)
    assert result.records_read == 9
    assert len(result.events) == 7


def test_reimport_gives_identical_events() -> None:
    """Ids come from message ids, so a second import equals the first."""
    first, second = load_chatgpt(FIXTURE), load_chatgpt(FIXTURE)
    assert [event_to_json_line(e) for e in first.events] == [
        event_to_json_line(e) for e in second.events
    ]


def _conversation(message: dict[str, Any], **extra: Any) -> list[dict[str, Any]]:
    conversation: dict[str, Any] = {
        "title": "t",
        "id": "c",
        "mapping": {"a": {"id": "a", "message": message, "parent": None, "children": []}},
    }
    conversation.update(extra)
    return [conversation]


GOOD_MESSAGE: dict[str, Any] = {
    "id": "a",
    "author": {"role": "user"},
    "create_time": 1770000000.0,
    "content": {"content_type": "text", "parts": ["hi"]},
}


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        (["nope"], "conversation 1: a conversation must be a JSON object, got a string"),
        ([{"title": "t"}], "conversation 1: 'mapping' must be a JSON object, got null"),
        (
            [{"title": "t", "create_time": "yesterday", "mapping": {}}],
            "conversation 1: 'create_time' must be a number of epoch seconds, got 'yesterday'",
        ),
        (
            _conversation(dict(GOOD_MESSAGE, author={"role": "robot"})),
            "conversation 1, message 'a': author role must be one of user, assistant, tool, "
            "system, got 'robot'",
        ),
        (
            _conversation(dict(GOOD_MESSAGE, create_time=None)),
            "message 'a': 'create_time' is null and the conversation has no create_time either",
        ),
        (
            _conversation(dict(GOOD_MESSAGE, content={"content_type": "weird"})),
            "message 'a': content_type 'weird' holds no parts or text",
        ),
        (
            _conversation(
                dict(GOOD_MESSAGE, content={"content_type": "text", "parts": ["hi", {"w": 1}]})
            ),
            "message 'a': part 2 holds no text and no content_type: {'w': 1}",
        ),
        (
            _conversation(dict(GOOD_MESSAGE, content={"content_type": "text", "parts": [None]})),
            "message 'a': part 1 holds no text and no content_type: None",
        ),
        (
            _conversation(dict(GOOD_MESSAGE, create_time=10**400)),
            "message 'a': 'create_time' = 1000000000000000000000000000000000000000",
        ),
    ],
)
def test_bad_conversations_and_messages_are_named(
    tmp_path: Path, document: Any, reason: str
) -> None:
    """Strict mode raises naming the conversation and message; lenient mode reports them."""
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ImportFailed) as caught:
        load_chatgpt(path)
    assert str(caught.value) == f"{path} {reason}" or reason in str(caught.value)
    assert str(caught.value).startswith(f"{path} conversation 1")
    assert len(load_chatgpt(path, strict=False).problems) == 1


def test_non_json_file_is_refused(tmp_path: Path) -> None:
    """A file that is not JSON raises naming the file, even in lenient mode."""
    path = tmp_path / "conversations.json"
    path.write_text("<html>", encoding="utf-8")
    with pytest.raises(ImportFailed, match="not valid JSON"):
        load_chatgpt(path, strict=False)


def test_non_utf8_file_is_refused_with_the_offset(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 are refused with their offset, not decoded by guesswork."""
    path = tmp_path / "conversations.json"
    path.write_bytes(b'[{"title": "caf\xe9"}]')
    with pytest.raises(ImportFailed, match=r"not UTF-8 text \(byte 0xe9 on line 1, offset 15\)"):
        load_chatgpt(path)


def test_branch_survives_a_parent_cycle() -> None:
    """A corrupt tree whose parents form a cycle is still read, once per node."""
    mapping = {
        "a": {"parent": "b", "children": ["b"]},
        "b": {"parent": "a", "children": ["a"]},
    }
    assert sorted(branch_node_ids(mapping, None)) == ["a", "b"]
    assert sorted(branch_node_ids(mapping, "a")) == ["a", "b"]


_ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=5,
)
_KEYS = st.sampled_from(["a", "b", "c", "d"])
_NODES = st.one_of(
    _ANY_JSON,
    st.fixed_dictionaries(
        {},
        optional={
            "parent": st.one_of(_KEYS, _ANY_JSON),
            "children": st.one_of(st.lists(st.one_of(_KEYS, _ANY_JSON), max_size=4), _ANY_JSON),
        },
    ),
)


@given(mapping=st.dictionaries(_KEYS, _NODES, max_size=4), current=st.one_of(_KEYS, _ANY_JSON))
@example(mapping={"a": {"parent": ["x"], "children": []}}, current=None)
@example(mapping={"a": {"parent": None, "children": [{"x": 1}]}}, current=None)
@example(mapping={"a": {"parent": {"p": 1}}}, current="b")
def test_any_mapping_gives_each_node_once(mapping: dict[str, Any], current: Any) -> None:
    """Whatever a damaged export holds for parents and children (lists and objects
    included), the branch names each node at most once: the path to the current node when
    there is one, else every node."""
    found = branch_node_ids(mapping, current)
    assert len(found) == len(set(found))
    if isinstance(current, str) and current in mapping:
        assert found[-1] == current
        assert set(found) <= set(mapping)
    else:
        assert set(found) == set(mapping)
