"""``tocsearch ingest``: import event files and build the tree."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from tocsearch import _render
from tocsearch.cli._common import CommandError, Commands, SharedOptions, emit, open_store
from tocsearch.converter import to_dict
from tocsearch.errors import UnknownFormat
from tocsearch.importers import FORMATS, load_events
from tocsearch.ingest import TocBuilder
from tocsearch.models import Event

__all__ = ["register"]

_PROGRESS_BATCH = 5_000


def register(commands: Commands, shared: SharedOptions) -> None:
    """Add the ``ingest`` command."""
    ingest = commands.add_parser(
        "ingest",
        parents=[shared.store, shared.output],
        help="import event files and build the tree",
    )
    ingest.add_argument("files", nargs="+", type=Path, metavar="FILE")
    ingest.add_argument("--format", choices=FORMATS, help="input format (default: detect)")
    ingest.add_argument(
        "--strict", action="store_true", help="refuse the whole batch on the first bad record"
    )
    ingest.set_defaults(run=_ingest)


def _ingest(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    loaded: list[Event] = []
    problems: list[str] = []
    unknown: dict[str, int] = {}
    for path in args.files:
        try:
            result = load_events(path, format=args.format, strict=args.strict)
        except UnknownFormat as error:
            raise CommandError(f"{error.detail}; pass --format ({', '.join(FORMATS)})") from None
        loaded.extend(result.events)
        problems.extend(str(problem) for problem in result.problems)
        for kind, count in result.unknown_content.items():
            unknown[kind] = unknown.get(kind, 0) + count
    for problem in problems:
        err.write(f"tocsearch: skipped {problem}\n")
    if unknown:
        kinds = ", ".join(f"{kind} ({count:,})" for kind, count in sorted(unknown.items()))
        err.write(
            f"tocsearch: read content of unknown types, text kept where it had any: {kinds}\n"
        )
    with open_store(args, writing=True) as storage:
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
    totals["unknown_content"] = sum(unknown.values())
    emit(args, out, totals, lambda: _render.ingest_report(totals))
    return 0
