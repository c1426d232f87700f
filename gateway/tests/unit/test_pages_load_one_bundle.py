"""The pages' first load: each page asks for one script, its bundle (static/dist/<page>.js, built by esbuild from
static/js: gateway/frontend/build.mjs), named like its stylesheets by its content hash, so a second visit asks for
the page alone; the
bundles committed are those the committed sources build; and the few inline lines a page must run before its first
paint are allowed by the CSP by their exact hash, nothing else inline. Served without a running stack."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import httpx

from turf_common.settings import Settings
from turf_gateway.api.pages import IMMUTABLE, PAGES, STATIC
from turf_gateway.main import create_app

ROOT = Path(__file__).resolve().parents[3]
MODULE = re.compile(r'<script type="module" src="([^"]+)"')
ASSET = re.compile(r'<link rel="stylesheet" href="([^"]+)"|<script src="([^"]+)"')
ROUTES = {"/": "index.html", **PAGES}


def _app() -> httpx.AsyncClient:
    app = create_app(Settings())
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")


async def test_every_page_asks_for_one_script_its_bundle_and_names_each_file_by_its_hash() -> None:
    async with _app() as http:
        for route, name in ROUTES.items():
            answer = await http.get(route, headers={"Accept-Encoding": "gzip"})
            assert answer.headers["cache-control"] == "no-cache", route   # the page itself: revalidated each visit
            again = await http.get(route, headers={"If-None-Match": answer.headers["etag"], "Accept-Encoding": "gzip"})
            assert (again.status_code, again.content, again.headers["cache-control"]) == (304, b"", "no-cache"), route
            html = answer.text
            modules = MODULE.findall(html)
            if name == "index.html":
                assert modules and modules[0].startswith("/static/dist/play.js?v="), modules
            assert len(modules) == 1, (route, modules)
            assert "modulepreload" not in html and "/static/js/" not in html, route   # no module waterfall left
            # the bundle, the stylesheets and Leaflet: each named by its current hash, the URL a browser keeps
            named = [*modules, *(a or b for a, b in ASSET.findall(html))]
            assert len(named) >= 2 and all("?v=" in u for u in named), (route, named)
            for u in named:
                url, _, v = u.partition("?v=")
                file = STATIC / url.removeprefix("/static/")
                assert hashlib.sha256(file.read_bytes()).hexdigest()[:12] == v, (route, url, "a stale hash")


async def test_a_bundle_asked_for_with_its_hash_is_immutable_and_any_other_ask_revalidates() -> None:
    url = MODULE.findall((STATIC / "index.html").read_text())[0]
    async with _app() as http:
        current = await http.get(url, headers={"Accept-Encoding": "gzip"})
        plain = await http.get(url.partition("?")[0])
        guessed = await http.get(url.partition("?")[0] + "?v=000000000000")
        again = await http.get(url, headers={"If-None-Match": current.headers["etag"]})
    assert current.status_code == 200 and current.headers["cache-control"] == IMMUTABLE
    assert current.headers["content-encoding"] == "gzip"   # public: compressed (compression.PublicGzip)
    assert plain.headers["cache-control"] == "no-cache" and guessed.headers["cache-control"] == "no-cache"
    assert plain.content == current.content   # the same bytes: only how long a browser may keep them differs
    assert again.status_code == 304 and again.headers["cache-control"] == IMMUTABLE


def test_the_committed_bundles_were_built_from_the_committed_sources() -> None:
    """static/dist/SOURCES.sha256 (written by each build) names every module a bundle holds with its hash: a module
    edited without ./turf bundle shows here, without node (`./turf bundle --check` rebuilds to compare, in CI)."""
    listed = [line.split("  ", 1) for line in (STATIC / "dist" / "SOURCES.sha256").read_text().splitlines()]
    assert any(path.endswith("static/js/play.js") for _, path in listed)
    stale = [path for digest, path in listed if hashlib.sha256((ROOT / path).read_bytes()).hexdigest() != digest]
    assert not stale, f"edited since the bundles were built (run ./turf bundle): {stale}"
    built = {p.name for p in (STATIC / "dist").glob("*.js")}
    loaded = {MODULE.findall((STATIC / n).read_text())[0].partition("?")[0].rsplit("/", 1)[1] for n in ROUTES.values()}
    assert built == loaded, "a bundle no page loads, or a page whose bundle is missing"


async def test_the_csp_allows_the_pages_inline_lines_by_their_hash_and_nothing_else_inline() -> None:
    inline = re.findall(r"<script>(.*?)</script>", (STATIC / "index.html").read_text(), re.S)
    assert len(inline) == 1 and "turf.session" in inline[0]   # the signed-in mark before the first paint
    digest = "'sha256-" + base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode() + "'"
    async with _app() as http:
        csp = (await http.get("/")).headers["content-security-policy"]
    script_src = next(d for d in csp.split("; ") if d.startswith("script-src")).split()[1:]
    assert script_src[0] == "'self'" and digest in script_src
    assert all(s.startswith("'sha256-") for s in script_src[1:]) and "unsafe-inline" not in script_src
