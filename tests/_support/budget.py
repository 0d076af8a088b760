"""What a navigation result costs as the caller receives it, for budget assertions."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tocsearch.navigate import NavigationResult
from tocsearch.navigate._evidence_json import flat_items, group_of_row
from tocsearch.text import TokenEstimator, estimate_tokens


def rendered_tokens(result: NavigationResult, estimator: TokenEstimator = estimate_tokens) -> int:
    """The tokens of the larger of the result's renderings: its JSON (as the agent tools send
    it) and its Markdown with the path."""
    return max(
        estimator(json.dumps(result.to_dict(), ensure_ascii=False)),
        estimator(result.to_markdown()),
        estimator(result.to_markdown(include_path=False)),
    )


def limit_named(reason: str) -> bool:
    """Whether ``reason`` names the limit that made a result partial."""
    return any(
        words in reason for words in ("max_iterations", "max_nodes", "max_events", "items fit")
    )


def evidence_items(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The evidence items of a result's JSON (``to_dict()``, the navigate tool's answer), in
    order, each with every key (``segment_id`` and what its group says included): a row
    ``[event_id, score, text]`` read as the item it stands for."""
    return flat_items(data.get("segments", []))


def group_dicts(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The segment groups of a result's JSON, each as an object (a group written as the row
    ``[segment_id, (ids,) evidence]`` read as the group it stands for)."""
    return [
        group_of_row(group) if isinstance(group, list) else group
        for group in data.get("segments", [])
    ]
