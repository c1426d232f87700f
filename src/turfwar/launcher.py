"""Warm starts: every service and the gateway forked from one warm process, each still a process of its
own (its own pid, session and log; SIGTERM, kill -9 and restarts are as real as with ``python -m``).

A cold ``python -m turf_claims`` spends about 3 CPU-seconds before it serves: importing FastStream, SQLAlchemy,
shapely and the rest (~2,000 modules) and reading the board. The standard library's *forkserver* does both once:
its server process imports :mod:`turfwar.warm` (every service module, the board and its point index) and forks a
child per :meth:`Launcher.start`, which sets up its log, environment and session and then runs the module as
``__main__``, as ``python -m`` would. What the forkserver cannot take over is what a process does after import
(connecting, migrating), so that part stays each service's own.

``TURF_LAUNCH=exec`` starts services the plain way (``python -m``), as the walking skeleton and the containers do.

As with any multiprocessing start method but fork, a *script* that starts a stack must keep its work under
``if __name__ == "__main__":`` (the warm process imports the script's main module once); ``python -m`` programs,
pytest and the ``turfwar`` command need nothing."""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import runpy
import subprocess
import sys
from multiprocessing.context import ForkServerContext
from pathlib import Path
from typing import Protocol

#: what the warm process imports before it forks anything
PRELOAD = ["__main__", "turfwar.warm"]


class ServiceProcess(Protocol):
    """What the stack needs of a service's process: :class:`subprocess.Popen`'s names, whichever way it started."""

    pid: int

    @property
    def returncode(self) -> int | None: ...

    def poll(self) -> int | None: ...
    def wait(self, timeout: float | None = None) -> int: ...
    def terminate(self) -> None: ...
    def kill(self) -> None: ...


class Forked:
    """A service forked by the warm process, with :class:`subprocess.Popen`'s interface: ``returncode`` is the exit
    code, or minus the signal that ended it (``-9`` after kill -9), None while it runs."""

    def __init__(self, proc: multiprocessing.process.BaseProcess, module: str) -> None:
        self._proc = proc
        self.module = module
        assert proc.pid is not None
        self.pid: int = proc.pid

    @property
    def returncode(self) -> int | None:
        return self._proc.exitcode

    def poll(self) -> int | None:
        return self._proc.exitcode

    def wait(self, timeout: float | None = None) -> int:
        """The exit code once it has exited; raises :class:`subprocess.TimeoutExpired` after ``timeout`` s."""
        self._proc.join(timeout)
        code = self._proc.exitcode
        if code is None:
            raise subprocess.TimeoutExpired(["python", "-m", self.module], timeout or 0.0)
        return code

    def terminate(self) -> None:
        self._proc.terminate()

    def kill(self) -> None:
        self._proc.kill()


class Launcher:
    """One warm forkserver per process that starts stacks (a test session, a ``turfwar up``), started on the first
    :meth:`start` (which then waits for the warm imports, about 4 s) and shared by every stack after it."""

    def __init__(self) -> None:
        self._ctx: ForkServerContext | None = None

    def context(self) -> ForkServerContext:
        if self._ctx is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(PRELOAD)
            self._ctx = ctx
        return self._ctx

    def warm_up(self) -> None:
        """Start the warm process now rather than at the first service's start."""
        from multiprocessing import forkserver

        self.context()
        forkserver.ensure_running()

    def start(self, module: str, env: dict[str, str], log: Path) -> Forked:
        """Fork a process that runs ``module`` as ``python -m`` does, in a session of its own, with exactly ``env``
        as its environment and its stdout and stderr appended to ``log``."""
        proc = self.context().Process(target=_serve, args=(module, env, str(log), os.getcwd()),
                                      name=module, daemon=True)
        proc.start()
        return Forked(proc, module)


LAUNCHER = Launcher()


def _serve(module: str, env: dict[str, str], log: str, cwd: str) -> None:
    """In the forked child: what ``subprocess.Popen([python, -m, module], env=env, stdout=log, stderr=STDOUT,
    start_new_session=True)`` would have set up, then the module as ``__main__``. The exit code is the module's
    (``SystemExit``); the exit handlers run as at a normal interpreter exit (multiprocessing skips them)."""
    os.setsid()
    with contextlib.suppress(OSError):   # `ps -o comm`, top and pgrep name the service, not the forkserver
        Path("/proc/self/comm").write_text(module.removesuffix(".__main__")[:15])
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.stdout = open(1, "w", buffering=1, closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.argv = [module]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    finally:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
