"""Property tests that set their own example count deepen with the profile: "deep" multiplies
that count as it multiplies CI's, while "dev" and "ci" keep it, so the default run and CI take
as long as before."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import settings

from tests._support.examples import scaled

TESTS = Path(__file__).resolve().parent


@pytest.mark.parametrize(("profile", "factor"), [("dev", 1), ("ci", 1), ("deep", 20)])
def test_a_tests_own_count_scales_as_the_profile_scales_ci(profile: str, factor: int) -> None:
    """A count of 25 is drawn 25 times under dev and ci and 500 times under deep."""
    loaded = settings.get_profile(profile)
    assert scaled(25, loaded) == 25 * factor


def test_no_test_sets_a_count_the_profile_cannot_scale() -> None:
    """Every ``max_examples`` a test sets goes through ``scaled``: a bare number would stay the
    same under the deep profile."""
    bare = [
        f"{path.relative_to(TESTS)}:{number}"
        for path in sorted(TESTS.rglob("*.py"))
        if path.name != "conftest.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"max_examples\s*=\s*\d", line)
    ]
    assert bare == []
