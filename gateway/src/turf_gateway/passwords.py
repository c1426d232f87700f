"""Password hashing (argon2id) off the event loop.

One argon2 hash or verification costs ~50–100 ms of CPU and 64 MiB. Run on the event loop, a burst of sign-ins
stalled every request and the spectator feed for seconds (issue 15). They run in a small thread pool instead
(argon2-cffi releases the GIL while it hashes): at most :data:`WORKERS` at a time, the rest queue for a thread
while the loop goes on serving everyone else.

Issue 29: the queue is bounded. During a burst of 40 sign-ins the organizer's right password waited 20.9 s behind
them; now at most :data:`WORKERS` hash and ``queue`` more wait (``configure``), and one more is refused at once with
:class:`Busy` (the routes answer 503 ``unavailable`` with ``Retry-After``), so an admitted request waits at most
about ``(WORKERS + queue) / WORKERS`` hashing times."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, TypeVar

from argon2 import PasswordHasher, profiles
from argon2.exceptions import InvalidHashError, VerificationError

from turf_gateway.errors import ApiError

#: ``TURF_PASSWORD_HASH`` → argon2id parameters of new hashes. ``fast`` is argon2-cffi's test profile (one pass over
#: 8 KiB, ~1 ms) with the default's salt and hash lengths; tests and manual rehearsals on loopback only (issue 27)
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
_load = {"in_pool": 0, "limit": WORKERS + QUEUE}


class Busy(ApiError):
    """Every hashing thread is busy and the queue is full: 503 ``unavailable`` with ``Retry-After`` (seconds)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__("unavailable", f"Too many sign-ins at once; try again in {retry_after} s.", 503,
                         headers={"Retry-After": str(retry_after)})


def configure(queue: int) -> None:
    """At most ``queue`` hashes wait for a thread (beyond the :data:`WORKERS` running); at the gateway's start."""
    _load["limit"] = WORKERS + max(queue, 0)


async def _run(fn: Callable[..., T], *args: Any, bounded: bool = True) -> T:
    """``fn(*args)`` in the hashing pool. ``bounded``: raise :class:`Busy` rather than queue beyond the limit
    (requests); the organizer's password at start always queues."""
    if bounded and _load["in_pool"] >= _load["limit"]:
        raise Busy(retry_after=max(1, math.ceil(_load["in_pool"] / WORKERS * _HASH_S)))
    _load["in_pool"] += 1
    try:
        return await asyncio.get_running_loop().run_in_executor(_POOL, fn, *args)
    finally:
        _load["in_pool"] -= 1


#: seconds of one hash at the default cost on a busy core, for Retry-After (an estimate, rounded up)
_HASH_S = 0.5


async def hash_password(password: str, bounded: bool = True) -> str:
    """The argon2id hash of ``password`` (an encoded string with its salt and parameters). :class:`Busy` when
    the queue is full and ``bounded``."""
    return await _run(hasher.hash, password, bounded=bounded)


def _verify(encoded: str, password: str) -> bool:
    try:
        return hasher.verify(encoded, password)
    except (VerificationError, InvalidHashError):
        return False


async def verify_password(encoded: str, password: str, bounded: bool = True) -> bool:
    """Whether ``password`` matches ``encoded``; False for a wrong password or a hash that is not argon2.
    :class:`Busy` when the queue is full and ``bounded``."""
    return await _run(_verify, encoded, password, bounded=bounded)
