"""The claims service's JetStream consumers across versions: earlier versions had three durable consumers
(``claims`` for day starts, ``claims-players`` and ``claims-exclusions`` for disqualifications); this one has one,
``claims``, for both subjects in stream order."""

from __future__ import annotations

import contextlib

import structlog
from nats.js import JetStreamContext
from nats.js.errors import NotFoundError

log = structlog.get_logger(__name__)


async def retire_consumers(js: JetStreamContext, stream: str, durable: str, subjects: list[str],
                           obsolete: list[str]) -> None:
    """Before the subscribers start: delete the ``obsolete`` durable consumers (nobody consumes them any more, so
    they would stay pending for ever, and ``wait_idle`` counts every consumer), and ``durable`` itself if it was
    made for other ``subjects`` (a durable consumer is reused as it is, filter included). The recreated consumer
    reads its subjects from the start of the stream again; its handlers are idempotent (inbox), so what an earlier
    consumer applied is not applied twice, and what the obsolete ones had not reached yet is not lost."""
    for name in obsolete:
        with contextlib.suppress(NotFoundError):
            await js.delete_consumer(stream, name)
            log.info("consumer_retired", consumer=name)
    try:
        info = await js.consumer_info(stream, durable)
    except NotFoundError:
        return
    cfg = info.config
    had = set(cfg.filter_subjects or ([cfg.filter_subject] if cfg.filter_subject else []))
    if had != set(subjects):
        with contextlib.suppress(NotFoundError):
            await js.delete_consumer(stream, durable)
        log.info("consumer_recreated", consumer=durable, subjects=sorted(subjects), was=sorted(had))
