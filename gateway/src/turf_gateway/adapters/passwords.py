"""Password hashing (argon2id) off the event loop.

One argon2 hash or verification costs ~50–100 ms of CPU and 64 MiB. Run on the event loop, a burst of sign-ins
stalled every request and the spectator feed for seconds. They run in a small thread pool instead
(argon2-cffi releases the GIL while it hashes): at most :data:`WORKERS` at a time, the rest queue for a thread
while the loop goes on serving everyone else.

The queue is bounded. During a burst of 40 sign-ins the organizer's right password waited 20.9 s behind
them; now at most :data:`WORKERS` hash and ``queue`` more wait (``configure``), and one more is refused at once with
:class:`Busy` (the routes answer 503 ``unavailable`` with ``Retry-After``), so an admitted request waits at most
about ``(WORKERS + queue) / WORKERS`` hashing times.

The queue is fair per client: one address (an IPv6 /64) holds at most :data:`PER_CLIENT` places, so twenty
addresses guessing passwords of made-up emails cannot answer everyone else 503; and the organizer's account and an
address the account signed in from before have :data:`RESERVE` places of their own and the next free thread, so
they are never starved by strangers."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
from collections import Counter, deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from argon2 import PasswordHasher, profiles
from argon2.exceptions import InvalidHashError, VerificationError

from turf_gateway.api.errors import ApiError

#: ``TURF_PASSWORD_HASH`` → argon2id parameters of new hashes. ``fast`` is argon2-cffi's test profile (one pass over
#: 8 KiB, ~1 ms) with the default's salt and hash lengths; tests and manual rehearsals on loopback only
PROFILES = {"default": profiles.RFC_9106_LOW_MEMORY,
            "fast": replace(profiles.CHEAPEST, salt_len=16, hash_len=32)}
hasher = PasswordHasher.from_parameters(PROFILES["default"])
_dummy = {"hash": ""}
T = TypeVar("T")


def use_profile(name: str) -> None:
    """Hash new passwords with the parameters of ``name`` (a key of :data:`PROFILES`); at the gateway's start."""
    global hasher
    hasher = PasswordHasher.from_parameters(PROFILES[name])
    _dummy["hash"] = ""


def dummy_hash() -> str:
    """A hash of no account's password, with the current parameters: a sign-in for an unknown e-mail verifies
    against it, so it takes as long as one for a known e-mail."""
    if not _dummy["hash"]:
        _dummy["hash"] = hasher.hash("not a real password, only for equal timing")
    return _dummy["hash"]
#: threads hashing at once: the machine's 2 cores stay shared with the loop and the services
WORKERS = 2


