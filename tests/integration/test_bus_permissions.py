"""The bus and the databases: on the real stack with its embedded servers, nobody without this data directory's
credentials gets into NATS, PostgreSQL or Redis, and a service's NATS user may publish and subscribe only on its own
subjects. Each test here failed on the code before the servers took passwords (open servers, trust auth, one superuser,
``_INBOX.>`` for all)."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import nats
import psycopg
import pytest
import redis
from nats.js import api as jsapi

from tests.support.bus import submit_cmd
from turf_common.bus import feed_stream, inbox_prefix
from turf_common.contracts import subjects
from turf_common.contracts.cards import AdjustHand
from turfwar import embedded
from turfwar.stack import Stack

# services started by python -m, so /proc/<pid>/environ is the environment each was started with (a forked
# service's shows the warm process's); the same variables reach a forked one (turfwar.launcher)
STACK_ENV = {"TURF_LAUNCH": "exec"}

NOW = datetime.fromisoformat("2026-10-05T10:00:00-04:00")


def _bare(stack: Stack) -> str:
    return stack.servers["nats"].extra["bare"]


async def _connect(stack: Stack, user: str, errors: list[str]) -> Any:
    """A raw nats-py client with ``user``'s credentials and inboxes (as turf_common.bus.make_broker makes them);
    the server's complaints (lower-cased) land in ``errors``."""
    async def on_error(e: Exception) -> None:
        errors.append(str(e).lower())

    return await nats.connect(stack.nats_url_for(user), error_cb=on_error, max_reconnect_attempts=0,
                              allow_reconnect=False, connect_timeout=3, inbox_prefix=inbox_prefix(user))


def test_a_client_without_credentials_is_refused(stack: Stack) -> None:
    async def go() -> None:
        for url in (_bare(stack), embedded.with_credentials(_bare(stack), "scoring", "guessed")):
            with pytest.raises(nats.errors.Error, match="Authorization Violation"):
                await nats.connect(url, max_reconnect_attempts=0, allow_reconnect=False, connect_timeout=3)

    asyncio.run(go())


@pytest.mark.parametrize(("user", "subject"), [
    ("scoring", subjects.CLAIMS_SUBMIT), ("scoring", subjects.CARDS_ADJUST), ("claims", subjects.SCORING_ADJUST),
    ("cards", subjects.CLAIMS_SUBMIT), ("geo-verify", subjects.CARDS_ADJUST), ("clock", subjects.CLAIMS_CORRECT),
    ("scoring", subjects.CLAIM_ACCEPTED), ("cards", subjects.TERRITORY_CHANGED), ("claims", subjects.SCORE_UPDATED),
    # notifications are private and announcements the organizer's, both only the notify service's
    ("notify", subjects.CLAIM_ACCEPTED), ("scoring", subjects.ANNOUNCEMENT_PUBLISHED),
    ("gateway", subjects.ANNOUNCEMENT_PUBLISHED), ("cards", subjects.NOTIFY_ANNOUNCE),
    # only the modes service resolves turns and says mode.*; it asks nobody for anything
    ("gateway", subjects.MODE_TURN_RESOLVED), ("cards", subjects.MODES_RESOLVE), ("modes", subjects.CLAIMS_CORRECT),
    # the claim path is a pipeline: the claims service takes claims only as geo-verify hands them on (R7, R7.1)
    ("gateway", subjects.CLAIMS_VERIFIED_SUBMIT), ("cards", subjects.CLAIMS_VERIFIED_CHECK),
    ("claims", subjects.CLAIMS_VERIFIED_SUBMIT),
])
def test_a_services_credentials_cannot_publish_another_services_commands_or_events(
        stack: Stack, user: str, subject: str) -> None:
    """The server refuses the publish (a permissions violation to the sender) and nobody receives it: a command
    asked with another service's user gets no reply."""
    body = (submit_cmd("p-" + uuid.uuid4().hex[:6], "T1", NOW) if subject == subjects.CLAIMS_SUBMIT else
            AdjustHand(correction_id=uuid.uuid4().hex, player_id="p", add=["joker"], remove=[])  # type: ignore[list-item]
            ).model_dump_json().encode()

    async def go() -> list[str]:
        errors: list[str] = []
        nc = await _connect(stack, user, errors)
        admin = await nats.connect(stack.env["TURF_NATS_URL"])
        seen: list[bytes] = []

        async def saw(m: Any) -> None:
            seen.append(m.data)

        watch = await admin.subscribe(subject, cb=saw)
        await admin.flush()
        try:
            with pytest.raises((nats.errors.TimeoutError, nats.errors.NoRespondersError)):
                await nc.request(subject, body, timeout=1.0)
            await asyncio.sleep(0.2)
            assert seen == []
        finally:
            await watch.unsubscribe()
            await nc.close()
            await admin.close()
        return errors

    errors = asyncio.run(go())
    assert any(f'permissions violation for publish to "{subject.lower()}"' in e for e in errors), errors


