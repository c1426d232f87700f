// The play page (/): sign in or register, see the board, check and claim where you stand, play cards, trade.
/* global L */

import {
  $, act, api, ApiError, applyScoreDelta, clearSession, errorText, keepOffline, plural, formData, gameTime, h, learnNames, newKey, optional,
  signOut,
  playerName, renderClock, saveSession, say, session, showOrganizeLink,
} from "./api.js";
import { BoardMap, LiveSocket, largestCluster } from "./board.js";
import { Bell, OPENING_JITTER_MS } from "./bell.js";
import { Announcement } from "./announcements.js";
import { fillAccount, installAccount } from "./accountpanel.js";
import { CardForms, groupCards } from "./cardforms.js";
import { Countdowns } from "./countdowns.js";
import { GameClock } from "./gameclock.js";
import { MapNames } from "./mapnames.js";
import { MyTurf } from "./myturf.js";
import { colourFor, knowsPlayer, loadRoster, onRoster, paintMine } from "./palette.js";
import { Notifications, PushToggle } from "./notifications.js";
import { Motion } from "./safety.js";
import { renderHowTo } from "./howto.js";
import { showSeason } from "./journal.js";
import { showFootprint } from "./footprint.js";
import { TownList } from "./townlist.js";
import { WhereAmI } from "./whereami.js";
import { ageText, keepFix, keptFix } from "./lastfix.js";
import { BorderNearMe } from "./border.js";
import { Tabs } from "./tabs.js";
import { pageConfig } from "./pageconfig.js";
import { installJoin, offerJoin, showSeasonLine } from "./seasons.js";

const state = {
  me: null, // GET /me
  pos: null, // last GeolocationPosition
  fixError: null, // the last watchPosition error's code (1 denied, 2 unavailable, 3 timeout), null after a fix
  cluster: new Set(),
  standings: [],
  hand: null, // the ready card types in my hand (GET /me/hand), null until read
  // Claim is refused here until a where-am-I answer allows it: never offered while "Loading…" or "Checking…", nor
  // after a change to my town the check has not answered yet
  refused: true,
};

// the first view: on my position when the phone has found it before the board came in (the check where I stand is
// asked at the page's start, beside the board's load), else the whole board until the first fix
const board = new BoardMap($("#map"), { me: () => session()?.player_id || null, cluster: () => state.cluster,
  view: () => (state.pos ? [L.latLng(state.pos.coords.latitude, state.pos.coords.longitude).toBounds(1), { maxZoom: 13 }]
    : null) });
const clock = new GameClock(); // its rate comes from /pages/config.json at start
// around an opening the page asks only the check where I stand (at the opening) and my claim
const bell = new Bell(clock, () => opened());
const countdowns = new Countdowns($("#countdowns"), clock, () => refreshClock(), showMyTowns,
  (type) => !!state.hand?.has(type), (id, button) => playWar(id, button));
const names = new MapNames(board);
const myTurf = new MyTurf($("#my-turf"), showOnMap);
const towns = new TownList($("#towns"), board, () => session()?.player_id || null, showOnMap);
const motion = new Motion();
const announcement = new Announcement($("#announcement"));
// My turf, Cards, Every town, Notifications and How to play are tabs under the first screen
let chosen = sessionStorage.getItem("turf.tab");   // the tab the player picked (a reload keeps it), or null
const tabs = new Tabs($("#more-tabs"), { onShow: (id, { byPlayer }) => {
  if (byPlayer) sessionStorage.setItem("turf.tab", chosen = id);
  $("#notif-btn").setAttribute("aria-expanded", String(id === "tab-notes"));
} });
// a tab is offered once it has something to show (My turf and Cards signed in, Notifications once the server has
// them); the player's tab is shown again as soon as it is offered
function offerTab(id, on) {
  tabs.offer(id, on);
  if (on && id === chosen && tabs.selected !== id) tabs.select(id, { quiet: true });
}
if (chosen) tabs.select(chosen, { quiet: true });   // unless it is not offered yet (offerTab shows it then)
const authTabs = new Tabs($("#auth-tabs"));
const notifications = new Notifications({ button: $("#notif-btn"), count: $("#notif-count"),
  panel: $("#notifications"), list: $("#notif-list"), markRead: $("#notif-read"),
  onRead: (items) => announcement.read(items),
  open: () => toggleSheet(),
  onEnabled: (on) => offerTab("tab-notes", on), quiet: () => bell.quiet(), actions: (n) => noteActions(n),
  onNew: (items) => {
    // R27: verified while the page is open: my status, claims left and the sentence where I stand follow at once
    if (items.some((n) => n.kind === "verified") && state.me && state.me.status !== "verified") {
      refreshMe().then((ok) => ok && (where?.refresh(), refreshCards())).catch(() => {});
    }
  } });
const push = new PushToggle($("#push-btn"), $("#push-msg"));

