"""Text that would steer a terminal (escape sequences, carriage returns, bidirectional
overrides) is printed visibly and inertly by every text-mode command, and exactly (as JSON
escapes) under ``--json``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from tests._support.cli import Terminal, on_screen, run, run_on_terminal

from tocsearch._terminal import terminal_json, visible
from tocsearch.cli._common import ProgressLine

# What must never reach a terminal raw: C0 controls but newline and tab, DEL, C1 controls,
# bidirectional controls, unpaired surrogates.
_STEERING = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_HOSTILE = (
    "clear \x1b[2J\x1b[H screen, "
    "link \x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ here, "
    "title \x1b]0;owned\x07 bell, "
    "csi \x9b31m c1, "
    "bidi \u202egnp.exe\u202c and \u2066isolate\u2069, "
    "back\roverwrite and back\x08space"
)
_steering_chars = st.sampled_from(
    ["\x1b", "\r", "\x08", "\x00", "\x7f", "\x9b", "\x85", "\u202e", "\u2067", "\u200f", "\ud800"]
)
_texts = st.lists(st.one_of(st.text(max_size=8), _steering_chars), max_size=12).map("".join)
# Text whose own backslashes read like escapes: "\\x1b" typed out, a doubled backslash, a path.
_backslashed = st.lists(
    st.one_of(
        st.text(max_size=4),
        _steering_chars,
        st.sampled_from(["\\", "\\x1b", "\\u202e", "\\r", "\\\\", "x", "u", "r", "\n", "1b"]),
    ),
    max_size=12,
).map("".join)
_ESCAPE = re.compile(r"\\(\\|x[0-9a-f]{2}|u[0-9a-f]{4}|r)")


def _read_back(shown: str) -> str:
    """The one text ``shown`` can stand for, by the notation the CLI documents: a text holding
    \\x, \\u, \\r or \\\\ is written with escapes, any other is the text as it is."""
    if re.search(r"\\[\\xur]", shown) is None:
        return shown
    # Every backslash of a text written with escapes begins one.
    assert "\\" not in _ESCAPE.sub("", shown)
    return _ESCAPE.sub(
        lambda match: {"\\": "\\", "r": "\r"}.get(match[1]) or chr(int(match[1][1:], 16)), shown
    )


@given(text=_texts)
@example(text=_HOSTILE)
@example(text="a\r\nb")
@example(text="\\x1b")
def test_visible_text_holds_nothing_that_steers_a_terminal(text: str) -> None:
    """What visible() returns holds no steering character and encodes as UTF-8; newlines and
    tabs stay; text without a steering character (but for a Windows line end) is unchanged."""
    shown = visible(text)
    assert _STEERING.search(shown) is None
    shown.encode("utf-8")
    assert shown.count("\n") == text.count("\n")
    assert shown.count("\t") == text.count("\t")
    if _STEERING.search(text.replace("\r\n", "\n")) is None and not re.search(r"\\[\\xur]", text):
        assert shown == text.replace("\r\n", "\n")


@given(text=st.one_of(_backslashed, _texts))
@example(text="\\x1b")
@example(text="\x1b")
@example(text="C:\\Users\\x")
@example(text="\\\\x1b\r\n\x1b")
@example(text="\r\r\n\\r")
def test_visible_text_reads_back_as_exactly_one_text(text: str) -> None:
    """The shown text maps back to the text it was made from (with Windows line ends as
    newlines), so no two texts are shown alike: a backslash of the text cannot pass for an
    escape."""
    assert _read_back(visible(text)) == text.replace("\r\n", "\n")


def test_a_typed_out_escape_and_the_character_are_shown_apart() -> None:
    """The four characters backslash, x, 1, b and the one character ESC print differently;
    a text whose backslashes read as no escape (a Windows path) prints as it is."""
    assert visible("\\x1b") == "\\\\x1b"
    assert visible("\x1b") == "\\x1b"
    assert visible("path C:\\Users\\Ann\\notes") == "path C:\\Users\\Ann\\notes"
    assert visible("C:\\Users\\Ann\x1b") == "C:\\\\Users\\\\Ann\\x1b"


@given(value=st.recursive(_texts, lambda inner: st.lists(inner) | st.dictionaries(_texts, inner)))
@example(value={"text": _HOSTILE})
def test_terminal_json_reads_back_exactly(value: object) -> None:
    """terminal_json() is JSON of the very value, with no steering character in its text."""
    for indent in (None, 2):
        text = terminal_json(value, indent=indent)
        assert json.loads(text) == value
        assert _STEERING.search(text) is None


def _jsonl(path: Path, texts: list[str]) -> Path:
    lines = [
        json.dumps(
            {
                "event_id": f"evt:17676042{n:02d}000:hostile.{n:02d}",
                "timestamp": f"2026-01-05T09:10:{n:02d}Z",
                "session_id": "hostile\x1b[2Jsession",
                "role": "user" if n % 2 == 0 else "assistant",
                "event_type": "user_message" if n % 2 == 0 else "assistant_message",
                "text": text,
                "metadata": {"project": "proj\u202eect"},
            }
        )
        for n, text in enumerate(texts)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store whose events, session and project names hold terminal escape sequences."""
    home = tmp_path_factory.mktemp("hostile")
    source = _jsonl(
        home / "hostile.jsonl",
        [f"deploy plan step {n}: {_HOSTILE}" for n in range(6)],
    )
    status, _, err = run("ingest", str(source), "--store", str(home / "store"))
    assert status == 0, err
    return home / "store"


