"""Notifications on the real stack: a steal tells its victim with the War deadline (R4, R14) — in the list, by Web Push
to a local push endpoint (decrypted here) and on Discord (a local receiver that answers the first post 429 with
Retry-After) —; announcements reach GET /announcements, every player's notifications, the spectator feed
and Discord; notifications are private; read marks; an event delivered twice is applied once. The tests of this
module share one manual clock and run in order."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import http_ece
import httpx
import nats
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from websockets.sync.client import connect

from tests.support.bus import consumed
from tests.support.cards import claim, give, play
from tests.support.client import Player, move_clock, until, verified_player
from tests.support.stackfix import running_stack
from turf_common.bus import server_list
from turf_common.contracts.claims import ClaimAccepted
from turfwar.stack import Stack

HOBOKEN, JERSEY_CITY, NEWARK = "3401732250", "3401736000", "3401351000"


def at(s: str) -> datetime:
    return datetime.fromisoformat(s)


class Receiver:
    """A local HTTP server standing in for Discord's webhook (``/discord``: the first post is answered 429 with
    ``Retry-After: 1``) and for a browser's push service (``/push/<name>``: 201; ``/push/gone``: 410)."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], bytes, float]] = []
        self.discord_calls = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                outer.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body,
                                       time.monotonic()))
                if self.path == "/discord":
                    outer.discord_calls += 1
                    if outer.discord_calls == 1:
                        self._answer(429, {"Retry-After": "1"}, b'{"retry_after": 1}')
                        return
                    self._answer(204)
                    return
                self._answer(410 if self.path == "/push/gone" else 201)

            def _answer(self, status: int, headers: dict[str, str] | None = None, body: bytes = b"") -> None:
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def discord(self) -> list[tuple[str, float]]:
        """What Discord took (the 204s): the posts' content, with the time each arrived."""
        out, first = [], True
        for path, _, body, t in self.requests:
            if path == "/discord":
                if first:
                    first = False
                    continue
                out.append((json.loads(body)["content"], t))
        return out

    def pushes(self, name: str) -> list[tuple[dict[str, str], bytes]]:
        return [(h, b) for p, h, b, _ in self.requests if p == f"/push/{name}"]


class Browser:
    """A browser's Push API subscription: its P-256 key pair and auth secret, to decrypt what arrives."""

    def __init__(self, endpoint: str) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.endpoint = endpoint

    def subscription(self) -> dict[str, Any]:
        pub = self.key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        b64 = lambda b: base64.urlsafe_b64encode(b).decode().rstrip("=")  # noqa: E731
        return {"endpoint": self.endpoint, "keys": {"p256dh": b64(pub), "auth": b64(self.auth)},
                "expirationTime": None}

    def decrypt(self, body: bytes) -> dict[str, Any]:
        return json.loads(http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"))


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.server.shutdown()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, receiver: Receiver) -> Iterator[Stack]:
    # steals group for 1 s instead of a minute, so the test waits little
    with running_stack(tmp_path_factory.mktemp("stack"), TURF_DISCORD_WEBHOOK_URL=receiver.url + "/discord",
                       TURF_PUSH_GROUP_SECONDS="1") as s:
        yield s


@pytest.fixture(scope="module")
def p(stack: Stack, http: httpx.Client, org: Player) -> dict[str, Player]:
    return {name: verified_player(http, org, name) for name in ("V", "A", "C")}


def notes(pl: Player, after: int | None = None) -> list[dict[str, Any]]:
    r = pl.get("/me/notifications" + (f"?after={after}" if after is not None else ""))
    assert r.status_code == 200, r.text
    return r.json()["notifications"]  # type: ignore[no-any-return]


def display(http: httpx.Client, pl: Player) -> str:
    return str(http.get(f"/api/v1/players/{pl.id}").json()["display_name"])


def test_the_vapid_key_is_made_once_per_data_directory(stack: Stack, http: httpx.Client) -> None:
    key = http.get("/api/v1/push/key").json()["key"]
    assert len(base64.urlsafe_b64decode(key + "==")) == 65            # an uncompressed P-256 point
    f = Path(stack.data_dir) / "vapid-private-key"
    assert f.stat().st_mode & 0o777 == 0o600
    from turf_notify.adapters.webpush import public_key
    assert public_key(f.read_text().strip()) == key


