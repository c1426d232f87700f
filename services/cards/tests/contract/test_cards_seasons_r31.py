"""R31 with R12 and R12.1: the cards use cases over a catalog of two seasons, on the memory fake and on PostgreSQL
(``store``, see conftest.py). 2026 is the configuration file's season (its players verified before seasons were
joined, its seed ``TURF_SEED``); 2027 is made after it, dealt to the players who join it, from its own seed."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import date, datetime

from cards_world import SEED, FakeClaims

from turf_cards import bootstrap
from turf_cards.handlers import CardsHandlers
from turf_cards.ports import CardsStore
from turf_cards.testing import MemoryCardsStore
from turf_common.contracts.cards import CardDrawn, HandsDealt, SeedCommitted, SeedRevealed
from turf_common.contracts.clock import DayStarted, SeasonEnded, SeasonStarted
from turf_common.contracts.players import PlayerDisqualified, PlayerVerified
from turf_common.contracts.seasons import SeasonJoined
from turf_common.rules import cards as rules
from turf_common.rules import gametime, seasons
from turf_common.seasonbook import SeasonBook
from turf_common.testing import FakeClock, RecordingPublisher

S26 = gametime.load_season()
S27 = replace(S26, season_id="2027", first_day=date(2027, 10, 4), last_day=date(2027, 10, 23))
SEED27 = seasons.season_seed(SEED, "2027")

MON26 = datetime.fromisoformat("2026-10-05T06:00:00-04:00")     # 2026's first day start
END26 = datetime.fromisoformat("2026-10-24T22:00:00-04:00")     # 2026's close
BETWEEN = datetime.fromisoformat("2027-06-01T12:00:00-04:00")   # between the seasons (2026 in force, closed)
MON27 = datetime.fromisoformat("2027-10-04T06:00:00-04:00")     # 2027's first day start
TUE27 = datetime.fromisoformat("2027-10-05T06:00:00-04:00")
WED27_NOON = datetime.fromisoformat("2027-10-06T12:00:00-04:00")


def cards(store: CardsStore, now: datetime) -> tuple[CardsHandlers, RecordingPublisher, FakeClock]:
    take = store.take_staged if isinstance(store, MemoryCardsStore) else (lambda: [])
    relay, clock = RecordingPublisher(take), FakeClock(now)
    h = bootstrap.handlers(store=store, clock=clock, claims=FakeClaims(), relay=relay,
                           season=SeasonBook.of(S26, S27), seed=SEED)
    h.cx.deal_wait_s = 0.0
    return h, relay, clock


def boundary(kind: type[DayStarted] | type[SeasonStarted] | type[SeasonEnded], season: str,
             at: datetime) -> DayStarted | SeasonStarted | SeasonEnded:
    return kind(event_id=f"{season}:{kind.__name__}:{at.date()}", occurred_at=at, at=at, game_day=at.date(),
                game_day_number=1, week=1, season_id=season)


def verified(pid: str, at: datetime) -> PlayerVerified:
    return PlayerVerified(event_id=f"verified:{pid}", occurred_at=at, player_id=pid, at=at)


def joined(season: str, pid: str, at: datetime) -> SeasonJoined:
    return SeasonJoined(event_id=f"joined:{season}:{pid}", occurred_at=at, season_id=season, player_id=pid)


async def staged(store: CardsStore, event_id: str) -> str | None:
    async with store.begin() as tx:
        return await tx.messages.staged(event_id)


async def drawn(store: CardsStore, season: str, pid: str, indices: range) -> list[CardDrawn]:
    out = []
    for i in indices:
        raw = await staged(store, f"draw:{season}:{pid}:{i}")
        if raw is not None:
            out.append(CardDrawn.model_validate_json(raw))
    return out


async def play_2026(h: CardsHandlers) -> None:
    """2026 as it was played: ann and bob verified before it opened, dealt 3 each at its first day start, ended."""
    await h.on_event(verified("ann", MON26.replace(day=1)))
    await h.on_event(verified("bob", MON26.replace(day=1)))
    await h.on_event(boundary(SeasonStarted, "2026", MON26))
    await h.on_event(boundary(DayStarted, "2026", MON26))
    await h.on_event(boundary(SeasonEnded, "2026", END26))


async def test_r31_the_next_season_deals_fresh_hands_from_its_own_seed_to_its_joined_players_only(
        store: CardsStore) -> None:
    h, _, clock = cards(store, MON26)
    await play_2026(h)
    old = {p: [c.id for c in await store.hand("2026", p)] for p in ("ann", "bob")}
    assert [len(v) for v in old.values()] == [3, 3]

    clock.at = BETWEEN
    await h.on_event(joined("2027", "ann", BETWEEN))        # ann joins 2027 before it opens: nothing drawn yet
    assert await store.hand("2027", "ann") == []
    await h.on_event(boundary(SeasonStarted, "2027", MON27))
    await h.on_event(day := boundary(DayStarted, "2027", MON27))
    await h.on_event(day)                                   # a redelivery changes nothing

    # R31/R12: ann gets 3 fresh cards at 2027's first day start, from 2027's seed, indices restarting at 0
    dealt = HandsDealt.model_validate_json(await staged(store, f"dealt:2027:{MON27.date()}") or "")
    assert (dealt.season_id, dealt.hands, dealt.draws) == ("2027", {"ann": 0}, {"ann": 3})
    new = await drawn(store, "2027", "ann", range(5))
    assert [(d.season_id, d.draw_index, d.card_type) for d in new] == [
        ("2027", i, rules.draw_card(SEED27, "2027", "ann", i)) for i in range(3)]
    assert [c.id for c in await store.hand("2027", "ann")] == [d.card_id for d in new]
    # bob played 2026 but did not join 2027: no hand there, not in the deal
    assert await store.hand("2027", "bob") == []
    # 2026's hands are untouched
    assert {p: [c.id for c in await store.hand("2026", p)] for p in ("ann", "bob")} == old


async def test_r31_r12_1_each_season_commits_its_own_seed_at_its_start_and_reveals_it_at_its_end(
        store: CardsStore) -> None:
    h, _, clock = cards(store, MON26)
    await play_2026(h)
    await h.on_event(boundary(SeasonStarted, "2027", MON27))
    clock.at = WED27_NOON
    assert (await h.hands.seed_info()).season_id == "2027"     # cards.seed answers for the season in force
    assert (await h.hands.seed_info()).seed is None
    await h.on_event(boundary(SeasonEnded, "2027", datetime.fromisoformat("2027-10-23T22:00:00-04:00")))

    def sha(s: str) -> str:
        return hashlib.sha256(s.encode()).hexdigest()

    for season, seed in (("2026", SEED), ("2027", SEED27)):
        committed = SeedCommitted.model_validate_json(await staged(store, f"seed_committed:{season}") or "")
        revealed = SeedRevealed.model_validate_json(await staged(store, f"seed_revealed:{season}") or "")
        assert (committed.season_id, committed.commitment) == (season, sha(seed))
        assert (revealed.season_id, revealed.seed, revealed.commitment) == (season, seed, sha(seed))
    clock.at = datetime.fromisoformat("2027-12-01T12:00:00-05:00")
    assert (await h.hands.seed_info()).seed == SEED27


async def test_r31_r12_a_verified_player_joining_a_running_season_is_topped_up_once(store: CardsStore) -> None:
    h, _, clock = cards(store, MON26)
    await play_2026(h)
    await h.on_event(boundary(SeasonStarted, "2027", MON27))
    await h.on_event(boundary(DayStarted, "2027", MON27))
    clock.at = WED27_NOON
    ev = joined("2027", "bob", WED27_NOON)
    await h.on_event(ev)
    await h.on_event(ev)                                    # a redelivery
    got = await drawn(store, "2027", "bob", range(5))
    assert [(d.draw_index, d.reason, d.card_type) for d in got] == [
        (i, "verification", rules.draw_card(SEED27, "2027", "bob", i)) for i in range(3)]
    # from the next day start bob is dealt like every player of 2027
    await h.on_event(boundary(DayStarted, "2027", TUE27.replace(day=7)))
    dealt = HandsDealt.model_validate_json(await staged(store, "dealt:2027:2027-10-07") or "")
    assert dealt.hands == {"bob": 3}


async def test_r31_r12_a_joined_player_is_dealt_once_verified_and_never_if_disqualified(store: CardsStore) -> None:
    """Registering joins a season before verification (R27): the player is dealt from their verification on; a
    verified player who joins after being disqualified is dealt nothing."""
    h, _, clock = cards(store, MON26)
    await play_2026(h)
    await h.on_event(PlayerDisqualified(occurred_at=END26, player_id="bob", at=END26))
    await h.on_event(boundary(SeasonStarted, "2027", MON27))
    await h.on_event(boundary(DayStarted, "2027", MON27))
    clock.at = WED27_NOON
    await h.on_event(joined("2027", "cat", WED27_NOON))     # registered now: pending, nothing drawn
    await h.on_event(joined("2027", "bob", WED27_NOON))     # disqualified: nothing drawn
    assert await store.hand("2027", "cat") == [] and await store.hand("2027", "bob") == []
    await h.on_event(verified("cat", WED27_NOON))           # verified while 2027 runs: R12's top-up
    assert len(await store.hand("2027", "cat")) == 3
    assert await store.hand("2026", "cat") == []            # 2026 closed: verifying now joins nothing of it
    await h.on_event(boundary(DayStarted, "2027", TUE27.replace(day=7)))
    dealt = HandsDealt.model_validate_json(await staged(store, "dealt:2027:2027-10-07") or "")
    assert dealt.hands == {"cat": 3}


async def test_r31_a_play_takes_a_card_of_the_season_in_force_only(store: CardsStore) -> None:
    """2026's cards stay in 2026's hands: in 2027 a player plays from their 2027 hand (R13: a card not there is
    refused ``card_not_in_hand``)."""
    from turf_common.contracts.cards import PlayCard

    h, _, clock = cards(store, MON26)
    await play_2026(h)
    await h.on_event(boundary(SeasonStarted, "2027", MON27))
    await h.on_event(boundary(DayStarted, "2027", MON27))
    clock.at = WED27_NOON
    held = next(c.card_type for c in await store.hand("2026", "bob"))
    if held == "trade":
        return   # a Trade card is played by proposing a trade: nothing to show with it
    out = await h.plays.play(PlayCard(player_id="bob", player_status="verified", type=held,
                                      territory_id="t1", claim_id="c1", rival_id="ann"))
    assert getattr(out, "reason", None) == "card_not_in_hand"


async def test_r31_r12_1_the_draw_audit_replays_each_season_from_its_own_seed() -> None:
    """``turfwar audit draws``: the stream of two seasons audits clean for 2026 (as before seasons were data) and
    for 2027 (named, its configuration from ``season.created``), each from its own revealed seed; 2027 replayed
    from 2026's seed does not."""
    from turf_cards.audit import audit_draws, season_config
    from turf_cards.handlers import CardsEvent
    from turf_common.contracts.seasons import SeasonCreated

    store = MemoryCardsStore()
    h, relay, clock = cards(store, MON26)
    stream: list[tuple[str, dict[str, object]]] = []

    async def feed(ev: CardsEvent) -> None:
        stream.append((ev.type, ev.model_dump(mode="json")))
        before = len(relay.sent)
        await h.on_event(ev)
        stream.extend((s, e.model_dump(mode="json")) for s, e in relay.sent[before:])

    for pid in ("ann", "bob"):
        await feed(verified(pid, MON26.replace(day=1)))
    await feed(boundary(SeasonStarted, "2026", MON26))
    await feed(boundary(DayStarted, "2026", MON26))
    await feed(boundary(DayStarted, "2026", TUE27.replace(year=2026, day=6)))
    await feed(boundary(SeasonEnded, "2026", END26))
    stream.append(("season.created", SeasonCreated(
        occurred_at=BETWEEN, season_id="2027", name="2027", config=S27.to_dict(),
        seed_commitment=rules.seed_commitment(SEED27)).model_dump(mode="json")))
    clock.at = BETWEEN
    await feed(joined("2027", "ann", BETWEEN))
    await feed(boundary(SeasonStarted, "2027", MON27))
    await feed(boundary(DayStarted, "2027", MON27))
    clock.at = WED27_NOON
    await feed(verified("cat", WED27_NOON))                 # a new account: 2026 closed, joins nothing yet
    await feed(joined("2027", "cat", WED27_NOON))           # joins the running 2027: topped up
    await feed(boundary(DayStarted, "2027", TUE27.replace(day=7)))
    await feed(boundary(SeasonEnded, "2027", datetime.fromisoformat("2027-10-23T22:00:00-04:00")))

    r26 = audit_draws(stream, S26)
    assert (r26.ok, r26.mismatches, r26.draws, r26.deals) == (True, [], 8, 2)
    cfg27 = season_config(stream, "2027")
    assert cfg27 == S27
    r27 = audit_draws(stream, S27, file_season=False)
    assert (r27.ok, r27.mismatches, r27.draws, r27.deals) == (True, [], 3 + 3 + 2, 2)
    assert not audit_draws(stream, S27, seed=SEED, file_season=False).ok
