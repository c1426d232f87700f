// The gateway's HTTP contract (shared/API.md), as the pages use it: JSON in and out, the session token from
// localStorage, and errors carrying the rule's readable message (never just a code).

export const API = "/api/v1";
let SESSION_KEY = "turf.session";

// The organize page keeps its own session, so an organizer's sign-in never replaces a player's on this device.
export function useSessionKey(key) {
  SESSION_KEY = key;
}

export class ApiError extends Error {
  constructor(status, reason, message) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}

export function session() {
  try {
    return JSON.parse(localStorage.getItem(SESSION_KEY) || "null");
  } catch {
    return null;
  }
}

export function saveSession(s) {
  localStorage.setItem(SESSION_KEY, JSON.stringify(s));
}

// The Organize link is for the organizer alone: shown on a device where the organize page has a session
// (its own key, "turf.admin"), hidden from players.
export function showOrganizeLink() {
  const link = document.querySelector("#organize-link");
  if (link) link.hidden = !localStorage.getItem("turf.admin");
}

export function clearSession() {
  localStorage.removeItem(SESSION_KEY);
}

// Sign out: the server revokes the token (DELETE /sessions, best effort), then it is forgotten here
export async function signOut() {
  try {
    if (session()) await api("/sessions", { method: "DELETE" });
  } catch {
    // offline or already expired: forgetting the token is all that is left to do
  }
  clearSession();
}

// fetch + JSON; throws ApiError with the server's {reason, message}
export async function api(path, { method = "GET", body, headers = {}, auth = true } = {}) {
  const h = { Accept: "application/json", ...headers };
  if (body !== undefined) h["Content-Type"] = "application/json";
  const s = session();
  if (auth && s && s.token) h.Authorization = "Bearer " + s.token;
  let r;
  try {
    r = await fetch(API + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "network", "The server cannot be reached; check your connection and try again.");
  }
  const text = await r.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!r.ok) {
    const reason = (data && data.reason) || "error";
    const message = (data && data.message) || `The server answered ${r.status}; try again shortly.`;
    throw new ApiError(r.status, reason, message);
  }
  return data;
}

