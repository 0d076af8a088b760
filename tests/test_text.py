"""Query terms, normalisation and the conservative token estimate."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import sentences
from tocsearch.text import (
    MIN_TERM_LENGTH,
    TokenEstimator,
    ascii_digits,
    estimate_tokens,
    normalize,
    query_terms,
)


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ("The JWT jwt to  Refresh", ("the", "jwt", "refresh")),
        ("jwt jwt", ("jwt",)),
        ("JWT Jwt jWT", ("jwt",)),
        ("to be or", ()),
        ("", ()),
        ("   \t\n ", ()),
        ("refresh\ttoken\nrotation", ("refresh", "token", "rotation")),
        ("jwt\u00a0refresh", ("jwt", "refresh")),
        ("STRASSE straße", ("strasse",)),
        ("ÉCOLE école", ("école",)),
        ("日本語 日本", ("日本語",)),
        ("auth-flow v2.1", ("auth-flow", "v2.1")),
    ],
)
def test_query_terms_examples(query: str, terms: tuple[str, ...]) -> None:
    """Terms are whitespace-split, case-folded, at least three characters, unique, in order."""
    assert query_terms(query) == terms


def test_min_term_length_is_three() -> None:
    """Three characters is the shortest term kept."""
    assert MIN_TERM_LENGTH == 3
    assert query_terms("ab abc") == ("abc",)


@given(query=st.text(max_size=60))
def test_query_terms_properties(query: str) -> None:
    """Every term is folded, long enough, unique and comes from the query, in first-seen order;
    every long-enough word of the query gives a term."""
    terms = query_terms(query)
    folded_words = [word.casefold() for word in query.split()]
    assert len(set(terms)) == len(terms)
    for term in terms:
        assert len(term) >= MIN_TERM_LENGTH
        assert term in folded_words
    long_words = [word for word in folded_words if len(word) >= MIN_TERM_LENGTH]
    assert list(terms) == list(dict.fromkeys(long_words))


@given(query=sentences)
def test_query_terms_ignore_case(query: str) -> None:
    """Upper-, lower- and case-folded queries give the same terms."""
    assert query_terms(query.upper()) == query_terms(query.lower()) == query_terms(query)


def test_normalize_folds_case() -> None:
    """normalize() is Unicode case folding: "Straße" and "STRASSE" compare equal."""
    assert normalize("Straße") == normalize("STRASSE") == "strasse"
    assert normalize("ÉCOLE") == "école"
    assert normalize("JWT") == "jwt"


@given(text=st.text(max_size=40))
def test_normalize_is_idempotent(text: str) -> None:
    """Folding twice is folding once."""
    assert normalize(normalize(text)) == normalize(text)


def test_estimate_tokens_examples() -> None:
    """One token per started three characters; nothing costs nothing."""
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens("abc") == 1
    assert estimate_tokens("abcd") == 2
    assert estimate_tokens("JWT refresh tokens") == 6


@given(text=st.text(max_size=400))
def test_estimate_tokens_is_conservative(text: str) -> None:
    """The estimate is never below len/4, the usual characters-per-token of real tokenizers."""
    assert estimate_tokens(text) >= math.ceil(len(text) / 4)
    assert estimate_tokens(text) >= len(text) / 4


@given(first=st.text(max_size=100), second=st.text(max_size=100))
def test_estimate_tokens_grows_with_text(first: str, second: str) -> None:
    """A longer text never costs less, and two texts cost at most their parts plus nothing."""
    joined = estimate_tokens(first + second)
    assert joined >= max(estimate_tokens(first), estimate_tokens(second))
    assert joined <= estimate_tokens(first) + estimate_tokens(second)


def test_estimate_tokens_is_a_token_estimator() -> None:
    """estimate_tokens fits the TokenEstimator protocol, like any plugged-in tokenizer."""
    estimator: TokenEstimator = estimate_tokens
    assert estimator("abcdef") == 2


@given(st.text(max_size=6) | st.text(alphabet="0123456789\u00b9\u00b2\u0663\u2460", max_size=6))
def test_ascii_digits_is_what_int_reads_as_plain_digits(text: str) -> None:
    """True exactly for one or more of 0-9, and then ``int`` reads it."""
    assert ascii_digits(text) == (re.fullmatch("[0-9]+", text) is not None)
    if ascii_digits(text):
        assert str(int(text)) == text.lstrip("0") or int(text) == 0