def test_a_service_may_still_ask_what_it_needs(stack: Stack) -> None:
    """The other side of the allow-lists: the gateway's user asks claims (claims.state) and gets its answer."""
    async def go() -> None:
        errors: list[str] = []
        nc = await _connect(stack, "gateway", errors)
        try:
            reply = await nc.request(subjects.CLAIMS_STATE, b"{}", timeout=10)
            assert json.loads(reply.data)["ok"] is True, reply.data
        finally:
            await nc.close()
        assert errors == []

    asyncio.run(go())


@pytest.mark.parametrize("subject", ["_INBOX.>", "_INBOX.gateway.>", subjects.CLAIMS_SUBMIT, "player.>"])
def test_a_service_cannot_listen_to_others_replies_or_commands(stack: Stack, subject: str) -> None:
    """Replies come to each process's own inboxes (``_INBOX.<name>.``): scoring's user may not read the gateway's
    (hands, sessions), nor another service's commands or events it does not own."""
    async def go() -> list[str]:
        errors: list[str] = []
        nc = await _connect(stack, "scoring", errors)
        try:
            await nc.subscribe(subject)
            await nc.flush()
            await asyncio.sleep(0.3)
        finally:
            await nc.close()
        return errors

    errors = asyncio.run(go())
    assert any(f'permissions violation for subscription to "{subject.lower()}"' in e for e in errors), errors


def test_a_service_cannot_delete_or_purge_the_event_log(stack: Stack) -> None:
    async def go() -> list[str]:
        errors: list[str] = []
        nc = await _connect(stack, "claims", errors)
        js = nc.jetstream(timeout=1.0)
        try:
            for call in (js.purge_stream, js.delete_stream):
                with pytest.raises(nats.errors.TimeoutError):
                    await call(stack.env["TURF_STREAM"])
            assert (await js.stream_info(stack.env["TURF_STREAM"])).config.name == stack.env["TURF_STREAM"]
        finally:
            await nc.close()
        return errors

    errors = asyncio.run(go())
    assert any("permissions violation for publish" in e and "stream.purge" in e for e in errors), errors
    assert any("permissions violation for publish" in e and "stream.delete" in e for e in errors), errors


def test_each_service_process_connects_as_its_own_user(stack: Stack) -> None:
    for name, proc in stack.procs.items():
        env = Path(f"/proc/{proc.pid}/environ").read_bytes().split(b"\0")
        url = next(e for e in env if e.startswith(b"TURF_NATS_URL=")).decode().split("=", 1)[1]
        assert url.startswith(f"nats://{name.split('#')[0]}:"), embedded.redact(url)


def test_postgres_asks_a_password_and_the_services_are_no_superuser(stack: Stack) -> None:
    url = stack.env["TURF_DATABASE_URL"]
    assert url.startswith(f"postgresql://{embedded.DB_ROLE}:")
    host = url.split("@", 1)[1]
    for who in ("postgres", embedded.DB_ROLE):
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(f"postgresql://{who}@{host}", connect_timeout=3).close()
        with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
            psycopg.connect(f"postgresql://{who}:wrong@{host}", connect_timeout=3).close()
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles "
                           "WHERE rolname = current_user").fetchone()
        assert row == (False, False, False)
        assert conn.execute("SELECT setting FROM pg_settings WHERE name = 'listen_addresses'").fetchone() == (
            "127.0.0.1",)


def test_redis_asks_a_password(stack: Stack) -> None:
    url = stack.env["TURF_REDIS_URL"]
    bare = "redis://" + url.split("@", 1)[1]
    with pytest.raises(redis.exceptions.AuthenticationError):
        redis.Redis.from_url(bare).ping()
    with pytest.raises(redis.exceptions.AuthenticationError):
        redis.Redis.from_url(embedded.with_credentials(bare, None, "wrong")).ping()
    assert redis.Redis.from_url(url).ping() is True


