"""A small HTTP client for the gateway's public contract (API.md), as a player or the organizer would use it."""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timedelta
from typing import Any

import httpx

from tests.support.stackfix import ORGANIZER

API = "/api/v1"


class Player:
    def __init__(self, http: httpx.Client, token: str, player_id: str) -> None:
        self.http, self.token, self.id = http, token, player_id

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def get(self, path: str) -> httpx.Response:
        return self.http.get(API + path, headers=self.auth)

    def post(self, path: str, json: Any = None, headers: dict[str, str] | None = None) -> httpx.Response:
        return self.http.post(API + path, json=json, headers=self.auth | (headers or {}))

    def patch(self, path: str, json: Any = None) -> httpx.Response:
        return self.http.patch(API + path, json=json, headers=self.auth)

    def put(self, path: str, json: Any = None) -> httpx.Response:
        return self.http.put(API + path, json=json, headers=self.auth)

    def delete(self, path: str) -> httpx.Response:
        return self.http.delete(API + path, headers=self.auth)

    def claim(self, lat: float, lon: float, at: datetime, accuracy_m: float = 8.0,
              key: str | None = None, check: bool = False) -> httpx.Response:
        body = {"lat": lat, "lon": lon, "accuracy_m": accuracy_m, "fix_time": (at - timedelta(seconds=3)).isoformat()}
        return self.post("/claims/check" if check else "/claims", body,
                         headers={"Idempotency-Key": key} if key else None)


def register(http: httpx.Client, name: str | None = None) -> tuple[str, str, str]:
    """Register a new player; returns (player_id, email, password)."""
    tag = uuid.uuid4().hex[:8]
    email, password = f"{tag}@example.org", "correct horse " + tag
    r = http.post(API + "/players", json={"name": name or f"Player {tag}", "email": email,
                                          "discord": f"p_{tag}", "home_address": "1 Main St, Hoboken, NJ",
                                          "password": password})
    assert r.status_code == 201, r.text
    return r.json()["id"], email, password


def sign_in(http: httpx.Client, email: str, password: str) -> Player:
    r = http.post(API + "/sessions", json={"email": email, "password": password})
    assert r.status_code == 200, r.text
    return Player(http, r.json()["token"], r.json()["player_id"])


def organizer(http: httpx.Client) -> Player:
    return sign_in(http, *ORGANIZER)


def verified_player(http: httpx.Client, org: Player, name: str | None = None) -> Player:
    pid, email, pw = register(http, name)
    r = org.post(f"/admin/players/{pid}/verify", {"reason": "test"})
    assert r.status_code == 200, r.text
    return sign_in(http, email, pw)


def move_clock(org: Player, at: datetime) -> dict[str, Any]:
    r = org.post("/admin/clock", {"now": at.isoformat()})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def until(fetch: Any, pred: Any, timeout: float = 10.0, every: float = 0.05) -> Any:
    """``fetch()`` again and again, ``every`` s apart, until ``pred`` holds of its result or ``timeout`` s pass;
    returns the last result. For read models (leaderboard, feed) that trail an acknowledged command by a few ms."""
    deadline = time.monotonic() + timeout
    while True:
        got = fetch()
        if pred(got) or time.monotonic() > deadline:
            return got
        time.sleep(every)


def leaderboard(http: httpx.Client, pred: Any = lambda lb: True, timeout: float = 10.0) -> dict[str, Any]:
    """GET /leaderboard, waiting up to ``timeout`` s until ``pred`` holds of it."""
    return until(lambda: http.get(API + "/leaderboard").json(), pred, timeout)  # type: ignore[no-any-return]


def leaderboard_ids(http: httpx.Client, want: Any = lambda ids: True, timeout: float = 10.0) -> set[str]:
    """Player ids on the public leaderboard, waiting until ``want`` holds of the set."""
    ids = until(lambda: {s["player_id"] for s in leaderboard(http, timeout=0)["standings"]}, want, timeout)
    return ids  # type: ignore[no-any-return]
