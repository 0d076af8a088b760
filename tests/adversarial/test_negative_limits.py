"""A negative limit is refused wherever a limit is taken: the library raises InvalidArgument
naming it, the agent tools and the MCP server answer an error result, the command line exits 2
with a usage error. An empty answer would pass a caller's mistake off as "nothing found"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests._support.cli import example_store, run
from tests._support.storage_helpers import BACKENDS, MEMORY_BACKENDS, open_store

from tocsearch import (
    AgentTools,
    IndexSeeder,
    InMemoryStorage,
    Navigator,
    SearchIndex,
    TocBuilder,
    TocLevel,
    rank_nodes,
    relevant_context,
    search_children,
)
from tocsearch.errors import InvalidArgument
from tocsearch.examples import EXAMPLE_END, load_example_events
from tocsearch.mcp_server import ToolHost

negative = st.integers(max_value=-1)

_STORE = InMemoryStorage()
TocBuilder(_STORE).ingest(load_example_events())
_INDEX = SearchIndex(_STORE)
_DAY = _STORE.get_nodes_by_level(TocLevel.DAY)[0]
_FIRST_EVENT = _STORE.get_events()[0].event_id

# Each library call that takes a limit, with the limit in its place.
_LIBRARY: dict[str, Callable[[int], object]] = {
    "rank_nodes": lambda n: rank_nodes([_DAY], "JWT refresh", limit=n),
    "search_children": lambda n: search_children(_STORE, "", "JWT refresh", limit=n),
    "Navigator max_evidence": lambda n: Navigator(_STORE, max_evidence=n),
    "SearchIndex.search": lambda n: _INDEX.search("JWT refresh", limit=n),
    "SearchIndex.fts_events": lambda n: _INDEX.fts_events("JWT refresh", limit=n),
    "SearchIndex.fts_event_owners": lambda n: _INDEX.fts_event_owners("JWT refresh", limit=n),
    "SearchIndex.fts_segments": lambda n: _INDEX.fts_segments("JWT refresh", limit=n),
    "SearchIndex.nearest_events": lambda n: _INDEX.nearest_events("JWT refresh", limit=n),
    "IndexSeeder.seed": lambda n: IndexSeeder(_INDEX).seed(
        "JWT refresh", limit=n, start=None, end=None
    ),
    "IndexSeeder.seed_events": lambda n: IndexSeeder(_INDEX).seed_events(
        "JWT refresh", limit=n, start=None, end=None
    ),
    "relevant_context": lambda n: relevant_context(_INDEX, "JWT refresh", limit=n),
    "AgentTools.relevant_context": lambda n: AgentTools(_STORE).relevant_context(
        "JWT refresh", limit=n
    ),
}


def test_the_calls_answer_a_good_limit() -> None:
    """Each call runs with a limit of 1, so the refusals below are of the limit alone."""
    assert _STORE.count_events() > 0
    for call in _LIBRARY.values():
        call(1)  # raises nothing


@pytest.mark.parametrize("name", sorted(_LIBRARY))
@given(limit=negative)
def test_the_library_refuses_a_negative_limit(name: str, limit: int) -> None:
    """InvalidArgument naming the argument and the value, for every call that takes one."""
    with pytest.raises(InvalidArgument, match=f"must be a whole number of at least 1, got {limit}"):
        _LIBRARY[name](limit)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("method", ["get_events_before", "get_events_after"])
def test_every_store_refuses_a_negative_neighbour_limit(
    tmp_path: Path, backend: str, method: str
) -> None:
    """A store's neighbour queries take 0 (nothing asked) but refuse -1 and below."""
    store = open_store(backend, None if backend in MEMORY_BACKENDS else tmp_path / "store")
    with store:
        store.put_events(_STORE.get_events()[:3])
        assert getattr(store, method)(_FIRST_EVENT, 0) == []
        for limit in (-1, -(10**20)):
            with pytest.raises(
                InvalidArgument, match=f"limit must be a whole number of at least 0, got {limit}"
            ):
                getattr(store, method)(_FIRST_EVENT, limit)
        store.check()


# Each tool's arguments, with the limit to refuse under "limit".
_TOOL_CALLS = {
    "search_children": {"query": "JWT refresh"},
    "search_node": {"query": "JWT refresh", "node_id": _DAY.node_id},
    "navigate": {"query": "JWT refresh"},
    "browse": {},
    "memory_search": {"query": "JWT refresh"},
}


@pytest.mark.parametrize("name", sorted(_TOOL_CALLS))
@given(limit=negative)
def test_the_agent_tools_answer_an_error(name: str, limit: int) -> None:
    """A tool call with a negative limit is an InvalidArgument error result, not an empty
    list of results."""
    tools = AgentTools(_STORE)
    answer = json.loads(tools.handle_tool_call(name, {**_TOOL_CALLS[name], "limit": limit}))
    assert answer == {
        "error": {
            "type": "InvalidArgument",
            "message": f"limit must be a whole number of at least 1, got {limit}",
        }
    }


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of the bundled example history."""
    return example_store(tmp_path_factory.mktemp("store"))


@pytest.mark.parametrize("name", sorted(set(_TOOL_CALLS) & set(ToolHost.QUERY_TOOLS)))
def test_the_mcp_tools_answer_an_error(stored: Path, name: str) -> None:
    """The MCP server's tools give an error result naming the limit."""
    text, failed = ToolHost(stored, now=EXAMPLE_END).call(name, {**_TOOL_CALLS[name], "limit": -3})
    assert failed
    assert (
        json.loads(text)["error"]["message"] == "limit must be a whole number of at least 1, got -3"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ("search", "--limit", "-1", "JWT"),
        ("search", "--limit=-2", "JWT"),
        ("navigate", "--limit", "-1", "JWT"),
        ("browse", "--limit", "-1"),
        ("find", "--limit", "-1", "JWT"),
        ("context", "--limit", "-1", "JWT"),
    ],
)
def test_the_command_line_gives_a_usage_error(stored: Path, argv: tuple[str, ...]) -> None:
    """Exit status 2 and one usage error naming the option, no traceback, nothing printed on
    stdout."""
    status, out, err = run(*argv, "--store", str(stored))
    assert (status, out) == (2, "")
    assert "error: argument --limit: expected at least 1, got -" in err
    assert "Traceback" not in err
