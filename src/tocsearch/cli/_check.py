"""``tocsearch check``: verify a store deeply, and with ``--repair`` rebuild a damaged one from
the events it still holds."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from tocsearch._repair import RepairReport, check_store, repair_store
from tocsearch.cli._common import (
    CommandError,
    Commands,
    SharedOptions,
    emit,
    store_path,
    write_notice,
)
from tocsearch.converter import to_dict
from tocsearch.errors import StoreCorrupted

__all__ = ["register"]


def register(commands: Commands, shared: SharedOptions) -> None:
    """Add the ``check`` command."""
    check = commands.add_parser(
        "check",
        parents=[shared.store, shared.output],
        help="verify every record and the whole tree; --repair rebuilds a damaged store",
    )
    check.add_argument(
        "--repair",
        action="store_true",
        help="rebuild a damaged store from its events (the damaged one is kept beside it)",
    )
    check.set_defaults(run=_check)


def _check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    path = store_path(args)
    if not path.exists():
        raise CommandError(f"no store at {path}; pass --store DIR")
    try:
        check_store(path, backend=args.backend)
    except StoreCorrupted as error:
        if not args.repair:
            backend = "" if args.backend is None else f" --backend {args.backend}"
            raise CommandError(
                f"{error}\nrepair it with: tocsearch check --repair --store {path}{backend}"
            ) from None
        write_notice(err, f"damaged: {error}")
    else:
        emit(args, out, {"ok": True, "store": str(path)}, lambda: f"{path}: store and tree OK")
        return 0
    report = repair_store(path, backend=args.backend)
    check_store(path, backend=args.backend)
    data = {"ok": True, "store": str(path), "repaired": to_dict(report)}
    emit(args, out, data, lambda: _repaired(path, report))
    return 0


def _repaired(path: Path, report: RepairReport) -> str:
    lines = [
        f"{path}: rebuilt from {report.events_recovered:,} events "
        f"into {report.segments:,} segments",
        f"the damaged store is kept at {report.damaged_copy}",
    ]
    for problem in report.problems:
        lines.append(f"unreadable: {problem}")
    if report.missing_event_ids:
        lines.append(
            f"{len(report.missing_event_ids):,} events cited by the old tree could not be read "
            "and are lost from the store; ingest their source files again to put them back:"
        )
        lines.extend(f"  {event_id}" for event_id in report.missing_event_ids)
    return "\n".join(lines)
