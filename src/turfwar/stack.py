"""Start and stop the whole stack: servers (embedded unless ``TURF_*_URL`` point elsewhere), then every service and
the gateway at once, each its own process forked warm (:mod:`turfwar.launcher`). Used by ``turfwar up`` and by the
end-to-end test fixtures alike."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import httpx

from turf_common.bus import server_list
from turf_common.settings import Settings
from turfwar import embedded
from turfwar.launcher import LAUNCHER, ServiceProcess

SERVICES: dict[str, str] = {
    "geo-verify": "turf_geo",
    "claims": "turf_claims",
    "cards": "turf_cards",
    "scoring": "turf_scoring",
    "clock": "turf_clock",
    "notify": "turf_notify",
    "modes": "turf_modes",
}
GATEWAY_MODULE = "turf_gateway"


class StackError(RuntimeError):
    """The stack cannot start, for a reason a person can fix."""


class ServerControl(Protocol):
    """A server the stack did not start (the tests' containers) but may stop and start again at the same address,
    as the fault tests do with the embedded ones (:meth:`Stack.stop_server`, :meth:`Stack.start_server`)."""

    def stop(self) -> int:
        """Stop it (its data kept), returning its port."""
        ...

    def start(self) -> None:
        """Start it again, returning once it serves."""
        ...


@dataclass
class Stack:
    data_dir: Path
    env: dict[str, str] = field(default_factory=dict)   # TURF_* overrides for every child
    http_port: int = 8000
    servers: dict[str, embedded.Server] = field(default_factory=dict)
    controls: dict[str, ServerControl] = field(default_factory=dict)   # servers started elsewhere (fault tests)
    proc_env: dict[str, dict[str, str]] = field(default_factory=dict)  # per-process extras (fault tests)
    metrics_ports: dict[str, int] = field(default_factory=dict)         # Prometheus port of each service process
    procs: dict[str, ServiceProcess] = field(default_factory=dict)
    new_organizer_password: str | None = None   # made by this start's prepare(): `up` prints it, once
    prepared: bool = False
    bus_ready: bool = False   # the bus set-up ran (set_up_bus), before the first service process

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def child_env(self) -> dict[str, str]:
        self.prepare()
        env = dict(os.environ) | self.env
        env["TURF_DATA_DIR"] = str(self.data_dir)
        env["TURF_HTTP_PORT"] = str(self.http_port)
        env.setdefault("PYTHONUNBUFFERED", "1")
        return env

    # ---- secrets ------------------------------------------------------------------------------
    def prepare(self) -> None:
        """Before anything else starts (the embedded servers' data folders included): fix the season's seed and the
        organizer's password, and mark the season begun. Runs once; a second call changes nothing.

        R12.1: ``TURF_SEED`` if set, else this data directory's own random seed (:meth:`season_seed`); the public
        default is refused unless the clock is ``manual``; a directory whose season began on another seed is refused
        (its draws and published commitment depend on it). The organizer's password: ``TURF_ORGANIZER_PASSWORD`` if
        set, else this directory's own random one (:meth:`organizer_password`, new ones in
        ``new_organizer_password`` for ``up`` to print once); the public default only for a manual clock on
        loopback. Raises :class:`StackError` saying what to change."""
        if self.prepared:
            return
        from turf_common.settings import organizer_password_refusal, seed_refusal

        env = dict(os.environ) | self.env
        clock = env.get("TURF_CLOCK") or "real"
        try:
            why = (seed_refusal(env["TURF_SEED"], clock) if env.get("TURF_SEED") else None) or (
                organizer_password_refusal(env["TURF_ORGANIZER_PASSWORD"], clock,
                                           env.get("TURF_HTTP_HOST") or "127.0.0.1")
                if env.get("TURF_ORGANIZER_PASSWORD") else None)
        except ValueError as e:   # a TURF_CLOCK that is no mode
            raise StackError(str(e)) from None
        if why:
            raise StackError(why)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        seed = env.get("TURF_SEED") or self.season_seed()
        self._mark_season(seed, "TURF_SEED" if env.get("TURF_SEED") else "season-seed")
        self.env["TURF_SEED"] = seed
        self.env["TURF_DATA_DIR"] = str(self.data_dir)   # R30: the notify service writes mail there (.eml)
        self.env["TURF_ORGANIZER_PASSWORD"] = env.get("TURF_ORGANIZER_PASSWORD") or self.organizer_password()
        self.env["TURF_VAPID_PRIVATE_KEY"] = env.get("TURF_VAPID_PRIVATE_KEY") or self.vapid_key()
        self.prepared = True

    def vapid_key(self) -> str:
        """The Web Push (VAPID) private key of this data directory when ``TURF_VAPID_PRIVATE_KEY`` is not
        set: made on the first start and kept in ``<data dir>/vapid-private-key`` (mode 0600). Browsers' push
        subscriptions are bound to its public key, so it stays the same across restarts."""
        from turf_notify.adapters.webpush import new_private_key

        return _private_secret(self.data_dir / "vapid-private-key", new_private_key)[0]

    def season_seed(self) -> str:
        """The seed of this data directory's season (R12.1) when ``TURF_SEED`` is not set: 256 bits from the OS's
        CSPRNG made on the first start and kept in ``<data dir>/season-seed`` (mode 0600), so draws cannot be
        foreseen from a well-known default and stay the same across restarts."""
        return _private_secret(self.data_dir / "season-seed", lambda: secrets.token_hex(32))[0]

    def organizer_password(self) -> str:
        """The organizer's password when ``TURF_ORGANIZER_PASSWORD`` is not set: random, made on the first start and
        kept in ``<data dir>/organizer-password`` (mode 0600); a new one is also left in ``new_organizer_password``
        so that ``up`` prints it, once."""
        pw, made = _private_secret(self.data_dir / "organizer-password", lambda: secrets.token_urlsafe(18))
        if made:
            self.new_organizer_password = pw
        return pw

    def _mark_season(self, seed: str, source: str) -> None:
        """R12.1: a begun season is marked by ``<data dir>/season.json`` (the seed's SHA-256 and where it came
        from), written at the first start; a later start with a seed of another commitment is refused."""
        from turf_common.rules.cards import seed_commitment

        path = self.data_dir / "season.json"
        commitment = seed_commitment(seed)
        if path.exists():
            began = json.loads(path.read_text())
            if began.get("seed_commitment") != commitment:
                raise StackError(
                    f"the season in {self.data_dir} began on another seed (SHA-256 {began.get('seed_commitment')}, "
                    f"from {began.get('seed_source')}); its draws and published commitment depend on it (R12.1): "
                    "restore that TURF_SEED, or start a new season in another TURF_DATA_DIR")
            return
        embedded.write_file(path, json.dumps({"seed_commitment": commitment, "seed_source": source,
                                              "began_at": datetime.now(UTC).isoformat()}, indent=2), 0o644)

    # ---- servers ------------------------------------------------------------------------------
    def lock(self) -> None:
        """One stack per data directory: a second ``up`` on the same directory fails at once, touching nothing
        (an advisory lock on ``<data dir>/.lock``, released by the OS when this process ends)."""
        import fcntl

        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._lockf = open(self.data_dir / ".lock", "a+")
        try:
            fcntl.flock(self._lockf, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StackError(f"another turfwar stack is running on {self.data_dir}; stop it first "
                             "(or choose another TURF_DATA_DIR)") from None

    def start_servers(self, progress: bool = False) -> None:
        """The embedded servers (those without a ``TURF_*_URL``), each asking for this directory's passwords:
        ``env`` gets URLs with credentials, NATS's the ``admin`` user's (tests and the organizer's
        tools); each service process gets its own NATS user (:meth:`start_process`)."""
        self.prepare()   # R12.1: the seed first, before any server makes a folder here
        embedded.private_dir(self.data_dir)   # servers' data and secrets, for the owner only
        wanted = {"TURF_NATS_URL": ("nats", self._start_nats),
                  "TURF_DATABASE_URL": ("postgres", embedded.start_postgres),
                  "TURF_REDIS_URL": ("redis", embedded.start_redis)}
        for var, (name, start) in wanted.items():
            if self.env.get(var) or os.environ.get(var):
                self.env.setdefault(var, os.environ.get(var, ""))
                continue
            if progress:
                print(f"  starting embedded {name} …", flush=True)
            srv = start(self.data_dir)
            self.servers[name] = srv
            self.env[var] = srv.url

    def bus_settings(self) -> Settings:
        """The stream settings every process of this stack gets (``TURF_STREAM``, its replicas and byte limit)."""
        env = dict(os.environ) | self.env
        names = ("stream", "stream_replicas", "stream_max_bytes")
        return Settings.model_validate({n: env[f"TURF_{n.upper()}"] for n in names if f"TURF_{n.upper()}" in env})

    def _start_nats(self, data_dir: Path, port: int | None = None) -> embedded.Server:
        """The embedded NATS, its users' JetStream permissions naming this stack's stream."""
        return embedded.start_nats(data_dir, port, self.bus_settings().stream)

    def set_up_bus(self, timeout: float = 120.0) -> None:
        """The stream, every durable consumer and the clock's bucket, declared with the stack's
        ``TURF_NATS_URL`` (the ``admin`` user's; no service's NATS user may) by a one-shot ``turfwar.bussetup``
        process, as compose's ``bus-setup`` does; forked like the services, it finds their modules imported."""
        log = self.data_dir / "logs" / "bus-setup.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        code = self._spawn("turfwar.bussetup", self.child_env(), log).wait(timeout)
        if code != 0:
            raise RuntimeError(f"the bus set-up failed ({code}):\n{log.read_text(errors='replace')[-3000:]}")
        self.bus_ready = True

    def _spawn(self, module: str, env: dict[str, str], log: Path) -> ServiceProcess:
        """``python -m module`` with ``env``, its output appended to ``log``: forked from the warm process, or with
        ``TURF_LAUNCH=exec`` started the plain way."""
        if self.forks(env):
            return LAUNCHER.start(module, env, log)
        with open(log, "ab") as out:
            return subprocess.Popen([sys.executable, "-m", module], env=env, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)

    # ---- services -----------------------------------------------------------------------------
    def start_process(self, name: str) -> ServiceProcess:
        """Start service ``name`` (or a replica, ``name#2``: same module, same queue group): forked from the warm
        process (:mod:`turfwar.launcher`), or with ``TURF_LAUNCH=exec`` as ``python -m``. The first
        one sets up the bus (:meth:`set_up_bus`)."""
        if not self.bus_ready:
            self.set_up_bus()
        module = SERVICES.get(name.split("#")[0], GATEWAY_MODULE)
        logs = self.data_dir / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        # a replica's own settings (e.g. ``gateway#2``'s HTTP port) come on top of its service's
        env = self.child_env() | self.proc_env.get(name.split("#")[0], {}) | self.proc_env.get(name, {})
        if "nats" in self.servers:   # its own NATS user, allowed its own subjects only
            env["TURF_NATS_URL"] = self.nats_url_for(name.split("#")[0])
        if not name.startswith("gateway"):
            self.metrics_ports[name] = embedded.free_port()
            env["TURF_METRICS_PORT"] = str(self.metrics_ports[name])
        proc = self._spawn(module, env, logs / f"{name}.log")
        self.procs[name] = proc
        return proc

    def forks(self, env: dict[str, str] | None = None) -> bool:
        """Whether services (with ``env``, a process's environment; by default the stack's) are forked from the warm
        process, the default, rather than started by ``python -m`` (``TURF_LAUNCH=exec``)."""
        return (env if env is not None else dict(os.environ) | self.env).get("TURF_LAUNCH", "fork") != "exec"

    def warm_up(self) -> None:
        """Start the warm process now (when services are forked), so that its imports overlap the servers' start."""
        if self.forks():
            LAUNCHER.warm_up()

    def start_services(self, timeout: float = 90.0) -> None:
        """Every service and the gateway at once (the gateway needs no service to start: it asks them per
        request), then wait until all of them answer."""
        if not embedded.port_free(self.http_port):
            raise StackError(f"port {self.http_port} is already in use; set TURF_HTTP_PORT to a free port")
        for name in [*SERVICES, "gateway"]:
            self.start_process(name)
        self.wait_services(list(SERVICES), timeout)
        self.wait_gateway(timeout)

    def nats_url_for(self, user: str) -> str:
        """The embedded NATS server's URL with the credentials of ``user`` (a service name, ``gateway`` or
        ``admin``): what that process connects with."""
        return embedded.nats_url_for(self.servers["nats"].extra["bare"], self.data_dir, user)

    def wait_services(self, names: list[str], timeout: float = 90.0) -> None:
        asyncio.run(_wait_health(self.env["TURF_NATS_URL"], names, timeout, self))

    def wait_gateway(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._check_alive("gateway")
            with contextlib.suppress(httpx.HTTPError):
                r = httpx.get(self.base_url + "/health", timeout=1)
                # the gateway's own answer, not whatever else might listen on its port
                if r.status_code == 200 and r.headers.get("content-type", "").startswith("application/json"):
                    return
            time.sleep(0.1)
        raise TimeoutError("gateway did not answer /health")

    def _check_alive(self, name: str) -> None:
        p = self.procs.get(name)
        if p is not None and p.poll() is not None:
            log = (self.data_dir / "logs" / f"{name}.log")
            tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
            raise RuntimeError(f"{name} exited with code {p.returncode}:\n{tail}")

    def restart_server(self, name: str, down_for: float = 0.0) -> None:
        """Stop a server (``nats``, ``postgres``, ``redis``: embedded, or one of :attr:`controls`) and start it again
        on the same port with the same data, after ``down_for`` seconds: for fault tests."""
        port = self.stop_server(name)
        time.sleep(down_for)
        self.start_server(name, port)

    def stop_server(self, name: str) -> int:
        """Stop a server, returning its port (start it again with :meth:`start_server`)."""
        if name in self.controls:
            return self.controls[name].stop()
        srv = self.servers[name]
        srv.stop()
        return int(srv.url.rsplit(":", 1)[1].split("/")[0])

    def start_server(self, name: str, port: int) -> None:
        if name in self.controls:   # it comes back where it was
            self.controls[name].start()
            return
        start = {"nats": self._start_nats, "postgres": embedded.start_postgres, "redis": embedded.start_redis}
        self.servers[name] = start[name](self.data_dir, port)

    def wait_started(self, name: str, timeout: float = 90.0) -> None:
        """Wait until process ``name`` (e.g. a replica ``claims#2``) logged that it serves: a health answer from
        its queue group could come from a sibling."""
        log = self.data_dir / "logs" / f"{name}.log"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._check_alive(name)
            if log.exists() and '"service_started"' in log.read_text(errors="replace"):
                return
            time.sleep(0.1)
        raise TimeoutError(f"{name} did not start")

    def kill(self, name: str, sig: int = 9) -> None:
        p = self.procs[name]
        with contextlib.suppress(ProcessLookupError):
            os.kill(p.pid, sig)
        p.wait(10)

    def restart(self, name: str, timeout: float = 60.0) -> None:
        self.start_process(name)
        if name == "gateway":
            self.wait_gateway(timeout)
        else:
            self.wait_services([name.split("#")[0]], timeout)

    def write_manifest(self, supervisor: int | None = None) -> None:
        """``<data dir>/stack.json`` for ``turfwar status``/``verify``/``audit``/``down``: the servers' URLs with the
        admin credentials, so mode 0600, every process's pid, and the pid of the ``turfwar up`` that
        supervises them (``down`` asks it first)."""
        embedded.write_file(self.data_dir / "stack.json", json.dumps({
            "supervisor": supervisor,
            "nats_url": self.env.get("TURF_NATS_URL"), "database_url": self.env.get("TURF_DATABASE_URL"),
            "redis_url": self.env.get("TURF_REDIS_URL"), "http": self.base_url,
            "pids": {n: p.pid for n, p in self.procs.items()} | {n: s.proc.pid for n, s in self.servers.items()},
            "metrics": {n: f"http://127.0.0.1:{p}/metrics" for n, p in self.metrics_ports.items()}
            | {"gateway": self.base_url + "/metrics"},
        }, indent=2), 0o600)

    def stop(self) -> None:
        for name in sorted(self.procs, key=lambda n: (not n.startswith("gateway"), n)):
            p = self.procs[name]
            if p.poll() is None:
                p.terminate()
        for p in self.procs.values():
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        for srv in reversed(list(self.servers.values())):
            srv.stop()
        with contextlib.suppress(FileNotFoundError):
            (self.data_dir / "stack.json").unlink()


def _private_secret(path: Path, make: Callable[[], str]) -> tuple[str, bool]:
    """The secret kept in ``path`` (mode 0600), made by ``make`` when absent; (secret, whether made now)."""
    if path.exists():
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)   # copied around with looser modes: readable by its owner only again
        return path.read_text().strip(), False
    value = make()
    embedded.write_file(path, value)
    return value, True


async def _wait_health(nats_url: str, names: list[str], timeout: float, stack: Stack | None = None) -> None:
    import nats

    from turf_common.contracts import subjects

    nc = await nats.connect(servers=server_list(nats_url))
    try:
        deadline = time.monotonic() + timeout
        pending = list(names)
        while pending:
            for name in list(pending):
                if stack is not None:
                    stack._check_alive(name)
                with contextlib.suppress(Exception):
                    await nc.request(subjects.health(name), b"{}", timeout=0.5)
                    pending.remove(name)
            if pending:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"services not healthy: {pending}")
                await asyncio.sleep(0.1)
    finally:
        await nc.close()


