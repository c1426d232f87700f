"""On the real stack: GET /territories/{id}/history, /players/{id}/history and /replay, read from the
gateway's feed log. One season, played in order by the fixture: takes, a steal, reinforcements up to a
fortification, a War reversal, two organizer corrections."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.support.cards import claim, give, play
from tests.support.client import Player, move_clock, until, verified_player
from turfwar.stack import Stack

HOBOKEN, JERSEY_CITY = "3401732250", "3401736000"
D1, D2, D2_WAR, D3 = (datetime.fromisoformat(s) for s in (
    "2026-10-05T07:00:00-04:00", "2026-10-06T07:00:00-04:00", "2026-10-06T08:00:00-04:00",
    "2026-10-07T07:00:00-04:00"))
D3_FIX = datetime.fromisoformat("2026-10-07T09:00:00-04:00")


def ok(r: httpx.Response, status: int = 200) -> Any:
    assert r.status_code == status, r.text
    return r.json()


@pytest.fixture(scope="module")
def season(stack: Stack, http: httpx.Client, org: Player) -> dict[str, Player]:
    v, a, w = (verified_player(http, org, n) for n in ("Vera", "Ari", "Wes"))
    move_clock(org, D1)
    assert ok(claim(v, HOBOKEN, D1), 201)["kind"] == "take"
    assert ok(claim(w, JERSEY_CITY, D1), 201)["kind"] == "take"
    move_clock(org, D2)
    assert ok(claim(v, HOBOKEN, D2), 201)["kind"] == "reinforce"
    assert ok(claim(a, JERSEY_CITY, D2), 201)["kind"] == "steal"
    give(stack, w.id, "war")
    move_clock(org, D2_WAR)
    assert ok(play(w, "war", territory_id=JERSEY_CITY))["state"] == "consumed"   # R14: back to Wes
    move_clock(org, D3)
    assert ok(claim(v, HOBOKEN, D3), 201)["fortified"] is True                   # progress 3 (R9)
    move_clock(org, D3_FIX)
    for target in (a.id, None):
        ok(org.post("/admin/corrections", {"action": "set_owner", "territory_id": HOBOKEN, "player_id": target,
                                           "reason": "test"}), 201)
    return {"v": v, "a": a, "w": w}


def at(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries with ``at`` as a datetime (the instant, whatever offset it is written with)."""
    return [e | {"at": datetime.fromisoformat(e["at"])} for e in entries]


def history(http: httpx.Client, path: str, count: int) -> list[dict[str, Any]]:
    """The history at ``path`` once the feed log holds ``count`` entries (it trails the events by milliseconds)."""
    got = until(lambda: ok(http.get("/api/v1" + path)), lambda b: len(b["history"]) >= count)
    return got["history"]   # type: ignore[no-any-return]


def test_a_towns_history_is_every_change_oldest_first(http: httpx.Client, season: dict[str, Player]) -> None:
    v, a, w = season["v"].id, season["a"].id, season["w"].id
    assert at(history(http, f"/territories/{HOBOKEN}/history", 5)) == [
        {"at": D1, "kind": "take", "player_id": v, "previous_owner_id": None, "progress": 1, "fortified": False},
        {"at": D2, "kind": "reinforce", "player_id": v, "previous_owner_id": v, "progress": 2, "fortified": False},
        {"at": D3, "kind": "reinforce", "player_id": v, "previous_owner_id": v, "progress": 3, "fortified": True},
        {"at": D3_FIX, "kind": "correction", "player_id": a, "previous_owner_id": v, "progress": 3,
         "fortified": True},
        {"at": D3_FIX, "kind": "correction", "player_id": None, "previous_owner_id": a, "progress": 0,
         "fortified": False},
    ]
    assert at(history(http, f"/territories/{JERSEY_CITY}/history", 3)) == [
        {"at": D1, "kind": "take", "player_id": w, "previous_owner_id": None, "progress": 1, "fortified": False},
        {"at": D2, "kind": "steal", "player_id": a, "previous_owner_id": w, "progress": 1, "fortified": False},
        {"at": D2_WAR, "kind": "war", "player_id": w, "previous_owner_id": a, "progress": 1, "fortified": False},
    ]
    # a town nobody touched has an empty history; no town, 404
    assert ok(http.get("/api/v1/territories/3401351000/history")) == {"history": [], "next_seq": None}
    r = http.get("/api/v1/territories/nope/history")
    assert r.status_code == 404 and r.json()["reason"] == "not_found"


