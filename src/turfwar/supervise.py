"""What ``turfwar up`` does while the stack runs: restart a service that exited, with exponential backoff, so one
crash-looping service waits its turn (1, 2, 4 … 60 s) instead of tearing the whole stack down; a service that then
stays up for a minute starts again from the shortest delay."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol


class Proc(Protocol):
    @property
    def returncode(self) -> int | None: ...

    def poll(self) -> int | None: ...


class Supervised(Protocol):
    """The part of :class:`turfwar.stack.Stack` supervision needs."""

    @property
    def procs(self) -> Mapping[str, Proc]: ...

    def start_process(self, name: str) -> object: ...
    def write_manifest(self, supervisor: int | None = None) -> None: ...


@dataclass
class Backoff:
    """Restart delays of one process, in seconds: ``first_s`` doubling up to ``max_s``; a run of ``healthy_s``
    or longer resets it."""

    first_s: float = 1.0
    max_s: float = 60.0
    healthy_s: float = 60.0
    crashes: int = 0
    started_at: float | None = None   # when it last started (None: it never did since it crashed)
    restart_at: float | None = None   # when it is due to start again; None while it runs

    def crashed(self, now: float) -> float:
        """The process was found exited at ``now``: schedule its restart; returns the delay."""
        if self.started_at is not None and now - self.started_at >= self.healthy_s:
            self.crashes = 0
        self.started_at = None
        delay = min(self.first_s * 2 ** self.crashes, self.max_s)
        self.crashes += 1
        self.restart_at = now + delay
        return delay

    def due(self, now: float) -> bool:
        return self.restart_at is not None and now >= self.restart_at

    def started(self, now: float) -> None:
        self.started_at, self.restart_at = now, None


def supervise(stack: Supervised, should_stop: Callable[[], bool], say: Callable[[str], None], supervisor: int,
              now: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
              tick_s: float = 0.5) -> None:
    """Until ``should_stop()``: every ``tick_s``, schedule the restart of each exited process and start those due
    (without waiting for them: a slow start must not hold up the others), rewriting ``stack.json`` with the new
    pids. A failure to start is one more crash, never an exception out of here."""
    backoff: dict[str, Backoff] = {}
    while not should_stop():
        t = now()
        for name, proc in list(stack.procs.items()):
            b = backoff.setdefault(name, Backoff(started_at=t))   # running since supervision began
            if b.restart_at is None and proc.poll() is not None:
                delay = b.crashed(t)
                say(f"{name} exited ({proc.returncode}); restarting in {delay:.0f} s")
            elif b.due(t):
                try:
                    stack.start_process(name)
                except Exception as e:   # a start that fails counts as a crash: try again later
                    say(f"{name} did not start ({e}); restarting in {b.crashed(t):.0f} s")
                    continue
                b.started(t)
                stack.write_manifest(supervisor)
                say(f"{name} restarted")
        sleep(tick_s)
