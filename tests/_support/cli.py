"""Running the ``tocsearch`` command in-process, as the CLI tests do."""

from __future__ import annotations

import io
from pathlib import Path

from tocsearch.cli import main
from tocsearch.examples import example_path


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
