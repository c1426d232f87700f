"""A stored push endpoint is a request the server makes, so only the real push services' hosts are taken
(a probe stored https://127.1/, internal names and redirecting hosts)."""

import pytest

from turf_common.pushpolicy import allowed_push_endpoint


@pytest.mark.parametrize("endpoint", [
    "https://fcm.googleapis.com/fcm/send/dQw4w9WgXcQ:APA91b",
    "https://updates.push.services.mozilla.com/wpush/v2/gAAAAA",
    "https://web.push.apple.com/QGuQyavXutnMH",
    "https://wns2-db5p.notify.windows.com/w/?token=BQYAAA",
    "https://api.push.apple.com/3/device/abc",
])
def test_the_browsers_push_services_are_taken(endpoint: str) -> None:
    assert allowed_push_endpoint(endpoint, rehearsal=False)


@pytest.mark.parametrize("endpoint", [
    "https://127.1/push",                      # loopback, written short
    "https://127.0.0.1/push",
    "https://localhost/push",
    "https://10.0.0.5/push",                   # private range
    "https://metadata.google.internal/computeMetadata/v1/",
    "https://redis/",                          # an internal name
    "https://push.example/1",                  # any other public host (may redirect anywhere)
    "http://fcm.googleapis.com/fcm/send/x",    # not https
    "https://fcm.googleapis.com:8443/fcm/send/x",
    "https://user:pw@fcm.googleapis.com/fcm/send/x",
    "https://fcm.googleapis.com.evil.example/x",
    "https://notify.windows.com/x",            # the bare domain is no host of WNS
    "https://evilnotify.windows.com/x",
    "ftp://fcm.googleapis.com/x",
    "https://[::1]:99999/x",                   # a port out of range: no URL at all
    "https://fcm.googleapis.com/" + "x" * 1100,
])
def test_anything_else_is_refused(endpoint: str) -> None:
    assert not allowed_push_endpoint(endpoint, rehearsal=False)


def test_a_rehearsal_also_takes_a_loopback_receiver_and_nothing_else_more() -> None:
    assert allowed_push_endpoint("http://127.0.0.1:8123/push/v", rehearsal=True)
    assert allowed_push_endpoint("https://localhost:8443/push/v", rehearsal=True)
    assert not allowed_push_endpoint("http://10.0.0.5/push", rehearsal=True)
    assert not allowed_push_endpoint("https://push.example/1", rehearsal=True)
