"""``tocsearch search``, ``navigate`` and ``demo``: find things and answer questions."""

from __future__ import annotations

import argparse
from datetime import datetime, timezone
from typing import Any, TextIO

from tocsearch import _render
from tocsearch._arguments import field_default
from tocsearch._conversation import opening_event
from tocsearch._terminal import terminal_json, visible
from tocsearch.cli._common import (
    Commands,
    SharedOptions,
    asker_zone,
    day_bound,
    emit,
    moment,
    open_store,
    positive,
    window_bound,
    zone,
)
from tocsearch.converter import to_dict
from tocsearch.errors import InvalidArgument
from tocsearch.examples import EXAMPLE_END, load_example_events
from tocsearch.index._sidecar import existing_index
from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.requests import NavigateRequest, SearchChildrenRequest, SearchNodeRequest
from tocsearch.search import SearchField
from tocsearch.service import MemoryService, SearchChildrenResponse
from tocsearch.storage import InMemoryStorage
from tocsearch.storage.protocol import Storage

__all__ = ["DEMO_QUESTION", "register"]

DEMO_QUESTION = "what did we decide about JWT refresh tokens last week"
_TZ_HELP = (
    "whose days 'yesterday', 'last week' and --since/--until dates are: an IANA name such as "
    "America/Los_Angeles, or an offset such as -08:00 (default: the system's zone)"
)


def register(commands: Commands, shared: SharedOptions) -> None:
    """Add the ``search``, ``navigate`` and ``demo`` commands."""
    search = commands.add_parser(
        "search", parents=[shared.store, shared.output], help="search the tree"
    )
    search.add_argument("words", nargs="?", metavar="QUERY", help="what to search for")
    search.add_argument("--query", "-q", help="the query, as an option (the same as QUERY)")
    search.set_defaults(validate=lambda args: _take_search_query(search, args))
    where = search.add_mutually_exclusive_group()
    where.add_argument("--level", type=TocLevel.parse, help="search every node of a level")
    where.add_argument("--node", help="search inside one node")
    where.add_argument("--parent", help="search the children of a node")
    search.add_argument(
        "--fields",
        nargs="+",
        type=SearchField.parse,
        default=[],
        metavar="FIELD",
        help="title, summary, bullets and/or keywords (default: all)",
    )
    search.add_argument(
        "--limit",
        type=positive,
        default=field_default(SearchChildrenRequest, "limit"),
        help="at most this many results (default: %(default)s)",
    )
    search.add_argument("--budget", type=positive, help="token budget for the response")
    _filter_options(search, "nodes that overlap")
    search.add_argument(
        "--tz",
        type=zone,
        help="whose clock results are shown on and --since/--until dates are read on: an IANA "
        "name such as America/Los_Angeles, or an offset such as -08:00 (default: the system's "
        "zone)",
    )
    search.set_defaults(run=_search)

    navigate = commands.add_parser(
        "navigate",
        parents=[shared.store, shared.output],
        help="answer a question with cited evidence",
    )
    navigate.add_argument("query", metavar="QUESTION")
    _navigation_options(navigate)
    navigate.add_argument("--limit", type=positive, help="at most this many evidence items")
    _filter_options(navigate, "evidence from")
    navigate.set_defaults(run=_navigate)

    demo = commands.add_parser(
        "demo", parents=[shared.output], help="navigate the bundled example history in memory"
    )
    demo.add_argument("query", nargs="?", default=DEMO_QUESTION, metavar="QUESTION")
    _navigation_options(demo)
    demo.set_defaults(run=_demo)


def _navigation_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--verbose", "-v", action="store_true", help="show every step of the search path"
    )
    parser.add_argument("--now", type=moment, help="read time hints as of this ISO 8601 moment")
    parser.add_argument("--tz", type=zone, help=_TZ_HELP)
    parser.add_argument(
        "--budget",
        type=positive,
        default=field_default(NavigateRequest, "token_budget"),
        help="token budget of the answer, path included (default: %(default)s)",
    )


def _filter_options(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--since",
        type=window_bound,
        metavar="WHEN",
        help=f"only {what} this ISO 8601 moment or date (YYYY-MM-DD, in --tz) on",
    )
    parser.add_argument(
        "--until",
        type=window_bound,
        metavar="WHEN",
        help=f"only {what} before this moment, or up to the end of this date",
    )
    parser.add_argument(
        "--project",
        metavar="NAME",
        help="only conversations of this project (a part of its name or directory, any case)",
    )
    parser.add_argument(
        "--session", metavar="ID", help="only this session (its id or the start of it)"
    )


