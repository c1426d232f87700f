"""A core subscription on a subject that is also published to the event stream must not answer: the stream's
PubAck travels on the publisher's reply inbox, and FastStream's empty reply from a core subscriber races it. The
publisher that reads the empty body first fails its outbox flush (seen twice: claims' day memory on
``claim.accepted``, and a gateway's ``player.renamed`` listener turning ``PATCH /me`` into a 500)."""

from __future__ import annotations

from typing import Any, cast

import pytest
from faststream.nats import NatsRouter

from turf_common.bus.streams import EVENT_SUBJECTS
from turf_gateway.adapters.session_revocation import revocations_router
from turfwar.asyncapi import routers


def on_the_stream(subject: str) -> bool:
    """Whether ``subject`` (no wildcards) is captured by one of the stream's subject filters."""
    parts = subject.split(".")
    for pattern in EVENT_SUBJECTS:
        want = pattern.split(".")
        head = want[:-1]
        if want[-1] == ">" and len(parts) >= len(want) and all(
                w in ("*", p) for w, p in zip(head, parts[:len(head)], strict=True)):
            return True
        if len(want) == len(parts) and all(w in ("*", p) for w, p in zip(want, parts, strict=True)):
            return True
    return False


def every_router() -> list[tuple[str, NatsRouter]]:
    # the gateway's every-replica listeners are not in the AsyncAPI document's routers
    return [*routers(), ("gateway revocations", revocations_router(cast(Any, None)))]


def core_subscribers_on_events() -> list[tuple[str, str, Any]]:
    out = []
    for name, router in every_router():
        for sub in router.subscribers:
            subject = str(getattr(sub, "_subject", "") or "")   # the subject as subscribed (a str)
            if "Core" in type(sub).__name__ and subject and on_the_stream(subject):
                out.append((name, subject, sub))
    # sorted: the claims service registers some listeners from a set, whose order differs between processes, and
    # xdist's workers must collect the same tests in the same order
    return sorted(out, key=lambda t: (t[0], t[1]))


def test_the_stream_filter_match_is_nats_matching() -> None:
    assert on_the_stream("player.renamed") and on_the_stream("claim.accepted") and on_the_stream("clock.day_started")
    assert not on_the_stream("clock.set") and not on_the_stream("claims.submit") and not on_the_stream("player")


def test_there_are_core_subscribers_on_event_subjects_to_check() -> None:
    subjects = {subject for _, subject, _ in core_subscribers_on_events()}
    assert {"player.renamed", "claim.accepted", "territory.changed"} <= subjects, subjects


CORE_ON_EVENTS = core_subscribers_on_events()


@pytest.mark.parametrize("name,subject,sub", CORE_ON_EVENTS, ids=[f"{n}:{s}" for n, s, _ in CORE_ON_EVENTS])
def test_a_core_subscriber_on_an_event_subject_never_replies(name: str, subject: str, sub: Any) -> None:
    # FastStream keeps the subscriber's no_reply option here (no public accessor)
    assert sub._no_reply is True, f"{name}'s subscriber on {subject} answers: give it no_reply=True"
