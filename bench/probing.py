"""What the probe scripts share (``bench/probes.py`` and the rows it runs from ``bench/probes_signin.py`` and
``bench/mode_probes.py``): a probe's row of the table, and the spectator socket opened as a browser of some site."""

from __future__ import annotations

import socket
from dataclasses import dataclass

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect
from websockets.typing import Origin

from tests.support.client import API
from turfwar.stack import Stack


@dataclass
class Probe:
    name: str
    tried: str
    saw: str
    closed: bool


def socket_from(stack: Stack, origin: str) -> str:
    """What the spectator socket did for a browser of ``origin``: ``answered``, ``closed <code>`` or ``refused``."""
    sock = socket.create_connection(("127.0.0.1", stack.http_port))
    try:
        with connect(f"ws://127.0.0.1:{stack.http_port}{API}/ws/scores", sock=sock, open_timeout=10,
                     origin=Origin(origin)) as ws:
            ws.recv(timeout=10)
            return "answered"
    except ConnectionClosed as closed:
        return f"closed {closed.rcvd.code if closed.rcvd else '?'}"
    except Exception as e:
        return f"refused ({type(e).__name__})"
