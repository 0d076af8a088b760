"""Running the ``tocsearch`` command in-process, as the CLI tests do."""

from __future__ import annotations

import io

from tocsearch.cli import main


def run(*argv: str) -> tuple[int, str, str]:
    """Run main() in-process and return (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()
