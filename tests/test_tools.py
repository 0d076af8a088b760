"""Agent tools: the definitions are valid JSON schema shapes, and handle_tool_call never raises."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests._support.budget import evidence_items
from tocsearch.examples import EXAMPLE_END, load_example_events
from tocsearch.ingest import TocBuilder
from tocsearch.storage import InMemoryStorage
from tocsearch.tools import AgentTools

TOOL_NAMES = [
    "search_node",
    "search_children",
    "navigate",
    "expand_grip",
    "expand_event",
    "browse",
    "memory_search",
]


@pytest.fixture(scope="module")
def tools() -> AgentTools:
    """Tools over the bundled example history, reading time hints as of its end."""
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(load_example_events())
    return AgentTools(storage, now=EXAMPLE_END)


def call(tools: AgentTools, name: str, arguments: Any) -> Any:
    return json.loads(tools.handle_tool_call(name, arguments))


def test_definitions_name_every_tool_with_an_object_schema() -> None:
    """Each definition has a name, a description and an object schema with required keys."""
    definitions = AgentTools.definitions()
    assert [spec["name"] for spec in definitions] == TOOL_NAMES
    for spec in definitions:
        assert spec["description"]
        schema = spec["parameters"]
        assert schema["type"] == "object"
        assert set(schema["required"]) <= set(schema["properties"])
        assert schema["additionalProperties"] is False
    openai = AgentTools.openai_tools()
    assert all(tool["type"] == "function" for tool in openai)
    assert [tool["function"]["name"] for tool in openai] == TOOL_NAMES
    anthropic = AgentTools.anthropic_tools()
    assert [tool["input_schema"]["type"] for tool in anthropic] == ["object"] * len(TOOL_NAMES)


def test_definitions_are_copies() -> None:
    """Changing a returned definition does not change the next call's."""
    AgentTools.definitions()[0]["name"] = "changed"
    assert AgentTools.definitions()[0]["name"] == "search_node"


def test_navigate_then_expand_a_cited_grip(tools: AgentTools) -> None:
    """navigate cites grips when the budget has room for them, and expand_grip returns the raw
    events behind one of them."""
    result = call(
        tools,
        "navigate",
        {"query": "what did we decide about JWT refresh tokens last week", "token_budget": 4000},
    )
    grip_ids = [grip for item in evidence_items(result) for grip in item.get("grip_ids", [])]
    assert grip_ids
    expanded = call(tools, "expand_grip", {"grip_id": grip_ids[0], "events_before": 1})
    assert expanded["grip"]["grip_id"] == grip_ids[0]
    assert expanded["excerpt_events"]
    assert len(expanded["events_before"]) <= 1


