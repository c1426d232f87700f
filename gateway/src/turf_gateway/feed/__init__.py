"""The spectator feed: the hub of websocket clients (hub), the subscriber relaying public events to it (relay),
resending what a client missed (resend), and the durable consumer that keeps the feed log (log)."""
