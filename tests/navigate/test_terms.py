"""Search terms of a question: filler words that say nothing about the topic are dropped."""

from __future__ import annotations

import pytest

from tocsearch.navigate._terms import STOPWORDS, topic_terms


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        ("What kind of art does Caroline make?", ("art", "carolin", "make")),
        ("What pets might Nate likely have?", ("pet", "nate")),
        ("How many games did Tim play recently?", ("game", "tim", "play")),
        ("Describe the music Jon enjoys", ("music", "jon", "enjoy")),
    ],
)
def test_question_filler_is_no_search_term(question: str, terms: tuple[str, ...]) -> None:
    """Words that ask for a kind, a count, a likelihood or a recent time are dropped."""
    assert topic_terms(question) == terms


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        ("Which type errors did mypy report?", ("type", "error", "mypy", "report")),
        ("What broke the sort order of the results?", ("broke", "sort", "order", "result")),
    ],
)
def test_words_that_name_a_topic_in_software_stay_terms(
    question: str, terms: tuple[str, ...]
) -> None:
    """'type' and 'sort' are topics in conversations about code, so they are kept."""
    assert topic_terms(question) == terms


def test_stopwords_are_case_folded() -> None:
    """Every stopword is stored in its case-folded form, as question words are compared."""
    assert all(word == word.casefold() for word in STOPWORDS)
