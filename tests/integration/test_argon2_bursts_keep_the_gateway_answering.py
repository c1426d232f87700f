"""argon2 at its real cost under a burst of sign-ins, on the real stack: the hashing runs off the gateway's event
loop (GET /clock keeps answering), and its queue is bounded (503 with Retry-After at once, the organizer in within
seconds). Both bound a latency, so the module runs alone on the machine (``serial``); the rest of the sign-in and
session cases (tests/integration/test_signin_limits.py, test_sessions_and_edges.py) run beside other modules.

The stack believes X-Forwarded-For from 127.0.0.2 only: a client bound there plays a reverse proxy and names each
request's client address."""

from __future__ import annotations

import concurrent.futures
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.client import API, register
from tests.support.proxied import PROXY, any_address, burst, proxied, proxy_client, sign_in_via
from tests.support.stackfix import ORGANIZER, running_stack
from turfwar.stack import Stack

pytestmark = [pytest.mark.slow, pytest.mark.serial]   # latencies during argon2 bursts are bounded: alone, and early

BURST = 12   # sign-ins at once off the loop: within the queue's 14 places (2 hashing, 12 waiting), none refused


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("argon2"), TURF_PASSWORD_HASH="default",
                       TURF_FORWARDED_ALLOW_IPS=PROXY) as s:
        yield s


@pytest.fixture(scope="module")
def proxy(stack: Stack) -> Iterator[httpx.Client]:
    yield from proxied(stack)





def test_argon2_runs_off_the_event_loop(stack: Stack, http: httpx.Client) -> None:
    """A burst of 12 sign-ins (argon2 verification each, ~0.3 s of CPU) takes seconds, and GET /clock keeps
    answering within a second meanwhile. Before, every verification ran on the event loop: /clock waited for the
    whole burst."""
    _, email, pw = register(http)

    def one(i: int) -> int:   # each from its own address (sign-ins in flight count as failures until
        # their hash says otherwise, so one address's burst at once would be throttled by sessions_email)
        with proxy_client(stack) as c:
            return sign_in_via(c, f"192.0.2.{100 + i}", email, pw).status_code

    clock_s: list[float] = []
    with concurrent.futures.ThreadPoolExecutor(BURST) as pool:
        t0 = time.perf_counter()
        signing_in = [pool.submit(one, i) for i in range(BURST)]
        time.sleep(0.2)   # the burst is in
        while not all(f.done() for f in signing_in):
            t = time.perf_counter()
            assert http.get(API + "/clock").status_code == 200
            clock_s.append(time.perf_counter() - t)
            time.sleep(0.05)
        took = time.perf_counter() - t0
    assert [f.result() for f in signing_in] == [200] * BURST
    assert took > 1.0 and len(clock_s) >= 5, (took, clock_s)
    p90 = sorted(clock_s)[int(len(clock_s) * 0.9)]
    print(f"burst of {BURST} sign-ins: {took:.1f} s; GET /clock meanwhile: {len(clock_s)} requests, p90 {p90:.3f} s, "
          f"max {max(clock_s):.3f} s")
    # bounded, not "fast": the 2-core CI machine also runs the services and other tests
    assert p90 < 1.0 and max(clock_s) < max(1.0, took / 4), f"GET /clock p90 {p90:.2f} s, max {max(clock_s):.2f} s " \
                                                            f"during a {took:.1f} s burst"


def test_a_full_hashing_queue_answers_503_and_the_organizer_gets_in_within_seconds(
        stack: Stack, proxy: httpx.Client) -> None:
    """40 sign-ins at once (unknown accounts, each from its own address; the dummy hash costs a real one): the
    2 hashing threads and 12 waiting take some, the others are answered 503 ``unavailable`` with Retry-After at
    once; the organizer, signing in meanwhile (retrying as told), is in within seconds. Before: an unbounded
    queue, and the organizer's right password took 20.9 s."""
    results: dict[str, Any] = {}

    def organizer_signs_in() -> None:
        time.sleep(0.3)   # the burst is in
        t0, tries = time.perf_counter(), 0
        while True:
            tries += 1
            r = sign_in_via(proxy, "198.51.100.200", *ORGANIZER)
            if r.status_code != 503:
                break
            time.sleep(int(r.headers["Retry-After"]))
        results.update(code=r.status_code, took=time.perf_counter() - t0, tries=tries)

    with concurrent.futures.ThreadPoolExecutor(1) as one:
        org = one.submit(organizer_signs_in)
        answers = burst(stack, 40, lambda c, i: sign_in_via(c, any_address(),
                                                            f"nobody{i}-{uuid.uuid4().hex[:6]}@example.org",
                                                      "wrong password"))
        org.result()
    codes = [r.status_code for r in answers]
    busy = [r for r in answers if r.status_code == 503]
    print(f"burst of 40: {codes.count(401)} hashed (401), {len(busy)} refused 503; organizer: {results}")
    # the 14 places (2 hashing + 12 waiting) are shared with the organizer, who may hold one while the burst
    # fills the rest (CI saw 13 + the organizer's first try): the burst is owed at least 13
    assert set(codes) == {401, 503} and codes.count(401) >= 13, codes
    assert all(r.json()["reason"] == "unavailable" and int(r.headers["Retry-After"]) >= 1 for r in busy)
    assert results["code"] == 200 and results["took"] < 15, results
