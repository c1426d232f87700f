"""R30 on the real stack with a real SMTP server (aiosmtpd in this process, ``TURF_SMTP_URL``): a player registers,
confirms the email from the message received, forgets the password and resets it from the received link, signs in;
changes the home address (pending again, towns kept); the organizer sees the confirmation and the mail sent. Bad
input changes nothing and never tells whether an address is registered. The tests of this module share one stack
and run in order."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from email.message import EmailMessage
from urllib.parse import parse_qs, urlsplit

import httpx
import psycopg
import pytest
import redis

from tests.support.cards import claim, point
from tests.support.client import API, Player, move_clock, register, sign_in, until
from tests.support.smtp import Inbox, smtp_server, text_of
from tests.support.stackfix import running_stack
from turfwar.stack import Stack

HOBOKEN, JERSEY_CITY = "3401732250", "3401736000"
MONDAY = datetime.fromisoformat("2026-10-05T09:00:00-04:00")
CLOSE = datetime.fromisoformat("2026-10-24T22:00:00-04:00")   # after the season's last opening hour
RESULTS = "Turf War: the final results"
NEW_PASSWORD = "violet lantern over the river"
PUSH_ENDPOINT = "https://fcm.googleapis.com/fcm/send/wes-r30"


@pytest.fixture(scope="module")
def inbox() -> Iterator[Inbox]:
    with smtp_server() as box:
        yield box


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, inbox: Inbox) -> Iterator[Stack]:
    # the default limits (the reset flood is the point), a loose registration limit for the module's few players
    with running_stack(tmp_path_factory.mktemp("stack"), TURF_SMTP_URL=inbox.url,
                       TURF_MAIL_FROM="Turf War <league@example.org>", TURF_MAIL_INTERVAL_S="0",
                       TURF_RATE_LIMITS="default") as s:
        yield s


def mail_to(inbox: Inbox, address: str, count: int = 1) -> list[EmailMessage]:
    got = until(lambda: inbox.to(address), lambda ms: len(ms) >= count, timeout=20)
    assert len(got) >= count, f"no mail to {address}: {[m['To'] for m in inbox.messages]}"
    return got  # type: ignore[no-any-return]


def token_in(msg: EmailMessage) -> str:
    [link] = re.findall(r"https?://\S+", text_of(msg))
    return parse_qs(urlsplit(link).query)["token"][0]


@pytest.fixture(scope="module")
def ada(stack: Stack, http: httpx.Client) -> dict[str, str]:
    pid, email, password = register(http, "Ada")
    return {"id": pid, "email": email, "password": password}


def test_r30_a_player_confirms_the_email_from_the_message_received(
        http: httpx.Client, inbox: Inbox, org: Player, ada: dict[str, str]) -> None:
    [msg] = mail_to(inbox, ada["email"])
    assert msg["From"] == "Turf War <league@example.org>"
    assert msg["Subject"] == "Turf War: confirm your email address"
    me = sign_in(http, ada["email"], ada["password"])
    assert me.get("/me").json()["email_confirmed"] is False
    r = http.post(API + "/me/email/confirm", json={"token": token_in(msg)})
    assert (r.status_code, r.json()) == (200, {"email_confirmed": True})
    assert me.get("/me").json()["email_confirmed"] is True
    listed = {p["id"]: p for p in org.get("/admin/players").json()["players"]}
    assert listed[ada["id"]]["email_confirmed"] is True
    again = http.post(API + "/me/email/confirm", json={"token": token_in(msg)})
    assert (again.status_code, again.json()["reason"]) == (410, "token_expired")


def test_r30_a_forgotten_password_is_reset_from_the_received_link_and_every_session_ends(
        http: httpx.Client, inbox: Inbox, ada: dict[str, str]) -> None:
    old_session = sign_in(http, ada["email"], ada["password"])
    asked = http.post(API + "/password-resets", json={"email": ada["email"].upper()})
    nobody = http.post(API + "/password-resets", json={"email": "nobody-here@example.org"})
    assert asked.status_code == nobody.status_code == 202 and asked.json() == nobody.json()
    [msg] = mail_to(inbox, ada["email"], 2)[1:]
    assert msg["Subject"] == "Turf War: choose a new password"
    token = token_in(msg)
    weak = http.post(API + "/password-resets/complete", json={"token": token, "new_password": "password1"})
    assert (weak.status_code, weak.json()["reason"]) == (422, "weak_password")
    done = http.post(API + "/password-resets/complete", json={"token": token, "new_password": NEW_PASSWORD})
    assert done.status_code == 204, done.text
    assert old_session.get("/me").status_code == 401
    assert http.post(API + "/sessions", json={"email": ada["email"], "password": ada["password"]}).status_code == 401
    assert sign_in(http, ada["email"], NEW_PASSWORD).get("/me").status_code == 200
    used = http.post(API + "/password-resets/complete", json={"token": token, "new_password": "another long one!"})
    assert (used.status_code, used.json()["reason"]) == (410, "token_expired")
    forged = http.post(API + "/me/email/confirm", json={"token": "forged" * 8})
    assert (forged.status_code, forged.json()["reason"]) == (410, "token_expired")
    assert inbox.to("nobody-here@example.org") == []


def test_r30_a_reset_flood_is_refused_alike_for_a_registered_and_an_unknown_address(
        http: httpx.Client, ada: dict[str, str]) -> None:
    def flood(email: str) -> list[int]:
        return [http.post(API + "/password-resets", json={"email": email}).status_code for _ in range(4)]

    assert flood("flood-nobody@example.org") == [202, 202, 202, 429]
    assert flood(ada["email"]) == [202, 202, 429, 429]   # one was asked in the test above: the limit is 3 an hour
    r = http.post(API + "/password-resets", json={"email": ada["email"]})
    assert r.json()["reason"] == "rate_limited" and "retry-after" in r.headers


def test_r30_r27_a_new_home_address_makes_the_player_pending_and_keeps_the_towns(
        http: httpx.Client, org: Player, ada: dict[str, str]) -> None:
    assert org.post(f"/admin/players/{ada['id']}/verify", {"reason": "test"}).status_code == 200
    me = sign_in(http, ada["email"], NEW_PASSWORD)
    move_clock(org, MONDAY)
    assert claim(me, HOBOKEN, MONDAY).status_code == 201
    r = me.http.patch(API + "/me", json={"home_address": "7 River St, Hoboken, NJ", "name": "Ada L."},
                      headers=me.auth)
    assert r.status_code == 200, r.text
    assert (r.json()["status"], r.json()["home_address"], r.json()["name"]) == (
        "pending", "7 River St, Hoboken, NJ", "Ada L.")
    assert http.get(API + f"/territories/{HOBOKEN}").json()["owner_id"] == ada["id"]   # R30: towns kept
    refused = me.post("/claims/check", {"lat": 40.744, "lon": -74.0324, "accuracy_m": 8,
                                        "fix_time": MONDAY.isoformat()})
    assert refused.json()["allowed"] is False and refused.json()["reason"] == "not_eligible"


def test_r30_the_organizer_page_lists_the_mail_sent(org: Player, ada: dict[str, str]) -> None:
    mail = until(lambda: org.get("/admin/mail").json()["mail"],
                 lambda ms: all(m["status"] == "sent" for m in ms if m["to"] == ada["email"]))
    mine = [(m["kind"], m["status"], m["links"]) for m in mail if m["to"] == ada["email"]]
    # one confirmation, the reset asked and the two the flood let through, the verification (R27); SMTP mail keeps
    # no links
    assert sorted(mine) == [("email_confirmation", "sent", [])] + [("password_reset", "sent", [])] * 3 + [
        ("verified", "sent", [])]


def test_r30_an_announcement_reaches_every_verified_players_mailbox_once(
        http: httpx.Client, inbox: Inbox, org: Player, ada: dict[str, str]) -> None:
    players = []
    for name in ("Bo", "Cy"):
        pid, email, password = register(http, name)
        assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
        players.append((email, sign_in(http, email, password)))
    (bo, bo_session), (cy, cy_session) = players
    assert bo_session.get("/me").json()["announcements_by_mail"] is False   # R30: optional mail is off at first
    r = cy_session.http.patch(API + "/me", json={"announcements_by_mail": True}, headers=cy_session.auth)
    assert r.status_code == 200 and r.json()["announcements_by_mail"] is True
    rule = {"title": "Bridges count as land", "body": "From Tuesday the GWB joins Fort Lee and Manhattan."}
    for _ in range(2):   # a repeated Idempotency-Key: one announcement, one message each
        made = org.post("/admin/announcements", rule, headers={"Idempotency-Key": "bridges-1"})
        assert made.status_code == 201, made.text
    news = org.post("/admin/announcements", {"title": "Pizza night", "body": "Friday, Hoboken.", "rule_change": False})
    assert news.status_code == 201
    titled = lambda to, title: [m for m in inbox.to(to) if m["Subject"] == title]  # noqa: E731
    until(lambda: titled(cy, "Pizza night"), lambda ms: len(ms) == 1, timeout=20)
    until(lambda: titled(bo, "Bridges count as land"), lambda ms: len(ms) == 1, timeout=20)
    assert [len(titled(cy, t)) for t in ("Bridges count as land", "Pizza night")] == [1, 1]
    assert [len(titled(bo, t)) for t in ("Bridges count as land", "Pizza night")] == [1, 0]   # optional: not on
    assert titled(ada["email"], "Bridges count as land") == []   # pending since the address change (R27)
    assert "GWB joins Fort Lee" in text_of(titled(cy, "Bridges count as land")[0])


def test_r30_a_player_downloads_their_data_then_withdraws_and_leaves_nothing_personal_behind(
        stack: Stack, http: httpx.Client, org: Player) -> None:
    pid, email, password = register(http, "Wes")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    wes = sign_in(http, email, password)
    assert claim(wes, JERSEY_CITY, MONDAY).status_code == 201
    pushed = wes.http.put(API + "/me/push", json={"endpoint": PUSH_ENDPOINT, "keys": {"p256dh": "BKey", "auth": "s"}},
                          headers=wes.auth)
    assert pushed.status_code == 204, pushed.text
    until(lambda: http.get(API + "/leaderboard").json()["standings"],
          lambda st: any(s["player_id"] == pid and s["total"] > 0 for s in st))
    data = until(lambda: wes.get("/me/export").json(), lambda d: len(d["history"]) >= 1)
    assert (data["profile"]["id"], data["profile"]["email"], data["profile"]["home_address"]) == (
        pid, email, "1 Main St, Hoboken, NJ")
    assert [(h["kind"], h["territory_id"]) for h in data["history"]] == [("take", JERSEY_CITY)]
    assert isinstance(data["notifications"], list) and isinstance(data["cards"], list)
    # the location fixes kept of them (geo-verify's trail: the claim's fix) and where their pushes go, no keys
    [kept] = [f for f in data["location_fixes"] if f["source"] == "trail"]
    assert (kept["lat"], kept["lon"]) == pytest.approx(point(JERSEY_CITY)[:2])
    assert data["push_subscriptions"] == [{"endpoint": PUSH_ENDPOINT}]

    with psycopg.connect(stack.env["TURF_DATABASE_URL"]) as conn:   # what the withdrawal must erase is there
        assert conn.execute("SELECT count(*) FROM notify.mails WHERE to_addr = %s", (email,)).fetchone() != (0,)
    assert _trail_length(stack, pid) > 0   # geo-verify's trail of their fixes (R7.1)
    wrong = wes.http.request("DELETE", API + "/me", json={"password": "not my password"}, headers=wes.auth)
    assert (wrong.status_code, wrong.json()["reason"]) == (401, "unauthenticated")
    assert wes.get("/me").status_code == 200   # nothing changed
    gone = wes.http.request("DELETE", API + "/me", json={"password": password}, headers=wes.auth)
    assert gone.status_code == 204, gone.text
    # as a disqualification (R28): the town is free and the standings no longer hold the player
    assert http.get(API + f"/territories/{JERSEY_CITY}").json()["owner_id"] is None
    assert pid not in {s["player_id"] for s in http.get(API + "/leaderboard").json()["standings"]}
    assert wes.get("/me").status_code == 401
    assert http.post(API + "/sessions", json={"email": email, "password": password}).status_code == 401
    assert http.get(API + f"/players/{pid}").json()["display_name"] == "a withdrawn player"
    # personal data gone from every schema; the claim log keeps the move
    with psycopg.connect(stack.env["TURF_DATABASE_URL"]) as conn:
        row = conn.execute("SELECT email, discord, home_address, home_lat FROM gateway.players WHERE id = %s",
                           (pid,)).fetchone()
        assert row is not None and email not in row[0] and row[1] == "a withdrawn player" and row[2:] == ("", None)
        assert conn.execute("SELECT count(*) FROM claims.fixes WHERE player_id = %s", (pid,)).fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM notify.notifications WHERE player_id = %s",
                            (pid,)).fetchone() == (0,)
        named = conn.execute("SELECT display_name FROM notify.players WHERE player_id = %s", (pid,)).fetchone()
        assert named in (None, (None,))
        assert conn.execute("SELECT count(*) FROM notify.mails WHERE to_addr = %s", (email,)).fetchone() == (0,)
        # the claim log keeps the move (its town and times), not where it was made from
        assert conn.execute("SELECT territory_id, lat, lon, accuracy_m, fix_time IS NOT NULL FROM claims.claims "
                            "WHERE player_id = %s", (pid,)).fetchall() == [(JERSEY_CITY, None, None, None, True)]
    assert _trail_length(stack, pid) == 0


def test_r30_the_final_results_reach_each_verified_players_mailbox_once_unless_they_opted_out(
        http: httpx.Client, inbox: Inbox, org: Player, ada: dict[str, str]) -> None:
    """At the close (the clock moved past the last opening hour) Cy (verified) gets one message with their place,
    points and the podium (Cy turned optional mail on in an earlier test); Bo never did; Ada is pending since her
    address change."""
    listed = {p["name"]: p for p in org.get("/admin/players").json()["players"]}
    emails = {name: p["email"] for name, p in listed.items()}
    move_clock(org, CLOSE)
    standings = until(lambda: http.get(API + "/results").json(), lambda r: bool(r.get("standings")))["standings"]
    [msg] = until(lambda: [m for m in inbox.to(emails["Cy"]) if m["Subject"] == RESULTS], lambda ms: len(ms) == 1,
                  timeout=30)
    text = text_of(msg).replace("\r\n", "\n")
    [cy] = [s for s in standings if s["player_id"] == listed["Cy"]["id"]]
    assert f"You finished {cy['place']}" in text and f"with {cy['total']} points" in text
    assert f"The podium:\n1. {standings[0]['display_name']} — {standings[0]['total']} points" in text
    assert [m for m in inbox.to(emails["Bo"]) if m["Subject"] == RESULTS] == []   # optional mail, never turned on
    assert [m for m in inbox.to(ada["email"]) if m["Subject"] == RESULTS] == []   # pending (R27)
    mailed = [m for m in org.get("/admin/mail").json()["mail"] if m["kind"] == "final_results"]
    assert [m["to"] for m in mailed].count(emails["Cy"]) == 1   # once, however often the results were published


def _trail_length(stack: Stack, player_id: str) -> int:
    """The fixes geo-verify keeps of the player in Redis (turf_geo.adapters.trail: ``<prefix>trail:<id>``)."""
    r = redis.Redis.from_url(stack.env["TURF_REDIS_URL"])
    try:
        return sum(int(r.llen(k)) for k in r.scan_iter(match=f"*trail:{player_id}"))
    finally:
        r.close()
