"""Term digests: a compact, lossy answer to "could this branch of the tree hold this word?".

Summaries above the segments keep only a few bullets, so a rare word said once in a long
history is missing from every level above the segment (and the events) that hold it. A
:class:`TermDigest` is a Bloom filter over the *word-prefix keys* of every text below a node:
for each case-folded word of at least three characters, its prefixes of three to eight
characters. A navigator term (a stem that matches at the start of a word) is looked up by its
first eight characters, so the digest never says "no" about a term one of its texts matches:
if a term matches a word, the term's first eight characters are a prefix of that word, of
length three to eight, and so were inserted. It may say "maybe" about a term none holds (a
false positive), never the other way round.

Every digest has the same size (:data:`DIGEST_BITS`) and hashes (:data:`DIGEST_HASHES`, double
hashing on two seeded CRC-32s, the same on every machine and in every process), so a parent's
digest is the bitwise OR of its children's, and adding events only ORs bitmaps. Stored as text:
``base64(zlib(bitmap))``; an empty text means "unknown" and never rules anything out.

>>> digest = TermDigest.from_texts(["Rotated the Postgres credentials"])
>>> digest.may_contain("postgr"), digest.may_contain("credential")
(True, True)
>>> TermDigest.from_text(digest.to_text()) == digest
True
"""

from __future__ import annotations

import base64
import binascii
import functools
import itertools
import re
import zlib
from collections.abc import Collection, Iterable

from tocsearch._ascii_words import ascii_words
from tocsearch.errors import InvalidArgument

__all__ = [
    "DIGEST_BITS",
    "DIGEST_HASHES",
    "KEY_MAX",
    "KEY_MIN",
    "SMALLEST_BITS",
    "TermDigest",
    "prefix_keys",
    "text_positions",
]

DIGEST_BITS = 1 << 18
"""Bits in every digest: a year of a busy history (a few hundred thousand keys) still answers
"no" for most absent terms, and a sparse day compresses to a few kilobytes."""
DIGEST_HASHES = 3
"""Bit positions set per key."""
KEY_MIN = 3
"""Shortest word-prefix key (and shortest word inserted)."""
KEY_MAX = 8
"""Longest word-prefix key: a term is looked up by its first ``KEY_MAX`` characters."""

SMALLEST_BITS = 512
"""Bits in the smallest digest (a segment of a few words)."""
_BYTES = DIGEST_BITS // 8
_SMALLEST_BYTES = SMALLEST_BITS // 8
# Bits per position set: with three positions a key, 12 bits a key, about 1% false positives.
_BITS_PER_POSITION = 4
_MASK = DIGEST_BITS - 1
# The navigator's word pattern (tocsearch.navigate._terms), so the two always agree on words.
_WORD = re.compile(r"\w[\w.+#/-]*\w|\w")
# The characters a word may hold besides word characters: a term may start after any of them.
_SEPARATORS = frozenset(".+#/-")
_SEED_A = 0x5BD1E995
_SEED_B = 0x1B873593
# The value of each bit of a byte, by its index.
_BIT = tuple(1 << index for index in range(8))
# The slice a fold (TermDigest.folded) converts to an integer at a time, in bytes.
_FOLD_SLICE = 1024
# Words recur across the events of a history: their keys and bits are worked out once.
_CACHED_WORDS = 1 << 16


@functools.lru_cache(maxsize=_CACHED_WORDS)
def _positions(key: str) -> tuple[int, ...]:
    data = key.encode("utf-8")
    first = zlib.crc32(data, _SEED_A)
    second = zlib.crc32(data, _SEED_B) | 1  # odd, so the probes never coincide
    return tuple((first + index * second) & _MASK for index in range(DIGEST_HASHES))


def prefix_keys(text: str) -> set[str]:
    """The word-prefix keys of ``text``: for each case-folded word of at least
    :data:`KEY_MIN` characters, its prefixes of :data:`KEY_MIN` to :data:`KEY_MAX` characters.

    >>> sorted(prefix_keys("Tokens!"))
    ['tok', 'toke', 'token', 'tokens']
    """
    keys: set[str] = set()
    for word in _words(text.casefold()):
        keys.update(_word_keys(word))
    return keys


@functools.lru_cache(maxsize=_CACHED_WORDS)
def _word_keys(word: str) -> tuple[str, ...]:
    # A term matches wherever no word character precedes it, so "token" matches inside
    # "auth.token" too: the start of the word and every word character after a separator.
    keys: list[str] = []
    for start in range(len(word)):
        if word[start] in _SEPARATORS or (start and word[start - 1] not in _SEPARATORS):
            continue
        tail = word[start : start + KEY_MAX]
        keys.extend(tail[:length] for length in range(KEY_MIN, len(tail) + 1))
    return tuple(keys)


