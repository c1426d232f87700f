"""Drives a running compose deployment the way players and the organizer would, over HTTPS through Caddy, then kills
one replica of each replicated service (and, unless --skip-nats-kill, one NATS node) and checks that nothing
acknowledged was lost.

Run by deploy/ci/compose-e2e.sh (with the workspace venv's httpx and websockets):
    python deploy/ci/drive.py --base https://localhost:18443 --ca caddy-root.crt --env ci.env --project turfwar-ci
Exit 0 when every check passed; the summary names each step with its time.
"""

from __future__ import annotations

import argparse
import json
import ssl
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

API = "/api/v1"
HOBOKEN, HOBOKEN_ID = (40.7440, -74.0320), "3401732250"
JERSEY_CITY, JERSEY_CITY_ID = (40.7280, -74.0770), "3401736000"   # Lincoln Park, next to Hoboken
DAY1 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")       # Monday, the season's first game day, open
DAY2 = datetime.fromisoformat("2026-10-06T07:00:00-04:00")
DAY3 = datetime.fromisoformat("2026-10-07T07:00:00-04:00")
UNION_CITY, UNION_CITY_ID = (40.765685, -74.036545), "3401774630"   # next to Hoboken
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


class Drive:
    def __init__(self, base: str, ctx: ssl.SSLContext, env: dict[str, str], project: str) -> None:
        self.base, self.ctx, self.env, self.project = base, ctx, env, project
        self.http = httpx.Client(base_url=base, verify=ctx, timeout=30)
        self.steps: list[tuple[str, bool, float, str]] = []
        self.org_token = ""
        self.player_token = self.player_id = ""

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
        for name, fn in steps:
            if not self.step(name, fn):
                break
        return len(self.steps) == len(steps) and all(ok for _, ok, _, _ in self.steps)


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
    a = p.parse_args()
    ctx = ssl.create_default_context(cafile=str(a.ca))
    d = Drive(a.base, ctx, read_env(a.env), a.project)
    ok = d.run(kill_nats=not a.skip_nats_kill)
    print(f"compose drive: {sum(s[1] for s in d.steps)} passed, {sum(not s[1] for s in d.steps)} failed, "
          f"{sum(s[2] for s in d.steps):.1f}s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
