// "My turf" on the play page: my score and rank (GET /leaderboard, kept live by the feed), today's claims
// left (GET /me), and my towns split into my largest cluster — the base the leaderboard counts (R23) — and the
// outposts, worth nothing until they join it. Each town says its progress toward fortification (R11), whether a claim
// today keeps its streak (R9), a Freeze (R15) or lock (R10) on it today and any dispute on it (a reclaim window or a
// War deadline, R14), from GET /me/territories; its button shows it on the map.

import { $, gameTime, h, playerName } from "./api.js";
import { mapButton } from "./mapnames.js";

// what "1/3" means (R9, R11), said once under My turf's heading and on each town's progress
const PROGRESS = "Progress: claims of the town on consecutive game days; at 3/3 it is fortified and nobody can take it.";

function badge(text, cls = "") {
  return [" ", h("span", { class: `badge ${cls}`.trim() }, text)];
}

function streakHint(t) {
  if (t.fortified) return "Fortified: nobody can take it this season.";
  // R10: another player's claim today (since undone or corrected) locks it to me too, until the next game day
  if (t.locked_today && !t.claimed_today) {
    return "Locked today by another player's claim: claim it on the next game day"
      + (t.streak === "keeps" ? ` to keep the streak (${t.next_progress}/3).` : ".");
  }
  if (t.keeps_streak_today) return `Claim it again today to keep the streak (${t.next_progress}/3).`;
  if (t.claimed_today) return "Claimed today.";
  if (t.streak === "restarts") return "Streak broken: the next claim restarts at 1/3.";
  return "";
}

async function disputes(t) {
  const out = [];
  if (t.reclaim_until) {
    out.push(`${await playerName(t.reclaim_holder_id)} may reclaim it until ${gameTime(t.reclaim_until)}.`);
  }
  if (t.war_until) out.push(`${await playerName(t.war_by)} may play War on it until ${gameTime(t.war_until)}.`);
  return out;
}

export class MyTurf {
  // root: the panel; show(id): shows a town on the map
  constructor(root, show) {
    this.root = root;
    this.show = show;
    this.asked = 0;
  }

  // the leaderboard's standings (live): my total and rank, and how many are ranked
  showScore(standings, me) {
    const mine = (standings || []).find((s) => s.player_id === me);
    $("#my-score", this.root).textContent = mine ? `${mine.total} (base ${mine.base}, bonuses ${mine.bonuses})` : "0";
    $("#my-rank", this.root).textContent = mine ? `${mine.rank} of ${standings.length}` : "not ranked yet";
  }

  // territories: GET /me/territories' list; cluster: the ids of my largest cluster among them
  async showTowns(territories, cluster) {
    const asked = ++this.asked;
    const byName = [...territories].sort((a, b) => a.name.localeCompare(b.name));
    const [inCluster, outposts] = await Promise.all([
      Promise.all(byName.filter((t) => cluster.has(t.id)).map((t) => this.item(t))),
      Promise.all(byName.filter((t) => !cluster.has(t.id)).map((t) => this.item(t)))]);
    if (asked !== this.asked) return; // a newer answer is being drawn
    this.fill("#turf-cluster", inCluster, "No town yet: claim where you stand.");
    this.fill("#turf-outposts", outposts, "None: every town of mine is in my largest cluster.");
    $("#turf-cluster-n", this.root).textContent = String(inCluster.length);
    $("#turf-outposts-n", this.root).textContent = String(outposts.length);
    this.root.dataset.loaded = String(+(this.root.dataset.loaded || 0) + 1);
  }

  fill(sel, items, empty) {
    $(sel, this.root).replaceChildren(...(items.length ? items : [h("li", { class: "muted small" }, empty)]));
  }

  async item(t) {
    const chips = [];
    if (t.fortified) chips.push(...badge("fortified"));
    if (t.frozen_today) chips.push(...badge("frozen today", "frozen"));
    if (t.locked_today) chips.push(...badge("locked today"));
    const fights = await disputes(t);
    if (fights.length) chips.push(...badge("in dispute", "dispute"));
    const hint = streakHint(t);
    const button = mapButton(t.name);
    button.addEventListener("click", () => this.show(t.id));
    return h("li", { dataset: { territoryId: t.id, progress: t.progress, keeps: String(!!t.keeps_streak_today) } },
      h("div", { class: "row" },
        h("div", {}, h("b", {}, t.name), " · ", h("span", { class: "progress", title: PROGRESS },
          `progress ${t.progress}/3`), ...chips),
        button),
      hint ? h("div", { class: "small streak" }, hint) : null,
      ...fights.map((f) => h("div", { class: "small warn" }, f)));
  }
}
