"""The default test run collects every test file: a file pytest silently skips (a folder name
in its ``norecursedirs``, a module that fails to import, a file of helpers with no test) would
otherwise pass unnoticed, as the builder's tests once did."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests._support import collected

ROOT = Path(__file__).resolve().parents[1]


def _default_collection() -> tuple[set[str], list[str]]:
    """The files ``pytest --collect-only`` with no arguments collects tests from, and its
    errors (its output past the list when it fails)."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    errors = [] if run.returncode == 0 else [run.stdout[-3000:] + run.stderr[-3000:]]
    return {line.split("::", 1)[0] for line in run.stdout.splitlines() if "::" in line}, errors


def test_every_test_file_contributes_a_collected_test(request: pytest.FixtureRequest) -> None:
    """A run with no arguments, as the README runs it, collects at least one test from every
    ``tests/**/test_*.py``, and without errors."""
    config = request.config
    if config.args_source is pytest.Config.ArgsSource.TESTPATHS and not config.getoption(
        "lf", default=False
    ):
        # This session is that run (and no earlier failures narrowed what it collected): what
        # it collected is the answer, without collecting everything a second time.
        files, errors = collected.files, collected.errors
    else:
        files, errors = _default_collection()
    assert errors == []
    wanted = {path.relative_to(ROOT).as_posix() for path in ROOT.glob("tests/**/test_*.py")}
    assert wanted, "no test files found"
    assert sorted(wanted - files) == []
    assert "tests/test_collection.py" in files
