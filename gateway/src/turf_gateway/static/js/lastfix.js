// The last known position, kept on the phone: a page reloaded without signal (a basement, a tunnel) shows where the
// player last was and how long ago, instead of the whole region and "Waiting for your location…" for ever. Only
// shown, never sent: a check or a claim needs a fresh fix (R7).

const KEY = "turf.lastFix";
const EVERY_MS = 5000;   // kept at most this often (a fix a second would write storage a second)

let keptAt = 0;

export function keepFix(pos) {
  if (pos.timestamp - keptAt < EVERY_MS) return;
  keptAt = pos.timestamp;
  const { latitude: lat, longitude: lon, accuracy } = pos.coords;
  try {
    localStorage.setItem(KEY, JSON.stringify({ lat, lon, accuracy, at: pos.timestamp }));
  } catch {
    /* storage full or refused: nothing kept */
  }
}

// {lat, lon, accuracy, at} or null
export function keptFix() {
  try {
    const k = JSON.parse(localStorage.getItem(KEY) || "null");
    return k && Number.isFinite(k.lat) && Number.isFinite(k.lon) && Number.isFinite(k.at) ? k : null;
  } catch {
    return null;
  }
}

// "just now", "12 min ago", "3 h ago", "2 days ago"
export function ageText(ms) {
  const min = Math.floor(Math.max(0, ms) / 60000);
  if (min < 1) return "just now";
  if (min < 60) return `${min} min ago`;
  const hours = Math.floor(min / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}
