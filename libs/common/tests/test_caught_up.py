"""The barrier's reading of a CONSUMER.LIST reply (turf_common.bus.caught_up): a consumer between leaders on a
cluster is listed under ``missing`` and must not pass for idle (CI: scoring's consumer, leaderless after a NATS node
died, was skipped and the leaderboard read before scoring had taken a claim)."""

import json

from turf_common.bus import caught_up


def _consumer(durable: str | None, pending: int = 0, ack_pending: int = 0) -> dict[str, object]:
    config = {"durable_name": durable} if durable else {}
    return {"name": durable or "eph", "config": config, "num_pending": pending, "num_ack_pending": ack_pending}


def _listing(*consumers: dict[str, object], missing: list[str] | None = None) -> bytes:
    body: dict[str, object] = {"type": "io.nats.jetstream.api.v1.consumer_list_response", "total": len(consumers),
                               "consumers": list(consumers)}
    if missing:
        body["missing"] = missing
    return json.dumps(body).encode()


def test_every_consumer_idle_is_caught_up() -> None:
    assert caught_up(_listing(_consumer("scoring"), _consumer("claims")))


def test_pending_or_unacked_is_not() -> None:
    assert not caught_up(_listing(_consumer("scoring", pending=3), _consumer("claims")))
    assert not caught_up(_listing(_consumer("scoring"), _consumer("claims", ack_pending=1)))


def test_a_consumer_without_a_leader_is_not_caught_up() -> None:
    assert not caught_up(_listing(_consumer("claims"), missing=["scoring"]))


def test_an_error_reply_is_not_caught_up() -> None:
    assert not caught_up(json.dumps({"error": {"code": 503, "description": "JetStream system temporarily "
                                                                           "unavailable"}}).encode())


def test_ephemeral_consumers_count_unless_durable_only() -> None:
    busy_reader = _consumer(None, pending=5)
    assert not caught_up(_listing(_consumer("scoring"), busy_reader))
    assert caught_up(_listing(_consumer("scoring"), busy_reader), durable_only=True)


def test_a_missing_ephemeral_consumer_does_not_hold_the_barrier() -> None:
    # the gateway's ordered feed consumer (one replica) on the dead node: gone for good, already replaced
    assert caught_up(_listing(_consumer("scoring"), missing=["Qk6b2FZG"]))
    assert caught_up(_listing(_consumer("scoring"), missing=["UfHXPdPg", "wM1AKf8O"]), durable_only=True)
    assert not caught_up(_listing(_consumer("claims"), missing=["UfHXPdPg", "gateway-history"]))
