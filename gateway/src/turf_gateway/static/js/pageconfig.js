// /pages/config.json (the clock's rate, the base map's tiles…), asked once a page load: the map and the play page
// both read it, and a second request cost a phone a round trip before its first check
let asked = null;

export function pageConfig() {
  asked ??= fetch("/pages/config.json").then((r) => (r.ok ? r.json() : {})).catch(() => ({}));
  return asked;
}
