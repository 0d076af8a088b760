"""Whatever a model passes a tool (any text, unpaired surrogates included, in any argument),
the answer is JSON that UTF-8 can carry, as every MCP transport must send it: an error result
that quotes a value it could not encode would otherwise fail in the transport, not in the
tool. The sync tool's paths are any text too."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tests._support.cli import example_store
from tests._support.examples import scaled
from tests.strategies import any_text

from tocsearch import AgentTools
from tocsearch.cli import _mcp
from tocsearch.examples import EXAMPLE_END
from tocsearch.mcp_server import ToolHost
from tocsearch.storage import InMemoryStorage

_ARGUMENTS = {
    "search_node": ("node_id", "query"),
    "search_children": ("query", "parent_id", "project", "session", "since"),
    "navigate": ("query", "project", "session", "until"),
    "expand_grip": ("grip_id",),
    "expand_event": ("event_id",),
    "browse": ("parent_id", "continuation_token"),
    "memory_search": ("query",),
}


def _read(answer: str) -> Any:
    answer.encode("utf-8")
    return json.loads(answer)


@settings(max_examples=scaled(60))
@given(data=st.data(), tool=st.sampled_from(sorted(_ARGUMENTS)), value=any_text)
@example(data=None, tool="search_node", value="\udcff")
def test_agent_tool_answers_are_utf8_json(
    data: st.DataObject | None, tool: str, value: str
) -> None:
    """Each tool answers, for any text in any argument, JSON that encodes as UTF-8."""
    field = _ARGUMENTS[tool][0] if data is None else data.draw(st.sampled_from(_ARGUMENTS[tool]))
    arguments = {"query": "jwt refresh", "node_id": "toc:year:2026", field: value}
    arguments = {key: arguments[key] for key in _ARGUMENTS[tool] if key in arguments}
    assert isinstance(_read(AgentTools(InMemoryStorage()).handle_tool_call(tool, arguments)), dict)


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> ToolHost:
    """The MCP tools over a store of the bundled example history, sync included."""
    store = example_store(tmp_path_factory.mktemp("store"))
    args = argparse.Namespace(store=store, backend=None, now=None, tz=None)
    return ToolHost(store, now=EXAMPLE_END, sync=lambda _, arguments: _mcp._sync(args, arguments))


@settings(max_examples=scaled(40), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=any_text, tool=st.sampled_from(["sync", "navigate", "expand", "search_node"]))
@example(value="\udcff.jsonl", tool="sync")
@example(value="\ud800", tool="sync")
@example(value="a\x00b", tool="sync")
@example(value="x" * 5000, tool="sync")
@example(value="~0", tool="sync")
def test_mcp_answers_are_utf8_json(host: ToolHost, value: str, tool: str) -> None:
    """The MCP server's tools, sync's paths included, answer JSON that encodes as UTF-8; a
    path that names nothing is an error result, not an exception."""
    cases: dict[str, dict[str, Any]] = {
        "sync": {"paths": [value]},
        "navigate": {"query": value},
        "expand": {"target": value},
        "search_node": {"node_id": value, "query": "jwt"},
    }
    text, failed = host.call(tool, cases[tool])
    answer = _read(text)
    if failed:
        assert set(answer) == {"error"}
        assert answer["error"]["type"] in {"ImportFailed", "InvalidArgument", "NotFound"} | {
            "NodeNotFound",
            "GripNotFound",
            "EventNotFound",
            "InvalidId",
        }


def test_a_sync_path_that_names_nothing_is_an_import_error(host: ToolHost, tmp_path: Path) -> None:
    """Paths no file system can name, that lead through a file or start at the home of a user
    the system does not know, are ImportFailed naming them."""
    (tmp_path / "file").write_text("x")
    for path, said in [
        ("\ud800", "'\\ud800' is not a path this system can name"),
        ("a\x00b", "'a\\x00b' is not a path this system can name"),
        ("~no-such-user-0/x", "'~no-such-user-0/x' names the home of no known user"),
        (str(tmp_path / "file" / "x"), f"{tmp_path / 'file' / 'x'}: Not a directory"),
    ]:
        text, failed = host.call("sync", {"paths": [path]})
        assert failed
        assert _read(text) == {"error": {"type": "ImportFailed", "message": said}}
