"""``turfwar``: run the stack, check its health, build the board."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from turf_common.settings import get_settings
from turfwar.backup import Servers
from turfwar.embedded import redact
from turfwar.stack import Stack, StackError, health_report, quiet_nats_errors
from turfwar.supervise import supervise

app = typer.Typer(help="Turf War: the GPS territory game — server, tools and board.", no_args_is_help=True)
console = Console()

try:
    from turfwar.board_cli import board_app

    app.add_typer(board_app, name="board", help="Build and report the board from the raw boundary data.")
except ImportError:  # pragma: no cover - the board pipeline is optional at run time
    pass

from turfwar.cards_cli import cards_app  # noqa: E402
from turfwar.season_cli import season_app  # noqa: E402
from turfwar.simulate.cli import simulate  # noqa: E402

app.command(name="simulate")(simulate)
app.add_typer(cards_app, name="cards")
app.add_typer(season_app, name="season")


@app.command()
def up() -> None:
    """Start NATS, PostgreSQL and Redis (embedded unless TURF_*_URL are set), every service and the gateway.
    Ctrl-C stops everything; data stays in TURF_DATA_DIR."""
    s = get_settings()
    stack = Stack(data_dir=s.data_dir.resolve(), http_port=s.http_port)
    stop = {"now": False}

    def on_signal(*_: object) -> None:
        stop["now"] = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        stack.lock()
        stack.prepare()   # R12.1: seed and organizer password before anything starts; public defaults refused
    except StackError as e:
        console.print(f"[red]{e}[/]")
        raise typer.Exit(1) from None
    if stack.new_organizer_password:
        # shown this once; it stays in the data directory (mode 0600) for the next starts
        console.print(f"organizer account: [bold]{s.organizer_email}[/], password [bold]"
                      f"{stack.new_organizer_password}[/] (made now, kept in {stack.data_dir / 'organizer-password'};"
                      " set TURF_ORGANIZER_PASSWORD to choose your own)", soft_wrap=True)
    try:
        console.print(f"[bold]Turf War[/] — data in {stack.data_dir}, clock {s.clock}")
        stack.warm_up()   # the services' imports and the board load while the servers start
        stack.start_servers(progress=True)
        console.print("  starting services …")
        try:
            stack.start_services()
        except StackError as e:
            console.print(f"[red]{e}[/]")
            raise typer.Exit(1) from None
        stack.write_manifest(supervisor=os.getpid())
        console.print(f"[green]ready[/] → [bold]{stack.base_url}/[/]  (API {stack.base_url}/api/v1, docs "
                      f"{stack.base_url}/docs). Ctrl-C (or `turfwar down`) to stop.")
        supervise(stack, lambda: stop["now"], lambda line: console.print(line, style="yellow"), os.getpid())
    finally:
        console.print("stopping …")
        stack.stop()
        console.print("stopped.")


@app.command()
def status(gateway: str = typer.Option(None, envvar="TURF_GATEWAY_URL",
                                       help="the gateway's address (compose's tools service: http://gateway:8000); "
                                            "default: the stack's")) -> None:
    """Health of each part of a running stack (reads TURF_DATA_DIR/stack.json, or the TURF_*_URL variables)."""
    s = get_settings()
    info = _manifest(Path(s.data_dir))
    nats_url, db_url, redis_url = (_server_url(info, k) for k in ("nats", "database", "redis"))
    http = gateway or info.get("http") or f"http://127.0.0.1:{s.http_port}"
    table = Table("part", "health", "where")
    # the URLs carry the servers' passwords; shown without them
    table.add_row("nats", _probe_nats(nats_url), redact(nats_url) or "-")
    table.add_row("postgres", _probe_pg(db_url), redact(db_url) or "-")
    table.add_row("redis", _probe_redis(redis_url), redact(redis_url) or "-")
    notes: list[str] = []
    for name, h in asyncio.run(health_report(nats_url, notes)).items():
        table.add_row(name, h, "NATS svc." + name + ".health")
    table.add_row("gateway", _probe_http(http), http)
    console.print(table)
    for note in notes:   # what serves but fails the season (R30: no relay, no mail): loud, yet no part is down
        console.print(f"[bold red]{escape(note)}[/]")
    down = [str(row) for row, health in zip(table.columns[0].cells, table.columns[1].cells, strict=True)
            if health != "ok"]
    if down:
        console.print(f"[red]not healthy: {', '.join(down)}[/]")
    raise typer.Exit(1 if down else 0)


@app.command()
def down(grace: float = typer.Option(15.0, help="seconds each process has to stop before it is killed")) -> None:
    """Stop the stack of TURF_DATA_DIR (by its stack.json): the `turfwar up` running it, or what one left behind."""
    from turfwar.down import stop_stack

    data_dir = Path(get_settings().data_dir).resolve()
    try:
        was = stop_stack(data_dir, grace, say=console.print)
    except FileNotFoundError:
        console.print(f"no stack runs in {data_dir} (no stack.json)")
        raise typer.Exit(0) from None
    console.print(f"stopped ({len(was)} processes were running)" if was else "nothing was running; stack.json removed")


@app.command("deploy-env")
def deploy_env(organizer_email: str = typer.Option(..., help="the organizer's sign-in email"),
               out: Path = typer.Option(Path("deploy/.env"), help="where to write it (refused if it exists)"),
               domain: str = typer.Option(None, help="the site's DNS name (TURF_DOMAIN, and TURF_PUBLIC_URL for the "
                                                     "links in mail); else add it to the file yourself")) -> None:
    """Make the deployment's secrets (seed, organizer, PostgreSQL, Redis and one NATS password per service) in a
    new 0600 ``.env`` for ``docker-compose``, with every other setting listed, commented, at its default."""
    from turfwar.deployenv import write_env

    try:
        write_env(out, organizer_email, domain)
    except FileExistsError:
        console.print(f"[red]{out} exists: a season's secrets are made once (remove it first to start over)[/]")
        raise typer.Exit(1) from None
    console.print(f"wrote {out} (mode 0600)")


@app.command("bus-setup")
def bus_setup() -> None:
    """Declare the event stream, every durable consumer and the clock's KV bucket with the set-up user
    (``TURF_NATS_URL`` with ``admin``'s password), as compose's and Kubernetes' one-shot step does before the
    services, which may not declare them. Idempotent."""
    from turfwar.bussetup import main

    main()


def _manifest(data_dir: Path) -> dict[str, Any]:
    """The running stack's ``stack.json`` (``turfwar up`` writes it), or nothing."""
    manifest = data_dir / "stack.json"
    return json.loads(manifest.read_text()) if manifest.exists() else {}  # type: ignore[no-any-return]


def _server_url(info: dict[str, Any], kind: str) -> str | None:
    """``TURF_<KIND>_URL`` if set, else the stack's (``nats``, ``database``, ``redis``)."""
    return os.environ.get(f"TURF_{kind.upper()}_URL") or info.get(f"{kind}_url")


def _servers(data_dir: Path) -> Servers | None:
    """The season's servers: the TURF_*_URL variables, else the running stack's stack.json; None if neither."""
    s = get_settings()
    info = _manifest(data_dir)
    database, redis_url, nats_url = (_server_url(info, k) for k in ("database", "redis", "nats"))
    if not (database and redis_url and nats_url):
        return None
    return Servers(database, redis_url, nats_url, s.stream, s.redis_prefix)


@app.command()
def backup(out: Path = typer.Option(None, help="a new folder (default: backups/<UTC time> in TURF_DATA_DIR)")) -> None:
    """Back the season up (database, Redis read models, game clock, season seed) into a new private folder."""
    from turfwar.backup import backup as run_backup

    data_dir = Path(get_settings().data_dir).resolve()
    servers = _servers(data_dir)
    if servers is None:
        console.print("[red]no running stack here (no stack.json) and no TURF_*_URL: nothing to back up[/]")
        raise typer.Exit(1)
    out = out or data_dir / "backups" / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    manifest = run_backup(servers, out, data_dir, step=lambda what: console.print(f"  backing up {what} …"))
    console.print(f"[green]backed up[/] to {out} (mode 0700: it holds the season's seed): {manifest['parts']}")


@app.command()
def restore(src: Path = typer.Argument(..., help="a folder `turfwar backup` made")) -> None:
    """Restore a backup before the stack starts: into TURF_*_URL's servers, else into TURF_DATA_DIR's own embedded
    servers (started for the restore, then stopped; `turfwar up` next). Replaces the season that is there."""
    from turfwar.backup import restore as run_restore
    from turfwar.backup import restore_season_files

    data_dir = Path(get_settings().data_dir).resolve()
    if (data_dir / "stack.json").exists():
        console.print("[red]a stack runs on this data directory: `turfwar down` first (no service may run)[/]")
        raise typer.Exit(1)
    try:
        console.print(f"  season files: {restore_season_files(src, data_dir) or 'none in the backup'}")
    except ValueError as e:
        console.print(f"[red]{e}[/]")
        raise typer.Exit(1) from None
    servers, stack = _servers(data_dir), None
    if servers is None:
        stack = Stack(data_dir=data_dir)
        stack.prepare()
        stack.start_servers(progress=True)
        stack.write_manifest()
        servers = _servers(data_dir)
        assert servers is not None, "the embedded servers just started are in stack.json"
    try:
        manifest = run_restore(servers, src, step=lambda what: console.print(f"  restoring {what} …"))
    finally:
        if stack is not None:
            stack.stop()
    console.print(f"[green]restored[/] the backup of {manifest['made_at']}; start with `turfwar up`")


docs_app = typer.Typer(help="Generated documentation.", no_args_is_help=True)
app.add_typer(docs_app, name="docs")
ASYNCAPI = Path(__file__).resolve().parents[2] / "docs" / "asyncapi.yaml"


@docs_app.command("asyncapi")
def docs_asyncapi(out: Path = ASYNCAPI, check: bool = typer.Option(False, help="fail if the file is stale")) -> None:
    """Write the AsyncAPI 3.0 document of every NATS subject (generated by FastStream from the contracts)."""
    import yaml

    from turfwar.asyncapi import document_yaml

    text = document_yaml()
    if check:
        current = yaml.safe_load(out.read_text()) if out.exists() else None
        if current != yaml.safe_load(text):
            console.print(f"[red]{out} is stale: run `turfwar docs asyncapi`[/]")
            raise typer.Exit(1)
        console.print(f"{out} is current")
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    console.print(f"wrote {out}")


@docs_app.command("openapi")
def docs_openapi(out: Path = typer.Option(None, help="write it here; default: standard output")) -> None:
    """Print (or write to OUT) the gateway's OpenAPI document, made from the app without a stack: the HTTP contract,
    to compare two versions byte for byte. The docs site renders the same document (turfwar/docsite.py)."""
    from turfwar.openapi import document_json

    text = document_json()
    if out is None:
        typer.echo(text, nl=False)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    console.print(f"wrote {out}")


@docs_app.command("nats-auth")
def docs_nats_auth(check: bool = typer.Option(False, help="fail if the file is stale")) -> None:
    """Write ``deploy/nats/auth.conf`` and the generated block of ``deploy/nats/values.yaml``: the deployment's NATS
    users and their permissions, from the table the embedded server uses too (turfwar/natsauth.py)."""
    from turfwar import natsauth

    helm = natsauth.HELM_FILE
    for out, text in ((natsauth.DEPLOY_FILE, natsauth.deploy_conf()),
                      (helm, natsauth.helm_file_text(helm.read_text()))):
        if check:
            if not out.exists() or out.read_text() != text:
                console.print(f"[red]{out} is stale: run `turfwar docs nats-auth`[/]")
                raise typer.Exit(1)
            console.print(f"{out} is current")
        else:
            out.write_text(text)
            console.print(f"wrote {out}")


verify_app = typer.Typer(help="Check the live state against a full recompute.", no_args_is_help=True)
app.add_typer(verify_app, name="verify")


@verify_app.command("scores")
def verify_scores() -> None:
    """Recompute every score from the claims database and compare with the live leaderboard (exit 1 on any
    difference). Uses TURF_DATA_DIR/stack.json or the TURF_*_URL variables to find the running stack."""
    from turf_common.board import load_board
    from turfwar.verify import differences

    s = get_settings()
    manifest = Path(s.data_dir) / "stack.json"
    info = json.loads(manifest.read_text()) if manifest.exists() else {}
    db = os.environ.get("TURF_DATABASE_URL") or info.get("database_url")
    nats_url = os.environ.get("TURF_NATS_URL") or info.get("nats_url")
    if not db or not nats_url:
        console.print("[red]no running stack found[/] (start one with `turfwar up`, or set TURF_*_URL)")
        raise typer.Exit(2)
    diffs = differences(load_board(s.board_dir), db, nats_url, s.stream)
    if diffs:
        for d in diffs:
            console.print(f"[red]{d}[/]")
        raise typer.Exit(1)
    console.print("[green]live leaderboard equals a full recompute[/]")


audit_app = typer.Typer(help="Audit the season's randomness against the seed.", no_args_is_help=True)
app.add_typer(audit_app, name="audit")


@audit_app.command("draws")
def audit_draws_cmd(seed: str = typer.Option(None, help="the season's seed; default: the one revealed at season "
                                                        "end (card.seed_revealed)"),
                    commitment: str = typer.Option(None, help="a seed commitment you saw published (GET /api/v1/clock "
                                                              "seed_commitment): the seed must match it too"),
                    season: str = typer.Option(None, help="the season to audit (R31: each has its own seed); "
                                                          "default: the configuration file's")) -> None:
    """Replay every card draw and Joker pick of the season from the seed and the event log; report every mismatch
    (exit 1 if any), first whether the seed matches the commitment published before the season (R12.1). Uses
    TURF_DATA_DIR/stack.json or TURF_NATS_URL to find the stream."""
    from turf_common.board import load_board
    from turf_common.rules import gametime
    from turfwar.audit import audit_stream

    s = get_settings()
    manifest = Path(s.data_dir) / "stack.json"
    info = json.loads(manifest.read_text()) if manifest.exists() else {}
    nats_url = os.environ.get("TURF_NATS_URL") or info.get("nats_url")
    if not nats_url:
        console.print("[red]no running stack found[/] (start one with `turfwar up`, or set TURF_NATS_URL)")
        raise typer.Exit(2)
    rep = audit_stream(nats_url, s.stream, load_board(s.board_dir), gametime.load_season(s.season_file), seed,
                       commitment, season)
    for m in rep.mismatches:
        console.print(f"[red]{m}[/]")
    console.print(f"seed from {rep.seed_source}: {rep.draws} draws, {rep.deals} day-start deals, {rep.jokers} Joker "
                  f"picks replayed, {len(rep.mismatches)} mismatch(es)")
    raise typer.Exit(0 if rep.ok else 1)


@audit_app.command("game")
def audit_game_cmd(game_id: str = typer.Argument(..., help="the game's id (Team Turf or King of the Hill)"),
                   url: str = typer.Option(None, help="the gateway; default: this data directory's stack")) -> None:
    """T20, K16: replay a finished Team Turf game or King of the Hill room from its revealed seed and
    its log (GET /api/v1/modes/games/{id}/log), and compare every shuffle, battle, bonus and die with the mode.*
    events of the stream; exit 1 on any mismatch. Uses TURF_DATA_DIR/stack.json or TURF_NATS_URL for the stream."""
    import asyncio

    import httpx

    from turf_common.board import load_board
    from turf_modes.games import BoardFields
    from turfwar.audit import read_stream
    from turfwar.modeaudit import audit_game

    s = get_settings()
    manifest = Path(s.data_dir) / "stack.json"
    info = json.loads(manifest.read_text()) if manifest.exists() else {}
    nats_url = os.environ.get("TURF_NATS_URL") or info.get("nats_url")
    base = url or info.get("http") or f"http://127.0.0.1:{s.http_port}"
    if not nats_url:
        console.print("[red]no running stack found[/] (start one with `turfwar up`, or set TURF_NATS_URL)")
        raise typer.Exit(2)
    log: dict[str, Any] | None = None
    offset: int | None = 0
    while offset is not None:   # the log a page at a time (a long game's whole log is too big for one answer)
        r = httpx.get(f"{base}/api/v1/modes/games/{game_id}/log", params={"offset": offset}, timeout=30)
        if r.status_code != 200:
            console.print(f"[red]{r.status_code}[/] {r.text}")
            raise typer.Exit(2)
        page = r.json()
        log = page if log is None else {**log, "actions": log["actions"] + page["actions"]}
        offset = page.get("next_offset") if page["actions"] else None
    events = [e for subject, e in asyncio.run(read_stream(nats_url, s.stream)) if subject.startswith("mode.")]
    if r.json().get("mode") == "yard_cards":  # Y5: the third mode replays with its own rules
        from turfwar.yardaudit import audit_yard

        rep = audit_yard(r.json(), events)
        for m in rep.mismatches:
            console.print(f"[red]{escape(m)}[/]")
        console.print(f"{rep.mode} {rep.game_id}: {rep.resolutions} move(s) replayed from the seed, "
                      f"{len(rep.mismatches)} mismatch(es)")
        raise typer.Exit(0 if rep.ok else 1)
    board = load_board(s.board_dir)
    fields = BoardFields(board.graph, {t: f"{v.county}, {v.state}" for t, v in board.territories.items()})
    assert log is not None
    rep = audit_game(log, events, fields)
    for m in rep.mismatches:
        console.print(f"[red]{m}[/]")
    console.print(f"{rep.mode} {rep.game_id}: {rep.resolutions} resolution(s) replayed from the seed, "
                  f"{len(rep.mismatches)} mismatch(es)")
    raise typer.Exit(0 if rep.ok else 1)


def _probe_nats(url: str | None) -> str:
    if not url:
        return "unknown"

    async def go() -> str:
        import nats

        from turf_common.bus import server_list

        try:
            # silent on a node that is down (the row says whether NATS answers, without a traceback per node)
            nc = await nats.connect(servers=server_list(url), connect_timeout=2, max_reconnect_attempts=0,
                                    error_cb=quiet_nats_errors)
            js = nc.jetstream()
            await js.account_info()
            await nc.close()
            return "ok"
        except Exception as e:
            return f"down ({type(e).__name__})"

    return asyncio.run(go())


def _probe_pg(url: str | None) -> str:
    if not url:
        return "unknown"
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=2) as c:
            c.execute("SELECT 1")
        return "ok"
    except Exception as e:
        return f"down ({type(e).__name__})"


def _probe_redis(url: str | None) -> str:
    if not url:
        return "unknown"
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
        return "ok"
    except Exception as e:
        return f"down ({type(e).__name__})"


def _probe_http(url: str) -> str:
    import httpx

    try:
        return "ok" if httpx.get(url + "/health", timeout=2).status_code == 200 else "down"
    except httpx.HTTPError as e:
        return f"down ({type(e).__name__})"


if __name__ == "__main__":
    app()
