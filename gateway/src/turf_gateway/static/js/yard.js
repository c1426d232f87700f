// The yard card game (docs/rules/yard-cards.md) on a phone: list and open rooms, join and start, then each step of
// a turn through the gateway's /modes/yard-cards routes. The open room is read again every 2 s; a signed-in player
// sees their own hand and garage, everyone else (spectators too) only counts (Y27). Refusals show the ruling's
// sentence (api.js), never just a code. The turn's time left is counted down on the game clock (Y25); a move that
// takes choices (a card's targets, Y18; a bribe's cards, Y19; a buy of several cards, Y11) asks for them first.
import { api, gameTime, h, session } from "/static/js/api.js";
import { duration, GameClock } from "/static/js/gameclock.js";
import { pageConfig } from "/static/js/pageconfig.js";

const $ = (s) => document.querySelector(s);
const me = () => (session() || {}).player_id || null;
const players = new Map(); // player id → display name: each room's answer carries its players' names (names)
let catalogue = new Map(); // card id → {name, kind, cost, vp, text}
let current = new URLSearchParams(location.search).get("room");
let selected = null; // the hand card chosen to play
let basket = []; // the store cards picked for one buy of several (Y11: a Potting Shed's extra buy)
let shown = ""; // what the page shows now: the 2 s reads re-render only when something changed
let last = null; // [room, table] last drawn: a tap on a hand or store card draws it again
const clock = new GameClock(); // the game clock (GET /clock), its rate from /pages/config.json
let deadline = null; // the turn's deadline (Y25) and whose turn it is
let turnOf = null;
let status = null; // the open room's status: lobby, running or finished

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

// Y25: the turn's time left on the game clock, every second; past it, the service plays the turn with no choices
function showDeadline() {
  const el = $("#turn-clock");
  el.hidden = !deadline;
  if (!deadline) return;
  const whose = turnOf === me() ? "Your turn" : `${who(turnOf)}'s turn`;
  const left = clock.until(deadline);
  el.textContent = left !== null && left <= 0 ? `${whose} is over: it is being played with no choices.`
    : `${whose} ends ${left === null ? "" : `in ${duration(left)}, `}at ${gameTime(deadline)}; `
      + "then it is played with no choices (3 such turns in a row and that player is out).";
}

async function readClock() {
  try {
    clock.set(await api("/clock", { auth: false }));
  } catch {
    // the deadline is still shown, without the time left
  }
  showDeadline();
}

// A choice the server would otherwise make by default: ticked options, then OK (→ the values, [] for the default)
// or Cancel (→ null). ok(n): may n options be ticked?
let answer = null;
function ask(title, help, options, max, ok = (n) => n <= max, okText = "OK") {
  if (answer) answer(null);
  $("#choice-title").textContent = title;
  $("#choice-help").textContent = help;
  $("#choice-ok").textContent = okText;
  const boxes = options.map((o) => h("input", { type: "checkbox", value: String(o.value) }));
  $("#choice-options").replaceChildren(...options.map((o, i) => h("label", {}, boxes[i], o.label)));
  const ticked = () => boxes.filter((b) => b.checked);
  const sync = () => {
    const n = ticked().length;
    for (const b of boxes) b.disabled = !b.checked && n >= max;
    $("#choice-ok").disabled = !ok(n);
  };
  for (const b of boxes) b.addEventListener("change", sync);
  sync();
  $("#choice").hidden = false;
  $("#choice").scrollIntoView({ block: "nearest" });
  return new Promise((resolve) => {
    answer = (v) => {
      answer = null;
      $("#choice").hidden = true;
      resolve(v);
    };
    $("#choice-ok").onclick = () => answer && answer(ticked().map((b) => b.value));
    $("#choice-cancel").onclick = () => answer && answer(null);
  });
}

// Y18: what an action lets its player choose: piles to turn, store cards to trash, the pile a card moves to
function chooser(cardId, when) {
  for (const a of (catalogue.get(cardId) || {}).actions || []) {
    const e = a.effect;
    if (a.when !== when) continue;
    if (e.do === "turn" && e.where === "choose") return { on: "pile", count: e.count || 1, to: e.to };
    if (e.do === "trash" && e.what === "store") return { on: "store", count: e.count || 1 };
    if (e.do === "move") return { on: "move", count: 1 };
  }
  return null;
}

const plural = (n, one, many = one + "s") => `${n} ${n === 1 ? one : many}`;

