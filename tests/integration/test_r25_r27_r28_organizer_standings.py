"""R25, R27, R28 (amended) through the public API on the real stack: every verified player is in the live
standings (0 while owning nothing), the organizer is not a player (403 on every move, never in the standings),
``reject`` is for pending players only, ``set_owner`` names only a verified player, and a correction retried with
one ``Idempotency-Key`` — also two at once — is applied and logged once, every kind of it."""

from __future__ import annotations

import threading
import time
import uuid
from datetime import datetime
from typing import Any

import httpx

from tests.support.client import API, Player, leaderboard, move_clock, register, until, verified_player
from tests.support.spectator import Spectator
from turfwar.stack import Stack

HOBOKEN_ID, JERSEY_CITY_ID, NEWARK_ID = "3401732250", "3401736000", "3401351000"
TOWNS = [((40.7440, -74.0320), HOBOKEN_ID), ((40.7280, -74.0770), JERSEY_CITY_ID),
         ((40.7357, -74.1724), NEWARK_ID)]
T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
ROUNDS = 5   # concurrent pairs per correction kind


def at_once(stack: Stack, who: Player, method: str, path: str, body: Any = None,
            headers: dict[str, str] | None = None, n: int = 2) -> list[httpx.Response]:
    """``n`` identical requests started together (a barrier), each on its own connection."""
    out: list[httpx.Response | None] = [None] * n
    gate = threading.Barrier(n)

    def go(i: int) -> None:
        with httpx.Client(base_url=stack.base_url, timeout=60) as c:
            gate.wait()
            out[i] = c.request(method, API + path, json=body, headers=who.auth | (headers or {}))

    threads = [threading.Thread(target=go, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert all(r is not None for r in out)
    return out  # type: ignore[return-value]


def together(stack: Stack, who: Player, posts: list[tuple[str, Any]],
             delays: list[float] | None = None) -> list[httpx.Response]:
    """The POSTs ``(path, body)`` started together (a barrier; each then waits its delay in seconds), each on its
    own connection; answers in order."""
    out: list[httpx.Response | None] = [None] * len(posts)
    gate = threading.Barrier(len(posts))

    def go(i: int) -> None:
        with httpx.Client(base_url=stack.base_url, timeout=60) as c:
            gate.wait()
            time.sleep((delays or [0.0] * len(posts))[i])
            out[i] = c.post(API + posts[i][0], json=posts[i][1], headers=who.auth)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(posts))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert all(r is not None for r in out)
    return out  # type: ignore[return-value]


def log_ids(org: Player) -> list[str]:
    return [c["id"] for c in org.get("/admin/corrections").json()["corrections"]]


def test_r27_the_organizer_is_not_a_player(http: httpx.Client, org: Player) -> None:
    move_clock(org, T0)
    (lat, lon), tid = TOWNS[0]
    r = org.claim(lat, lon, T0)
    assert (r.status_code, r.json()["reason"]) == (403, "forbidden"), r.text
    assert org.claim(lat, lon, T0, check=True).status_code == 200   # a check changes nothing: open (API.md)
    for method, path, body in [("POST", "/cards/play", {"type": "double_trouble"}),
                               ("DELETE", "/cards/c1/schedule", None),
                               ("POST", "/trades", {"offer_territory_id": tid, "want_territory_id": NEWARK_ID}),
                               ("POST", "/trades/t1/accept", None), ("POST", "/trades/t1/decline", None),
                               ("POST", "/trades/t1/withdraw", None), ("GET", "/trades", None)]:
        r = http.request(method, API + path, json=body, headers=org.auth)
        assert (r.status_code, r.json()["reason"]) == (403, "forbidden"), (path, r.text)
    assert http.get(f"{API}/territories/{tid}").json()["owner_id"] is None
    # nor can a correction make the organizer an owner (R27, R28)
    r = org.post("/admin/corrections", {"action": "set_owner", "territory_id": tid, "player_id": org.id,
                                        "reason": "x"})
    assert (r.status_code, r.json()["reason"]) == (409, "invalid_target"), r.text
    assert org.id not in {s["player_id"] for s in leaderboard(http)["standings"]}


def test_r27_reject_is_for_pending_players_only(http: httpx.Client, org: Player) -> None:
    p = verified_player(http, org)
    r = org.post(f"/admin/players/{p.id}/reject", {"reason": "changed my mind"})
    assert (r.status_code, r.json()["reason"]) == (409, "conflict"), r.text
    assert p.get("/me").json()["status"] == "verified"
    pid, _, _ = register(http)
    assert org.post(f"/admin/players/{pid}/reject", {"reason": "fake address"}).json()["status"] == "rejected"


def test_r25_a_verified_player_who_owns_nothing_is_in_the_live_standings_at_zero(http: httpx.Client, org: Player,
                                                                               stack: Stack) -> None:
    spectator = Spectator.of(stack.base_url)
    spectator.wait_for(lambda m: m["type"] == "snapshot")
    p = verified_player(http, org, "Zero")
    lb = leaderboard(http, lambda lb: any(s["player_id"] == p.id for s in lb["standings"]))
    row = next(s for s in lb["standings"] if s["player_id"] == p.id)
    assert (row["base"], row["outposts"], row["bonuses"], row["total"]) == (0, 0, 0, 0)
    assert row["display_name"] and row["rank"] == max(s["rank"] for s in lb["standings"])
    upd = spectator.wait_for(lambda m: m["type"] == "score.updated"
                             and any(c["player_id"] == p.id for c in m["changes"]))
    assert next(c for c in upd["changes"] if c["player_id"] == p.id)["total"] == 0
    # a pending player is not in the standings, nor is the organizer (R27)
    pending, _, _ = register(http)
    time.sleep(0.5)
    ids = {s["player_id"] for s in leaderboard(http)["standings"]}
    assert pending not in ids and org.id not in ids


def test_r28_set_owner_names_only_a_verified_player_and_a_repeated_key_replays_the_refusal(
        http: httpx.Client, org: Player) -> None:
    move_clock(org, T0)
    tid = HOBOKEN_ID

    def set_owner(pid: str | None, key: str | None = None) -> httpx.Response:
        return org.post("/admin/corrections", {"action": "set_owner", "territory_id": tid, "player_id": pid,
                                               "reason": "appeal"}, headers={"Idempotency-Key": key} if key else None)

    pid, _, _ = register(http)                              # pending
    gone = verified_player(http, org)
    assert org.post(f"/admin/players/{gone.id}/disqualify", {"reason": "cheat"}).status_code == 200
    before = log_ids(org)
    for target in (pid, gone.id, "nobody-at-all", org.id):
        r = set_owner(target)
        assert (r.status_code, r.json()["reason"]) == (409, "invalid_target"), (target, r.text)
    assert http.get(f"{API}/territories/{tid}").json()["owner_id"] is None
    assert log_ids(org) == before   # a refusal logs nothing

    # the first answer to a key is the answer to its repeats (R28, API.md), even once the player is verified
    key = uuid.uuid4().hex
    first = set_owner(pid, key)
    assert (first.status_code, first.json()["reason"]) == (409, "invalid_target")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "ok"}).status_code == 200
    again = set_owner(pid, key)
    assert (again.status_code, again.json()) == (409, first.json())
    ok = set_owner(pid, uuid.uuid4().hex)                  # a new request is evaluated afresh
    assert ok.status_code == 201 and ok.json()["after"]["owner_id"] == pid, ok.text
    assert set_owner(None).status_code == 201              # nobody: always allowed


