"""The broker factory: one FastStream ``NatsBroker`` per process, with our replies to bad and failed commands, our
inboxes, our observation middleware and the fixes (:mod:`turf_common.bus.fixes`)."""

from __future__ import annotations

import logging
from typing import Any

import structlog
from faststream import ExceptionMiddleware
from faststream.nats import NatsBroker
from nats import errors as nats_errors
from nats.js import JetStreamContext
from pydantic import ValidationError

from turf_common.bus.fixes import apply_fixes
from turf_common.bus.observed import Observed
from turf_common.contracts.base import Refusal

log = structlog.get_logger(__name__)


class BusError(RuntimeError):
    """A command could not be delivered or answered (no responder, timeout), or the consumers did not catch up."""


#: Any failure of NATS itself (not answering, a refused connection, a JetStream or KV call that failed), as
#: opposed to a service behind it (:class:`BusError`): nats-py's base error, named here so that code outside the
#: bus library can catch it without importing nats-py.
BusUnavailable = nats_errors.Error


def server_list(url: str) -> list[str]:
    """``TURF_NATS_URL`` may name several servers of one cluster, comma-separated."""
    return [u.strip() for u in url.split(",") if u.strip()]


def inbox_prefix(name: str) -> str:
    """``_INBOX.<name>`` (``name`` reduced to a subject token: letters, digits, ``-`` and ``_``)."""
    token = "".join(c if c.isalnum() or c in "-_" else "_" for c in name) or "anon"
    return f"_INBOX.{token}"


def _invalid(exc: ValidationError) -> Refusal:
    """The reply of a command whose body does not fit its contract (a sender's bug: our services send them)."""
    log.warning("command_invalid", errors=exc.errors(include_url=False, include_input=False))
    return Refusal(reason="invalid_input", message="The command does not fit its contract.")


def _unavailable(exc: Exception) -> Refusal:
    """The reply of a command whose handler raised: the requester learns at once instead of timing out."""
    log.error("handler_failed", error=f"{type(exc).__name__}: {exc}")
    return Refusal(reason="unavailable", message="The service failed; try again.")


def make_broker(nats_url: str, name: str, graceful_timeout: float = 15.0, observe: bool = True) -> NatsBroker:
    """A broker for one process. ``nats_url`` may list a cluster's servers (comma-separated); the client fails over
    between them and reconnects forever. On stop, subscribers stop taking messages and in-flight handlers get
    ``graceful_timeout`` seconds to finish before the connection drains. Per-message access logs are off (they cost
    more than the handlers); failures are logged by the handlers' middleware. ``observe=False`` leaves out the
    per-message span and metrics (the gateway's spectator feed relays every event and serves no command).

    Credentials come in the URL (``nats://user:password@host:port``). Replies and JetStream deliveries
    come to inboxes under ``_INBOX.<name>.``, so a server can let each service user subscribe to its own inboxes
    only (``_INBOX.>`` would let it read every other process's replies: hands, sessions' answers).

    Every broker of ours is made here (services through ``service_app``, the gateway, the tools, the tests), so
    this is where :func:`~turf_common.bus.fixes.apply_fixes` runs (once per process)."""
    apply_fixes()
    replies = ExceptionMiddleware(publish_handlers={ValidationError: _invalid, Exception: _unavailable})
    # Observed is also the ReplyLimit (one middleware instance per message, not two); a broker without it serves no
    # command (the gateway), so it sends no reply to limit
    middlewares: list[Any] = [replies, Observed] if observe else [replies]
    return NatsBroker(
        server_list(nats_url), name=name, max_reconnect_attempts=-1, reconnect_time_wait=0.5,  # type: ignore[arg-type]
        connect_timeout=5, graceful_timeout=graceful_timeout, logger=None, middlewares=middlewares,
        inbox_prefix=inbox_prefix(name),
    )


def jetstream(broker: NatsBroker) -> JetStreamContext:
    """The broker's JetStream context (stream and consumer management, KV)."""
    return broker.config.connection_state.stream  # type: ignore[no-any-return]


def quiet_faststream() -> None:
    """FastStream's own logger only for warnings (its per-message lines are off in :func:`make_broker`)."""
    logging.getLogger("faststream").setLevel(logging.WARNING)
