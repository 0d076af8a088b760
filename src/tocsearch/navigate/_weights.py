"""Term matching and weighting for the navigator's own ranking.

Every step of a walk compares a handful of candidates (the children of a node, the events of a
few segments). A term that most candidates hold cannot tell them apart, so terms weigh by how
rare they are *among the candidates being compared*: an inverse document frequency computed on
the fly, with no index. "Postgres" in one segment out of twenty outweighs "path" in twelve.

Terms match at the start of a word and may carry up to three more letters ("token" finds
"tokens", "debugg" finds "debugging"), so "car" does not find "Caroline" and "art" does not
find "start". Terms that are not plain words (numbers, "node.js", "adr-0021") match whole.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Iterable, Mapping, Sequence

from tocsearch.text import clip as clip_text

__all__ = ["SHOWN_CHARACTERS", "TermMatcher", "TermWeights", "clip"]

SHOWN_CHARACTERS = 160
"""How much of a matching text a step shows (and is charged for); evidence is returned whole."""

# How many letters a text word may add after a term's stem: "ing", "ies", "ed", "s" and the
# like, but not a different word that merely starts the same way.
_SUFFIX_LETTERS = 3
_NOTHING: frozenset[str] = frozenset()


class TermMatcher:
    """Finds which of a fixed set of terms a text holds, and how often.

    Runtime complexity: a substring search per term over the text, O(t * c) for t terms and
    c characters, and a match attempt where a term starts.
    """

    def __init__(self, terms: Sequence[str]) -> None:
        self.terms = tuple(dict.fromkeys(terms))
        # Longer terms first, so "tokenizer" is tried before "token" at the same position.
        order = sorted(range(len(self.terms)), key=lambda index: -len(self.terms[index]))
        self._group_term: dict[int, str] = {}
        pieces: list[str] = []
        for group, index in enumerate(order, start=1):
            term = self.terms[index]
            tail = rf"\w{{0,{_SUFFIX_LETTERS}}}" if term.isalpha() else ""
            pieces.append(f"({re.escape(term)}){tail}")
            self._group_term[group] = term
        self._pattern = (
            re.compile(r"(?<!\w)(?:" + "|".join(pieces) + r")(?!\w)") if pieces else None
        )

    def counts(self, text: str) -> dict[str, int]:
        """How often each term occurs in ``text`` (case-insensitively); absent terms are left
        out."""
        return self.counts_folded(text.casefold())

    def counts_folded(self, folded: str) -> dict[str, int]:
        """:meth:`counts` of a text that is already case-folded. A text none of whose terms
        occurs even as a substring holds none, and is answered without the regular
        expression: most texts a question reads hold none, and the expression tries every
        position of a text (it looks behind each), where a substring search skips."""
        for term in self.terms:
            if term in folded:
                return self._counted(folded)
        return {}

    def _counted(self, folded: str) -> dict[str, int]:
        """How often each term occurs in ``folded``, by the regular expression.

        Every match begins with a term, so the expression is tried only where a substring
        search found one, left to right, past the end of the last match: the matches
        ``finditer`` would find, without stepping the expression through every character
        (a text that holds a term often holds it only inside longer words).

        Runtime complexity: O(t * c) substring search for t terms over c characters, plus
        one match attempt per place a term starts."""
        found: dict[str, int] = {}
        pattern = self._pattern
        if pattern is None:
            return found
        starts: list[int] = []
        for term in self.terms:
            at = folded.find(term)
            while at != -1:
                starts.append(at)
                at = folded.find(term, at + 1)
        if not starts:
            return found
        starts.sort()
        match = pattern.match
        group_term = self._group_term
        end = 0
        for at in starts:
            if at < end:
                continue
            matched = match(folded, at)
            if matched is None:
                continue
            end = matched.end()
            group = matched.lastindex
            if group is not None:
                term = group_term[group]
                found[term] = found.get(term, 0) + 1
        return found

    def present(self, text: str) -> frozenset[str]:
        """The terms that occur in ``text``."""
        return frozenset(self.counts_folded(text.casefold()))

    def present_folded(self, folded: str) -> frozenset[str]:
        """The terms that occur in an already case-folded text. A text none of whose terms
        occurs even as a substring is rejected without the regular expression, which is the
        common case for a node in a scan.

        Runtime complexity: O(t * c) substring tests for t terms, then one pass when any is in.
        """
        if not any(term in folded for term in self.terms):
            return _NOTHING
        return frozenset(self._counted(folded))

    def present_in_each(self, folded: Sequence[str]) -> list[frozenset[str]]:
        """:meth:`present_folded` of each of many case-folded texts, none of which may hold a
        line break's worth of a term (a term never holds whitespace).

        The texts are searched together: each term is looked for as a substring once across
        all of them, skipping to the next text at each find, and only the texts where some term
        turned up go through the regular expression.

        Runtime complexity: O(c) substring search per term over c characters in all, plus one
        pass over each text that holds a term.
        """
        found = [_NOTHING] * len(folded)
        if self._pattern is None or not folded:
            return found
        joined = "\n".join(folded)
        # starts[i] is where text i begins in ``joined``; the last entry is past the end.
        starts = [0, *itertools.accumulate(len(text) + 1 for text in folded)]
        candidates: set[int] = set()
        for term in self.terms:
            position = joined.find(term)
            while position != -1:
                index = bisect.bisect_right(starts, position) - 1
                candidates.add(index)
                position = joined.find(term, starts[index + 1])
        for index in candidates:
            held = frozenset(self._counted(folded[index]))
            if held:
                found[index] = held
        return found


class TermWeights:
    """Inverse document frequencies of terms over one set of candidates.

    ``idf(t) = ln(1 + (n + 1) / (df(t) + 0.5))`` for n candidates of which df(t) hold t: always
    positive, so a term every candidate holds still counts a little, and highest for a term
    only one candidate holds. A term no candidate holds gets the highest weight of all; it
    lowers every candidate's share alike and so never changes an order.
    """

    def __init__(self, terms: Sequence[str], holders: Iterable[Iterable[str]]) -> None:
        self.terms = tuple(dict.fromkeys(terms))
        frequency = dict.fromkeys(self.terms, 0)
        total = 0
        for held in holders:
            total += 1
            if held:  # most candidates of a scan hold nothing
                for term in set(held):
                    if term in frequency:
                        frequency[term] += 1
        self.candidates = total
        self.frequency: Mapping[str, int] = frequency
        self.weight: Mapping[str, float] = {
            term: math.log(1.0 + (total + 1) / (count + 0.5)) for term, count in frequency.items()
        }
        self.total = sum(self.weight.values())

    def share(self, present: Iterable[str]) -> float:
        """The weighted share of the terms in ``present``, in [0, 1]."""
        if self.total <= 0.0:
            return 0.0
        held = set(present)
        return sum(weight for term, weight in self.weight.items() if term in held) / self.total


def clip(text: str, limit: int = SHOWN_CHARACTERS) -> str:
    """:func:`tocsearch.text.clip` at the width a step shows."""
    return clip_text(text, limit)
