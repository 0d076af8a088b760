"""Index-free search: term overlap scoring, search inside one node, ranking across nodes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta, timezone
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import sentences, suffixes, toc_nodes, words
from tocsearch import ids
from tocsearch.errors import InvalidArgument, NodeNotFound
from tocsearch.levels import TocLevel
from tocsearch.models import TocBullet, TocNode
from tocsearch.search import (
    SearchField,
    SearchMatch,
    rank_nodes,
    search_children,
    search_node,
    term_overlap_score,
)
from tocsearch.storage import InMemoryStorage
from tocsearch.text import query_terms

FIELD_ORDER = {field: position for position, field in enumerate(SearchField)}
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)

queries = st.lists(words, min_size=1, max_size=5).map(" ".join)
field_sets = st.sets(st.sampled_from(SearchField))
short_words = st.text(alphabet="abcxyzJWT", min_size=1, max_size=2)


def make_test_node(
    title: str,
    bullets: Sequence[tuple[str, Sequence[str]]] = (),
    keywords: Sequence[str] = (),
    *,
    summary: str | None = None,
) -> TocNode:
    """A segment node shaped like the reference tests' ``make_test_node``."""
    return TocNode(
        node_id="toc:segment:2026-01-01:test",
        level=TocLevel.SEGMENT,
        title=title,
        start_time=T0,
        end_time=T0 + timedelta(hours=23, minutes=59, seconds=59),
        bullets=[TocBullet(text, tuple(grips)) for text, grips in bullets],
        keywords=tuple(keywords),
        summary=summary,
    )


# -- term_overlap_score: the reference unit tests -------------------------------------------


def test_term_overlap_single_match() -> None:
    """One term that occurs scores 1.0."""
    assert term_overlap_score("JWT authentication system", ["jwt"]) == 1.0
    assert term_overlap_score("JWT authentication", ["jwt"]) == 1.0


def test_term_overlap_partial_match() -> None:
    """One of two terms occurring scores 0.5."""
    assert term_overlap_score("JWT authentication", ["jwt", "debugging"]) == 0.5


def test_term_overlap_no_match() -> None:
    """No occurring term gives None, not 0.0."""
    assert term_overlap_score("JWT authentication", ["vector", "embedding"]) is None


def test_term_overlap_empty_terms() -> None:
    """An empty term list gives None instead of dividing by zero."""
    assert term_overlap_score("JWT authentication", []) is None


def test_term_overlap_matches_substrings() -> None:
    """Terms match as substrings: "auth" occurs in "authentication"."""
    assert term_overlap_score("JWT authentication", ["auth"]) == 1.0


@given(text=sentences, terms=st.lists(words.map(str.casefold), max_size=6))
def test_term_overlap_is_matched_over_total(text: str, terms: list[str]) -> None:
    """The score is the number of terms found in the folded text over the number of terms."""
    matched = sum(1 for term in terms if term in text.casefold())
    expected = matched / len(terms) if matched else None
    assert term_overlap_score(text, terms) == expected


# -- search_node: the reference unit tests --------------------------------------------------


def test_search_node_title_match() -> None:
    """A title holding both terms gives one title match scoring 1.0."""
    node = make_test_node("JWT Token Debugging Session")
    matches = search_node(node, "jwt debugging", fields=[SearchField.TITLE])
    assert len(matches) == 1
    assert matches[0].field is SearchField.TITLE
    assert matches[0].text == "JWT Token Debugging Session"
    assert matches[0].score == 1.0


def test_search_node_bullet_with_grips() -> None:
    """A bullet match carries that bullet's grip ids, for provenance."""
    node = make_test_node("Session", [("Fixed JWT expiration bug", ["grip:123"])])
    matches = search_node(node, "jwt bug", fields=[SearchField.BULLETS])
    assert len(matches) == 1
    assert matches[0].field is SearchField.BULLETS
    assert matches[0].grip_ids == ("grip:123",)


