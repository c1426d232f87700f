"""Web Push on ``pywebpush`` (RFC 8030 delivery, RFC 8291 encryption, RFC 8292 VAPID): the
:class:`turf_notify.ports.PushSender` of the service, and the VAPID keys."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from py_vapid import Vapid, b64urlencode
from pywebpush import WebPushException, webpush

from turf_notify.ports import Subscription

TTL = 12 * 3600   # seconds the push service keeps an undelivered push (a phone off overnight still gets it)


def new_private_key() -> str:
    """A new VAPID private key: base64url (no padding) of the raw 32-byte P-256 scalar."""
    key = ec.generate_private_key(ec.SECP256R1())
    return str(b64urlencode(key.private_numbers().private_value.to_bytes(32, "big")))


def public_key(private_key: str) -> str:
    """The browser's ``applicationServerKey``: base64url of the uncompressed P-256 point (65 bytes)."""
    v = Vapid.from_string(private_key)
    return str(b64urlencode(v.public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)))


class WebPushSender:
    """Encrypts and posts one push per call (pywebpush is synchronous: in a worker thread). ``subject`` is the
    VAPID contact (``mailto:…``), which push services use to reach the sender."""

    def __init__(self, private_key: str, subject: str) -> None:
        self.vapid = Vapid.from_string(private_key)
        self.subject = subject

    async def send(self, sub: Subscription, payload: dict[str, Any]) -> int:
        info = {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}

        def post() -> int:
            try:
                resp = webpush(info, json.dumps(payload), vapid_private_key=self.vapid,
                               vapid_claims={"sub": self.subject}, ttl=TTL, timeout=10)
            except WebPushException as e:
                if e.response is not None:
                    return int(e.response.status_code)
                raise
            return int(resp.status_code)  # type: ignore[union-attr]

        return await asyncio.to_thread(post)
