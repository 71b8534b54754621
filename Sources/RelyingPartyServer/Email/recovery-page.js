// The page of a recovery link sent by email (`GET /auth/recovery/email?token=…`, EmailPages.recovery), compiled into
// passkeyd and served at /auth/recovery/email/page.js. Opening the link spends nothing (mail scanners fetch links):
// the button POSTs the token to /auth/recovery/email/session, which spends it and answers a restricted session (a
// bearer token, kept in memory only) that may only add a passkey; the page adds one with it
// (/webauthn/registration/options and /verify), ends that session and the one the registration answers (/logout),
// and sends the person to sign in with the new passkey. Self-contained: the browser's WebAuthn JSON methods, no
// cookies (credentials "omit").
(function () {
  "use strict";

  var $ = function (id) { return document.getElementById(id); };
  var PKC = window.PublicKeyCredential;
  var token = new URLSearchParams(window.location.search).get("token") || "";
  // The link's token stays in memory only: it is not left in the history or the address bar.
  if (window.history && window.history.replaceState) window.history.replaceState(null, "", window.location.pathname);
  // The restricted session, once the link is spent: a retry after a cancelled ceremony reuses it.
  var session = "";

  function say(kind, text) {
    $("status").textContent = kind === "status" ? text : "";
    $("error").textContent = kind === "error" ? text : "";
  }

  // A JSON POST with the restricted session, or with `bearer` when given.
  function post(path, body, bearer) {
    var headers = { "Accept": "application/json", "Content-Type": "application/json" };
    if (bearer || session) headers.Authorization = "Bearer " + (bearer || session);
    return fetch(path, {
      method: "POST",
      credentials: "omit",
      cache: "no-store",
      headers: headers,
      body: JSON.stringify(body)
    }).then(function (res) {
      return res.json().then(null, function () { return null; }).then(function (data) {
        if (!res.ok) throw { name: "ServerError", status: res.status, message: (data && data.message) || "" };
        return data;
      });
    }, function () { throw { name: "NetworkError" }; });
  }

  // A human sentence for an error: the server's client-safe message, or the browser's refusal.
  function describe(err) {
    var name = err && err.name;
    if (name === "ServerError") return err.message || "The server refused the request (HTTP " + err.status + ").";
    if (name === "NetworkError") return "Can't reach the server.";
    if (name === "NotAllowedError") return "The passkey request was cancelled or timed out.";
    if (name === "InvalidStateError") return "This authenticator already holds a passkey for this account.";
    return "Something went wrong. Please try again.";
  }

  function setBusy(busy) {
    $("app").setAttribute("data-busy", busy ? "true" : "false");
    $("recover-create").disabled = busy;
  }

  function openSession() {
    if (session) return Promise.resolve();
    return post("/auth/recovery/email/session", { token: token }).then(function (answer) {
      token = "";
      session = (answer && answer.token) || "";
      if (!session) throw { name: "ServerError", status: 200, message: "" };
    });
  }

  function recover() {
    setBusy(true);
    say("status", "");
    openSession()
      .then(function () { return post("/webauthn/registration/options", {}); })
      .then(function (options) {
        return navigator.credentials.create({ publicKey: PKC.parseCreationOptionsFromJSON(options) });
      })
      .then(function (credential) {
        if (!credential) throw { name: "NotAllowedError" };
        return post("/webauthn/registration/verify", credential.toJSON());
      })
      .then(function (answer) {
        // The restricted session has done its one job, and the session the registration started is not kept (this
        // page holds no cookie): both end here, and the person signs in with the new passkey.
        var started = (answer && answer.token) || "";
        var ignore = function () { return null; };
        return post("/logout", {}).then(ignore, ignore).then(function () {
          return started ? post("/logout", {}, started).then(ignore, ignore) : null;
        });
      })
      .then(function () {
        session = "";
        setBusy(false);
        $("recover").hidden = true;
        $("recovered").hidden = false;
        $("app").setAttribute("data-view", "recovered");
        say("status", "Your new passkey was added. Sign in with it.");
      }, function (err) {
        setBusy(false);
        say("error", describe(err));
        // A link that was refused cannot be retried; a cancelled ceremony can, with the same session.
        if (!session) $("recover-create").disabled = true;
      });
  }

  function init() {
    $("recover-create").addEventListener("click", recover);
    if (!token) {
      say("error", "This link is incomplete: open the whole link you were sent.");
    } else if (!PKC || !PKC.parseCreationOptionsFromJSON || !window.isSecureContext) {
      say("error", "This browser can't create passkeys here; open the link in a current browser.");
    } else {
      $("recover-create").disabled = false;
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
