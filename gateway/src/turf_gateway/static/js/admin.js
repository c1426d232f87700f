// The organize page (/admin): today's dashboard and CSV exports, players to verify, flagged claims with evidence,
// corrections (players, towns and claims picked by name, destructive ones confirmed first) and their log,
// announcements, and the clock control (manual clock mode). Routes missing on this server show a note instead of
// failing the page.

import {
  $, plural, act, API, api, ApiError, clearSession, clockText, errorText, formData, gameDate, gameTime, h, optional,
  playerName, renderClock, signOut, saveSession, say, session, useSessionKey,
} from "./api.js";
import { installSeasonForm, refreshSeasons } from "./seasons.js";

useSessionKey("turf.admin");
let clock = null;
let players = null;
let claimIndex = new Map();   // claim id → the claim log's row (names a flag's claim)
let playersRead = null;   // the first read of the players (showConsole)

$("#signin-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = ev.currentTarget;
  await act(form.querySelector("button"), $("#auth-msg"), async () => {
    const s = await api("/sessions", { method: "POST", body: formData(form), auth: false });
    if (s.role !== "organizer") throw new ApiError(403, "forbidden", "This account is not the organizer's.");
    saveSession({ token: s.token, player_id: s.player_id, role: s.role });
    form.reset();
    await showConsole();
  });
});

$("#signout").addEventListener("click", async () => {
  await signOut();
  $("#console").hidden = true;
  $("#auth").hidden = false;
});

async function showConsole() {
  $("#auth").hidden = true;
  $("#console").hidden = false;
  playersRead = refreshPlayers();   // the flags name their players and claims by the players' real names
  await Promise.allSettled([playersRead, refreshFlags(), refreshCorrections(), refreshClock(), loadTowns(),
    refreshMail()]);
  await refreshClaims();
}

// ---------- confirmation (every destructive action: disqualify, reverse a claim, set an owner) ----------
// Resolves true only when the organizer presses the dialog's action button; Escape or Cancel resolve false.
function confirmFirst(title, text, verb) {
  const d = $("#confirm");
  $("#confirm-title").textContent = title;
  $("#confirm-text").textContent = text;
  $("#confirm-ok").textContent = verb;
  d.returnValue = "";
  d.showModal();
  return new Promise((resolve) => d.addEventListener("close", () => resolve(d.returnValue === "ok"), { once: true }));
}

// ---------- pickers: a search box filtering a list, instead of typing ids ----------
const pickers = new Map();   // name → {select, search, items: [{value, label, search}]}

function setPicker(name, items) {
  for (const el of document.querySelectorAll(`[data-picker="${name}"]`)) {
    const p = { select: $(".pick-list", el), search: $(".pick-search", el), items };
    pickers.set(name, p);
    if (!p.search.dataset.wired) {
      p.search.dataset.wired = "1";
      p.search.addEventListener("input", () => renderPicker(pickers.get(name)));
    }
    renderPicker(p);
  }
}

function renderPicker(p) {
  const words = p.search.value.toLowerCase().split(/\s+/).filter(Boolean);
  const keep = p.select.value;
  const shown = p.items.filter((it) => words.every((w) => it.search.includes(w))).slice(0, 200);
  // a row shows its short text (a listbox cannot wrap a line: a long one was cut, "took Bayonn…"); the picked
  // one is written out whole under the list
  p.select.replaceChildren(...shown.map((it) => h("option", { value: it.value, title: it.label }, it.text || it.label)));
  if (shown.some((it) => it.value === keep)) p.select.value = keep;
  else if (shown.length === 1) p.select.value = shown[0].value;   // the search found it: picked
  showPicked(p);
}

// a picker is set again at each read of its items (setPicker): its "Picked:" line and listener are made once
function showPicked(p) {
  const label = p.select.closest("label");
  p.select.picker = p;   // the latest, for the change listener
  p.picked = p.picked || label.parentElement.querySelector(".picked");
  if (!p.picked) {
    p.picked = h("p", { class: "picked small", "aria-live": "polite" });
    label.after(p.picked);
  }
  if (!p.select.dataset.wired) {
    p.select.dataset.wired = "1";
    p.select.addEventListener("change", () => showPicked(p.select.picker));
  }
  const it = p.items.find((x) => x.value === p.select.value);
  p.picked.textContent = it ? `Picked: ${it.label}` : "";
  p.picked.hidden = !it;
}

