// Team Turf and King of the Hill: list the games, open a room, join, start, choose, place and order,
// each through the gateway's /modes routes; the open game is read again every 2 s. Refusals show the rule's
// sentence (api.js), never just a code. Team Turf is played on the board map (teammap.js): towns in their team's
// colour with their troops, a tap on a town places or orders.
import { api, gameTime, session } from "/static/js/api.js";
import { MapNames } from "/static/js/mapnames.js";
import { TeamMap } from "/static/js/teammap.js";
import { BOARD_URL, features } from "/static/js/topo.js";

const $ = (s) => document.querySelector(s);
const me = () => (session() || {}).player_id || null;
const names = new Map(); // town id → name
const ids = new Map(); // lower-case name → town id
let neighbours = {};
let current = null; // {mode: "hill" | "team-turf", id}
let teamMap = null;  // the Team Turf map, made when a game is first shown (Leaflet needs a visible box)
let lastTeamTurf = null; // the game last drawn: what a tap on the map picks from

const town = (id) => names.get(id) || id;
const players = new Map(); // player id → display name, from the games' answers (their names)
const who = (pid) => (pid === me() ? "you" : players.get(pid) || "a player");

// the names a game's answer carries (GET /modes/…'s names): no roster to read, however many players there are
function learnNames(g) {
  for (const [id, n] of Object.entries(g.names || {})) players.set(id, n);
}

function show(err) {
  const box = $("#error");
  box.hidden = !err;
  box.textContent = err ? err.message : "";
}

async function act(fn) {
  try {
    show(null);
    await fn();
    await refresh();
  } catch (e) {
    show(e);
  }
}

// the towns' names and ids from the board as the map reads it (TopoJSON; the map's own read of it after is a
// revalidation), not from its GeoJSON, twice the bytes, as well. Not preloaded by modes.html: with the page's
// stylesheets it put off the first paint (Lighthouse, docs/benchmarks/lighthouse.md)
async function loadBoard() {
  const r = await fetch(BOARD_URL);
  if (!r.ok) throw new Error("the board could not be loaded (" + r.status + ")");
  const board = features(await r.json());
  const list = $("#towns");
  for (const f of board.features) {
    names.set(f.properties.id, f.properties.name);
    ids.set(f.properties.name.toLowerCase(), f.properties.id);
  }
  list.replaceChildren(...[...names.values()].sort().map((n) => Object.assign(document.createElement("option"), { value: n })));
  neighbours = (await api("/adjacency", { auth: false })).neighbours;
}

const STATUS = { lobby: "waiting for players", running: "playing", finished: "over" };

// a game as a player reads it: its hill or its teams, never its id ("King of the Hill on Hoboken · waiting for
// players · 2 of 3–5 players"); an older server's list without them says which mode and when it was opened
function gameName(g, mode) {
  if (mode === "hill") return g.hill ? `King of the Hill on ${town(g.hill)}` : `A room opened ${gameTime(g.created_at)}`;
  return g.teams ? `Team Turf: ${g.teams.join(" vs ")}` : `A game opened ${gameTime(g.created_at)}`;
}

function gameList(sel, games, mode) {
  $(sel).replaceChildren(...games.map((g) => {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.gameId = g.game_id;
    b.textContent = `${gameName(g, mode)} · ${STATUS[g.status] || g.status}` +
      (mode === "hill" ? ` · ${g.players} of 3–5 players` : "");
    b.addEventListener("click", () => { current = { mode, id: g.game_id }; refresh(); });
    li.append(b);
    return li;
  }));
}

async function loadLists() {
  gameList("#hill-list", (await api("/modes/hill", { auth: false })).games, "hill");
  gameList("#tt-list", (await api("/modes/team-turf", { auth: false })).games, "team-turf");
}

