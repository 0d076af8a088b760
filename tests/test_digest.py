"""Term digests: no false negatives, unions, round trips, and the same bits in every process."""

from __future__ import annotations

import base64
import pickle
import re
import subprocess
import sys
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tocsearch import digest as digest_module
from tocsearch.digest import DIGEST_BITS, KEY_MAX, KEY_MIN, TermDigest, prefix_keys
from tocsearch.errors import InvalidArgument
from tocsearch.navigate._terms import topic_terms
from tocsearch.navigate._weights import TermMatcher

# Words with the characters a word may hold besides letters, so "auth.token" and "node.js"
# shapes (where a term may start after a separator) are drawn too.
words = st.text(alphabet="abcdeéßTOK019._-+#/", min_size=1, max_size=14)
texts = st.lists(words, max_size=12).map(" ".join)


@given(st.lists(texts, max_size=5))
def test_text_round_trip_gives_the_same_digest(values: list[str]) -> None:
    """to_text then from_text gives back an equal digest."""
    digest = TermDigest.from_texts(values)
    assert TermDigest.from_text(digest.to_text()) == digest


@given(st.lists(texts, max_size=5))
def test_every_prefix_key_of_every_word_may_be_contained(values: list[str]) -> None:
    """No false negatives: each inserted prefix key is reported as possibly present."""
    digest = TermDigest.from_texts(values)
    for text in values:
        for key in prefix_keys(text):
            assert KEY_MIN <= len(key) <= KEY_MAX
            assert digest.may_contain(key)


@given(text=texts, query=texts)
def test_every_term_the_walk_matches_may_be_contained(text: str, query: str) -> None:
    """A navigator term that the walk's matcher finds in a text is never ruled out by that
    text's digest."""
    terms = topic_terms(query)
    digest = TermDigest.from_texts([text])
    for term in TermMatcher(terms).present(text):
        assert digest.may_contain(term), (term, text)


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("Rotated the Postgres credentials", "credential"),
        ("tokens expired", "token"),
        ("see auth.token for details", "token"),
        ("upgraded node.js today", "node.js"),
        ("internationalizations work", "internationalization"),
    ],
)
def test_terms_found_by_the_matcher_are_in_the_digest(text: str, term: str) -> None:
    """Examples of matches the digest must keep: suffixes, words after a dot, long stems."""
    assert term in TermMatcher([term]).present(text)
    assert TermDigest.from_texts([text]).may_contain(term)


@given(st.lists(texts, max_size=4), st.lists(texts, max_size=4))
def test_union_is_the_digest_of_all_the_texts(left: list[str], right: list[str]) -> None:
    """The union of two digests equals the digest of both sets of texts together."""
    joined = TermDigest.from_texts(left).union([TermDigest.from_texts(right)])
    assert joined == TermDigest.from_texts(left + right)


@given(st.lists(st.lists(texts, max_size=3), min_size=1, max_size=4), st.integers(1, 3))
def test_unions_of_unions_are_the_digest_of_all_their_texts(
    groups: list[list[str]], size: int
) -> None:
    """Joining unions again (weeks into a month, months into a year: a union keeps its
    bitmap as an integer for the next) gives the digest of every text below, bitmap and
    stored text alike, and a union pickles as the digest it is."""
    parts = [TermDigest.from_texts(group) for group in groups]
    weeks = [parts[0].union(parts[1:size])]
    weeks += [part.union(parts[:size]) for part in parts[size:]]
    whole = weeks[0].union(weeks[1:])
    expected = TermDigest.from_texts([text for group in groups for text in group])
    assert whole == expected
    assert whole.bitmap == expected.bitmap
    assert whole.to_text() == expected.to_text()
    assert pickle.loads(pickle.dumps(whole)) == expected


# Any white space (Unicode spaces too) between pieces, and letters whose case folding grows.
spaced = st.lists(
    st.tuples(
        words | st.sampled_from(["ẞ", "İ", "Σ", "ﬁ", "ǅ", "x\u0301"]),
        st.sampled_from([" ", "\n", "\t", "\u00a0", "\u2003", "\u3000", "\x1c", ""]),
    ),
    max_size=12,
).map(lambda parts: "".join(piece + gap for piece, gap in parts))


@given(st.lists(spaced, max_size=5))
def test_words_are_those_of_one_pass_over_the_folded_texts(values: list[str]) -> None:
    """Matching each distinct run of non-space characters once finds exactly the words one
    pass of the word pattern over all the folded texts finds."""
    plain = set(digest_module._WORD.findall("\n".join(values).casefold()))
    assert digest_module._distinct_words(values) == plain


def test_no_word_character_is_white_space_and_no_folding_makes_any() -> None:
    """What matching runs of non-space characters alone relies on, checked over every code
    point: white space never matches the word pattern and folds to white space, and folding
    never makes white space of anything else."""
    word_char = re.compile(r"[\w.+#/-]")
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if char.isspace():
            assert word_char.match(char) is None, hex(code)
            assert char.casefold().isspace(), hex(code)
        else:
            assert not any(folded.isspace() for folded in char.casefold()), hex(code)


def test_a_word_never_inserted_is_ruled_out() -> None:
    """A digest of a few words says no to an unrelated word (no bits in common here)."""
    digest = TermDigest.from_texts(["deploy the cache"])
    assert not digest.may_contain("quokkaflux")
    assert 0.0 < digest.fill_ratio < 0.001


def test_short_terms_are_never_ruled_out() -> None:
    """A term shorter than KEY_MIN (an acronym such as "ci") is always possibly present."""
    assert TermDigest().may_contain("ci")


