"""The live probes of "Nobody gets in, round two" (and of round three's sign-in and edge,
``bench/probes_signin.py``), rerun against a rehearsal stack (manual clock,
embedded servers on loopback, the default rate limits and the real argon2 cost), each printed with what it tried,
what it saw and whether the hole is closed.

    .venv/bin/python -m bench.probes            # ~2 min; exit status 1 when any probe gets in
    .venv/bin/python -m bench.probes --out F    # the table into F as well
    .venv/bin/python -m bench.probes --only signin   # the sign-in and edge probes alone

Each probe here also has a test that fails without its fix (docs/reliability.md names them); this script is the
attacker's view of the whole stack at once, for an organizer before game day or a reviewer after a change."""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import nats
from nats.js import api as jsapi

from bench import mode_probes, probes_signin
from bench.probing import Probe, socket_from
from tests.support.client import API, Player, move_clock, organizer, register, sign_in, verified_player
from tests.support.proxied import PROXY, burst, proxy_client
from tests.support.stackfix import running_stack
from turf_common.bus import inbox_prefix
from turfwar.stack import Stack

ORIGIN = "https://turfwar.example"
MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


# ---- the bus ------------------------------------------------------------------------------------------------------

async def _as_geo_verify(stack: Stack) -> list[Probe]:
    """With geo-verify's own password (a service that needs no consumer at all), try what the first probe did."""
    user, stream = "geo-verify", stack.env["TURF_STREAM"]
    nc = await nats.connect(stack.nats_url_for(user), inbox_prefix=inbox_prefix(user), allow_reconnect=False,
                            max_reconnect_attempts=0, connect_timeout=3, error_cb=_ignore)
    js = nc.jetstream(timeout=2)
    attempts: list[tuple[str, Any]] = [
        ("read private draws", lambda: js.add_consumer(stream, jsapi.ConsumerConfig(
            filter_subject="card.drawn", deliver_policy=jsapi.DeliverPolicy.ALL, ack_policy=jsapi.AckPolicy.NONE))),
        ("delete the cards durable", lambda: js.delete_consumer(stream, "cards")),
        ("update (purge) the stream", lambda: js.update_stream(jsapi.StreamConfig(name=stream, subjects=["x.>"]))),
        ("capture the gateway's replies", lambda: js.add_stream(jsapi.StreamConfig(
            name="SNOOP" + uuid.uuid4().hex[:6].upper(), subjects=["_INBOX.gateway.>"]))),
    ]
    probes = []
    for what, call in attempts:
        try:
            await call()
            saw, closed = "allowed", False
        except Exception as e:  # a permission violation surfaces as a time-out or an API error
            saw, closed = f"refused ({type(e).__name__})", True
        probes.append(Probe(f"bus: {what}", f"JetStream API as {user}", saw, closed))
    info = await js.stream_info(stream)
    await nc.close()
    # the gateway's own user (its feed makes ephemeral consumers): on the event stream, none at all (the
    # feed reads <stream>_FEED, which holds the public subjects alone)
    gw = await nats.connect(stack.nats_url_for("gateway"), inbox_prefix=inbox_prefix("gateway"),
                            allow_reconnect=False, max_reconnect_attempts=0, connect_timeout=3, error_cb=_ignore)
    try:
        await gw.jetstream(timeout=2).add_consumer(stream, jsapi.ConsumerConfig(
            filter_subject="flag.raised", deliver_policy=jsapi.DeliverPolicy.ALL, ack_policy=jsapi.AckPolicy.NONE))
        saw, closed = "allowed", False
    except Exception as e:
        saw, closed = f"refused ({type(e).__name__})", True
    await gw.close()
    probes.append(Probe("bus: read the flags' history", "an ephemeral consumer as gateway", saw, closed))
    # sized by bytes, refusing rather than dropping when full (an age limit would drop the season's history;
    # events then wait in the outboxes), and no single event larger than the cap
    c = info.config
    limited = bool(c.max_bytes and c.max_bytes > 0 and c.max_msg_size and c.discard == jsapi.DiscardPolicy.NEW)
    probes.append(Probe("bus: stream limits", "stream info", f"max_bytes={c.max_bytes} max_msg_size={c.max_msg_size} "
                        f"discard={getattr(c.discard, 'value', c.discard)}", limited))
    return probes


