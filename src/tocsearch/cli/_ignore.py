"""``tocsearch ignore``: show, extend or shorten the store's ignore list, which keeps sessions,
projects, events and time ranges out of ``ingest`` and ``sync``."""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import TextIO

from tocsearch._clock import local_zone
from tocsearch.cli._common import (
    CommandError,
    Commands,
    SharedOptions,
    day_bound,
    emit,
    open_store,
    store_path,
    window_bound,
    zone,
)
from tocsearch.errors import InvalidArgument
from tocsearch.ids import parse_event_id
from tocsearch.privacy import IgnoreList, load_ignore_list, save_ignore_list
from tocsearch.privacy._ignore import IGNORE_MARKER

__all__ = ["register"]


def register(commands: Commands, shared: SharedOptions) -> None:
    """Add the ``ignore`` command."""
    ignore = commands.add_parser(
        "ignore",
        parents=[shared.store, shared.output],
        help="show or change what sync and ingest keep out of the store",
        description="Without options, list the store's ignore list. With --session, --project, "
        "--event or --since/--until, add those entries (events already stored stay until "
        "'tocsearch forget'); with --remove, take them off (a later 'sync --full' reads "
        f"them again). An empty {IGNORE_MARKER} file in a project folder keeps that folder "
        "out of every store.",
    )
    ignore.add_argument("--session", action="append", default=[], help="a whole session id")
    ignore.add_argument(
        "--project",
        action="append",
        default=[],
        help="a project name or working directory (and the folders below it)",
    )
    ignore.add_argument(
        "--event", action="append", default=[], metavar="ID", help="an event id (repeatable)"
    )
    ignore.add_argument("--since", type=window_bound, help="with --until: a time range")
    ignore.add_argument("--until", type=window_bound, help="the range's end, a date inclusive")
    ignore.add_argument("--tz", type=zone, help="the zone --since/--until dates are read in")
    ignore.add_argument("--remove", action="store_true", help="take the entries off the list")
    ignore.set_defaults(run=_ignore)


def _entries(args: argparse.Namespace) -> IgnoreList:
    """The entries the options name (empty when none do)."""
    if (args.since is None) != (args.until is None):
        raise CommandError("--since and --until name a range together: give both")
    for name in ("session", "project"):
        if any(not text.strip() for text in getattr(args, name)):
            raise CommandError(f"--{name} must not be empty")
    clock = args.tz if args.tz is not None else local_zone()
    try:
        for event_id in args.event:
            parse_event_id(event_id)
        ranges: list[tuple[datetime, datetime]] = []
        start = day_bound(args.since, clock, end_of_day=False)
        end = day_bound(args.until, clock, end_of_day=True)
        if start is not None and end is not None:
            ranges.append((start, end))
        return IgnoreList(
            sessions=args.session, projects=args.project, event_ids=args.event, ranges=ranges
        )
    except InvalidArgument as error:
        raise CommandError(str(error)) from None


def _ignore(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    given = _entries(args)
    if not given:
        if args.remove:
            raise CommandError("--remove needs the entries to take off: --session, --project, ...")
        with open_store(args, writing=False):
            current = load_ignore_list(store_path(args))
        emit(args, out, _document(current), lambda: _listing(current))
        return 0
    with open_store(args, writing=True, create=False):
        directory = store_path(args)
        current = load_ignore_list(directory)
        if args.remove:
            missing = given.difference(current)
            if missing:
                raise CommandError(
                    "not on the ignore list, nothing changed: " + "; ".join(missing.entries())
                )
            changed = current.difference(given)
        else:
            changed = current.union(given)
        save_ignore_list(directory, changed)
    if args.remove:
        note = "taken off the ignore list; 'tocsearch sync --full' reads them again"
    else:
        note = "on the ignore list; what is already stored stays until 'tocsearch forget'"
    emit(args, out, _document(changed), lambda: "\n".join([*given.entries(), note]))
    return 0


def _document(ignore: IgnoreList) -> object:
    """The list as the JSON document the store keeps."""
    return json.loads(ignore.to_json())


def _listing(ignore: IgnoreList) -> str:
    if not ignore:
        return f"the ignore list is empty ({IGNORE_MARKER} markers in project folders still apply)"
    return "\n".join(ignore.entries())
