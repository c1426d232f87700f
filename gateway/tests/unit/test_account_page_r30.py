"""R30's pages: the links Turf War mails lead to ``/account``, which confirms an email, sets a new password or asks
for a reset link; the sign-in form offers "Forgot password?". Served without a running stack."""

from __future__ import annotations

import re

import httpx

from turf_common.settings import Settings
from turf_gateway.api.pages import STATIC
from turf_gateway.main import create_app


async def test_r30_the_account_page_is_served_with_its_three_forms_and_the_sign_in_links_to_it() -> None:
    app = create_app(Settings())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        page = await http.get("/account?action=reset&token=abc")
        bundle = re.search(r'<script type="module" src="(/static/dist/account\.js\?v=[0-9a-f]{12})">', page.text)
        assert bundle, "the page loads its one bundle"
        script = await http.get(bundle[1])
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for part in ('id="forgot-form"', 'id="reset-form"', 'id="confirm"',
                 'name="referrer" content="no-referrer"'):   # the token never leaks to another site
        assert part in page.text
    assert script.status_code == 200
    for route in ('"/me/email/confirm"', '"/password-resets/complete"', '"/password-resets"'):
        assert route in script.text
    assert '<a href="/account?action=forgot">Forgot password?</a>' in (STATIC / "index.html").read_text()
