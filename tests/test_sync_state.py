"""The sync state file: what it remembers loads back as it was, and damage is forgotten."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from tocsearch._sync_state import STATE_NAME, FileState, load_state, save_state

# Text as os.fsdecode gives a path: a name that is not UTF-8 holds lone surrogates (\udcff).
_TEXT = st.text(max_size=12)
_COUNT = st.integers(min_value=0, max_value=2**63)
file_states = st.builds(
    FileState,
    kind=_TEXT,
    device=_COUNT,
    inode=_COUNT,
    size=_COUNT,
    mtime_ns=_COUNT,
    offset=_COUNT,
    lines=_COUNT,
    open_calls=st.dictionaries(_TEXT, _TEXT, max_size=3),
)


@given(state=st.dictionaries(st.text(min_size=1, max_size=20), file_states, max_size=4))
@example(state={"/src/proj/\udcff\udcfe.jsonl": FileState("claude-code", 1, 2, 3, 4)})
@example(state={"/src/a.jsonl": FileState("claude-code", 1, 2, 3, 4, open_calls={"\ud800": "x"})})
def test_a_saved_state_loads_back_as_it_was(state: dict[str, FileState]) -> None:
    """Any state saves and loads back equal, file names that are not UTF-8 included."""
    with tempfile.TemporaryDirectory() as folder:
        save_state(Path(folder), state)
        assert load_state(Path(folder)) == state


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["version", "files", "kind", "a"]), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(
    content=st.one_of(
        _JSON.map(json.dumps),
        st.fixed_dictionaries({"version": st.just(1), "files": _JSON}).map(json.dumps),
        st.fixed_dictionaries(
            {"version": st.just(1), "files": st.dictionaries(st.text(max_size=5), _JSON)}
        ).map(json.dumps),
        st.text(max_size=30),
    )
)
@example(content="[]")
@example(content="[" * 100_000)
@example(content='{"version": 1, "files": {"/a.jsonl": 1}}')
def test_a_damaged_state_is_forgotten_not_raised(content: str) -> None:
    """Any content of the state file loads as the entries it holds whole, or as nothing (each
    file then read again from its start), never as an error."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / STATE_NAME).write_text(content, encoding="utf-8", errors="replace")
        state: Any = load_state(Path(folder))
    assert isinstance(state, dict)
    assert all(isinstance(entry, FileState) for entry in state.values())