function pickedLabel(name) {
  const p = pickers.get(name);
  const it = p && p.items.find((x) => x.value === p.select.value);
  return it ? it.label : "";
}

const item = (value, label, ...more) => ({ value, label, search: [label, ...more].join(" ").toLowerCase() });
// an item whose row shows a shorter text than its label (the label: the confirmation's and the "Picked:" line's)
const shortItem = (value, label, text, ...more) => ({ ...item(value, label, ...more), text });

function playerItems(list) {
  return list.map((p) => item(p.id, `${p.name} (@${p.discord || p.display_name}) · ${p.status}`, p.email || "", p.id));
}

let towns = [];
let shapes = [];   // the board's features: a flag's fixes are named by the town they fall in
let townsRead = null;
function loadTowns() {
  townsRead = townsRead || readTowns().catch((e) => {
    townsRead = null;
    throw e;
  });
  return townsRead;
}
async function readTowns() {
  const board = await api("/board", { auth: false });
  shapes = board.features;
  towns = board.features.map((f) => f.properties).sort((a, b) => a.name.localeCompare(b.name));
  setPicker("territory", towns.map((t) => item(t.id, `${t.name}, ${t.county} ${t.state}`, t.id)));
}
const townName = (id) => (towns.find((t) => t.id === id) || {}).name || id;

// ---------- players ----------
async function decide(verb, id, reason, button, note) {
  const who = players?.find((p) => p.id === id);
  const name = who ? `${who.name} (@${who.discord || who.display_name})` : `player ${id}`;
  if (verb === "disqualify" && !(await confirmFirst(`Disqualify ${name}?`, "Their territories become unclaimed, "
    + "they leave the standings and their sessions end (R28). The reason is public. This cannot be undone.",
  "Disqualify"))) return false;
  return act(button, $("#players-msg"), async () => {
    // the reason is public (a disqualification's is in the corrections log and the feed); the note is private
    const body = note ? { reason: reason || "", note } : { reason: reason || "" };
    await api(`/admin/players/${encodeURIComponent(id)}/${verb}`, { method: "POST", body });
    const done = { verify: "verified", reject: "rejected", disqualify: "disqualified" }[verb];
    await refreshPlayers();
    return `${who ? who.display_name || who.name : "Player " + id} ${done}.`;
  });
}

const REASONS = {
  not_in_board: "home address outside the board",
  address_not_found: "address not found",
  geocoder_unavailable: "address not checked (geocoder down)",
};

async function refreshPlayers() {
  const list = $("#player-list");
  const none = $("#players-none");
  let out;
  try {
    out = await optional("/admin/players");
  } catch (e) {
    say($("#players-msg"), "error", errorText(e));
    return;
  }
  list.replaceChildren();
  if (out === null) {
    players = null;
    none.textContent = "This server cannot list players yet (GET /admin/players); verify by id below.";
    none.hidden = false;
    $("#by-id").open = true;
    return;
  }
  players = out.players || [];
  setPicker("any-player", playerItems(players));
  setPicker("player", playerItems(players));
  // R28 (amended): set_owner names a verified player or nobody
  setPicker("owner", [item("", "nobody (unclaimed)", "unclaimed none"),
    ...playerItems(players.filter((p) => p.status === "verified"))]);
  renderDashboard();
  const all = $("#show-all").checked;
  const shown = players.filter((p) => all || p.status === "pending");
  none.textContent = all ? "No players yet." : "Nobody is waiting for verification.";
  none.hidden = shown.length > 0;
  for (const p of shown) {
    const reason = h("input", { placeholder: "public reason (optional)", "aria-label": "public reason",
      maxlength: 1000 });
    const note = h("input", { placeholder: "private note (optional)", "aria-label": "private note", maxlength: 2000 });
    const buttons = [];
    const mk = (verb, label, cls) => {
      const b = h("button", { type: "button", class: cls, dataset: { verb } }, label);
      b.addEventListener("click", () => decide(verb, p.id, reason.value, b, note.value));
      buttons.push(b);
    };
    if (p.status !== "verified") mk("verify", "Verify", "");
    if (p.status === "pending") mk("reject", "Reject", "secondary");
    if (p.status !== "disqualified") mk("disqualify", "Disqualify", "danger");
    const notes = [p.status_reason ? REASONS[p.status_reason] || p.status_reason : null,
      p.same_address_as && p.same_address_as.length ? `same address as ${p.same_address_as.length} other(s)` : null]
      .filter(Boolean);
    list.append(h("li", { dataset: { playerId: p.id, status: p.status } },
      h("div", {}, h("b", {}, p.name), " ", h("span", { class: "muted" }, "@" + (p.discord || p.display_name)),
        h("span", { class: "badge" }, p.status)),
      h("div", { class: "small muted" }, [p.email, p.home_address].filter(Boolean).join(" · ")),
      notes.length ? h("div", { class: "small" }, "⚑ " + notes.join("; ")) : null,
      h("div", { class: "small muted" }, "id " + p.id),
      reason, note, h("div", { class: "row" }, buttons)));
  }
}