def test_r14_a_steal_tells_the_victim_the_war_deadline_by_list_push_and_discord(
        http: httpx.Client, org: Player, p: dict[str, Player], receiver: Receiver) -> None:
    v, a = p["V"], p["A"]
    phone = Browser(receiver.url + "/push/v")
    assert v.put("/me/push", phone.subscription()).status_code == 204
    gone = Browser(receiver.url + "/push/gone")
    assert a.put("/me/push", gone.subscription()).status_code == 204
    move_clock(org, at("2026-10-05T07:00:00-04:00"))
    assert claim(v, HOBOKEN, at("2026-10-05T07:00:00-04:00")).status_code == 201
    assert claim(a, NEWARK, at("2026-10-05T07:00:00-04:00")).status_code == 201
    tuesday = at("2026-10-06T12:00:00-04:00")
    move_clock(org, tuesday)
    r = claim(a, HOBOKEN, tuesday)
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text
    got = until(lambda: [n for n in notes(v) if n["kind"] == "territory_stolen"], lambda ns: len(ns) >= 1)
    # R4/R14: the War deadline is the steal + 5 game hours (Tuesday 12:00 + 5 h = 17:00, all open time)
    assert [(n["data"], n["at"]) for n in got] == [
        ({"territory_id": HOBOKEN, "by": a.id, "war_until": "2026-10-06T17:00:00-04:00"},
         "2026-10-06T12:00:00-04:00")]
    assert got[0]["message"] == (f"{display(http, a)} stole Hoboken from you. A War card would let you take it back "
                                 "until Tue 17:00 (5 game hours).")
    assert [n for n in notes(a) if n["kind"] == "territory_stolen"] == []
    # Web Push: one push to V's phone, encrypted for it (RFC 8291), signed with the deployment's VAPID key
    # (the mornings' deals came before: cards_dealt pushes)
    def stolen() -> list[tuple[dict[str, str], dict[str, Any]]]:
        return [(h, d) for h, b in receiver.pushes("v") if "territory_stolen" in (d := phone.decrypt(b))["kinds"]]

    pushes = until(stolen, lambda ps: len(ps) >= 1)
    time.sleep(1.5)
    assert len(stolen()) == 1
    headers, payload = pushes[0]
    assert headers["content-encoding"] == "aes128gcm"
    key = http.get("/api/v1/push/key").json()["key"]
    assert headers["authorization"].startswith("vapid t=") and f"k={key}" in headers["authorization"]
    # a push due for the player takes what else is pending for them (here, maybe Tuesday's deal) along
    assert payload["kinds"].count("territory_stolen") == 1 and got[0]["id"] in payload["ids"]
    assert got[0]["message"] in payload["body"].split("\n")
    # Discord: the first post was answered 429 Retry-After: 1, and came again after it
    posts = until(receiver.discord, lambda ps: any("stole **Hoboken**" in c for c, _ in ps), timeout=20)
    line = next(c for c, _ in posts if "stole **Hoboken**" in c)
    assert line == f"⚔️ {display(http, a)} stole **Hoboken** from {display(http, v)}."
    first = next(t for path, _, _, t in receiver.requests if path == "/discord")
    assert posts[0][1] - first >= 1.0
    for c, _ in posts:   # no private data of anyone
        assert "@example.org" not in c and "Main St" not in c


def test_a_gone_push_subscription_is_dropped(org: Player, p: dict[str, Player], receiver: Receiver) -> None:
    v, a = p["V"], p["A"]
    r = claim(v, NEWARK, at("2026-10-06T12:00:00-04:00"))   # steals A's Newark: A's phone endpoint answers 410
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text
    until(lambda: receiver.pushes("gone"), lambda ps: len(ps) >= 1)
    claim(a, JERSEY_CITY, at("2026-10-06T12:00:00-04:00"))
    time.sleep(3)
    assert len(receiver.pushes("gone")) == 1   # dropped after the 410: nothing more went there


def test_rule_11_an_announcement_reaches_every_channel(http: httpx.Client, stack: Stack, org: Player,
                                                       p: dict[str, Player], receiver: Receiver) -> None:
    r = org.post("/admin/announcements", {"title": "Bridges", "body": "The GW Bridge counts as land."})
    assert r.status_code == 201, r.text
    first = r.json()
    assert set(first) == {"id", "at", "title", "body"} and first["at"] == "2026-10-06T12:00:00-04:00"
    second = org.post("/admin/announcements", {"title": "Second", "body": "Later."}).json()
    assert p["V"].post("/admin/announcements", {"title": "x", "body": "y"}).status_code == 403
    listed = http.get("/api/v1/announcements").json()["announcements"]
    assert [x["id"] for x in listed][:2] == [second["id"], first["id"]]          # newest first
    assert listed[1] == first
    for pl in p.values():
        got = until(lambda pl=pl: [n for n in notes(pl) if n["kind"] == "announcement"], lambda ns: len(ns) >= 2)
        assert [n["data"] for n in got] == [{"announcement_id": first["id"]}, {"announcement_id": second["id"]}]
    with connect(stack.base_url.replace("http", "ws") + "/api/v1/ws/scores") as ws:
        snap = json.loads(ws.recv(timeout=10))
    recent = [m for m in snap.get("recent", []) if m["type"] == "announcement.published"]
    assert [(m["announcement_id"], m["title"], m["body"]) for m in recent] == [
        (first["id"], "Bridges", "The GW Bridge counts as land."), (second["id"], "Second", "Later.")]
    posts = until(receiver.discord, lambda ps: any("**Second**" in c for c, _ in ps), timeout=20)
    assert "📣 **Bridges**\nThe GW Bridge counts as land." in [c for c, _ in posts]


