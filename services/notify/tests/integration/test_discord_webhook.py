"""The Discord adapter against a local HTTP receiver (aiohttp) standing in for Discord's webhook: what arrives, a
429 with Retry-After waited out and retried, a 5xx retried, a refused post not retried, mentions disabled."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web

from turf_notify.adapters.discord import DiscordError, DiscordWebhook


class Receiver:
    def __init__(self, answers: list[tuple[int, dict[str, str], Any]]) -> None:
        self.answers = answers   # what to answer, in turn (then 204)
        self.got: list[tuple[float, dict[str, Any]]] = []

    async def handle(self, request: web.Request) -> web.Response:
        self.got.append((time.monotonic(), await request.json()))
        if self.answers:
            status, headers, body = self.answers.pop(0)
            return web.json_response(body, status=status, headers=headers)
        return web.Response(status=204)


@pytest.fixture
async def serve() -> AsyncIterator[Any]:
    runners: list[web.AppRunner] = []

    async def start(receiver: Receiver) -> str:
        app = web.Application()
        app.router.add_post("/hook", receiver.handle)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        runners.append(runner)
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return f"http://127.0.0.1:{port}/hook"

    yield start
    for r in runners:
        await r.cleanup()


async def test_a_429_is_waited_out_for_its_retry_after_and_the_post_sent_again(serve: Any) -> None:
    rx = Receiver([(429, {"Retry-After": "0.6"}, {"message": "You are being rate limited.", "retry_after": 0.6})])
    hook = DiscordWebhook(await serve(rx), min_interval=0)
    await hook.send("⚔️ alice stole **Hoboken** from @everyone.")
    await hook.close()
    assert [b for _, b in rx.got] == [{"content": "⚔️ alice stole **Hoboken** from @everyone.",
                                       "allowed_mentions": {"parse": []}}] * 2
    assert rx.got[1][0] - rx.got[0][0] >= 0.6


async def test_the_bodys_retry_after_serves_when_the_header_is_missing(serve: Any) -> None:
    rx = Receiver([(429, {}, {"retry_after": 0.4})])
    hook = DiscordWebhook(await serve(rx), min_interval=0)
    await hook.send("x")
    await hook.close()
    assert len(rx.got) == 2 and rx.got[1][0] - rx.got[0][0] >= 0.4


async def test_posts_keep_the_minimum_interval(serve: Any) -> None:
    rx = Receiver([])
    hook = DiscordWebhook(await serve(rx), min_interval=0.3)
    for line in ("one", "two", "three"):
        await hook.send(line)
    await hook.close()
    assert [b["content"] for _, b in rx.got] == ["one", "two", "three"]
    assert all(b[0] - a[0] >= 0.3 for a, b in zip(rx.got, rx.got[1:], strict=False))


async def test_a_refused_post_is_not_retried_and_says_so(serve: Any) -> None:
    rx = Receiver([(400, {}, {"message": "Cannot send an empty message"})])
    hook = DiscordWebhook(await serve(rx), min_interval=0)
    with pytest.raises(DiscordError, match="HTTP 400"):
        await hook.send("x")
    await hook.close()
    assert len(rx.got) == 1


async def test_discord_still_limiting_after_every_attempt_raises(serve: Any) -> None:
    rx = Receiver([(429, {"Retry-After": "0"}, {})] * 3)
    hook = DiscordWebhook(await serve(rx), min_interval=0, attempts=3)
    with pytest.raises(DiscordError, match="after 3 tries"):
        await hook.send("x")
    await hook.close()
    assert len(rx.got) == 3