$("#show-all").addEventListener("change", refreshPlayers);

$("#by-id-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const f = formData(ev.currentTarget);
  const verb = ev.submitter ? ev.submitter.value : "verify";
  if (!f.player_id) {
    say($("#players-msg"), "error", "Pick a player first: search by name, Discord or email.");
    return;
  }
  decide(verb, f.player_id, f.reason, ev.submitter, f.note);
});

// ---------- flags ----------
// R7.1: flags never refuse; the organizer reads the trail (a map-free summary: from, to, km, minutes, km/h) and
// clears the flag or acts on it (R28: reverse the claim, disqualify the player), which also clears it.
const FLAG_KINDS = {
  impossible_travel: "impossible travel",
  repeated_fix: "replayed fix",
  zero_accuracy: "zero accuracy",
  day_start_jump: "far from yesterday and home",
};

const num = (x, digits) => (typeof x === "number" ? x.toFixed(digits) : "?");
// even-odd ray casting over a GeoJSON polygon's rings ([lon, lat])
function inRings(rings, lon, lat) {
  let inside = false;
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i];
      const [xj, yj] = ring[j];
      if ((yi > lat) !== (yj > lat) && lon < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

// the town a fix falls in (the board's display shapes: good to a few metres), or null
function townAt(lat, lon) {
  for (const f of shapes) {
    const g = f.geometry || {};
    const polys = g.type === "Polygon" ? [g.coordinates] : g.type === "MultiPolygon" ? g.coordinates : [];
    if (polys.some((rings) => inRings(rings, lon, lat))) return f.properties.name;
  }
  return null;
}

// "Hoboken (40.7440, -74.0320 ±8 m)": the town first, the fix after it for the record
const place = (p) => {
  if (!p) return "?";
  const fix = `${num(p.lat, 4)}, ${num(p.lon, 4)} ±${num(p.accuracy_m, 0)} m`;
  const town = typeof p.lat === "number" && typeof p.lon === "number" ? townAt(p.lat, p.lon) : null;
  return town ? `${town} (${fix})` : fix;
};
const when = (p) => (p && p.received_at ? gameTime(p.received_at) : "");

function flagSummary(f) {
  const e = f.evidence || {};
  if (f.kind === "impossible_travel") {
    return `${place(e.from)} → ${place(e.to)}: ${num((e.distance_m || 0) / 1000, 2)} km in `
      + `${num((e.seconds || 0) / 60, 1)} min = ${num(e.speed_kmh, 0)} km/h (limit ${e.max_travel_kmh} km/h)`;
  }
  if (f.kind === "repeated_fix") {
    return `the fix ${place(e)} again, first sent ${when(e.first)}, after the trail went to ${place(e.away)} `
      + `(${num(e.away_km, 2)} km beyond both accuracies)`;
  }
  if (f.kind === "zero_accuracy") return "the phone reported an accuracy of exactly 0 m";
  if (f.kind === "day_start_jump") {
    return `the day's first fix ${place(e.to)}: ${e.last_km == null ? "no earlier fix" : num(e.last_km, 1) + " km from "
      + place(e.last) + " (" + num(e.hours_since_last, 1) + " h before)"}, `
      + `${e.home_km == null ? "no home point" : num(e.home_km, 1) + " km from home"} (over ${e.max_km} km)`;
  }
  return null;
}

function trailTable(legs) {
  if (!legs || !legs.length) return null;
  // the table scrolls inside its box on a phone, the page does not (it overflowed the flag's row)
  return h("div", { class: "trail-box", tabindex: 0, role: "region", "aria-label": "Trail, scrollable" },
    h("table", { class: "trail" },
    h("thead", {}, h("tr", {}, h("th", {}, "from"), h("th", {}, "to"), h("th", { class: "n" }, "km"),
      h("th", { class: "n" }, "min"), h("th", { class: "n" }, "km/h"))),
    h("tbody", {}, legs.map((l) => h("tr", {},
      h("td", {}, place(l.from), h("div", { class: "small muted" }, when(l.from))),
      h("td", {}, place(l.to), h("div", { class: "small muted" }, when(l.to))),
      h("td", { class: "n" }, num(l.km, 2)), h("td", { class: "n" }, num(l.minutes, 1)),
      h("td", { class: "n" }, num(l.kmh, 0)))))));
}

async function clearFlag(id, reason) {
  return api(`/admin/flags/${encodeURIComponent(id)}/clear`, { method: "POST", body: { reason: reason || "" } });
}

function flagActions(f) {
  const reason = h("input", { placeholder: "reason (a correction's is public)", "aria-label": "reason",
    maxlength: 1000 });
  const out = $("#flags-msg");
  const buttons = [];
  const mk = (label, cls, run, confirm) => {
    const b = h("button", { type: "button", class: cls }, label);
    b.addEventListener("click", async () => {
      if (confirm && !(await confirm())) return;
      await act(b, out, async () => {
        const text = await run(reason.value.trim());
        await refreshFlags();
        return text;
      });
    });
    buttons.push(b);
  };
  mk("Clear", "secondary", async (why) => {
    await clearFlag(f.id, why);
    return "Flag cleared.";
  });
  if (f.claim_id) {
    mk("Reverse claim", "danger", async (why) => {
      if (!why) throw new ApiError(422, "invalid_input", "Give a reason: a correction's reason is public.");
      await api("/admin/corrections", { method: "POST", body: { action: "reverse_claim", claim_id: f.claim_id, reason: why } });
      await clearFlag(f.id, `claim reversed: ${why}`);
      await Promise.all([refreshCorrections(), refreshClaims()]);
      return "Claim reversed; flag cleared.";
    }, async () => confirmFirst("Reverse this claim?", `The territory goes back to what it was before this claim `
      + `(${flagClaim(f)}, R28); the reason is public.`, "Reverse claim"));
  }
  mk("Disqualify player", "danger", async (why) => {
    await api(`/admin/players/${encodeURIComponent(f.player_id)}/disqualify`, { method: "POST", body: { reason: why } });
    await clearFlag(f.id, `player disqualified${why ? ": " + why : ""}`);
    await refreshPlayers();
    return "Player disqualified; flag cleared.";
  }, async () => confirmFirst(`Disqualify ${await playerName(f.player_id)}?`, "Their territories become "
    + "unclaimed, they leave the standings and their sessions end (R28). This cannot be undone.", "Disqualify"));
  return [reason, h("div", { class: "row" }, buttons)];
}

// a flagged claim as the organizer reads it ("Mon 5 Oct, 07:01 · Jumper took Newark"), its id only when the claim
// log does not know it
const flagClaim = (f) => (claimIndex.has(f.claim_id) ? claimLabel(claimIndex.get(f.claim_id)) : "a claim not in the log");

async function refreshFlags() {
  await loadTowns().catch(() => {});   // the towns name the fixes; without them the coordinates alone
  await playersRead?.catch(() => {});
  if (!claimIndex.size) await refreshClaims();   // the claims name the flags' claims
  const list = $("#flag-list");
  let out;
  try {
    out = await optional("/admin/flags");
  } catch (e) {
    say($("#flags-msg"), "error", errorText(e));
    return;
  }
  if (out === null) {
    list.replaceChildren(h("li", { class: "muted" }, "This server has no flag list."));
    return;
  }
  const flags = (out.flags || []).slice().reverse();
  const open = flags.filter((f) => f.state !== "cleared");
  openFlags = open;
  renderDashboard();
  const shown = $("#show-cleared").checked ? [...open, ...flags.filter((f) => f.state === "cleared")] : open;
  const rows = [];
  for (const f of shown) {
    const who = await playerName(f.player_id);
    const sum = flagSummary(f);
    const c = f.cleared;
    rows.push(h("li", { dataset: { flagId: f.id, state: f.state || "open" } },
      h("div", {}, h("b", {}, FLAG_KINDS[f.kind] || f.kind.replace(/_/g, " ")), ` · ${who}`,
        h("span", { class: "badge" }, f.at ? gameTime(f.at) : ""),
        // repeats between the same places are one flag with a count
        f.count > 1 ? h("span", { class: "badge flag-count" }, `×${f.count}, last ${gameTime(f.last_at)}`) : null,
        f.state === "cleared" ? h("span", { class: "badge" }, "cleared") : null),
      h("div", { class: "small muted" },
        f.claim_id ? `the claim: ${flagClaim(f)}` : "a check or a refused claim (nothing to reverse)"),
      sum ? h("div", { class: "small" }, sum) : null,
      trailTable((f.evidence || {}).trail),
      h("details", {}, h("summary", { class: "small" }, "evidence"),
        h("pre", { class: "evidence" }, JSON.stringify(f.evidence, null, 1))),
      c ? h("div", { class: "small" }, `Cleared ${c.at ? gameTime(c.at) : ""}`
        + `${c.by ? " by " + c.by : ""}${c.reason ? ": " + c.reason : ""}`) : flagActions(f)));
  }
  const none = flags.length ? "No open flags." : "No flagged claims.";
  list.replaceChildren(...(rows.length ? rows : [h("li", { class: "muted" }, none)]));
}

$("#show-cleared").addEventListener("change", refreshFlags);

// ---------- corrections ----------
function showCorrectionFields() {
  const action = $("#correction-action").value;
  for (const label of document.querySelectorAll("#correction-form [data-for]")) {
    label.hidden = !label.dataset.for.split(" ").includes(action);
  }
}
$("#correction-action").addEventListener("change", showCorrectionFields);
showCorrectionFields();

const CARD_TYPES = ["freeze", "blockade", "war", "double_trouble", "trade", "mulligan", "joker"];
$("#card-counts").replaceChildren(...CARD_TYPES.map((t) => h("tr", {},
  h("td", { class: "cardname" }, t.replace(/_/g, " ")),
  ...["add", "remove"].map((side) => h("td", { class: "n" }, h("input", { type: "number", min: 0, max: 9, step: 1,
    value: 0, name: `${side}:${t}`, "aria-label": `${side} ${t.replace(/_/g, " ")} cards` }))))));

// {add: ["joker", "joker"], remove: [...]} from the card table's counts
function cardLists(f) {
  const out = { add: [], remove: [] };
  for (const side of ["add", "remove"]) {
    for (const t of CARD_TYPES) for (let i = 0; i < Number(f[`${side}:${t}`] || 0); i++) out[side].push(t);
  }
  return out;
}

// the confirmation a destructive correction asks first (null: none needed)
function correctionConfirm(body) {
  if (body.action === "reverse_claim") {
    return [`Reverse ${pickedLabel("claim")}?`, "The territory goes back to its owner and fortification before "
      + "that claim (R28). The reason is public.", "Reverse claim"];
  }
  if (body.action === "set_owner") {
    const to = body.player_id ? pickedLabel("owner").split(" · ")[0] : "nobody (unclaimed)";
    return [`Give ${townName(body.territory_id)} to ${to}?`, "Its owner changes now and its fortification is reset "
      + "(R28). The reason is public.", "Set owner"];
  }
  return null;
}

$("#correction-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = ev.currentTarget;
  const submitter = ev.submitter;
  const f = formData(form);
  const body = { action: f.action, reason: f.reason };
  if (f.note) body.note = f.note;   // private: on the organizer's log only
  if (f.action === "reverse_claim") body.claim_id = f.claim_id;
  if (f.action === "set_owner") Object.assign(body, { territory_id: f.territory_id, player_id: f.owner_id || null });
  if (f.action === "adjust_hand") Object.assign(body, { player_id: f.player_id, ...cardLists(f) });
  if (f.action === "adjust_score") Object.assign(body, { player_id: f.player_id, points: Number(f.points || 0) });
  const missing = { reverse_claim: !body.claim_id && "a claim", set_owner: !body.territory_id && "a town",
    adjust_hand: !body.player_id && "a player", adjust_score: !body.player_id && "a player" }[f.action];
  if (missing) {
    say($("#corrections-msg"), "error", `Pick ${missing} first (search above the list).`);
    return;
  }
  const ask = correctionConfirm(body);
  if (ask && !(await confirmFirst(...ask))) return;
  await act(submitter, $("#corrections-msg"), async () => {
    const r = await api("/admin/corrections", { method: "POST", body });
    form.reset();
    for (const p of pickers.values()) renderPicker(p);
    showCorrectionFields();
    // a reversed claim's flag is closed by the correction (the server says so): it leaves the open flags
    await Promise.all([refreshCorrections(), refreshClaims().then(refreshFlags)]);
    return `Correction recorded (${r.action.replace(/_/g, " ")}).`;
  });
});

