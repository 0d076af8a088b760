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


@nox.session
def bench(session: nox.Session) -> None:
    """Speed at scale beside FTS5 and bm25s. Quick sizes by default; pass --full for the real ones.

    ``nox -s bench`` takes seconds; ``nox -s bench -- --full`` runs the sizes in
    benchmarks/RESULTS.md. The planted section builds 100k- and 1M-event stores through the
    builder on its first run (most of an hour on two cores) and reuses them from
    benchmarks/.cache afterwards.
    """
    session.install("-e", ".[bench]")
    if "--full" in session.posargs:
        extra = [arg for arg in session.posargs if arg != "--full"]
        session.run("python", "benchmarks/bench_speed.py", *extra)
    else:
        session.run("python", "benchmarks/bench_speed.py", "--quick", *session.posargs)


@nox.session
def eval(session: nox.Session) -> None:
    """Evidence recall on LoCoMo-format data: ``nox -s eval -- --data PATH [--json]``.

    Without --data it reads ../shared/data/locomo/locomo-dev.json beside the checkout.
    """
    session.install("-e", ".")
    args = list(session.posargs)
    if "--data" not in args:
        args = ["--data", "../shared/data/locomo/locomo-dev.json", *args]
    session.run("python", "benchmarks/eval_locomo.py", *args)
