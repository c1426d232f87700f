// The organizer's latest announcement (the rulebook: rule changes are told to every player), shown on the play
// and watch pages until it is dismissed on this device: GET /announcements (public, newest first), and live from
// the feed's announcement.published. A server without the route (404) shows nothing.

import { h, optional } from "./api.js";

const DISMISSED = "turf.announcement.dismissed";

export class Announcement {
  constructor(root) {
    this.root = root;
    this.shown = null;
  }

  async start() {
    let out = null;
    try {
      out = await optional("/announcements", { auth: false });
    } catch {
      out = null; // offline or 503: the feed may still bring one
    }
    const latest = out && out.announcements && out.announcements[0];
    if (latest) this.show(latest);
  }

  // an announcement.published message (or a GET /announcements item): {id, at, title, body} at top level or in
  // .announcement
  show(a) {
    const x = a && a.announcement ? a.announcement : a;
    if (!x || !x.id) return;
    if (localStorage.getItem(DISMISSED) === String(x.id)) return;
    if (this.shown && this.shown.at && x.at && x.at < this.shown.at) return; // an older one never replaces it
    this.shown = x;
    const close = h("button", { type: "button", class: "secondary", "aria-label": "Dismiss the announcement" },
      "Dismiss");
    close.addEventListener("click", () => this.dismiss());
    this.root.replaceChildren(h("div", { class: "grow" }, h("b", {}, x.title || "Announcement"),
      x.body ? h("p", {}, x.body) : null), close);
    this.root.dataset.id = String(x.id);
    this.root.hidden = false;
  }

  dismiss() {
    if (this.shown) localStorage.setItem(DISMISSED, String(this.shown.id));
    this.shown = null;
    this.root.hidden = true;
    this.root.replaceChildren();
  }

  // notifications marked read: one of kind "announcement" for the one shown reads it (API.md: data.announcement_id)
  read(notifications) {
    if (!this.shown) return;
    const ids = notifications.filter((n) => n.kind === "announcement").map((n) => String(n.data?.announcement_id));
    if (ids.includes(String(this.shown.id))) this.dismiss();
  }
}
