"""Reasons and next steps for goals a run does not meet, written from the profiles of the runs (the live profile
of the run is printed under each). Keep these in step with what the profiles show."""

from __future__ import annotations

from typing import Any

ANALYSIS: dict[str, str] = {
    "claims": (
        "**Reason.** Throughput is bounded by CPU, not by PostgreSQL: the note above splits the CPU per accepted "
        "claim by process (from /proc), and on the same server pgbench commits far more single-row updates per "
        "second than we accept claims. A claim is an HTTP request, two NATS requests (geo-verify, claims), one "
        "PostgreSQL transaction of a few statements, two events through the outbox and JetStream, and two durable "
        "consumers (scoring, cards) that read Redis or PostgreSQL and publish `score.updated`: about ten Python "
        "process hops, each a fraction of a millisecond of interpreter time, on two cores shared with PostgreSQL, "
        "NATS, Redis and the load generator. Two cores give at most 2,000 ms / (CPU per claim) claims per second "
        "(the note's total); 1,000 claims/s needs at most 2 ms of CPU per claim across every process, several times "
        "less than now, which no tuning of this shape reaches on this machine. Latency at full load is queueing "
        "(connections in flight / rate, Little's law: 64 connections at this rate wait about half a second); "
        "the paced row shows the unloaded latency, well under 100 ms.\n\n"
        "**Done here** (session 2; the previous run of this file measured 60 claims/s and 27 ms of CPU per claim): "
        "`score.updated` is a delta (the changed standings and the side quests) instead of the whole leaderboard, "
        "so neither scoring nor the gateway does O(players) work per claim; the gateway forwards feed events "
        "without re-validating them; Redis replies are parsed by hiredis (C) and scoring makes six round trips "
        "per event instead of about fifteen; the cards consumer opens no transaction for a change that touches no "
        "trade; the claims service makes 5.2 SQL statements per claim instead of 12.4 (card facts folded into the "
        "day-facts statement, the fix screen and the accepted claim's writes one statement each, the outbox "
        "relay one `UPDATE … RETURNING`) and keeps the game clock in memory from a NATS KV watch instead of a KV "
        "read per claim (claims CPU per claim 6.7 → 3.7 ms in an A/B on the small run); connection pools sized "
        "for the bursts (no PostgreSQL connect per request); services on uvloop; consumers ack without waiting.\n\n"
        "**Next steps**, biggest first: (1) cores: the services are stateless between requests, so replicas on "
        "cores of their own multiply the one-replica figure (see *Scaling out*); on this machine the second claims "
        "replica finds no idle CPU, so the 1 → 2 replica rows stay flat; (2) group commit: the claims service "
        "could decide a batch of claims on distinct territories in one transaction and one outbox flush, "
        "amortising the per-transaction round trips that dominate its profile; (3) fewer hops: geo-verify's "
        "lookup is about a microsecond (benchmark 1) while the NATS request to it costs hundreds, so a board index "
        "inside the gateway (with geo-verify kept for other clients) removes one hop per claim; (4) the gateway's "
        "session lookup could be cached for a few seconds with eviction on sign-out and status changes."
    ),
    "scoring": (
        "**Reason.** See the profile below: the handler's time is Redis round trips and the side quests over "
        "every owned territory.\n\n"
        "**Next step.** Keep side-quest totals per player in Redis sorted sets updated by the change, so the "
        "handler no longer reads every owner."
    ),
    "fan-out": (
        "**Reason.** The profile below: most of the gateway's busy samples during the fan-out are uvicorn's "
        "websocket `send` (one socket write per client per message) and the wake-ups of a thousand writer tasks, "
        "in one event loop on two cores shared with the rest of the stack and with the benchmark's own thousand "
        "clients (their CPU is in the note). Per-message deflate is off and a `score.updated` is a small delta, "
        "so what remains is per-client work: a message reaches the last of a thousand clients after a thousand "
        "socket writes.\n\n"
        "**Next step.** Put spectators on gateway replicas of their own (a NATS core subscription reaches every "
        "replica at no cost to the services), or write each frame once and hand the same bytes to every "
        "client's transport."
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
