"""The public API: ``tocsearch.__all__`` is exactly the package's public names, every public
module's ``__all__`` lists everything it defines for users, and the docs import from the top
level whatever is exported there."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import types
from pathlib import Path

import pytest

import tocsearch

ROOT = Path(__file__).resolve().parents[1]


def _public_modules() -> list[str]:
    """tocsearch and every module or package below it with no ``_private`` part in its name."""
    found = ["tocsearch"]
    for info in pkgutil.walk_packages(tocsearch.__path__, "tocsearch."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            found.append(info.name)
    return sorted(found)


MODULES = _public_modules()


def _exports(name: str) -> list[str]:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert isinstance(exported, list), f"{name} has no __all__ list"
    return exported


def _plumbing(value: ast.expr) -> bool:
    """Module-level values that are machinery, not API: type variables and loggers."""
    if not isinstance(value, ast.Call):
        return False
    called = value.func
    name = called.id if isinstance(called, ast.Name) else getattr(called, "attr", "")
    return name in {"TypeVar", "getLogger"}


def _offered_names(name: str) -> set[str]:
    """The public names a module offers: what it defines at top level and, for a package,
    what it imports from inside itself (its re-exports)."""
    module = importlib.import_module(name)
    is_package = hasattr(module, "__path__")
    names: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Assign) and not _plumbing(node.value):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif isinstance(node, ast.ImportFrom) and is_package:
                if node.module is not None and node.module.startswith(f"{name}."):
                    names.update(alias.asname or alias.name for alias in node.names)
            elif isinstance(node, ast.If):
                visit(node.body)
                visit(node.orelse)

    visit(ast.parse(inspect.getsource(module)).body)
    return {found for found in names if not found.startswith("_")}


def test_the_public_modules_are_found() -> None:
    """The walk sees the subpackages and modules users import from, and no private one."""
    for expected in ["ingest", "summarize", "navigate", "storage", "importers", "tools"]:
        assert f"tocsearch.{expected}" in MODULES
    assert not [name for name in MODULES if "._" in name]


def test_all_is_exactly_the_packages_public_names() -> None:
    """Everything public in the ``tocsearch`` namespace (bar submodules) is in __all__, and
    __all__ holds nothing else (as httpx's tests/test_exported_members.py checks)."""
    public = {
        name
        for name, value in vars(tocsearch).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert sorted(public) == tocsearch.__all__


@pytest.mark.parametrize("name", MODULES)
def test_all_is_complete(name: str) -> None:
    """Every public name a module defines (or a package re-exports) is in its __all__."""
    assert sorted(_offered_names(name) - set(_exports(name))) == []


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


def test_subpackage_exports_are_reexported_at_the_top() -> None:
    """What the subpackages users build with export is importable from ``tocsearch`` too."""
    for name in ["ingest", "summarize", "navigate", "storage"]:
        missing = set(_exports(f"tocsearch.{name}")) - set(tocsearch.__all__)
        assert sorted(missing) == [], name


def test_exported_members_are_public_and_ours() -> None:
    """tocsearch exports no private names, and each exported class or function is defined in
    tocsearch, so users never depend on where a third-party name comes from."""
    for member in tocsearch.__all__:
        assert not member.startswith("_")
        value = getattr(tocsearch, member)
        if isinstance(value, (type, types.FunctionType)):
            assert value.__module__.startswith("tocsearch"), member


IMPORT = re.compile(r"^\s*from (tocsearch\.[\w.]+) import ([\w, ]+)$", re.MULTILINE)
BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_docs_import_from_the_top_level(page: Path) -> None:
    """A code example imports a name from ``tocsearch`` itself whenever it is exported there,
    so users learn the one import path that stays put."""
    deep = [
        f"{module}.{name}"
        for block in BLOCK.findall(page.read_text(encoding="utf-8"))
        for module, names in IMPORT.findall(block)
        for name in (part.strip() for part in names.split(","))
        if name in tocsearch.__all__
    ]
    assert deep == []


def test_version() -> None:
    """The package carries a version string."""
    assert isinstance(tocsearch.__version__, str)
    assert tocsearch.__version__
