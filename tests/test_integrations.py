"""The Claude Code integration files and the commands docs/claude-code.md shows are well formed:
the hook is valid settings JSON that runs tocsearch sync, and every tocsearch command in the
page parses."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from tocsearch.cli._main import build_parser

ROOT = Path(__file__).resolve().parent.parent
CLAUDE = ROOT / "integrations" / "claude-code"


def test_the_session_end_hook_runs_sync_and_never_fails() -> None:
    """settings.json holds a SessionEnd command hook running 'tocsearch sync', failures ignored;
    the docs show the same hook."""
    settings = json.loads((CLAUDE / "settings.json").read_text(encoding="utf-8"))
    (entry,) = settings["hooks"]["SessionEnd"]
    (hook,) = entry["hooks"]
    assert hook["type"] == "command"
    assert hook["command"].startswith("tocsearch sync")
    assert hook["command"].endswith("|| true")
    page = (ROOT / "docs" / "claude-code.md").read_text(encoding="utf-8")
    (shown,) = re.findall(r"```json\n(.*?)```", page, re.DOTALL)
    assert json.loads(shown) == settings


def test_the_memory_search_command_uses_the_mcp_tools() -> None:
    """/memory-search passes the user's words on and names the tools it should call."""
    text = (CLAUDE / "commands" / "memory-search.md").read_text(encoding="utf-8")
    assert text.startswith("---\ndescription: ")
    assert "$ARGUMENTS" in text
    for tool in ("navigate", "expand", "sync"):
        assert f"`{tool}`" in text


def test_every_tocsearch_command_in_the_page_parses() -> None:
    """Each 'tocsearch ...' the page tells a user to type is a valid command line."""
    page = (ROOT / "docs" / "claude-code.md").read_text(encoding="utf-8")
    commands = [
        shlex.split(command)
        for command in re.findall(r"(?:^\$ |-- |`)(tocsearch [^`\n]*)", page, re.MULTILINE)
    ]
    assert len(commands) >= 4
    parser = build_parser()
    for argv in commands:
        argv = [word for word in argv[1:] if not word.startswith(">") and word != "||"]
        argv = argv[: argv.index("true")] if "true" in argv else argv
        parser.parse_args(argv)
