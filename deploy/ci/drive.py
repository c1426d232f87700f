"""Drives a running compose deployment the way players and the organizer would, over HTTPS through Caddy, then kills
one replica of each replicated service (and, unless --skip-nats-kill, one NATS node) and checks that nothing
acknowledged was lost. With --mailbox (the CI relay's inbox, deploy/ci/images/mailsink) the player confirms the
email from the message that arrived there and resets the password through the mailed link (R30).

Run by deploy/ci/compose-e2e.sh (with the workspace venv's httpx and websockets), in four phases around a restore:
    python deploy/ci/drive.py --base https://localhost:18443 --ca caddy-root.crt --env ci.env --project turfwar-ci \
        --mailbox inbox/ --state drive.json                     # the season (writes the player's sign-in to drive.json)
    python deploy/ci/drive.py … --state drive.json --phase claim      # one more claim, after a backup was taken
    python deploy/ci/drive.py … --state drive.json --phase restored   # after the restore: that claim is gone
    python deploy/ci/drive.py … --state drive.json --phase rollover   # the next season made, opened and played
Exit 0 when every check passed; the summary names each step with its time.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import json
import re
import ssl
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
from websockets.sync.client import connect

API = "/api/v1"
HOBOKEN, HOBOKEN_ID = (40.7440, -74.0320), "3401732250"
JERSEY_CITY, JERSEY_CITY_ID = (40.7280, -74.0770), "3401736000"   # Lincoln Park, next to Hoboken
#: the next season the organizer makes through the API during the drive (R31)
NEXT_SEASON = {"id": "2027", "name": "2027", "zone": "America/New_York", "first_day": "2027-10-04",
               "last_day": "2027-10-23", "open_weekdays": [0, 1, 2, 3, 4, 5], "open_time": "06:00",
               "close_time": "22:00"}
DAY1 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")       # Monday, the season's first game day, open
DAY2 = datetime.fromisoformat("2026-10-06T07:00:00-04:00")
DAY3 = datetime.fromisoformat("2026-10-07T07:00:00-04:00")
UNION_CITY, UNION_CITY_ID = (40.765685, -74.036545), "3401774630"   # next to Hoboken
DAY4 = datetime.fromisoformat("2026-10-08T07:00:00-04:00")
SECAUCUS, SECAUCUS_ID = (40.775689, -74.072972), "3401766570"      # next to Jersey City: the claim a restore undoes
OPEN_2027 = datetime.fromisoformat("2027-10-04T07:00:00-04:00")   # the next season's first game day, open
REPLICATED = ("geo-verify", "claims", "cards", "scoring", "notify", "modes", "gateway")


class Failed(Exception):
    pass


def check(cond: bool, what: str) -> None:
    if not cond:
        raise Failed(what)


def until(fetch: Callable[[], Any], pred: Callable[[Any], bool], timeout: float, what: str) -> Any:
    """``fetch()`` until ``pred`` holds (transport errors count as not yet); Failed after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = fetch()
            if pred(last):
                return last
        except (httpx.HTTPError, OSError) as e:
            last = e
        time.sleep(0.5)
    raise Failed(f"{what} (last: {str(last)[:300]})")


class Spectator:
    """``WS /api/v1/ws/scores``: every message, collected by a thread."""

    def __init__(self, url: str, ctx: ssl.SSLContext) -> None:
        self.messages: list[dict[str, Any]] = []
        self.ws = connect(url, ssl=ctx, open_timeout=15)
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        try:
            for raw in self.ws:
                self.messages.append(json.loads(raw))
        except Exception:   # closed: the drive is over or the gateway went away
            pass

    def wait_for(self, pred: Callable[[dict[str, Any]], bool], timeout: float, what: str) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for m in list(self.messages):
                if pred(m):
                    return m
            time.sleep(0.05)
        raise Failed(f"{what}: not on the spectator socket (got {[m.get('type') for m in self.messages]})")