// the targets of one card's action, asked: [] for the default, null when cancelled
function askTargets(c, spec, t, seat, pile) {
  let options;
  let fallback;
  if (spec.on === "store") {
    options = t.store.map((x, i) => ({ value: i, label: `${name(x)} (store ${i + 1})` }));
    fallback = "the leftmost store cards";
  } else if (spec.on === "pile") {
    options = seat.yard.map((p, i) => ({ p, i })).filter(({ p }) => p.grass !== (spec.to === "grass"))
      .map(({ p, i }) => ({ value: i, label: `pile ${i + 1} (${p.grass ? "grass" : "dirt"})` }));
    fallback = "the lowest-numbered piles";
  } else {
    options = seat.yard.map((p, i) => ({ value: i, label: `pile ${i + 1} (${p.cards.length ? p.cards.map(name).join(", ") : "bare"})` }))
      .filter((o) => o.value !== pile);
    fallback = "the lowest-numbered pile with room for it";
  }
  const what = spec.on === "store" ? plural(spec.count, "store card") : plural(spec.count, "pile");
  return ask(`${name(c)}: choose up to ${what}`, `None ticked: ${fallback}.`, options, spec.count);
}

// Y7, Y22: the targets of the start (or end) actions that take a choice, card by card; null when cancelled
async function stepTargets(when, t, seat) {
  const targets = {};
  for (const [i, p] of seat.yard.entries()) {
    for (const c of p.cards) {
      const spec = chooser(c.id, when);
      if (!spec) continue;
      const picked = await askTargets(c, spec, t, seat, i);
      if (picked === null) return null;
      if (picked.length) targets[c.card] = picked.map(Number);
    }
  }
  return targets;
}

// Y13–Y18: the selected hand card onto a pile; in one's own yard its play action's targets are asked (Y16: in a
// rival's yard they are the default)
async function playOn(seat, pile) {
  const mine = last && last[1].seats.find((x) => x.player === me());
  const card = mine && (mine.hand || []).find((c) => c.card === selected);
  selected = null;
  if (!card) return;
  const own = seat.player === me();
  const spec = own ? chooser(card.id, "play") : null;
  let targets = null;
  if (spec && !(spec.on === "move" && !seat.yard[pile].cards.length)) {
    const picked = await askTargets(card, spec, last[1], seat, pile);
    if (picked === null) {
      shown = "";
      return refresh();
    }
    if (picked.length) targets = picked.map(Number);
  }
  return move("play", { card: card.card, pile, owner: own ? null : seat.player, ...(targets ? { targets } : {}) });
}

