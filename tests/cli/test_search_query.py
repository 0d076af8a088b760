"""``tocsearch search`` takes its query as a word, like ``navigate`` and ``find``, or as
``--query``; never none and never two."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests._support.cli import run

FIXTURES = Path(__file__).resolve().parents[1] / "importers" / "fixtures" / "claude_code"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("search") / "store"
    code, _, err = run("ingest", str(FIXTURES), "--store", str(path))
    assert code == 0, err
    return str(path)


def test_the_query_as_a_word_or_an_option_gives_the_same_answer(store: str) -> None:
    worded = run("search", "refresh", "--store", store, "--json")
    optioned = run("search", "--query", "refresh", "--store", store, "--json")
    assert worded[0] == 0, worded[2]
    assert worded == optioned
    assert '"results": []' not in worded[1]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        ((), "search needs a QUERY"),
        (("refresh", "-q", "token"), "give the query once"),
    ],
)
def test_no_query_or_two_is_a_clear_error(store: str, argv: tuple[str, ...], said: str) -> None:
    code, out, err = run("search", *argv, "--store", store)
    assert code == 2
    assert "usage: tocsearch search" in err
    assert out == ""
    assert said in err
    assert "Traceback" not in err
