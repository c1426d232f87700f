"""The spectator feed's subscriber (turf_gateway.feed.relay) on FastStream's TestNatsBroker: events reach the hub as
they were published (type, at, seq, fields), card events without private fields, and nothing is decoded for nobody.
(TestNatsBroker delivers plain messages, so ``seq`` counts them here; on a server it is the stream's sequence.)"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from faststream.nats import TestNatsBroker

from turf_common.bus import make_broker
from turf_common.contracts import subjects
from turf_gateway.feed.relay import feed_router
from turf_gateway.feed.state import FeedState

CHANGED = {"type": "territory.changed", "event_id": "e1", "occurred_at": "2026-10-05T07:00:03-04:00",
           "territory_id": "3401732250", "owner_id": "ada", "previous_owner_id": None, "progress": 1,
           "fortified": False, "version": 2, "cause": "claim", "claim_id": "c1"}


def gateway_state() -> Any:
    return SimpleNamespace(feed=FeedState())


async def unnamed(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The names lookup of a feed whose score changes name nobody (the cases here send none to decode)."""
    return changes


async def test_a_territory_change_reaches_spectators_and_the_recent_stories_as_published() -> None:
    state = gateway_state()
    client = state.feed.hub.join()
    broker = make_broker("nats://test", "gateway")
    broker.include_router(feed_router(state.feed, unnamed, "TURF"))
    async with TestNatsBroker(broker) as br:
        await br.publish(json.dumps(CHANGED).encode(), subjects.TERRITORY_CHANGED)
    want = {"type": "territory.changed", "at": CHANGED["occurred_at"], "seq": 1} | CHANGED
    assert list(state.feed.hub.recent) == [want]
    seq, text = client.queue.get_nowait()
    assert (seq, json.loads(text)) == (1, want) and state.feed.hub.last_seq == 1
    assert state.feed.board_version == 1   # GET /board's cached body is out of date


async def test_a_card_play_is_relayed_without_its_target() -> None:
    state = gateway_state()
    client = state.feed.hub.join()
    broker = make_broker("nats://test", "gateway")
    broker.include_router(feed_router(state.feed, unnamed, "TURF"))
    played = {"type": "card.played", "event_id": "e2", "occurred_at": "2026-10-05T08:00:00-04:00",
              "season_id": "2026", "player_id": "ada", "card_id": "k1", "card_type": "freeze", "state": "reserved",
              "play_id": "p1", "effect": {"territory_id": "3401732250"}}
    async with TestNatsBroker(broker) as br:
        await br.publish(json.dumps(played).encode(), subjects.CARD_PLAYED)
    assert json.loads(client.queue.get_nowait()[1]) == {
        "type": "card.played", "at": played["occurred_at"], "seq": 1, "player_id": "ada", "card_type": "freeze",
        "state": "reserved", "occurred_at": played["occurred_at"]}


async def test_a_score_update_with_nobody_watching_is_counted_not_decoded() -> None:
    state = gateway_state()
    broker = make_broker("nats://test", "gateway")
    broker.include_router(feed_router(state.feed, unnamed, "TURF"))
    async with TestNatsBroker(broker) as br:
        await br.publish(b"not json: never parsed", subjects.SCORE_UPDATED)
    # not decoded, yet counted in the hub's sequence: a spectator joining now starts after it
    assert state.feed.score_updates == 1 and list(state.feed.hub.recent) == [] and state.feed.hub.last_seq == 1


async def test_only_what_fits_the_feeds_contract_reaches_spectators() -> None:
    """A message that reached the bus on a feed subject is relayed only if it is that subject's event
    (its contract model), and then only with the model's fields. Before, any JSON was relayed as it came."""
    state = gateway_state()
    client = state.feed.hub.join()
    broker = make_broker("nats://test", "gateway")
    broker.include_router(feed_router(state.feed, unnamed, "TURF"))
    forged = [
        (b"<script>alert(1)</script>", subjects.TERRITORY_CHANGED),                     # not JSON
        (json.dumps({"type": "territory.changed", "message": "Game over, go home"}).encode(),
         subjects.TERRITORY_CHANGED),                                                  # not the event
        (json.dumps(CHANGED | {"type": "season.final_results"}).encode(), subjects.TERRITORY_CHANGED),  # other type
        (json.dumps(CHANGED | {"owner_id": 42}).encode(), subjects.TERRITORY_CHANGED),  # wrong field type
    ]
    async with TestNatsBroker(broker) as br:
        for raw, subject in forged:
            await br.publish(raw, subject)
        await br.publish(json.dumps(CHANGED | {"home_address": "1 Main St", "email": "ada@example.org"}).encode(),
                         subjects.TERRITORY_CHANGED)
    relayed = [json.loads(client.queue.get_nowait()[1]) for _ in range(client.queue.qsize())]
    # extras dropped; the forged messages' sequences (1-4) are skipped, not reused
    assert relayed == [{"type": "territory.changed", "at": CHANGED["occurred_at"], "seq": 5} | CHANGED]
    assert list(state.feed.hub.recent) == relayed