async function refreshCorrections() {
  const list = $("#correction-log");
  let out;
  let full = true;
  try {
    out = await optional("/admin/corrections");
    if (out === null) {
      full = false;
      out = await optional("/corrections", { auth: false });
    }
  } catch (e) {
    say($("#corrections-msg"), "error", errorText(e));
    return;
  }
  if (out === null) {
    list.replaceChildren(h("li", { class: "muted" }, "This server has no correction log yet."));
    return;
  }
  const items = out.corrections || [];
  // the towns' names first: at the page's start the log and the board are read at once
  if (items.some((c) => c.territory_id)) await loadTowns().catch(() => {});
  const rows = [];
  for (const c of items.slice().reverse()) {
    const who = c.player_id ? await playerName(c.player_id) : null;
    // names, not ids: the town as the board names it (its id only while the board is not read)
    const target = [c.territory_id && townName(c.territory_id), who && `player ${who}`].filter(Boolean).join(" · ");
    const sum = full ? await summary(c) : null;
    rows.push(h("li", { dataset: { correctionId: c.id } },
      h("div", {}, h("b", {}, (c.action || "").replace(/_/g, " ")), h("span", { class: "badge" }, gameTime(c.at))),
      c.reason ? h("div", {}, c.reason) : null,
      full && c.note ? h("div", { class: "small muted" }, "private note: " + c.note) : null,
      target ? h("div", { class: "small muted" }, target) : null,
      sum ? h("div", { class: "small" }, sum) : null,
      full && (c.before !== undefined || c.after !== undefined)
        ? h("details", {}, h("summary", { class: "small" }, "before and after"),
          h("pre", { class: "evidence" }, "before " + JSON.stringify(c.before, null, 1)
            + "\nafter  " + JSON.stringify(c.after, null, 1)))
        : null));
  }
  list.replaceChildren(...(rows.length ? rows : [h("li", { class: "muted" }, "No corrections so far.")]));
}

