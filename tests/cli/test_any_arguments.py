"""The query commands given any arguments: whatever the words, ids, numbers, times and zones
(unpaired surrogates, as a command line's bytes that are not UTF-8 arrive, included), a command
answers with status 0, 1 or 2, never a traceback, and prints nothing that steers a terminal
or that UTF-8 cannot carry."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests._support.cli import run
from tests._support.examples import scaled
from tests.strategies import any_text

from tocsearch.examples import example_path

# What must never reach a terminal raw (as tests/cli/test_hostile_text.py states it).
_STEERING = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
# A command line cannot hold NUL; anything else can reach argv.
_words = any_text.filter(lambda text: "\x00" not in text)
_values = st.one_of(
    _words,
    st.integers(-(10**30), 10**30).map(str),
    st.sampled_from(
        ["0", "-1", "1e9", "nan", "inf", "2026-01-30", "2026-13-45T25:00:00Z", "+14:00", "UTC"]
    ),
    st.sampled_from(["toc:day:2026-01-05", "toc:week:2026-W99", "evt:1767604200000:x", "grip:1:"]),
)
_COMMANDS: dict[str, tuple[str, ...]] = {
    "search": (
        *("--query", "--level", "--node", "--parent", "--fields", "--limit", "--budget"),
        *("--since", "--until", "--project", "--session", "--tz"),
    ),
    "navigate": (
        *("--now", "--tz", "--budget", "--limit", "--since", "--until", "--project"),
        "--session",
    ),
    "expand": ("--before", "--after", "--tz"),
    "show": ("--backend",),
    "browse": ("--limit", "--token"),
    "find": ("--mode", "--limit", "--min-score", "--since", "--until", "--tz"),
    "context": ("--limit", "--min-score", "--budget"),
}


# The example history's first two weeks: every command has days, a month and a year to answer
# from, and the first find or context embeds 79 events with the real model where the whole
# history is 480 (that embedding was most of this module's time).
_FIRST_TWO_WEEKS_END = "2026-01-19"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of the bundled example history's first two weeks."""
    folder = tmp_path_factory.mktemp("store")
    history = folder / "history.jsonl"
    lines = example_path().read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if json.loads(line)["timestamp"] < _FIRST_TWO_WEEKS_END]
    history.write_text("".join(kept), encoding="utf-8")
    status, _, err = run("ingest", str(history), "--store", str(folder / "store"))
    assert status == 0, err
    return folder / "store"


@settings(max_examples=scaled(20), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), command=st.sampled_from(sorted(_COMMANDS)))
def test_any_arguments_get_an_answer_or_a_clear_error(
    store: Path, data: st.DataObject, command: str
) -> None:
    """Status 0, 1 or 2; no traceback; stdout and stderr free of steering characters and
    writable as UTF-8."""
    options = data.draw(st.lists(st.sampled_from(_COMMANDS[command]), unique=True, max_size=3))
    argv = [command, "--store", str(store)]
    for option in options:
        argv += [option, data.draw(_values)]
    argv += data.draw(st.lists(_values, min_size=1, max_size=2))
    if data.draw(st.booleans()):
        argv.append("--json")
    status, out, err = run(*argv)
    assert status in (0, 1, 2), (argv, err)
    assert "Traceback" not in err
    for printed in (out, err):
        assert _STEERING.search(printed) is None, (argv, printed[:300])
        printed.encode("utf-8")