def _grip_id(store: Path) -> str:
    status, out, err = run("search", "-q", "deploy plan", "--store", str(store), "--json")
    assert status == 0, err
    for result in json.loads(out)["results"]:
        for match in result["matches"]:
            if match["grip_ids"]:
                return str(match["grip_ids"][0])
    raise AssertionError("no grip found")


def _commands(store: Path) -> list[list[str]]:
    where = ["--store", str(store)]
    grip = _grip_id(store)
    return [
        ["search", "-q", "deploy plan", *where],
        ["search", "--node", "toc:day:2026-01-05", "-q", "deploy", *where],
        ["navigate", "deploy plan", "--now", "2026-01-06T00:00:00Z", *where],
        ["navigate", "deploy plan", "--now", "2026-01-06T00:00:00Z", "-v", *where],
        ["expand", grip, *where],
        ["expand", grip, "--full", *where],
        ["expand", "evt:1767604200000:hostile.00", *where],
        ["show", "toc:day:2026-01-05", *where],
        ["root", *where],
        ["browse", "toc:week:2026-W02", *where],
    ]


def test_text_output_shows_escape_sequences_without_sending_them(store: Path) -> None:
    """Every text-mode command prints the hostile characters of events, sessions and projects
    as visible escapes: nothing that steers the terminal reaches stdout or stderr."""
    shown_escapes = 0
    for argv in _commands(store):
        status, out, err = run_on_terminal(*argv)
        assert status == 0, (argv, err)
        assert _STEERING.search(out) is None, (argv, out)
        assert _STEERING.search(err) is None, (argv, err)
        shown_escapes += "\\x1b[2J" in out
    assert shown_escapes >= 6


def test_json_output_carries_the_hostile_text_exactly(store: Path) -> None:
    """Under --json the same commands carry the event text as it was stored, escaped only as
    JSON escapes it."""
    for argv in _commands(store):
        status, out, err = run(*argv, "--json")
        assert status == 0, (argv, err)
        assert _STEERING.search(out.replace("\n", "")) is None, argv
        document = json.loads(out)
        if argv[0] == "expand" and argv[1].startswith("evt:"):
            assert document["event"]["text"] == f"deploy plan step 0: {_HOSTILE}"


def test_errors_naming_hostile_values_are_shown_visibly(store: Path, tmp_path: Path) -> None:
    """An error line naming a value that holds escapes, and argparse's own complaints about
    arguments, show them visibly too."""
    hostile_path = tmp_path / "no\x1b[2Jsuch\u202efile.jsonl"
    cases = [
        ["ingest", str(hostile_path), "--store", str(tmp_path / "s")],
        ["show", "toc:day:2026-01-05\x1b[2J", "--store", str(store)],
        ["search", "-q", "deploy", "--store", str(store), "--bogus\x1b[2J"],
        ["search\x1b[2J"],
    ]
    for argv in cases:
        status, out, err = run(*argv)
        assert status != 0, argv
        assert err, argv
        assert _STEERING.search(out) is None, (argv, out)
        assert _STEERING.search(err) is None, (argv, err)


def test_a_progress_line_shows_a_hostile_file_name_visibly() -> None:
    """The progress line's own carriage returns are its only control characters: one naming a
    file whose name holds escapes shows them visibly."""
    err = Terminal()
    progress = ProgressLine(err)
    progress("reading no\x1b[2Jsuch\u202efile.jsonl")
    progress.end()
    written = err.getvalue()
    assert _STEERING.search(written.replace("\r", "")) is None
    assert "\\x1b[2J" in written
    assert on_screen(written) == [" " * len(visible("reading no\x1b[2Jsuch\u202efile.jsonl"))]
