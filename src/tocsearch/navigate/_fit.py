"""Fitting a navigation result to its token budget: the budget bounds what the caller gets.

The result is measured as it is rendered, by the navigator's estimator: its JSON (what
:meth:`~tocsearch.navigate.NavigationResult.to_dict` gives, serialised as the agent tools and
the CLI serialise it) and its Markdown (:meth:`~tocsearch.navigate.NavigationResult.to_markdown`
with the path). Neither may exceed the budget. Within it:

1. the frame: the query, its time hints and terms, how the walk ended, the counters;
2. the path, one step per phase within a tenth of the budget (or the full path when the
   caller asked for it);
3. the evidence, best first: every candidate that fits, an event too long for what is left
   clipped to fit (and marked so) rather than dropped; when not all fit, the items after the
   best one without what can be worked out again (matched terms, a segment title the item
   before gave), if that returns more of them;
4. with room left, the full path in place of the one-step-per-phase summary.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from tocsearch.errors import InvalidArgument
from tocsearch.navigate.result import (
    Evidence,
    EvidenceKind,
    NavigationResult,
    NavigationStep,
    StepPhase,
    evidence_dict,
)
from tocsearch.text import ELLIPSIS, TokenEstimator, clip

__all__ = ["compact_path", "fit", "frame_cost", "rendered_cost"]

# The shortest clipped event worth returning, in characters of its text; and the shortest
# when nothing else would be returned at all.
_SHORTEST_CLIP = 120
_SHORTEST_LEAN_CLIP = 40
# Characters of a scope or reason kept in the one-step-per-phase path, and in its terse form
# (which drops the reasons) for small budgets.
_COMPACT_TEXT = 80
_TERSE_TEXT = 40
# The share of the budget the path may take before the evidence is chosen (the full path on
# request may take it all); what the evidence leaves may widen the path afterwards.
_PATH_SHARE = 0.1


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


def rendered_cost(result: NavigationResult, estimator: TokenEstimator) -> int:
    """The tokens of the larger rendering of ``result``: its JSON or its Markdown."""
    return max(
        estimator(_json(result.to_dict())),
        estimator(result.to_markdown()),
    )


def frame_cost(result: NavigationResult, estimator: TokenEstimator) -> int:
    """The tokens ``result`` takes without steps or evidence."""
    return rendered_cost(attrs.evolve(result, steps=(), evidence=()), estimator)


def _prefix(text: str, limit: int) -> str:
    """The start of an event's raw text, at most ``limit`` characters with the ellipsis that
    marks the cut (unlike :func:`~tocsearch.text.clip`, white space is kept as it was)."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(ELLIPSIS))] + ELLIPSIS


def compact_path(
    steps: Sequence[NavigationStep], *, text: int = _COMPACT_TEXT
) -> tuple[NavigationStep, ...]:
    """One step per phase, in the order the phases began: the first scope, the totals of what
    was searched and matched, and the last reason, each clipped to ``text`` characters (no
    reason at all when ``text`` is below :data:`_TERSE_TEXT`); no per-node matches."""
    groups: dict[StepPhase, list[NavigationStep]] = {}
    for step in steps:
        # A drill and a backtrack are one phase of the descent.
        key: StepPhase = StepPhase.DRILL if step.phase is StepPhase.BACKTRACK else step.phase
        groups.setdefault(key, []).append(step)
    compact: list[NavigationStep] = []
    for number, (phase, members) in enumerate(groups.items(), start=1):
        first, last = members[0], members[-1]
        scope = clip(first.scope, text)
        if len(members) > 1:
            scope += f" (+{len(members) - 1})"
        compact.append(
            NavigationStep(
                number=number,
                phase=phase,
                level=last.level,
                scope=scope,
                parent_ids=(),
                searched=sum(step.searched for step in members),
                matched=sum(step.matched for step in members),
                matches=(),
                chosen=None,
                reason=clip(last.reason, text) if text >= _TERSE_TEXT else "",
            )
        )
    return tuple(compact)