def _lower_priority() -> None:
    """Each hashing thread runs at a lower priority than the event loop's (Linux: nice is per thread), so a
    machine busy hashing still schedules the loop first."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, 0, min(os.getpriority(os.PRIO_PROCESS, 0) + 5, 19))


_POOL = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="argon2", initializer=_lower_priority)
#: hashes that may wait for a thread beyond the WORKERS running (``TURF_PASSWORD_QUEUE``)
QUEUE = 12
#: places (running or waiting) one client address (an IPv6 /64) may hold at once: a few addresses guessing
#: passwords no longer fill the whole queue and answer everyone else 503
PER_CLIENT = 2
#: further places beyond WORKERS + QUEUE that only priority hashes may take (the organizer's account, an address
#: the account signed in from before); priority hashes also get the next free thread before anyone waiting
RESERVE = 4


@dataclass
class _Gate:
    """Who may hold a place in the hashing pool, and who gets the next free thread. A place is taken at the call
    (or refused at once with :class:`Busy`); a thread is handed to priority waiters first, then in arrival order."""

    limit: int = WORKERS + QUEUE
    reserve: int = RESERVE
    per_client: int = PER_CLIENT
    in_pool: int = 0
    running: int = 0
    clients: Counter[str] = field(default_factory=Counter)
    waiting: dict[bool, deque[asyncio.Future[None]]] = field(
        default_factory=lambda: {True: deque(), False: deque()})

    def admit(self, client: str | None, priority: bool, bounded: bool) -> None:
        """Take a place for ``client``, or raise :class:`ClientBusy` (the client holds its share: its own excess,
        429) or :class:`Busy` (no place left in its lane, ``limit`` for everyone, ``reserve`` more for priority:
        503)."""
        if bounded:
            retry = max(1, math.ceil(self.in_pool / WORKERS * _HASH_S))
            if client is not None and self.clients[client] >= self.per_client:
                raise ClientBusy(retry)
            if self.in_pool >= self.limit + (self.reserve if priority else 0):
                raise Busy(retry)
        self.in_pool += 1
        if client is not None:
            self.clients[client] += 1

    def leave(self, client: str | None) -> None:
        self.in_pool -= 1
        if client is not None:
            self.clients[client] -= 1
            if not self.clients[client]:
                del self.clients[client]

    async def thread(self, priority: bool) -> None:
        """Wait for a hashing thread (returns owning it: :meth:`release` after)."""
        if self.running < WORKERS and not any(self.waiting.values()):
            self.running += 1
            return
        turn = asyncio.get_running_loop().create_future()
        self.waiting[priority].append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():   # handed a thread as the caller went away: pass it on
                self.release()
            else:
                self.waiting[priority].remove(turn)
            raise

    def release(self) -> None:
        """Hand the thread to the next waiter, priority first; else it is free."""
        for lane in (True, False):
            while self.waiting[lane]:
                turn = self.waiting[lane].popleft()
                if not turn.done():
                    turn.set_result(None)
                    return
        self.running -= 1


_gate = _Gate()


class Busy(ApiError):
    """Every hashing thread is busy and the queue is full, or the client holds its share of it: 503 ``unavailable``
    with ``Retry-After`` (seconds)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__("unavailable", f"Too many sign-ins at once; try again in {retry_after} s.", 503,
                         headers={"Retry-After": str(retry_after)})


class ClientBusy(ApiError):
    """The client holds its share of the hashing queue already: 429 ``rate_limited`` with ``Retry-After``."""

    def __init__(self, retry_after: int) -> None:
        super().__init__("rate_limited", f"Too many sign-ins at once from your address; try again in {retry_after} s.",
                         429, headers={"Retry-After": str(retry_after)})


def configure(queue: int, per_client: int = PER_CLIENT, reserve: int = RESERVE) -> None:
    """At most ``queue`` hashes wait for a thread (beyond the :data:`WORKERS` running), ``per_client`` of them
    one client's, and ``reserve`` more priority ones; at the gateway's start."""
    _gate.limit, _gate.per_client, _gate.reserve = WORKERS + max(queue, 0), max(per_client, 1), max(reserve, 0)


async def _run(fn: Callable[..., T], *args: Any, bounded: bool = True, client: str | None = None,
               priority: bool = False) -> T:
    """``fn(*args)`` in the hashing pool. ``bounded``: raise :class:`Busy` rather than queue beyond the limits
    (requests); the organizer's password at start always queues. ``client``: the address key whose share it
    takes (None: no share, e.g. at start). ``priority``: may take the reserved places and the next free thread."""
    _gate.admit(client, priority, bounded)
    try:
        await _gate.thread(priority or not bounded)
        try:
            return await asyncio.get_running_loop().run_in_executor(_POOL, fn, *args)
        finally:
            _gate.release()
    finally:
        _gate.leave(client)


#: seconds of one hash at the default cost on a busy core, for Retry-After (an estimate, rounded up)
_HASH_S = 0.5


async def hash_password(password: str, bounded: bool = True, client: str | None = None) -> str:
    """The argon2id hash of ``password`` (an encoded string with its salt and parameters). :class:`Busy` when
    the queue is full (or ``client`` holds its share) and ``bounded``."""
    return await _run(hasher.hash, password, bounded=bounded, client=client)


def _verify(encoded: str, password: str) -> bool:
    try:
        return hasher.verify(encoded, password)
    except (VerificationError, InvalidHashError):
        return False


async def verify_password(encoded: str, password: str, bounded: bool = True, client: str | None = None,
                          priority: bool = False) -> bool:
    """Whether ``password`` matches ``encoded``; False for a wrong password or a hash that is not argon2.
    :class:`Busy` when the queue is full (or ``client`` holds its share) and ``bounded``; ``priority`` (the
    organizer's account, an address the account signed in from) has places of its own and goes first."""
    return await _run(_verify, encoded, password, bounded=bounded, client=client, priority=priority)
