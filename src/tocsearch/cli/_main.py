"""The command table and ``main``: parse, dispatch, turn failures into one line and a status."""

from __future__ import annotations

import argparse
import io
import os
import re
import sys
from collections.abc import Sequence
from contextlib import redirect_stderr, redirect_stdout
from typing import TextIO

from tocsearch import __version__
from tocsearch._terminal import visible
from tocsearch.cli import (
    _check,
    _ignore,
    _index,
    _ingest,
    _mcp,
    _privacy,
    _query,
    _stats,
    _sync,
    _tree,
)
from tocsearch.cli._common import CommandError, Parser, Run, shared_options, write_notice
from tocsearch.errors import StoreCorrupted, TocsearchError

__all__ = ["build_parser", "main"]

# Each module adds its own commands, so a new command is a new module and one entry here.
_COMMAND_MODULES = (
    _ingest,
    _sync,
    _query,
    _tree,
    _stats,
    _check,
    _mcp,
    _index,
    _privacy,
    _ignore,
)


def build_parser() -> argparse.ArgumentParser:
    """The ``tocsearch`` parser with every command; each sets ``run`` to its handler."""
    parser = Parser(
        prog="tocsearch",
        description="Find things in long conversation histories through a time table of contents.",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}", help="print the version"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.required = True
    shared = shared_options()
    for module in _COMMAND_MODULES:
        module.register(commands, shared)
    return parser


_OFFSET_VALUE = re.compile(r"^-\d")


def _offsets_attached(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``--tz -08:00`` written ``--tz=-08:00``: argparse takes a value that
    starts with a dash for an option, and a west-of-UTC offset is a value users write so.

    >>> _offsets_attached(["demo", "--tz", "-08:00", "--json"])
    ['demo', '--tz=-08:00', '--json']
    """
    attached: list[str] = []
    waiting = False
    for arg in argv:
        if waiting and _OFFSET_VALUE.match(arg):
            attached[-1] = f"--tz={arg}"
        else:
            attached.append(arg)
        waiting = arg == "--tz"
    return attached


def main(
    argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run the command line; returns the exit status (0 ok, 1 failed, 2 usage)."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    parser = build_parser()
    # argparse prints usage, help and complaints to the process streams; they are caught and
    # sent where main() was told, with what would steer a terminal shown visibly (a complaint
    # quotes the arguments, which may hold anything).
    said, complained = io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(said), redirect_stderr(complained):
            args = parser.parse_args(_offsets_attached(sys.argv[1:] if argv is None else argv))
            # A check across options argparse cannot state (a command sets it) is a usage error.
            validate = getattr(args, "validate", None)
            if validate is not None:
                validate(args)
    except SystemExit as stop:
        return int(stop.code) if isinstance(stop.code, int) else 2
    finally:
        out.write(visible(said.getvalue()))
        err.write(visible(complained.getvalue()))
    run: Run = args.run
    try:
        return run(args, out, err)
    except (CommandError, TocsearchError) as error:
        write_notice(err, f"error: {error}")
        if isinstance(error, StoreCorrupted) and "--repair" not in str(error):
            write_notice(err, "'tocsearch check --repair' rebuilds a damaged store")
        return 1
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); silence the flush at exit and stop quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as error:
        where = f": {error.filename}" if error.filename else ""
        write_notice(err, f"error: {error.strerror or error}{where}")
        return 1
    except KeyboardInterrupt:
        write_notice(err, "interrupted")
        return 130