// one line for a log entry: what changed
async function summary(c) {
  const b = c.before || {};
  const a = c.after || {};
  const cards = (xs) => (xs || []).map((x) => x.type.replace(/_/g, " ")).join(", ") || "none";
  if (c.action === "adjust_hand") return `added ${cards(a.added)}; removed ${cards(b.removed)}`;
  if (c.action === "adjust_score") return `score adjustment ${JSON.stringify(b.adjustment)} → ${JSON.stringify(a.adjustment)}`;
  if ("owner_id" in a || "owner_id" in b) {
    const name = async (id) => (id ? playerName(id) : "nobody");
    return `owner ${await name(b.owner_id)} → ${await name(a.owner_id)}`
      + (a.progress !== undefined ? `, progress ${b.progress ?? 0} → ${a.progress}` : "");
  }
  return null;
}

// ---------- dashboard: players by status, claims today, open flags, the clock ----------
let openFlags = null;
let todays = null;   // today's claims (GET /admin/claims?day=), null when unknown

function renderDashboard() {
  if (players) {
    const by = {};
    for (const p of players) by[p.status] = (by[p.status] || 0) + 1;
    $("#dash-pending").textContent = String(by.pending || 0);
    $("#dash-players").textContent = ["verified", "pending", "rejected", "disqualified"]
      .filter((k) => by[k]).map((k) => `${by[k]} ${k}`).join(" · ") || "no players yet";
  }
  if (openFlags) {
    $("#dash-flags").textContent = String(openFlags.length);
    const kinds = {};
    for (const f of openFlags) kinds[f.kind] = (kinds[f.kind] || 0) + 1;
    $("#dash-flags-detail").textContent = Object.entries(kinds).map(([k, n]) => `${n} ${FLAG_KINDS[k] || k}`)
      .join(" · ") || "nothing to review";
  }
  if (todays) {
    const standing = todays.filter((c) => !c.undone_by);
    $("#dash-claims").textContent = String(standing.length);
    const steals = standing.filter((c) => c.kind === "steal").length;
    const who = new Set(standing.map((c) => c.player_id)).size;
    $("#dash-claims-detail").textContent = `${plural(steals, "steal")} · ${plural(who, "player")}`
      + (todays.length > standing.length ? ` · ${todays.length - standing.length} reversed` : "");
  }
  if (clock) {
    $("#dash-clock").textContent = clock.open ? "Open" : "Closed";
    $("#dash-clock-detail").textContent = clockText(clock).replace(/^(Open|Closed)( · )?/, "") || gameTime(clock.now);
  }
}

