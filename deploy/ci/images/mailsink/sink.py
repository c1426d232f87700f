"""The CI mail relay: aiosmtpd on port 587 with STARTTLS (certificate /certs/mailsink.pem, key /certs/mailsink.key)
and AUTH required before anything is taken (SINK_USER, SINK_PASSWORD), as a provider's submission port. Every message
it takes is written to /mail/<n>.eml and logged, so the CI driver reads what a player's mailbox would get."""

import itertools
import os
import signal
import ssl
import sys
import threading
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

MAIL = Path(os.environ.get("SINK_MAIL_DIR", "/mail"))
CERTS = Path(os.environ.get("SINK_CERTS", "/certs"))
USER, PASSWORD = os.environ["SINK_USER"].encode(), os.environ["SINK_PASSWORD"].encode()
numbers = itertools.count(1)


class Keep:
    async def handle_DATA(self, server, session, envelope):
        n = next(numbers)
        tmp = MAIL / f".{n}.tmp"
        tmp.write_bytes(envelope.original_content or envelope.content)
        tmp.replace(MAIL / f"{n}.eml")   # whole or not at all: the driver polls the folder
        print(f"mailsink: message {n} from {envelope.mail_from} to {envelope.rcpt_tos}", flush=True)
        return "250 Message accepted for delivery"


def authenticate(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (USER, PASSWORD)
    return AuthResult(success=ok)


tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
tls.load_cert_chain(CERTS / "mailsink.pem", CERTS / "mailsink.key")
controller = Controller(Keep(), hostname="0.0.0.0", port=int(os.environ.get("SINK_PORT", "587")),
                        server_hostname="mailsink", tls_context=tls, require_starttls=True, auth_required=True,
                        auth_require_tls=True, authenticator=authenticate)
controller.start()
print("mailsink: listening on 587 (STARTTLS, AUTH)", flush=True)
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
stop.wait()
controller.stop()
sys.exit(0)