async def _ignore(e: Exception) -> None:
    return None


# ---- the gateway --------------------------------------------------------------------------------------------------

def _towns(http: httpx.Client) -> dict[str, tuple[float, float]]:
    out = {}
    for f in http.get(API + "/board").json()["features"]:
        p = f["properties"]
        out[p["name"]] = (p["label_point"]["lat"], p["label_point"]["lon"])
    return out


def flag_flood(stack: Stack, http: httpx.Client, org: Player) -> Probe:
    """Twelve new pending accounts make 25 checks each between two towns 80 km apart (the first probe's flood)."""
    towns = _towns(http)
    a, b = towns["Hoboken"], towns["Montague"]
    ids = []
    for _ in range(12):
        pid, email, pw = register(http)
        ids.append(pid)
        p = sign_in(http, email, pw)
        for i in range(25):
            lat, lon = a if i % 2 else b
            p.claim(lat, lon, MON + timedelta(seconds=i), check=True)
    r = org.get("/admin/flags")
    theirs = [f for f in r.json().get("flags", []) if f.get("player_id") in ids] if r.status_code == 200 else []
    return Probe("flag flood (12 pending × 25 checks)", "GET /admin/flags after the flood",
                 f"{r.status_code}, {len(r.content)} B, {len(theirs)} flags of theirs",
                 r.status_code == 200 and not theirs)


def signin_burst(stack: Stack, http: httpx.Client) -> list[Probe]:
    _, email, _ = register(http)
    answers = burst(stack, 40, lambda c, i: c.post(API + "/sessions", json={"email": email, "password": f"g{i}"},
                                                    headers={"X-Forwarded-For": "198.18.29.1"}))
    counts = {s: sum(a.status_code == s for a in answers) for s in {a.status_code for a in answers}}
    tried = sum(a.status_code == 401 for a in answers)
    out = [Probe("sign-in: 40 wrong passwords at once", "POST /sessions ×40, one address", str(counts), tried <= 10)]
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        _, e2, _ = register(http)
        storm = pool.submit(burst, stack, 40, lambda c, i: c.post(
            API + "/sessions", json={"email": e2, "password": f"w{i}"}, headers={"X-Forwarded-For": f"198.18.30.{i}"}))
        time.sleep(0.3)
        t0 = time.monotonic()
        ok = organizer(http)
        took = time.monotonic() - t0
        storm.result()
    out.append(Probe("sign-in: organizer during a burst", "right password amid 40 hashes", f"in after {took:.1f} s",
                     bool(ok.token) and took < 5))
    return out


def disqualified_signs_in(http: httpx.Client, org: Player) -> Probe:
    pid, email, pw = register(http)
    org.post(f"/admin/players/{pid}/verify", {"reason": "probe"})
    org.post(f"/admin/players/{pid}/disqualify", {"reason": "probe"})
    r = http.post(API + "/sessions", json={"email": email, "password": pw})
    return Probe("disqualified player signs in", "POST /sessions", f"{r.status_code} {r.json().get('reason')}",
                 r.status_code == 403 and r.json().get("reason") == "not_eligible")


def far_future_fix(http: httpx.Client, org: Player) -> Probe:
    p = verified_player(http, org)
    lat, lon = _towns(http)["Hoboken"]
    body = {"lat": lat, "lon": lon, "accuracy_m": 8, "fix_time": "9999-12-31T23:59:59-14:00"}
    first = p.post("/claims/check", body)
    then = p.claim(lat, lon, MON, check=True)
    return Probe("fix dated 9999-12-31T23:59:59-14:00", "POST /claims/check, then a sane check",
                 f"{first.status_code} {first.json().get('reason')}, then {then.status_code}",
                 first.status_code == 422 and then.status_code == 200)