function renderRoom(g) {
  const h = g.hill;
  const mine = me();
  $("#room").hidden = false;
  $("#room-title").textContent = `King of the Hill on ${town(h.hill)}`;
  $("#room-status").textContent = g.status === "lobby" ? `Waiting to start: ${h.players.length} of 3–5 players`
    : g.status === "running" ? `Round ${h.round} of ${h.rounds} · ${h.holder ? who(h.holder) + " hold" + (h.holder === mine ? "" : "s") + " the hill" : "nobody holds the hill"}`
      + (h.round_deadline ? ` · choices close ${gameTime(h.round_deadline)}` : "")
    : h.winner ? `Over: ${who(h.winner)} won` : "Over: a draw, nobody held the hill";
  $("#room-players tbody").replaceChildren(...h.players.map((p) => {
    const tr = document.createElement("tr");
    if (p === h.holder) tr.className = "holder";
    const chose = p === h.holder ? "holds" : h.chosen.includes(p) ? "chosen" : g.status === "running" ? "…" : "";
    tr.append(...[who(p) + (p === h.holder ? " ♛" : ""), h.dice[p] ?? 1, chose].map((t, i) => {
      const td = document.createElement("td");
      td.textContent = String(t);
      if (i === 1) td.className = "n";
      return td;
    }));
    if (g.status === "lobby" && mine === h.opener && p !== mine) { // K20: the opener removes a seated player
      const b = Object.assign(document.createElement("button"), { type: "button", className: "remove",
        textContent: "Remove" });
      b.addEventListener("click", () => act(() => api(`/modes/hill/${g.game_id}/players/${p}`, { method: "DELETE" })));
      tr.lastChild.replaceChildren(b);
    }
    return tr;
  }));
  const inRoom = mine && h.players.includes(mine);
  $("#room-join").hidden = !(mine && g.status === "lobby" && !inRoom);
  // K17: any seated player leaves, in the lobby (the seat is freed) or in the game (out), after a question
  $("#room-leave").hidden = !(inRoom && g.status !== "finished");
  $("#room-leave").dataset.status = g.status;
  // K1: Start is offered to the opener only, and only with 3 to 5 players seated
  $("#room-start").hidden = !(g.status === "lobby" && mine === h.opener && h.players.length >= 3 && h.players.length <= 5);
  // K1: until the room has its 3 players, the opener reads what Start waits for rather than a button
  const short = 3 - h.players.length;
  $("#room-need").hidden = !(g.status === "lobby" && short > 0);
  $("#room-need").textContent = `Start appears once 3 players have joined: ${short} more to go. Share the link below.`;
  // the sentence sits above the link it points to (modes.html)
  const canChoose = g.status === "running" && inRoom && mine !== h.holder && !h.chosen.includes(mine);
  $("#choose-attack").hidden = $("#choose-recruit").hidden = !canChoose;
  // K4: my own secret choice, kept in view until the round resolves
  $("#room-mine").hidden = !(g.status === "running" && h.my_choice);
  $("#room-mine").textContent = h.my_choice ? `You chose ${h.my_choice === "attack" ? "Attack" : "Recruit"} this round; `
    + "the others see only that you have chosen." : "";
  const last = h.last_round;
  $("#room-last").textContent = last ? `Round ${last.round}: ` + Object.entries(last.choices).map(([p, c]) =>
    `${who(p)} ${c === "attack" ? "attacked (" + (last.rolls[p] || []).join("+") + ")" : "recruited"}`).join(", ") +
    (last.defence ? `; the hill defended with ${last.defence_power}` : "") +
    `; ${last.holder_after ? who(last.holder_after) + " holds it" : "nobody holds it"}.` : "";
  const invite = `${location.origin}/modes?hill=${g.game_id}`;
  $("#room-invite").hidden = g.status !== "lobby";
  $("#room-invite a").href = invite;
  $("#room-invite a").textContent = invite;
  fair("#room-seed", g);
}

// the fairness note is written only while its box is open: a player reads no hash unless they ask for it
function fair(sel, g) {
  const box = $(sel).closest("details");
  box.dataset.text = fairness(g);
  $(sel).textContent = box.open ? box.dataset.text : "";
  if (!box.dataset.wired) {
    box.dataset.wired = "1";
    box.addEventListener("toggle", () => { $(sel).textContent = box.open ? box.dataset.text : ""; });
  }
}

// K16, T20: the dice's seed is fixed (and its fingerprint published) before play, revealed at the end
function fairness(g) {
  return "The dice come from a seed fixed before the game began; its fingerprint (a SHA-256 hash) is "
    + `${g.seed_commitment}. ` + (g.seed ? `The seed, revealed now the game is over: ${g.seed}. Anyone can replay the `
    + "game's log with it." : "The seed itself is revealed when the game is over, so anyone can check every roll.");
}

