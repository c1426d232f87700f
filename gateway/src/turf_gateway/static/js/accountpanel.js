// The play page's account panel (R30): change name, Discord name, email, home address, the optional announcements
// by mail and the password; download everything the game holds about me; withdraw. Every form answers in a sentence.
import { $, act, api, clearSession, formData } from "./api.js";

let current = null;   // the profile as last read: only what the player changed is sent

export function fillAccount(me) {
  current = me;
  const f = $("#profile-form");
  for (const k of ["name", "discord", "email", "home_address"]) f.elements[k].value = me[k] || "";
  f.elements.announcements_by_mail.checked = Boolean(me.announcements_by_mail);
  $("#email-state").textContent = me.email_confirmed ? "(confirmed)" : "(not confirmed yet: see the link we mailed)";
}

export function installAccount(onChanged, onGone) {
  const msg = $("#account-msg");
  // the answer shows under what was pressed (on a phone the panel is long: "Saved." under Save, not at its foot)
  const answerAt = (el) => el.after(msg);
  $("#profile-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const form = ev.currentTarget;
    answerAt(form);
    const f = formData(form);
    const body = { announcements_by_mail: form.elements.announcements_by_mail.checked };
    for (const k of ["name", "discord", "email", "home_address"]) {
      if (!current || f[k] !== (current[k] || "")) body[k] = f[k];
    }
    await act(ev.submitter, msg, async () => {
      const me = await api("/me", { method: "PATCH", body });
      fillAccount(me);
      await onChanged(me);
      return "home_address" in body && me.status === "pending"
        ? "Saved. Your new address is checked again; until then you cannot claim (your towns stay yours)."
        : me.email_confirmed ? "Saved." : "Saved. Confirm your email address with the link we mailed to it.";
    });
  });
  $("#password-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const form = ev.currentTarget;
    answerAt(form);
    await act(ev.submitter, msg, async () => {
      await api("/me/password", { method: "PUT", body: formData(form) });
      form.reset();
      return "Your password is changed; your other devices are signed out.";
    });
  });
  $("#export-btn").addEventListener("click", async (ev) => {
    answerAt(ev.currentTarget.parentElement);
    await act(ev.currentTarget, msg, async () => {
      const data = await api("/me/export");
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
      const a = Object.assign(document.createElement("a"), { href: url, download: "turfwar-my-data.json" });
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
      return "Your data is downloaded as turfwar-my-data.json.";
    });
  });
  $("#withdraw-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const form = ev.currentTarget;
    answerAt(form);
    await act(ev.submitter, msg, async () => {
      // a wrong password is said before the question "for good?", not after it
      await api("/me/password/check", { method: "POST", body: formData(form) });
      if (!window.confirm("Withdraw from Turf War for good? Your towns become free and your data is erased.")) {
        return "Nothing changed: you are still in the game.";
      }
      await api("/me", { method: "DELETE", body: formData(form) });
      clearSession();
      onGone();
      return "You have withdrawn; your personal data is erased. Thank you for playing.";
    });
  });
}
