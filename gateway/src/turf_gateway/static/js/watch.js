// The watch page (/watch): live map, leaderboard and feed from WS /ws/scores; reconnects by itself.

import {
  $, api, applyScoreDelta, gameTime, h, keepOffline, knownName, learnNames, playerName, renderClock, showOrganizeLink,
} from "./api.js";
import { BoardMap, LiveSocket, colourFor, describe } from "./board.js";
import { MapNames } from "./mapnames.js";
import { onRoster } from "./palette.js";
import { renderPodium } from "./podium.js";
import { activity, isTv, labelOrder, restView, TvDirector } from "./tv.js";
import { Announcement } from "./announcements.js";
import { showSeason } from "./journal.js";
import { Replay } from "./replay.js";
import { showSeasonLine } from "./seasons.js";

// the TV's first view is its view at rest (set before the towns are drawn, not after); a wide desk screen
// opens on the same active area, not on the whole state's 448 towns
const wide = () => window.matchMedia("(min-width: 1280px)").matches;
const board = new BoardMap($("#map"), { view: () => (tv || wide() ? restView(board) : null) });
const announcement = new Announcement($("#announcement"));
const replay = new Replay(board, $("#replay"));
let tv = null;   // the TV mode's director (/watch?tv=1)
let names = null; // the map's town names
const QUESTS = {
  lord_of_the_seas: ["Lord of the Seas", (v) => `${v} ${v === 1 ? "territory" : "territories"} on the water`],
  hungry_hungry_hippo: ["Hungry Hungry Hippo", (v) => `${(v / 1e6).toFixed(1)} km² of land`],
  social_butterfly: ["Social Butterfly", (v) => `${Math.round(v).toLocaleString("en-US")} residents`],
};
const FEED_MAX = 60;
const early = []; // messages that arrive before the board is loaded
let gotStandings;
const firstStandings = new Promise((resolve) => { gotStandings = resolve; });
let standings = null; // the leaderboard: the snapshot with every score.updated delta applied

const TOP = 3; // a list's first names shown; the rest counted ("and 89 more")

// "Ann, Bo, Cy and 89 more"; "Ann and Bo"; "Ann"
function andMore(items, top = TOP) {
  if (items.length <= top + 1) return items.length > 1 ? `${items.slice(0, -1).join(", ")} and ${items.at(-1)}` : items.join("");
  return `${items.slice(0, top).join(", ")} and ${items.length - top} more`;
}

// the stories of one kind in one minute read as one line (the opening: "9 towns taken: Ann took Hoboken, Bo took
// Bayonne, Cy took Weehawken and 6 more", not nine lines of "took" between nine of "earned Early bird"): the key of
// a story's kind, or null for a story told on its own line (a steal, a war, a card, a correction …)
function groupKey(msg, story) {
  if (msg.type === "territory.changed" && story.kind === "claim" && msg.owner_id && !msg.previous_owner_id
      && (!msg.cause || msg.cause === "claim")) return "took";
  if (msg.type === "medal.earned") return `medal:${msg.name}:${msg.tier}`;
  return null;
}

function groupText(key, items) {
  if (key === "took") {
    return `${items.length} towns taken: ${andMore(items.map((x) => x.text))}`;
  }
  const { name, tier } = items[0].msg;
  return `🏅 ${items.length} players earned ${name || "a medal"}${tier ? ` (${tier})` : ""}: ${andMore(items.map((x) => x.who))}`;
}

const groups = new Map(); // `${key} ${minute}` → {li, items: [{msg, text, who}]}

// a name read whole on a phone: it wraps after its "." and "_" first (a Discord name has no space), and anywhere
// else only when one part is still wider than the column (turf.css: td.name)
function breakable(name) {
  return name.split(/(?<=[._])/).flatMap((part, i) => (i ? [h("wbr"), part] : [part]));
}

function renderLeaderboard(lb) {
  learnNames(lb.standings);
  const body = $("#leaderboard tbody");
  const rows = (lb.standings || []).map((s) => h("tr", { dataset: { playerId: s.player_id }, class: "link",
    onclick: () => showSeason($("#season"), s.player_id, s.display_name || "A player").catch(() => {}) },
    h("td", { class: "n" }, s.rank),
    h("td", { class: "name" }, h("span", { class: "swatch", style: `background:${colourFor(s.player_id)}` }),
      breakable(s.display_name || "player")),
    h("td", { class: "n base" }, s.base), h("td", { class: "n outposts" }, s.outposts),
    h("td", { class: "n" }, s.bonuses),
    h("td", { class: "n total" }, s.total)));
  body.replaceChildren(...(rows.length ? rows : [h("tr", {}, h("td", { colspan: 6, class: "muted" },
    "No territory claimed yet."))]));
  const quests = $("#quests");
  quests.replaceChildren();
  for (const [key, [title, unit]] of Object.entries(QUESTS)) {
    const q = (lb.side_quests || {})[key];
    // tied leaders: the first few and how many more, not ninety names in one block
    const leaders = q && q.leaders && q.leaders.length ? andMore(q.leaders.map((id) => knownName(id) || "a player"))
      : "nobody yet";
    const value = q && q.value ? ` (${unit(q.value)})` : "";
    quests.append(h("dt", {}, title), h("dd", {}, leaders + value));
  }
  $("#leaderboard").dataset.updates = String(+($("#leaderboard").dataset.updates || 0) + 1);
  tv?.standings(lb);
}

// a player the roster has just learnt was drawn in a fallback colour: their swatch takes their own, as their towns do
onRoster((ids) => {
  for (const id of ids) {
    const swatch = $(`#leaderboard tr[data-player-id="${CSS.escape(id)}"] .swatch`);
    if (swatch) swatch.style.background = colourFor(id);
  }
});

