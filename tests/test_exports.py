"""The public API: every exported name resolves, and each __all__ is sorted and unique."""

from __future__ import annotations

import importlib
import types

import pytest

import tocsearch

MODULES = [
    "tocsearch",
    "tocsearch.converter",
    "tocsearch.errors",
    "tocsearch.ids",
    "tocsearch.levels",
    "tocsearch.models",
    "tocsearch.search",
    "tocsearch.storage",
    "tocsearch.text",
]


def _exports(name: str) -> list[str]:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert isinstance(exported, list), f"{name} has no __all__ list"
    return exported


@pytest.mark.parametrize("name", MODULES)
def test_all_is_sorted_and_unique(name: str) -> None:
    """__all__ is sorted and lists no name twice."""
    exported = _exports(name)
    assert exported == sorted(exported)
    assert len(set(exported)) == len(exported)


@pytest.mark.parametrize("name", MODULES)
def test_every_exported_name_resolves(name: str) -> None:
    """Every name in __all__ is an attribute of the module."""
    module = importlib.import_module(name)
    missing = [member for member in _exports(name) if not hasattr(module, member)]
    assert missing == []


def test_exported_members_are_public_and_ours() -> None:
    """tocsearch exports no private names, and each exported class or function is defined in
    tocsearch, so users never depend on where a third-party name comes from."""
    for member in tocsearch.__all__:
        assert not member.startswith("_")
        value = getattr(tocsearch, member)
        if isinstance(value, (type, types.FunctionType)):
            assert value.__module__.startswith("tocsearch"), member


def test_records_and_search_are_exported() -> None:
    """The core names a user needs are importable from the package root."""
    for member in [
        "Event",
        "Grip",
        "InMemoryStorage",
        "InvalidArgument",
        "NodeNotFound",
        "SearchField",
        "Storage",
        "TocBullet",
        "TocLevel",
        "TocNode",
        "TocsearchError",
        "from_json",
        "rank_nodes",
        "search_children",
        "search_node",
        "to_json",
    ]:
        assert member in tocsearch.__all__


def test_version() -> None:
    """The package carries a version string."""
    assert isinstance(tocsearch.__version__, str)
    assert tocsearch.__version__