def test_a_players_journal_has_its_claims_losses_cards_and_daily_totals(
        http: httpx.Client, season: dict[str, Player]) -> None:
    v, a, w = season["v"].id, season["a"].id, season["w"].id
    body = until(lambda: ok(http.get(f"/api/v1/players/{a}/history")), lambda b: len(b["history"]) >= 4)
    assert at(body["history"]) == [
        {"at": D2, "kind": "steal", "territory_id": JERSEY_CITY, "previous_owner_id": w, "progress": 1,
         "fortified": False},
        {"at": D2_WAR, "kind": "lost", "territory_id": JERSEY_CITY, "by": w, "cause": "war"},
        {"at": D3_FIX, "kind": "correction", "territory_id": HOBOKEN, "previous_owner_id": v, "progress": 3,
         "fortified": True},
        {"at": D3_FIX, "kind": "lost", "territory_id": HOBOKEN, "by": None, "cause": "correction"},
    ]
    zero = {"claims": 0, "steals": 0, "stolen": 0, "lost": 0, "fortifications": 0, "cards": 0, "trades": 0}
    assert body["days"] == [zero | {"day": "2026-10-06", "claims": 1, "steals": 1, "lost": 1},
                            zero | {"day": "2026-10-07", "lost": 1}]
    body = until(lambda: ok(http.get(f"/api/v1/players/{w}/history")), lambda b: len(b["history"]) >= 4)
    entries = at(body["history"])
    assert entries[:2] == [
        {"at": D1, "kind": "take", "territory_id": JERSEY_CITY, "previous_owner_id": None, "progress": 1,
         "fortified": False},
        {"at": D2, "kind": "lost", "territory_id": JERSEY_CITY, "by": a, "cause": "steal"}]
    # the card's play and its effect: one instant, published by two services (either may come first)
    assert sorted(entries[2:], key=lambda e: e["kind"]) == [
        {"at": D2_WAR, "kind": "card", "territory_id": None, "card_type": "war", "state": "consumed"},
        {"at": D2_WAR, "kind": "war", "territory_id": JERSEY_CITY, "previous_owner_id": a, "progress": 1,
         "fortified": False}]
    assert body["days"] == [zero | {"day": "2026-10-05", "claims": 1},
                            zero | {"day": "2026-10-06", "stolen": 1, "cards": 1}]
    body = ok(http.get(f"/api/v1/players/{v}/history"))
    assert body["days"][-1] == zero | {"day": "2026-10-07", "claims": 1, "fortifications": 1, "lost": 1}
    assert "@" not in str(body)                                          # public fields only
    r = http.get("/api/v1/players/nobody/history")
    assert r.status_code == 404 and r.json()["reason"] == "not_found"


def pages(http: httpx.Client, path: str, limit: int, key: str, after: str) -> list[list[Any]]:
    """Every page of ``path``, ``limit`` a page, following ``key`` (the next page's cursor) as ``after``."""
    out, params = [], {"limit": limit}
    while True:
        body = ok(http.get("/api/v1" + path, params=params))
        out.append(body)
        if body[key] is None:
            return out
        params = {"limit": limit, after: body[key]}


def test_histories_are_read_a_page_at_a_time_the_default_page_unchanged(
        http: httpx.Client, season: dict[str, Player]) -> None:
    """Histories were read whole, however long: now ``limit`` (at most 1000, the default) a page after
    ``after_seq``; the default page is today's answer, with ``next_seq`` null."""
    whole = history(http, f"/territories/{HOBOKEN}/history", 5)
    got = pages(http, f"/territories/{HOBOKEN}/history", 2, "next_seq", "after_seq")
    assert [len(p["history"]) for p in got] == [2, 2, 1]
    assert [e for p in got for e in p["history"]] == whole
    a = season["a"].id
    full = until(lambda: ok(http.get(f"/api/v1/players/{a}/history")), lambda b: len(b["history"]) >= 4)
    assert full["next_seq"] is None
    got = pages(http, f"/players/{a}/history", 1, "next_seq", "after_seq")
    assert [e for p in got for e in p["history"]] == full["history"]
    assert all(len(p["history"]) <= 1 for p in got)
    for path in (f"/territories/{HOBOKEN}/history", f"/players/{a}/history"):
        for query in ({"limit": 1001}, {"limit": 0}, {"after_seq": -1}, {"after_seq": "x"}):
            r = http.get("/api/v1" + path, params=query)
            assert (r.status_code, r.json()["reason"]) == (422, "invalid_input"), (path, query)


