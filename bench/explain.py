"""Reasons and next steps for goals a run does not meet, written from the profiles of the runs (the live profile
of the run is printed under each). Keep these in step with what the profiles show."""

from __future__ import annotations

from typing import Any

ANALYSIS: dict[str, str] = {
    "claims": (
        "**Reason.** Throughput is bounded by CPU, not by PostgreSQL: the note above splits the CPU per accepted "
        "claim by process (from /proc). PostgreSQL takes well under a millisecond of it and, on the same server, "
        "pgbench commits thousands of single-row updates per second; the rest is Python in five processes "
        "sharing two cores (with the load generator and whatever else runs on the machine). The two largest "
        "shares are not the claim itself but what every claim sets off: the scoring service rebuilds and "
        "publishes the whole leaderboard for each `territory.changed`, and the gateway decodes, validates "
        "(pydantic), names and re-serialises that leaderboard for the spectator feed (in the profile below, "
        "most of the gateway's busy samples are in the NATS feed callback, not in `POST /claims`, even with no "
        "spectator connected). Both costs "
        "grow with the number of players (2,000 here). The claims service's own share is about a dozen SQL "
        "statements through SQLAlchemy and psycopg; the cards service consumes every `territory.changed` too. "
        "Two cores give at most 2,000 ms / (CPU per claim) claims per second, about 70 at the total above even "
        "on an idle machine; 1,000 claims/s on two cores needs at most 2 ms of CPU per claim across all "
        "processes, more than ten times less than now, which no tuning of this shape reaches. Latency at full load is "
        "queueing (connections in flight / rate, Little's law); the paced row shows the unloaded latency.\n\n"
        "**Done here.** Claims: concurrent submits share one outbox flush instead of each running its own (two "
        "transactions and a publish each, one after another under the relay's lock); the claimant's day facts "
        "(claims made, Double Trouble and Mulligan extras, who claimed the territory) and the anti-spoofing "
        "screen are one round trip each instead of five; the statements of every claim are built once with bound "
        "parameters. Measured A/B in one process on alternating game days (448 claims each, 16 in flight): "
        "median CPU per claim in the claims service 13.1 ms before, 7.6 ms after (−42 %), SQL statements per "
        "claim 17.2 → 12.4. Gateway: the session lookup statement is built once; the spectator hub no longer "
        "serialises messages when nobody listens (the claims rounds run with no spectator connected).\n\n"
        "**Next steps**, biggest first: (1) scoring: keep the leaderboard incrementally (totals in a Redis sorted "
        "set, side-quest leaders kept as they change) and publish deltas, which removes the two largest shares "
        "above and makes them independent of the number of players; (2) gateway: forward feed messages without "
        "re-validating them, cache display names; (3) claims: fold the card facts (War window, Freeze, Blockade: "
        "three queries in `effects.card_facts`) into the territory query and read the game clock from a watched "
        "KV entry instead of a request per claim; (4) replicas on cores of their own: on this machine the second "
        "claims replica finds little idle CPU (the claims service is about a quarter of the per-claim CPU and the "
        "stack already keeps most of both cores busy), so the 1 → 2 replica rows move little."
    ),
    "scoring": (
        "**Reason.** The incremental handler rescores only the two players a change touches (the networkx part "
        "is hundreds of times cheaper than recomputing everyone: see the row above), but it then rebuilds the "
        "whole leaderboard from Redis on every event (HGETALL of every score, JSON decode of each, side quests "
        "over every owned territory, a pydantic model per standing) and publishes it whole. That rebuild is "
        "O(players) and is most of the handler (profile below), so the ratio against a full recompute sits near "
        "the goal and moves with the machine's load. In the stack, after the claims rounds, 2,000 players are on "
        "the leaderboard: each event then costs the scoring service tens of milliseconds before `score.updated` "
        "leaves, and the gateway then decodes, validates, names and re-serialises the same O(players) message "
        "before the spectator gets it. At the paced 5 claims/s of this row that is the latency measured; in an "
        "earlier run at 20 claims/s the scoring service fell behind and the latency grew to seconds.\n\n"
        "**Next step.** Totals in a Redis sorted set updated by the two rescored players (ranks from ZREVRANK), "
        "side-quest leaders kept incrementally, and a delta on the feed (changed standings and the ranks that "
        "moved): the handler becomes O(log players) and the feed message small."
    ),
    "fan-out": (
        "**Reason.** The profile below answers it: about half of the gateway's busy samples during the fan-out "
        "are `PerMessageDeflate.encode`. Browsers (and the benchmark's clients) negotiate per-message deflate, "
        "and uvicorn's websocket layer compresses every message separately for every client, so each update "
        "is compressed a thousand times, in the gateway's one event loop, on two cores shared with the rest of "
        "the stack and with the benchmark's own thousand clients (whose CPU, in the note, is even more than the "
        "gateway's). Each `score.updated` also carries the whole named leaderboard, so the cost per "
        "update grows with players × spectators.\n\n"
        "The hub's own bound works: in the burst row a reader gets every message while the client that reads "
        "nothing is dropped alone and told to resync; during the paced phase its socket buffers absorb the "
        "updates first, so it is not dropped there.\n\n"
        "**Next step.** Turn per-message deflate off for the gateway (`uvicorn.run(..., "
        "ws_per_message_deflate=False)` in `turf_gateway/main.py`) or compress each message once and send the "
        "same frame to every client; send deltas instead of whole leaderboards (see scoring); and put "
        "spectators on gateway replicas of their own (a NATS core subscription reaches every replica at no cost "
        "to the services)."
    ),
    "board": (
        "**Reason.** The build is one single-threaded process; its CPU time is in the row's note. When the wall "
        "time is far above the CPU time the machine was oversubscribed by other work during the run.\n\n"
        "**Next step.** The overlap/gap resolution and adjacency steps are per territory and could use a process "
        "pool."
    ),
    "geo": "**Reason / next step.** See the profile; the point index is in `turf_common.board.loader`.",
}


