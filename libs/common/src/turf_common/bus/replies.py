"""A reply larger than the server's payload limit fails loudly.

nats-py refuses to publish a body over the server's ``max_payload`` (1 MiB by default): FastStream's reply was then
never sent, the requester timed out and answered 503 for the rest of the season (``claims.flags`` grown by a flag
flood), and with FastStream's logger off nothing said why. Lists that cross the bus are paginated; this is the
net below them: the error is logged and counted, and the requester gets a :class:`Refusal` at once."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import nats.errors
import structlog
from faststream.middlewares import BaseMiddleware

from turf_common import metrics
from turf_common.contracts.base import Refusal

log = structlog.get_logger(__name__)

TOO_LARGE = Refusal(reason="unavailable", message="The answer is larger than the bus carries; ask for a page of it.")


class ReplyLimit(BaseMiddleware):
    """On a reply (a publish to an ``_INBOX.`` subject) refused as too large: log ``reply_too_large`` with the
    subject and size, count it (``turf_replies_too_large_total``) and send :data:`TOO_LARGE` instead. Any other
    publish that is too large raises as before (an event must not be replaced)."""

    async def publish_scope(self, call_next: Callable[[Any], Awaitable[Any]], cmd: Any) -> Any:
        try:
            return await call_next(cmd)
        except nats.errors.MaxPayloadError:
            destination = str(getattr(cmd, "destination", ""))
            if not destination.startswith("_INBOX."):
                raise
            body = getattr(cmd, "body", b"")
            log.error("reply_too_large", service=metrics.SERVICE["name"],
                      size=len(body) if isinstance(body, bytes | str) else None)
            metrics.REPLIES_TOO_LARGE.labels(metrics.SERVICE["name"]).inc()
            cmd.body = TOO_LARGE.model_dump_json().encode()
            return await call_next(cmd)