def _item_cost(item: Evidence, estimator: TokenEstimator) -> int:
    # The item's JSON and the separator before it; the JSON is the larger rendering of an
    # item (it holds the full text), and the final check measures the whole anyway.
    return estimator(_json(evidence_dict(item)) + ", ")


def _fill(
    offered: Sequence[Evidence], room: int, estimator: TokenEstimator
) -> tuple[list[Evidence], int]:
    """The items of ``offered`` that fit in ``room``, best first (an event too long for
    what is left clipped), and what they cost."""
    chosen: list[Evidence] = []
    used = 0
    for item in offered:
        left = room - used
        cost = _item_cost(item, estimator)
        if cost <= left:
            chosen.append(item)
            used += cost
            continue
        clipped = _clipped(item, left, estimator)
        if clipped is not None:
            chosen.append(clipped)
            used += _item_cost(clipped, estimator)
    return chosen, used


def _slimmed(offered: Sequence[Evidence]) -> list[Evidence]:
    """``offered`` without what can be worked out again, but for the best item, which stays
    whole: the matched terms (the query's terms in its text), and a segment title the item
    before already gave."""
    slim: list[Evidence] = list(offered[:1])
    previous = offered[0].segment_id if offered else ""
    for item in offered[1:]:
        title = "" if item.segment_id == previous else item.segment_title
        slim.append(attrs.evolve(item, segment_title=title, matched_terms=()))
        previous = item.segment_id
    return slim


def _lean(item: Evidence) -> Evidence:
    """``item`` without what can be looked up again from its ids: its segment's title, its
    grips and its matched terms."""
    return attrs.evolve(item, segment_title="", grip_ids=(), matched_terms=())


def _clipped(
    item: Evidence, room: int, estimator: TokenEstimator, shortest: int = _SHORTEST_CLIP
) -> Evidence | None:
    """``item`` with its text clipped so that it costs at most ``room``, or None when fewer
    than ``shortest`` characters of it would be left."""
    if item.kind is not EvidenceKind.EVENT and shortest >= _SHORTEST_CLIP:
        return None
    shortest_text = _prefix(item.text, min(shortest, len(item.text)))
    if _item_cost(attrs.evolve(item, text=shortest_text, clipped=True), estimator) > room:
        return None  # not even the shortest clip fits: no search
    low, high = 0, len(item.text)
    # The largest prefix that fits: the estimator need not be linear, so search for it.
    while low < high:
        middle = (low + high + 1) // 2
        trial = attrs.evolve(item, text=_prefix(item.text, middle), clipped=True)
        if _item_cost(trial, estimator) <= room:
            low = middle
        else:
            high = middle - 1
    if low < min(shortest, len(item.text)):
        return None
    return attrs.evolve(item, text=_prefix(item.text, low), clipped=True)


def fit(
    result: NavigationResult,
    offered: Sequence[Evidence],
    *,
    budget: int,
    estimator: TokenEstimator,
    full_path: bool,
    note: Callable[[int, int], str],
) -> NavigationResult:
    """``result`` with the path and as much of ``offered`` as fit ``budget``.

    ``note(returned, offered)`` gives the words added to the reason when candidates did not
    fit. ``result.steps`` is the full path; ``result.evidence`` is ignored.

    Raises:
        InvalidArgument: not even the frame of the result fits the budget.
    """
    # The reason in brief: only the limit that stopped the walk, if one did; the note that
    # says how many items fit follows it.
    halts = [part for part in result.reason.split("; ") if part.startswith("stopped after")]
    brief = attrs.evolve(result, reason="; ".join(halts), tokens_used=budget)
    if frame_cost(attrs.evolve(result, tokens_used=budget), estimator) > budget:
        base = frame_cost(brief, estimator)
        if base > budget:
            raise InvalidArgument(
                f"token_budget={budget} is too small for this query: its question, time "
                f"hints and terms alone take {base} tokens"
            )
    shaped = _shape(result, offered, budget, estimator, full_path, note)
    if offered and not shaped.evidence:
        # Not even one lean item fits beside the whole reason: the reason in brief, and the
        # best item lean and clipped.
        lean = _shape(
            attrs.evolve(brief, tokens_used=result.tokens_used),
            offered,
            budget,
            estimator,
            full_path,
            _brief_note,
        )
        if lean.evidence:
            shaped = lean
    return _settle(shaped, budget, estimator)