def test_search_node_keyword_match() -> None:
    """A keyword containing a term matches once, scoring 1.0."""
    node = make_test_node("Session", keywords=["authentication", "JWT"])
    matches = search_node(node, "jwt", fields=[SearchField.KEYWORDS])
    assert len(matches) == 1
    assert matches[0].field is SearchField.KEYWORDS
    assert matches[0].text == "JWT"
    assert matches[0].score == 1.0


def test_search_node_short_terms_filtered() -> None:
    """ "to" is dropped, so "to jwt" is searched as "jwt" alone and fully matches the title."""
    node = make_test_node("The JWT Token")
    matches = search_node(node, "to jwt", fields=[SearchField.TITLE])
    assert matches == [SearchMatch(SearchField.TITLE, "The JWT Token", (), 1.0)]


def test_search_node_three_letter_terms_kept() -> None:
    """ "the" has three characters, so it is a term; "the jwt" matches the title fully."""
    node = make_test_node("The JWT Token")
    matches = search_node(node, "the jwt", fields=[SearchField.TITLE])
    assert matches == [SearchMatch(SearchField.TITLE, "The JWT Token", (), 1.0)]


def test_search_node_all_fields() -> None:
    """Empty fields searches everything: title, summary, bullets and keywords all match."""
    node = make_test_node(
        "JWT Session", [("Implemented authentication", ["grip:1"])], keywords=["token"]
    )
    matches = search_node(node, "jwt token authentication", fields=[])
    assert {match.field for match in matches} == set(SearchField)
    by_field = {match.field: match for match in matches}
    assert by_field[SearchField.TITLE].score == pytest.approx(1 / 3)
    # No summary: the summary field is the bullets joined.
    assert by_field[SearchField.SUMMARY].text == "Implemented authentication"
    assert by_field[SearchField.BULLETS].grip_ids == ("grip:1",)
    assert by_field[SearchField.KEYWORDS].score == 1.0


def test_search_node_sorted_by_score() -> None:
    """The bullet holding both terms comes before the bullet holding one."""
    node = make_test_node(
        "Session",
        [
            ("JWT debugging today", ["grip:1"]),
            ("JWT authentication and token refresh", ["grip:2"]),
        ],
    )
    matches = search_node(node, "jwt authentication", fields=[SearchField.BULLETS])
    assert [(match.score, match.grip_ids) for match in matches] == [
        (1.0, ("grip:2",)),
        (0.5, ("grip:1",)),
    ]


# -- search_node: further examples -----------------------------------------------------------


def test_search_node_uses_summary_when_present() -> None:
    """A stored summary is the summary field; the bullets are not joined in its place."""
    node = make_test_node("Session", [("JWT refresh", [])], summary="Postgres migration")
    assert search_node(node, "jwt", fields=[SearchField.SUMMARY]) == []
    matches = search_node(node, "postgres", fields=[SearchField.SUMMARY])
    assert matches == [SearchMatch(SearchField.SUMMARY, "Postgres migration", (), 1.0)]


def test_search_node_ties_keep_field_order() -> None:
    """Equal scores come out title, summary, bullets, keywords."""
    node = make_test_node("jwt", [("jwt", ["grip:1"])], keywords=["jwt"], summary="jwt")
    matches = search_node(node, "JWT", fields=[])
    assert [match.field for match in matches] == list(SearchField)


def test_search_node_each_bullet_matches_on_its_own() -> None:
    """Every matching bullet gives its own match, in bullet order when scores tie."""
    node = make_test_node("Session", [("jwt one", ["grip:1"]), ("no", []), ("JWT two", ["grip:2"])])
    matches = search_node(node, "jwt", fields=[SearchField.BULLETS])
    assert [match.text for match in matches] == ["jwt one", "JWT two"]


@pytest.mark.parametrize(
    ("query", "text"),
    [
        ("STRASSE", "Straße"),
        ("straße", "STRASSE"),
        ("ÉCOLE", "école d'été"),
        ("école", "ÉCOLE"),
        ("NAÏVE", "naïve approach"),
    ],
)
def test_search_node_folds_unicode_case(query: str, text: str) -> None:
    """Matching uses Unicode case folding, so "STRASSE" finds "Straße" and back."""
    node = make_test_node(text)
    matches = search_node(node, query, fields=[SearchField.TITLE])
    assert matches == [SearchMatch(SearchField.TITLE, text, (), 1.0)]


