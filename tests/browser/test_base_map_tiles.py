"""A base map players can read: with ``TURF_TILES_URL`` (a raster XYZ template) the play and watch pages draw its
tiles under the towns, allowed by the pages' Content-Security-Policy, and show ``TURF_TILES_ATTRIBUTION`` beside
the boundaries' credit (docs/organizer/tiles.md). A tile server on this machine stands in for the provider."""

from __future__ import annotations

import socket
import struct
import threading
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.browser.test_pages import open_page, until

pytestmark = pytest.mark.timeout(600)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


PORT = _free_port()
ATTRIBUTION = "© OpenStreetMap contributors"
STACK_ENV = {"TURF_TILES_URL": f"http://127.0.0.1:{PORT}/tiles/{{z}}/{{x}}/{{y}}.png",
             "TURF_TILES_ATTRIBUTION": ATTRIBUTION}


def _png(size: int = 256, rgb: tuple[int, int, int] = (236, 232, 224)) -> bytes:
    """A plain square PNG (one colour), as a tile."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    row = b"\x00" + bytes(rgb) * size
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * size)) + chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def tiles() -> Iterator[list[str]]:
    """The tile server: the paths it was asked for."""
    asked: list[str] = []
    tile = _png()

    class Tiles(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(tile)))
            self.end_headers()
            self.wfile.write(tile)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", PORT), Tiles)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield asked
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("path", ["/", "/watch"])
def test_turf_tiles_url_draws_the_base_map_under_the_towns_with_its_attribution(
        stack: Any, tiles: list[str], phone: Callable[..., Any], path: str) -> None:
    page = phone()
    open_page(page, stack.base_url + path)
    until(page, "document.querySelector('#map').dataset.loaded === '1'")
    until(page, "document.querySelectorAll('#map img.leaflet-tile-loaded').length > 0")
    assert any(p.startswith("/tiles/") and p.endswith(".png") for p in tiles), tiles
    assert not page.evaluate("document.querySelector('#map').classList.contains('no-tiles')")
    credit = page.inner_text("#map .leaflet-control-attribution")
    assert ATTRIBUTION in credit and "Boundaries" in credit, credit
    # under the towns: the tile pane is below the towns' pane
    assert page.evaluate("""+getComputedStyle(document.querySelector('.leaflet-tile-pane')).zIndex
      < +getComputedStyle(document.querySelector('.leaflet-overlay-pane')).zIndex""")