def test_the_data_directory_and_its_secrets_are_private(stack: Stack) -> None:
    mode = stack.data_dir.stat().st_mode & 0o777
    if os.geteuid() == 0:   # postgres runs as "pgserver", which may only traverse (private_dir)
        import grp

        assert mode == 0o710 and grp.getgrgid(stack.data_dir.stat().st_gid).gr_name == embedded.PG_SERVER_USER
    else:
        assert mode == 0o700
    for f in (embedded.SECRETS_FILE, "nats.conf", "redis.conf", "vapid-private-key"):   # the last: the Web Push key
        assert stat.S_IMODE((stack.data_dir / f).stat().st_mode) == 0o600, f
    stack.write_manifest()   # `turfwar up`'s stack.json: the admin URLs
    try:
        assert stat.S_IMODE((stack.data_dir / "stack.json").stat().st_mode) == 0o600
    finally:
        (stack.data_dir / "stack.json").unlink()


def test_no_log_shows_a_password(stack: Stack) -> None:
    passwords = json.loads((stack.data_dir / embedded.SECRETS_FILE).read_text()).values()
    logs = [*stack.data_dir.glob("*.log"), *(stack.data_dir / "logs").glob("*.log")]
    assert len(logs) >= 9
    for log in logs:
        text = log.read_text(errors="replace")
        assert not [p for p in passwords if p in text], log.name


def test_urls_are_shown_without_their_passwords() -> None:
    assert embedded.redact("nats://claims:s3cr3t@127.0.0.1:4222,nats://claims:s3cr3t@h2:4222") == (
        "nats://claims:***@127.0.0.1:4222,nats://claims:***@h2:4222")
    assert embedded.redact("redis://:pw@127.0.0.1:6379/0") == "redis://:***@127.0.0.1:6379/0"
    assert embedded.redact("postgresql://turfwar@127.0.0.1/x") == "postgresql://turfwar@127.0.0.1/x"
    assert embedded.with_credentials("nats://a:1,nats://b:2", "u", "p") == "nats://u:p@a:1,nats://u:p@b:2"


def test_every_line_every_service_logs_is_json(stack: Stack) -> None:
    """Alembic's, uvicorn's (the access log, with the request's trace id), nats', sqlalchemy's lines
    are JSON objects like structlog's own, each naming its service."""
    import httpx

    httpx.get(stack.base_url + "/api/v1/clock", headers={"traceparent": f"00-{'ab' * 16}-{'cd' * 8}-01"})
    logs = sorted((stack.data_dir / "logs").glob("*.log"))
    assert {p.stem for p in logs} >= {"gateway", "claims", "cards", "scoring", "clock", "geo-verify", "notify"}
    lines: dict[str, list[dict[str, Any]]] = {}
    for log in logs:
        for n, line in enumerate(log.read_text(errors="replace").splitlines(), 1):
            if line.strip():
                try:
                    obj = json.loads(line)
                except ValueError:
                    pytest.fail(f"{log.name}:{n} is not JSON: {line[:200]}")
                assert isinstance(obj, dict) and obj.get("service") == log.stem.split("#")[0], (log.name, n, line)
                lines.setdefault(log.stem, []).append(obj)
    gateway = lines["gateway"]
    assert any(o.get("logger") == "alembic.runtime.migration" for o in gateway), "alembic lines are JSON too"
    access = [o for o in gateway if o.get("logger") == "uvicorn.access" and "/api/v1/clock" in o["event"]]
    assert access and access[-1]["trace_id"] == "ab" * 16, access[-3:]


# ---- the JetStream API ---------------------------------------------------------------------------------------------
def _violations(errors: list[str], what: str) -> list[str]:
    return [e for e in errors if "permissions violation for publish" in e and what in e]


async def _refused(call: Any) -> None:
    """``call()`` gets no answer: the server dropped the request (a permissions violation to the sender)."""
    with pytest.raises(nats.errors.TimeoutError):
        await call()


@pytest.mark.parametrize("user", ["geo-verify", "notify", "claims", "gateway"])
def test_a_service_cannot_make_a_durable_consumer_reading_private_draws(stack: Stack, user: str) -> None:
    """A probe with geo-verify's password made a consumer filtered on ``card.drawn`` and read players' private draws:
    now no service's user may create a durable consumer, by either subject the API offers for it."""
    stream = stack.env["TURF_STREAM"]

    async def go() -> list[str]:
        errors: list[str] = []
        nc = await _connect(stack, user, errors)
        js = nc.jetstream(timeout=1.0)
        try:
            for config in (jsapi.ConsumerConfig(durable_name="probe", filter_subject=subjects.CARD_DRAWN),
                           jsapi.ConsumerConfig(name="probe", durable_name="probe",
                                                filter_subject=subjects.CARD_DRAWN)):
                await _refused(lambda c=config: js.add_consumer(stream, c))   # type: ignore[misc]
        finally:
            await nc.close()
        return errors

    errors = asyncio.run(go())
    assert _violations(errors, "consumer.durable.create"), errors
    assert _violations(errors, f"consumer.create.{stream.lower()}.probe"), errors


