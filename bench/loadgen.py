"""A small keep-alive HTTP/1.1 load generator on raw asyncio streams (cheap per request, so the load generator
takes little of the machine the stack runs on)."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Result:
    status: int
    latency_s: float
    body: bytes
    sent_at: float


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None

    def encode(self, host: str) -> bytes:
        data = b"" if self.body is None else json.dumps(self.body).encode()
        head = [f"{self.method} {self.path} HTTP/1.1", f"Host: {host}", "Connection: keep-alive",
                f"Content-Length: {len(data)}"]
        if self.body is not None:
            head.append("Content-Type: application/json")
        head += [f"{k}: {v}" for k, v in self.headers.items()]
        return ("\r\n".join(head) + "\r\n\r\n").encode() + data


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    status_line = await reader.readline()
    if not status_line:
        raise ConnectionError("connection closed")
    status = int(status_line.split()[1])
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        k, _, v = line.decode("latin-1").partition(":")
        if k.strip().lower() == "content-length":
            length = int(v.strip())
    body = await reader.readexactly(length) if length else b""
    return status, body


async def run(host: str, port: int, requests: list[Request], concurrency: int,
              rate_per_s: float | None = None) -> tuple[list[Result], float]:
    """Send every request (each once) over ``concurrency`` keep-alive connections; with ``rate_per_s`` the sends
    are paced (open loop). Returns the results in request order and the wall time from first send to last reply."""
    results: list[Result | None] = [None] * len(requests)
    payloads = [r.encode(f"{host}:{port}") for r in requests]
    next_i = 0
    t_start = time.perf_counter()

    async def worker() -> None:
        nonlocal next_i
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while next_i < len(payloads):
                i = next_i
                next_i += 1
                if rate_per_s:
                    delay = t_start + i / rate_per_s - time.perf_counter()
                    if delay > 0:
                        await asyncio.sleep(delay)
                t0 = time.perf_counter()
                writer.write(payloads[i])
                status, body = await _read_response(reader)
                results[i] = Result(status, time.perf_counter() - t0, body, t0)
        finally:
            writer.close()

    await asyncio.gather(*(worker() for _ in range(min(concurrency, len(requests)))))
    wall = time.perf_counter() - t_start
    return [r for r in results if r is not None], wall
