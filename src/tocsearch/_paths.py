"""Where the command line keeps its store when none is named."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from tocsearch.errors import InvalidArgument

__all__ = ["default_store_path"]


def default_store_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$TOCSEARCH_HOME`` if set, else the platform's per-user data directory + ``tocsearch``.

    Linux and other Unixes follow the XDG base directory rules (``$XDG_DATA_HOME`` or
    ``~/.local/share``); macOS uses ``~/Library/Application Support``; Windows ``%LOCALAPPDATA%``.

    Raises:
        InvalidArgument: ``$TOCSEARCH_HOME`` starts with the home of a user this system does not
            know (``~name/...``), or no home directory can be found for the default.
    """
    env = os.environ if environ is None else environ
    explicit = env.get("TOCSEARCH_HOME")
    try:
        if explicit:
            return Path(explicit).expanduser()
        home = Path(env.get("HOME") or Path.home())
    except RuntimeError:  # what pathlib raises for an unknown "~name" or a user without a home
        where = f"TOCSEARCH_HOME={explicit!r}" if explicit else "the default store"
        raise InvalidArgument(
            f"{where}: no home directory found for it; set TOCSEARCH_HOME to a path"
        ) from None
    if sys.platform == "win32":
        base = Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / "tocsearch"