def push_endpoints(http: httpx.Client, org: Player) -> list[Probe]:
    p = verified_player(http, org)
    keys = {"p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
            "auth": "tBHItJI5svbpez7KI4CCXg"}
    out = []
    for url in ("https://169.254.169.254/latest/meta-data", "https://nats.internal:4222/x",
                "https://fcm.googleapis.com.evil.example/x"):
        r = p.put("/me/push", {"endpoint": url, "keys": keys})
        out.append(Probe(f"push endpoint {url.split('/')[2]}", "PUT /me/push", str(r.status_code),
                         r.status_code == 422))
    codes = [p.put("/me/push", {"endpoint": f"https://fcm.googleapis.com/fcm/send/probe{i}", "keys": keys}).status_code
             for i in range(12)]
    out.append(Probe("push: 12 subscriptions in an hour", "PUT /me/push ×12", f"{codes.count(204)}×204, "
                     f"{codes.count(429)}×429", codes.count(204) <= 10 and 429 in codes))
    return out


def ipv6_64(stack: Stack, http: httpx.Client) -> Probe:
    """Failed sign-ins to one account from eleven addresses of one /64 (sessions_email: 10 a minute per client)."""
    _, email, _ = register(http)
    with proxy_client(stack) as c:
        codes = [c.post(API + "/sessions", json={"email": email, "password": "nope"},
                        headers={"X-Forwarded-For": f"2001:db8:29:7::{i + 1:x}"}).status_code for i in range(11)]
    return Probe("IPv6: one /64, 11 addresses", "wrong passwords, one account", f"{codes.count(401)}×401, "
                 f"{codes.count(429)}×429", codes[-1] == 429)


def foreign_origin(stack: Stack) -> Probe:
    saw = socket_from(stack, "https://evil.example")
    return Probe("spectator socket from another site", "WS /ws/scores, Origin evil.example", saw,
                 saw.startswith("closed 1008") or saw.startswith("refused"))


def run(only_signin: bool = False) -> list[Probe]:
    with tempfile.TemporaryDirectory(prefix="turf-probes-") as d, running_stack(
            Path(d), TURF_RATE_LIMITS="default", TURF_PASSWORD_HASH="default", TURF_FORWARDED_ALLOW_IPS=PROXY,
            TURF_CORS_ORIGINS=ORIGIN) as stack, httpx.Client(base_url=stack.base_url, timeout=120) as http:
        org = organizer(http)
        move_clock(org, MON)
        if only_signin:   # round three's sign-in and edge probes alone (--only signin: a quicker rerun)
            return probes_signin.probes(stack, http, org)
        probes = asyncio.run(_as_geo_verify(stack))
        for step in (lambda: [flag_flood(stack, http, org)], lambda: signin_burst(stack, http),
                     lambda: [disqualified_signs_in(http, org)], lambda: [far_future_fix(http, org)],
                     lambda: push_endpoints(http, org), lambda: [ipv6_64(stack, http)],
                     lambda: [foreign_origin(stack)], lambda: probes_signin.probes(stack, http, org)):
            probes += step()
            print(f"  {probes[-1].name}: {'closed' if probes[-1].closed else 'OPEN'}", file=sys.stderr)
        probes += mode_probes.run(http, org)
        return probes


def table(probes: list[Probe]) -> str:
    rows = ["| probe | tried | saw | closed |", "|---|---|---|---|"]
    rows += [f"| {p.name} | {p.tried} | {p.saw} | {'yes' if p.closed else '**NO**'} |" for p in probes]
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--only", choices=["all", "signin"], default="all",
                    help="signin: only the sign-in and edge probes (bench/probes_signin.py)")
    args = ap.parse_args()
    probes = run(only_signin=args.only == "signin")
    text = table(probes)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    raise SystemExit(0 if all(p.closed for p in probes) else 1)


if __name__ == "__main__":
    main()
