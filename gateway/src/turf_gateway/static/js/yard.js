// The yard card game (docs/rules/yard-cards.md) on a phone: list and open rooms, join and start, then each step of
// a turn through the gateway's /modes/yard-cards routes. The open room is read again every 2 s; a signed-in player
// sees their own hand and garage, everyone else (spectators too) only counts (Y27). Refusals show the ruling's
// sentence (api.js), never just a code.
import { api, h, session } from "/static/js/api.js";

const $ = (s) => document.querySelector(s);
const me = () => (session() || {}).player_id || null;
const players = new Map(); // player id → display name: each room's answer carries its players' names (names)
let catalogue = new Map(); // card id → {name, kind, cost, vp, text}
let current = new URLSearchParams(location.search).get("room");
let selected = null; // the hand card chosen to play
let shown = ""; // what the page shows now: the 2 s reads re-render only when something changed

const who = (pid) => (pid === me() ? "you" : players.get(pid) || "a player");
const name = (c) => (catalogue.get(c.id) || { name: c.id }).name;
const base = () => `/modes/yard-cards/${current}`;

function show(err) {
  $("#error").hidden = !err;
  $("#error").textContent = err ? err.message : "";
}

async function act(fn) {
  try {
    show(null);
    await fn();
  } catch (e) {
    show(e);
  }
  await refresh();
}

const move = (step, body) => act(() => api(`${base()}/${step}`, { method: "POST", body }));

// the names the room's answer carries (GET /modes/…'s names): no roster to read, however many players there are
function learnNames(g) {
  for (const [id, n] of Object.entries(g.names || {})) players.set(id, n);
}

function cardLabel(c) {
  const k = catalogue.get(c.id) || {};
  const bits = [k.kind, k.cost ? `$${k.cost}` : null, k.vp ? `${k.vp} VP` : null].filter(Boolean).join(" · ");
  return [name(c), h("span", { class: "meta" }, bits), h("span", { class: "meta" }, k.text || "")];
}

function cardList(sel, cards, onPick, picked) {
  $(sel).replaceChildren(...cards.map((c) => h("li", {},
    onPick ? h("button", { type: "button", class: "card" + (picked === c.card ? " selected" : ""),
      dataset: { card: c.card, id: c.id }, onclick: () => onPick(c) }, ...cardLabel(c))
      : h("span", { class: "card", dataset: { card: c.card, id: c.id } }, ...cardLabel(c)))));
}

function yardGrid(seat, t, mineTurn) {
  const canPlay = mineTurn && t.turn.step === "act" && selected && !t.turn.done.includes("play")
    && (seat.player === me() || seat.side === "away");
  return h("div", { class: "grid" }, ...seat.yard.map((p, i) => h("button", {
    type: "button", class: "pile" + (p.grass ? " grass" : "") + (canPlay ? " target" : ""),
    dataset: { owner: seat.player, pile: i }, disabled: !canPlay,
    "aria-label": `${who(seat.player)} pile ${i + 1}: ${p.grass ? "grass" : "dirt"}`,
    onclick: () => {
      const card = selected;
      selected = null;
      move("play", { card, pile: i, owner: seat.player === me() ? null : seat.player });
    } }, p.grass ? "GRASS" : "DIRT", ...p.cards.map((c) => h("div", {}, name(c))))));
}