def test_search_node_repeated_terms_count_once() -> None:
    """ "jwt jwt" is the single term "jwt": a title with jwt scores 1.0, not 0.5 or 2.0."""
    node = make_test_node("JWT only")
    assert search_node(node, "jwt jwt JWT", fields=[]) == search_node(node, "jwt", fields=[])
    assert search_node(node, "jwt jwt", fields=[SearchField.TITLE])[0].score == 1.0


@pytest.mark.parametrize("query", ["", "   ", "a b", "to be or", "\t\n"])
def test_search_node_without_usable_terms_matches_nothing(query: str) -> None:
    """A query with no term of three or more characters matches nothing, even a bare node."""
    node = make_test_node("to be or not", [("a b", [])], keywords=["to"], summary="or")
    assert search_node(node, query) == []


def test_search_node_on_empty_node() -> None:
    """A node with an empty title, no summary, no bullets and no keywords matches nothing."""
    node = make_test_node("")
    assert search_node(node, "jwt token") == []
    assert rank_nodes([node], "jwt token").results == ()


def test_search_node_accepts_any_iterable_of_fields() -> None:
    """Fields may be a generator or hold duplicates; each field is searched once."""
    node = make_test_node("JWT", keywords=["jwt"])
    twice = search_node(node, "jwt", fields=[SearchField.TITLE, SearchField.TITLE])
    generated = search_node(node, "jwt", fields=(field for field in [SearchField.TITLE]))
    assert twice == generated == [SearchMatch(SearchField.TITLE, "JWT", (), 1.0)]


def test_search_field_parse() -> None:
    """Field names parse case-insensitively; an unknown name is refused by name."""
    assert SearchField.parse(" Bullets ") is SearchField.BULLETS
    with pytest.raises(InvalidArgument, match="'grips'"):
        SearchField.parse("grips")


# -- search_node: properties -----------------------------------------------------------------


@given(node=toc_nodes(), query=queries, fields=field_sets)
def test_scores_are_in_unit_interval(node: TocNode, query: str, fields: set[SearchField]) -> None:
    """Every match scores more than 0 and at most 1."""
    for match in search_node(node, query, fields=fields):
        assert 0.0 < match.score <= 1.0


@given(node=toc_nodes(), query=queries)
def test_matches_sorted_by_score_then_field_order(node: TocNode, query: str) -> None:
    """Scores never rise down the list; equal scores keep the field order."""
    matches = search_node(node, query)
    for first, second in pairwise(matches):
        assert first.score >= second.score
        if first.score == second.score:
            assert FIELD_ORDER[first.field] <= FIELD_ORDER[second.field]


@given(node=toc_nodes(), query=queries)
def test_keyword_matches_score_one(node: TocNode, query: str) -> None:
    """Each keyword that contains a term matches once, with score exactly 1.0."""
    terms = query_terms(query)
    matches = search_node(node, query, fields=[SearchField.KEYWORDS])
    assert all(match.score == 1.0 for match in matches)
    expected = [kw for kw in node.keywords if any(term in kw.casefold() for term in terms)]
    assert [match.text for match in matches] == expected


@given(node=toc_nodes(), query=queries)
def test_bullet_matches_carry_their_grips(node: TocNode, query: str) -> None:
    """Each matching bullet gives one match with its own text, grip ids and overlap score."""
    terms = query_terms(query)
    matches = search_node(node, query, fields=[SearchField.BULLETS])
    expected = []
    for bullet in node.bullets:
        score = term_overlap_score(bullet.text, terms)
        if score is not None:
            expected.append((bullet.text, bullet.grip_ids, score))
    got = [(match.text, match.grip_ids, match.score) for match in matches]
    assert sorted(got, key=repr) == sorted(expected, key=repr)