def test_notifications_are_private_and_read_marks_move_forward(http: httpx.Client, p: dict[str, Player]) -> None:
    v, c = p["V"], p["C"]
    assert http.get("/api/v1/me/notifications").status_code == 401
    assert http.get("/api/v1/me/notifications").json()["reason"] == "unauthenticated"
    mine, theirs = notes(v), notes(c)
    # C was never stolen from: C's own verification (R27), deals and announcements, none of V's notifications
    assert {n["kind"] for n in theirs} == {"verified", "cards_dealt", "announcement"}
    assert {n["id"] for n in theirs}.isdisjoint({n["id"] for n in mine})
    assert "territory_stolen" in {n["kind"] for n in mine}
    top = mine[-1]["id"]
    assert v.post("/me/notifications/read", {"up_to": top}).status_code == 204
    assert v.post("/me/notifications/read", {"up_to": 0}).status_code == 204
    r = v.get("/me/notifications")
    assert r.json()["read_up_to"] == top
    assert notes(v, after=mine[0]["id"]) == mine[1:]
    bad = v.post("/me/notifications/read", {"up_to": "all"})
    assert bad.status_code == 422 and bad.json()["reason"] == "invalid_input"
    assert v.get("/me/notifications?after=-1").status_code == 422
    assert v.put("/me/push", {"endpoint": "ftp://x.example/1", "keys": {"p256dh": "a", "auth": "b"}}).status_code \
        == 422
    # a stored endpoint is a request the server makes: only the browsers' push services' hosts
    for inside in ("https://127.1/push", "https://redis/", "https://push.example/1", "https://10.0.0.5/x"):
        r = v.put("/me/push", {"endpoint": inside, "keys": {"p256dh": "a", "auth": "b"}})
        assert r.status_code == 422 and r.json()["reason"] == "invalid_input", inside