def _shape(
    result: NavigationResult,
    offered: Sequence[Evidence],
    budget: int,
    estimator: TokenEstimator,
    full_path: bool,
    note: Callable[[int, int], str],
) -> NavigationResult:
    full = result.steps
    frame = attrs.evolve(result, steps=(), evidence=(), tokens_used=budget)
    base = frame_cost(frame, estimator)
    # A reason that grows by a note keeps room for it.
    reserve = estimator("; " + note(len(offered), len(offered)))
    compact = compact_path(full)
    terse = compact_path(full, text=_TERSE_TEXT - 1)
    if full_path:
        # Every step first, but not at the cost of all the evidence: room for the best item
        # (up to half of what the frame leaves) is kept.
        first = _item_cost(offered[0], estimator) if offered else 0
        allowance = budget - base - reserve - min(first, (budget - base) // 2)
    else:
        allowance = int(budget * _PATH_SHARE)
    paths = [full, compact, terse] if full_path else [compact, terse]
    path: tuple[NavigationStep, ...] = ()
    used = base + reserve
    path_costs: dict[int, int] = {}
    for candidate in paths:
        cost = rendered_cost(attrs.evolve(frame, steps=candidate), estimator)
        path_costs[id(candidate)] = cost - base
        if cost - base <= allowance and cost + reserve <= budget:
            path, used = candidate, cost + reserve
            break
    chosen, used_by = _fill(offered, budget - used, estimator)
    if len(chosen) < len(offered):
        # Not everything fits as it is: items without what their ids lead back to (grips,
        # matched terms, a title said by the item before) make room for more of them.
        slim, slim_used = _fill(_slimmed(offered), budget - used, estimator)
        if len(slim) > len(chosen):
            chosen, used_by = slim, slim_used
    used += used_by
    if offered and not chosen:
        # Not one item fits as it is: the best one, lean and clipped, rather than nothing.
        lean = _clipped(_lean(offered[0]), budget - used, estimator, _SHORTEST_LEAN_CLIP)
        if lean is None and path:
            path, used = (), base + reserve
            lean = _clipped(_lean(offered[0]), budget - used, estimator, _SHORTEST_LEAN_CLIP)
        if lean is not None:
            chosen.append(lean)
    reason = result.reason
    if len(chosen) < len(offered):
        told = note(len(chosen), len(offered))
        reason = f"{reason}; {told}" if reason else told
    partial = result.partial or len(chosen) < len(offered)
    shaped = attrs.evolve(frame, steps=path, evidence=tuple(chosen), reason=reason, partial=partial)
    # What the evidence left may show more of the path (each path's cost was measured on
    # the frame; the final check in _settle measures the whole).
    wider = [full, compact, terse] if not full_path else []
    for candidate in wider:
        if candidate == path:
            break
        extra = path_costs.setdefault(
            id(candidate), rendered_cost(attrs.evolve(frame, steps=candidate), estimator) - base
        )
        if used - path_costs.get(id(path), 0) + extra <= budget:
            shaped = attrs.evolve(shaped, steps=candidate)
            break
    return shaped


def _brief_note(returned: int, offered: int) -> str:
    return f"{returned} of {offered} items fit the budget"


def _settle(result: NavigationResult, budget: int, estimator: TokenEstimator) -> NavigationResult:
    """``result`` with ``tokens_used`` set to what it costs, trimmed until it fits: the
    estimates above may be off for an estimator that is not additive."""
    while True:
        # ``result`` carries the budget as its count, the widest number it can show.
        cost = rendered_cost(result, estimator)
        if cost <= budget:
            return attrs.evolve(result, tokens_used=cost)
        if result.evidence:
            result = attrs.evolve(result, evidence=result.evidence[:-1], partial=True)
        elif result.steps:
            result = attrs.evolve(result, steps=())
        else:
            # Only the reason's note can have grown past the frame checked first.
            result = attrs.evolve(result, reason=result.reason[: len(result.reason) // 2])
