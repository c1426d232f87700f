"""A player's push endpoint is a weapon. The Web Push sender against a local push service that
redirects to an internal address, trickles its answer, or answers with an endless gzip stream: no redirect is
followed, a send ends at its deadline, at most a few kB of the answer is read and nothing is inflated; a host the
policy refuses is never posted to. And one stalled push service no longer holds the other players' pushes."""

from __future__ import annotations

import asyncio
import base64
import os
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from turf_notify.adapters import webpush as wp
from turf_notify.adapters.webpush import WebPushSender, new_private_key
from turf_notify.ports import Subscription

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _sub(endpoint: str) -> Subscription:
    pub = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(Encoding.X962,
                                                                             PublicFormat.UncompressedPoint)
    b64 = lambda b: base64.urlsafe_b64encode(b).decode().rstrip("=")  # noqa: E731
    return Subscription("v", endpoint, b64(pub), b64(os.urandom(16)))


@pytest.fixture
async def serve() -> AsyncIterator[Callable[[Handler], Awaitable[str]]]:
    runners: list[web.AppRunner] = []

    async def start(handler: Handler) -> str:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", handler)
        runner = web.AppRunner(app, shutdown_timeout=0.1)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        runners.append(runner)
        return f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"  # type: ignore[union-attr]

    yield start
    for r in runners:
        await r.cleanup()


@pytest.fixture
def sender() -> WebPushSender:
    return WebPushSender(new_private_key(), "mailto:organizer@test.turfwar", rehearsal=True)


async def test_a_redirect_is_not_followed(serve: Callable[[Handler], Awaitable[str]], sender: WebPushSender) -> None:
    internal_hits: list[str] = []

    async def internal(request: web.Request) -> web.StreamResponse:
        internal_hits.append(request.path)
        return web.Response(status=201)

    inside = await serve(internal)

    async def redirecting(request: web.Request) -> web.StreamResponse:
        await request.read()
        raise web.HTTPTemporaryRedirect(inside + "/admin")

    status = await sender.send(_sub(await serve(redirecting) + "/push/v"), {"title": "x"})
    await sender.close()
    assert status == 307 and internal_hits == []


async def test_a_trickling_push_service_is_cut_off_at_the_deadline(serve: Callable[[Handler], Awaitable[str]],
                                                                   sender: WebPushSender,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wp, "DEADLINE_S", 1.0)

    async def trickle(request: web.Request) -> web.StreamResponse:
        await request.read()
        resp = web.StreamResponse(status=201)
        await resp.prepare(request)
        for _ in range(100):   # a byte every 0.1 s: each read is quick, the whole answer takes 10 s
            await resp.write(b"x")
            await asyncio.sleep(0.1)
        return resp

    t0 = time.monotonic()
    with pytest.raises(TimeoutError):
        await sender.send(_sub(await serve(trickle) + "/push/v"), {"title": "x"})
    await sender.close()
    assert time.monotonic() - t0 < 3.0


async def test_an_endless_gzip_answer_is_neither_read_whole_nor_inflated(
        serve: Callable[[Handler], Awaitable[str]], sender: WebPushSender) -> None:
    zeros = zlib.compressobj(9, zlib.DEFLATED, 31)   # gzip framing
    chunk = zeros.compress(b"\0" * (8 << 20))        # 8 MiB of zeros in a few kB
    sent = [0]

    async def bomb(request: web.Request) -> web.StreamResponse:
        await request.read()
        resp = web.StreamResponse(status=413, headers={"Content-Encoding": "gzip"})
        await resp.prepare(request)
        with_header = zeros.flush(zlib.Z_SYNC_FLUSH) + chunk
        try:
            for _ in range(2000):   # up to 16 GiB once inflated, if anyone listened that long
                await resp.write(with_header)
                sent[0] += len(with_header)
                with_header = chunk
        except (ConnectionResetError, RuntimeError):
            pass
        return resp

    t0 = time.monotonic()
    status = await sender.send(_sub(await serve(bomb) + "/push/v"), {"title": "x"})
    await sender.close()
    assert status == 413 and time.monotonic() - t0 < 3.0


async def test_an_endpoint_the_policy_refuses_is_never_posted_to(sender: WebPushSender) -> None:
    outside = WebPushSender(new_private_key(), "mailto:organizer@test.turfwar", rehearsal=False)
    assert await outside.send(_sub("https://127.1/push"), {"title": "x"}) == wp.GONE
    assert await outside.send(_sub("http://127.0.0.1:9/push"), {"title": "x"}) == wp.GONE
    await outside.close()
    await sender.close()