def test_r28_two_identical_corrections_at_once_are_applied_and_logged_once_every_kind(
        http: httpx.Client, org: Player, stack: Stack) -> None:
    move_clock(org, T0)
    players = [verified_player(http, org) for _ in range(len(TOWNS))]
    timings: list[float] = []

    def pair(body: dict[str, Any]) -> dict[str, Any]:
        key = {"Idempotency-Key": uuid.uuid4().hex}
        t = time.monotonic()
        a, b = at_once(stack, org, "POST", "/admin/corrections", body, key)
        timings.append(time.monotonic() - t)
        assert a.status_code == b.status_code == 201, (a.text, b.text)
        assert a.json() == b.json()                          # both get the same answer
        rec = a.json()
        assert log_ids(org).count(rec["id"]) == 1            # logged once
        return rec  # type: ignore[no-any-return]

    # adjust_score: +1 per round, applied once each (R28)
    p = players[0]
    for i in range(1, ROUNDS + 1):
        rec = pair({"action": "adjust_score", "player_id": p.id, "points": 1, "reason": f"round {i}"})
        assert rec["after"] == {"adjustment": i}

    # adjust_hand: one Freeze per round, added once
    def freezes() -> int:
        return sum(1 for c in p.get("/me/hand").json()["cards"] if c["type"] == "freeze")

    start = freezes()
    for i in range(ROUNDS):
        pair({"action": "adjust_hand", "player_id": p.id, "add": ["freeze"], "reason": f"round {i}"})
    assert freezes() == start + ROUNDS

    # set_owner: Hoboken passes between two players, once per round
    for i in range(ROUNDS):
        owner = players[i % 2]
        rec = pair({"action": "set_owner", "territory_id": HOBOKEN_ID, "player_id": owner.id, "reason": f"r{i}"})
        assert rec["after"]["owner_id"] == owner.id
        assert http.get(f"{API}/territories/{HOBOKEN_ID}").json()["owner_id"] == owner.id

    # reverse_claim: each player's claim undone once (a second application would be refused as already undone)
    for who, ((lat, lon), tid) in zip(players, TOWNS[1:], strict=False):
        claim = who.claim(lat, lon, T0)
        assert claim.status_code == 201, claim.text
        rec = pair({"action": "reverse_claim", "claim_id": claim.json()["claim_id"], "reason": "teleport"})
        assert rec["after"]["owner_id"] is None
        assert http.get(f"{API}/territories/{tid}").json()["owner_id"] is None

    # disqualify (its own route, idempotent by the player's status): both answered, one log record
    q = verified_player(http, org)
    before = len(log_ids(org))
    a, b = at_once(stack, org, "POST", f"/admin/players/{q.id}/disqualify", {"reason": "cheat"})
    assert a.status_code == b.status_code == 200 and a.json() == b.json() == {"id": q.id, "status": "disqualified"}
    log = org.get("/admin/corrections").json()["corrections"]
    assert len(log) == before + 1 and [c["action"] for c in log if c["player_id"] == q.id] == ["disqualify"]

    # reject of a pending player, twice at once: both answered the same, the player rejected
    pid, email, pw = register(http)
    a, b = at_once(stack, org, "POST", f"/admin/players/{pid}/reject", {"reason": "fake"})
    assert a.status_code == b.status_code == 200 and a.json() == b.json()
    assert http.get(f"{API}/players/{pid}").json()["status"] == "rejected"
    refused = http.post(f"{API}/sessions", json={"email": email, "password": pw})   # no sign-in
    assert refused.status_code == 403 and refused.json()["reason"] == "not_eligible", refused.text

    # the scores followed the adjustments exactly once
    row = until(lambda: next((s for s in leaderboard(http)["standings"] if s["player_id"] == p.id), None),
                lambda s: s is not None and s["total"] - s["base"] - s["bonuses"] == ROUNDS)
    assert row["total"] - row["base"] - row["bonuses"] == ROUNDS
    print(f"concurrent correction pairs: {len(timings)}, max {max(timings):.3f} s, "
          f"mean {sum(timings) / len(timings):.3f} s")


