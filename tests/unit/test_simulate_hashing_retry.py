"""The simulator's bots register and sign in as a well-behaved client: the gateway's hashing queue is fair per client
address (429 ``rate_limited`` past one address's share) and bounded (503 ``unavailable``), both with ``Retry-After``;
the bots share one address, so they wait what it says and ask again. A long wait is a real limit, answered as is."""

from __future__ import annotations

import httpx

from turfwar.simulate.api import Api

BUSY = {"reason": "rate_limited", "message": "Too many sign-ins at once from your address; try again in 1 s."}


def api_answering(*answers: tuple[int, str]) -> tuple[Api, list[int]]:
    """An :class:`Api` whose gateway gives ``answers`` (status, Retry-After) in turn, then 201."""
    seen: list[int] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(len(seen))
        if len(seen) <= len(answers):
            status, retry = answers[len(seen) - 1]
            return httpx.Response(status, json=BUSY if status == 429 else
                                  {"reason": "unavailable", "message": "Busy."}, headers={"Retry-After": retry})
        return httpx.Response(201, json={"id": "p1", "status": "verified"})

    api = Api("http://gateway.test", 2, None)
    api.client = httpx.AsyncClient(transport=httpx.MockTransport(handle), base_url="http://gateway.test/api/v1")
    return api, seen


async def test_a_bot_waits_out_429_and_503_from_the_hashing_queue_then_registers() -> None:
    api, seen = api_answering((429, "0"), (503, "0"), (429, "0"))
    r = await api.call_hashing("POST", "/players", "bot", {"password": "x"})
    assert (r.status, r.json()["id"], len(seen)) == (201, "p1", 4)
    assert api.refusals["POST /players rate_limited"] == 2 and not api.problems   # proper refusals, counted
    await api.close()


async def test_a_429_asking_a_long_wait_is_a_real_limit_answered_at_once() -> None:
    api, seen = api_answering((429, "900"))
    r = await api.call_hashing("POST", "/sessions", "bot", {"password": "x"})
    assert (r.status, r.retry_after, len(seen)) == (429, 900.0, 1)
    await api.close()