// Y19: a bribe that trashes cards of one's yard asks which, when there is more than one way to pay it
async function swayOf(c, seat) {
  const r = ((catalogue.get(c.id) || {}).bribe || {}).trash;
  const fits = r ? seat.yard.flatMap((p, i) => p.cards.map((x) => ({ x, i })))
    .filter(({ x }) => (r.card ? x.id === r.card : (catalogue.get(x.id) || {}).kind === r.kind)) : [];
  if (!r || fits.length <= r.count) return move("sway", { neighbour: c.card });
  const picked = await ask(`${name(c)}'s bribe: choose ${plural(r.count, "card")} of your yard to trash`,
    "None ticked: the topmost.", fits.map(({ x, i }) => ({ value: x.card, label: `${name(x)} (pile ${i + 1})` })),
    r.count, (n) => n === 0 || n === r.count, "Sway");
  if (picked === null) return;
  return move("sway", { neighbour: c.card, ...(picked.length ? { trash: picked } : {}) });
}

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
    onclick: () => playOn(seat, i) }, p.grass ? "GRASS" : "DIRT", ...p.cards.map((c) => h("div", {}, name(c))))));
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
  $("#do-leave").hidden = !seatOf || seatOf.left || t.finished;
  const canBuy = myTurn && step === "act" && seatOf.side === "away" && !done.includes("buy");
  const canSway = myTurn && step === "act" && seatOf.side === "home" && !done.includes("sway");
  const canPick = myTurn && step === "act" && seatOf.side === "home" && !done.includes("play");
  // Y11: with extra buys (a Potting Shed's) store cards are picked, then bought at once with Buy
  const most = 1 + (t.turn.extra_buys || 0);
  basket = canBuy && most > 1 ? basket.filter((c) => t.store.some((x) => x.card === c)) : [];
  const cost = basket.reduce((sum, c) => sum + ((catalogue.get((t.store.find((x) => x.card === c) || {}).id) || {}).cost || 0), 0);
  $("#do-buy").hidden = !(canBuy && most > 1);
  $("#do-buy").disabled = !basket.length;
  $("#do-buy").textContent = basket.length ? `Buy ${plural(basket.length, "card")} for $${cost}` : "Buy";
  $("#hint").textContent = canPick ? (selected ? "Now tap a pile (yours, or an AWAY rival's)." : "Tap a hand card to play it.")
    : canBuy && most > 1 ? `You may buy up to ${most} cards at once this turn: tap them, then Buy.`
      : canBuy ? "Tap a store card to buy it." : "";
  const pick = (c) => {
    basket = basket.includes(c.card) ? basket.filter((x) => x !== c.card)
      : basket.length < most ? [...basket, c.card] : basket;
    renderTable(g, t);
  };
  cardList("#store", t.store, canBuy ? (most > 1 ? pick : (c) => move("buy", { cards: [c.card] })) : null);
  for (const b of $("#store").querySelectorAll("button")) {
    if (basket.includes(b.dataset.card)) b.classList.add("selected");
    if (most > 1) b.setAttribute("aria-pressed", String(basket.includes(b.dataset.card)));
  }
  cardList("#row", t.row, canSway ? (c) => swayOf(c, seatOf) : null);
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
  const now = JSON.stringify([rooms, g, selected, basket, me()]);
  if (now === shown) return;
  shown = now;
  const due = g && g.yard_cards.table && !g.yard_cards.table.finished ? g.yard_cards.turn_deadline : null;
  turnOf = due ? g.yard_cards.table.turn.player : null;
  if (due !== deadline) {
    deadline = due;
    if (due) readClock(); // a new turn: the game clock read again (the organizer may have moved it)
  }
  showDeadline();
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
  status = g.status;
  // Y26: a seated player leaves the lobby (the seat is freed) or the game (out for good), after a question
  $("#do-leave").hidden = !(inRoom && g.status === "lobby");
  $("#room-join").hidden = !(me() && g.status === "lobby" && !inRoom);
  $("#room-start").hidden = !(g.status === "lobby" && y.opener === me() && y.players.length >= 2);
  const invite = `${location.origin}/yard?room=${g.game_id}`;
  $("#room-invite").hidden = g.status !== "lobby";
  $("#room-invite a").href = invite;
  $("#room-invite a").textContent = invite;
  $("#room-seed").textContent = g.seed ? `Seed revealed: ${g.seed} (SHA-256 ${g.seed_commitment})`
    : `Seed SHA-256, published before the shuffle: ${g.seed_commitment}`;
  if (!y.table) {
    $("#room-status").textContent = g.status === "finished" ? "Closed: everyone left before it started."  // Y28
      : `Waiting to start: ${y.players.map(who).join(", ")} (2 to 5 players)`;
    $("#turn-actions").hidden = true;
    return;
  }
  last = [g, y.table];
  renderTable(g, y.table);
}

$("#open-room").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const seconds = Number(new FormData(ev.target).get("turn_seconds")) || 90;
  act(async () => { current = (await api("/modes/yard-cards", { method: "POST", body: { turn_seconds: seconds } })).game_id; });
});
$("#room-join").addEventListener("click", () => move("join"));
$("#room-start").addEventListener("click", () => move("start"));
$("#do-start").addEventListener("click", async () => {
  const seat = last && last[1].seats.find((x) => x.player === me());
  const targets = seat ? await stepTargets("start", last[1], seat) : {};
  if (targets !== null) move("start-actions", Object.keys(targets).length ? { targets } : {});
});
$("#go-home").addEventListener("click", () => move("side", { side: "home" }));
$("#go-away").addEventListener("click", () => move("side", { side: "away" }));
$("#do-work").addEventListener("click", () => move("work"));
$("#do-end").addEventListener("click", async () => {
  selected = null;
  const seat = last && last[1].seats.find((x) => x.player === me());
  const targets = seat ? await stepTargets("end", last[1], seat) : {};
  if (targets !== null) move("end-actions", Object.keys(targets).length ? { targets } : {});
});
$("#do-buy").addEventListener("click", () => {
  const cards = basket;
  basket = [];
  if (cards.length) move("buy", { cards });
});
$("#do-leave").addEventListener("click", () => {
  const question = status === "lobby" ? "Leave this room? Your seat is freed for someone else."
    : "Leave this game for good? You are out: your turns are skipped, your yard stays, and you are not ranked.";
  if (window.confirm(question)) move("leave");
});

pageConfig().then((cfg) => {
  if (typeof cfg.clock_rate === "number") clock.rate = cfg.clock_rate;
});
refresh().catch(show);
setInterval(() => refresh().catch(show), 2000);
setInterval(showDeadline, 1000);
setInterval(() => { if (deadline) readClock(); }, 30000);
