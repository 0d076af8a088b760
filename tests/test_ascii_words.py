"""The quick ASCII split finds exactly what the digest's word pattern finds, and steps aside
(None) for every text that is not ASCII."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from tocsearch import digest
from tocsearch._ascii_words import ascii_words

# The plain pattern, spelled out so that a change to the library's copy is caught too.
PLAIN_WORDS = re.compile(r"\w[\w.+#/-]*\w|\w")

# Every kind of ASCII character the pattern treats apart (word characters, its marks and
# the summarizer's, white space including the separators str.split() also cuts at, other
# punctuation, control characters), and a few that are not ASCII.
_ASCII_PIECES = st.sampled_from(
    [*"aZ09_", *"'./-+#", " ", "\t", "\n", "\x1c", "\x1f", "\x0b", "\x00", *',;:!?()[]"`~@$%^&*=']
)
_OTHER_PIECES = st.sampled_from(["’", "…", "é", "İ", "ß", "٣", "\u00a0"])
ascii_texts = st.lists(_ASCII_PIECES, max_size=60).map("".join)
any_texts = st.lists(st.one_of(_ASCII_PIECES, _OTHER_PIECES), max_size=60).map("".join)


@given(ascii_texts)
@example("c++ and a--b, v2.3.1! --x-- .#")
def test_ascii_words_are_the_word_pattern_matches(text: str) -> None:
    """For ASCII text the quick split gives the set of the digest word pattern's matches."""
    assert ascii_words(text) == set(PLAIN_WORDS.findall(text))


@given(st.lists(any_texts, max_size=4))
@example(["cut bullet…", "Postgres c++ it’s"])
def test_digest_words_are_the_word_pattern_matches(texts: list[str]) -> None:
    """A digest's words (quick for the ASCII runs, the pattern for the rest) are the word
    pattern's matches over the folded texts, so its bits are the same."""
    folded = "\n".join(texts).casefold()
    assert digest._distinct_words(texts) == set(PLAIN_WORDS.findall(folded))
    if not "".join(texts).isascii():
        assert ascii_words("".join(texts)) is None