// The bell shows my notifications as a sheet under the header, over the page: the page is not scrolled, so the map
// and where I stand stay where they were (scrolled down to the tab, the map went off the screen). Closing it (the
// bell again, Close, Escape) shows the tab that was shown before; a tap on the tab bar leaves the sheet for the tab.
let beforeSheet = null;
function toggleSheet(open = !document.body.classList.contains("notes-sheet")) {
  if (open) {
    beforeSheet = tabs.selected;
    tabs.select("tab-notes");
  } else if (beforeSheet && beforeSheet !== "tab-notes") {
    tabs.select(beforeSheet);
  }
  document.body.classList.toggle("notes-sheet", open);
  $("#notif-close").hidden = !open;
  $("#notif-btn").setAttribute("aria-expanded", String(open));
  (open ? $("#notif-list") : $("#notif-btn")).focus({ preventScroll: true });
}
function leaveSheet() {
  document.body.classList.remove("notes-sheet");
  $("#notif-close").hidden = true;
}
$("#notif-close").addEventListener("click", () => toggleSheet(false));
$("#more-tabs").addEventListener("click", leaveSheet);
document.addEventListener("keydown", (ev) => {
  if (ev.key === "Escape" && document.body.classList.contains("notes-sheet")) toggleSheet(false);
});
// the legend on the map itself (it was in the last tab): what mine, a rival's, a free town and my dot look like
function addLegend() {
  const box = h("div", { class: "legend map-legend", role: "note", "aria-label": "Map legend" },
    h("span", { class: "mine" }, "mine"), h("span", { class: "rival" }, "rivals"), h("span", { class: "free" }, "free"),
    h("span", { class: "here" }, "me"));
  const Control = L.Control.extend({ onAdd: () => { L.DomEvent.disableClickPropagation(box); return box; } });
  new Control({ position: "topright" }).addTo(board.map);
}
addLegend();
window.turf = { board, state, clock, bell, motion, notifications, names, colourFor }; // for the browser tests and the curious
const border = new BorderNearMe(board, $("#border"));
let posMarker = null;
let accCircle = null;
let watchId = null;

// ---------- clock ----------
// GET /clock, rendered and learned; a call while one is in flight shares its answer (the start's and the first
// check's are one request)
let clockAsked = null;
function refreshClock() {
  clockAsked ??= readClock().finally(() => { clockAsked = null; });
  return clockAsked;
}

async function readClock() {
  try {
    const c = await api("/clock", { auth: false });
    renderClock($("#clock"), c);
    showSeasonLine($("#season-line"), c);
    offerJoin(c, state.me);
    clock.set(c);
    bell.learn(c);
    countdowns.showClock(c);
    return c;
  } catch {
    renderClock($("#clock"), null);
    countdowns.showClock(clock.last);
    return null;
  }
}

// ---------- the map from the lists (My turf, every town) ----------
// fits the map to the town and opens its popup; the map stops following me, or my next fix would pan it away
function showOnMap(id) {
  where?.follow(false);
  board.select(id);
  $("#map").scrollIntoView({ block: "nearest" });
  const p = board.props.get(id);
  if (p) $("#map-status").textContent = `${p.name} shown on the map.`;
}

// My turf's list from the countdowns' GET /me/territories answer (one read for both panels)
async function showMyTowns(out) {
  const list = out.territories || [];
  myTurf.showTowns(list, await largestCluster(list.map((t) => t.id)));
}

// ---------- sign in / register ----------
// the skip link's target is the search box: its tab shown and the box focused, so typing starts there
$("#skip-towns").addEventListener("click", (ev) => {
  ev.preventDefault();
  tabs.select("tab-towns");
  $("#town-search").focus();
});

$("#signin-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = ev.currentTarget;
  await act(form.querySelector("button"), $("#auth-msg"), async () => {
    const body = formData(form);
    const s = await api("/sessions", { method: "POST", body, auth: false });
    saveSession({ token: s.token, player_id: s.player_id, role: s.role });
    form.reset();
    say($("#auth-msg"), "ok", "");
    await signedIn();
  });
});

$("#register-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = ev.currentTarget;
  await act(form.querySelector("button"), $("#auth-msg"), async () => {
    const body = formData(form);
    const r = await api("/players", { method: "POST", body, auth: false });
    // sign straight in with the same credentials
    const s = await api("/sessions", { method: "POST", body: { email: body.email, password: body.password },
      auth: false });
    saveSession({ token: s.token, player_id: s.player_id, role: s.role });
    form.reset();
    await signedIn();
    say($("#claim-msg"), "info", r.status === "verified"
      ? "Welcome! Your home address is on the board: you can play now."
      : "Welcome! You are registered; the organizer verifies new players before they can claim.");
    return null;
  });
});

$("#signout").addEventListener("click", async () => {
  await signOut();
  state.me = null;
  state.cluster = new Set();
  board.restyle();
  towns.changed(); // "Owner: you" no longer
  where?.clear();
  state.refused = true;
  syncClaim();
  border.clear();
  showSignedOut();
});

function showSignedOut() {
  authTabs.select("tab-signin", { quiet: true });
  for (const id of ["tab-turf", "tab-cards", "tab-notes"]) offerTab(id, false);
  $("#auth").hidden = false;
  $("#auth-lead").hidden = false;
  for (const id of ["#me", "#my-turf", "#claim", "#cards", "#trades", "#countdowns", "#my-season"]) $(id).hidden = true;
  notifications.stop();
  $("#push-btn").hidden = true;
}

const STATUS_NOTE = {
  pending: "Waiting for the organizer to verify your registration; you can claim once you are verified.",
  rejected: "The organizer rejected this registration.",
  disqualified: "You have been disqualified.",
};
const REASON_NOTE = {
  not_in_board: "Your home address is outside the board.",
  address_not_found: "Your home address could not be found.",
  geocoder_unavailable: "Your address could not be checked automatically.",
};

const rosterForced = new Set(); // my player ids whose roster read was forced once
// the roster has learnt me (a read asked by the map, the legend or the line above): the legend takes my colour
onRoster((ids) => {
  const me = session()?.player_id;
  if (me && ids.includes(me)) paintMine(document.documentElement, me);
});