const KIND = { take: "took", steal: "stole", reinforce: "reinforced", war_reclaim: "reclaimed (War)" };
// the organizer knows players by name (the public display name is their Discord handle)
const realName = (id, fallback) => (players && players.find((p) => p.id === id) || {}).name || fallback || id;
// a picker's row: who did what where, then the day and time ("Quinn Desk took Jersey City · Mon 07:00")
const claimRow = (c) => `${realName(c.player_id, c.display_name)} ${KIND[c.kind] || c.kind} ${c.territory_name} · `
  + `${gameTime(c.at).replace(/ \d+ \w+,/, "")}`;
const claimLabel = (c) => `${gameTime(c.at)} · ${realName(c.player_id, c.display_name)} ${KIND[c.kind] || c.kind} `
  + `${c.territory_name}${c.undone_by ? ` (undone: ${c.undone_by})` : ""}`;

async function refreshClaims() {
  let all;
  try {
    all = await optional("/admin/claims");
  } catch (e) {
    say($("#dash-msg"), "error", errorText(e));
    return;
  }
  if (all === null) return;   // an older server: the claim picker stays empty
  const newest = all.claims.slice().reverse();
  claimIndex = new Map(all.claims.map((c) => [c.id, c]));
  setPicker("claim", newest.filter((c) => !c.undone_by).map((c) => shortItem(c.id, claimLabel(c), claimRow(c),
    c.game_day, c.id)));
  const today = clock ? gameDate(clock.now) : null;
  todays = today ? all.claims.filter((c) => c.game_day === today) : [];
  $("#claims-today-list").replaceChildren(...(todays.length
    ? todays.slice().reverse().map((c) => h("li", { dataset: { claimId: c.id } }, claimLabel(c)))
    : [h("li", { class: "muted" }, "No claims today yet.")]));
  renderDashboard();
}