def test_r28_set_owner_racing_a_disqualification_never_leaves_the_territory_to_the_disqualified(
        http: httpx.Client, org: Player, stack: Stack) -> None:
    """R28 (amended): a set_owner to X sent together with X's disqualification ends with the territory unclaimed:
    either the correction is refused (X is no longer verified) or it lands first and the disqualification frees
    it. The gateway holds X's row while claims applies the correction, so the disqualification cannot overtake it."""
    bayonne = "3401703580"
    outcomes: list[int] = []
    for i in range(2 * ROUNDS):
        x = verified_player(http, org)
        set_owner, dq = together(stack, org, [
            ("/admin/corrections", {"action": "set_owner", "territory_id": bayonne, "player_id": x.id,
                                    "reason": f"race {i}"}),
            (f"/admin/players/{x.id}/disqualify", {"reason": "r"})], delays=[0.0, 0.01 * i])   # both orders
        out = {"set": set_owner, "dq": dq}
        assert out["dq"].status_code == 200, out["dq"].text
        assert out["set"].status_code in (201, 409), out["set"].text
        if out["set"].status_code == 409:
            assert out["set"].json()["reason"] == "invalid_target"
        outcomes.append(out["set"].status_code)
        owner = until(lambda: http.get(f"{API}/territories/{bayonne}").json()["owner_id"], lambda o: o is None)
        assert owner is None, (i, out["set"].status_code)
        lb = leaderboard(http, lambda lb, x=x: x.id not in {s["player_id"] for s in lb["standings"]})
        assert x.id not in {s["player_id"] for s in lb["standings"]}
    print(f"set_owner vs disqualify: {outcomes.count(201)} applied then freed, {outcomes.count(409)} refused")
