"""When ``WS /ws/scores?since=`` can resend what a client missed
(turf_gateway.adapters.feed_stream.resumable)."""

from __future__ import annotations

import pytest

from turf_gateway.adapters.feed_stream import resumable


@pytest.mark.parametrize(("since", "upto", "first", "last", "bound", "want"), [
    (90, 100, 1, 100, 50, True),        # 10 behind, all stored
    (50, 100, 1, 100, 50, True),        # exactly the bound
    (49, 100, 1, 100, 50, False),       # one past the bound: a snapshot
    (100, 100, 1, 100, 50, True),       # nothing missed
    (103, 100, 1, 105, 50, True),       # ahead of this gateway (another replica was faster): nothing to resend
    (106, 100, 1, 105, 50, False),      # a sequence the stream never reached (another stream): a snapshot
    (5, 20, 10, 20, 50, False),         # the stream no longer holds seq 6
    (9, 20, 10, 20, 50, True),          # it holds everything after 9
    (-1, 20, 1, 20, 50, False),
])
def test_resumable(since: int, upto: int, first: int, last: int, bound: int, want: bool) -> None:
    assert resumable(since, upto, first, last, bound) is want
