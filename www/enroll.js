// The page of enrollment links (`/enroll?token=…`): registers a passkey on the link's account through
// POST /webauthn/registration/options {"enrollmentToken"} and /verify, which take the link and sign in.
// Self-contained on purpose (no shared module yet); it uses the browser's WebAuthn JSON methods.
(function () {
  "use strict";

  var $ = function (id) { return document.getElementById(id); };
  var PKC = window.PublicKeyCredential;
  var token = new URLSearchParams(window.location.search).get("token") || "";
  // The token stays in memory only: it is not left in the history or the address bar.
  if (window.history && window.history.replaceState) window.history.replaceState(null, "", window.location.pathname);

  function say(kind, text) {
    $("status").textContent = kind === "status" ? text : "";
    $("error").textContent = kind === "error" ? text : "";
  }

  function post(path, body) {
    return fetch(path, {
      method: "POST",
      credentials: "same-origin",
      cache: "no-store",
      headers: { "Accept": "application/json", "Content-Type": "application/json" },
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
    $("enroll-create").disabled = busy;
  }

  function enroll() {
    setBusy(true);
    say("status", "");
    post("/webauthn/registration/options", { enrollmentToken: token })
      .then(function (options) {
        return navigator.credentials.create({ publicKey: PKC.parseCreationOptionsFromJSON(options) });
      })
      .then(function (credential) {
        if (!credential) throw { name: "NotAllowedError" };
        return post("/webauthn/registration/verify", credential.toJSON());
      })
      .then(function (answer) {
        setBusy(false);
        $("enrolled-name").textContent = (answer && answer.user && (answer.user.displayName || answer.user.username)) || "";
        $("enroll").hidden = true;
        $("enrolled").hidden = false;
        $("app").setAttribute("data-view", "enrolled");
        say("status", "Your new passkey was added and you're signed in.");
      }, function (err) {
        setBusy(false);
        say("error", describe(err));
      });
  }

  function init() {
    $("enroll-create").addEventListener("click", enroll);
    if (!token) {
      $("enroll-create").disabled = true;
      say("error", "This link is incomplete: open the whole link you were sent.");
    } else if (!PKC || !PKC.parseCreationOptionsFromJSON || !window.isSecureContext) {
      $("enroll-create").disabled = true;
      say("error", "This browser can't create passkeys here; open the link in a current browser.");
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