def test_expand_event_shows_context(tools: AgentTools) -> None:
    """expand_event returns the event and its neighbours in time order."""
    found = call(
        tools, "search_children", {"query": "ADR-0021", "child_level": "segment", "limit": 1}
    )
    segment = tools.storage.get_node(found["results"][0]["node_id"])
    middle = segment.event_ids[len(segment.event_ids) // 2]
    around = call(
        tools, "expand_event", {"event_id": middle, "events_before": 2, "events_after": 2}
    )
    assert around["event"]["event_id"] == middle
    ordered = (
        [e["event_id"] for e in around["events_before"]]
        + [middle]
        + [e["event_id"] for e in around["events_after"]]
    )
    assert ordered == sorted(ordered)
    assert len(ordered) == 5


def test_search_children_and_search_node(tools: AgentTools) -> None:
    """search_children ranks nodes of a level; search_node searches inside one of them."""
    found = call(
        tools,
        "search_children",
        {"query": "refresh rotation", "child_level": "segment", "limit": 3},
    )
    assert 0 < len(found["results"]) <= 3
    best = found["results"][0]["node_id"]
    inside = call(tools, "search_node", {"node_id": best, "query": "refresh rotation"})
    assert inside["matched"] is True
    assert all(0 < match["score"] <= 1 for match in inside["matches"])


@pytest.mark.parametrize(
    ("name", "arguments", "kind", "fragment"),
    [
        ("drop_tables", {}, "UnknownTool", "unknown tool"),
        ("search_node", "{not json", "InvalidArgument", "not valid JSON"),
        ("search_node", "[1, 2]", "InvalidArgument", "JSON object"),
        ("search_node", {"query": "jwt"}, "InvalidArgument", "'node_id' is required"),
        (
            "search_node",
            {"node_id": "toc:day:1999-01-01", "query": "jwt"},
            "NodeNotFound",
            "toc:day:1999-01-01",
        ),
        (
            "search_node",
            {"node_id": "x", "query": "jwt", "colour": 1},
            "InvalidArgument",
            "unknown argument(s): colour",
        ),
        ("search_children", {"query": ""}, "InvalidArgument", "query must not be empty"),
        ("search_children", {"query": "jwt", "limit": "ten"}, "InvalidArgument", "integer"),
        (
            "search_children",
            {"query": "jwt", "child_level": "decade"},
            "InvalidArgument",
            "level must be one of",
        ),
        ("expand_grip", {"grip_id": "grip:1:missing"}, "GripNotFound", "grip not found"),
        ("navigate", {"query": "   "}, "InvalidArgument", "query"),
        ("expand_event", {"event_id": "evt:0000000000001:x"}, "EventNotFound", "event not found"),
        ("expand_event", {"event_id": "x", "events_after": -1}, "InvalidArgument", "events_after"),
        ("navigate", "[" * 100_000, "InvalidArgument", "nested too deep"),
    ],
)
def test_bad_calls_come_back_as_errors(
    tools: AgentTools, name: str, arguments: Any, kind: str, fragment: str
) -> None:
    """Bad names, arguments and ids are reported as {"error": ...}, never raised."""
    answer = call(tools, name, arguments)
    assert answer["error"]["type"] == kind
    assert fragment in answer["error"]["message"]


@given(
    name=st.sampled_from([*TOOL_NAMES, "other"]),
    arguments=st.one_of(
        st.text(max_size=40),
        st.dictionaries(
            st.sampled_from(
                ["query", "node_id", "grip_id", "limit", "fields", "token_budget", "x"]
            ),
            st.one_of(
                st.none(),
                st.integers(-5, 50),
                st.text(max_size=20),
                st.lists(st.text(max_size=8), max_size=3),
            ),
            max_size=4,
        ),
    ),
)
def test_handle_tool_call_never_raises(name: str, arguments: Any) -> None:
    """Whatever a model sends, the answer is a JSON object string."""
    storage = InMemoryStorage()
    answer = json.loads(AgentTools(storage, now=EXAMPLE_END).handle_tool_call(name, arguments))
    assert isinstance(answer, dict)


def _with_repeated_key(arguments: dict[str, Any], key: str, value: Any) -> str:
    """The JSON text of ``arguments`` with ``key`` written once more, last, holding ``value``."""
    body = json.dumps(arguments)[:-1]
    separator = ", " if arguments else ""
    return f"{body}{separator}{json.dumps(key)}: {json.dumps(value)}}}"


@given(
    name=st.sampled_from(TOOL_NAMES),
    arguments=st.dictionaries(
        st.sampled_from(["query", "node_id", "limit", "token_budget"]),
        st.one_of(st.integers(1, 50), st.text(min_size=1, max_size=10)),
        min_size=1,
        max_size=3,
    ),
    data=st.data(),
)
def test_a_repeated_argument_key_is_refused_naming_the_key(
    name: str, arguments: dict[str, Any], data: st.DataObject
) -> None:
    """Arguments whose JSON gives one key twice (same value or not) are refused as
    InvalidArgument naming the key, never answered from whichever value came last."""
    key = data.draw(st.sampled_from(sorted(arguments)), label="key")
    value = data.draw(st.one_of(st.just(arguments[key]), st.integers(1, 50)), label="value")
    text = _with_repeated_key(arguments, key, value)
    answer = json.loads(AgentTools(InMemoryStorage(), now=EXAMPLE_END).handle_tool_call(name, text))
    assert answer["error"]["type"] == "InvalidArgument"
    assert answer["error"]["message"] == (
        f"arguments give the key {key!r} more than once; give each argument once"
    )


def test_a_repeated_key_inside_a_nested_argument_is_refused(tools: AgentTools) -> None:
    """A key repeated inside an object nested in the arguments is refused the same way."""
    text = '{"query": "jwt", "scope": {"session": "a", "session": "b"}}'
    answer = call(tools, "navigate", text)
    assert answer["error"] == {
        "type": "InvalidArgument",
        "message": "arguments give the key 'session' more than once; give each argument once",
    }
