"""The MCP server: the tools answer from the store with the request records' schemas and checks,
and the official SDK's own client drives ``tocsearch mcp`` end to end over stdio."""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from tests._support.budget import evidence_items
from tests._support.cli import example_store
from tocsearch._clock import parse_zone
from tocsearch.examples import EXAMPLE_END
from tocsearch.mcp_server import ToolHost
from tocsearch.requests import ExpandRequest, NavigateRequest, request_schema

QUESTION = "what did we decide about JWT refresh tokens last week"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of the bundled example history."""
    return example_store(tmp_path_factory.mktemp("store"))


@pytest.fixture(scope="module")
def host(store: Path) -> ToolHost:
    """Tools over the example store, reading time hints as of the history's end."""
    return ToolHost(store, now=EXAMPLE_END)


def _answer(host: ToolHost, name: str, arguments: Any) -> tuple[Any, bool]:
    text, failed = host.call(name, arguments)
    return json.loads(text), failed


def test_tools_carry_the_request_records_schemas(host: ToolHost) -> None:
    """Each tool's input schema is its request record's; only sync writes."""
    tools = {tool.name: tool for tool in host.tools()}
    assert tuple(tools) == ToolHost.QUERY_TOOLS
    assert tools["navigate"].input_schema == request_schema(NavigateRequest)
    assert tools["expand"].input_schema == request_schema(ExpandRequest)
    assert all(tool.read_only for tool in tools.values())


def test_navigate_then_expand_what_it_cites(host: ToolHost) -> None:
    """navigate answers with evidence; expand reads the conversation around a cited event."""
    answer, failed = _answer(host, "navigate", {"query": QUESTION, "limit": 3})
    assert not failed
    assert 1 <= len(evidence_items(answer)) <= 3
    cited = evidence_items(answer)[0]["event_ids"][0]
    around, failed = _answer(host, "expand", {"target": cited, "events_after": 1})
    assert not failed
    assert around["event"]["event_id"] == cited
    assert len(around["events_after"]) <= 1


def test_browse_and_search_walk_the_tree(host: ToolHost) -> None:
    """browse lists the years and months; search_children ranks segments."""
    years, failed = _answer(host, "browse", {})
    assert not failed
    assert [node["node_id"] for node in years["children"]] == ["toc:year:2026"]
    found, failed = _answer(
        host, "search_children", {"query": "refresh rotation", "child_level": "segment"}
    )
    assert not failed
    assert found["results"]


@pytest.mark.parametrize(
    ("name", "arguments", "kind", "fragment"),
    [
        ("navigate", {}, "InvalidArgument", "argument 'query' is required"),
        ("navigate", {"query": "jwt", "limit": "3"}, "InvalidArgument", "must be an integer"),
        ("navigate", {"query": "jwt", "since": "monday"}, "InvalidArgument", "ISO 8601"),
        ("expand", {"target": "grip:1:missing"}, "GripNotFound", "grip:1:missing"),
        ("drop_tables", {}, "UnknownTool", "unknown tool"),
        ("browse", "[1]", "InvalidArgument", "JSON object"),
        (
            "navigate",
            '{"query": "jwt", "query": "refresh"}',
            "InvalidArgument",
            "arguments give the key 'query' more than once",
        ),
    ],
)
def test_bad_calls_are_error_results(
    host: ToolHost, name: str, arguments: Any, kind: str, fragment: str
) -> None:
    """A bad call is an error result naming what was wrong; the host never raises."""
    answer, failed = _answer(host, name, arguments)
    assert failed
    assert answer["error"]["type"] == kind
    assert fragment in answer["error"]["message"]


def test_a_missing_store_says_how_to_make_one(tmp_path: Path) -> None:
    """Calling into a store that does not exist tells the user to sync first."""
    answer, failed = _answer(ToolHost(tmp_path / "none"), "browse", {})
    assert failed
    assert "tocsearch sync" in answer["error"]["message"]


def test_the_sdk_client_drives_the_server_over_stdio(store: Path) -> None:
    """The SDK's client starts 'tocsearch mcp' as a subprocess, lists its tools and calls them."""
    pytest.importorskip("mcp")
    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.types import TextContent

    now = EXAMPLE_END.isoformat()
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tocsearch", "mcp", "--store", os.fspath(store), "--now", now],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )

    def text_of(result: Any) -> str:
        block = result.content[0]
        assert isinstance(block, TextContent)
        return block.text

    async def session() -> tuple[list[str], Any, Any, Any]:
        async with Client(server, read_timeout_seconds=60) as client:
            listed = await client.list_tools()
            answer = await client.call_tool("navigate", {"query": QUESTION, "limit": 2})
            cited = evidence_items(json.loads(text_of(answer)))[0]["event_ids"][0]
            around = await client.call_tool("expand", {"target": cited})
            wrong = await client.call_tool("search_node", {"query": "jwt"})
            return [tool.name for tool in listed.tools], answer, around, wrong

    names, answer, around, wrong = anyio.run(session)
    assert names == [*ToolHost.QUERY_TOOLS, "sync"]
    assert not answer.is_error
    assert len(evidence_items(json.loads(text_of(answer)))) <= 2
    assert not around.is_error
    assert json.loads(text_of(around))["event"]["event_id"]
    assert wrong.is_error
    assert "node_id" in text_of(wrong)


def test_the_sync_tool_reads_new_transcripts_into_the_store(tmp_path: Path) -> None:
    """The sync tool of 'tocsearch mcp' reads the given folder into the served store."""
    import shutil

    from tests._support.cli import run

    projects = tmp_path / "projects"
    shutil.copytree(Path(__file__).parent / "importers" / "fixtures" / "claude_code", projects)
    store = tmp_path / "store"
    assert run("sync", str(projects), "--store", str(store))[0] == 0
    from tocsearch.cli._main import build_parser

    args = build_parser().parse_args(["mcp", "--store", str(store)])
    from tocsearch.cli import _mcp

    host = ToolHost(store, sync=lambda path, arguments: _mcp._sync(args, arguments))
    assert [tool.name for tool in host.tools()][-1] == "sync"
    assert not next(tool for tool in host.tools() if tool.name == "sync").read_only
    answer, failed = _answer(host, "sync", {"paths": [str(projects)]})
    assert not failed
    assert answer["files_unchanged"] == answer["files_seen"] > 0
    answer, failed = _answer(host, "sync", {"paths": [str(projects)], "full_rescan": True})
    assert not failed
    assert answer["files_read"] == answer["files_seen"]
    assert answer["events_added"] == 0
    answer, failed = _answer(host, "sync", {"paths": 3})
    assert failed
    assert "list of strings" in answer["error"]["message"]


@pytest.mark.parametrize(
    ("zone", "start"),
    [(None, "2026-04-09T00:00:00+00:00"), ("-08:00", "2026-04-08T08:00:00+00:00")],
)
def test_yesterday_is_the_askers_yesterday(store: Path, zone: str | None, start: str) -> None:
    """At 04:00 UTC, a host on UTC-8 (20:00 the evening before) reads "yesterday" from the
    asker's midnight and names its clock in the answer; a host with no zone reads UTC."""
    clock = parse_zone(zone) if zone else None
    at = datetime(2026, 4, 10, 4, tzinfo=timezone.utc)
    answer, failed = _answer(
        ToolHost(store, now=at, zone=clock), "navigate", {"query": "yesterday"}
    )
    assert not failed, answer
    assert answer["time_hints"]["ranges"][0]["start"] == start
    assert answer.get("zone", "UTC") == (zone or "UTC")
