"""How many examples a property test that sets its own count draws under each profile.

A test whose examples cost more than most (a store on disk, a forked helper) sets a count of
its own below the profile's. ``scaled`` keeps that count under "dev" and "ci", so the default
run and CI take as long as before, and multiplies it as "deep" multiplies CI's examples, so a
deep run deepens these tests too.
"""

from __future__ import annotations

from hypothesis import settings

__all__ = ["CI_EXAMPLES", "scaled"]

CI_EXAMPLES = 150


def scaled(count: int, profile: settings | None = None) -> int:
    """``count`` examples, times how many more ``profile`` (the loaded one by default) draws
    than CI, when it draws more."""
    drawn = (profile or settings()).max_examples
    return count * max(1, drawn // CI_EXAMPLES)
