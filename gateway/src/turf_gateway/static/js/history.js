// A town's story: GET /territories/{id}/history as ownership periods — who held it, from when to when,
// for how long — with the longest holder named, for the map's popup on the play and watch pages.

import { API, gameTime, knownName, playerName } from "./api.js";

// history: [{at, player_id, …}] oldest first; now: Date (the end of the period still running).
// → [{owner, from: Date, to: Date|null, ms, fromText, toText}] (the texts: the ISO times as the server wrote
// them, in the game's offset) for every stretch the town had an owner, oldest first; `to` null while
// it runs. A reinforcement or a fortification by the owner continues the stretch.
export function ownershipPeriods(history, now) {
  const out = [];
  let cur = null;
  for (const e of history || []) {
    if (cur && e.player_id === cur.owner) continue;
    const at = new Date(e.at);
    if (cur) {
      cur.to = at;
      cur.toText = e.at;
      cur.ms = at - cur.from;
    }
    cur = e.player_id ? { owner: e.player_id, from: at, to: null, ms: 0, fromText: e.at, toText: null } : null;
    if (cur) out.push(cur);
  }
  if (cur) cur.ms = Math.max(0, now - cur.from);
  return out;
}

// → {owner, ms} of the player who held the town longest in all (ties: the one who got there first), or null
export function longestHolder(periods) {
  const total = new Map();
  for (const p of periods) total.set(p.owner, (total.get(p.owner) || 0) + p.ms);
  let best = null;
  for (const [owner, ms] of total) if (!best || ms > best.ms) best = { owner, ms };
  return best;
}

export function formatDuration(ms) {
  const m = Math.round(ms / 60000);
  const d = Math.floor(m / 1440);
  const hr = Math.floor((m % 1440) / 60);
  if (d) return `${d} d ${hr} h`;
  if (hr) return `${hr} h ${m % 60} min`;
  return `${m} min`;
}

// The popup's story block as a DOM element: the last periods (newest first) and the longest holder.
// me: my player id or null. A running ownership ends at the game clock's now (GET /clock: a manual or accelerated
// clock is not the device's). Names are looked up (GET /players/{id}) as needed.
export async function storyElement(territoryId, me) {
  const [r, c] = await Promise.all([fetch(`${API}/territories/${encodeURIComponent(territoryId)}/history`),
    fetch(`${API}/clock`)]);
  if (!r.ok) throw new Error("history " + r.status);
  const now = c.ok ? new Date((await c.json()).now) : new Date();
  const periods = ownershipPeriods((await r.json()).history, now);
  await Promise.all([...new Set(periods.map((p) => p.owner))].filter((id) => !knownName(id)).map(playerName));
  const who = (id) => (id === me ? "you" : knownName(id) || "a player");
  const box = document.createElement("div");
  box.className = "story";
  box.dataset.periods = String(periods.length);
  if (!periods.length) {
    box.textContent = "Nobody has held it yet.";
    return box;
  }
  const best = longestHolder(periods);
  const head = document.createElement("p");
  head.className = "longest";
  head.textContent = `Longest holder: ${who(best.owner)} (${formatDuration(best.ms)})`;
  const list = document.createElement("ol");
  list.className = "periods";
  for (const p of periods.slice(-5).reverse()) {
    const li = document.createElement("li");
    li.dataset.owner = p.owner;
    li.textContent = `${who(p.owner)}: ${gameTime(p.fromText)} – ${p.to ? gameTime(p.toText) : "now"} (${formatDuration(p.ms)})`;
    list.append(li);
  }
  box.append(head, list);
  return box;
}
