"""``tocsearch sync``: read what is new in Claude Code and ChatGPT histories into the store."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from tocsearch.cli._common import (
    Commands,
    ProgressLine,
    SharedOptions,
    emit,
    open_store,
    store_path,
    write_notice,
)
from tocsearch.converter import to_dict
from tocsearch.sync import SyncReport, default_claude_projects, sync_sources

__all__ = ["register"]


def register(commands: Commands, shared: SharedOptions) -> None:
    """Add the ``sync`` command."""
    sync = commands.add_parser(
        "sync",
        parents=[shared.store, shared.output],
        help="read what is new in Claude Code transcripts and ChatGPT exports",
    )
    sync.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="transcript folders or files, ChatGPT export folders, .json or .zip "
        "(default: ~/.claude/projects)",
    )
    sync.add_argument("--full", action="store_true", help="read every file again from its start")
    sync.set_defaults(run=_sync)


def _sync(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    store = store_path(args)
    paths = args.paths or [default_claude_projects()]
    write_notice(err, f"store {store}")
    progress = ProgressLine(err)
    try:
        report = sync_sources(
            store, paths, lambda: open_store(args, writing=True), full=args.full, progress=progress
        )
    finally:
        progress.end()
    for problem in report.problems:
        write_notice(err, f"skipped {problem}")
    emit(args, out, to_dict(report), lambda: _text(report))
    return 0


def _text(report: SyncReport) -> str:
    return (
        f"{report.files_seen:,} files: {report.files_read:,} read "
        f"({report.files_reread:,} from the start), {report.files_unchanged:,} unchanged; "
        f"{report.events_added:,} new events of {report.events_read:,} read, "
        f"{report.days_rebuilt:,} days rebuilt"
        + (f"; {report.events_ignored:,} ignored" if report.events_ignored else "")
    )