function renderTable(g, t) {
  const mine = me();
  const seatOf = t.seats.find((x) => x.player === mine);
  const myTurn = !t.finished && t.turn.player === mine;
  const step = t.turn.step;
  const done = t.turn.done;
  $("#room-status").textContent = t.finished
    ? `Over: ${t.winners.map(who).join(" and ")} won`
    : `Round ${t.round} · ${who(t.turn.player)} ${t.turn.player === mine ? "play" : "plays"} (${step})`;
  $("#turn-actions").hidden = !seatOf || t.finished;
  $("#do-start").hidden = !(myTurn && step === "start");
  $("#go-home").hidden = $("#go-away").hidden = !(myTurn && step === "side");
  $("#do-work").hidden = !(myTurn && step === "act" && seatOf.side === "away" && !done.includes("work"));
  $("#do-end").hidden = !(myTurn && step === "act");
  $("#do-leave").hidden = !seatOf || seatOf.left;
  const canBuy = myTurn && step === "act" && seatOf.side === "away" && !done.includes("buy");
  const canSway = myTurn && step === "act" && seatOf.side === "home" && !done.includes("sway");
  const canPick = myTurn && step === "act" && seatOf.side === "home" && !done.includes("play");
  $("#hint").textContent = canPick ? (selected ? "Now tap a pile (yours, or an AWAY rival's)." : "Tap a hand card to play it.")
    : canBuy ? "Tap a store card to buy it." : "";
  cardList("#store", t.store, canBuy ? (c) => move("buy", { cards: [c.card] }) : null);
  cardList("#row", t.row, canSway ? (c) => move("sway", { neighbour: c.card }) : null);
  $("#hand-box").hidden = !seatOf || !seatOf.hand;
  if (seatOf && seatOf.hand) {
    cardList("#hand", seatOf.hand, canPick ? (c) => { selected = selected === c.card ? null : c.card; renderTable(g, t); } : null, selected);
    cardList("#garage", seatOf.garage || [], null);
  }
  $("#yards").replaceChildren(...t.seats.map((s) => h("div", { class: "seat" + (s.player === t.turn.player ? " turn" : "") },
    h("h4", {}, `${who(s.player)} · ${s.side.toUpperCase()} · $${s.money} · ${s.vp} VP${s.left ? " · left" : ""}`),
    h("p", { class: "muted small" }, `hand ${s.hand_count} · garage ${s.garage_count} · swayed ${s.sway.map(name).join(", ") || "none"}`),
    yardGrid(s, t, myTurn))));
}

async function refresh() {
  const rooms = (await api("/modes/yard-cards", { auth: false })).games;
  const g = current ? await api(`/modes/yard-cards/${current}`, { auth: !!me() }) : null;
  const now = JSON.stringify([rooms, g, selected, me()]);
  if (now === shown) return;
  shown = now;
  $("#room-list").replaceChildren(...rooms.map((g) => h("li", {}, h("button", {
    type: "button", onclick: () => { current = g.game_id; selected = null; refresh(); } },
  `Room ${g.game_id.slice(0, 6)} · ${g.status} · ${g.players} player${g.players === 1 ? "" : "s"}`))));
  $("#open-room").hidden = !me();
  $("#signed-out").hidden = !!me();
  if (!g) return;
  const y = g.yard_cards;
  catalogue = new Map(y.catalogue_cards.map((c) => [c.id, c]));
  learnNames(g);
  $("#room").hidden = false;
  $("#room-title").textContent = `Yard cards room ${g.game_id.slice(0, 6)}`;
  const inRoom = y.players.includes(me());
  $("#room-join").hidden = !(me() && g.status === "lobby" && !inRoom);
  $("#room-start").hidden = !(g.status === "lobby" && y.opener === me() && y.players.length >= 2);
  const invite = `${location.origin}/yard?room=${g.game_id}`;
  $("#room-invite").hidden = g.status !== "lobby";
  $("#room-invite a").href = invite;
  $("#room-invite a").textContent = invite;
  $("#room-seed").textContent = g.seed ? `Seed revealed: ${g.seed} (SHA-256 ${g.seed_commitment})`
    : `Seed SHA-256, published before the shuffle: ${g.seed_commitment}`;
  if (!y.table) {
    $("#room-status").textContent = `Waiting to start: ${y.players.map(who).join(", ")} (2 to 5 players)`;
    $("#turn-actions").hidden = true;
    return;
  }
  renderTable(g, y.table);
}

$("#open-room").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const seconds = Number(new FormData(ev.target).get("turn_seconds")) || 90;
  act(async () => { current = (await api("/modes/yard-cards", { method: "POST", body: { turn_seconds: seconds } })).game_id; });
});
$("#room-join").addEventListener("click", () => move("join"));
$("#room-start").addEventListener("click", () => move("start"));
$("#do-start").addEventListener("click", () => move("start-actions", {}));
$("#go-home").addEventListener("click", () => move("side", { side: "home" }));
$("#go-away").addEventListener("click", () => move("side", { side: "away" }));
$("#do-work").addEventListener("click", () => move("work"));
$("#do-end").addEventListener("click", () => { selected = null; move("end-actions", {}); });
$("#do-leave").addEventListener("click", () => move("leave"));

refresh().catch(show);
setInterval(() => refresh().catch(show), 2000);
