"""R30: mail never vanishes silently. A deployment without a relay (``TURF_SMTP_URL`` unset) says so at the notify
service's start (a warning), in its health answer, in ``turfwar status`` and on the organizer page's mail list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nats
import pytest
from faststream.nats import TestNatsBroker
from structlog.testing import capture_logs
from typer.testing import CliRunner

from turf_common.bus import make_broker
from turf_common.contracts import subjects
from turf_common.contracts.base import Health
from turf_common.contracts.notify import MailListReply
from turf_common.service import health_router
from turf_common.settings import MAIL_NOT_CONFIGURED, Settings
from turf_gateway.handlers.accounts import Accounts
from turf_gateway.testing import CannedServices, MemoryAccountTokens, MemoryPlayers, MemoryRelay, MemoryTables, NoLimits
from turf_notify.bootstrap import mail_health
from turfwar.cli import app

SENTENCE = "mail is not configured: players get no mail"


def test_the_sentence_is_the_one_the_organizer_reads() -> None:
    assert MAIL_NOT_CONFIGURED == SENTENCE


def test_notify_warns_at_start_without_a_relay_and_not_with_one(tmp_path: Path) -> None:
    with capture_logs() as logs:
        health = mail_health(Settings(data_dir=tmp_path))
    assert health == {"mail": SENTENCE}
    [warning] = [e for e in logs if e["event"] == "mail_not_configured"]
    assert warning["log_level"] == "warning" and warning["detail"] == SENTENCE
    assert warning["written_to"] == str(tmp_path / "mail")
    with capture_logs() as logs:
        assert mail_health(Settings(smtp_url="smtps://u:p@smtp.example.org:465")) == {}
    assert [e for e in logs if e["event"] == "mail_not_configured"] == []


async def test_the_health_answer_carries_it() -> None:
    broker = make_broker("nats://test", "notify")
    broker.include_router(health_router("notify", {"mail": SENTENCE}))
    broker.include_router(health_router("claims"))
    async with TestNatsBroker(broker) as br:
        notify = Health.model_validate_json((await br.request({}, subjects.health("notify"))).body)
        claims = Health.model_validate_json((await br.request({}, subjects.health("claims"))).body)
    assert notify.detail == {"mail": SENTENCE} and claims.detail == {}


class _Reply:
    def __init__(self, data: bytes) -> None:
        self.data = data


class _Nats:
    """Every service answers its health; notify adds that no relay is set (as two replicas would, once said)."""

    def jetstream(self) -> _Nats:
        return self

    async def account_info(self) -> None:
        return None

    async def request(self, subject: str, _: bytes, timeout: float) -> _Reply:
        name = subject.split(".")[1]
        detail = {"mail": SENTENCE} if name == "notify" else {}
        return _Reply(Health(service=name, detail=detail).model_dump_json().encode())

    async def close(self) -> None:
        return None


def test_turfwar_status_prints_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    async def connect(**_: Any) -> _Nats:
        return _Nats()

    monkeypatch.setattr(nats, "connect", connect)
    monkeypatch.setenv("TURF_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("TURF_NATS_URL", "nats://nats.invalid:4222")
    r = CliRunner().invoke(app, ["status"], terminal_width=200)
    assert r.output.count(SENTENCE) == 1, r.output
    assert "notify" in r.output


@pytest.mark.parametrize("relay,warning", [(False, SENTENCE), (True, None)])
async def test_the_organizer_pages_mail_list_says_it(relay: bool, warning: str | None) -> None:
    tables = MemoryTables()
    services = CannedServices({subjects.NOTIFY_MAIL_LIST: MailListReply(mail=[], relay=relay)})
    accounts = Accounts(MemoryPlayers(tables), MemoryAccountTokens(tables), None, services,  # type: ignore[arg-type]
                        NoLimits(), "https://t.example", relay=MemoryRelay(tables, services))
    listed = await accounts.mail()
    assert listed.warning == warning and listed.mail == []


def test_the_organizer_page_shows_the_warning_on_its_dashboard() -> None:
    static = Path(__file__).resolve().parents[2] / "gateway" / "src" / "turf_gateway" / "static"
    assert 'id="mail-warning"' in (static / "admin.html").read_text()
    source = (static / "js" / "admin.js").read_text()
    assert 'warning.textContent = out.warning || ""' in source and "warning.hidden = !out.warning" in source