def scale(sections: list[Any]) -> str:
    """The scale-out paragraph, with the run's own per-replica figures."""
    rows = {r.metric: r for sec in sections for r in sec.rows}
    one = rows.get("accepted claims/s, 1 claims replica")
    two = rows.get("accepted claims/s, 2 claims replicas")
    r1 = one.ours if one and one.ours else None
    r2 = two.ours if two and two.ours else None
    figures = ""
    if r1:
        figures = (
            f"\n\nMeasured here: **{r1:,.0f} accepted claims/s with one claims replica**"
            + (f" and **{r2:,.0f}/s with two** ({r2 / r1:.2f}×)" if r2 else "")
            + ", all on the same two cores as PostgreSQL, NATS, Redis, the gateway, scoring, cards and the load "
            "generator. A second replica helps only as far as there is idle CPU: here the stack is CPU-bound, so "
            "the second replica mostly takes CPU from the others; on separate cores each replica would bring "
            "about the one-replica figure, up to PostgreSQL's commit rate (the pgbench row) divided by the "
            "statements per claim.\n\n"
            "For a 100,000-player season: R6 gives each player one claim a game day and R10 locks a territory "
            "for the day once claimed, so with 448 territories at most a few hundred claims a day are *accepted*, "
            "but every player may *submit*. A season-opening rush is up to 100,000 submissions within minutes of "
            "06:00, most of them refused (`locked_today`, `no_claims_left`). A refusal was not measured on its own; "
            "it takes the same locks, reads the same facts and records the fix, but publishes only "
            "`claim.rejected` (no scoring, no cards, no feed), so from the CPU split above it costs roughly the "
            "claims and gateway shares of an acceptance. At the measured one-replica rate, 100,000 submissions "
            f"take about {100_000 / r1 / 60:,.0f} minutes to absorb with one replica; clearing them in 10 minutes "
            f"(≈ {100_000 / 600:,.0f} submissions/s) needs about {100_000 / 600 / r1:,.1f}× this figure. The "
            "figure is the whole stack on two shared cores, so that is roughly as many times this machine's CPU, "
            "spread over claims, gateway and geo-verify replicas (fewer once refusals are counted at their lower "
            "cost, since scoring and cards have nothing to do for them), with PostgreSQL alongside: its "
            "single-row commit rate on "
            "this machine (pgbench, 16 clients) is the ceiling for one database, which is where partitioning "
            "claims by territory across databases (or a claims schema per territory range) comes in. Replica "
            "count is the blunt tool; the per-claim CPU cuts listed above multiply whatever the replicas give."
        )
    return (
        "Scale beyond one machine is by replicas: every service subscribes to its commands in a NATS queue group "
        "named after it (`claims`, `geo-verify`, …), so a second process of the same service shares the requests "
        "with no configuration; events are published once through each service's outbox and consumed by "
        "durable JetStream consumers. The claims service serialises decisions per territory with a row lock (and "
        "per player with an advisory lock), so replicas never decide one territory twice at once; partitioning "
        "by territory (a subject per territory range, or consistent hashing of territory ids to replicas) keeps a "
        "territory's claims on one replica and removes cross-replica lock waits." + figures
    )


SCALE = scale([])  # without figures