// A read whose route may not exist yet on this server: null on 404 instead of an error.
export async function optional(path, opts) {
  try {
    return await api(path, opts);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

// ---- small DOM helpers shared by the pages ----

// "1 steal", "2 steals": a count with its noun, singular for one
export function plural(n, one, many = one + "s") {
  return `${n} ${n === 1 ? one : many}`;
}

export function $(sel, root = document) {
  return root.querySelector(sel);
}

// h("li", {class: "x", onclick: fn}, "text", child...)
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// Show a message in a status box: kind "ok", "error" or "info".
export function say(el, kind, text) {
  if (!el) return;
  el.className = "msg " + kind;
  el.textContent = text;
  el.hidden = !text;
}

export function errorText(e) {
  return e instanceof ApiError ? e.message : "Something went wrong: " + (e && e.message ? e.message : e);
}

// Run an async action from a button: disables it meanwhile, shows success or the readable error.
export async function act(button, out, fn) {
  if (button) button.disabled = true;
  say(out, "info", "");   // the last action's answer goes: the next one is about this action
  try {
    const text = await fn();
    if (text) say(out, "ok", text);
    return true;
  } catch (e) {
    say(out, "error", errorText(e));
    return false;
  } finally {
    if (button) button.disabled = false;
  }
}

export function formData(form) {
  const out = {};
  for (const [k, v] of new FormData(form).entries()) out[k] = typeof v === "string" ? v.trim() : v;
  return out;
}

// The game's own zone (rule 2: New York time); every game time is shown in it, whatever offset the string has
// (an evidence time in UTC, a flag in -04:00) and wherever the device is.
export const GAME_ZONE = "America/New_York";
// made when first used, once (a formatter with a time zone loads its data, a long task on a slow phone
// that belongs after the first paint, not in the modules' start)
const formats = {};
const format = (locale, opts) => (formats[locale] ||= new Intl.DateTimeFormat(locale, { timeZone: GAME_ZONE, ...opts }));
const GAME_FORMAT = { formatToParts: (d) => format("en-US", { weekday: "short", day: "numeric", month: "short",
  hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(d) };

// "2026-10-05T22:00:00-04:00" or "2026-10-06T02:00:00Z" → "Mon 5 Oct, 22:00" (New York time)
export function gameTime(iso) {
  if (!iso) return "—";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const p = Object.fromEntries(GAME_FORMAT.formatToParts(new Date(t)).map((x) => [x.type, x.value]));
  return `${p.weekday} ${p.day} ${p.month}, ${p.hour}:${p.minute}`;
}

// a game date "2026-10-05" → "Mon 5 Oct", as gameTime writes the day (a day's table read "10-05")
export function gameDay(date) {
  return gameTime(`${date}T12:00:00Z`).split(",")[0];
}

// the game date (YYYY-MM-DD, New York) of an instant: the claim log's game_day
export function gameDate(iso) {
  const p = Object.fromEntries(format("en-CA", { year: "numeric", month: "2-digit", day: "2-digit" })
    .formatToParts(new Date(Date.parse(iso))).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day}`;
}

// "Open · day 3 · closes Mon 5 Oct, 22:00"; chip: the header's short form, "Open · closes 22:00" (the day of the
// change only when it is not today's: "Closed · opens Tue 07:00"), the game day left to the chip's title, so it fits
// a 390-px phone's header whole
export function clockText(c, { chip = false } = {}) {
  if (!c) return "clock unavailable";
  if (c.season_state === "closed") return "Season closed";
  const state = c.open ? "Open" : "Closed";
  const day = c.game_day && !chip ? ` · day ${c.game_day}` : "";
  const when = chip ? shortTime(c.next_change, c.now) : gameTime(c.next_change);
  const next = c.next_change ? ` · ${c.open ? "closes" : "opens"} ${when}` : "";
  return `${state}${day}${next}`;
}

// "22:00" when the instant falls on the game date of `now`, else "Tue 07:00" (New York time)
function shortTime(iso, now) {
  const t = gameTime(iso);
  const clock = t.slice(-5);
  return now && gameDate(iso) === gameDate(now) ? clock : `${t.split(" ")[0]} ${clock}`;
}

export function renderClock(el, c) {
  if (!el) return;
  el.textContent = clockText(c, { chip: true });
  el.classList.toggle("open", !!(c && c.open));
  el.classList.toggle("closed", !(c && c.open));
  if (c) el.title = `${c.game_day ? `Game day ${c.game_day}. ` : ""}Game time now: ${gameTime(c.now)}`;
}

// A score.updated message is a delta: the standings that changed (absolute figures, no rank), the players who
// left, and the side quests. Apply it to the leaderboard held since the snapshot and re-rank (R25 competition
// ranking: highest total first, equal totals share a rank 1, 2, 2, 4, ties listed by player id, as the server does).
export function applyScoreDelta(lb, msg) {
  const byId = new Map(((lb && lb.standings) || []).map((s) => [s.player_id, s]));
  for (const c of msg.changes || []) byId.set(c.player_id, { ...byId.get(c.player_id), ...c });
  for (const id of msg.removed || []) byId.delete(id);
  const rows = [...byId.values()].sort((a, b) => b.total - a.total
    || (a.player_id < b.player_id ? -1 : a.player_id > b.player_id ? 1 : 0));
  rows.forEach((s, i) => { s.rank = i && rows[i - 1].total === s.total ? rows[i - 1].rank : i + 1; });
  return { standings: rows, side_quests: msg.side_quests || (lb && lb.side_quests) || {} };
}

// player id → display name, from leaderboards seen and GET /players/{id}
const names = new Map();
const pending = new Map();

export function learnNames(standings) {
  for (const s of standings || []) if (s.display_name) names.set(s.player_id, s.display_name);
}

export function knownName(id) {
  return id ? names.get(id) : undefined;
}

export async function playerName(id) {
  if (!id) return "nobody";
  if (names.has(id)) return names.get(id);
  if (!pending.has(id)) {
    pending.set(id, api(`/players/${encodeURIComponent(id)}`, { auth: false })
      .then((p) => { names.set(id, p.display_name); return p.display_name; })
      .catch(() => "player " + id.slice(0, 6)));
  }
  return pending.get(id);
}

// offline: the service worker (/sw.js) keeps the page, its scripts, Leaflet and the board; handed what
// this page loaded before the worker controlled it. The page's body gets data-offline-ready once they are kept.
export function keepOffline() {
  if (!("serviceWorker" in navigator) || window.isSecureContext === false) return;
  navigator.serviceWorker.addEventListener("message", (ev) => {
    if (ev.data && typeof ev.data.kept === "number") document.body.dataset.offlineReady = "1";
  });
  navigator.serviceWorker.register("/sw.js", { scope: "/" })
    .then(() => navigator.serviceWorker.ready)
    .then((reg) => reg.active?.postMessage({
      keep: [location.pathname, ...performance.getEntriesByType("resource").map((e) => e.name)] }))
    .catch(() => {});   // no worker (a private window, say): the page works online as before
}