class Mailbox:
    """The CI relay's inbox: each message it took, as ``<n>.eml`` (deploy/ci/images/mailsink/sink.py)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def to(self, address: str) -> list[EmailMessage]:
        files = sorted(self.folder.glob("*.eml"), key=lambda p: int(p.stem))
        msgs = [email.message_from_bytes(p.read_bytes(), policy=email.policy.default) for p in files]
        return [m for m in msgs if isinstance(m, EmailMessage) and m["To"] == address]

    def wait(self, address: str, subject: str, timeout: float) -> EmailMessage:
        # notify sends within a second of the request; a relay it could not reach is tried again after 1 minute
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = [m for m in self.to(address) if subject in str(m["Subject"])]
            if found:
                return found[-1]
            time.sleep(0.5)
        raise Failed(f"no mail '{subject}' to {address} in {timeout:.0f}s (the relay got "
                     f"{len(list(self.folder.glob('*.eml')))} message(s))")


class Drive:
    def __init__(self, base: str, ctx: ssl.SSLContext, env: dict[str, str], project: str,
                 mailbox: Mailbox | None = None) -> None:
        self.base, self.ctx, self.env, self.project, self.mailbox = base, ctx, env, project, mailbox
        self.http = httpx.Client(base_url=base, verify=ctx, timeout=30)
        self.steps: list[tuple[str, bool, float, str]] = []
        self.org_token = ""
        self.player_token = self.player_id = self.email = self.password = ""

    def step(self, name: str, fn: Callable[[], str | None]) -> bool:
        start = time.monotonic()
        try:
            note = fn() or ""
            ok = True
        except (Failed, httpx.HTTPError, OSError, KeyError, ValueError) as e:
            note, ok = f"{type(e).__name__}: {e}", False
        took = time.monotonic() - start
        self.steps.append((name, ok, took, note))
        print(f"[{'PASS' if ok else 'FAIL'}] {name} ({took:.1f}s) {note}", flush=True)
        return ok

    def post(self, path: str, body: Any, token: str, key: str | None = None) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"} | ({"Idempotency-Key": key} if key else {})
        return self.http.post(API + path, json=body, headers=headers)

    def spectator(self) -> Spectator:
        return Spectator(self.base.replace("https", "wss", 1) + API + "/ws/scores", self.ctx)

    # ---- steps -------------------------------------------------------------------------------------------------
    def ready(self) -> str:
        until(lambda: self.http.get("/health"), lambda r: r.status_code == 200, 120, "GET /health through Caddy")
        clock = until(lambda: self.http.get(API + "/clock"), lambda r: r.status_code == 200, 120, "GET /clock")
        return f"clock {clock.json()['now']}"

    def players(self) -> str:
        tag = uuid.uuid4().hex[:8]
        email, password = f"{tag}@example.org", f"correct horse {tag}"
        self.email, self.password = email, password
        r = self.http.post(API + "/players", json={"name": f"Player {tag}", "email": email, "discord": f"p_{tag}",
                                                   "home_address": "1 Main St, Hoboken, NJ", "password": password})
        check(r.status_code == 201, f"register: {r.status_code} {r.text}")
        pid = r.json()["id"]
        r = self.http.post(API + "/sessions", json={"email": self.env["TURF_ORGANIZER_EMAIL"],
                                                    "password": self.env["TURF_ORGANIZER_PASSWORD"]})
        check(r.status_code == 200 and r.json()["role"] == "organizer", f"organizer sign-in: {r.status_code} {r.text}")
        self.org_token = r.json()["token"]
        r = self.post(f"/admin/players/{pid}/verify", {"reason": "compose CI"}, self.org_token)
        check(r.status_code == 200, f"verify: {r.status_code} {r.text}")
        r = self.http.post(API + "/sessions", json={"email": email, "password": password})
        check(r.status_code == 200, f"player sign-in: {r.status_code} {r.text}")
        self.player_token, self.player_id = r.json()["token"], r.json()["player_id"]
        return f"player {pid}"

    def mailed_link(self, msg: EmailMessage) -> tuple[str, str]:
        """The one link of a message: (its action, its token). It leads to TURF_PUBLIC_URL: the setting reached the
        gateway, which makes the links."""
        body = msg.get_body(("plain",))
        assert body is not None
        [link] = re.findall(r"https?://\S+", body.get_content())
        check(link.startswith(self.env["TURF_PUBLIC_URL"] + "/account?"), f"link {link}")
        query = parse_qs(urlsplit(link).query)
        page = self.http.get(link.removeprefix(self.env["TURF_PUBLIC_URL"]))
        check(page.status_code == 200 and "text/html" in page.headers["content-type"],
              f"GET {link}: {page.status_code}")
        return query["action"][0], query["token"][0]

    def confirmation_mail(self) -> str:
        assert self.mailbox is not None
        msg = self.mailbox.wait(self.email, "confirm your email", 150)
        check(msg["From"] == self.env["TURF_MAIL_FROM"], f"From {msg['From']}")   # TURF_MAIL_FROM reached notify
        action, token = self.mailed_link(msg)
        r = self.http.post(API + "/me/email/confirm", json={"token": token})
        check(action == "confirm" and r.status_code == 200 and r.json() == {"email_confirmed": True},
              f"confirm: {action} {r.status_code} {r.text}")
        me = self.http.get(API + "/me", headers={"Authorization": f"Bearer {self.player_token}"})
        check(me.json()["email_confirmed"] is True, f"/me {me.text}")
        return f"'{msg['Subject']}' from {msg['From']} over SMTP (STARTTLS, AUTH); the link confirmed it"

    def password_reset(self) -> str:
        assert self.mailbox is not None
        r = self.http.post(API + "/password-resets", json={"email": self.email})
        check(r.status_code == 202, f"ask: {r.status_code} {r.text}")
        msg = self.mailbox.wait(self.email, "choose a new password", 150)
        action, token = self.mailed_link(msg)
        new = f"a new and long one {uuid.uuid4().hex[:8]}"
        r = self.http.post(API + "/password-resets/complete", json={"token": token, "new_password": new})
        check(action == "reset" and r.status_code == 204, f"complete: {action} {r.status_code} {r.text}")
        old = self.http.post(API + "/sessions", json={"email": self.email, "password": self.password})
        check(old.status_code == 401, f"the old password still signs in: {old.status_code}")
        self.password = new
        self.sign_in()
        return "reset through the mailed link; the new password signs in, the old one is refused"

    def sign_in(self) -> str:
        r = self.http.post(API + "/sessions", json={"email": self.email, "password": self.password})
        check(r.status_code == 200, f"player sign-in: {r.status_code} {r.text}")
        self.player_token, self.player_id = r.json()["token"], r.json()["player_id"]
        r = self.http.post(API + "/sessions", json={"email": self.env["TURF_ORGANIZER_EMAIL"],
                                                    "password": self.env["TURF_ORGANIZER_PASSWORD"]})
        check(r.status_code == 200 and r.json()["role"] == "organizer", f"organizer sign-in: {r.status_code}")
        self.org_token = r.json()["token"]
        return f"player {self.player_id} and the organizer"

    def next_season(self) -> str:
        """R31: the organizer makes the next season through the API (not a file in an image); it is listed, the
        clock names it as the next, and the player joins it."""
        r = self.post("/admin/seasons", NEXT_SEASON, self.org_token)
        check(r.status_code == 201, f"POST /admin/seasons: {r.status_code} {r.text}")
        # another gateway replica lists it within its catalog's 5 s (turf_gateway.handlers.seasons.FRESH_S)
        seasons = until(lambda: self.http.get(API + "/seasons"),
                        lambda r: [s["id"] for s in r.json()["seasons"]][:1] == [NEXT_SEASON["id"]],
                        15, "GET /seasons lists the next season")
        listed = [s["id"] for s in seasons.json()["seasons"]]
        joined = self.post(f"/seasons/{NEXT_SEASON['id']}/join", None, self.player_token)
        check(joined.status_code == 200, f"join: {joined.status_code} {joined.text}")
        return f"seasons {listed}, seed commitment {r.json()['seed_commitment'][:12]}…"

    def no_next_season(self) -> str:
        """The restore took the catalog back to before the season was made (R31: a backup before the rollover)."""
        r = self.http.get(f"{API}/seasons/{NEXT_SEASON['id']}")
        check(r.status_code == 404, f"GET /seasons/{NEXT_SEASON['id']} after the restore: {r.status_code}")
        return "the season made after the backup is gone"

    def fresh_board(self, tid: str) -> str:
        """R31: the new season's board has no owner, whoever held the town in the last season."""
        r = until(lambda: self.http.get(f"{API}/territories/{tid}"), lambda r: r.status_code == 200, 60,
                  f"GET /territories/{tid}")
        clock = self.http.get(API + "/clock").json()
        check(clock["season_id"] == NEXT_SEASON["id"], f"the season in force: {clock}")
        check(r.json()["owner_id"] is None, f"{tid} on {NEXT_SEASON['id']}'s board: {r.json()}")
        return f"{clock['season_id']} in force, {tid} unowned"

    def last_season_kept(self, base: int) -> str:
        """R31: the last season's standings stay as it ended, under /seasons/{id}."""
        lb = self.http.get(f"{API}/seasons/2026/leaderboard").json()
        mine = next((s for s in lb["standings"] if s["player_id"] == self.player_id), None)
        check(mine is not None and mine["base"] == base, f"2026's leaderboard: {mine}")
        return f"2026: {mine}"

    def unowned(self, tid: str) -> str:
        r = until(lambda: self.http.get(f"{API}/territories/{tid}"), lambda r: r.status_code == 200, 60,
                  f"GET /territories/{tid}")
        check(r.json()["owner_id"] != self.player_id, f"{tid} is still the player's: {r.json()}")
        return f"{tid} owner {r.json()['owner_id']}"

    def move_clock(self, at: datetime) -> str:
        r = until(lambda: self.post("/admin/clock", {"now": at.isoformat()}, self.org_token),
                  lambda r: r.status_code == 200, 90, f"POST /admin/clock {at.isoformat()}")
        clock = self.http.get(API + "/clock").json()
        check(clock["open"] is True and clock["season_state"] == "running", f"clock after the move: {clock}")
        return f"events {r.json().get('events')}"

    def claim(self, where: tuple[float, float], tid: str, at: datetime) -> str:
        """Claims ``tid`` and sees it on a fresh spectator socket. An answer of 503 (a server mid-failover) is
        retried under the same Idempotency-Key, so the claim is made once whatever happened to the first try."""
        spectator = self.spectator()
        spectator.wait_for(lambda m: m["type"] == "snapshot", 15, "snapshot")
        key = uuid.uuid4().hex
        body = {"lat": where[0], "lon": where[1], "accuracy_m": 8.0,
                "fix_time": (at - timedelta(seconds=3)).isoformat()}
        r = until(lambda: self.post("/claims", body, self.player_token, key), lambda r: r.status_code != 503
                  and r.status_code < 500, 90, f"POST /claims {tid}")
        check(r.status_code == 201 and r.json()["territory_id"] == tid and r.json()["owner_id"] == self.player_id,
              f"claim: {r.status_code} {r.text}")
        spectator.wait_for(lambda m: m["type"] == "territory.changed" and m.get("territory_id") == tid
                           and m.get("owner_id") == self.player_id, 30, f"territory.changed {tid}")
        spectator.ws.close()
        return f"{r.json()['kind']} {tid}, seen on wss"

    def standing(self, base: int) -> str:
        def mine(lb: httpx.Response) -> dict[str, Any] | None:
            return next((s for s in lb.json()["standings"] if s["player_id"] == self.player_id), None)

        lb = until(lambda: self.http.get(API + "/leaderboard"), lambda r: r.status_code == 200
                   and (mine(r) or {}).get("base") == base, 30, f"leaderboard base {base}")
        return f"standing {mine(lb)}"

    def owners(self, tids: list[str]) -> str:
        for tid in tids:
            def get(tid: str = tid) -> httpx.Response:
                return self.http.get(f"{API}/territories/{tid}")

            r = until(get, lambda r: r.status_code == 200, 30, f"GET /territories/{tid}")
            check(r.json()["owner_id"] == self.player_id, f"{tid} owner {r.json()['owner_id']}")
        return f"{len(tids)} territories kept their owner"

    def kill(self, services: tuple[str, ...]) -> str:
        victims = [self.container(s, 1) for s in services]
        r = subprocess.run(["docker", "kill", *victims], capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, f"docker kill: {r.stderr}")
        return "killed " + ", ".join(victims)

    def container(self, service: str, number: int) -> str:
        r = subprocess.run(["docker", "ps", "--filter", f"label=com.docker.compose.project={self.project}",
                            "--filter", f"label=com.docker.compose.service={service}", "--filter",
                            f"label=com.docker.compose.container-number={number}", "--format", "{{.Names}}"],
                           capture_output=True, text=True, timeout=30)
        name = r.stdout.strip()
        check(r.returncode == 0 and bool(name), f"no running container {number} of {service}")
        return name

    def run(self, kill_nats: bool) -> bool:
        steps: list[tuple[str, Callable[[], str | None]]] = [
            ("ready: /health and /clock through Caddy (HTTPS)", self.ready),
            ("register a player, organizer signs in and verifies", self.players),
        ]
        if self.mailbox is not None:
            steps += [("R30: the confirmation mail arrived at the relay; its link confirms", self.confirmation_mail),
                      ("R30: a password reset through the mailed link", self.password_reset)]
        else:
            print("[SKIP] mail: no --mailbox", flush=True)
        steps += [
            ("manual clock to Monday 2026-10-05 07:00", lambda: self.move_clock(DAY1)),
            ("claim Hoboken, territory.changed on wss", lambda: self.claim(HOBOKEN, HOBOKEN_ID, DAY1)),
            ("leaderboard: base 1", lambda: self.standing(1)),
            ("docker kill one replica of each service (2 each; one clock stays)", lambda: self.kill(REPLICATED)),
            ("manual clock to Tuesday 2026-10-06 07:00", lambda: self.move_clock(DAY2)),
            ("claim Jersey City, territory.changed on wss", lambda: self.claim(JERSEY_CITY, JERSEY_CITY_ID, DAY2)),
            ("nothing lost: both owners", lambda: self.owners([HOBOKEN_ID, JERSEY_CITY_ID])),
            ("nothing lost: leaderboard base 2 (one cluster)", lambda: self.standing(2)),
        ]
        if kill_nats:
            steps += [
                ("docker kill one NATS node (of 3; the killed replicas stay down)", lambda: self.kill(("nats-2",))),
                ("manual clock to Wednesday 2026-10-07 07:00", lambda: self.move_clock(DAY3)),
                ("claim Union City, territory.changed on wss", lambda: self.claim(UNION_CITY, UNION_CITY_ID, DAY3)),
                ("nothing lost: three owners", lambda: self.owners([HOBOKEN_ID, JERSEY_CITY_ID, UNION_CITY_ID])),
                ("nothing lost: leaderboard base 3 (one cluster)", lambda: self.standing(3)),
            ]
        else:
            print("[SKIP] docker kill one NATS node: --skip-nats-kill", flush=True)
        return self.run_steps(steps)

    def run_steps(self, steps: list[tuple[str, Callable[[], str | None]]]) -> bool:
        for name, fn in steps:
            if not self.step(name, fn):
                break
        return len(self.steps) == len(steps) and all(ok for _, ok, _, _ in self.steps)

    def claim_after_backup(self) -> bool:
        """The change a restore must undo: Secaucus, claimed after the backup was taken."""
        return self.run_steps([
            ("sign in again (player, organizer)", self.sign_in),
            ("manual clock to Thursday 2026-10-08 07:00", lambda: self.move_clock(DAY4)),
            ("claim Secaucus (after the backup), territory.changed on wss",
             lambda: self.claim(SECAUCUS, SECAUCUS_ID, DAY4)),
            ("leaderboard: base 4", lambda: self.standing(4)),
            ("R31: the organizer makes the next season through the API; the player joins it", self.next_season),
        ])

    def after_restore(self) -> bool:
        """The restored season: the claim made after the backup is gone, the ones before it kept."""
        return self.run_steps([
            ("ready after the restore: /health and /clock", self.ready),
            ("sign in again (player, organizer)", self.sign_in),
            ("the claim after the backup is gone: Secaucus unowned", lambda: self.unowned(SECAUCUS_ID)),
            ("the claims before it are kept", lambda: self.owners([HOBOKEN_ID, JERSEY_CITY_ID, UNION_CITY_ID])),
            ("leaderboard: base 3 again", lambda: self.standing(3)),
            ("R31: the season made after the backup is gone", self.no_next_season),
        ])


    def rollover(self) -> bool:
        """R31 on the deployment: the next season made through the organizer's API while everything runs, joined,
        and played at its first opening on a fresh board; the last one kept as it ended."""
        return self.run_steps([
            ("sign in again (player, organizer)", self.sign_in),
            ("R31: the organizer makes the next season through the API; the player joins it", self.next_season),
            ("manual clock to Monday 2027-10-04 07:00, its first day", lambda: self.move_clock(OPEN_2027)),
            ("R31: a fresh board: Hoboken unowned in 2027", lambda: self.fresh_board(HOBOKEN_ID)),
            ("claim Hoboken in 2027, territory.changed on wss", lambda: self.claim(HOBOKEN, HOBOKEN_ID, OPEN_2027)),
            ("2027's leaderboard: base 1, nothing of 2026", lambda: self.standing(1)),
            ("2026's leaderboard as it ended: base 3", lambda: self.last_season_kept(3)),
        ])


