"""The use cases, over ports only (load, decide, store, publish), one class a topic; and the pure policies they
ask (password policy, session idling, history entries, the gateway's own events, paging)."""