async function refreshMe() {
  try {
    state.me = await api("/me");
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      clearSession();
      where?.clear();   // the check asked at the start with this session stops asking
      showSignedOut();
      say($("#auth-msg"), "info", e.message);
      return false;
    }
    throw e;
  }
  const m = state.me;
  learnNames([{ player_id: m.id, display_name: m.display_name }]);
  // just verified (since this page read the roster): my colour is read at once, not after the roster's 5-s gap,
  // so my first town is drawn in my own colour from the start
  if (m.status === "verified" && !knowsPlayer(m.id) && !rosterForced.has(m.id)) {
    rosterForced.add(m.id);
    loadRoster({ force: true });
  }
  $("#me-name").textContent = m.display_name || m.name;
  $("#me-status").textContent = m.status;
  const note = [STATUS_NOTE[m.status], REASON_NOTE[m.status_reason]].filter(Boolean).join(" ");
  $("#me-note").textContent = note;
  $("#me-note").hidden = !note;
  $("#claims-left").textContent = String(m.claims_left_today ?? "—");
  fillAccount(m);
  offerJoin(clock.last, m);
  return true;
}

// R31: joining the next season (or the running one) with one action
installJoin(async () => { await refreshMe(); });

// R30: my account (profile, password, my data, withdrawal)
installAccount(async () => { await refreshMe(); }, () => {
  state.me = null;
  showSignedOut();
  say($("#auth-msg"), "ok", "You have withdrawn; your personal data is erased. Thank you for playing.");
});

// "My season": my public record's daily totals, read again at most every 5 s as my towns change
let seasonTimer = null;
function refreshSeason(me) {
  if (seasonTimer) return;
  seasonTimer = setTimeout(() => {
    seasonTimer = null;
    if (session()?.player_id === me) showMySeason(me);
  }, 5000);
}

// my season's daily totals, my footprint (every town I held, coloured by what happened there) and the link to my
// public profile with its medals and recap
function showMySeason(me) {
  showSeason($("#my-season"), me, "", "My season")
    .then(() => showFootprint($("#my-footprint"), me))
    .catch(() => {});
  $("#my-profile").href = `/profile?player=${encodeURIComponent(me)}`;
}

// my towns from the board this page holds (at once), then My season and My turf's list from the server: after the
// bell when it rings, unless `now` (the page's load: what it shows first)
async function refreshMine({ now = false } = {}) {
  const me = session()?.player_id;
  if (!me || !board.loaded) return;
  const mine = board.owned(me).map((p) => p.id);
  state.cluster = await largestCluster(mine);
  $("#my-count").textContent = mine.length ? `${mine.length}` : "none yet";
  const names = [...state.cluster].map((id) => board.name(id)).sort();
  $("#my-cluster").textContent = mine.length ? `${state.cluster.size} (${names.join(", ")})` : "—";
  board.restyle(mine);
  paintMine(document.documentElement, me);   // the legend's swatch in my towns' colour
  await (now ? myReads(me) : bell.later("my-reads", () => myReads(me)));
}

async function myReads(me) {
  if (session()?.player_id !== me) return;
  if ($("#my-season").hidden) showMySeason(me);
  else refreshSeason(me);
  await countdowns.refresh();
}

// atLoad: the page's start, where the check where I stand was already asked with this session (start): its answer,
// perhaps shown by now, stands
async function signedIn({ atLoad = false } = {}) {
  if (!(await refreshMe())) return;
  $("#auth").hidden = true;
  offerTab("tab-turf", true);
  offerTab("tab-cards", true);
  if (!chosen) tabs.select("tab-turf", { quiet: true });
  $("#me").hidden = false;
  $("#where").hidden = false;
  if (!$("#where").dataset.territoryId) $("#where").textContent = "Checking where you stand…";
  if (!atLoad) {
    state.refused = true;   // signed in (perhaps as someone else): Claim waits for the check below
    syncClaim();
  }
  $("#my-turf").hidden = false;
  $("#claim").hidden = false;
  $("#countdowns").hidden = false;
  countdowns.available = true;
  startLocation();
  if (!atLoad) where?.refresh();   // signed in again (perhaps as another player, or newly verified): asked afresh
  towns.changed();
  notifications.start();
  push.start();
  await Promise.all([refreshMine({ now: true }), refreshCards(), refreshTrades(), refreshStandings()]);
}

// ---------- location ----------
const INSECURE = "This page was opened over plain HTTP, and phones share their location only with HTTPS pages: "
  + `open https://${location.host}${location.pathname} instead, or ask the organizer to turn on HTTPS.`;

function startLocation() {
  if (watchId !== null) return;
  // Browsers share a location only with secure (HTTPS) pages: on plain HTTP, "allow it" would send the player
  // looking for a setting that does not exist
  if (window.isSecureContext === false) {
    $("#position").textContent = INSECURE;
    $("#position").dataset.reason = "insecure_page";
    return;
  }
  if (!("geolocation" in navigator)) {
    $("#position").textContent = "This browser cannot share its location, so it cannot claim.";
    return;
  }
  watchId = navigator.geolocation.watchPosition(onPosition, onFixError,
    { enableHighAccuracy: true, maximumAge: 5000, timeout: 30000 });
}

// only a refusal is about permission; a timeout or no signal is about where the phone is (and the last known
// position stays shown, with its age)
function onFixError(err) {
  state.fixError = err.code;
  if (err.code === 1) {
    $("#position").textContent = "Location access is blocked: allow it for this site to check and claim.";
    return;
  }
  const kept = !state.pos && keptFix();
  $("#position").textContent = kept ? `No location signal now. ${keptText(kept)}`
    : "No location signal yet; try again outside or with GPS on.";
}

function keptText(k) {
  return `Last known position ${ageText(Date.now() - k.at)}: ${k.lat.toFixed(5)}, ${k.lon.toFixed(5)}.`;
}

