"""R15 Freeze, R16 Blockade and R18 Trade through the public API on the real stack: scheduling, cancelling,
activation and lapse with the card's return, protections at claim time, trades with the partner told, and the
refusals of R29. The tests share one manual clock and run in order."""

from __future__ import annotations

import asyncio
import hashlib
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.support.bus import stream_events
from tests.support.cards import claim, give, hand, play, ready
from tests.support.client import Player, move_clock, verified_player
from tests.support.spectator import Spectator
from turf_common.contracts import subjects
from turfwar.stack import Stack

X, Y, Z, U = "3401732250", "3401736000", "3401351000", "3401703580"   # Hoboken, Jersey City, Newark, Bayonne
W1, ELIZABETH = "3401777930", "3403921000"                           # Weehawken, Elizabeth
NOWHERE = "0000000000"
MON, TUE, WED, THU, FRI = (datetime.fromisoformat(f"2026-10-{d:02d}T07:00:00-04:00") for d in (5, 6, 7, 8, 9))


@pytest.fixture(scope="module")
def p(stack: Stack, http: httpx.Client, org: Player) -> dict[str, Player]:
    players = {n: verified_player(http, org, n) for n in ("P", "Q", "R", "S", "T", "D")}
    move_clock(org, MON)
    for name, tid in (("P", X), ("Q", Y), ("R", Z), ("S", U)):
        r = claim(players[name], tid, MON)
        assert r.status_code == 201, r.text
    return players


def terr(http: httpx.Client, tid: str) -> dict[str, Any]:
    r = http.get(f"/api/v1/territories/{tid}")
    return {k: r.json()[k] for k in ("owner_id", "progress", "fortified")}


def code(r: httpx.Response) -> tuple[int, str | None]:
    return r.status_code, r.json().get("reason")


# ---- R15 / R16 scheduling ---------------------------------------------------------------------------
def test_r15_freeze_is_scheduled_for_the_next_game_day_and_can_be_cancelled(stack: Stack, p: dict[str, Player]) -> None:
    give(stack, p["P"].id, "freeze", "freeze")
    before = hand(p["P"])
    assert code(play(p["P"], "freeze", territory_id=Y)) == (409, "not_owner")          # Q's territory
    assert code(play(p["P"], "freeze", territory_id=NOWHERE)) == (409, "invalid_target")
    assert hand(p["P"]) == before                                                       # R13/R29: nothing changed
    r = play(p["P"], "freeze", territory_id=X)
    assert r.status_code == 200, r.text
    card = r.json()["card_id"]
    assert r.json() == {"card_id": card, "type": "freeze", "state": "reserved", "effect": {"active_on": "2026-10-06"}}
    assert {"id": card, "type": "freeze", "state": "reserved"} in hand(p["P"])         # R12: reserved, still in hand
    assert code(play(p["P"], "freeze", territory_id=X)) == (409, "already_scheduled")
    # cancel before it activates: the card is ready again; then schedule it once more
    r = p["P"].http.delete(f"/api/v1/cards/{card}/schedule", headers=p["P"].auth)
    assert r.status_code == 200 and r.json() == {"id": card, "type": "freeze", "state": "ready"}, r.text
    assert {"id": card, "type": "freeze", "state": "ready"} in hand(p["P"])
    r = p["P"].http.delete(f"/api/v1/cards/{card}/schedule", headers=p["P"].auth)       # not scheduled any more
    assert code(r) == (409, "conflict")
    r = play(p["P"], "freeze", territory_id=X)
    assert r.status_code == 200, r.text
    frozen_card = r.json()["card_id"]
    # someone else's card id: 404, nothing changes
    r = p["Q"].http.delete(f"/api/v1/cards/{frozen_card}/schedule", headers=p["Q"].auth)
    assert code(r) == (404, "not_found")
    assert {"id": frozen_card, "type": "freeze", "state": "reserved"} in hand(p["P"])