def test_the_bits_are_fixed_for_a_fixed_input() -> None:
    """The hash positions are the same on every machine: a known word sets known bits."""
    digest = TermDigest.from_texts(["token"])
    expected = [1665, 2850, 4035, 41004, 50666, 176907, 187505, 200552, 213599]
    assert sorted(_set_bits(_bitmap(digest))) == expected


@given(
    st.sets(st.integers(min_value=0, max_value=DIGEST_BITS - 1), max_size=300),
    st.sampled_from([512, 1024, 8192, DIGEST_BITS]),
)
def test_positions_set_exactly_their_bits_folded_onto_the_size(
    positions: set[int], bits: int
) -> None:
    """A digest from bit positions sets bit ``position % bits`` for each one and no other."""
    digest = TermDigest.from_positions(positions, sized=False)
    if bits != DIGEST_BITS:
        digest = TermDigest._of_positions(positions, bits)
    bitmap = _bitmap(digest)
    assert digest.bits == bits == len(bitmap) * 8
    assert _set_bits(bitmap) == {position % bits for position in positions}


def test_the_digest_is_the_same_in_another_process() -> None:
    """A digest made in a process with another string-hash seed has the same text."""
    script = (
        "from tocsearch.digest import TermDigest;"
        "print(TermDigest.from_texts(['rotate the postgres credentials']).to_text())"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            check=True,
            capture_output=True,
            text=True,
            env={"PYTHONHASHSEED": seed},
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert outputs == {TermDigest.from_texts(["rotate the postgres credentials"]).to_text()}


@pytest.mark.parametrize("text", ["", "not base64!", "aGVsbG8=", "eJwDAAAAAAE="])
def test_malformed_text_is_refused_with_a_clear_error(text: str) -> None:
    """from_text refuses a text that is not a digest of this size, naming it."""
    with pytest.raises(InvalidArgument, match="not a term digest"):
        TermDigest.from_text(text)


def test_a_bitmap_of_the_wrong_size_is_refused() -> None:
    """A digest is always DIGEST_BITS bits."""
    with pytest.raises(InvalidArgument, match="bitmap"):
        TermDigest(b"\x00")


def _bitmap(digest: TermDigest) -> bytes:
    """The raw bitmap, read back through the stored form."""
    return zlib.decompress(base64.b64decode(digest.to_text()))


def _set_bits(bitmap: bytes) -> set[int]:
    """The indexes of the bits set in a little-endian bitmap, read a byte at a time: shifting
    the bitmap as one integer once per bit costs a copy of it each time."""
    return {
        index * 8 + bit
        for index, byte in enumerate(bitmap)
        if byte
        for bit in range(8)
        if byte >> bit & 1
    }


@given(st.lists(texts, max_size=4), texts)
def test_probes_answer_as_may_contain_does(values: list[str], term: str) -> None:
    """Testing a term's precomputed probes gives may_contain's answer, short terms included."""
    digest = TermDigest.from_texts(values)
    for candidate in (term, *(word for value in values for word in value.split())):
        assert digest.holds(TermDigest.probes(candidate)) == digest.may_contain(candidate)


def test_a_term_that_folds_into_two_words_is_never_ruled_out() -> None:
    """ "İstanbul" folds to "i" + combining dot + "stanbul": the navigator still matches the
    folded term there, so the digest must not rule it out."""
    digest = TermDigest.from_texts(["flights to İstanbul"])
    assert digest.may_contain("İstanbul")
    assert digest.holds(TermDigest.probes("istanbul".replace("i", "i\u0307", 1)))
    assert not digest.may_contain("ankara")


@given(st.sets(st.integers(min_value=0, max_value=DIGEST_BITS - 1), max_size=3000))
def test_a_full_digest_sized_is_the_sized_digest_of_its_positions(positions: set[int]) -> None:
    """Folding a full-size digest gives, bit for bit, the digest sized to its positions."""
    full = TermDigest.from_positions(positions)
    assert full.sized() == TermDigest.from_positions(positions, sized=True)
    assert full.sized().bits == TermDigest.from_positions(positions, sized=True).bits


@given(
    st.sets(st.integers(min_value=0, max_value=DIGEST_BITS - 1), max_size=3000),
    st.integers(min_value=9, max_value=18),
)
def test_a_folded_digest_sets_each_position_modulo_its_size(positions: set[int], log2: int) -> None:
    """Folding a full-size digest to any smaller size sets exactly the bits its positions
    fall on at that size, and a count of the positions given to ``sized`` changes nothing."""
    full = TermDigest.from_positions(positions)
    bits = 1 << log2
    expected = bytearray(bits // 8)
    for position in positions:
        expected[(position % bits) >> 3] |= 1 << (position & 7)
    assert full.folded(bits).bitmap == bytes(expected)
    assert full.sized(positions=len(positions)) == full.sized()


@pytest.mark.parametrize("bits", [256, 1000, 1024 + 8, DIGEST_BITS * 2, 0, -512])
def test_a_fold_to_a_size_no_digest_has_is_refused(bits: int) -> None:
    """Folding to a size that is not a smaller digest size is refused with a clear error."""
    with pytest.raises(InvalidArgument, match=f"not {bits}"):
        TermDigest.from_texts(["postgres"]).folded(bits)


@pytest.mark.parametrize("position", [DIGEST_BITS, DIGEST_BITS * 2, -DIGEST_BITS - 1])
def test_a_full_size_position_out_of_range_is_refused(position: int) -> None:
    """A bit position no full-size digest has is refused with a clear error."""
    with pytest.raises(InvalidArgument, match="digest bit positions lie in 0"):
        TermDigest.from_positions({5, position})