async def quiet_nats_errors(_: Exception) -> None:
    """nats-py's error callback, silent: a tool's report names what is down itself."""


async def health_report(nats_url: str | None, notes: list[str] | None = None) -> dict[str, str]:
    """One line of health per service, asked over NATS; what a service that serves says besides (its health
    ``detail``, e.g. notify's "mail is not configured", R30) is added to ``notes``, once each."""
    import nats
    from pydantic import ValidationError

    from turf_common.contracts import subjects
    from turf_common.contracts.base import Health

    out: dict[str, str] = {}
    if not nats_url:
        return {n: "unknown (no NATS URL)" for n in SERVICES}
    try:
        # a node of a cluster that is down is tried and skipped: the report says what answers, without nats-py's
        # traceback for each node it could not reach
        nc = await nats.connect(servers=server_list(nats_url), connect_timeout=2, max_reconnect_attempts=0,
                                error_cb=quiet_nats_errors)
    except Exception as e:
        return {n: f"down (NATS: {e})" for n in SERVICES}
    for name in SERVICES:
        try:
            reply = await nc.request(subjects.health(name), b"{}", timeout=1)
            out[name] = "ok"
            try:
                detail = Health.model_validate_json(reply.data).detail
            except ValidationError:   # an older service's answer: it serves, with nothing to add
                detail = {}
            if notes is not None:
                notes.extend(note for note in detail.values() if note not in notes)
        except Exception as e:
            out[name] = f"down ({type(e).__name__})"
    await nc.close()
    return out