def test_r16_blockade_scheduling_refusals(stack: Stack, p: dict[str, Player]) -> None:
    give(stack, p["Q"].id, "blockade", "blockade")
    before = hand(p["Q"])
    assert code(play(p["Q"], "blockade", rival_id=p["Q"].id)) == (409, "invalid_target")     # self-blockade
    assert code(play(p["Q"], "blockade", rival_id="f" * 32)) == (409, "invalid_target")      # unknown rival
    assert hand(p["Q"]) == before
    r = play(p["Q"], "blockade", rival_id=p["R"].id)
    assert r.status_code == 200 and r.json()["effect"] == {"active_on": "2026-10-06"}, r.text
    assert code(play(p["Q"], "blockade", rival_id=p["R"].id)) == (409, "already_scheduled")


LAPSING: dict[str, str] = {}


def test_r16_blockade_against_a_rival_disqualified_before_it_activates(stack: Stack, org: Player,
                                                                       p: dict[str, Player]) -> None:
    give(stack, p["S"].id, "blockade")
    r = play(p["S"], "blockade", rival_id=p["D"].id)
    assert r.status_code == 200 and r.json()["state"] == "reserved", r.text
    LAPSING["blockade"] = r.json()["card_id"]
    assert org.post(f"/admin/players/{p['D'].id}/disqualify", {"reason": "test"}).status_code == 200
    # the lapse itself is checked at Tuesday's day start, below


def test_r15_r16_active_freeze_and_blockade_at_claim_time(http: httpx.Client, org: Player,
                                                          p: dict[str, Player]) -> None:
    move_clock(org, TUE)
    # R16: S's Blockade against the disqualified D lapsed at the day start: the card is back, ready
    assert {"id": LAPSING["blockade"], "type": "blockade", "state": "ready"} in hand(p["S"])
    assert code(claim(p["Q"], X, TUE)) == (409, "frozen")           # P's Freeze: no other player may take X
    assert code(claim(p["R"], Y, TUE)) == (409, "blockaded")        # Q's Blockade against R
    assert p["R"].get("/me").json()["claims_left_today"] == 1       # refusals spend nothing
    r = claim(p["R"], U, TUE)                                       # a third player's land is fine
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text
    # both cards were consumed at the day start
    assert not [c for c in hand(p["P"]) if c["state"] == "reserved"]
    assert not [c for c in hand(p["Q"]) if c["state"] == "reserved"]
    assert code(claim(p["P"], X, TUE))[0] == 201                    # the owner is never stopped by a Freeze
    assert code(claim(p["Q"], Y, TUE))[0] == 201                    # Q reinforces Y: progress 2


# ---- R18 Trade ---------------------------------------------------------------------------------------
def test_r18_trade_refusals(stack: Stack, p: dict[str, Player]) -> None:
    give(stack, p["P"].id, "trade")
    give(stack, p["T"].id, remove=("trade",) * len(ready(p["T"], "trade")))

    def propose(who: str, offer: str, want: str) -> httpx.Response:
        return p[who].post("/trades", {"offer_territory_id": offer, "want_territory_id": want})

    assert code(propose("T", X, Y)) == (409, "card_not_in_hand")    # T holds no Trade card
    assert code(propose("P", Y, X)) == (409, "not_owner")           # offering Q's territory
    assert code(propose("P", X, X)) == (409, "invalid_target")      # self-trade
    assert code(propose("P", X, ELIZABETH)) == (409, "invalid_target")  # open land has no partner
    assert code(propose("P", X, NOWHERE)) == (409, "invalid_target")
    give(stack, p["Q"].id, remove=("trade",) * len(ready(p["Q"], "trade")))
    assert code(propose("P", X, Y)) == (409, "invalid_target")      # Q holds no Trade card
    assert p["P"].get("/trades").json() == {"trades": []}
    r = p["P"].post("/trades", {"offer_territory_id": X})
    assert code(r) == (422, "invalid_input")


