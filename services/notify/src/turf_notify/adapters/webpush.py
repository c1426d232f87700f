"""Web Push on ``pywebpush`` (RFC 8030 delivery, RFC 8291 encryption, RFC 8292 VAPID): the
:class:`turf_notify.ports.PushSender` of the service, and the VAPID keys."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from py_vapid import Vapid, b64urlencode
from pywebpush import webpush

from turf_common.pushpolicy import allowed_push_endpoint
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


DEADLINE_S = 10.0        # a whole send, connect to last byte read: a trickling server is cut off there
MAX_ANSWER = 16 * 1024   # bytes of a push service's answer read at most (it is a status and a short message)
GONE = 410               # what a refused endpoint counts as: the subscription is dropped, never posted to


class _Recorder:
    """pywebpush's ``requests_session`` port, recording the encrypted request instead of sending it, so that the
    send is ours: pywebpush posts with ``requests`` (redirects followed, the whole answer read and un-gzipped,
    a per-read time-out only: a trickling server held every push behind it, a redirect reached internal hosts,
    a gzip bomb crashed notify)."""

    # read by pywebpush's log line after its "post"
    status_code, text = 201, ""
    headers: dict[str, str] = {}

    def post(self, url: str, *, data: bytes, headers: Any, timeout: float) -> _Recorder:
        self.url, self.data, self.request_headers = url, data, dict(headers)
        return self


class WebPushSender:
    """Encrypts one push (pywebpush: RFC 8291, VAPID) and posts it with httpx: no redirects, a total deadline of
    :data:`DEADLINE_S`, at most :data:`MAX_ANSWER` bytes of the answer read, nothing decompressed, and only to an
    endpoint :func:`turf_common.pushpolicy.allowed_push_endpoint` allows. ``subject`` is the VAPID contact
    (``mailto:…``), which push services use to reach the sender; ``rehearsal`` (manual clock) also allows loopback
    receivers."""

    def __init__(self, private_key: str, subject: str, rehearsal: bool = False) -> None:
        self.vapid = Vapid.from_string(private_key)
        self.subject, self.rehearsal = subject, rehearsal
        self.client = httpx.AsyncClient(follow_redirects=False, timeout=httpx.Timeout(DEADLINE_S),
                                        headers={"accept-encoding": "identity"}, trust_env=False)

    async def send(self, sub: Subscription, payload: dict[str, Any]) -> int:
        """The push service's HTTP status (201 delivered; 404/410 gone; a 3xx is not followed). An endpoint the
        policy refuses answers :data:`GONE` without a request. Raises on a network error or the deadline."""
        if not allowed_push_endpoint(sub.endpoint, self.rehearsal):
            return GONE
        rec = _Recorder()
        webpush({"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}, json.dumps(payload),
                vapid_private_key=self.vapid, vapid_claims={"sub": self.subject}, ttl=TTL,
                requests_session=rec)  # type: ignore[arg-type]
        async with asyncio.timeout(DEADLINE_S):
            async with self.client.stream("POST", rec.url, content=rec.data, headers=rec.request_headers) as resp:
                read = 0
                async for chunk in resp.aiter_raw():   # raw: a compressed answer is never inflated
                    read += len(chunk)
                    if read >= MAX_ANSWER:
                        break
                return resp.status_code

    async def close(self) -> None:
        await self.client.aclose()