// reloaded before the first fix (perhaps without signal): the last known position, greyed, with its age
let keptMarker = null;
function showKeptFix() {
  const k = keptFix();
  if (!k || state.pos) return;
  keptMarker = L.circleMarker([k.lat, k.lon], { radius: 8, color: "#fff", weight: 3, fillColor: "#8a939b",
    fillOpacity: 1, interactive: false }).addTo(board.map);
  board.map.setView([k.lat, k.lon], 13);
  // the location is asked at the start, beside the board: a fix error that came in before the map was ready has
  // said its sentence already (no signal now, with this position; or blocked), which stays
  if (!state.fixError) $("#position").textContent = keptText(k);
  $("#map").dataset.located = "kept";
}

function onPosition(pos) {
  const first = !state.pos;
  state.pos = pos;
  state.fixError = null;
  keepFix(pos);
  keptMarker?.remove();
  keptMarker = null;
  const { latitude: lat, longitude: lon, accuracy } = pos.coords;
  const ll = [lat, lon];
  if (!posMarker) {
    // my dot in a pane of its own above the towns: the town I stand in, brought to front to show its
    // outline, no longer covers it
    const pane = board.map.createPane("me");
    pane.style.zIndex = 450;
    const renderer = L.svg({ pane: "me" });
    accCircle = L.circle(ll, { radius: accuracy, color: "#1a73e8", weight: 1, fillOpacity: 0.12,
      interactive: false, pane: "me", renderer }).addTo(board.map);
    posMarker = L.circleMarker(ll, { radius: 8, color: "#fff", weight: 3, fillColor: "#1a73e8", fillOpacity: 1,
      pane: "me", renderer }).addTo(board.map).bindTooltip("You are here");
  } else {
    posMarker.setLatLng(ll);
    accCircle.setLatLng(ll).setRadius(accuracy);
  }
  $("#position").textContent = `You are at ${lat.toFixed(5)}, ${lon.toFixed(5)} (± ${Math.round(accuracy)} m).`;
  $("#map").dataset.located = "1";
  if (first) board.map.setView(ll, 13);
  motion.update(pos);
  renderSafety();
  if (session()) {
    whereAmI().moved(pos.coords);
    // the line's distance follows every fix (once the board names the town across it)
    if (where.here && board.loaded) border.show(where.pos, where.here);
  }
}

// the page's "where am I" (whereami.js): the check's answer as a sentence, the re-centre button on the map
let where = null;
function whereAmI() {
  if (where) return where;
  const recentre = h("button", { type: "button", id: "recentre", class: "recentre secondary", hidden: true },
    "Re-centre on me");
  const Control = L.Control.extend({ onAdd: () => { L.DomEvent.disableClickPropagation(recentre); return recentre; } });
  new Control({ position: "bottomright" }).addTo(board.map);
  where = new WhereAmI({ board, el: $("#where"), recentre,
    check: async () => api("/claims/check", { method: "POST", body: await fixBody() }),
    describe: whereText, onAnswer: (r) => {
      state.refused = !r?.allowed;   // null: the town changed, its check not answered yet
      syncClaim();
      if (r && board.loaded) border.show(where.pos, r.territory?.id || null);
    } });
  return where;
}

async function ownerText(ownerId) {
  if (!ownerId) return "nobody";
  return ownerId === session()?.player_id ? "you" : playerName(ownerId);
}

async function whereText(r) {
  if (!r.territory) return r.message || "You are not inside any territory of the board.";
  const here = `You are in ${r.territory.name} (owner: ${await ownerText(r.territory.owner_id)}).`;
  if (r.allowed) return `${here} You can claim it now.`;
  const mine = !!r.territory.owner_id && r.territory.owner_id === session()?.player_id;
  // my own town is no refusal: it says what it is and when I may reinforce it
  return mine ? `${here} ${whyNot(r, true)}` : `${here} You cannot claim it: ${whyNot(r, false)}`;
}

// a check's refusal in words for me (R8): a new player is waiting, not suspected; no claims left says what a Double
// Trouble in hand would do (R17); a town locked by a claim that no longer stands (a correction, a card) says so (R10)
function whyNot(r, mine) {
  const more = state.hand?.has("double_trouble")
    ? " Playing your Double Trouble card would give you another claim today."
    : " A new claim comes with the next game day.";
  switch (r.reason) {
    case "not_eligible":
      return state.me?.status === "pending" ? "your account is waiting for the organizer's verification; "
        + "you can claim once it is verified." : r.message;
    case "no_claims_left":
      return mine ? `You have used today's claims, so you cannot reinforce it now.${more}`
        : `You have no claims left today.${more}`;
    case "locked_today":
      if (mine) return "It is yours, but another player claimed it earlier today: nobody can claim it again before "
        + "the next game day.";
      if (!r.territory.owner_id) return "another player claimed it earlier today (that claim no longer stands), so "
        + "it stays locked until the next game day.";
      return r.message;
    default:
      return r.message;
  }
}

// The safety rule: the warning shows while the fixes say the player moves faster than walking or cycling (safety.js)
function renderSafety() {
  const fast = motion.fast();
  $("#safety").hidden = !fast;
  $("#safety-speed").textContent = fast ? `You are moving at about ${Math.round(motion.kmh)} km/h.` : "";
  if (!fast) $("#passenger").hidden = true;
}

// The fix time on the game clock: the fix is as old as the device says, counted back from the game's own "now"
// (GET /clock). In real mode this is the device time corrected for its skew; with a manual or accelerated clock
// (rehearsals, tests) it is what the server expects. a running clock read in the last minutes is counted
// on (gameclock.js), so a check or a claim at the opening is one request, not two
async function fixBody() {
  if (!state.pos) {
    const why = state.fixError === 1 ? "Location access is blocked: allow it for this site to check and claim."
      : state.fixError ? "No location signal: the phone could not find where you are. Try again outside or with GPS on."
        : "Your location is not known yet: wait a moment for the phone to find it.";
    throw new ApiError(0, "no_fix", why);
  }
  const c = clock.fresh() ? clock.last : await refreshClock();
  const age = Math.max(0, Date.now() - state.pos.timestamp);
  const now = c ? clock.now() : Date.now();
  const { latitude, longitude, accuracy } = state.pos.coords;
  return { lat: latitude, lon: longitude, accuracy_m: Math.round(accuracy * 10) / 10,
    fix_time: new Date(now - age).toISOString() };
}