@given(node=toc_nodes(), query=queries)
def test_summary_field_is_summary_or_joined_bullets(node: TocNode, query: str) -> None:
    """The summary field searches node.summary, or the bullets joined when there is none."""
    text = node.summary or " ".join(bullet.text for bullet in node.bullets)
    score = term_overlap_score(text, query_terms(query))
    matches = search_node(node, query, fields=[SearchField.SUMMARY])
    if score is None:
        assert matches == []
    else:
        assert matches == [SearchMatch(SearchField.SUMMARY, text, (), score)]


@given(node=toc_nodes(), query=queries)
def test_title_score_is_term_overlap(node: TocNode, query: str) -> None:
    """The title field scores the share of terms the title contains."""
    score = term_overlap_score(node.title, query_terms(query))
    matches = search_node(node, query, fields=[SearchField.TITLE])
    assert [match.score for match in matches] == ([] if score is None else [score])


@given(node=toc_nodes(), query=queries)
def test_search_is_case_invariant(node: TocNode, query: str) -> None:
    """Upper-casing, lower-casing or case-folding the query changes no match."""
    expected = search_node(node, query)
    assert search_node(node, query.upper()) == expected
    assert search_node(node, query.lower()) == expected
    assert search_node(node, query.casefold()) == expected


@given(node=toc_nodes(), query=queries, fields=field_sets)
def test_field_filter_selects_from_all_fields(
    node: TocNode, query: str, fields: set[SearchField]
) -> None:
    """Searching some fields gives exactly the all-fields matches of those fields, in order."""
    everything = search_node(node, query)
    chosen = search_node(node, query, fields=fields)
    if fields:
        assert chosen == [match for match in everything if match.field in fields]
    else:
        assert chosen == everything


@given(node=toc_nodes(), query=queries)
def test_empty_fields_means_all_fields(node: TocNode, query: str) -> None:
    """No fields and every field give the same matches."""
    assert search_node(node, query, fields=()) == search_node(node, query, fields=SearchField)


@given(node=toc_nodes(), query=queries)
def test_repeated_terms_count_once(node: TocNode, query: str) -> None:
    """Repeating every term of a query, in any case, changes no match and no score."""
    doubled = f"{query} {query.upper()}"
    assert search_node(node, doubled) == search_node(node, query)


@given(node=toc_nodes(), query=queries, noise=st.lists(short_words, max_size=4))
def test_short_terms_are_dropped(node: TocNode, query: str, noise: list[str]) -> None:
    """Adding words of one or two characters to a query changes nothing."""
    assert search_node(node, " ".join([*noise, query, *noise])) == search_node(node, query)


@given(node=toc_nodes(), noise=st.lists(short_words, max_size=5))
def test_query_without_terms_matches_nothing(node: TocNode, noise: list[str]) -> None:
    """A query made only of short words matches nothing, in one node or across nodes."""
    query = " ".join(noise)
    assert search_node(node, query) == []
    assert rank_nodes([node], query) == rank_nodes([], "jwt")


# -- rank_nodes ------------------------------------------------------------------------------


