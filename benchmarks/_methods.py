"""The retrieval methods of the LoCoMo evaluation, by name.

A method (:class:`benchmarks._locomo_eval.Method`) is a name, a factory that prepares a
retriever for one conversation, and whether its output depends on the token budget it is scored
at:

- a **budgeted** method (the navigators) is given the budget of each column it is scored in, and
  runs once per column: its recall at 1,000 tokens comes from a run with ``token_budget=1000``;
- an **unbudgeted** method (BM25, flat scan) ranks without a budget, runs once, and each column
  keeps what fits of the same ranking. Its factory is given the largest budget.

To add a method, write a retriever and register it::

    register(Method("fts-events", budgeted=False, make=lambda conversation, budget: ...,
                    description="..."))

``eval_locomo.py --methods a,b`` picks methods by name; every registered method runs by default.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from benchmarks._baselines import FlatSegmentScan, TurnBm25
from benchmarks._indexed import (
    FusedTurnsRetriever,
    IndexSearchRetriever,
    TeleportedNavigator,
    onnx_embedder,
    shared_index,
)
from benchmarks._locomo_eval import Conversation, Method, Retriever
from benchmarks._navigation import NavigatorRetriever
from tocsearch.errors import InvalidArgument
from tocsearch.index import SearchMode

__all__ = ["CUT_FACTOR", "METHODS", "register", "select"]

CUT_FACTOR = 4
"""The ``navigator-4x-cut`` column runs the navigator at this many times the largest budget
and cuts its output to each column: how the evaluation was run before budgets were honest, kept
as a named extra column so the two can be compared."""


METHODS: dict[str, Method] = {}
"""Every registered method, in registration order (the order of the report)."""


def register(method: Method) -> Method:
    """Add ``method`` to :data:`METHODS` and return it.

    Raises:
        InvalidArgument: a method of that name is already registered.
    """
    if method.name in METHODS:
        raise InvalidArgument(f"a method named {method.name!r} is already registered")
    METHODS[method.name] = method
    return method


def select(names: Iterable[str] | None = None) -> list[Method]:
    """The registered methods named, in the order given (all of them when ``names`` is None).

    Raises:
        InvalidArgument: a name is not registered, or no name is given.
    """
    if names is None:
        return list(METHODS.values())
    chosen = [name.strip() for name in names if name.strip()]
    if not chosen:
        raise InvalidArgument("choose at least one method")
    unknown = [name for name in chosen if name not in METHODS]
    if unknown:
        raise InvalidArgument(
            f"unknown methods {', '.join(unknown)}; registered: {', '.join(METHODS)}"
        )
    return [METHODS[name] for name in dict.fromkeys(chosen)]


def _navigator(conversation: Conversation, budget: int) -> Retriever:
    return NavigatorRetriever(conversation.storage, now=conversation.now, token_budget=budget)


def _navigator_cut(conversation: Conversation, budget: int) -> Retriever:
    return NavigatorRetriever(
        conversation.storage, now=conversation.now, token_budget=CUT_FACTOR * budget
    )


register(
    Method(
        "navigator",
        make=_navigator,
        budgeted=True,
        description="Navigator with token_budget = the column's budget",
    )
)
register(
    Method(
        "bm25-turns",
        make=lambda conversation, _: TurnBm25(conversation.events),
        budgeted=False,
        description="SQLite FTS5 (porter unicode61) over single turns, terms OR-ed, bm25()",
    )
)
register(
    Method(
        "flat-scan",
        make=lambda conversation, _: FlatSegmentScan(conversation.storage),
        budgeted=False,
        description="every segment ranked by term overlap; a hit returns all its events",
    )
)
register(
    Method(
        f"navigator-{CUT_FACTOR}x-cut",
        make=_navigator_cut,
        budgeted=False,
        description=(
            f"Navigator with token_budget = {CUT_FACTOR} x the largest budget, output cut to "
            "each column (the old, generous mode)"
        ),
    )
)


def _search(mode: SearchMode, *, vectors: bool) -> Callable[[Conversation, int], Retriever]:
    def make(conversation: Conversation, _: int) -> Retriever:
        index = shared_index(conversation, onnx_embedder() if vectors else None)
        return IndexSearchRetriever(index, mode, name=f"index-{mode.value}")

    return make


def _teleported(*, vectors: bool) -> Callable[[Conversation, int], Retriever]:
    name = "navigator-teleport-" + ("hybrid" if vectors else "fts")

    def make(conversation: Conversation, budget: int) -> Retriever:
        index = shared_index(conversation, onnx_embedder() if vectors else None)
        return TeleportedNavigator(index, now=conversation.now, token_budget=budget, name=name)

    return make


_MODEL = "all-MiniLM-L6-v2 int8 ONNX (tocsearch[onnx])"

register(
    Method(
        "index-fts",
        make=_search(SearchMode.FTS, vectors=False),
        budgeted=False,
        description="SearchIndex.search mode=fts: FTS5 over events and segments, RRF-fused",
    )
)
register(
    Method(
        "index-vec",
        make=_search(SearchMode.VEC, vectors=True),
        budgeted=False,
        description=f"SearchIndex.search mode=vec: cosine KNN over events, {_MODEL}",
    )
)
register(
    Method(
        "index-hybrid",
        make=_search(SearchMode.HYBRID, vectors=True),
        budgeted=False,
        description=f"SearchIndex.search mode=hybrid: FTS5 + vectors by RRF, {_MODEL}",
    )
)
register(
    Method(
        "index-hybrid-turns",
        make=lambda conversation, _: FusedTurnsRetriever(
            shared_index(conversation, onnx_embedder()), name="index-hybrid-turns"
        ),
        budgeted=False,
        description=f"FTS5 and vector event rankings fused by RRF, one turn per item, {_MODEL}",
    )
)
register(
    Method(
        "navigator-teleport-fts",
        make=_teleported(vectors=False),
        budgeted=True,
        description="Navigator at the column's budget, seeded by the FTS5 index",
    )
)
register(
    Method(
        "navigator-teleport-hybrid",
        make=_teleported(vectors=True),
        budgeted=True,
        description=f"Navigator at the column's budget, seeded by FTS5 + vectors, {_MODEL}",
    )
)