def read_env(path: Path) -> dict[str, str]:
    lines = [ln for ln in path.read_text().splitlines() if ln and not ln.startswith("#") and "=" in ln]
    return dict(ln.split("=", 1) for ln in lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--base", required=True, help="https://host:port of Caddy")
    p.add_argument("--ca", required=True, type=Path, help="Caddy's internal root certificate (PEM)")
    p.add_argument("--env", required=True, type=Path, help="the deployment's .env (organizer's credentials)")
    p.add_argument("--project", required=True, help="the compose project name (to find containers to kill)")
    p.add_argument("--skip-nats-kill", action="store_true",
                   help="leave the NATS nodes alone (to tell a bus failover problem from the rest)")
    p.add_argument("--mailbox", type=Path, help="the CI relay's inbox folder: confirm and reset through real mail")
    p.add_argument("--state", type=Path, help="the player's sign-in, written by the first phase, read by the others")
    p.add_argument("--phase", choices=["season", "claim", "restored", "rollover"], default="season")
    a = p.parse_args()
    ctx = ssl.create_default_context(cafile=str(a.ca))
    d = Drive(a.base, ctx, read_env(a.env), a.project, Mailbox(a.mailbox) if a.mailbox else None)
    if a.phase != "season":
        d.email, d.password = json.loads(a.state.read_text())["player"]
    ok = {"season": lambda: d.run(kill_nats=not a.skip_nats_kill), "claim": d.claim_after_backup,
          "restored": d.after_restore, "rollover": d.rollover}[a.phase]()
    if a.state and a.phase == "season":
        a.state.write_text(json.dumps({"player": [d.email, d.password]}))
    print(f"compose drive: {sum(s[1] for s in d.steps)} passed, {sum(not s[1] for s in d.steps)} failed, "
          f"{sum(s[2] for s in d.steps):.1f}s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
