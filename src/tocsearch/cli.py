"""The ``tocsearch`` command: ingest histories, search and navigate them, expand evidence.

Every command prints for people by default and, with ``--json``, one stable JSON document (see
docs/cli.md). Errors are one line on stderr: exit status 1 for a failed command, 2 for usage.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn, TextIO

from tocsearch import _render
from tocsearch._paths import default_store_path
from tocsearch.converter import _parse_datetime, to_dict
from tocsearch.errors import InvalidArgument, TocsearchError
from tocsearch.examples import EXAMPLE_END, load_example_events
from tocsearch.importers import FORMATS, load_events
from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.models import Event
from tocsearch.navigate import Navigator
from tocsearch.search import SearchField
from tocsearch.service import (
    BrowseTocRequest,
    ExpandEventRequest,
    ExpandGripRequest,
    MemoryService,
    SearchChildrenRequest,
    SearchNodeRequest,
)
from tocsearch.storage import InMemoryStorage
from tocsearch.storage.jsondir import JsonDirStorage
from tocsearch.storage.protocol import Storage
from tocsearch.storage.shelf import ShelveStorage

__all__ = ["main"]

DEMO_QUESTION = "what did we decide about JWT refresh tokens last week"
BACKENDS = ("jsondir", "shelve")
_PROGRESS_BATCH = 5_000


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def _whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type for whole numbers of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected at least {minimum}, got {value}")
        return value

    return parse


_positive = _whole_number(1)
_non_negative = _whole_number(0)


def _moment(text: str) -> datetime:
    try:
        return _parse_datetime(text, datetime)
    except InvalidArgument as error:
        raise argparse.ArgumentTypeError(
            f"{error}; write e.g. 2026-03-20T18:00:00Z or 2026-03-20T18:00+01:00"
        ) from None


def _build_parser() -> argparse.ArgumentParser:
    store = _Parser(add_help=False)
    store.add_argument(
        "--store",
        type=Path,
        help="store directory (default: $TOCSEARCH_HOME, else the user data directory)",
    )
    store.add_argument(
        "--backend", choices=BACKENDS, default="jsondir", help="storage backend (default: jsondir)"
    )
    output = _Parser(add_help=False)
    output.add_argument("--json", action="store_true", help="print one JSON document")

    parser = _Parser(
        prog="tocsearch",
        description="Find things in long conversation histories through a time table of contents.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    ingest = commands.add_parser(
        "ingest", parents=[store, output], help="import event files and build the tree"
    )
    ingest.add_argument("files", nargs="+", type=Path, metavar="FILE")
    ingest.add_argument("--format", choices=FORMATS, help="input format (default: detect)")
    ingest.add_argument(
        "--strict", action="store_true", help="refuse the whole batch on the first bad record"
    )

    search = commands.add_parser("search", parents=[store, output], help="search the tree")
    search.add_argument("--query", "-q", required=True)
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
    search.add_argument("--limit", type=_positive, default=10)
    search.add_argument("--budget", type=_positive, help="token budget for the response")

    navigate = commands.add_parser(
        "navigate", parents=[store, output], help="answer a question with cited evidence"
    )
    navigate.add_argument("query", metavar="QUESTION")
    _navigation_options(navigate)

    expand = commands.add_parser(
        "expand", parents=[store, output], help="show the events behind a grip or an event id"
    )
    expand.add_argument("target", metavar="GRIP_OR_EVENT_ID")
    expand.add_argument("--before", type=_non_negative, default=3)
    expand.add_argument("--after", type=_non_negative, default=3)

    show = commands.add_parser("show", parents=[store, output], help="show one node")
    show.add_argument("node_id", metavar="NODE_ID")

    commands.add_parser("root", parents=[store, output], help="list the years")

    browse = commands.add_parser("browse", parents=[store, output], help="list a node's children")
    browse.add_argument("node_id", metavar="NODE_ID")
    browse.add_argument("--limit", type=_positive, default=50)
    browse.add_argument("--token", help="continuation token from the previous page")

    demo = commands.add_parser(
        "demo", parents=[output], help="navigate the bundled example history in memory"
    )
    demo.add_argument("query", nargs="?", default=DEMO_QUESTION, metavar="QUESTION")
    _navigation_options(demo)
    return parser


def _navigation_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--verbose", "-v", action="store_true", help="show the search path")
    parser.add_argument("--now", type=_moment, help="read time hints as of this ISO 8601 moment")
    parser.add_argument("--budget", type=_positive, default=2000, help="token budget")


@contextmanager
def _open_store(args: argparse.Namespace, *, writing: bool) -> Iterator[Storage]:
    path: Path = args.store if args.store is not None else default_store_path()
    if not writing and not path.exists():
        raise _CommandError(
            f"no store at {path}; run 'tocsearch ingest FILE' first or pass --store DIR"
        )
    storage: Storage
    if args.backend == "shelve":
        storage = ShelveStorage(path, readonly=not writing)
    else:
        storage = JsonDirStorage(path, readonly=not writing)
    with storage:
        yield storage


class _CommandError(Exception):
    """A command that cannot be carried out; exits with status 1."""


def _emit(args: argparse.Namespace, out: TextIO, data: Any, text: Callable[[], str]) -> None:
    if args.json:
        json.dump(data, out, ensure_ascii=False, indent=2)
        out.write("\n")
    else:
        rendered = text()
        out.write(rendered if rendered.endswith("\n") else rendered + "\n")


def _ingest(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    loaded: list[Event] = []
    problems: list[str] = []
    for path in args.files:
        result = load_events(path, format=args.format, strict=args.strict)
        loaded.extend(result.events)
        problems.extend(str(problem) for problem in result.problems)
    for problem in problems:
        err.write(f"tocsearch: skipped {problem}\n")
    with _open_store(args, writing=True) as storage:
        builder = TocBuilder(storage)
        show_progress = err.isatty() and len(loaded) > _PROGRESS_BATCH
        totals: dict[str, int] = {}
        for start in range(0, len(loaded), _PROGRESS_BATCH):
            report = builder.ingest(loaded[start : start + _PROGRESS_BATCH])
            for key, value in to_dict(report).items():
                if isinstance(value, int):
                    totals[key] = totals.get(key, 0) + value
            if show_progress:
                done = min(start + _PROGRESS_BATCH, len(loaded))
                err.write(f"\ringested {done:,}/{len(loaded):,} events")
                err.flush()
        if show_progress:
            err.write("\n")
    totals["records_skipped"] = len(problems)
    _emit(args, out, totals, lambda: _render.ingest_report(totals))
    return 0


def _search(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with _open_store(args, writing=False) as storage:
        service = MemoryService(storage)
        if args.node:
            node_response = service.search_node(
                SearchNodeRequest(
                    args.node, args.query, tuple(args.fields), args.limit, args.budget
                )
            )
            _emit(args, out, to_dict(node_response), lambda: _render.node_matches(node_response))
            return 0
        request = SearchChildrenRequest(
            query=args.query,
            parent_id=args.parent or "",
            child_level=args.level or TocLevel.SEGMENT,
            fields=tuple(args.fields),
            limit=args.limit,
            token_budget=args.budget,
        )
        response = service.search_children(request)
        _emit(args, out, to_dict(response), lambda: _render.search_results(response))
    return 0


def _run_navigation(
    args: argparse.Namespace, out: TextIO, storage: Storage, now: datetime | None
) -> int:
    navigator = Navigator(storage, now=now, token_budget=args.budget)
    result = navigator.navigate(args.query)
    _emit(args, out, result.to_dict(), lambda: _render.navigation(result, verbose=args.verbose))
    return 0


def _navigate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with _open_store(args, writing=False) as storage:
        return _run_navigation(args, out, storage, args.now)


def _demo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with InMemoryStorage() as storage:
        TocBuilder(storage).ingest(load_example_events())
        now = args.now or EXAMPLE_END
        if not args.json:
            out.write(
                f"Bundled example history: {storage.count_events()} events, "
                f"{len(storage.get_nodes_by_level(TocLevel.SEGMENT))} segments; "
                f"reading time hints as of {now:%Y-%m-%d %H:%M} UTC.\n\n"
            )
        return _run_navigation(args, out, storage, now)


def _expand(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with _open_store(args, writing=False) as storage:
        service = MemoryService(storage)
        if args.target.startswith("evt:"):
            around = service.expand_event(ExpandEventRequest(args.target, args.before, args.after))
            _emit(args, out, to_dict(around), lambda: _render.event_context(around))
            return 0
        response = service.expand_grip(ExpandGripRequest(args.target, args.before, args.after))
        _emit(args, out, to_dict(response), lambda: _render.expansion(response))
    return 0


def _show(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with _open_store(args, writing=False) as storage:
        node = MemoryService(storage).get_node(args.node_id)
        _emit(args, out, to_dict(node), lambda: _render.node(node))
    return 0


def _root(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with _open_store(args, writing=False) as storage:
        years = MemoryService(storage).get_toc_root()
        _emit(args, out, [to_dict(year) for year in years], lambda: _render.node_list(years))
    return 0


def _browse(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with _open_store(args, writing=False) as storage:
        page = MemoryService(storage).browse_toc(
            BrowseTocRequest(args.node_id, args.limit, args.token)
        )
        _emit(args, out, to_dict(page), lambda: _render.browse_page(page))
    return 0


_COMMANDS: dict[str, Callable[[argparse.Namespace, TextIO, TextIO], int]] = {
    "ingest": _ingest,
    "search": _search,
    "navigate": _navigate,
    "expand": _expand,
    "show": _show,
    "root": _root,
    "browse": _browse,
    "demo": _demo,
}


def main(
    argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run the command line; returns the exit status (0 ok, 1 failed, 2 usage)."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    parser = _build_parser()
    try:
        # argparse prints usage and help to the process streams; send them where main() was told.
        with redirect_stdout(out), redirect_stderr(err):
            args = parser.parse_args(argv)
    except SystemExit as stop:
        return int(stop.code) if isinstance(stop.code, int) else 2
    try:
        return _COMMANDS[args.command](args, out, err)
    except (_CommandError, TocsearchError) as error:
        err.write(f"tocsearch: error: {error}\n")
        return 1
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); silence the flush at exit and stop quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as error:
        where = f": {error.filename}" if error.filename else ""
        err.write(f"tocsearch: error: {error.strerror or error}{where}\n")
        return 1
    except KeyboardInterrupt:
        err.write("tocsearch: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
