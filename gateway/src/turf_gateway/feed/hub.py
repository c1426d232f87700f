"""Spectator hub: one bounded queue per websocket client, so a slow client never delays the others.
A client whose queue overflows is told to resync and disconnected (it reconnects with ``since`` and is resent what
it missed, or gets a fresh snapshot). Each queued message is ``(seq, text)``: the JetStream stream sequence of the
event it comes from, so a resuming client can skip what it was already resent."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from typing import Any

import structlog

log = structlog.get_logger(__name__)

QUEUE_SIZE = 256
HISTORY = 50   # recent feed stories (steals, fortifications, wars, corrections, cards) a new spectator sees
#: K19: stories of the turn-based modes one player causes (rooms opened, joins, leaves) kept among the recent at
#: most; a newer one replaces their oldest, so one player's spam never pushes everyone else's stories out
MODE_STORIES_PER_PLAYER = 5


class Client:
    def __init__(self) -> None:
        self.queue: asyncio.Queue[tuple[int, str] | None] = asyncio.Queue(QUEUE_SIZE)
        self.dropped = False
        self.gone = False   # the spectator closed the socket


class Hub:
    def __init__(self) -> None:
        self.clients: set[Client] = set()
        # kept in this gateway's memory (a restart starts it empty): what a spectator who opens the page now
        # would have seen scroll by in the last minutes
        self.recent: deque[dict[str, Any]] = deque(maxlen=HISTORY)
        # the stream sequence of the last event this gateway's feed consumer has handled (relayed or not): a
        # client that joins now gets every feed message after it through its queue
        self.last_seq = 0

    def join(self) -> Client:
        c = Client()
        self.clients.add(c)
        return c

    def leave(self, c: Client) -> None:
        self.clients.discard(c)

    def remember(self, message: dict[str, Any]) -> None:
        """Keep a feed story for spectators who join later (sent with their snapshot, oldest first)."""
        actor = _mode_actor(message)
        if actor is not None:
            mine = [m for m in self.recent if _mode_actor(m) == actor]
            if len(mine) >= MODE_STORIES_PER_PLAYER:
                self.recent.remove(mine[0])
        self.recent.append(message)

    def broadcast(self, seq: int, message: dict[str, Any]) -> None:
        """Queue ``message`` (of stream sequence ``seq``) for every client; a full queue drops its client."""
        if not self.clients:
            return  # nobody listening: skip serialising (a score.updated carries the whole leaderboard)
        text = json.dumps(message, default=str)
        for c in list(self.clients):
            try:
                c.queue.put_nowait((seq, text))
            except asyncio.QueueFull:
                c.dropped = True
                self.clients.discard(c)
                with contextlib.suppress(asyncio.QueueEmpty):
                    c.queue.get_nowait()
                c.queue.put_nowait(None)  # wake the writer so it can close with "resync"
                log.info("ws_client_dropped")


def _mode_actor(message: dict[str, Any]) -> str | None:
    """The player a turn-based mode's story is about (``mode.*``: a joiner, a leaver, a room's opener), else None."""
    if not str(message.get("type", "")).startswith("mode."):
        return None
    who = message.get("player_id") or message.get("created_by")
    return str(who) if who else None
