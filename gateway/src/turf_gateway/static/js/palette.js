// Player colours: Paul Tol's "muted" qualitative palette, which stays distinguishable with the common
// colour-vision deficiencies, given out in join order (GET /players: join_index), so the first nine players never
// share a colour and a player's colour is the same on every page and every day.

import { API, learnNames } from "./api.js";

export const PALETTE = ["#CC6677", "#332288", "#DDCC77", "#117733", "#88CCEE", "#882255", "#44AA99", "#999933",
  "#AA4499"];

const joinIndex = new Map(); // player id → join_index
let roster = null; // the pending or last GET /players
let askedAt = 0;

// Until the roster is known (or for a player who joined since), a hash of the id picks a palette colour, so a
// page never draws without colours; the roster then corrects it.
function hashIndex(playerId) {
  let x = 0x811c9dc5;
  for (let i = 0; i < playerId.length; i++) {
    x ^= playerId.charCodeAt(i);
    x = Math.imul(x, 0x01000193) >>> 0;
  }
  return x;
}

export function colourFor(playerId) {
  const i = joinIndex.get(playerId);
  return PALETTE[(i ?? hashIndex(playerId)) % PALETTE.length];
}

export function knowsPlayer(playerId) {
  return joinIndex.has(playerId);
}

// GET /players → [{id, display_name, join_index}]. ``fresh``: a player met for the first time may have just joined,
// so the roster is read again, at most once every 5 s (a later call waits for the next read). ``force``: read now
// whatever the gap (a page that knows a player was just verified: its own player, once). Never rejects.
// Whatever a read learns that was not known before is told to every onRoster listener, so a page redraws what it
// drew in a fallback colour (map, leaderboard, legend) however the read was asked for.
const MIN_GAP_MS = 5000;
let next = null; // the coming re-read, when one was asked within MIN_GAP_MS of the last
const listeners = new Set();

export function onRoster(fn) {
  listeners.add(fn);
}

function read() {
  askedAt = Date.now();
  roster = fetch(`${API}/players`).then((r) => (r.ok ? r.json() : { players: [] }))
    .then((out) => {
      const players = out.players || [];
      const learnt = players.filter((p) => joinIndex.get(p.id) !== p.join_index).map((p) => p.id);
      for (const p of players) joinIndex.set(p.id, p.join_index);
      learnNames(players.map((p) => ({ player_id: p.id, display_name: p.display_name })));
      if (learnt.length) {
        for (const fn of listeners) {
          try {
            fn(learnt);
          } catch {
            /* one page part's redraw never stops another's */
          }
        }
      }
      return players;
    })
    .catch(() => []);
  return roster;
}

export function loadRoster({ fresh = false, force = false } = {}) {
  if (!roster || force) return read();
  if (!fresh) return roster;
  const wait = askedAt + MIN_GAP_MS - Date.now();
  if (wait <= 0 && !next) return read();
  next = next || new Promise((done) => setTimeout(done, Math.max(0, wait))).then(() => { next = null; return read(); });
  return next;
}

// The legend's "mine" swatch in my real colour (the one my towns are filled with): CSS reads --mine. A player who
// registered after the page loaded is not in its roster yet: it is read again first.
export async function paintMine(root, playerId) {
  if (!playerId) return;
  if (!knowsPlayer(playerId)) await loadRoster({ fresh: true });
  root.style.setProperty("--mine", colourFor(playerId));
}
