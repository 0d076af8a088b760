"""The ``tocsearch`` command: ingest histories, search and navigate them, expand evidence.

Every command prints for people by default and, with ``--json``, one stable JSON document (see
docs/cli.md). Errors are one line on stderr: exit status 1 for a failed command, 2 for usage.

Each command lives in a small module that registers its parser (``_ingest``, ``_query``,
``_tree``); ``_common`` holds what they share and ``_main`` the dispatch.
"""

from __future__ import annotations

from tocsearch.cli._main import main

__all__ = ["main"]