@given(
    nodes=st.lists(toc_nodes(), max_size=8),
    query=queries,
    fields=field_sets,
    limit=st.integers(1, 6),
)
def test_rank_nodes_orders_by_mean_score(
    nodes: list[TocNode], query: str, fields: set[SearchField], limit: int
) -> None:
    """Relevance is the mean match score; results run best first, ties newest first (then in
    input order), at most ``limit`` of them, and has_more says whether more nodes matched."""
    matched = []
    for node in nodes:
        matches = search_node(node, query, fields=fields)
        if matches:
            relevance = sum(match.score for match in matches) / len(matches)
            matched.append((node, tuple(matches), relevance))
    # sorted() is stable: equal relevance and start keep the input order.
    expected = sorted(matched, key=lambda item: (-item[2], -item[0].start_time.timestamp()))
    expected = expected[:limit]

    outcome = rank_nodes(nodes, query, fields=fields, limit=limit)

    assert len(outcome.results) <= limit
    assert outcome.has_more == (len(matched) > limit)
    assert [
        (result.node_id, result.title, result.level, result.matches, result.relevance_score)
        for result in outcome.results
    ] == [(node.node_id, node.title, node.level, matches, rel) for node, matches, rel in expected]
    scores = [result.relevance_score for result in outcome.results]
    assert all(0.0 < score <= 1.0 for score in scores)
    for better, worse in pairwise(outcome.results):
        assert better.relevance_score > worse.relevance_score or (
            better.relevance_score == worse.relevance_score
            and better.start_time >= worse.start_time
        )
    for result in outcome.results:
        spans = {
            (node.start_time, node.end_time) for node in nodes if node.node_id == result.node_id
        }
        assert (result.start_time, result.end_time) in spans
        # Only the service knows a segment's conversation.
        assert (result.project, result.session_id) == ("", "")


def test_rank_nodes_ties_keep_input_order() -> None:
    """Nodes with equal relevance and start come out in the order they went in."""
    nodes = [
        TocNode(
            node_id=ids.segment_id(date(2026, 1, 1), suffix),
            level=TocLevel.SEGMENT,
            title="JWT work",
            start_time=T0,
            end_time=T0,
        )
        for suffix in ["c", "a", "b"]
    ]
    outcome = rank_nodes(nodes, "jwt")
    assert [result.node_id.rsplit(":", 1)[1] for result in outcome.results] == ["c", "a", "b"]


@given(minutes=st.lists(st.integers(0, 10_000), min_size=1, max_size=8, unique=True))
def test_rank_nodes_ties_newest_first(minutes: list[int]) -> None:
    """Equally relevant nodes come out newest first, each with its time span."""
    nodes = [
        _node(ids.segment_id(date(2026, 1, 30), f"s{i}"), "JWT work", minute=minute)
        for i, minute in enumerate(minutes)
    ]
    outcome = rank_nodes(nodes, "jwt", limit=len(nodes))
    starts = [result.start_time for result in outcome.results]
    assert starts == sorted((node.start_time for node in nodes), reverse=True)
    by_id = {node.node_id: node for node in nodes}
    assert all(
        (result.start_time, result.end_time)
        == (by_id[result.node_id].start_time, by_id[result.node_id].end_time)
        for result in outcome.results
    )


def test_rank_nodes_limit_and_has_more() -> None:
    """With three matching nodes, limit 2 returns two and has_more; limit 3 returns all."""
    nodes = [make_test_node(title) for title in ["jwt a", "jwt refresh", "nothing", "jwt b"]]
    two = rank_nodes(nodes, "jwt refresh", limit=2)
    assert [result.title for result in two.results] == ["jwt refresh", "jwt a"]
    assert two.has_more is True
    three = rank_nodes(nodes, "jwt refresh", limit=3)
    assert len(three.results) == 3
    assert three.has_more is False


@pytest.mark.parametrize("limit", [0, -1, -100])
def test_rank_nodes_rejects_limit_below_one(limit: int) -> None:
    """A limit below 1 is refused with InvalidArgument naming it."""
    with pytest.raises(InvalidArgument, match=str(limit)):
        rank_nodes([make_test_node("jwt")], "jwt", limit=limit)


# -- search_children ---------------------------------------------------------------------------


def _node(node_id: str, title: str, *, minute: int = 0, children: Sequence[str] = ()) -> TocNode:
    start = T0 + timedelta(minutes=minute)
    return TocNode(
        node_id=node_id,
        level=ids.level_of(node_id),
        title=title,
        start_time=start,
        end_time=start + timedelta(minutes=1),
        child_node_ids=tuple(children),
    )


