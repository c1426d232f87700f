// Tabs after the WAI-ARIA Authoring Practices' tabs pattern: a [role=tablist] of [role=tab] buttons, each
// naming its [role=tabpanel] by aria-controls. One tab is in the Tab order (roving tabindex); Left/Right (wrapping),
// Home and End move to a tab and show its panel at once (automatic activation); a hidden tab is skipped. Panels that
// are not shown are [hidden], so a screen reader meets only the one shown.

export class Tabs {
  // list: the [role=tablist]; onShow(id, {byPlayer}): called after a panel is shown (id = the tab's id; byPlayer:
  // a tap or key, not the page's own choice)
  constructor(list, { onShow = () => {} } = {}) {
    this.list = list;
    this.onShow = onShow;
    this.tabs = [...list.querySelectorAll("[role=tab]")];
    for (const t of this.tabs) {
      t.addEventListener("click", () => this.select(t.id));
      t.addEventListener("keydown", (ev) => this.key(ev, t));
    }
    const first = this.tabs.find((t) => t.getAttribute("aria-selected") === "true") || this.tabs[0];
    this.select(first.id, { quiet: true });
  }

  get selected() {
    return this.tabs.find((t) => t.getAttribute("aria-selected") === "true")?.id || null;
  }

  panel(tab) {
    return document.getElementById(tab.getAttribute("aria-controls"));
  }

  // shows the tab's panel, hides the others; focus: move the keyboard focus to the tab too
  select(id, { focus = false, quiet = false } = {}) {
    const tab = this.tabs.find((t) => t.id === id);
    if (!tab || tab.hidden) return;
    for (const t of this.tabs) {
      const on = t === tab;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
      this.panel(t).hidden = !on;
    }
    if (focus) tab.focus();
    this.onShow(id, { byPlayer: !quiet });
  }

  // shows the panel holding el (a link to a list, a bell to its notifications); true when there is one
  reveal(el) {
    const tab = this.tabs.find((t) => this.panel(t).contains(el));
    if (tab) this.select(tab.id);
    return !!tab;
  }

  // a tab that has nothing to show (signed out: My turf, Cards) is hidden; the selection moves off it
  offer(id, shown) {
    const tab = this.tabs.find((t) => t.id === id);
    if (!tab || tab.hidden === !shown) return;
    tab.hidden = !shown;
    if (!shown && this.selected === id) this.select(this.tabs.find((t) => !t.hidden)?.id, { quiet: true });
  }

  key(ev, tab) {
    const shown = this.tabs.filter((t) => !t.hidden);
    const i = shown.indexOf(tab);
    const to = { ArrowRight: shown[(i + 1) % shown.length], ArrowLeft: shown[(i - 1 + shown.length) % shown.length],
      Home: shown[0], End: shown[shown.length - 1] }[ev.key];
    if (!to) return;
    ev.preventDefault();
    this.select(to.id, { focus: true });
  }
}
