/* passkeyd demo page: the "Sign in with a password" form (docs/guides/passwords.md, "In a web page"). A password
 * imported from an app's previous system signs in (`signInWithPassword`); then the page asks the browser, silently,
 * for a passkey without a prompt (`upgradeToPasskey()`), and offers the modal registration in the account view as the
 * fallback. The password is read from its field once, handed to passkeyd.js for POST /auth/password and the field is
 * emptied: the page never logs, stores or shows it. See README.md. */
import { ErrorCode } from "./passkeyd.js";

/** The sentences of the password sign-in's refusals, by passkeyd's code (other codes show passkeyd.js's message). */
export const passwordRefusals = Object.freeze({
  password_invalid: "That username, email or password is wrong.",
  rate_limited: "Too many sign-in attempts. Wait a moment, then try again.",
  password_verification_busy: "The server is busy checking other passwords. Try again in a moment.",
});

/** The form's other sentences. */
export const passwordMessages = Object.freeze({
  missing: "Enter your username or email and your password.",
  signedIn: "Signed in with your password.",
  upgraded: "Your browser created a passkey for this account: next time, sign in with it.",
});

/* The automatic upgrade's failures are never shown (the guide: "silent: never show its failures"): the browser
 * declines quietly when its password manager did not fill the password, and the offer is there instead. */
const QUIET_UPGRADE_CODES = [ErrorCode.ABORTED, ErrorCode.UNSUPPORTED, ErrorCode.NOT_ALLOWED, ErrorCode.CANCELLED,
  ErrorCode.TIMED_OUT];

/**
 * Wires the form. `page` is what the page lends it: `passkeyd` (the client), `run(fn)` (one action at a time, busy
 * state, unexpected errors reported), `showAccount(me)`, `showStatus(text)`, `showError(text)`, `addPasskey()` (the
 * modal registration), `isSignedIn()` and `restartAutofill()`.
 */
export function setUpPasswordSignIn(page) {
  const form = document.getElementById("password-form");
  const identifier = document.getElementById("password-identifier");
  const password = document.getElementById("password");
  const offer = document.getElementById("passkey-offer");

  function startUpgrade() {
    if (!page.passkeyd.supported()) return;
    offer.hidden = false; // the upgrade may wait for good (no password manager filled the password): offer at once
    page.passkeyd.upgradeToPasskey().then((signedIn) => {
      offer.hidden = true;
      if (!page.isSignedIn()) return;
      page.showAccount(signedIn.account);
      page.showStatus(passwordMessages.upgraded);
    }, (error) => {
      if (QUIET_UPGRADE_CODES.indexOf(error && error.code) < 0) console.warn("passkeyd: automatic upgrade:", error && error.code);
    });
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const name = identifier.value.trim();
    if (!name || !password.value) {
      page.showError(passwordMessages.missing);
      (name ? password : identifier).focus();
      return;
    }
    // A name with "@" is an email (POST /auth/password signs it in when exactly one account has it).
    const credentials = name.indexOf("@") >= 0 ? { email: name } : { username: name };
    credentials.password = password.value;
    page.run(() => page.passkeyd.signInWithPassword(credentials).then((signedIn) => {
      password.value = "";
      page.showAccount(signedIn.account);
      page.showStatus(passwordMessages.signedIn);
      startUpgrade();
    }, (error) => {
      password.value = "";
      const sentence = error && Object.prototype.hasOwnProperty.call(passwordRefusals, error.code) && passwordRefusals[error.code];
      if (!sentence) throw error;
      page.showError(sentence);
      password.focus();
    })).then(() => {
      if (!page.isSignedIn()) page.restartAutofill(); // signInWithPassword stopped the passkey autofill
    });
  });

  document.getElementById("offer-passkey").addEventListener("click", () => page.addPasskey());
  document.getElementById("offer-dismiss").addEventListener("click", () => { offer.hidden = true; });
}
