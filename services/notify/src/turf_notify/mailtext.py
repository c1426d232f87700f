"""The texts of the product's mail (R30), rendered with Jinja2 from ``templates/mail/``: a plain-text part and an
HTML part (autoescaped: a display name or an announcement cannot inject markup) for each kind."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

SUBJECTS = {
    "email_confirmation": "Turf War: confirm your email address",
    "email_change_confirmation": "Turf War: confirm your new email address",
    "email_changed": "Turf War: your email address was changed",
    "verified": "Turf War: you are verified, you can play",
    "password_reset": "Turf War: choose a new password",
    "final_results": "Turf War: the final results",
}


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th … 11th, 12th, 13th … 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass(frozen=True)
class Rendered:
    subject: str
    text: str
    html: str


@cache
def _env() -> Environment:
    # StrictUndefined: a template naming a value the caller did not give fails in the tests, not in a player's inbox
    return Environment(loader=PackageLoader("turf_notify", "templates/mail"), undefined=StrictUndefined,
                       autoescape=select_autoescape(["html"]), keep_trailing_newline=True)


def render(kind: str, subject: str | None = None, **values: Any) -> Rendered:
    """The ``kind``'s message with ``values``; ``subject`` when the kind has no fixed one (an announcement's
    title)."""
    subject = subject or SUBJECTS[kind]
    env = _env()
    text = env.get_template(f"{kind}.txt").render(subject=subject, **values)
    html = env.get_template(f"{kind}.html").render(subject=subject, **values)
    return Rendered(subject, text, html)
