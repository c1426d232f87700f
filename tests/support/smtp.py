"""A real SMTP server for the mail tests (aiosmtpd, in this process on a thread of its own): it keeps every message
it accepted, parsed, and can answer the next deliveries with a refusal (``451`` to defer, ``550`` to refuse)."""

from __future__ import annotations

import contextlib
import email
import email.policy
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller


@dataclass
class Inbox:
    """What the server received (``messages``, oldest first) and the answers to give next (``refusals``)."""

    url: str = ""
    messages: list[EmailMessage] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.refusals:
            return self.refusals.pop(0)
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        self.messages.append(msg)
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if m["To"] == address]


def text_of(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None, "no text/plain part"
    return str(part.get_content())  # type: ignore[attr-defined]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def smtp_server() -> Iterator[Inbox]:
    inbox = Inbox()
    port = _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    inbox.url = f"smtp://127.0.0.1:{port}"
    try:
        yield inbox
    finally:
        controller.stop()