def test_the_roster_is_read_a_page_at_a_time_the_default_page_unchanged(
        http: httpx.Client, season: dict[str, Player]) -> None:
    whole = ok(http.get("/api/v1/players"))
    assert whole["next"] is None and len(whole["players"]) >= 3
    assert [p["join_index"] for p in whole["players"]] == sorted({p["join_index"] for p in whole["players"]})
    got = pages(http, "/players", 2, "next", "after")
    assert [p for page in got for p in page["players"]] == whole["players"]
    assert all(len(page["players"]) <= 2 for page in got) and len(got) >= 2
    for query in ({"limit": 1001}, {"limit": 0}, {"after": -2}):
        r = http.get("/api/v1/players", params=query)
        assert (r.status_code, r.json()["reason"]) == (422, "invalid_input"), query


def test_the_replay_pages_through_a_period_in_stream_order(http: httpx.Client, season: dict[str, Player]) -> None:
    history(http, f"/territories/{HOBOKEN}/history", 5)    # the feed log has caught up
    whole = ok(http.get("/api/v1/replay", params={"limit": 1000}))
    assert whole["next_seq"] is None
    seqs = [e["seq"] for e in whole["events"]]
    assert seqs == sorted(set(seqs))
    changes = [(e["territory_id"], e["owner_id"]) for e in whole["events"] if e["type"] == "territory.changed"]
    v, a, w = season["v"].id, season["a"].id, season["w"].id
    assert changes == [(HOBOKEN, v), (JERSEY_CITY, w), (HOBOKEN, v), (JERSEY_CITY, a), (JERSEY_CITY, w),
                       (HOBOKEN, v), (HOBOKEN, a), (HOBOKEN, None)]
    assert all(e["at"] and e["type"] for e in whole["events"])
    # paged: three at a time gives the same events
    paged: list[dict[str, Any]] = []
    after = 0
    while True:
        page = ok(http.get("/api/v1/replay", params={"limit": 3, "after_seq": after}))
        paged += page["events"]
        assert len(page["events"]) <= 3
        if page["next_seq"] is None:
            break
        after = page["next_seq"]
    assert paged == whole["events"]
    # one day only: from D2 (included) to D3 (excluded)
    day2 = ok(http.get("/api/v1/replay", params={"from": D2.isoformat(), "to": D3.isoformat()}))["events"]
    assert day2 and all(D2 <= datetime.fromisoformat(e["at"]) < D3 for e in day2)
    assert [(e["territory_id"], e["owner_id"]) for e in day2 if e["type"] == "territory.changed"] == [
        (HOBOKEN, v), (JERSEY_CITY, a), (JERSEY_CITY, w)]
    # gzip when asked for
    r = http.get("/api/v1/replay", params={"limit": 1000}, headers={"Accept-Encoding": "gzip"})
    assert r.headers["content-encoding"] == "gzip" and r.json() == whole
    assert "content-encoding" not in http.get("/api/v1/replay", headers={"Accept-Encoding": "identity"}).headers


@pytest.mark.parametrize("query", ["after_seq=-1", "after_seq=x", "limit=0", "limit=1001", "from=yesterday",
                                   "from=2026-10-06T07:00:00", "from=2026-10-07T00:00:00Z&to=2026-10-06T00:00:00Z",
                                   "from=1700000000"])
def test_bad_replay_parameters_are_422(http: httpx.Client, query: str) -> None:
    r = http.get("/api/v1/replay?" + query)
    assert r.status_code == 422 and r.json()["reason"] == "invalid_input", r.text


def test_the_board_is_cached_per_ownership_version_with_etag_and_gzip(
        http: httpx.Client, season: dict[str, Player]) -> None:
    """Cheap reads: one body per ownership version, gzip when accepted, 304 for the same ETag, and a
    claim answered by this gateway shows on the very next read (no waiting for its event)."""
    first = http.get("/api/v1/board", headers={"Accept-Encoding": "gzip"})
    assert first.status_code == 200 and first.headers["content-encoding"] == "gzip"
    etag = first.headers["etag"]
    plain = http.get("/api/v1/board", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.headers["etag"] == etag
    assert plain.json() == first.json()
    again = http.get("/api/v1/board", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.headers["etag"] == etag and again.content == b""
    newark = "3401351000"
    assert ok(claim(season["w"], newark, D3_FIX), 201)["owner_id"] == season["w"].id
    after = http.get("/api/v1/board", headers={"If-None-Match": etag})
    assert after.status_code == 200 and after.headers["etag"] != etag
    props = {f["id"]: f["properties"] for f in after.json()["features"]}
    assert props[newark]["owner_id"] == season["w"].id and props[HOBOKEN]["owner_id"] is None