$("#check").addEventListener("click", (ev) => act(ev.currentTarget, $("#claim-msg"), async () => {
  say($("#claim-msg"), "info", "Checking where you are…");
  const r = await api("/claims/check", { method: "POST", body: await fixBody() });
  const out = $("#claim-msg");
  if (!r.territory) {
    say(out, "error", r.message || "You are not inside any territory of the board.");
    return null;
  }
  // the answer is the sentence where I stand (the reason shown once, not here and there)
  await whereAmI().answered(r);
  say(out, "info", "");
  out.dataset.reason = r.reason || "";
  return null;
}).then(syncClaim));

// Claim is enabled only when the last answer allows it here and the phone is online; the sentence
// above says why not
function syncClaim() {
  const b = $("#claim-btn");
  b.disabled = state.refused || !navigator.onLine;
  b.setAttribute("aria-describedby", "where");
}

// A claim while moving fast waits for "I'm a passenger" (the safety rule); the server never refuses one for speed.
$("#claim-btn").addEventListener("click", (ev) => {
  renderSafety();
  if (motion.fast()) {
    $("#passenger").hidden = false;
    say($("#claim-msg"), "info", "Confirm that you are a passenger to claim.");
    $("#passenger-yes").focus();
    return;
  }
  claim(ev.currentTarget);
});

$("#passenger-yes").addEventListener("click", (ev) => {
  $("#passenger").hidden = true;
  claim(ev.currentTarget);
});

$("#passenger-no").addEventListener("click", () => {
  $("#passenger").hidden = true;
  say($("#claim-msg"), "info", "Claim cancelled. Pull over first, then claim.");
});

// the claim's answer says what the page needs at once (my claims left today, the town's new holder and
// progress); no GET /me or /me/hand after it. My turf's list and the sentence where I stand are read again, after
// the bell when it rings (bell.js)
let claiming = null;   // the claim on its way, if any (a feed message about it may come before its answer)
const ownClaims = new Set();   // the ids of the claims this page made: their territory.changed needs no GET /me
// the button is off until the answer, then Claim follows the sentence where I stand (syncClaim): never re-enabled
// in between, as act() would, over a sentence that has just said "Checking…"
const claim = (button) => { button.disabled = true; return act(null, $("#claim-msg"), async () => {
  say($("#claim-msg"), "info", "Claiming…");
  const body = await fixBody();
  claiming = api("/claims", { method: "POST", body, headers: { "Idempotency-Key": newKey() } });
  let r;
  try {
    r = await claiming;
  } catch (e) {
    // refused (taken a moment ago, closed, …): the refusal is the sentence where I stand, Claim off until the
    // check answers again (at once, or after the bell; the next fix asks it too)
    if (e instanceof ApiError && e.status >= 400 && e.status < 500 && e.status !== 401) {
      where?.refused(e.message, () => bell.later("where", () => where?.refresh()));
    }
    throw e;
  } finally {
    claiming = null;
  }
  if (r.claim_id) ownClaims.add(r.claim_id);
  board.apply(r);
  // the town flashes in my colour, uncovered: no popup of its story over the moment (it is a tap away)
  board.show(r.territory_id, { mark: false });
  const before = state.cluster.size;   // my base points (my largest cluster) before this claim
  if (typeof r.claims_left_today === "number") {
    $("#claims-left").textContent = String(r.claims_left_today);
    if (r.claims_left_today === 0) state.refused = true;   // the server would refuse another today (R6)
  } else {
    await refreshMe();   // a gateway from before 2026-12-06 answers no claims_left_today
  }
  // the town I stand in is mine now: said at once, and whether I may claim again when the check answers
  const recheck = () => bell.later("where", () => where?.refresh());
  if (!where?.changed(r.territory_id, "you", recheck)) recheck();
  await refreshMine();
  bell.later("forms", refreshForms);   // a Mulligan may undo this claim (R19)
  $("#claim-msg").dataset.reason = "";
  showClaimed(r, before, state.cluster.size);
  return null;
}).then(() => {
  if (button !== $("#claim-btn")) button.disabled = false;
  syncClaim();
}); };

// The moment of a claim as a banner in the claim panel: what I won (the town), what it is worth (my base points are
// my largest cluster's towns, rules "Scoring"), and my claims left today (the claim's answer, R6).
// r: the POST /claims answer; before, after: my largest cluster's size before and after it
function showClaimed(r, before, after) {
  const name = board.name(r.territory_id);
  const title = { take: `You took ${name}!`, steal: `You stole ${name}!`, war_reclaim: `You reclaimed ${name}!` }[r.kind]
    || (r.fortified ? `${name} is now fortified.` : `${name} reinforced: progress ${r.progress}/3.`);
  const gained = after - before;
  const worth = r.kind === "reinforce" ? `Your score: ${plural(after, "base point")}.`
    : gained > 0 ? `+${plural(gained, "point")}: your largest cluster is ${plural(after, "town")}.`
      : `An outpost for now: no points until it joins your largest cluster (${plural(after, "point")}).`;
  const n = r.claims_left_today ?? state.me?.claims_left_today;
  const left = typeof n === "number" ? `${plural(n, "claim")} left today.` : "";
  const out = $("#claim-msg");
  say(out, "ok claimed", title);
  out.replaceChildren(h("strong", { class: "claimed-title" }, title), h("span", { class: "claimed-points" }, worth),
    left && h("span", { class: "claimed-left" }, left));
  out.dataset.territoryId = r.territory_id;
}

