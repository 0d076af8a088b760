"""The registry of evaluation methods: names, selection and registration."""

from __future__ import annotations

import pytest
from benchmarks._locomo_eval import Method
from benchmarks._methods import CUT_FACTOR, METHODS, register, select

from tocsearch.errors import InvalidArgument


def test_the_default_methods_are_registered_in_report_order() -> None:
    """The navigator comes first, then both baselines, then the explicitly named cut column;
    only the navigators are given each column's budget."""
    assert list(METHODS)[:4] == ["navigator", "bm25-turns", "flat-scan", "navigator-4x-cut"]
    assert [m.name for m in METHODS.values() if m.budgeted] == [
        "navigator",
        "navigator-teleport-fts",
        "navigator-teleport-hybrid",
    ]
    assert CUT_FACTOR == 4


def test_select_keeps_the_order_given_and_drops_repeats() -> None:
    """Methods come back in the order asked for, each once, names stripped of spaces."""
    chosen = select(["flat-scan", " navigator", "flat-scan"])
    assert [m.name for m in chosen] == ["flat-scan", "navigator"]
    assert [m.name for m in select()] == list(METHODS)


def test_select_refuses_unknown_or_no_names() -> None:
    """An unknown name is refused, naming it and the registered ones; so is an empty list."""
    with pytest.raises(InvalidArgument, match=r"nope.*registered: navigator"):
        select(["navigator", "nope"])
    with pytest.raises(InvalidArgument, match="at least one"):
        select(["", " "])


def test_register_refuses_a_name_twice() -> None:
    """A second method under a registered name is refused and the first is kept."""
    first = METHODS["navigator"]
    with pytest.raises(InvalidArgument, match="already registered"):
        register(Method("navigator", make=first.make, budgeted=False, description="again"))
    assert METHODS["navigator"] is first


@pytest.mark.parametrize("name", ["", "two words", "a,b"])
def test_method_names_must_be_one_word(name: str) -> None:
    """A name that could not be given to --methods is refused."""
    with pytest.raises(InvalidArgument, match="method name"):
        Method(name, make=METHODS["navigator"].make, budgeted=True, description="x")


def test_the_index_backed_methods_are_registered_with_their_budgets() -> None:
    """fts, vec and hybrid search rank once; the teleported navigators are given each budget."""
    for name in ("index-fts", "index-vec", "index-hybrid", "index-hybrid-turns"):
        assert not METHODS[name].budgeted
    for name in ("navigator-teleport-fts", "navigator-teleport-hybrid"):
        assert METHODS[name].budgeted
    assert "MiniLM" in METHODS["index-hybrid"].description