def test_an_event_delivered_twice_is_applied_once(stack: Stack, p: dict[str, Player]) -> None:
    """The stream's duplicate window drops a second publish with the same Nats-Msg-Id; a redelivery after it (or
    a lost ack) brings the same event id again under another message id: applied once all the same."""
    v = p["V"]
    t = at("2026-10-06T13:00:00-04:00")
    ev = ClaimAccepted(occurred_at=t, claim_id=uuid.uuid4().hex, player_id=p["C"].id, territory_id=JERSEY_CITY,
                       kind="steal", game_day=t.date(), progress=1, fortified=False, previous_owner_id=v.id,
                       lat=40.7, lon=-74.05, accuracy_m=5, border_distance_m=None)

    async def publish_twice() -> None:
        nc = await nats.connect(servers=server_list(stack.env["TURF_NATS_URL"]))
        try:
            js = nc.jetstream()
            for _ in range(2):
                await js.publish("claim.accepted", ev.model_dump_json().encode(), stream=stack.env["TURF_STREAM"],
                                 headers={"Nats-Msg-Id": uuid.uuid4().hex})
        finally:
            await nc.close()

    asyncio.run(publish_twice())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        mine = [n for n in notes(v) if n["kind"] == "territory_stolen" and n["data"]["territory_id"] == JERSEY_CITY
                and n["at"] == t.isoformat()]
        if mine:
            break
        time.sleep(0.2)
    consumed(stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"])   # both copies handled (a barrier)
    mine = [n for n in notes(v) if n["kind"] == "territory_stolen" and n["data"]["territory_id"] == JERSEY_CITY
            and n["at"] == t.isoformat()]
    assert len(mine) == 1, mine


def kinds(pl: Player, kind: str) -> list[dict[str, Any]]:
    return [n for n in notes(pl) if n["kind"] == kind]


def test_r14_war_tells_the_attacker_and_the_reclaim_reminder_comes_an_hour_before_the_end(
        stack: Stack, http: httpx.Client, org: Player, p: dict[str, Player], receiver: Receiver) -> None:
    v, a = p["V"], p["A"]
    give(stack, v.id, "war")
    r = play(v, "war", territory_id=HOBOKEN)   # Tuesday 12:00, within 5 game hours of A's steal
    assert r.status_code == 200, r.text
    # R14: Tuesday 12:00 + 16 game hours = Tuesday 22:00 (10 h) + Wednesday 06:00–12:00 (6 h)
    assert r.json()["effect"]["reclaim_until"] == "2026-10-07T12:00:00-04:00"
    got = until(lambda: kinds(a, "war_declared"), lambda ns: len(ns) >= 1)
    assert [n["data"] for n in got] == [
        {"territory_id": HOBOKEN, "by": v.id, "reclaim_until": "2026-10-07T12:00:00-04:00"}]
    assert kinds(v, "war_declared") == []
    posts = until(receiver.discord, lambda ps: any("played War" in c for c, _ in ps), timeout=20)
    assert f"💥 {display(http, v)} played War: **Hoboken** goes back to them; {display(http, a)} has 16 game hours " \
           "to reclaim it." in [c for c, _ in posts]
    # the reminder is due one game hour before the end (Wednesday 11:00), on the game clock
    move_clock(org, at("2026-10-07T10:59:00-04:00"))
    time.sleep(2.5)   # the timers run every second: nothing is due yet
    assert kinds(a, "reclaim_ending") == []
    move_clock(org, at("2026-10-07T11:00:00-04:00"))
    got = until(lambda: kinds(a, "reclaim_ending"), lambda ns: len(ns) >= 1)
    time.sleep(2.5)
    assert [n["data"] for n in kinds(a, "reclaim_ending")] == [
        {"territory_id": HOBOKEN, "reclaim_until": "2026-10-07T12:00:00-04:00"}]


def test_r18_a_trade_proposal_and_its_decline_tell_the_other_party_once(
        stack: Stack, http: httpx.Client, p: dict[str, Player]) -> None:
    v, c = p["V"], p["C"]
    wed = at("2026-10-07T11:00:00-04:00")
    assert claim(c, JERSEY_CITY, wed).status_code == 201   # C owns Jersey City, V owns Newark (stolen Tuesday)
    give(stack, v.id, "trade")
    give(stack, c.id, "trade")
    r = c.post("/trades", {"offer_territory_id": JERSEY_CITY, "want_territory_id": NEWARK})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    got = until(lambda: kinds(v, "trade_proposed"), lambda ns: len(ns) >= 1)
    assert [(n["data"], n["message"]) for n in got] == [(
        {"trade_id": tid, "offer_territory_id": JERSEY_CITY, "want_territory_id": NEWARK, "by": c.id},
        f"{display(http, c)} offers you Jersey City for your Newark.")]
    assert v.post(f"/trades/{tid}/decline").status_code == 200
    got = until(lambda: kinds(c, "trade_declined"), lambda ns: len(ns) >= 1)
    assert [n["data"]["trade_id"] for n in got] == [tid]
    assert kinds(c, "trade_proposed") == [] and kinds(v, "trade_declined") == []


BAYONNE = "3401703580"


def test_notify_killed_mid_stream_and_restarted_tells_once(stack: Stack, org: Player, p: dict[str, Player]) -> None:
    """The durable consumer resumes where the killed process stopped: what was published meanwhile is applied
    after the restart, once (inbox, committed before each ack)."""
    a, c = p["A"], p["C"]
    assert claim(a, BAYONNE, at("2026-10-07T11:00:00-04:00")).status_code == 201
    thu = at("2026-10-08T07:00:00-04:00")
    move_clock(org, thu)
    before = len(kinds(a, "territory_stolen"))
    stack.kill("notify")
    try:
        r = claim(c, BAYONNE, thu)
        assert r.status_code == 201 and r.json()["kind"] == "steal", r.text
        assert c.get("/me/notifications").status_code == 503   # nobody answers meanwhile: unavailable, not 500
    finally:
        stack.restart("notify")
    got = until(lambda: kinds(a, "territory_stolen"), lambda ns: len(ns) > before)
    consumed(stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"])   # and any redelivery after the restart
    got = kinds(a, "territory_stolen")
    assert [n["data"] for n in got[before:]] == [
        {"territory_id": BAYONNE, "by": c.id, "war_until": "2026-10-08T12:00:00-04:00"}]


def test_a_player_removes_their_push_subscription(p: dict[str, Player], receiver: Receiver) -> None:
    v, a = p["V"], p["A"]
    assert v.delete("/me/push").status_code == 204
    assert v.delete("/me/push").status_code == 204   # none left: still 204
    sent = len(receiver.pushes("v"))
    r = claim(a, NEWARK, at("2026-10-08T07:00:00-04:00"))   # A's Thursday claim (C has used its own)
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text
    until(lambda: kinds(v, "territory_stolen"),
          lambda ns: any(n["data"] == {"territory_id": NEWARK, "by": a.id, "war_until": "2026-10-08T12:00:00-04:00"}
                         for n in ns))
    time.sleep(2.5)
    assert len(receiver.pushes("v")) == sent