// ---------- cards ----------
// each card's form offers only what the rules allow now (cardforms.js)
const forms = new CardForms({ board, me: () => session()?.player_id || null, submit: playCard });

function cardLabel(type) {
  return type.replace(/_/g, " ");
}

async function playCard(card, form, button) {
  const f = formData(form);
  const body = { type: card.type };
  for (const k of ["territory_id", "rival_id", "claim_id", "mode"]) if (f[k]) body[k] = f[k];
  await act(button, $("#cards-msg"), async () => {
    if (card.type === "trade") {
      const t = await api("/trades", { method: "POST", body: { offer_territory_id: f.offer_territory_id,
        want_territory_id: f.want_territory_id } });
      await refreshTrades();
      return `Trade proposed: ${board.name(f.offer_territory_id)} for ${board.name(f.want_territory_id)} (${t.state}).`;
    }
    const r = await api("/cards/play", { method: "POST", body });
    if (r.effect && r.effect.territory_id) {
      await board.load();
      await refreshMine();
      where?.refresh();   // a town changed hands: perhaps the one I stand in
      if (["joker", "war"].includes(r.type)) showWon(r.effect.territory_id);
    }
    await Promise.all([refreshCards(), refreshMe()]);   // after the board: the forms list the towns as they are now
    return describeEffect(r);
  });
}

// a town a card has just given me (a Joker's, perhaps at the other end of the board; War's): the map framed on it,
// outlined, and brought into view from the Cards tab; the map stops following me, or my next fix would pan it away
function showWon(id) {
  where?.follow(false);
  board.show(id, { frame: true });
  $("#map").scrollIntoView({ block: "nearest" });
  const p = board.props.get(id);
  if (p) $("#map-status").textContent = `${p.name} is yours: shown on the map.`;
}

// War from an alert (the steal banner, a steal's notification): one tap, as the card's own form plays it
function playWar(territoryId, button) {
  return act(button, $("#claim-msg"), async () => {
    const r = await api("/cards/play", { method: "POST", body: { type: "war", territory_id: territoryId } });
    await board.load();
    await refreshMine();
    where?.refresh();   // perhaps the town I stand in
    showWon(territoryId);
    await Promise.all([refreshCards(), refreshMe()]);
    return describeEffect(r);
  });
}

// the actions a notification carries while they can still be taken
function noteActions(n) {
  const d = n.data || {};
  const me = session()?.player_id;
  const button = (label, cls, fn) => {
    const b = h("button", { type: "button", class: cls, dataset: { action: label } }, label);
    b.addEventListener("click", () => fn(b));
    return b;
  };
  if (n.kind === "territory_stolen" && d.territory_id && state.hand?.has("war") && clock.until(d.war_until) > 0
    && board.props.get(d.territory_id)?.owner_id !== me) {
    return [button("Play War", "war-now", (b) => playWar(d.territory_id, b))];
  }
  if (n.kind === "trade_proposed" && openOffers.has(d.trade_id)) {
    return [button("Accept", "", (b) => tradeAnswer(b, d.trade_id, "accept", "Trade accepted: the territories swapped.",
      $("#claim-msg")))];
  }
  return [];
}

function describeEffect(r) {
  const e = r.effect || {};
  const name = cardLabel(r.type);
  if (r.state === "reserved") return `${name} scheduled for ${e.active_on || "the next game day"}.`;
  switch (r.type) {
    case "war": return `War! ${board.name(e.territory_id)} is yours again; the thief may reclaim it until ${gameTime(e.reclaim_until)}.`;
    case "double_trouble": return `Double Trouble: ${plural(e.claims_left_today, "claim")} left today.`;
    case "mulligan":
      return `Mulligan: ${board.name(e.territory_id)} handed back; ${plural(e.claims_left_today, "claim")} left today.`;
    case "joker": return `Joker: you won ${board.name(e.territory_id)}!`;
    default: return `${name} played.`;
  }
}

// the hand (GET /me/hand): read when the page loads, once per game day (its deal) and when a card event touches it
//, never per claim
let lastHand;   // the last answer (null: this server has no cards), undefined until read
async function refreshCards() {
  if (!session()) return;
  let hand;
  try {
    hand = await optional("/me/hand");
  } catch (e) {
    say($("#cards-msg"), "error", errorText(e));
    return;
  }
  lastHand = hand;
  await showHand(hand);
}

// the cards' forms read again (what each may name: my claims today for a Mulligan, my stolen towns for War …) on
// the hand as last read: after a claim or a town's change, the hand is the same
async function refreshForms() {
  if (lastHand === undefined) return refreshCards();
  if (lastHand !== null) await showHand(lastHand);
}

