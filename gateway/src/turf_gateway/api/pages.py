"""The web pages, served by the gateway: play at ``/`` (``static/index.html``, routed in main.py), watch
at ``/watch``, organize at ``/admin``, their files under ``/static``, ``/pages/config.json``, and the service worker
at ``/sw.js``.

Plain HTML and JavaScript modules; each page loads its modules as one bundle, ``static/dist/<page>.js``, built by
esbuild from ``static/js`` and committed (``./turf bundle``, gateway/frontend/build.mjs), so nothing here needs node.
A page names its bundle with the bundle's content hash (``?v=<12 hex>``): a ``/static`` file asked for with its
current hash is sent as immutable, so a second visit asks for no script, and any other request revalidates
(``no-cache``: an ETag, a 304 when nothing changed). The map library (Leaflet) is vendored under
``static/vendor/leaflet/``, so nothing loads from a CDN. A base-map tile layer is optional: set ``TURF_TILES_URL``
(a Leaflet URL template such as ``https://tiles.example.org/{z}/{x}/{y}.png``) and ``TURF_TILES_ATTRIBUTION``;
without it the territory polygons alone make the map. The pages and their files are compressed for a browser that
accepts gzip (``compression.PublicGzip``); the board serves its own gzip body.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from fastapi import FastAPI, Request, Response
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from turf_common.settings import Settings, parse_clock_mode

STATIC = Path(__file__).resolve().parents[1] / "static"
# /modes: the turn-based modes; /yard: the yard card game (docs/rules/yard-cards.md); /account: R30's mailed links
# (email confirmation, password reset) and "forgot password"; /profile: a player's public profile and season recap
# (?player=<id>)
PAGES = {"/watch": "watch.html", "/admin": "admin.html", "/modes": "modes.html", "/yard": "yard.html",
         "/account": "account.html", "/profile": "profile.html"}
NO_CACHE = {"Cache-Control": "no-cache"}  # always revalidate (ETag / Last-Modified): a deploy shows at once
#: a file asked for with its content's hash (``?v=``): this URL's bytes never change, kept a year without asking
IMMUTABLE = "public, max-age=31536000, immutable"
_hashes: dict[Path, tuple[tuple[int, int], str]] = {}


def content_hash(file: Path) -> str:
    """The first 12 hex digits of the file's SHA-256, the ``?v=`` a page writes after its bundle's URL
    (gateway/frontend/build.mjs); read again only when the file's size or mtime changed."""
    st = file.stat()
    key = (st.st_mtime_ns, st.st_size)
    kept = _hashes.get(file)
    if kept is None or kept[0] != key:
        kept = (key, hashlib.sha256(file.read_bytes()).hexdigest()[:12])
        _hashes[file] = kept
    return kept[1]


class _Static(StaticFiles):
    async def get_response(self, path: str, scope: Scope) -> Any:
        resp = await super().get_response(path, scope)
        v = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("v")
        if v and resp.status_code in (200, 304):
            # immutable only when the hash asked for is the file's own: a stale page (or a guessed ?v=) revalidates
            file, st = self.lookup_path(path)
            if st is not None and content_hash(Path(file)) == v[0]:
                resp.headers["Cache-Control"] = IMMUTABLE
        resp.headers.setdefault("Cache-Control", "no-cache")
        return resp


#: a page's inline script: a bare ``<script>`` (no attribute), its text up to ``</script>``
_INLINE = re.compile(r"<script>(.*?)</script>", re.S)


def inline_script_hashes() -> list[str]:
    """The CSP sources (``'sha256-…'``) of the pages' inline scripts, read from the page files: the few lines that
    must run before the first paint (index.html's signed-in class) without a request of their own. Each is allowed
    by its exact text, so one edited without its hash cannot exist: the hash is taken from the file served."""
    out = set()
    for page in STATIC.glob("*.html"):
        for text in _INLINE.findall(page.read_text(encoding="utf-8")):
            out.add("'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'")
    return sorted(out)


def clock_rate(settings: Settings) -> float:
    """Game seconds per real second (``TURF_CLOCK``): 1 real, N accelerated, 0 manual. The pages count down from the
    server's ``now`` (GET /clock) at this rate: in manual mode time stands still between moves."""
    try:
        return parse_clock_mode(settings.clock)[1]
    except ValueError:
        return 1.0


class PageConfig(BaseModel):
    """What the pages need to know about this deployment (nothing secret): ``GET /pages/config.json``."""

    tile_url: str | None = Field(description="a Leaflet URL template of the base map's tiles; none: towns alone")
    tile_attribution: str
    clock_rate: float = Field(description="game seconds per real second: 1 real, N accelerated, 0 manual")


def page_config(settings: Settings) -> PageConfig:
    return PageConfig(tile_url=settings.tile_url or None, tile_attribution=settings.tile_attribution,
                      clock_rate=clock_rate(settings))


def page_response(file: Path, request: Request) -> Response:
    """A page, revalidated at every visit (``no-cache``): a 304 when the browser's copy is this file (its ETag), as
    ``/static`` answers. The page names its files by their hashes, so a current page is all a second visit asks."""
    resp = FileResponse(file, headers=NO_CACHE, stat_result=file.stat())
    etag = resp.headers["etag"]
    if etag in (tag.strip() for tag in request.headers.get("if-none-match", "").split(",")):
        return Response(status_code=304, headers={"ETag": etag} | NO_CACHE)
    return resp


def _page(file: Path) -> Any:
    async def page(request: Request) -> Response:
        return page_response(file, request)
    return page


def install(app: FastAPI, settings: Settings) -> None:
    """Add the page routes and the ``/static`` mount to the gateway app."""
    for path, name in PAGES.items():
        app.add_api_route(path, _page(STATIC / name), methods=["GET"], include_in_schema=False)

    async def config(response: Response) -> PageConfig:
        response.headers.update(NO_CACHE)
        return page_config(settings)

    app.add_api_route("/pages/config.json", config, methods=["GET"], response_model=PageConfig,
                      include_in_schema=False)

    async def service_worker() -> FileResponse:
        # at the root, so its scope covers every page (Web Push); a worker is a script of our own origin,
        # which the Content-Security-Policy (default-src 'self', security.py) allows
        return FileResponse(STATIC / "sw.js", media_type="text/javascript",
                            headers=NO_CACHE | {"Service-Worker-Allowed": "/"})

    app.add_api_route("/sw.js", service_worker, methods=["GET"], include_in_schema=False)
    app.mount("/static", _Static(directory=STATIC), name="static")
    # gzip (the Leaflet script travels as 45 KB) is compression.PublicGzip's, for the pages and public data only:
    # an app-wide GZip also compressed /me and /admin answers, whose secrets BREACH reads back
