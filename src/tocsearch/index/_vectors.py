"""Exact cosine nearest neighbours over a matrix of unit-length float32 rows (numpy)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["VectorMatrix"]


class VectorMatrix:
    """The vectors of the indexed events, one unit-length row each, with their times.

    Runtime complexity: one matrix-vector product per query, O(n * dimension).
    """

    def __init__(
        self,
        event_ids: Sequence[str],
        times_us: Sequence[int],
        rows: npt.NDArray[np.float32],
    ) -> None:
        import numpy as np

        self.event_ids = list(event_ids)
        self._times = np.asarray(times_us, dtype=np.int64)
        self._rows = rows

    def __len__(self) -> int:
        return len(self.event_ids)

    def nearest(
        self,
        query: npt.NDArray[np.float32],
        limit: int,
        *,
        start_us: int | None = None,
        end_us: int | None = None,
    ) -> list[tuple[str, float]]:
        """Up to ``limit`` ``(event_id, cosine)`` pairs, most similar first, among the events
        with times in ``[start_us, end_us)``."""
        import numpy as np

        if not self.event_ids or limit < 1:
            return []
        scores = self._rows @ np.asarray(query, dtype=np.float32).reshape(-1)
        if start_us is not None or end_us is not None:
            allowed = np.ones(len(scores), dtype=bool)
            if start_us is not None:
                allowed &= self._times >= start_us
            if end_us is not None:
                allowed &= self._times < end_us
            scores = np.where(allowed, scores, -np.inf)
        count = min(limit, len(scores))
        top = np.argpartition(-scores, count - 1)[:count]
        # Ties by position, so equal scores rank the same way on every run.
        order = top[np.lexsort((top, -scores[top]))]
        return [(self.event_ids[int(i)], float(scores[i])) for i in order if np.isfinite(scores[i])]