def test_r18_trade_partner_learns_of_the_proposal_and_accepts(stack: Stack, http: httpx.Client, org: Player,
                                                              p: dict[str, Player]) -> None:
    move_clock(org, WED)
    assert claim(p["Q"], Y, WED).json()["fortified"] is True        # Mon, Tue, Wed: Y is fortified
    give(stack, p["Q"].id, "trade")
    give(stack, p["P"].id, "freeze")
    # P freezes X for Thursday, then trades X away: the Freeze must lapse (below)
    r = play(p["P"], "freeze", territory_id=X)
    assert r.status_code == 200, r.text
    freeze = r.json()["card_id"]
    feed = Spectator.of(stack.base_url)
    feed.wait_for(lambda m: m["type"] == "snapshot")
    trades_p, trades_q = len(ready(p["P"], "trade")), len(ready(p["Q"], "trade"))
    r = p["P"].post("/trades", {"offer_territory_id": X, "want_territory_id": Y})
    assert r.status_code == 201 and r.json()["state"] == "open", r.text
    tid = r.json()["id"]
    # the partner is told: the feed names them (no territories, no cards), and GET /trades lists it
    msg = feed.wait_for(lambda m: m["type"] == "trade.proposed" and m.get("trade_id") == tid)
    assert msg["partner_id"] == p["Q"].id and msg["proposer_id"] == p["P"].id
    assert "offer_territory_id" not in msg
    listed = p["Q"].get("/trades").json()["trades"]
    assert listed == [{"id": tid, "state": "open", "proposer_id": p["P"].id, "partner_id": p["Q"].id,
                       "offer_territory_id": X, "want_territory_id": Y}]
    assert p["P"].get("/trades").json()["trades"] == listed         # both directions
    assert code(p["P"].post(f"/trades/{tid}/accept")) == (403, "forbidden")   # the proposer cannot accept
    assert code(p["R"].post(f"/trades/{tid}/accept")) == (404, "not_found")   # not R's trade
    x_before, y_before = terr(http, X), terr(http, Y)
    r = p["Q"].post(f"/trades/{tid}/accept")
    assert r.status_code == 200 and r.json() == {"id": tid, "state": "accepted"}, r.text
    # owners swap, fortification travels with each territory, one Trade card of each is consumed
    assert terr(http, X) == x_before | {"owner_id": p["Q"].id}
    assert terr(http, Y) == y_before | {"owner_id": p["P"].id} and terr(http, Y)["fortified"] is True
    assert (len(ready(p["P"], "trade")), len(ready(p["Q"], "trade"))) == (trades_p - 1, trades_q - 1)
    assert p["Q"].get("/trades").json() == {"trades": []}
    feed.wait_for(lambda m: m["type"] == "trade.accepted" and m.get("trade_id") == tid)
    # no lock, not a steal: R may claim X today (X is Q's now; not frozen for Q)
    feed.ws.close()
    assert freeze in [c["id"] for c in hand(p["P"]) if c["state"] == "reserved"]


def test_r15_freeze_lapses_after_its_territory_is_traded(stack: Stack, http: httpx.Client, org: Player,
                                                         p: dict[str, Player]) -> None:
    freeze = next(c["id"] for c in hand(p["P"]) if c["state"] == "reserved")
    move_clock(org, THU)
    assert {"id": freeze, "type": "freeze", "state": "ready"} in hand(p["P"])   # lapsed: the card returned
    returned = asyncio.run(stream_events(stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"],
                                         subjects.CARD_RETURNED))
    assert [e["reason"] for e in returned if e["card_id"] == freeze] == ["lapsed"]
    r = claim(p["R"], X, THU)                      # X is Q's and not frozen
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text


def test_r18_trade_accepted_after_one_side_lost_its_territory_is_refused_and_cancelled(
        stack: Stack, http: httpx.Client, org: Player, p: dict[str, Player]) -> None:
    assert claim(p["S"], W1, THU).status_code == 201
    assert terr(http, Z)["owner_id"] == p["R"].id
    give(stack, p["S"].id, "trade")
    give(stack, p["R"].id, "trade")
    r = p["S"].post("/trades", {"offer_territory_id": W1, "want_territory_id": Z})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    partner = p["R"]
    move_clock(org, FRI)
    r = claim(p["P"], W1, FRI)                     # S loses W1
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text
    before = (hand(p["S"]), hand(partner))
    r = partner.post(f"/trades/{tid}/accept")
    assert code(r) == (409, "trade_no_longer_valid"), r.text
    assert (hand(p["S"]), hand(partner)) == before                 # no card consumed
    assert terr(http, W1)["owner_id"] == p["P"].id
    assert p["S"].get("/trades").json() == {"trades": []} and partner.get("/trades").json() == {"trades": []}
    cancelled = asyncio.run(stream_events(stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"],
                                          subjects.TRADE_CANCELLED))
    assert [e["state"] for e in cancelled if e["trade_id"] == tid] == ["cancelled"]


