"""``tocsearch mcp``: serve the store to MCP clients over stdio or streamable HTTP."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import Any, TextIO

from tocsearch._terminal import visible
from tocsearch.cli._common import (
    CommandError,
    Commands,
    SharedOptions,
    asker_zone,
    moment,
    open_store,
    store_path,
    whole_number,
    zone,
)
from tocsearch.converter import to_dict
from tocsearch.mcp_server import ToolHost, serve
from tocsearch.requests import SyncRequest, parse_request
from tocsearch.sync import default_claude_projects, sync_sources

__all__ = ["register"]


def register(commands: Commands, shared: SharedOptions) -> None:
    """Add the ``mcp`` command."""
    mcp = commands.add_parser(
        "mcp",
        parents=[shared.store],
        help="serve the store to MCP clients (Claude Code, Claude Desktop, editors)",
    )
    mcp.add_argument(
        "--http",
        action="store_true",
        help="serve streamable HTTP on 127.0.0.1 instead of stdio",
    )
    mcp.add_argument(
        "--port",
        type=whole_number(1),
        default=8765,
        help="the HTTP port (default: %(default)s)",
    )
    mcp.add_argument("--now", type=moment, help="read time hints as of this ISO 8601 moment")
    mcp.add_argument(
        "--tz",
        type=zone,
        help="whose days 'yesterday' and 'last week' are and whose clock answers show: an IANA "
        "name or an offset such as -08:00 (default: the system's zone)",
    )
    mcp.set_defaults(run=_mcp)


def _mcp(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    store = store_path(args)
    if args.port > 65535:
        raise CommandError(f"--port must be at most 65535, got {args.port}")
    host = ToolHost(
        store,
        now=args.now,
        zone=asker_zone(args),
        sync=lambda path, arguments: _sync(args, arguments),
    )
    try:
        serve(
            host,
            transport="http" if args.http else "stdio",
            port=args.port,
            log=lambda line: print(visible(line), file=err, flush=True),
        )
    except ImportError as missing:
        raise CommandError(
            f"the MCP server needs the mcp package ({missing}); "
            "install it with: pip install 'tocsearch[mcp]'"
        ) from None
    return 0


def _sync(args: argparse.Namespace, arguments: Mapping[str, Any]) -> Any:
    """The ``sync`` tool: what ``tocsearch sync`` does, into the served store."""
    request = parse_request(SyncRequest, arguments, what="sync")
    store = store_path(args)
    paths: list[str | os.PathLike[str]] = [*request.paths] or [default_claude_projects()]
    report = sync_sources(
        store, paths, lambda: open_store(args, writing=True), full=request.full_rescan
    )
    return to_dict(report)