@pytest.mark.parametrize("user", ["geo-verify", "notify", "scoring"])
def test_a_service_without_a_feed_cannot_make_even_an_ephemeral_consumer(stack: Stack, user: str) -> None:
    """The services that read no stream through an ordered consumer may not create one (geo-verify's ephemeral
    consumer of ``card.drawn`` read three players' draws)."""
    stream = stack.env["TURF_STREAM"]

    async def go() -> list[str]:
        errors: list[str] = []
        nc = await _connect(stack, user, errors)
        js = nc.jetstream(timeout=1.0)
        try:
            await _refused(lambda: js.add_consumer(stream, jsapi.ConsumerConfig(
                filter_subject=subjects.CARD_DRAWN, deliver_subject=f"_INBOX.{user}.probe")))
            await _refused(lambda: js.pull_subscribe(subjects.CARD_DRAWN, stream=stream))
        finally:
            await nc.close()
        return errors

    errors = asyncio.run(go())
    assert _violations(errors, f'"$js.api.consumer.create.{stream.lower()}"'), errors


def test_the_gateways_ephemeral_consumers_cannot_take_over_a_durable(stack: Stack) -> None:
    """The gateway creates ephemeral (ordered) consumers for its feed, through the legacy ephemeral subject of the
    feed stream, which the server refuses a durable name: it cannot redefine its own durable (``gateway-history``:
    filter, start) that way; and that subject of the event stream, where cards' durable is, it may no longer use."""
    stream = stack.env["TURF_STREAM"]
    feed = feed_stream(stream)

    async def go() -> list[str]:
        errors: list[str] = []
        nc = await _connect(stack, "gateway", errors)
        admin = await nats.connect(stack.env["TURF_NATS_URL"])
        try:
            for on, durable in ((stream, "cards"), (feed, "gateway-history")):
                before = (await admin.jetstream().consumer_info(on, durable)).config
                req = {"stream_name": on, "config": jsapi.ConsumerConfig(
                    durable_name=durable, filter_subject=subjects.CARD_DRAWN,
                    deliver_policy=jsapi.DeliverPolicy.ALL).as_dict()}
                ask = nc.request(f"$JS.API.CONSUMER.CREATE.{on}", json.dumps(req).encode(), timeout=2)
                if on == stream:
                    with pytest.raises(nats.errors.TimeoutError):   # dropped: a permissions violation
                        await ask
                else:
                    reply = json.loads((await ask).data)
                    assert "error" in reply, reply
                after = (await admin.jetstream().consumer_info(on, durable)).config
                assert (after.filter_subjects, after.filter_subject) == (before.filter_subjects, before.filter_subject)
        finally:
            await nc.close()
            await admin.close()
        return errors

    errors = asyncio.run(go())
    assert _violations(errors, f'"$js.api.consumer.create.{stream.lower()}"'), errors
    assert not _violations(errors, f'"$js.api.consumer.create.{feed.lower()}"'), errors


