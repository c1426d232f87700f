"""``turfwar season``: the organizer's seasons (R31) through the gateway's API (API.md "Seasons").

``list`` and ``show`` read the public routes; ``new FILE`` and ``edit ID FILE`` sign in as the organizer and send the
file as the body of ``POST /api/v1/admin/seasons`` or ``PATCH /api/v1/admin/seasons/{id}``; ``template`` prints a
form for the year after the latest season. The file is the API's form itself, JSON or TOML (by its suffix): ``id,
name, zone, first_day, last_day, open_weekdays, open_time, close_time, limits?, prizes?, rehearsal?``. ``show``
prints exactly that shape, so ``show 2027 > f.json`` then ``edit 2027 f.json`` round-trips.

The gateway is ``--url``, else the running stack's (``TURF_DATA_DIR/stack.json``, as ``turfwar status`` and
``turfwar audit game`` find it), else ``http://127.0.0.1:TURF_HTTP_PORT``. Refusals print their reason code and
sentence (R29) and exit 1; a gateway that cannot be reached exits 2."""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

season_app = typer.Typer(help="The organizer's seasons (R31): list, show, make and change them.",
                         no_args_is_help=True)
console = Console()

API = "/api/v1"
#: the body of POST /admin/seasons, in the order a form reads
FORM_FIELDS = ("id", "name", "zone", "first_day", "last_day", "open_weekdays", "open_time", "close_time", "limits",
               "prizes", "rehearsal")
#: what GET /seasons/{id} adds to the form: the server's, never sent back (a saved answer is a valid file too)
READ_ONLY = ("state", "seed_commitment", "first_opening")
YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


class Refusal(Exception):
    """A refusal of the gateway (R29: a reason code and a sentence) or of the CLI before it sent anything."""

    def __init__(self, reason: str, message: str, status: int | None = None) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason, self.message, self.status = reason, message, status


# --------------------------------------------------------------------------- the form


def read_form(path: Path) -> dict[str, Any]:
    """The season form in ``path``: TOML for a ``.toml`` file, else JSON. TOML's dates and times become the API's
    ``YYYY-MM-DD`` and ``HH:MM``, and prize amounts written as numbers become strings (the API's dollars); the
    read-only fields of ``GET /seasons/{id}`` (``state``, ``seed_commitment``, ``first_opening``) are dropped. Any
    other field goes to the gateway as it is, which names what it refuses. Raises :class:`Refusal`
    (``invalid_input``) for a file that cannot be read or is not an object."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise Refusal("invalid_input", f"{path}: {e.strerror or e}.") from None
    try:
        raw = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as e:
        kind = "TOML" if path.suffix.lower() == ".toml" else "JSON"
        raise Refusal("invalid_input", f"{path} is not valid {kind}: {e}.") from None
    if not isinstance(raw, dict):
        raise Refusal("invalid_input", f"{path} holds no season: a season is one object (id, name, zone, …).")
    return {k: _plain(k, v) for k, v in raw.items() if k not in READ_ONLY}


def _plain(key: str, v: Any) -> Any:
    """A TOML value as the API's JSON has it."""
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, time):
        return v.strftime("%H:%M")
    if key == "prizes" and isinstance(v, list):
        return [{**p, "amount": str(p["amount"])} if isinstance(p, dict) and _number(p.get("amount")) else p
                for p in v]
    return v


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def form_of(season: Mapping[str, Any]) -> dict[str, Any]:
    """The form (POST /admin/seasons's body) of a season as ``GET /seasons/{id}`` answers it, in the form's order."""
    return {k: season[k] for k in FORM_FIELDS if k in season}


