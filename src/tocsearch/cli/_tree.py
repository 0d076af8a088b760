"""``tocsearch root``, ``browse``, ``show`` and ``expand``: walk the tree and read raw events."""

from __future__ import annotations

import argparse
from typing import TextIO

from tocsearch import _render
from tocsearch._arguments import field_default
from tocsearch._limits import CONTEXT_EVENTS_LIMIT
from tocsearch._render import TOOL_OUTPUT_SHOWN
from tocsearch.cli._common import (
    Commands,
    SharedOptions,
    asker_zone,
    emit,
    open_store,
    positive,
    whole_number,
    zone,
)
from tocsearch.converter import to_dict
from tocsearch.requests import BrowseTocRequest, ExpandRequest
from tocsearch.service import ExpandEventResponse, MemoryService

__all__ = ["register"]


def register(commands: Commands, shared: SharedOptions) -> None:
    """Add the ``expand``, ``show``, ``root`` and ``browse`` commands."""
    parents = [shared.store, shared.output]
    expand = commands.add_parser(
        "expand", parents=parents, help="show the events behind a grip or an event id"
    )
    expand.add_argument("target", metavar="GRIP_OR_EVENT_ID")
    expand.add_argument(
        "--ids",
        metavar="PATTERN",
        help="the segment's ids pattern (evt:...*...*) when the target is a short reference "
        "such as 54220:3 from a navigate answer",
    )
    context = whole_number(0, CONTEXT_EVENTS_LIMIT)
    for side in ("before", "after"):
        expand.add_argument(
            f"--{side}",
            type=context,
            default=field_default(ExpandRequest, f"events_{side}"),
            metavar="N",
            help=f"events of context {side} (default: %(default)s, at most {CONTEXT_EVENTS_LIMIT})",
        )
    expand.add_argument(
        "--full",
        action="store_true",
        help=f"show whole tool outputs (else {TOOL_OUTPUT_SHOWN:,} characters)",
    )
    expand.add_argument(
        "--tz", type=zone, help="show times in this zone (default: the system's zone)"
    )
    expand.set_defaults(run=_expand)

    show = commands.add_parser("show", parents=parents, help="show one node")
    show.add_argument("node_id", metavar="NODE_ID")
    show.set_defaults(run=_show)

    root = commands.add_parser("root", parents=parents, help="list the years")
    root.set_defaults(run=_root)

    browse = commands.add_parser("browse", parents=parents, help="list a node's children")
    browse.add_argument("node_id", metavar="NODE_ID")
    browse.add_argument(
        "--limit",
        type=positive,
        default=field_default(BrowseTocRequest, "limit"),
        help="children per page (default: %(default)s)",
    )
    browse.add_argument("--token", help="continuation token from the previous page")
    browse.set_defaults(run=_browse)


def _expand(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with open_store(args, writing=False) as storage:
        clock = asker_zone(args)
        response = MemoryService(storage).expand(
            ExpandRequest(args.target, args.before, args.after, args.ids)
        )
        if isinstance(response, ExpandEventResponse):
            around = response
            emit(
                args,
                out,
                to_dict(around),
                lambda: _render.event_context(around, zone=clock, full=args.full),
            )
            return 0
        grip = response
        emit(
            args,
            out,
            to_dict(grip),
            lambda: _render.expansion(grip, zone=clock, full=args.full),
        )
    return 0


def _show(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with open_store(args, writing=False) as storage:
        node = MemoryService(storage).get_node(args.node_id)
        emit(args, out, to_dict(node), lambda: _render.node(node))
    return 0


def _root(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with open_store(args, writing=False) as storage:
        years = MemoryService(storage).get_toc_root()
        emit(args, out, [to_dict(year) for year in years], lambda: _render.node_list(years))
    return 0


def _browse(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with open_store(args, writing=False) as storage:
        page = MemoryService(storage).browse_toc(
            BrowseTocRequest(args.node_id, args.limit, args.token)
        )
        emit(args, out, to_dict(page), lambda: _render.browse_page(page))
    return 0
