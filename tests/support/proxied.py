"""Sign-ins through a trusted reverse proxy, for the stacks that believe X-Forwarded-For from ``PROXY`` only
(``TURF_FORWARDED_ALLOW_IPS=PROXY``): a client bound to 127.0.0.2 plays the proxy and names each request's client
address, so one test speaks for many clients."""

from __future__ import annotations

import concurrent.futures
import uuid
from collections.abc import Callable, Iterator

import httpx

from tests.support.client import API
from turfwar.stack import Stack

PROXY = "127.0.0.2"


def proxy_client(stack: Stack) -> httpx.Client:
    """A client of ``stack`` whose requests come from ``PROXY`` (close it, or use it in a ``with``)."""
    return httpx.Client(base_url=stack.base_url, timeout=120, transport=httpx.HTTPTransport(local_address=PROXY))


def proxied(stack: Stack) -> Iterator[httpx.Client]:
    """A module fixture's body: ``yield from proxied(stack)``."""
    with proxy_client(stack) as c:
        yield c


def any_address() -> str:
    """A client address of 198.18.0.0/15 (benchmarking space), new at each call (almost surely)."""
    return f"198.18.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250 + 1}"


def sign_in_via(proxy: httpx.Client, client: str, email: str, password: str) -> httpx.Response:
    """POST /sessions as the proxy forwarding ``client``'s request."""
    return proxy.post(API + "/sessions", json={"email": email, "password": password},
                      headers={"X-Forwarded-For": client})


def burst(stack: Stack, n: int, request: Callable[[httpx.Client, int], httpx.Response]) -> list[httpx.Response]:
    """``request(client, i)`` from ``n`` threads at once, each with its own connection through the proxy."""
    def one(i: int) -> httpx.Response:
        with proxy_client(stack) as c:
            return request(c, i)

    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        return list(pool.map(one, range(n)))