def next_year_form(latest: Mapping[str, Any]) -> dict[str, Any]:
    """A form for the season a year after ``latest`` (``GET /seasons/{id}``): its days 52 weeks later (the same
    weekdays), the same hours, weekdays, limits and prizes; the year in its id and name moved on (``2026`` →
    ``2027``, ``Fall 2026`` → ``Fall 2027``); never a rehearsal. A starting point to edit, not a decision."""
    first, last = date.fromisoformat(latest["first_day"]), date.fromisoformat(latest["last_day"])
    year = timedelta(weeks=52)
    new_first, new_last = first + year, last + year
    old_year, new_year = str(first.year), str(new_first.year)

    def moved(text: str) -> str:
        return YEAR.sub(lambda m: new_year if m.group(1) == old_year else m.group(1), text)

    sid = moved(str(latest["id"]))
    if sid == latest["id"]:
        sid = new_year
    name = moved(str(latest["name"]))
    if name == latest["name"]:
        name = sid
    return form_of(latest) | {"id": sid, "name": name, "first_day": new_first.isoformat(),
                              "last_day": new_last.isoformat(), "rehearsal": False}


def rehearsal_form(now: datetime, zone: str, minutes: int, hours: float) -> dict[str, Any]:
    """R31: a rehearsal season, never listed to players, whose one game day opens ``minutes`` after ``now`` (the
    game clock's instant, rounded up to the minute) in ``zone`` and lasts ``hours``, ending by 23:59 that day: a
    newcomer plays it on the real clock without moving time. Raises :class:`Refusal` when fewer than ten minutes
    of the day would be left."""
    local = now.astimezone(ZoneInfo(zone))
    start = (local + timedelta(minutes=minutes, seconds=59)).replace(second=0, microsecond=0)
    end = min(start + timedelta(hours=hours), start.replace(hour=23, minute=59))
    if start.date() != local.date() or end - start < timedelta(minutes=10):
        raise Refusal("invalid_input", f"A rehearsal runs within one day and at least ten minutes; it is {local:%H:%M}"
                                       f" in {zone}: rehearse tomorrow, or with fewer --hours.")
    sid = f"rehearsal-{start:%Y%m%d-%H%M}"
    return {"id": sid, "name": f"Rehearsal {start:%d %b %H:%M}", "zone": zone, "first_day": start.date().isoformat(),
            "last_day": start.date().isoformat(), "open_weekdays": [start.weekday()],
            "open_time": f"{start:%H:%M}", "close_time": f"{end:%H:%M}", "rehearsal": True}


def changes_of(form: Mapping[str, Any], season_id: str, saved: Mapping[str, Any]) -> dict[str, Any]:
    """The body of ``PATCH /admin/seasons/{season_id}`` for a whole form: every field but ``id`` and ``rehearsal``,
    which a season keeps. Raises :class:`Refusal` when the form names another season or would make a rehearsal a
    season (or the reverse): neither changes, and saying nothing would save something else than the file says."""
    if "id" in form and form["id"] != season_id:
        raise Refusal("invalid_input", f"id: the file is season {form['id']!r}, not {season_id!r}; a season's id "
                                       "never changes.")
    if "rehearsal" in form and bool(form["rehearsal"]) != bool(saved.get("rehearsal")):
        raise Refusal("invalid_input", f"rehearsal: season {season_id!r} "
                                       f"{'is' if saved.get('rehearsal') else 'is not'} a rehearsal and stays so.")
    return {k: v for k, v in form.items() if k not in ("id", "rehearsal")}


# --------------------------------------------------------------------------- the gateway


def gateway_url(url: str | None) -> str:
    """``url``, else the running stack's (``stack.json``'s ``http``), else ``http://127.0.0.1:TURF_HTTP_PORT``."""
    if url:
        return url.rstrip("/")
    from turf_common.settings import get_settings

    s = get_settings()
    manifest = Path(s.data_dir) / "stack.json"
    info = json.loads(manifest.read_text()) if manifest.exists() else {}
    return str(info.get("http") or f"http://127.0.0.1:{s.http_port}").rstrip("/")


def open_client(base_url: str) -> httpx.Client:
    """The HTTP client to the gateway (the tests give theirs a mock transport)."""
    return httpx.Client(base_url=base_url, timeout=30)


def answer(r: httpx.Response) -> Any:
    """The JSON of a 2xx answer; else raises :class:`Refusal` with the error body's reason and sentence (R29)."""
    try:
        body = r.json() if r.content else None
    except ValueError:
        body = None
    if r.is_success:
        return body
    if isinstance(body, dict) and "reason" in body:
        raise Refusal(str(body["reason"]), str(body.get("message", "")), r.status_code)
    raise Refusal("unavailable", f"the gateway answered {r.status_code} {r.reason_phrase}.", r.status_code)


