"""Spectator hub: one bounded queue per websocket client, so a slow client never delays the others.
A client whose queue overflows is told to resync and disconnected (it reconnects and gets a fresh snapshot)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import structlog

log = structlog.get_logger(__name__)

QUEUE_SIZE = 256


class Client:
    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE_SIZE)
        self.dropped = False


class Hub:
    def __init__(self) -> None:
        self.clients: set[Client] = set()

    def join(self) -> Client:
        c = Client()
        self.clients.add(c)
        return c

    def leave(self, c: Client) -> None:
        self.clients.discard(c)

    def broadcast(self, message: dict[str, Any]) -> None:
        if not self.clients:
            return  # nobody listening: skip serialising (a score.updated carries the whole leaderboard)
        text = json.dumps(message, default=str)
        for c in list(self.clients):
            try:
                c.queue.put_nowait(text)
            except asyncio.QueueFull:
                c.dropped = True
                self.clients.discard(c)
                with contextlib.suppress(asyncio.QueueEmpty):
                    c.queue.get_nowait()
                c.queue.put_nowait(None)  # wake the writer so it can close with "resync"
                log.info("ws_client_dropped")