function options(sel, values, label = (v) => v) {
  const s = $(sel);
  const keep = s.value;
  s.replaceChildren(...values.map((v) => Object.assign(document.createElement("option"), { value: v, textContent: label(v) })));
  if (values.includes(keep)) s.value = keep;
}

function renderTeamTurf(g) {
  const t = g.team_turf;
  const mine = me();
  const team = mine ? t.team_of[mine] : undefined;
  $("#tt").hidden = false;
  $("#tt-title").textContent = `Team Turf: ${t.teams.join(" vs ")}`;
  $("#tt-status").textContent = g.status === "finished" ? `Over: ${t.winners.join(" and ") || "nobody"} won`
    : `Turn ${t.turn} · ${t.field_towns} towns` + (team ? ` · you play for ${team}, ${t.reserve[mine] || 0} troops in reserve` : "")
      + (t.next_turn_at ? ` · orders resolve ${gameTime(t.next_turn_at)}` : "");
  const running = g.status === "running";
  $("#tt-join").hidden = !(mine && running && !team);
  options("#tt-join [name=team]", t.teams.filter((x) => !t.eliminated.includes(x)));
  const held = Object.entries(t.board).filter(([, tr]) => t.team_of[Object.keys(tr)[0]] === team).map(([id]) => id);
  const placeable = [...new Set([...held, ...Object.entries(t.reserved_homes).filter(([x]) => x === team).map(([, h]) => h)])];
  // T3: the place form only while troops are left in reserve
  $("#tt-place").hidden = !(running && team && t.active.includes(mine) && (t.reserve[mine] || 0) > 0);
  options("#tt-place [name=town]", placeable, town);
  const from = Object.entries(t.board).filter(([, tr]) => tr[mine]).map(([id]) => id);
  $("#tt-order").hidden = !(running && team && from.length);
  options("#tt-order [name=src]", from, town);
  options("#tt-order [name=dst]", neighbours[$("#tt-order [name=src]").value] || [], town);
  $("#tt-orders").replaceChildren(...t.orders.map((o) => Object.assign(document.createElement("li"),
    { textContent: `${who(o.player_id)}: ${o.kind} ${o.n} from ${town(o.src)} to ${town(o.dst)}` })));
  $("#tt-board tbody").replaceChildren(...Object.entries(t.board).map(([id, tr]) => {
    const row = document.createElement("tr");
    row.append(...[town(id), t.team_of[Object.keys(tr)[0]], Object.values(tr).reduce((a, b) => a + b, 0)].map((x, i) => {
      const td = document.createElement("td");
      td.textContent = String(x);
      if (i === 2) td.className = "n";
      return td;
    }));
    return row;
  }));
  fair("#tt-seed", g);
  lastTeamTurf = { g, placeable, from };
  if (!$("#tt-hint").textContent || !team) {
    $("#tt-hint").textContent = team && running ? "Tap one of your team's towns on the map to place troops there or "
      + "to order from it, then a neighbour to move or attack." : "Each town shows its team's colour and troops.";
  }
  drawTeamTurf(g);
}

// the map: made once, when the game's box is on screen; then the towns, troops and orders drawn on each read
async function drawTeamTurf(g) {
  if (!teamMap) {
    teamMap = new TeamMap($("#tt-map"), { me, onPick: pickTown });
    window.turfModes.map = teamMap;
    // the towns named on the map, the game's own first (its homes, the occupied towns, a small field's others)
    const names = new MapNames(teamMap, { first: () => teamMap.gameTowns() });
    // the view before the towns: they are drawn once, in the game's colours and at its frame (drawn first and
    // restyled and framed after, the map was one long task on a phone)
    teamMap.show(g.team_turf, town, who);
    await teamMap.init();
    names.schedule();
    return;
  }
  teamMap.show(g.team_turf, town, who);
}

