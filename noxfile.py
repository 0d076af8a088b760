"""Development sessions. Dependencies come from pyproject.toml's extras, the one source of truth."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "typecheck", "lint"]
nox.options.default_venv_backend = "venv"

PYTHON = ["3.10", "3.11", "3.12", "3.13"]


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Run the test suite (the thorough hypothesis profile when CI is set)."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict over src and tests."""
    session.install("-e", ".[test]")
    session.run("mypy", "--strict", "src", "tests")


@nox.session
def lint(session: nox.Session) -> None:
    """ruff lint and format check."""
    session.install("-e", ".[test]")
    session.run("ruff", "check", "src", "tests", "benchmarks", "noxfile.py")
    session.run("ruff", "format", "--check", "src", "tests", "benchmarks", "noxfile.py")


@nox.session
def docs(session: nox.Session) -> None:
    """Run every code block in README.md and docs/ as a test."""
    session.install("-e", ".[test]")
    session.run("pytest", "tests/test_docs.py", *session.posargs)
