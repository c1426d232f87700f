"""R30: the message carrying a token's link is an outbox row of the token's transaction, handed to notify by the
gateway's relay after the commit (``OutboxBus``). A gateway that stops before handing it on leaves it to the next
relay (another process, a restart); a notify that does not answer leaves it for the next sweep; handed on, its
payload (the raw token) is blanked, and events of the same outbox still go to the stream. Real PostgreSQL; notify
and the stream as recording fakes."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import MetaData, insert, select, text

from tests.support.pg import scratch_postgres
from turf_common.bus import BusError
from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.notify import Done, QueueMail
from turf_common.db import make_engine
from turf_common.outbox import OutboxRelay, outbox_table, stage_command
from turf_gateway.adapters.outboxbus import COMMANDS, OutboxBus

M = TypeVar("M", bound=Message)
MAIL = QueueMail(command_id="c1", to="ada@example.org", kind="email_confirmation", name="Ada",
                 link="https://t.example/account?action=confirm&token=secret-token")


class Notify:
    def __init__(self) -> None:
        self.down, self.queued = True, []   # type: ignore[var-annotated]

    async def ask(self, subject: str, msg: Message, reply: type[M], timeout: float = 5.0) -> M:
        if self.down:
            raise BusError("no answer")
        self.queued.append((subject, msg))
        return Done()  # type: ignore[return-value]


class Stream:
    def __init__(self) -> None:
        self.published: list[str] = []

    async def publish(self, subject: str, data: bytes, msg_id: str, traceparent: str | None = None) -> None:
        self.published.append(subject)

    async def publish_many(self, rows: Sequence[tuple[str, bytes, str, str | None]], timeout: float = 5.0) -> None:
        self.published += [r[0] for r in rows]


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[str]:
    with scratch_postgres(tmp_path) as url:
        yield url


async def test_r30_a_mail_staged_with_its_token_reaches_notify_once_after_a_stop_and_an_outage(
        database: str) -> None:
    schema = "mail_" + uuid.uuid4().hex[:6]
    table = outbox_table(MetaData(schema=schema), schema)
    engine = make_engine(database)
    try:
        async with engine.begin() as conn:
            await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
            await conn.run_sync(table.metadata.create_all)
        async with engine.begin() as conn:   # the token's transaction (its row is the adapter's; not needed here)
            await stage_command(conn, table, subjects.NOTIFY_MAIL, MAIL.command_id, MAIL)
            await conn.execute(insert(table).values(event_id="e1", subject=subjects.PLAYER_RENAMED, payload="{}",
                                                    created_at=datetime.now(UTC)))
        # the gateway stopped here, before its flush; another relay over the same table takes over
        notify, stream = Notify(), Stream()
        relay = OutboxRelay(engine, table, OutboxBus(stream, notify), forget=list(COMMANDS))
        with pytest.raises(BusError):
            await relay.flush()                      # notify away: nothing marked sent
        assert notify.queued == [] and await _payloads(engine, table) == [MAIL.model_dump_json(), "{}"]
        notify.down = False
        assert await relay.flush() == 2
        assert await relay.flush() == 0              # once
        assert notify.queued == [(subjects.NOTIFY_MAIL, MAIL)] and stream.published == [subjects.PLAYER_RENAMED]
        assert await _payloads(engine, table) == ["", "{}"]   # the token's link is kept nowhere now
    finally:
        await engine.dispose()


async def _payloads(engine: Any, table: Any) -> list[str]:
    async with engine.connect() as conn:
        return [r.payload for r in await conn.execute(select(table.c.payload).order_by(table.c.seq))]
