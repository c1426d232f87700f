// The page behind the links Turf War mails (R30): ?action=confirm&token=… confirms an email address, ?action=reset
// &token=… chooses a new password, ?action=forgot asks for a reset link. Every form answers in a sentence.
import { api, clearSession } from "./api.js";

const params = new URLSearchParams(location.search);
const action = params.get("action") || "forgot";
const token = params.get("token") || "";
const msg = document.querySelector("#account-msg");
// the token has done its work once read: it leaves the address bar (and the history) at once
if (token) history.replaceState(null, "", location.pathname + "?action=" + encodeURIComponent(action));

function say(text, kind) {
  msg.textContent = text;
  msg.className = "msg " + kind;
  msg.hidden = false;
}

async function confirmEmail() {
  document.querySelector("#confirm").hidden = false;
  try {
    await api("/me/email/confirm", { method: "POST", body: { token }, auth: false });
    say("Your email address is confirmed. Thank you!", "ok");
  } catch (e) {
    say(e.message, "error");
  }
}

// a link that no longer works says so at once, and offers to ask for a new one
function expired(e) {
  document.querySelector("#reset").hidden = true;
  say(e.message, "error");
  forgotForm();
}

async function resetForm() {
  const section = document.querySelector("#reset");
  try {
    await api("/password-resets/check", { method: "POST", body: { token }, auth: false });
  } catch (e) {
    if (e.status === 410) return expired(e);
  }
  section.hidden = false;
  document.querySelector("#reset-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const new_password = new FormData(ev.target).get("new_password");
    try {
      await api("/password-resets/complete", { method: "POST", body: { token, new_password }, auth: false });
      clearSession();
      ev.target.reset();
      section.hidden = true;   // done: no form left to fill in again
      say("Your password is changed and you are signed out everywhere; sign in with the new one on the ", "ok");
      msg.append(Object.assign(document.createElement("a"), { href: "/", textContent: "Play page" }), ".");
    } catch (e) {
      if (e.status === 410) expired(e);
      else say(e.message, "error");
    }
  });
}

function forgotForm() {
  document.querySelector("#forgot").hidden = false;
  document.querySelector("#forgot-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const email = new FormData(ev.target).get("email");
    try {
      const r = await api("/password-resets", { method: "POST", body: { email }, auth: false });
      say(r.message, "ok");
    } catch (e) {
      say(e.message, "error");
    }
  });
}

if (action === "confirm" && token) confirmEmail();
else if (action === "reset" && token) resetForm();
else forgotForm();