@contextmanager
def organizer_session(http: httpx.Client, email: str, password: str) -> Iterator[dict[str, str]]:
    """Signed in as the organizer: the ``Authorization`` header; the session ends (``DELETE /sessions``) after."""
    token = answer(http.post(f"{API}/sessions", json={"email": email, "password": password}))["token"]
    auth = {"Authorization": f"Bearer {token}"}
    try:
        yield auth
    finally:
        try:
            http.delete(f"{API}/sessions", headers=auth)
        except httpx.HTTPError:
            pass   # the session ends by itself when unused (organizer_session_idle_hours)


# --------------------------------------------------------------------------- printing


def season_table(season: Mapping[str, Any]) -> Table:
    """One season (``GET /seasons/{id}``) as a two-column table."""
    table = Table(title=f"season {escape(str(season.get('id')))}", title_justify="left")
    table.add_column("field", no_wrap=True)
    table.add_column("value", overflow="fold")   # the seed commitment whole, to note down (R12.1)
    for key, value in season.items():
        if key == "open_weekdays" and isinstance(value, list):
            shown = ", ".join(WEEKDAYS[d] if isinstance(d, int) and 0 <= d <= 6 else str(d) for d in value)
        elif key == "limits" and isinstance(value, dict):
            shown = ", ".join(f"{k} {v:g}" if isinstance(v, int | float) else f"{k} {v}" for k, v in value.items())
        elif key == "prizes" and isinstance(value, list):
            shown = ", ".join(f"{p.get('place')}: ${p.get('amount')}" for p in value if isinstance(p, dict)) or "none"
        else:
            shown = str(value).lower() if isinstance(value, bool) else str(value)
        table.add_row(key, escape(shown))
    return table


def list_table(seasons: list[Mapping[str, Any]]) -> Table:
    """``GET /seasons``' list (newest first) as a table."""
    table = Table("id", "name", "first day", "last day", "state")
    for s in seasons:
        table.add_row(*(escape(str(s.get(k, ""))) for k in ("id", "name", "first_day", "last_day", "state")))
    return table


def _refused(e: Refusal) -> typer.Exit:
    console.print(f"[red]refused[/] [bold]{escape(e.reason)}[/]: {escape(e.message)}", highlight=False,
                  soft_wrap=True)
    return typer.Exit(1)


