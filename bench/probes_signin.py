"""The probes of "Nobody gets in, round three" on sign-in and the edge (bench/probes.py runs them with the others):
the owner against a botnet's slow-down, the organizer against a hashing flood, weak passwords, caching and
compression of private answers, slowloris on the gateway's server, the banner, the CSP and the socket's Origin.

Each has a test that fails without its fix (docs/reliability.md names them)."""

from __future__ import annotations

import concurrent.futures
import socket
import threading
import time
import uuid

import httpx

from bench.probing import Probe, socket_from
from tests.support.client import API, Player, register, sign_in
from tests.support.proxied import proxy_client
from tests.support.stackfix import ORGANIZER
from turfwar.stack import Stack


def _via(c: httpx.Client, client: str, email: str, password: str) -> httpx.Response:
    return c.post(API + "/sessions", json={"email": email, "password": password}, headers={"X-Forwarded-For": client})


def _hammer(stack: Stack, stop: threading.Event, request: object, clients: list[str]) -> int:
    """``request(c, client, i)`` from each client in turn, one every 50 ms, until ``stop``; how many were sent."""
    sent = 0
    with proxy_client(stack) as c:
        while not stop.is_set():
            request(c, clients[sent % len(clients)], sent)  # type: ignore[operator]
            sent += 1
            time.sleep(0.05)
    return sent


def owner_under_attack(stack: Stack, http: httpx.Client) -> Probe:
    """54 wrong passwords from 6 addresses, then the attacker at one try per 50 ms while the owner signs in from
    a new address (14 tries over 20 s at most, waiting as Retry-After says)."""
    _, email, pw = register(http)
    attackers = [f"198.18.40.{i}" for i in range(1, 7)]
    with proxy_client(stack) as c:
        for i in range(54):
            _via(c, attackers[i % 6], email, f"guess {i}")
    stop = threading.Event()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        attack = pool.submit(_hammer, stack, stop, lambda c, ip, i: _via(c, ip, email, f"more {i}"), attackers)
        time.sleep(0.5)
        codes, t0 = [], time.monotonic()
        with proxy_client(stack) as c:
            while len(codes) < 14 and time.monotonic() - t0 < 20:
                r = _via(c, "203.0.113.77", email, pw)
                codes.append(r.status_code)
                if r.status_code == 200:
                    break
                time.sleep(min(float(r.headers.get("Retry-After", "1")), 2.0))
        stop.set()
        attack.result()
    return Probe("sign-in: owner from a new address under attack", "right password amid 6 addresses' guesses",
                 f"{codes}", codes[:1] == [200])


def organizer_during_hash_flood(stack: Stack) -> Probe:
    """20 addresses guess passwords of made-up emails as fast as they are answered; the organizer signs in 10
    times, 1 s apart."""
    stop = threading.Event()

    def guesser(k: int) -> None:
        with proxy_client(stack) as c:
            while not stop.is_set():
                _via(c, f"198.18.41.{k}", f"nobody-{uuid.uuid4().hex[:8]}@example.org", "wrong password")

    admitted, codes = 0, []
    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        flood = [pool.submit(guesser, k) for k in range(1, 21)]
        time.sleep(1.0)
        with proxy_client(stack) as c:
            for _ in range(10):
                r = _via(c, "198.51.100.9", *ORGANIZER)
                codes.append(r.status_code)
                admitted += r.status_code == 200
                time.sleep(1.0)
        stop.set()
        for f in flood:
            f.result()
    return Probe("sign-in: organizer during a hashing flood", "10 sign-ins amid 20 addresses' guesses",
                 f"{admitted} of 10 admitted {sorted(set(codes))}", admitted == 10)


def weak_passwords(http: httpx.Client) -> list[Probe]:
    out = []
    for pw in ("password", "12345678"):
        tag = uuid.uuid4().hex[:8]
        r = http.post(API + "/players", json={"name": f"Weak {tag}", "email": f"{tag}@example.org",
                                              "discord": f"w_{tag}", "home_address": "1 Main St, Hoboken, NJ",
                                              "password": pw})
        out.append(Probe(f"register with password {pw!r}", "POST /players", f"{r.status_code} "
                         f"{r.json().get('reason') if r.status_code != 201 else ''}", r.status_code == 422))
    return out


def private_answers(http: httpx.Client, org: Player) -> list[Probe]:
    _, email, pw = register(http)
    me = sign_in(http, email, pw)
    out = []
    for who, path in ((me, "/me"), (me, "/me/hand"), (org, "/admin/players")):
        r = http.get(API + path, headers=who.auth | {"Accept-Encoding": "gzip"})
        out.append(Probe(f"{path}: cache and compression", "GET with Accept-Encoding: gzip",
                         f"{r.status_code} cache-control={r.headers.get('cache-control')} "
                         f"content-encoding={r.headers.get('content-encoding')}",
                         r.headers.get("cache-control") == "no-store" and "content-encoding" not in r.headers))
    return out


def _open_after(port: int, sent: bytes, wait_s: float) -> str:
    """What a socket that sent ``sent`` and nothing more saw within ``wait_s``."""
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(wait_s)
    t0 = time.monotonic()
    try:
        s.sendall(sent)
        data = b""
        while chunk := s.recv(4096):
            data += chunk
        first = data.split(b"\r\n", 1)[0].decode() or "nothing"
        return f"closed after {time.monotonic() - t0:.0f} s ({first})"
    except TimeoutError:
        return f"open after {wait_s:.0f} s"
    finally:
        s.close()


def slowloris(stack: Stack) -> list[Probe]:
    cases = [("unfinished headers", b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a"),
             ("14 of 400 body bytes", b"POST " + API.encode() + b"/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              b"Content-Type: application/json\r\nContent-Length: 400\r\n\r\n{\"email\": \"a")]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        saw = list(pool.map(lambda c: _open_after(stack.http_port, c[1], 40), cases))
    return [Probe(f"slowloris: {what}", "one socket, then silence", s, s.startswith("closed"))
            for (what, _), s in zip(cases, saw, strict=True)]


def banner_and_csp(http: httpx.Client) -> list[Probe]:
    r = http.get("/watch")
    csp = {d.split()[0]: d.split()[1:] for d in r.headers.get("content-security-policy", "").split("; ") if d}
    wide = [f"{k} {v}" for k in ("connect-src", "img-src") for v in csp.get(k, []) if v in ("ws:", "wss:", "https:")]
    return [Probe("server banner", "GET /watch", f"server={r.headers.get('server')}", "server" not in r.headers),
            Probe("CSP: any host for sockets and images", "GET /watch", ", ".join(wide) or "own hosts only",
                  bool(csp) and not wide)]


def origin_other_port(stack: Stack) -> Probe:
    saw = socket_from(stack, "http://127.0.0.1:3000")
    return Probe("spectator socket from another port of the host", "WS /ws/scores, Origin http://127.0.0.1:3000",
                 saw, saw.startswith("closed 1008") or saw.startswith("refused"))


def probes(stack: Stack, http: httpx.Client, org: Player) -> list[Probe]:
    """Every probe of this module, in order."""
    return [owner_under_attack(stack, http), organizer_during_hash_flood(stack), *weak_passwords(http),
            *private_answers(http, org), *slowloris(stack), *banner_and_csp(http), origin_other_port(stack)]
