"""The gateway's secrets, without servers: R12.1's seed commitment is on ``GET /clock`` from the first start on
(before the season, so nobody can pick a seed after seeing who registered), and the gateway refuses to start with
the public seed or the well-known organizer password outside a manual-clock rehearsal (the password: on loopback)."""

from __future__ import annotations

import hashlib
from datetime import datetime

import pytest

from turf_common.rules import gametime
from turf_common.settings import DEFAULT_ORGANIZER_PASSWORD, PUBLIC_SEED, Settings
from turf_gateway.handlers.public import Public
from turf_gateway.main import create_app

BEFORE = datetime.fromisoformat("2026-09-20T12:00:00-04:00")


def test_r12_1_get_clock_publishes_the_seed_commitment_before_the_season() -> None:
    # only the season and the two settings matter to the clock's body
    public = Public(None, None, None, gametime.load_season(), None, "manual", "a secret seed", None)  # type: ignore
    body = public.clock_body(BEFORE)
    assert body["season_state"] == "before"
    assert body["seed_commitment"] == hashlib.sha256(b"a secret seed").hexdigest()


@pytest.mark.parametrize(("settings", "why"), [
    ({"clock": "real", "seed": PUBLIC_SEED, "organizer_password": "a secret"}, "TURF_SEED is the public default"),
    ({"clock": "accelerated:60", "seed": PUBLIC_SEED, "organizer_password": "a secret"}, "TURF_SEED"),
    ({"clock": "real", "seed": "Vq7dX2kLm9RtW4zB-8nHc3PfJ6sYg1Ee", "organizer_password": DEFAULT_ORGANIZER_PASSWORD},
     "TURF_ORGANIZER_PASSWORD is the public default"),
    ({"clock": "manual", "seed": "s", "organizer_password": DEFAULT_ORGANIZER_PASSWORD, "http_host": "0.0.0.0"},
     "TURF_ORGANIZER_PASSWORD"),
])
async def test_the_gateway_refuses_public_secrets_outside_a_manual_rehearsal(
        settings: dict[str, str], why: str) -> None:
    app = create_app(Settings(**settings))   # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match=why):
        async with app.router.lifespan_context(app):
            pass