async function showHand(hand) {
  $("#cards").hidden = false;
  const none = $("#cards-none");
  if (hand === null) {
    none.textContent = "Cards are not available on this server yet.";
    none.hidden = false;
    $("#hand").replaceChildren();
    $("#scheduled-box").hidden = true;
    return;
  }
  const cards = hand.cards || [];
  const readyCards = cards.filter((c) => c.state !== "reserved");
  const hadWar = !!state.hand?.has("war");
  const hadDouble = !!state.hand?.has("double_trouble");
  state.hand = new Set(readyCards.map((c) => c.type));
  // no claims left where I stand: the sentence says what a Double Trouble in hand would do (whyNot)
  if (hadDouble !== state.hand.has("double_trouble") && where?.el.dataset.reason === "no_claims_left") {
    where.refresh();
  }
  if (hadWar !== state.hand.has("war")) {
    countdowns.refresh();   // the War advice follows the hand, and a steal's notification its Play War
    if (notifications.enabled) notifications.render();
  }
  await forms.refresh(readyCards.map((c) => c.type));
  const ready = groupCards(readyCards).map((g) => forms.item(g));
  const scheduled = [];
  for (const c of cards) {
    if (c.state === "reserved") {
      const cancel = h("button", { type: "button", class: "secondary" }, "Cancel");
      cancel.addEventListener("click", () => act(cancel, $("#cards-msg"), async () => {
        await api(`/cards/${encodeURIComponent(c.id)}/schedule`, { method: "DELETE" });
        await refreshCards();
        return `${cardLabel(c.type)} cancelled: the card is back in your hand.`;
      }));
      scheduled.push(h("li", { dataset: { cardId: c.id, cardType: c.type } },
        h("div", {}, h("span", { class: "cardname" }, cardLabel(c.type)), h("span", { class: "badge" }, "scheduled")),
        cancel));
    }
  }
  // replaced in one go, so overlapping refreshes never mix their lists
  $("#hand").replaceChildren(...ready);
  $("#scheduled").replaceChildren(...scheduled);
  none.textContent = "No cards in your hand. New cards arrive at each game day's start.";
  none.hidden = ready.length > 0;
  $("#scheduled-box").hidden = !scheduled.length;
}

// ---------- trades ----------
let openOffers = new Set();   // the ids of the trades offered to me still open (GET /trades)

function tradeAnswer(b, id, path, done, out) {
  return act(b, out, async () => {
    await api(`/trades/${encodeURIComponent(id)}/${path}`, { method: "POST" });
    await refreshTrades();
    if (path === "accept") {
      await board.load();
      await Promise.all([refreshMine(), refreshCards()]);
    }
    return done;
  });
}
async function refreshTrades() {
  if (!session()) return;
  let out;
  try {
    out = await optional("/trades");
  } catch (e) {
    say($("#trades-msg"), "error", errorText(e));
    return;
  }
  $("#trades").hidden = false;
  const me = session()?.player_id;
  $("#trades-none").hidden = out !== null;
  $("#trades-none").textContent = "Trades are not available on this server yet.";
  if (out === null) {
    $("#trades-in").replaceChildren();
    $("#trades-out").replaceChildren();
    return;
  }
  const button = (label, cls, path, done, id) => {
    const b = h("button", { type: "button", class: cls }, label);
    b.addEventListener("click", () => tradeAnswer(b, id, path, done, $("#trades-msg")));
    return b;
  };
  openOffers = new Set((out.trades || []).filter((t) => t.partner_id === me).map((t) => t.id));
  if (notifications.enabled) notifications.render();   // a notification's Accept follows the offer
  const tin = [];
  const tout = [];
  for (const t of out.trades || []) {
    if (t.partner_id === me) {
      const who = await playerName(t.proposer_id);
      tin.push(h("li", { dataset: { tradeId: t.id } },
        h("div", {}, `${who} offers ${board.name(t.offer_territory_id)} for your ${board.name(t.want_territory_id)}`,
          h("span", { class: "badge" }, t.state)),
        h("div", { class: "row" }, button("Accept", "", "accept", "Trade accepted: the territories swapped.", t.id),
          button("Decline", "secondary", "decline", "Trade declined.", t.id))));
    } else {
      const who = await playerName(t.partner_id);
      tout.push(h("li", { dataset: { tradeId: t.id } },
        h("div", {}, `Your ${board.name(t.offer_territory_id)} for ${who}'s ${board.name(t.want_territory_id)}`,
          h("span", { class: "badge" }, t.state)),
        h("div", { class: "row" }, button("Withdraw", "secondary", "withdraw", "Proposal withdrawn.", t.id))));
    }
  }
  if (!tin.length) tin.push(h("li", { class: "muted small" }, "Nothing offered to you."));
  if (!tout.length) tout.push(h("li", { class: "muted small" }, "No open proposal."));
  $("#trades-in").replaceChildren(...tin);
  $("#trades-out").replaceChildren(...tout);
}

async function refreshStandings() {
  try {
    const lb = await api("/leaderboard", { auth: false });
    state.standings = lb.standings || [];
    learnNames(state.standings);
    myTurf.showScore(state.standings, session()?.player_id);
  } catch {
    /* names fall back to GET /players/{id} */
  }
}

// ---------- live updates ----------
// what a feed message about me makes due (each read only when a message touches it, the hand once per
// game day and when a card event touches it; around an opening, after the bell)
function live(msg) {
  const me = session()?.player_id;
  if (msg.type === "announcement.published") announcement.show(msg);
  if (me && (msg.type === "announcement.published" || msg.type === "correction.applied"
    || [msg.owner_id, msg.previous_owner_id, msg.player_id, msg.proposer_id, msg.partner_id].includes(me))) {
    notifications.poke(); // something for me: read my notifications now rather than at the next poll
  }
  if (msg.type === "snapshot") {
    state.standings = msg.leaderboard?.standings || state.standings;
    learnNames(state.standings);
    myTurf.showScore(state.standings, me);
  } else if (msg.type === "score.updated") {
    state.standings = applyScoreDelta({ standings: state.standings }, msg).standings;
    learnNames(state.standings);
    myTurf.showScore(state.standings, me);
  } else if (msg.type === "territory.changed") {
    board.apply(msg);
    towns.changed();
    townChanged(msg.territory_id, msg.claim_id, msg.owner_id);
    if (me && msg.owner_id === me) {
      // a town came to me: by a claim of this page (which read what follows from its answer), or from elsewhere
      meFor.add(msg.claim_id || "");
      schedule();
    } else if (me && msg.previous_owner_id === me) {
      schedule("mine", "forms");   // stolen: War may win it back (R14)
    }
  } else if (me && msg.type === "correction.applied" && msg.player_id === me) {
    schedule("mine", "me", "cards", "trades");
  } else if (me && msg.type && msg.type.startsWith("card.") && msg.player_id === me) {
    // the day's deal (card.drawn at the opening) and plays from elsewhere; Double Trouble and Mulligan change
    // my claims left
    schedule("cards", ...(["double_trouble", "mulligan"].includes(msg.card_type) ? ["me"] : []));
  } else if (me && msg.type && msg.type.startsWith("trade.") && [msg.proposer_id, msg.partner_id].includes(me)) {
    schedule("trades");
  }
}

