"""An MCP server over one store: the tocsearch tools for any MCP client (Claude Code, Claude
Desktop, editors), over stdio or streamable HTTP on the loopback interface.

Tools: ``navigate``, ``search_children``, ``search_node``, ``expand`` (a grip or an event),
``browse`` and ``sync``. Their input schemas and argument checks are the request records of
:mod:`tocsearch.requests`, the same the agent tools, the service and the command line use. A tool
answers with one JSON text; a bad argument or an unknown id is an error result whose text says
what was wrong (``{"error": {"type", "message"}}``), never a dropped connection. A message
that gives a key twice in one object (``{"query": "a", "query": "b"}``), which the SDK would
read as its last value, is refused on either transport with a JSON-RPC error naming the key
(:mod:`tocsearch._mcp_wire`).

Every call opens the store read-only and closes it again, so what ``tocsearch sync`` (run by a
Claude Code hook, say) wrote in another process is seen by the next call. ``sync`` takes the
writer's lock for as long as it runs.

The official ``mcp`` SDK is an optional dependency (``pip install 'tocsearch[mcp]'``); this module
imports it only when a server is built, and :class:`ToolHost` (the part that answers calls)
needs no SDK at all.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from tocsearch.errors import StorageError, TocsearchError
from tocsearch.service import MemoryService
from tocsearch.storage import open_store
from tocsearch.tools import Tool, answer_json, decode_arguments, error_answer, tools_named

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

__all__ = ["HostedTool", "ToolHost", "build_server", "serve"]

_LOOPBACK = "127.0.0.1"
_INSTRUCTIONS = (
    "Search the user's past conversations (Claude Code sessions, ChatGPT chats). Start with "
    "navigate for a question in plain words ('what did we decide about the JWT refresh tokens "
    "last week'); expand an evidence item's event or grip id to read the raw conversation "
    "around it; search_children, search_node and browse walk the Year > Month > Week > Day > "
    "Segment table of contents directly; sync reads new conversations into the store."
)


@attrs.frozen
class HostedTool:
    """A tool as an MCP client sees it: name, description, input schema, read-only or not."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    read_only: bool


class ToolHost:
    """Answers tool calls against the store at ``store``, without any MCP machinery.

    Args:
        store: the store directory (any backend; its marker names it).
        now: the moment time hints are read against; None means the current time at each call.
        zone: the asker's time zone: whose days "yesterday" and "last week" are, and whose
            clock results show; None means the zone of ``now``, else UTC.
        sync: runs a ``sync`` call, given the store path and the decoded arguments, and returns
            its JSON-ready report; None offers no ``sync`` tool.
    """

    QUERY_TOOLS = ("navigate", "search_children", "search_node", "expand", "browse")
    """The query tools offered, in order; ``sync`` follows when a sync runner is given."""

    def __init__(
        self,
        store: str | os.PathLike[str],
        *,
        now: datetime | None = None,
        zone: tzinfo | None = None,
        sync: Callable[[Path, Mapping[str, Any]], Any] | None = None,
    ) -> None:
        self.store = Path(store)
        self.now = now
        self.zone = zone
        self._sync = sync
        self._tools: dict[str, Tool] = {tool.name: tool for tool in tools_named(*self.QUERY_TOOLS)}

    def tools(self) -> list[HostedTool]:
        """The tools offered, query tools first."""
        hosted = [
            HostedTool(spec["name"], spec["description"], spec["parameters"], read_only=True)
            for spec in (tool.definition() for tool in self._tools.values())
        ]
        if self._sync is not None:
            from tocsearch.requests import SyncRequest, request_schema

            hosted.append(
                HostedTool(
                    "sync",
                    "Read what is new in the conversation files into the store (by default "
                    "~/.claude/projects): only the bytes appended since the last sync are read, "
                    "so it is quick when little changed. Returns what was read and added.",
                    request_schema(SyncRequest),
                    read_only=False,
                )
            )
        return hosted

    def _asked_at(self) -> datetime | None:
        """The moment of a call on the asker's clock (None: the service's current UTC time)."""
        if self.zone is None:
            return self.now
        return (self.now or datetime.now(self.zone)).astimezone(self.zone)

    def call(self, name: str, arguments: Mapping[str, Any] | str | None) -> tuple[str, bool]:
        """Run one call; returns its JSON text and whether it is an error. Never raises."""
        try:
            decoded = decode_arguments(arguments)
            if name == "sync" and self._sync is not None:
                return answer_json(self._sync(self.store, decoded)), False
            tool = self._tools.get(name)
            if tool is None:
                known = ", ".join([*self._tools, *(["sync"] if self._sync else [])])
                return error_answer("UnknownTool", f"unknown tool {name!r}; known: {known}"), True
            with open_store(self.store, readonly=True) as storage:
                service = MemoryService(storage, now=self._asked_at())
                return answer_json(tool.call(service, decoded)), False
        except StorageError as error:
            return error_answer(type(error).__name__, _no_store_hint(self.store, error)), True
        except TocsearchError as error:
            return error_answer(type(error).__name__, str(error)), True
        except Exception as error:  # a call must never take the server down
            return error_answer(type(error).__name__, str(error) or repr(error)), True


