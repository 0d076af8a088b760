"""Running the ``tocsearch`` command in-process, as the CLI tests do."""

from __future__ import annotations

import io
from pathlib import Path

from tocsearch.cli import main
from tocsearch.examples import example_path


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def on_screen(text: str) -> list[str]:
    """The lines a terminal shows after printing ``text``: a carriage return moves back to the
    start of the line and what follows overwrites it."""
    lines: list[list[str]] = [[]]
    column = 0
    for char in text:
        if char == "\n":
            lines.append([])
            column = 0
        elif char == "\r":
            column = 0
        else:
            line = lines[-1]
            if column < len(line):
                line[column] = char
            else:
                line.append(char)
            column += 1
    return ["".join(line) for line in lines]


def run_on_terminal(*argv: str) -> tuple[int, str, str]:
    """Run main() in-process with stderr a terminal; return (status, stdout, stderr)."""
    out, err = io.StringIO(), Terminal()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def run(*argv: str) -> tuple[int, str, str]:
    """Run main() in-process and return (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def example_store(path: Path) -> Path:
    """``path`` made into a store of the bundled example history by ``tocsearch ingest``."""
    status, _, err = run("ingest", str(example_path()), "--store", str(path))
    if status != 0:
        raise AssertionError(f"ingest failed: {err}")
    return path
