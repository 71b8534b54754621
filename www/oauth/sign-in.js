// The hosted sign-in page of the OpenID provider (GET /oauth/sign-in?<authorization request>), on the web client
// module. Once the person is signed in (passkey, new account, or Apple through /auth/apple/start), the browser goes
// back to /oauth/authorize with the same request, without prompt=login so that it does not come back here, and the
// client gets its code. Every address this page navigates to is a path of this server, but one: the consent view
// (passkeyd_consent, a public client's first grant or prompt=consent) goes to the redirect POST /oauth/consent
// answers, which the server built from the client's registered redirect URI.
import { createPasskeyd, ErrorCode, messages } from "/passkeyd.js";

const passkeyd = createPasskeyd();
const $ = (id) => document.getElementById(id);
const request = new URLSearchParams(window.location.search);
// The page's own members, never forwarded.
const OWN = ["passkeyd_apple_error", "passkeyd_resume", "passkeyd_cancel", "passkeyd_consent"];

/** The authorization request to repeat: the page's query without its own members and without prompt=login
 * (prompt=consent stays: the server then asks for consent, once). */
function authorizationQuery() {
  const query = new URLSearchParams(request);
  for (const name of OWN) query.delete(name);
  const prompts = (query.get("prompt") || "").split(" ").filter((p) => p && p !== "login");
  if (prompts.length) query.set("prompt", prompts.join(" "));
  else query.delete("prompt");
  return query;
}

/** /oauth/authorize with the request; `passkeyd_resume` tells this page, should it come back, not to go on again. */
function authorizeURL(extra) {
  const query = authorizationQuery();
  query.set("passkeyd_resume", "1");
  for (const [name, value] of extra || []) query.set(name, value);
  return "/oauth/authorize?" + query.toString();
}

function say(kind, text) {
  $("status").textContent = kind === "status" ? text : "";
  $("error").textContent = kind === "error" ? text : "";
}

function setView(view, busy) {
  $("app").setAttribute("data-view", view);
  $("app").setAttribute("data-busy", busy ? "true" : "false");
  $("sign-in-section").hidden = view !== "sign-in";
  $("consent-section").hidden = view !== "consent";
  for (const id of ["sign-in", "register", "allow"]) $(id).disabled = !!busy;
}

function continueToClient() {
  setView("continuing", true);
  say("status", "Signed in. Returning to the app…");
  window.location.assign(authorizeURL());
}

function fail(error) {
  setView("sign-in", false);
  if (error && error.code === ErrorCode.ABORTED) return;
  say("error", (error && error.message) || messages.unknown);
}

async function run(action) {
  setView("sign-in", true);
  say("status", "");
  try {
    await action();
    continueToClient();
  } catch (error) {
    fail(error);
    startAutofill();
  }
}

// How often a dismissed autofill is offered again (never in a tight loop).
const AUTOFILL_RESTARTS = 3;
let autofillRestarts = 0;

function startAutofill() {
  let gotCredential = false;
  const onCredential = () => {
    gotCredential = true;
  };
  passkeyd.signInWithAutofill($("username"), { onCredential }).then(continueToClient, (error) => {
    if (error.code === ErrorCode.ABORTED || error.code === ErrorCode.UNSUPPORTED) return;
    // The person dismissed the autofill offer (or it timed out) before picking a passkey: nothing went wrong, so the
    // page stays quiet, as the demo page does, and offers it again.
    const dismissed =
      !gotCredential && [ErrorCode.CANCELLED, ErrorCode.TIMED_OUT, ErrorCode.NOT_ALLOWED].includes(error.code);
    if (!dismissed) {
      fail(error);
      return;
    }
    autofillRestarts += 1;
    if (autofillRestarts <= AUTOFILL_RESTARTS) startAutofill();
  });
}

async function signedIn() {
  try {
    await passkeyd.account();
    return true;
  } catch (ignored) {
    return false;
  }
}

/** The consent view: what the app asks for, read from the server (never from this page's query), and Allow or Cancel. */
async function askConsent() {
  const query = authorizationQuery().toString();
  const asked = await fetch("/oauth/consent?" + query, { credentials: "same-origin" });
  const body = await asked.json().catch(() => ({}));
  if (!asked.ok) {
    setView("consent", true);
    say("error", body.message || messages.unknown);
    return;
  }
  $("consent-client").textContent = body.clientName;
  $("consent-username").textContent = body.username;
  $("consent-scopes").textContent = body.scopes.join(", ");
  $("deny").href = authorizeURL([["passkeyd_cancel", "1"]]);
  setView("consent", false);
  $("consent-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    setView("consent", true);
    const allowed = await fetch("/oauth/consent", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ request: query }),
    });
    const answer = await allowed.json().catch(() => ({}));
    if (!allowed.ok || typeof answer.redirect !== "string") {
      setView("consent", false);
      say("error", answer.message || messages.unknown);
      return;
    }
    say("status", "Returning to the app…");
    window.location.assign(answer.redirect);
  });
}

async function init() {
  $("sign-in-form").addEventListener("submit", (event) => {
    event.preventDefault();
    run(() => passkeyd.signIn({ username: $("username").value.trim() || undefined }));
  });
  $("register-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const username = $("register-username").value.trim();
    if (!username) {
      say("error", "Choose a username for your new account.");
      return;
    }
    run(() => passkeyd.register({ username, displayName: $("register-display-name").value.trim() || undefined }));
  });
  $("cancel").href = authorizeURL([["passkeyd_cancel", "1"]]);
  const back = new URLSearchParams(request);
  back.delete("passkeyd_apple_error");
  const apple = new URLSearchParams([["return", authorizeURL()], ["cancel", "/oauth/sign-in?" + back.toString()]]);
  $("apple-sign-in").href = "/auth/apple/start?" + apple.toString();

  if (!request.get("client_id")) {
    setView("sign-in", false);
    for (const id of ["sign-in", "register"]) $(id).disabled = true;
    say("error", "This page is opened by an app's sign-in link; go back to the app and start again.");
    return;
  }
  if (request.has("passkeyd_consent")) {
    await askConsent();
    return;
  }
  // prompt=none: no page may be shown; /oauth/authorize, now reached from this site, answers the app.
  if ((request.get("prompt") || "").split(" ").includes("none")) {
    window.location.assign(authorizeURL());
    return;
  }
  // A person signed in here goes straight through, unless the app asked for a new sign-in.
  const fresh = (request.get("prompt") || "").split(" ").includes("login") || request.has("max_age") || request.has("passkeyd_resume");
  if (!fresh && (await signedIn())) {
    continueToClient();
    return;
  }
  setView("sign-in", false);
  if (request.get("passkeyd_apple_error")) say("error", "Sign in with Apple was cancelled. Sign in another way or try again.");
  startAutofill();
}

init();
