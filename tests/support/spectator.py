"""A spectator on ``WS /api/v1/ws/scores``: collects every message in a thread; ``wait_for`` a matching one."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from websockets.sync.client import connect


class Spectator:
    def __init__(self, url: str) -> None:
        self.messages: list[dict[str, Any]] = []
        self.ws = connect(url, open_timeout=10)
        threading.Thread(target=self._run, daemon=True).start()

    @classmethod
    def of(cls, base_url: str) -> Spectator:
        return cls(base_url.replace("http", "ws", 1) + "/api/v1/ws/scores")

    def _run(self) -> None:
        try:
            for raw in self.ws:
                self.messages.append(json.loads(raw))
        except Exception:  # the socket closed: the test is over or the server dropped us
            pass

    def wait_for(self, pred: Any, timeout: float = 10.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for m in list(self.messages):
                if pred(m):
                    return m
            time.sleep(0.02)
        raise AssertionError(f"no matching message in {[m.get('type') for m in self.messages]}")
