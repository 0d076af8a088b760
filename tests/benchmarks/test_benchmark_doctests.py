"""The docstring examples of the benchmark modules run as tests (the suite's doctest collection
covers src/ only)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
MODULES = sorted(
    path.stem for path in BENCHMARKS.glob("*.py") if ">>> " in path.read_text(encoding="utf-8")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    """Every example in the module's docstrings runs and gives the output it shows."""
    module = importlib.import_module(f"benchmarks.{name}")
    failed, attempted = doctest.testmod(module, verbose=False)
    assert attempted > 0
    assert failed == 0