@contextmanager
def _gateway(url: str | None) -> Iterator[httpx.Client]:
    """The client to the gateway; a refusal prints and exits 1, an unreachable gateway exits 2."""
    base = gateway_url(url)
    try:
        with open_client(base) as http:
            yield http
    except Refusal as e:
        raise _refused(e) from None
    except httpx.TransportError as e:
        console.print(f"[red]no gateway at {escape(base)}[/] ({escape(str(e) or type(e).__name__)}): start one with "
                      "`turfwar up`, or give --url", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None


def _password() -> str:
    return os.environ.get("TURF_ORGANIZER_PASSWORD") or typer.prompt("organizer password", hide_input=True)


def _form(file: Path) -> dict[str, Any]:
    try:
        return read_form(file)
    except Refusal as e:
        raise _refused(e) from None


URL = typer.Option(None, "--url", help="the gateway, e.g. https://turf.example.org; default: this data "
                                       "directory's running stack (stack.json)")
EMAIL = typer.Option("organizer@turfwar.local", "--email", envvar="TURF_ORGANIZER_EMAIL",
                     help="the organizer's sign-in email; the password is TURF_ORGANIZER_PASSWORD, else asked")


# --------------------------------------------------------------------------- commands


@season_app.command("list")
def list_cmd(url: str | None = URL) -> None:
    """Every season with its state (upcoming, running, closed), newest first; rehearsals are not listed."""
    with _gateway(url) as http:
        seasons = answer(http.get(f"{API}/seasons"))["seasons"]
    console.print(list_table(seasons) if seasons else "no season yet")


@season_app.command("show")
def show_cmd(season_id: str = typer.Argument(..., help="the season's id, e.g. 2027"), url: str | None = URL) -> None:
    """One season as the form of `season new` / `season edit` (JSON on standard output): `show 2027 > f.json`,
    change f.json, `edit 2027 f.json`."""
    with _gateway(url) as http:
        season = answer(http.get(f"{API}/seasons/{season_id}"))
    typer.echo(json.dumps(form_of(season), indent=2, ensure_ascii=False))


@season_app.command("template")
def template_cmd(url: str | None = URL) -> None:
    """A form for next year's season, from the latest season (its days 52 weeks later, the same weekdays, hours,
    limits and prizes): JSON on standard output, to change and give to `season new`."""
    with _gateway(url) as http:
        seasons = answer(http.get(f"{API}/seasons"))["seasons"]
        if not seasons:
            raise Refusal("not_found", "There is no season yet to start from; write the form by hand "
                                       "(docs/organizer/next-season.md).")
        latest = answer(http.get(f"{API}/seasons/{seasons[0]['id']}"))
    typer.echo(json.dumps(next_year_form(latest), indent=2, ensure_ascii=False))


@season_app.command("new")
def new_cmd(file: Path = typer.Argument(..., help="the season's form, JSON or TOML (.toml)"), url: str | None = URL,
            email: str = EMAIL) -> None:
    """Make a season from FILE (POST /api/v1/admin/seasons) and print it as saved, with its seed commitment
    (R12.1); a refusal prints its reason and sentence, naming the field, and exits 1."""
    form = _form(file)
    password = _password()
    with _gateway(url) as http, organizer_session(http, email, password) as auth:
        saved = answer(http.post(f"{API}/admin/seasons", json=form, headers=auth))
    console.print(season_table(saved))
    console.print(f"[green]season {escape(saved['id'])} made[/]", highlight=False)


@season_app.command("edit")
def edit_cmd(season_id: str = typer.Argument(..., help="the season's id, e.g. 2027"),
             file: Path = typer.Argument(..., help="the season's form, JSON or TOML (.toml), as `season show` prints "
                                                   "it; every field given replaces the saved one"),
             url: str | None = URL, email: str = EMAIL) -> None:
    """Change a season before its first opening (PATCH /api/v1/admin/seasons/{id}) to what FILE says and print it
    as saved; after its first opening it is refused season_started (R31: only corrections then, R28)."""
    form = _form(file)
    password = _password()
    with _gateway(url) as http:
        saved = answer(http.get(f"{API}/seasons/{season_id}"))
        changes = changes_of(form, season_id, saved)
        with organizer_session(http, email, password) as auth:
            saved = answer(http.patch(f"{API}/admin/seasons/{season_id}", json=changes, headers=auth))
    console.print(season_table(saved))
    console.print(f"[green]season {escape(saved['id'])} changed[/]", highlight=False)


@season_app.command("rehearse")
def rehearse_cmd(minutes: int = typer.Option(1, "--in", min=1, max=120, help="minutes until it opens"),
                 hours: float = typer.Option(2.0, "--hours", min=0.25, max=16, help="how long it stays open"),
                 url: str | None = URL, email: str = EMAIL) -> None:
    """Make a rehearsal season (R31) that opens in a minute, for a few hours today, in the latest season's zone:
    never listed to players; they join it from the play page and play on the real clock. Refused
    season_overlaps while a season runs (two seasons never overlap)."""
    password = _password()
    with _gateway(url) as http:
        now = datetime.fromisoformat(answer(http.get(f"{API}/clock"))["now"])
        listed = answer(http.get(f"{API}/seasons"))["seasons"]
        zone = answer(http.get(f"{API}/seasons/{listed[0]['id']}"))["zone"] if listed else "America/New_York"
        form = rehearsal_form(now, zone, minutes, hours)
        with organizer_session(http, email, password) as auth:
            saved = answer(http.post(f"{API}/admin/seasons", json=form, headers=auth))
    console.print(season_table(saved))
    console.print(f"[green]rehearsal {escape(saved['id'])} opens at {escape(saved['open_time'])}[/]; players join "
                  f"it from the play page", highlight=False)