// a change to the town I stand in from elsewhere (someone's claim, a card, a correction): the sentence and Claim
// follow at once (whereami.js); my own claim's change was said by its answer. At an opening many pages see changes
// in the same seconds: their checks are spread over a few seconds (the bell)
async function townChanged(id, claimId, ownerId) {
  if (!where?.here || id !== where.here) return;
  if (claiming) await claiming.catch(() => {});
  if (claimId && ownClaims.has(claimId)) return;
  const spread = bell.quiet() ? Math.random() * OPENING_JITTER_MS : 0;
  where.changed(id, await ownerText(ownerId), () => setTimeout(() => where.refresh(), spread));
}

// coalesce refreshes after a burst of events
let liveTimer = null;
const due = new Set();
const meFor = new Set();   // claim ids of the territory.changed that gave me a town since the last refresh
const READS = { me: refreshMe, cards: refreshCards, forms: refreshForms, trades: refreshTrades };
function schedule(...parts) {
  for (const p of parts) due.add(p);
  clearTimeout(liveTimer);
  liveTimer = setTimeout(async () => {
    if (claiming) await claiming.catch(() => {});   // its answer tells whether the town is from this page
    const parts = [...due];
    due.clear();
    // a town from elsewhere (a claim on another device, War, a Joker …): my allowance, towns and forms may change
    if ([...meFor].some((id) => !ownClaims.has(id))) parts.push("me", "mine", "forms");
    meFor.clear();
    if (!session()) return;
    await Promise.allSettled([...new Set(parts)].map((p) => (p === "mine" ? refreshMine()
      : bell.later(p, READS[p]))));
  }, 300);
}

// the game has just opened (bell.js): where I stand is checked now (what was closed may be claimed); my claims
// left and the day's hand are read after the bell
function opened() {
  if (!session()) return;
  where?.refresh();
  $("#claims-left").textContent = "—";
  bell.later("me", refreshMe);
  bell.later("cards", refreshCards);
  bell.later("clock", refreshClock);
}

// ---------- offline ----------
function showOnline() {
  const online = navigator.onLine;
  $("#offline").hidden = online;
  document.body.dataset.online = String(online);
  if (online) {
    where?.refresh();
    if (session() && $("#me").hidden) signedIn().catch(() => {});   // opened offline: signed in now
  } else if (where) {
    where.offline();
  } else if (session()) {
    Object.assign($("#where"), { textContent: WhereAmI.offlineText(), hidden: false }).dataset.offline = "true";
  }
  syncClaim();
}
window.addEventListener("online", showOnline);
window.addEventListener("offline", showOnline);

// ---------- start ----------
async function start() {
  // the clock first: a check's fix time is counted on the game clock, so the first check waits for this answer
  // (it shares this request rather than asking again: refreshClock)
  refreshClock();
  // the first screen's shape at once: a signed-in player sees the claim panel loading, never the
  // signed-out form for the seconds the board takes on a slow network
  if (session()) {
    $("#auth").hidden = true;
    $("#claim").hidden = false;
    $("#where").hidden = false;
    $("#where").textContent = "Loading where you stand…";
    syncClaim();   // off until the check answers
    // where I stand is asked now, beside the board's load and not after it: the town's name comes from the check's
    // answer (the server's), which needs no board; its outline is drawn once the towns are
    startLocation();
  } else {
    showSignedOut();
  }
  // the head script's mark (index.html) has served its turn: from here the panels' hidden attributes decide
  document.documentElement.classList.remove("session");
  if (!navigator.onLine) showOnline();
  if (window.isSecureContext === false) say($("#https-warning"), "error", INSECURE);   // before anyone signs in
  const cfg = await pageConfig();   // {} when it cannot be read: the real clock's rate
  if (typeof cfg.clock_rate === "number") clock.rate = cfg.clock_rate;
  showOrganizeLink();
  renderHowTo($("#howto"));
  setInterval(() => {
    if (bell.quiet()) return;   // around an opening: read again after it
    refreshClock();
    if (session() && !$("#countdowns").hidden) countdowns.refresh();
  }, 30000);
  announcement.start();
  try {
    await board.init();
    if (where?.here) border.show(where.pos, where.here);   // answered before the board came in
    if (session()) showKeptFix();
    names.schedule();
    towns.render();
  } catch (e) {
    say($("#claim-msg"), "error", errorText(e));
  }
  new LiveSocket({ onMessage: live, onReconnect: () => board.load().then(refreshMine).then(() => towns.changed()) })
    .start();
  if (session()) {
    try {
      await signedIn({ atLoad: true });
    } catch (e) {
      if (navigator.onLine) say($("#auth-msg"), "error", errorText(e));
    }
  } else {
    showSignedOut();
  }
  // the head script's mark (index.html) has served its turn: from here the panels' hidden attributes decide
  document.documentElement.classList.remove("session");
  if (!navigator.onLine) showOnline();   // opened offline: said so once the page is drawn from the cache
  document.body.dataset.ready = "1";
  keepOffline();
}

start();
