"""The cards store's contract (cosmicpython's repository tests): each case runs on the memory fake and on
PostgreSQL (``store``, see conftest.py) and checks exact answers, role by role (ports.py), and the store's own
reads."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from functools import partial

import pytest
from sqlalchemy.exc import IntegrityError

from turf_cards.ports import Card, CardsStore, Saga, Trade
from turf_cards.testing import DuplicateKey
from turf_common.contracts.cards import CardDrawn

T0 = datetime(2026, 10, 5, 14, 0, tzinfo=UTC)
S, S2 = "2026", "2027"
C = partial(Card, season_id=S)   # a card of the 2026 hands
DAY = date(2026, 10, 6)


async def test_messages_inbox_once_outbox_kept(store: CardsStore) -> None:
    ev = CardDrawn(occurred_at=T0, season_id="s1", player_id="ann", card_id="c1", card_type="war", draw_index=0,
                  reason="verification")
    async with store.begin() as tx:
        assert await tx.messages.first_time("e1", "player.verified") is True
        assert await tx.messages.first_time("e1", "player.verified") is False
        assert await tx.messages.staged(ev.event_id) is None
        await tx.messages.stage("card.drawn", ev)
    async with store.begin() as tx:
        assert await tx.messages.first_time("e1", "player.verified") is False
        assert await tx.messages.staged(ev.event_id) == ev.model_dump_json()
        assert await tx.messages.staged("zz") is None
    assert await store.has_staged(ev.event_id) is True
    assert await store.has_staged("zz") is False


async def test_a_unit_of_work_that_raises_leaves_nothing(store: CardsStore) -> None:
    with pytest.raises(RuntimeError):
        async with store.begin() as tx:
            await tx.players.add_player("ann", T0)
            raise RuntimeError("boom")
    async with store.begin() as tx:
        assert await tx.players.player_known("ann") is False


async def test_season_commitment_recorded_once(store: CardsStore) -> None:
    async with store.begin() as tx:
        assert await tx.season.record_season("s1", "abc") == "abc"
        assert await tx.season.record_season("s1", "def") == "abc"
        assert await tx.season.record_season("s2", "def") == "def"


async def test_players_verified_disqualified_and_draws(store: CardsStore) -> None:
    async with store.begin() as tx:
        await tx.players.add_player("bob", T0)
        await tx.players.add_player("ann", T0)
        await tx.players.add_player("cat", T0)
        await tx.players.disqualify("cat", T0)
        await tx.players.disqualify("dan", T0)          # never verified here: recorded all the same
        for p in ("ann", "bob", "cat", "dan"):
            assert await tx.players.join(S, p, T0) is True
        await tx.players.set_draws(S, "ann", 3)
    async with store.begin() as tx:
        assert await tx.players.verified_players(S) == ["ann", "bob"]
        assert [await tx.players.player_known(p) for p in ("ann", "cat", "dan", "eve")] == [True, True, True, False]
        assert [await tx.players.is_verified(p) for p in ("ann", "cat", "dan", "eve")] == [True, False, False, False]
        assert await tx.players.draws_for_update(S, "ann") == 3
        assert await tx.players.draws_for_update(S, "bob") == 0


async def test_r31_a_season_has_its_own_players_and_draw_indices(store: CardsStore) -> None:
    """R31: a player takes part in the seasons they joined, once each; the draw index counts per season (R12)."""
    async with store.begin() as tx:
        await tx.players.add_player("ann", T0)
        await tx.players.add_player("bob", T0)
        await tx.players.join(S, "ann", T0)
        await tx.players.join(S, "bob", T0)
        await tx.players.set_draws(S, "ann", 5)
        assert await tx.players.join(S2, "ann", T0) is True
        assert await tx.players.join(S2, "ann", T0) is False      # joined already: nothing changes
        await tx.players.set_draws(S2, "cat", 9)                   # never joined: no row to change
    async with store.begin() as tx:
        assert await tx.players.verified_players(S2) == ["ann"]
        assert await tx.players.verified_players(S) == ["ann", "bob"]
        assert [await tx.players.joined(S2, p) for p in ("ann", "bob", "cat")] == [True, False, False]
        assert await tx.players.draws_for_update(S2, "ann") == 0
        assert await tx.players.draws_for_update(S, "ann") == 5


async def test_hands_order_and_states(store: CardsStore) -> None:
    async with store.begin() as tx:
        await tx.players.add_player("ann", T0)
        await tx.hands.add_card(S, "w2", "ann", "war", 2, "draw", T0 + timedelta(minutes=1))
        await tx.hands.add_card(S, "w1", "ann", "war", 1, "draw", T0)
        await tx.hands.add_card(S, "wx", "ann", "war", None, "correction", T0)          # no draw index: after w1
        await tx.hands.add_card(S, "f1", "ann", "freeze", 3, "draw", T0)
        await tx.hands.add_card(S, "t1", "bob", "trade", 0, "draw", T0)
    async with store.begin() as tx:
        assert await tx.hands.unused(S, "ann") == 4
        assert await tx.hands.card_for_update("w1") == C("w1", "ann", "war", "ready", 1)
        assert await tx.hands.card_for_update("zz") is None
        assert await tx.hands.oldest_ready_for_update(S, "ann", "war") == C("w1", "ann", "war", "ready", 1)
        assert await tx.hands.oldest_ready_for_update(S, "ann", "joker") is None
        assert await tx.hands.newest_ready_for_update(S, "ann", "war") == "w2"
        assert await tx.hands.newest_ready_for_update(S, "bob", "war") is None
        assert await tx.hands.has_trade_card(S, "bob") is True
        assert await tx.hands.has_trade_card(S, "ann") is False
        assert await tx.hands.oldest_trade_card_for_update(S, "bob") == "t1"
        assert await tx.hands.oldest_trade_card_for_update(S, "ann") is None
        await tx.hands.set_card("w1", "reserved", T0, saga_id="s1")
        await tx.hands.set_card("f1", "reserved", T0, scheduled_for=DAY)
        await tx.hands.set_card("wx", "consumed", T0)
    assert [c.id for c in await store.hand(S, "ann")] == ["w1", "f1", "w2"]   # live ones, by draw time then index
    async with store.begin() as tx:
        assert await tx.hands.card_for_update("w1") == C("w1", "ann", "war", "reserved", 1, saga_id="s1")
        assert await tx.hands.card_for_update("f1") == C("f1", "ann", "freeze", "reserved", 3, scheduled_for=DAY)
        assert await tx.hands.unused(S, "ann") == 3
        assert await tx.hands.oldest_ready_for_update(S, "ann", "war") == C("w2", "ann", "war", "ready", 2)
        assert await tx.hands.newest_scheduled_for_update(S, "ann", "freeze") == "f1"
        assert await tx.hands.newest_scheduled_for_update(S, "ann", "war") is None     # held by a saga, no day
        await tx.hands.clear_card_saga("w1")
        await tx.hands.unschedule("f1", T0)
        await tx.hands.unschedule("wx", T0)                 # consumed: stays
    async with store.begin() as tx:
        assert await tx.hands.card_for_update("w1") == C("w1", "ann", "war", "reserved", 1)
        assert await tx.hands.card_for_update("f1") == C("f1", "ann", "freeze", "ready", 3)
        assert await tx.hands.card_for_update("wx") == C("wx", "ann", "war", "consumed", None)
        await tx.hands.lock_hand("ann")


async def test_r31_a_hand_is_of_one_season(store: CardsStore) -> None:
    """R31: each season has its own hands: a season's reads never see another season's cards."""
    async with store.begin() as tx:
        await tx.players.add_player("ann", T0)
        await tx.hands.add_card(S, "old", "ann", "trade", 0, "draw", T0)
        await tx.hands.add_card(S2, "new", "ann", "war", 0, "draw", T0)
    async with store.begin() as tx:
        assert (await tx.hands.unused(S, "ann"), await tx.hands.unused(S2, "ann")) == (1, 1)
        assert await tx.hands.card_for_update("new") == Card("new", "ann", "war", "ready", 0, season_id=S2)
        assert await tx.hands.oldest_ready_for_update(S, "ann", "war") is None
        assert await tx.hands.newest_ready_for_update(S2, "ann", "war") == "new"
        assert await tx.hands.has_trade_card(S2, "ann") is False
        assert await tx.hands.oldest_trade_card_for_update(S, "ann") == "old"
    assert [c.id for c in await store.hand(S2, "ann")] == ["new"]
    assert [c.id for c in await store.hand(S, "ann")] == ["old"]
    assert (await store.trade_holders(S), await store.trade_holders(S2)) == (["ann"], [])


async def test_trade_holders_are_verified_players_with_a_ready_trade_card(store: CardsStore) -> None:
    async with store.begin() as tx:
        for p in ("ann", "bob", "cat"):
            await tx.players.add_player(p, T0)
        await tx.players.disqualify("cat", T0)
        for cid, p in (("t1", "bob"), ("t2", "ann"), ("t3", "cat"), ("t4", "dan"), ("t5", "ann")):
            await tx.hands.add_card(S, cid, p, "trade", 0, "draw", T0)
        await tx.hands.set_card("t2", "consumed", T0)
    assert await store.trade_holders(S) == ["ann", "bob"]


async def test_sagas(store: CardsStore) -> None:
    s1 = Saga("s1", "play", "ann", "war", ["w1"], "claims.effect.war", '{"x": 1}')
    s2 = Saga("s2", "trade", "bob", "trade", ["t1", "t2"], "claims.effect.trade", "{}", trade_id="tr1")
    async with store.begin() as tx:
        await tx.sagas.add_saga(s1)
        await tx.sagas.add_saga(s2)
    async with store.begin() as tx:
        assert await tx.sagas.saga_for_update("s2") == s2
        await tx.sagas.finish_saga("s1", "done", '{"ok": true}')
    assert await store.saga("s1") == Saga("s1", "play", "ann", "war", ["w1"], "claims.effect.war", '{"x": 1}',
                                          state="done", reply='{"ok": true}')
    assert await store.pending_sagas(older_than=-60) == ["s2"]
    assert await store.pending_sagas(older_than=3600) == []


async def test_trades_open_find_hold_and_close(store: CardsStore) -> None:
    async with store.begin() as tx:
        t1 = await tx.trades.add_trade("tr1", "ann", "bob", "a", "b", T0 + timedelta(minutes=1))
        assert t1 == Trade("tr1", "ann", "bob", "a", "b", "open")
        await tx.trades.add_trade("tr0", "cat", "ann", "c", "d", T0)
        await tx.trades.add_trade("tr2", "cat", "dan", "e", "f", T0)
    async with store.begin() as tx:
        assert await tx.trades.trade_for_update("tr1") == t1
        assert await tx.trades.trade_for_update("zz") is None
        assert await tx.trades.open_trade_on("b", "a") == t1
        assert await tx.trades.open_trade_on("a", "c") is None
        await tx.trades.set_trade_saga("tr0", "s9")
        assert sorted(t.id for t in await tx.trades.open_trades_for_update()) == ["tr0", "tr1", "tr2"]
        assert sorted(t.id for t in await tx.trades.open_trades_for_update("ann")) == ["tr0", "tr1"]
        assert sorted(t.id for t in await tx.trades.idle_open_trades_for_update(["ann", "dan"])) == ["tr1", "tr2"]
        assert await tx.trades.idle_open_trades_for_update([]) == []
    assert [t.id for t in await store.open_trades("ann")] == ["tr0", "tr1"]
    assert await store.traded_territories(["a", "d", "z"]) == {"a", "d"}
    async with store.begin() as tx:
        closed = await tx.trades.close_trade("tr0", "declined", "partner_declined", T0)
        assert closed == Trade("tr0", "cat", "ann", "c", "d", "declined", "partner_declined")
        await tx.trades.set_trade_saga("tr1", None)
    assert [t.id for t in await store.open_trades("ann")] == ["tr1"]
    assert await store.traded_territories(["c", "d"]) == set()


async def test_trades_lost_when_a_territory_leaves_its_party(store: CardsStore) -> None:
    async with store.begin() as tx:
        await tx.trades.add_trade("tr1", "ann", "bob", "a", "b", T0)
        await tx.trades.add_trade("tr2", "cat", "ann", "c", "a", T0)
        await tx.trades.add_trade("tr3", "dan", "eve", "a", "e", T0)
        await tx.trades.set_trade_saga("tr3", "s1")        # an acceptance in flight: not lost here
    async with store.begin() as tx:
        assert await tx.trades.trades_lost_for_update("a", "ann") == []          # ann is both sides' holder of a
        assert [t.id for t in await tx.trades.trades_lost_for_update("c", "ann")] == ["tr2"]
        assert sorted(t.id for t in await tx.trades.trades_lost_for_update("a", None)) == ["tr1", "tr2"]
        assert await tx.trades.trades_lost_for_update("b", "bob") == []
        assert [t.id for t in await tx.trades.trades_lost_for_update("b", "ann")] == ["tr1"]
    assert await store.trade_lost("a", "cat") is True
    assert await store.trade_lost("a", "ann") is False


async def test_a_second_row_with_one_id_is_refused_and_the_unit_rolled_back(store: CardsStore) -> None:
    saga = Saga("s1", "play", "ann", "war", ["w1"], "claims.effect.war", "{}")
    async with store.begin() as tx:
        await tx.players.add_player("ann", T0)
        await tx.hands.add_card(S, "w1", "ann", "war", 0, "draw", T0)
        await tx.sagas.add_saga(saga)
        await tx.trades.add_trade("tr1", "ann", "bob", "a", "b", T0)
    refused = [lambda tx: tx.players.add_player("ann", T0),
               lambda tx: tx.hands.add_card(S, "w1", "bob", "joker", 1, "draw", T0),
               lambda tx: tx.sagas.add_saga(saga),
               lambda tx: tx.trades.add_trade("tr1", "cat", "dan", "c", "d", T0)]
    for write in refused:
        with pytest.raises((IntegrityError, DuplicateKey)):
            async with store.begin() as tx:
                await tx.season.record_season("s9", "x")
                await write(tx)
    async with store.begin() as tx:
        assert await tx.season.record_season("s9", "y") == "y"              # each unit rolled back whole
        assert await tx.hands.card_for_update("w1") == C("w1", "ann", "war", "ready", 0)
        assert await tx.trades.trade_for_update("tr1") == Trade("tr1", "ann", "bob", "a", "b", "open")
