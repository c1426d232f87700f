"""The mail a stack with no SMTP relay writes as .eml files under its data directory (R30): the links of the
messages to one address, waited for while the notify service writes them."""

from __future__ import annotations

import email
import email.policy
import re
from pathlib import Path

from tests.support.client import until
from turfwar.stack import Stack


def eml_link(stack: Stack, to: str, pattern: str) -> str:
    """The first link matching ``pattern`` in a plain-text message written for ``to``."""
    def found() -> list[str]:
        out = []
        for path in (Path(stack.data_dir) / "mail").glob("*.eml"):
            msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            if msg["To"] == to:
                body = msg.get_body(preferencelist=("plain",))
                out += re.findall(pattern, body.get_content())  # type: ignore[union-attr]
        return out
    links = until(found, bool, timeout=20)
    assert links, f"no message for {to} with a link like {pattern}"
    return links[0]  # type: ignore[no-any-return]