const shown = new Set(); // event ids already in the feed: a reconnect's snapshot repeats recent stories

// Stories go on the feed in the order they came, even when one waits for a player's name to be looked up.
let feedChain = Promise.resolve();
function addFeed(msg) {
  feedChain = feedChain.then(() => addFeedNow(msg)).catch(() => {});
}

async function addFeedNow(msg) {
  if (msg.event_id) {
    if (shown.has(msg.event_id)) return;
    shown.add(msg.event_id);
  }
  const story = describe(msg, (id) => knownName(id) || "…", (id) => board.name(id));
  if (!story) return;
  // names not known yet: resolve, then rewrite the line
  const ids = [msg.owner_id, msg.previous_owner_id, msg.player_id, msg.proposer_id, msg.partner_id].filter(Boolean);
  const unknown = ids.filter((id) => !knownName(id));
  if (unknown.length) await Promise.all(unknown.map(playerName));
  const text = describe(msg, (id) => knownName(id) || "a player", (id) => board.name(id)).text;
  const when = msg.at ? gameTime(msg.at) : "";
  const key = groupKey(msg, story);
  const group = key && when ? groups.get(`${key} ${when}`) : null;
  if (group && group.li.isConnected) {
    // one more of the minute's takes or medals: its line says how many and names the first, and comes to the top
    group.items.push({ msg, text, who: knownName(msg.player_id || msg.owner_id) || "a player" });
    group.li.lastChild.textContent = groupText(key, group.items);
    group.li.classList.remove("link");
    group.li.removeAttribute("title");
    group.li.dataset.count = String(group.items.length);
    group.li.onclick = null;
    $("#feed").prepend(group.li);
    return;
  }
  // the day and the New York time, whatever offset the message's time is written in (a correction's is UTC): a
  // story on Monday and one on Tuesday at the same hour do not read alike
  const li = h("li", { class: story.kind, dataset: { type: msg.type } },
    msg.at ? h("span", { class: "when", dataset: { at: msg.at } }, when) : null, h("span", { class: "what" }, text));
  if (key && when) {
    for (const [k, g] of groups) if (!g.li.isConnected) groups.delete(k);   // lines gone off the feed's end
    groups.set(`${key} ${when}`, { li, items: [{ msg, text, who: knownName(msg.player_id || msg.owner_id) || "a player" }] });
  }
  if (msg.territory_id && board.props.has(msg.territory_id)) {
    li.classList.add("link");
    li.title = "Show on the map";
    li.onclick = () => {
      board.select(msg.territory_id);
      $("#map").scrollIntoView({ behavior: "smooth" });
    };
  }
  $("#feed-empty")?.remove();
  const feed = $("#feed");
  feed.prepend(li);
  while (feed.children.length > FEED_MAX) feed.lastElementChild.remove();
}

function onMessage(msg) {
  if (!board.loaded) {
    // the standings need no map, so they show at once rather than after the board's download (they were
    // the page's largest paint, seconds late on a slow phone); the snapshot is handled in full with the board
    if (msg.type === "snapshot" && msg.leaderboard && !early.length) renderLeaderboard(msg.leaderboard);
    if (msg.type === "snapshot") gotStandings();
    early.push(msg);
    return;
  }
  handle(msg);
}

function handle(msg) {
  switch (msg.type) {
    case "snapshot":
      standings = msg.leaderboard;
      if (standings) renderLeaderboard(standings);
      for (const story of msg.recent || []) addFeed(story); // oldest first: each goes on top
      break;
    case "score.updated":
      standings = applyScoreDelta(standings, msg);
      renderLeaderboard(standings);
      break;
    case "territory.changed":
      if (!replay.active) { // the map shows the past while replaying; "Live" re-reads the board
        board.apply(msg);
        board.flash(msg.territory_id);
        activity.set(msg.territory_id, performance.now());
        names?.schedule();
      }
      addFeed(msg);
      tv?.story(msg);
      break;
    case "season.final_results":
      addFeed(msg);
      refreshClock();
      renderPodium($("#podium")).catch(() => {});
      break;
    case "resync":
      break;
    case "announcement.published":
      announcement.show(msg);
      addFeed(msg);
      break;
    default:
      addFeed(msg);
  }
}

async function refreshClock() {
  try {
    const c = await api("/clock", { auth: false });
    renderClock($("#clock"), c);
    showSeasonLine($("#season-line"), c);
    tv?.setClock(c);
    if (c.season_state === "closed" && $("#podium").hidden) renderPodium($("#podium")).catch(() => {});
  } catch {
    renderClock($("#clock"), null);
  }
}

function onState(s) {
  const el = $("#live");
  el.className = "chip " + s;
  el.textContent = s === "live" ? "● live" : "reconnecting…";
  document.body.dataset.live = s;
}

async function start() {
  showOrganizeLink();
  if (isTv()) tv = new TvDirector(board);
  // town names, large across a room; the story town and the claimed towns first
  names = new MapNames(board, { scale: tv ? 1.6 : 1,
    first: () => labelOrder(board, document.body.dataset.tvFocus || null) });
  refreshClock();
  setInterval(refreshClock, 30000);
  announcement.start();
  const sock = new LiveSocket({ onMessage, onState, onReconnect: () => board.load() });
  window.turf = { board, socket: sock, replay, names, colourFor }; // for the browser tests (they drop the socket) and the curious
  sock.start();
  // the standings first, then the board (228 kB): on a slow network the board's download held back the
  // snapshot's standings, the page's largest paint; a second at most, should the socket be slow
  await Promise.race([firstStandings, new Promise((resolve) => setTimeout(resolve, 1000))]);
  await board.init();   // the TV at rest already (options.view)
  for (const m of early.splice(0)) handle(m);
  document.body.dataset.ready = "1";
  keepOffline();
}

start();