def _lookup_key(term: str) -> str | None:
    """The key ``term`` is looked up by, or None when no key could rule it out.

    A key must lie inside one word of the folded text, so it stops before the first character
    no word holds: folding can make one ("İ" folds to "i" and a combining dot, which splits
    "İstanbul" into the words "i" and "stanbul"), and it ends on a word character, as words do.
    """
    key = term.casefold()[:KEY_MAX]
    for index, character in enumerate(key):
        if character not in _SEPARATORS and not _WORD.match(character):
            key = key[:index]
            break
    key = key.rstrip("".join(_SEPARATORS))
    return key if len(key) >= KEY_MIN and not key.startswith(tuple(_SEPARATORS)) else None


@functools.lru_cache(maxsize=_CACHED_WORDS)
def _word_positions(word: str) -> frozenset[int]:
    return frozenset(position for key in _word_keys(word) for position in _positions(key))


def text_positions(texts: Iterable[str]) -> set[int]:
    """The full-size bit positions of every word of ``texts``: what
    :meth:`TermDigest.from_positions` turns into a digest. The positions of several texts
    together are the union of each one's, so a day's are its segments' joined.

    >>> text_positions(["Postgres credentials"]) == (
    ...     text_positions(["Postgres"]) | text_positions(["credentials"])
    ... )
    True
    """
    # The union runs in C, one cached set per word.
    return set().union(*map(_word_positions, _distinct_words(texts)))


def _distinct_words(texts: Iterable[str]) -> set[str]:
    """The case-folded words of ``texts``: the same set as ``_WORD.findall`` over the folded
    texts joined by line breaks.

    No word holds white space, and folding, which works character by character, keeps white
    space white and everything else not, so every word lies inside one run of non-space
    characters and is found there alone, folded with it. A history repeats its runs far more
    than it has distinct ones, so folding and matching each distinct run once reads a
    fraction of the text.
    """
    runs = set("\n".join(texts).split())
    joined = " ".join(runs)
    if joined.isascii():
        return _words(joined.casefold())
    # A few runs that are not ASCII (an ellipsis in a cut bullet) leave the rest to the
    # quick split.
    return _words(" ".join(filter(str.isascii, runs)).casefold()) | _words(
        " ".join(itertools.filterfalse(str.isascii, runs)).casefold()
    )


def _words(folded: str) -> set[str]:
    """The set of ``_WORD``'s matches in the case-folded text ``folded``."""
    found = ascii_words(folded)
    return set(_WORD.findall(folded)) if found is None else found


def _valid_size(length: int) -> bool:
    """Whether ``length`` bytes is a digest size: a power of two from :data:`SMALLEST_BITS`
    to :data:`DIGEST_BITS` bits."""
    return _SMALLEST_BYTES <= length <= _BYTES and length & (length - 1) == 0


def _bits_for(positions: int) -> int:
    """The digest size for a text setting ``positions`` bits (in the full-size digest): about
    :data:`_BITS_PER_POSITION` bits each, a power of two, within the allowed sizes."""
    wanted = max(SMALLEST_BITS, positions * _BITS_PER_POSITION)
    return min(DIGEST_BITS, 1 << (wanted - 1).bit_length())


