"""Access and abuse: rate limits with Retry-After, security headers, CORS, an authorization matrix."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import httpx
import pytest

from tests.support.client import API, organizer, register, verified_player
from tests.support.stackfix import running_stack
from turfwar.stack import Stack


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("sec"),
                       TURF_RATE_LIMITS="sessions_email=3/60,players_ip=6/3600,claims_player=2/60",
                       TURF_CORS_ORIGINS="https://turfwar.example") as s:
        yield s


def test_sign_in_is_rate_limited_per_account_with_retry_after(http: httpx.Client) -> None:
    _, email, pw = register(http)
    codes = [http.post(API + "/sessions", json={"email": email, "password": "wrong"}).status_code for _ in range(3)]
    assert codes == [401, 401, 401]
    r = http.post(API + "/sessions", json={"email": email, "password": pw})
    assert r.status_code == 429 and r.json()["reason"] == "rate_limited"
    assert 1 <= int(r.headers["Retry-After"]) <= 61


def test_registration_and_claims_are_rate_limited(http: httpx.Client) -> None:
    org = organizer(http)
    p = verified_player(http, org)   # registrations so far in this module: 2 of 6
    body = {"lat": 40.744, "lon": -74.032, "accuracy_m": 5, "fix_time": datetime.now().astimezone().isoformat()}
    assert [p.post("/claims", body).status_code for _ in range(2)] == [409, 409]   # game closed, but counted
    r = p.post("/claims", body)
    assert r.status_code == 429 and "Retry-After" in r.headers
    statuses = [http.post(API + "/players", json={
        "name": "N", "email": f"rl{i}@example.org", "discord": f"rl_{i}", "home_address": "1 Main St",
        "password": "long enough pw"}).status_code for i in range(6)]
    assert statuses.count(201) == 4 and statuses[-1] == 429


def test_security_headers_and_cors(http: httpx.Client) -> None:
    r = http.get(API + "/clock")
    for h in ("x-content-type-options", "x-frame-options", "content-security-policy", "referrer-policy"):
        assert h in r.headers
    ok = http.options(API + "/claims", headers={"Origin": "https://turfwar.example",
                                                "Access-Control-Request-Method": "POST"})
    assert ok.headers.get("access-control-allow-origin") == "https://turfwar.example"
    bad = http.get(API + "/clock", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in bad.headers