def test_the_gateways_user_reads_no_private_event_whatever_consumer_it_makes(stack: Stack) -> None:
    """A hole left open by the first round of per-service permissions: the gateway's user made an ephemeral consumer of
    the event stream with any filter (a private subject's history among them). Now it may make none on the event stream
    (one reading ``card.drawn``'s history, one reading a flag's), and on the feed stream, the only one it may, no filter
    finds a private event: asked for private subjects it gets nothing, asked for everything it gets the feed's subjects
    alone (a public event published with the private ones among them)."""
    from turf_gateway.feed.relay import feed_subjects

    stream = stack.env["TURF_STREAM"]
    feed = feed_stream(stream)
    marker = uuid.uuid4().hex.encode()
    private = [subjects.FLAG_RAISED, subjects.CLAIM_REJECTED, subjects.CARD_ADJUSTED]   # nobody consumes these

    async def go() -> list[str]:
        errors: list[str] = []
        admin = await nats.connect(stack.env["TURF_NATS_URL"])
        ajs = admin.jetstream()
        for subject in [private[0], subjects.CARD_SEED_COMMITTED, *private[1:]]:   # the public one among them
            await ajs.publish(subject, b'{"probe": "' + marker + b'"}')
        for _ in range(100):   # sourced into the feed stream within milliseconds
            last = await ajs.get_last_msg(feed, subjects.CARD_SEED_COMMITTED)
            if marker in last.data:
                break
            await asyncio.sleep(0.05)
        else:
            pytest.fail("the public event never reached the feed stream")
        nc = await _connect(stack, "gateway", errors)
        js = nc.jetstream(timeout=1.0)
        try:
            for filters in ([subjects.CARD_DRAWN], [subjects.FLAG_RAISED]):
                await _refused(lambda f=filters: js.add_consumer(stream, jsapi.ConsumerConfig(   # type: ignore[misc]
                    filter_subjects=f, deliver_subject="_INBOX.gateway.probe")))
                await _refused(lambda f=filters: js.subscribe(   # type: ignore[misc]
                    "", stream=stream, ordered_consumer=True, config=jsapi.ConsumerConfig(filter_subjects=f)))
            for filters in ([*private], ["flag.>", "claim.>", "player.>", "notification.>", "protection.>"]):
                sub = await js.subscribe("", stream=feed, ordered_consumer=True, config=jsapi.ConsumerConfig(
                    filter_subjects=filters, deliver_policy=jsapi.DeliverPolicy.ALL))
                with pytest.raises(nats.errors.TimeoutError):
                    await sub.next_msg(timeout=1.0)
                await sub.unsubscribe()
            sub = await js.subscribe("", stream=feed, ordered_consumer=True,
                                     config=jsapi.ConsumerConfig(deliver_policy=jsapi.DeliverPolicy.ALL))
            seen: list[tuple[str, bytes]] = []
            while True:
                m = await sub.next_msg(timeout=5.0)
                seen.append((m.subject, m.data))
                if m.metadata.num_pending == 0:
                    break
            await sub.unsubscribe()
        finally:
            await nc.close()
            await admin.close()
        assert {subject for subject, _ in seen} <= set(feed_subjects())
        assert [subject for subject, data in seen if marker in data] == [subjects.CARD_SEED_COMMITTED]
        return errors

    errors = asyncio.run(go())
    assert _violations(errors, f'"$js.api.consumer.create.{stream.lower()}"'), errors


@pytest.mark.parametrize("user", ["geo-verify", "notify", "gateway"])
def test_a_service_cannot_delete_another_services_durable_nor_change_or_add_streams(
        stack: Stack, user: str) -> None:
    """Deleting the ``cards`` durable, pulling from it (its events: private draws' sources), ``STREAM.UPDATE`` of the
    event stream (a purge under another name) and a new stream capturing the gateway's replies
    (``_INBOX.gateway.>``): all refused, and all still as they were."""
    stream = stack.env["TURF_STREAM"]

    async def go() -> list[str]:
        errors: list[str] = []
        nc = await _connect(stack, user, errors)
        js = nc.jetstream(timeout=1.0)
        admin = await nats.connect(stack.env["TURF_NATS_URL"])
        ajs = admin.jetstream()
        try:
            cfg = (await ajs.stream_info(stream)).config
            await _refused(lambda: js.delete_consumer(stream, "cards"))
            await _refused(lambda: nc.request(f"$JS.API.CONSUMER.MSG.NEXT.{stream}.cards",
                                              b'{"batch": 1, "expires": 500000000}', timeout=1.0))
            await _refused(lambda: js.update_stream(cfg.evolve(max_msgs=1)))
            await _refused(lambda: js.add_stream(jsapi.StreamConfig(name="PROBE", subjects=["_INBOX.gateway.>"])))
            assert (await ajs.consumer_info(stream, "cards")).name == "cards"
            assert (await ajs.stream_info(stream)).config.max_msgs == cfg.max_msgs
            with pytest.raises(nats.js.errors.NotFoundError):
                await ajs.stream_info("PROBE")
        finally:
            await nc.close()
            await admin.close()
        return errors

    errors = asyncio.run(go())
    assert _violations(errors, f"consumer.delete.{stream.lower()}.cards"), errors
    assert _violations(errors, f"consumer.msg.next.{stream.lower()}.cards"), errors
    assert _violations(errors, f"stream.update.{stream.lower()}"), errors
    assert _violations(errors, "stream.create.probe"), errors


def test_the_permissions_name_the_consumers_the_set_up_declares() -> None:
    """natsauth's table of durables per user is the bus set-up's (turfwar.bussetup): a service is allowed exactly
    the consumers it binds to."""
    from turfwar import bussetup, natsauth

    declared: dict[str, list[str]] = {}
    for d in bussetup.durables():
        declared.setdefault(d.user, []).append(d.name)
    assert declared == natsauth.CONSUMERS
    # the feed log's durable, alone on the feed stream
    assert {d.name for d in bussetup.durables() if d.feed} == natsauth.ON_FEED == {"gateway-history"}
