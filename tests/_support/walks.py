"""What tests that drive the navigator's walk directly share: the terms of the synthetic
topics, question term sets drawn from them, and generous walk limits."""

from __future__ import annotations

from hypothesis import strategies as st

from tests._support.synthetic import TOPICS
from tocsearch.navigate._terms import topic_terms
from tocsearch.navigate._trail import WalkLimits

VOCABULARY = sorted({term for topic in TOPICS for text in topic for term in topic_terms(text)})
"""Every term the synthetic topics' texts hold, as the navigator reads them."""

term_sets = st.lists(
    # Two words no topic says, so some sets hold terms that no segment has.
    st.one_of(st.sampled_from(VOCABULARY), st.sampled_from(["zzzunsaid", "qqq"])),
    min_size=1,
    max_size=3,
    unique=True,
).map(tuple)
"""One to three distinct question terms."""

WALK_LIMITS = WalkLimits(
    max_iterations=50,
    threshold=0.3,
    width=5,
    max_evidence=30,
    scan_page=500,
    max_nodes=50_000,
    max_events=2000,
)
"""Limits wide enough that a small test history is walked without running out."""