class TermDigest:
    """A Bloom filter over word-prefix keys; immutable once made.

    A full-size digest (:data:`DIGEST_BITS`) sits on days and the levels above, whose
    digests are unions; a segment's digest is sized to its text (:meth:`sized_for`), a power
    of two that folds the same bit positions onto fewer bits, so a segment costs a few
    hundred bytes, not 32 KiB. Unions need digests of one size.

    Runtime complexity: :meth:`may_contain` is O(1); :meth:`union` and the text forms are
    O(m) for m bits.
    """

    __slots__ = ("_bitmap", "_mask", "_value")

    def __init__(self, bitmap: bytes = bytes(_BYTES)) -> None:
        if not isinstance(bitmap, bytes) or not _valid_size(len(bitmap)):
            raise InvalidArgument(
                f"a digest's bitmap must be a power of two from {_SMALLEST_BYTES} to {_BYTES} "
                f"bytes, got {type(bitmap).__name__} "
                f"of length {len(bitmap) if isinstance(bitmap, (bytes, bytearray)) else '?'}"
            )
        self._bitmap = bitmap
        self._mask = len(bitmap) * 8 - 1
        # The bitmap as an integer, kept by a union that worked it out: a week's union is
        # joined into its month's and a month's into its year's, and converting 32 KiB to an
        # integer costs as much as the OR itself.
        self._value: int | None = None

    @property
    def bits(self) -> int:
        """The digest's size in bits."""
        return self._mask + 1

    @property
    def bitmap(self) -> bytes:
        """The bits, little-endian: bit ``p`` is bit ``p % 8`` of byte ``p // 8``."""
        return self._bitmap

    @classmethod
    def _of_positions(cls, positions: Iterable[int], bits: int) -> TermDigest:
        # One step of Python per position, the costliest part of a digest: each operation
        # saved here counts (a bit from a table, and no mask at full size, where every
        # position already fits).
        bitmap = bytearray(bits // 8)
        bit = _BIT
        if bits == DIGEST_BITS:
            try:
                for position in positions:
                    bitmap[position >> 3] |= bit[position & 7]
            except IndexError:
                raise InvalidArgument(
                    f"digest bit positions lie in 0..{DIGEST_BITS - 1}, got one outside"
                ) from None
        else:
            mask = bits - 1
            for position in positions:
                position &= mask
                bitmap[position >> 3] |= bit[position & 7]
        return cls(bytes(bitmap))

    @classmethod
    def from_keys(cls, keys: Iterable[str]) -> TermDigest:
        """The full-size digest holding exactly ``keys`` (each already a prefix key)."""
        return cls._of_positions(
            (position for key in set(keys) for position in _positions(key)), DIGEST_BITS
        )

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> TermDigest:
        """The full-size digest of every word of ``texts``; the same for the same words in
        any order."""
        return cls._of_positions(text_positions(texts), DIGEST_BITS)

    @classmethod
    def sized_for(cls, texts: Iterable[str]) -> TermDigest:
        """The digest of every word of ``texts``, sized to them (about 1% false positives).

        >>> small = TermDigest.sized_for(["Rotated the Postgres credentials"])
        >>> small.bits, small.may_contain("postgr"), small.may_contain("kubernetes")
        (512, True, False)
        """
        return cls.from_positions(text_positions(texts), sized=True)

    @classmethod
    def from_positions(cls, positions: Collection[int], *, sized: bool = False) -> TermDigest:
        """The digest setting the full-size bit ``positions`` (distinct, as from
        :func:`text_positions`): full size, or with ``sized`` the size :meth:`sized_for` gives
        the same texts.

        >>> texts = ["Rotated the Postgres credentials"]
        >>> TermDigest.from_positions(text_positions(texts)) == TermDigest.from_texts(texts)
        True
        """
        bits = _bits_for(len(positions)) if sized else DIGEST_BITS
        return cls._of_positions(positions, bits)

    def sized(self, *, positions: int | None = None) -> TermDigest:
        """This digest at the size :meth:`sized_for` gives the texts it holds: the bitmap
        folded (:meth:`folded`), a few steps on whole integers instead of one step per bit
        position. A day of one segment sets its bits once, for the day's digest, and folds
        them for the segment's.

        Args:
            positions: how many bits this digest sets, when the caller knows it (the length
                of the :func:`text_positions` it was made from), so they need not be counted.

        >>> texts = ["Rotated the Postgres credentials"]
        >>> TermDigest.from_texts(texts).sized() == TermDigest.sized_for(texts)
        True
        """
        if positions is None:
            positions = int.from_bytes(self._bitmap, "little").bit_count()
        return self.folded(min(_bits_for(positions), self.bits))

    def folded(self, bits: int) -> TermDigest:
        """This digest on ``bits`` bits (a size no larger than its own): bit ``p & (bits - 1)``
        is set wherever bit ``p`` is, so it holds every term this one holds. The bitmap's
        slices of ``bits`` bits are ORed together, as folding it in halves would.

        >>> digest = TermDigest.from_texts(["Rotated the Postgres credentials"])
        >>> small = digest.folded(1024)
        >>> small.bits, small.may_contain("postgr")
        (1024, True)

        Raises:
            InvalidArgument: ``bits`` is not a digest size no larger than this one's.
        """
        bitmap = self._bitmap
        width = bits // 8 if isinstance(bits, int) else 0
        if width * 8 != bits or not _valid_size(width) or width > len(bitmap):
            raise InvalidArgument(
                f"a digest of {self.bits} bits folds to a power of two from {SMALLEST_BITS} "
                f"to {self.bits} bits, not {bits}"
            )
        if width == len(bitmap):
            return self
        # Slices of a kilobyte or more are converted and joined first, and only what is
        # left is halved: halving a 32 KiB integer takes a mask and a shift of all of it,
        # and converting slices of a few bytes costs more per byte than the slices hold.
        step = max(width, _FOLD_SLICE)
        value = 0
        for start in range(0, len(bitmap), step):
            value |= int.from_bytes(bitmap[start : start + step], "little")
        size = step * 8
        while size > bits:
            size >>= 1
            value = (value & ((1 << size) - 1)) | (value >> size)
        return TermDigest(value.to_bytes(width, "little"))

    def union(self, others: Iterable[TermDigest]) -> TermDigest:
        """The digest of everything this one or any of ``others`` holds.

        Raises:
            InvalidArgument: the digests differ in size.
        """
        bits = self._as_int()
        for other in others:
            if other._mask != self._mask:
                raise InvalidArgument(
                    f"digests of {self.bits} and {other.bits} bits cannot be joined"
                )
            bits |= other._as_int()
        joined = TermDigest(bits.to_bytes(len(self._bitmap), "little"))
        joined._value = bits
        return joined

    def _as_int(self) -> int:
        value = self._value
        return int.from_bytes(self._bitmap, "little") if value is None else value

    def may_contain(self, term: str) -> bool:
        """Whether a text summarised here may hold a word that ``term`` starts (False is
        certain; True may be a false positive). Terms shorter than :data:`KEY_MIN` characters
        are never ruled out, nor those whose folded form breaks off sooner than that (see
        :func:`_lookup_key`)."""
        return self.holds(self.probes(term))

    @staticmethod
    def probes(term: str) -> tuple[int, ...] | None:
        """The bit positions :meth:`may_contain` tests for ``term`` (in a full-size digest;
        a smaller one folds them), or None for a term too short to be ruled out; work them
        out once to test many digests with :meth:`holds`."""
        key = _lookup_key(term)
        return None if key is None else _positions(key)

    def holds(self, probes: tuple[int, ...] | None) -> bool:
        """:meth:`may_contain` for the term whose :meth:`probes` these are.

        >>> digest = TermDigest.from_texts(["Rotated the Postgres credentials"])
        >>> digest.holds(TermDigest.probes("postgres")), digest.holds(TermDigest.probes("k8s"))
        (True, False)
        """
        if probes is None:
            return True
        bitmap = self._bitmap
        mask = self._mask
        # A loop, not all() over a generator: this runs for every digest a scan reads.
        for at in probes:
            at &= mask
            if not bitmap[at >> 3] >> (at & 7) & 1:
                return False
        return True

    @property
    def fill_ratio(self) -> float:
        """The share of bits set; the false positive rate is about its cube."""
        return int.from_bytes(self._bitmap, "little").bit_count() / self.bits

    def to_text(self) -> str:
        """The digest as stored text: ``base64(zlib(bitmap))``, little-endian bit order."""
        # Run-length matching suits a sparse bitmap: smaller than the default strategy at
        # any level, and about ten times faster than level 6.
        packer = zlib.compressobj(6, zlib.DEFLATED, 15, 9, zlib.Z_RLE)
        packed = packer.compress(self._bitmap) + packer.flush()
        return base64.b64encode(packed).decode("ascii")

    @classmethod
    def from_text(cls, text: str) -> TermDigest:
        """The digest stored as ``text`` by :meth:`to_text`. Bytes after the compressed
        bitmap are not the digest's (a day keeps its segment map there) and are not read.

        Raises:
            InvalidArgument: ``text`` is not a digest of an allowed size.
        """
        try:
            packed = base64.b64decode(text.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError, ValueError) as error:
            raise InvalidArgument(f"not a term digest: {text[:40]!r} ({error})") from None
        return cls.from_packed(packed, text)[0]

    @classmethod
    def from_packed(cls, packed: bytes, text: str = "") -> tuple[TermDigest, bytes]:
        """The digest whose stored text decodes from base64 to ``packed`` (``text``, for the
        error message), and the bytes after its compressed bitmap.

        Raises:
            InvalidArgument: ``packed`` is not a digest of an allowed size.
        """
        shown = repr(text[:40]) if text else f"{len(packed)} bytes"
        try:
            unpacker = zlib.decompressobj()
            raw = unpacker.decompress(packed)
        except zlib.error as error:
            raise InvalidArgument(f"not a term digest: {shown} ({error})") from None
        if not unpacker.eof:
            raise InvalidArgument(f"not a term digest: {shown} (the bitmap is cut short)")
        if not _valid_size(len(raw)):
            raise InvalidArgument(
                f"not a term digest: {shown} decodes to {len(raw)} bytes, not a power "
                f"of two from {_SMALLEST_BYTES} to {_BYTES}"
            )
        return cls(raw), unpacker.unused_data

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TermDigest) and other._bitmap == self._bitmap

    def __reduce__(self) -> tuple[type[TermDigest], tuple[bytes]]:
        # The bitmap alone: an integer a union kept is not worth its bytes in a pickle.
        return TermDigest, (self._bitmap,)

    def __hash__(self) -> int:
        return hash(self._bitmap)

    def __repr__(self) -> str:
        return f"TermDigest(fill_ratio={self.fill_ratio:.4f})"
