"""The routes for the play page's card forms, on the real stack: GET /players (the verified players in join
order, for the map's colours and the Blockade form) and GET /me/trade-partners (R18: only players holding a Trade
card may be asked). Public names only (R27)."""

from __future__ import annotations

import httpx

from tests.support.cards import give
from tests.support.client import Player, register, verified_player
from turfwar.stack import Stack


def test_players_lists_the_verified_in_join_order_with_a_stable_index(http: httpx.Client, org: Player) -> None:
    first = verified_player(http, org, "Roster First")
    pending, _, _ = register(http, "Roster Pending")          # no verification: not listed, still counted
    second = verified_player(http, org, "Roster Second")
    r = http.get("/api/v1/players")
    assert r.status_code == 200, r.text
    rows = r.json()["players"]
    assert set(rows[0]) == {"id", "display_name", "join_index"}      # R27: nothing private
    by_id = {p["id"]: p for p in rows}
    assert pending not in by_id and first.id in by_id and second.id in by_id
    assert by_id[second.id]["join_index"] == by_id[first.id]["join_index"] + 2
    assert [p["join_index"] for p in rows] == sorted(p["join_index"] for p in rows)
    # the pending player verified later keeps their place between the two
    assert org.post(f"/admin/players/{pending}/verify", {"reason": "test"}).status_code == 200
    again = {p["id"]: p["join_index"] for p in http.get("/api/v1/players").json()["players"]}
    assert again[pending] == by_id[first.id]["join_index"] + 1 and again[second.id] == by_id[second.id]["join_index"]


def test_trade_partners_are_the_other_holders_of_a_trade_card(stack: Stack, http: httpx.Client,
                                                                org: Player) -> None:
    me, holder, other = (verified_player(http, org, n) for n in ("Trader Me", "Trader Holder", "Trader None"))
    give(stack, holder.id, "trade")
    give(stack, me.id, "trade")
    give(stack, other.id, "freeze")
    assert http.get("/api/v1/me/trade-partners").status_code == 401
    r = me.get("/me/trade-partners")
    assert r.status_code == 200, r.text
    partners = r.json()["partners"]
    name = http.get(f"/api/v1/players/{holder.id}").json()["display_name"]
    assert {"player_id": holder.id, "display_name": name} in partners
    ids = {p["player_id"] for p in partners}
    assert me.id not in ids and other.id not in ids                  # R18: not myself, not one without a card
    assert r.json()["in_dispute"] == []                                # R14: no steal, no War dispute
    assert org.get("/me/trade-partners").status_code == 403          # R27: the organizer never trades