def test_r18_decline_withdraw_and_a_proposal_left_without_a_card(stack: Stack, http: httpx.Client, org: Player,
                                                                 p: dict[str, Player]) -> None:
    # R holds exactly one Trade card and proposes twice; accepting one cancels the other
    give(stack, p["R"].id, remove=("trade",) * len(ready(p["R"], "trade")))
    give(stack, p["R"].id, "trade")
    give(stack, p["P"].id, "trade", "trade")
    # P stole W1 at 07:00: S's War window (5 game hours) keeps it in dispute until 12:00 (R14)
    r = p["R"].post("/trades", {"offer_territory_id": Z, "want_territory_id": W1})
    assert code(r) == (409, "territory_in_dispute")
    move_clock(org, datetime.fromisoformat("2026-10-09T12:00:01-04:00"))
    owned_r = [t for t in (X, Z, U) if terr(http, t)["owner_id"] == p["R"].id]
    assert len(owned_r) >= 2, owned_r
    t1 = p["R"].post("/trades", {"offer_territory_id": owned_r[0], "want_territory_id": W1}).json()["id"]
    t2 = p["R"].post("/trades", {"offer_territory_id": owned_r[1], "want_territory_id": W1}).json()["id"]
    # R18: the partner's counter-offer of the same swap is refused while t2 is open
    r = p["P"].post("/trades", {"offer_territory_id": W1, "want_territory_id": owned_r[1]})
    assert code(r) == (409, "conflict"), r.text
    # ... so P's own proposal (to withdraw) asks for a third player's territory
    noon = datetime.fromisoformat("2026-10-09T12:00:01-04:00")
    assert claim(p["T"], ELIZABETH, noon).status_code == 201
    give(stack, p["T"].id, "trade")                   # R18: the partner holds a Trade card
    r = p["P"].post("/trades", {"offer_territory_id": W1, "want_territory_id": ELIZABETH})
    assert r.status_code == 201, r.text
    t3 = r.json()["id"]
    assert {t["id"] for t in p["P"].get("/trades").json()["trades"]} == {t1, t2, t3}
    assert p["P"].post(f"/trades/{t3}/withdraw").json() == {"id": t3, "state": "cancelled"}
    assert code(p["R"].post(f"/trades/{t2}/decline")) == (403, "forbidden")   # only the partner declines
    assert p["P"].post(f"/trades/{t1}/accept").json() == {"id": t1, "state": "accepted"}
    # R's only Trade card is gone: t2 can no longer succeed, so it is cancelled and both are told
    assert p["R"].get("/trades").json() == {"trades": []}
    assert code(p["P"].post(f"/trades/{t2}/accept")) == (409, "trade_no_longer_valid")
    assert code(p["P"].post(f"/trades/{t2}/decline")) == (409, "trade_no_longer_valid")


def test_r15_r16_no_future_game_day_on_the_last_day(stack: Stack, org: Player, p: dict[str, Player]) -> None:
    last = datetime.fromisoformat("2026-10-24T07:00:00-04:00")
    move_clock(org, last)
    give(stack, p["P"].id, "freeze", "blockade")
    before = hand(p["P"])
    assert code(play(p["P"], "freeze", territory_id=W1)) == (409, "no_future_game_day")
    assert code(play(p["P"], "blockade", rival_id=p["Q"].id)) == (409, "no_future_game_day")
    assert hand(p["P"]) == before


def test_r12_seed_commitment_is_the_sha256_of_the_seed(stack: Stack, http: httpx.Client) -> None:
    seed = stack.env.get("TURF_SEED", "turfwar-2026")
    assert http.get("/api/v1/clock").json()["seed_commitment"] == hashlib.sha256(seed.encode()).hexdigest()
