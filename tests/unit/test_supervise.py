"""`turfwar up` restarts a crashed service with backoff instead of tearing the stack down (on fakes: a
fake clock, processes that exit when told)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from turfwar.supervise import supervise


@dataclass
class FakeProc:
    returncode: int | None = None

    def poll(self) -> int | None:
        return self.returncode


@dataclass
class FakeStack:
    crash_on_start: set[str] = field(default_factory=set)
    fail_to_start: set[str] = field(default_factory=set)
    procs: dict[str, FakeProc] = field(default_factory=lambda: {"claims": FakeProc(), "gateway": FakeProc()})
    starts: list[tuple[float, str]] = field(default_factory=list)
    manifests: int = 0
    clock: float = 0.0

    def start_process(self, name: str) -> FakeProc:
        if name in self.fail_to_start:
            raise RuntimeError("port in use")
        self.starts.append((self.clock, name))
        self.procs[name] = FakeProc(returncode=1 if name in self.crash_on_start else None)
        return self.procs[name]

    def write_manifest(self, supervisor: int | None = None) -> None:
        self.manifests += 1


def run(stack: FakeStack, until: float, events: dict[float, str] | None = None) -> list[str]:
    said: list[str] = []

    def sleep(dt: float) -> None:
        stack.clock += dt
        for at, name in (events or {}).items():
            if abs(stack.clock - at) < 1e-9:
                stack.procs[name].returncode = 1

    supervise(stack, lambda: stack.clock >= until, said.append, supervisor=1, now=lambda: stack.clock,
              sleep=sleep, tick_s=0.5)
    return said


def test_a_crash_looping_service_is_restarted_with_doubling_delays_and_the_others_keep_running() -> None:
    stack = FakeStack(crash_on_start={"claims"})
    stack.procs["claims"].returncode = 1   # crashed at once
    said = run(stack, until=40.0)
    starts = [t for t, name in stack.starts if name == "claims"]
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert starts[0] == 1.0 and gaps[:4] == [2.5, 4.5, 8.5, 16.5]   # the delay doubles (+ one tick to notice)
    assert stack.procs["gateway"].returncode is None and not [n for _, n in stack.starts if n == "gateway"]
    assert stack.manifests == len(starts)   # stack.json names every new pid (turfwar down)
    assert said[0] == "claims exited (1); restarting in 1 s"


def test_a_service_that_stayed_up_starts_again_from_the_shortest_delay() -> None:
    stack = FakeStack()
    # crashes at 0.5 (restart at 1.5), again at 3 (restart 2 s later), then runs > 60 s and crashes at 100
    said = run(stack, until=103.0, events={0.5: "claims", 3.0: "claims", 100.0: "claims"})
    assert [t for t, n in stack.starts if n == "claims"] == [1.5, 5.0, 101.0]
    assert said[-2:] == ["claims exited (1); restarting in 1 s", "claims restarted"]


def test_a_start_that_fails_is_one_more_crash_never_an_exception() -> None:
    stack = FakeStack(fail_to_start={"claims"})
    stack.procs["claims"].returncode = 1
    said = run(stack, until=10.0)
    assert stack.starts == [] and any("did not start (port in use); restarting in 2 s" in s for s in said)