// CSV exports: fetched with the organizer's token (a plain link could not send it), saved as a file
async function download(table) {
  const s = session();
  const r = await fetch(`${API}/admin/export/${table}.csv`, { headers: { Authorization: "Bearer " + (s && s.token) } });
  if (!r.ok) {
    const e = await r.json().catch(() => ({}));
    throw new ApiError(r.status, e.reason || "error", e.message || `The export failed (${r.status}).`);
  }
  const url = URL.createObjectURL(await r.blob());
  const a = h("a", { href: url, download: `turfwar-${table}.csv`, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
  return `turfwar-${table}.csv saved.`;
}

for (const b of document.querySelectorAll("[data-export]")) {
  b.addEventListener("click", () => act(b, $("#dash-msg"), () => download(b.dataset.export)));
}

// ---------- announcements (the rulebook: rule changes reach every player) ----------
$("#announce-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = ev.currentTarget;
  const f = formData(form);
  await act(ev.submitter, $("#announce-msg"), async () => {
    const body = { title: f.title, body: f.body, rule_change: Boolean(f.rule_change) };
    const a = await api("/admin/announcements", { method: "POST", body });
    form.reset();
    return `Announced at ${gameTime(a.at)}: “${a.title}”.`;
  });
});

// ---------- mail (R30) ----------
async function refreshMail() {
  const list = $("#mail-list");
  let out;
  try {
    out = await optional("/admin/mail");
  } catch (e) {
    say($("#mail-msg"), "error", errorText(e));
    return;
  }
  if (out === null) {
    list.replaceChildren(h("li", { class: "muted" }, "This server has no mail list."));
    return;
  }
  // R30: no relay set (TURF_SMTP_URL), so no player gets a confirmation or a reset link: said on the dashboard
  const warning = $("#mail-warning");
  warning.textContent = out.warning || "";
  warning.hidden = !out.warning;
  const sent = out.mail.filter((m) => m.status === "sent").length;
  const failed = out.mail.filter((m) => m.status === "failed").length;
  say($("#mail-msg"), failed ? "error" : "info",
      `${plural(sent, "message")} sent, ${failed} failed, ${out.mail.length - sent - failed} waiting.`);
  list.replaceChildren(...out.mail.map((m) => h("li", {},
    `${gameTime(m.at)} · ${m.status} · ${m.kind.replaceAll("_", " ")} to ${m.to}: “${m.subject}”`
      + (m.attempts > 1 ? ` (${m.attempts} tries)` : "") + (m.error ? ` — ${m.error}` : ""),
    ...m.links.map((link) => h("a", { href: link, class: "small", rel: "noreferrer" }, " open link")))));
}

$("#mail-refresh").addEventListener("click", refreshMail);
installSeasonForm(refreshClock);

// ---------- clock ----------
async function refreshClock() {
  try {
    clock = await api("/clock", { auth: false });
  } catch {
    clock = null;
  }
  renderClock($("#clock"), clock);
  renderDashboard();
  refreshSeasons(clock);
  if (!clock) return;
  $("#clock-now").textContent = `${gameTime(clock.now)} (${clock.now})`;
  // only a manual clock can be moved: the form shows for it alone
  $("#clock-form").hidden = clock.mode !== undefined && clock.mode !== "manual";
  $("#clock-state").textContent = `${clock.mode ? clock.mode + " clock · " : ""}`
    + `${clock.open ? "open" : "closed"} · season ${clock.season_state}`
    + (clock.game_day ? ` · game day ${clock.game_day}` : "")
    + (clock.next_change ? ` · next change ${gameTime(clock.next_change)}` : "");
  if (!$("#clock-target").value) $("#clock-target").value = clock.now;
}

// add hours to an ISO string keeping its offset
function plusHours(iso, hours) {
  const m = /([+-]\d{2}):?(\d{2})$|Z$/.exec(iso);
  const off = !m || m[0] === "Z" ? 0 : (m[1].startsWith("-") ? -1 : 1) * (Math.abs(+m[1]) * 60 + +m[2]);
  const t = new Date(Date.parse(iso) + hours * 3600e3 + off * 60e3);
  const pad = (n) => String(n).padStart(2, "0");
  const sign = off < 0 ? "-" : "+";
  const tz = !m || m[0] === "Z" ? "Z" : `${sign}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}T${pad(t.getUTCHours())}:`
    + `${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}${tz}`;
}

$("#clock-plus-hour").addEventListener("click", () => {
  const base = $("#clock-target").value || clock?.now;
  if (base && !Number.isNaN(Date.parse(base))) $("#clock-target").value = plusHours(base, 1);
});
$("#clock-next").addEventListener("click", () => {
  if (clock?.next_change) $("#clock-target").value = clock.next_change;
});

$("#clock-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const now = $("#clock-target").value.trim();
  await act(ev.submitter, $("#clock-msg"), async () => {
    const r = await api("/admin/clock", { method: "POST", body: { now } });
    $("#clock-target").value = "";
    await refreshClock();
    await refreshClaims();   // a new game day: the dashboard's claims today start again
    const events = (r.events || []).length ? ` Events: ${r.events.join(", ")}.` : "";
    return `Clock moved to ${gameTime(r.now)}.${events}`;
  });
});

// ---------- start ----------
async function start() {
  await refreshClock();
  setInterval(refreshClock, 30000);
  const s = session();
  if (s && s.role === "organizer") {
    try {
      await showConsole();
      await api("/admin/flags"); // the token may have expired: show the sign-in form then
    } catch (e) {
      if (e instanceof ApiError && (e.status === 401 || e.status === 403)) {
        clearSession();
        $("#console").hidden = true;
        $("#auth").hidden = false;
        say($("#auth-msg"), "info", e.message);
      }
    }
  } else {
    $("#auth").hidden = false;
  }
  document.body.dataset.ready = "1";
}

start();