// a tap on a town: where to place, else an order's start (one of my towns with troops), then its end (a neighbour)
function pickTown(id) {
  if (!lastTeamTurf) return;
  const { placeable, from } = lastTeamTurf;
  const hint = $("#tt-hint");
  const src = $("#tt-order [name=src]");
  const orderFrom = !$("#tt-order").hidden && src.dataset.picked;
  if (orderFrom && orderFrom !== id && (neighbours[orderFrom] || []).includes(id)) {
    $("#tt-order [name=dst]").value = id;
    delete src.dataset.picked;
    teamMap.pick(orderFrom, id);
    hint.textContent = `Order from ${town(orderFrom)} to ${town(id)}: choose Attack or Move and how many troops, then Order.`;
    return;
  }
  if (!$("#tt-place").hidden && placeable.includes(id)) $("#tt-place [name=town]").value = id;
  if (!$("#tt-order").hidden && from.includes(id)) {
    src.value = id;
    src.dataset.picked = id;
    options("#tt-order [name=dst]", neighbours[id] || [], town);
    teamMap.pick(id, null);
    hint.textContent = (!$("#tt-place").hidden && placeable.includes(id) ? `Place in ${town(id)} with the form, or t`
      : "T") + `ap a neighbour of ${town(id)} to move or attack there.`;
    return;
  }
  teamMap.pick(null, null);
  if (!teamMap.inGame(id)) {
    hint.textContent = `${town(id)} is not one of this game's towns: its towns are the outlined ones.`;
    return;
  }
  hint.textContent = !$("#tt-place").hidden && placeable.includes(id) ? `Placing in ${town(id)}: how many troops?`
    : `${town(id)}: not one of your team's towns with troops. Tap one of yours to place or order from it.`;
}

async function refresh() {
  try {
    await loadLists();
    if (!current) return;
    const g = await api(`/modes/${current.mode}/${current.id}`, { auth: Boolean(me()) });
    learnNames(g);
    if (current.mode === "hill") renderRoom(g); else renderTeamTurf(g);
  } catch (e) {
    show(e);
  }
}

function bind() {
  const post = (path, body) => api(`/modes/${current.mode}/${current.id}${path}`, { method: "POST", body });
  $("#open-hill").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const name = new FormData(ev.target).get("hill").trim();
    act(async () => {
      const hill = ids.get(name.toLowerCase()) || name;
      const g = await api("/modes/hill", { method: "POST", body: { hill } });
      current = { mode: "hill", id: g.game_id };
    });
  });
  $("#room-join").addEventListener("click", () => act(() => post("/join")));
  $("#room-start").addEventListener("click", () => act(() => post("/start")));
  $("#room-leave").addEventListener("click", () => {
    const lobby = $("#room-leave").dataset.status === "lobby";
    if (!window.confirm(lobby ? "Leave this room? Your seat is freed for someone else."
      : "Leave this game for good? You are out of it and cannot win it.")) return;
    act(() => post("/leave"));
  });
  for (const choice of ["attack", "recruit"]) {
    $(`#choose-${choice}`).addEventListener("click", () => act(async () => {
      const g = await api(`/modes/hill/${current.id}`);
      await post("/choices", { round: g.hill.round, choice });
    }));
  }
  $("#tt-join").addEventListener("submit", (ev) => {
    ev.preventDefault();
    act(() => post("/join", { team: new FormData(ev.target).get("team") }));
  });
  $("#tt-place").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    act(() => post("/place", { town: f.get("town"), n: Number(f.get("n")) }));
  });
  $("#tt-order [name=src]").addEventListener("change", () => options("#tt-order [name=dst]", neighbours[$("#tt-order [name=src]").value] || [], town));
  $("#tt-order").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    act(async () => {
      const g = await api(`/modes/team-turf/${current.id}`);
      await post("/orders", { turn: g.team_turf.turn, kind: f.get("kind"), src: f.get("src"), dst: f.get("dst"), n: Number(f.get("n")) });
      // given: its arrow is drawn from the team's orders; the towns picked for it are let go
      teamMap?.pick(null, null);
      $("#tt-hint").textContent = `${f.get("kind") === "attack" ? "Attack" : "Move"} ordered from ${town(f.get("src"))} `
        + `to ${town(f.get("dst"))}; it resolves at the turn.`;
    });
  });
}

// an invitation is the game's link: /modes?hill=<id> or /modes?team-turf=<id> opens it
const params = new URLSearchParams(location.search);
for (const mode of ["hill", "team-turf"]) if (params.get(mode)) current = { mode, id: params.get(mode) };

$("#signed-out").hidden = Boolean(me());
$("#open-hill").hidden = !me();
bind();
loadBoard().catch(show).finally(refresh);
setInterval(refresh, 2000);
window.turfModes = { open: (mode, id) => { current = { mode, id }; return refresh(); }, map: null };