def _no_store_hint(store: Path, error: StorageError) -> str:
    if not store.exists():
        return f"no store at {store}; run 'tocsearch sync --store {store}' first"
    return str(error)


def build_server(host: ToolHost) -> Server[Any]:
    """An MCP ``Server`` (low-level SDK API) offering ``host``'s tools.

    Raises:
        ImportError: the ``mcp`` SDK is not installed (``pip install 'tocsearch[mcp]'``).
    """
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server

    from tocsearch import __version__

    offered = host.tools()

    async def list_tools(_: Any, __: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=tool.name,
                    description=tool.description,
                    input_schema=dict(tool.input_schema),
                    annotations=types.ToolAnnotations(
                        read_only_hint=tool.read_only, open_world_hint=False
                    ),
                )
                for tool in offered
            ]
        )

    async def call_tool(_: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        # Store reads and syncs block; run them off the event loop so pings stay answered.
        text, failed = await anyio.to_thread.run_sync(host.call, params.name, params.arguments)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], is_error=failed
        )

    return Server(
        "tocsearch",
        version=__version__,
        instructions=_INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve(
    host: ToolHost, *, transport: str = "stdio", port: int = 8765, log: Callable[[str], None]
) -> None:
    """Serve ``host`` until the client goes away (stdio) or the process is stopped (HTTP).

    ``transport`` is ``stdio`` or ``http`` (streamable HTTP at ``http://127.0.0.1:PORT/mcp``,
    on the loopback interface only). ``log`` receives one line about where the server listens.

    Raises:
        ImportError: the ``mcp`` SDK is not installed.
        ValueError: an unknown transport.
    """
    server = build_server(host)
    if transport == "stdio":
        import anyio
        import mcp.types as types
        from mcp.server.stdio import stdio_server
        from mcp.shared.message import SessionMessage

        from tocsearch._mcp_wire import RefusingLines

        async def run() -> None:
            # The wire is read through a duplicate of the input's descriptor: closing it
            # leaves the process's own stdin as it was.
            wire = open(  # noqa: SIM115 (the transport reads it until the client goes away)
                os.dup(sys.stdin.fileno()), encoding="utf-8", errors="replace"
            )
            lines = RefusingLines(wire)
            async with stdio_server(stdin=lines) as (read, write):

                async def answer(refused: dict[str, Any]) -> None:
                    message = types.jsonrpc_message_adapter.validate_python(refused)
                    await write.send(SessionMessage(message))

                lines.answer = answer
                await server.run(read, write, server.create_initialization_options())

        log(f"tocsearch MCP server on stdio, store {host.store}")
        anyio.run(run)
        return
    if transport == "http":
        import uvicorn

        from tocsearch._mcp_wire import refusing_app

        app = refusing_app(server.streamable_http_app(host=_LOOPBACK))
        log(f"tocsearch MCP server at http://{_LOOPBACK}:{port}/mcp, store {host.store}")
        uvicorn.run(app, host=_LOOPBACK, port=port, log_level="warning")
        return
    raise ValueError(f"transport must be stdio or http, got {transport!r}")
