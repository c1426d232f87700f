"""The outbox relay reads a row's trace context without decoding its payload (every event is decoded once, by
its consumers): the events' own JSON, with a trace context and with none."""

from __future__ import annotations

from datetime import UTC, datetime

from turf_common.contracts.claims import ClaimRejected
from turf_common.outbox import _traceparent_of

TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_a_payloads_trace_context_is_read_and_one_without_is_none() -> None:
    ev = ClaimRejected(occurred_at=datetime(2026, 10, 5, tzinfo=UTC), player_id="ann", territory_id=None,
                       reason="game_closed", message="The game is closed.")
    assert _traceparent_of(ev.model_dump_json()) is None
    assert _traceparent_of(ev.model_copy(update={"traceparent": TP}).model_dump_json()) == TP