def _filters(args: argparse.Namespace) -> dict[str, Any]:
    """The filters of a request: ``since`` and ``until`` (dates read on the asker's clock),
    ``project`` and ``session``."""
    if not hasattr(args, "since"):
        return {}
    clock = asker_zone(args)
    return {
        "since": day_bound(args.since, clock, end_of_day=False),
        "until": day_bound(args.until, clock, end_of_day=True),
        "project": args.project,
        "session": args.session,
    }


def _asked_at(args: argparse.Namespace, default: datetime | None = None) -> datetime:
    """The moment of the question on the asker's clock: ``--now`` (or ``default``, else the
    current time) in the ``--tz`` zone (else the system's)."""
    clock = asker_zone(args)
    moment = args.now or default or datetime.now(clock)
    try:
        return moment.astimezone(clock)
    except OverflowError:
        raise InvalidArgument(
            f"--now {moment.isoformat()} lies outside the dates a datetime can hold in {clock}"
        ) from None


def _take_search_query(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Set ``args.query`` to the query of ``search``, given as QUERY or as ``--query`` (once);
    none, or two different ones, is a usage error."""
    given = {text for text in (args.words, args.query) if text is not None}
    if not given:
        parser.error("search needs a QUERY (or --query)")
    if len(given) > 1:
        parser.error("give the query once: as QUERY or as --query, not both")
    args.query = given.pop()


def _search(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with open_store(args, writing=False) as storage:
        service = MemoryService(storage)
        if args.node:
            node_response = service.search_node(
                SearchNodeRequest(
                    args.node, args.query, tuple(args.fields), args.limit, args.budget
                )
            )
            emit(args, out, to_dict(node_response), lambda: _render.node_matches(node_response))
            return 0
        request = SearchChildrenRequest(
            query=args.query,
            parent_id=args.parent or "",
            child_level=args.level or TocLevel.SEGMENT,
            fields=tuple(args.fields),
            limit=args.limit,
            token_budget=args.budget,
            **_filters(args),
        )
        response = service.search_children(request)
        clock = asker_zone(args)
        emit(
            args,
            out,
            to_dict(response),
            lambda: _render.search_results(
                response, zone=clock, resume=_resume_commands(storage, response)
            ),
        )
    return 0


def _resume_commands(storage: Storage, response: SearchChildrenResponse) -> dict[str, str]:
    """The command that resumes each segment's Claude Code session, by segment id."""
    commands: dict[str, str] = {}
    for result in response.results:
        first = opening_event(storage, result.node_id) if result.session_id else None
        command = _render.resume_command(first) if first is not None else ""
        if command:
            commands[result.node_id] = command
    return commands


def _run_navigation(args: argparse.Namespace, out: TextIO, storage: Storage, now: datetime) -> int:
    request = NavigateRequest(
        args.query,
        token_budget=args.budget,
        limit=getattr(args, "limit", None),
        full_path=args.verbose,
        **_filters(args),
    )
    # An index beside the store (tocsearch index) lets the walk teleport to what it finds.
    index = existing_index(storage)
    try:
        result = MemoryService(storage, now=now, index=index).navigate(request)
    finally:
        if index is not None:
            index.close()
    if args.json:
        # Unindented, as the budget counted it.
        out.write(terminal_json(result.to_dict()) + "\n")
        return 0
    out.write(visible(_render.navigation(result, verbose=args.verbose)))
    return 0


def _navigate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with open_store(args, writing=False) as storage:
        return _run_navigation(args, out, storage, _asked_at(args))


def _demo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with InMemoryStorage() as storage:
        TocBuilder(storage).ingest(load_example_events())
        # The example's own clock is UTC: its "last week" does not move with the machine's zone.
        if args.tz is None:
            args.tz = timezone.utc
        now = _asked_at(args, EXAMPLE_END)
        if not args.json:
            out.write(
                f"Bundled example history: {storage.count_events()} events, "
                f"{len(storage.get_nodes_by_level(TocLevel.SEGMENT))} segments; "
                f"reading time hints as of {now:%Y-%m-%d %H:%M %Z}.\n\n"
            )
        return _run_navigation(args, out, storage, now)