@pytest.fixture
def storage() -> InMemoryStorage:
    """Two years, a month, and a day with three segments (one unrelated)."""
    store = InMemoryStorage()
    segments = [
        _node("toc:segment:2026-01-01:late", "JWT refresh fix", minute=30),
        _node("toc:segment:2026-01-01:early", "JWT refresh race", minute=10),
        _node("toc:segment:2026-01-01:other", "Postgres migration", minute=20),
    ]
    store.put_nodes(
        [
            *segments,
            _node(
                "toc:day:2026-01-01",
                "New year",
                children=[
                    *(segment.node_id for segment in segments),
                    "toc:segment:2026-01-01:gone",
                ],
            ),
            _node("toc:year:2026", "JWT year"),
            _node("toc:year:2025", "Postgres year", minute=-600_000),
            _node("toc:month:2026-01", "JWT month"),
        ]
    )
    return store


def test_search_children_ranks_children_of_parent(storage: InMemoryStorage) -> None:
    """Only the parent's stored children are searched; ties come newest first."""
    outcome = search_children(storage, "toc:day:2026-01-01", "jwt refresh")
    assert [result.node_id for result in outcome.results] == [
        "toc:segment:2026-01-01:late",
        "toc:segment:2026-01-01:early",
    ]
    assert outcome.has_more is False


def test_search_children_without_parent_searches_years(storage: InMemoryStorage) -> None:
    """An empty parent id searches every node of child_level, by default the years."""
    outcome = search_children(storage, "", "jwt postgres")
    assert {result.node_id for result in outcome.results} == {"toc:year:2026", "toc:year:2025"}
    assert all(result.level is TocLevel.YEAR for result in outcome.results)


def test_search_children_without_parent_at_other_level(storage: InMemoryStorage) -> None:
    """An empty parent id with child_level MONTH searches the stored months only."""
    outcome = search_children(storage, "", "jwt", child_level=TocLevel.MONTH)
    assert [result.node_id for result in outcome.results] == ["toc:month:2026-01"]


def test_search_children_unknown_parent(storage: InMemoryStorage) -> None:
    """A parent id that names no stored node raises NodeNotFound."""
    with pytest.raises(NodeNotFound, match="toc:day:2026-01-02"):
        search_children(storage, "toc:day:2026-01-02", "jwt")
    with pytest.raises(NodeNotFound, match="not-a-node"):
        search_children(storage, "not-a-node", "jwt")


def test_search_children_limit(storage: InMemoryStorage) -> None:
    """The limit caps the results and has_more reports the rest; limit 0 is refused."""
    outcome = search_children(storage, "toc:day:2026-01-01", "jwt", limit=1)
    assert len(outcome.results) == 1
    assert outcome.has_more is True
    with pytest.raises(InvalidArgument):
        search_children(storage, "toc:day:2026-01-01", "jwt", limit=0)


@given(
    titles=st.lists(sentences, min_size=1, max_size=6),
    minutes=st.lists(st.integers(0, 1_000), min_size=6, max_size=6),
    query=queries,
    limit=st.integers(1, 4),
)
def test_search_children_equals_ranking_children_in_time_order(
    titles: list[str], minutes: list[int], query: str, limit: int
) -> None:
    """search_children ranks exactly the parent's children, taken in start-time order."""
    day = date(2026, 1, 30)
    children = [
        _node(ids.segment_id(day, f"s{i}"), title, minute=minute)
        for i, (title, minute) in enumerate(zip(titles, minutes, strict=False))
    ]
    parent = _node(ids.day_id(day), "day", children=[child.node_id for child in children])
    store = InMemoryStorage()
    store.put_nodes([parent, *children])
    in_time_order = sorted(children, key=lambda node: (node.start_time, node.node_id))
    assert search_children(store, parent.node_id, query, limit=limit) == rank_nodes(
        in_time_order, query, limit=limit
    )


@given(node=toc_nodes(level=TocLevel.SEGMENT), suffix=suffixes)
def test_search_children_of_childless_parent(node: TocNode, suffix: str) -> None:
    """A stored parent with no children gives no results and no has_more."""
    store = InMemoryStorage()
    store.put_node(node)
    outcome = search_children(store, node.node_id, node.title + " " + suffix)
    assert outcome.results == ()
    assert outcome.has_more is False
