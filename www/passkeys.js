/* passkeyd demo page: passkey sign-up, sign-in (button and autofill) and account management.
 * Plain script (no modules, no build step, no external resources). See README.md. */
(function () {
  "use strict";

  /* ---------- base64url and WebAuthn JSON conversion ---------- */

  // ArrayBuffer / typed array / DataView -> base64url without padding.
  function base64urlEncode(data) {
    var bytes = ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);
    var binary = "";
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  // base64url (padding optional) -> ArrayBuffer. Throws on invalid input.
  function base64urlDecode(text) {
    var b64 = String(text).replace(/-/g, "+").replace(/_/g, "/");
    while (b64.length % 4) b64 += "=";
    var binary = atob(b64);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }

  function isBinary(value) {
    return ArrayBuffer.isView(value) || Object.prototype.toString.call(value) === "[object ArrayBuffer]";
  }

  // Deep copy where every ArrayBuffer/view becomes base64url (for extension outputs such as prf).
  function binaryToJSON(value) {
    if (isBinary(value)) return base64urlEncode(value);
    if (Array.isArray(value)) return value.map(binaryToJSON);
    if (value && typeof value === "object") {
      var out = {};
      Object.keys(value).forEach(function (k) { out[k] = binaryToJSON(value[k]); });
      return out;
    }
    return value;
  }

  function descriptorsFromJSON(list) {
    return (list || []).map(function (d) {
      var copy = Object.assign({}, d);
      copy.id = base64urlDecode(d.id);
      return copy;
    });
  }

  function creationOptionsFromJSON(json) {
    var PKC = typeof PublicKeyCredential !== "undefined" ? PublicKeyCredential : null;
    if (PKC && typeof PKC.parseCreationOptionsFromJSON === "function") {
      try { return PKC.parseCreationOptionsFromJSON(json); } catch (e) { /* use the fallback */ }
    }
    var options = Object.assign({}, json);
    options.challenge = base64urlDecode(json.challenge);
    options.user = Object.assign({}, json.user, { id: base64urlDecode(json.user.id) });
    if (json.excludeCredentials) options.excludeCredentials = descriptorsFromJSON(json.excludeCredentials);
    return options;
  }

  function requestOptionsFromJSON(json) {
    var PKC = typeof PublicKeyCredential !== "undefined" ? PublicKeyCredential : null;
    if (PKC && typeof PKC.parseRequestOptionsFromJSON === "function") {
      try { return PKC.parseRequestOptionsFromJSON(json); } catch (e) { /* use the fallback */ }
    }
    var options = Object.assign({}, json);
    options.challenge = base64urlDecode(json.challenge);
    if (json.allowCredentials) options.allowCredentials = descriptorsFromJSON(json.allowCredentials);
    return options;
  }

  // PublicKeyCredential -> RegistrationResponseJSON / AuthenticationResponseJSON.
  function credentialToJSON(cred) {
    if (typeof cred.toJSON === "function") {
      try { return cred.toJSON(); } catch (e) { /* use the fallback */ }
    }
    var r = cred.response;
    var response = { clientDataJSON: base64urlEncode(r.clientDataJSON) };
    if (r.attestationObject) {
      // Registration (AuthenticatorAttestationResponse).
      response.attestationObject = base64urlEncode(r.attestationObject);
      response.transports = typeof r.getTransports === "function" ? r.getTransports() : [];
      if (typeof r.getAuthenticatorData === "function") response.authenticatorData = base64urlEncode(r.getAuthenticatorData());
      if (typeof r.getPublicKey === "function") {
        var publicKey = r.getPublicKey();
        if (publicKey) response.publicKey = base64urlEncode(publicKey);
      }
      if (typeof r.getPublicKeyAlgorithm === "function") response.publicKeyAlgorithm = r.getPublicKeyAlgorithm();
    } else {
      // Authentication (AuthenticatorAssertionResponse).
      response.authenticatorData = base64urlEncode(r.authenticatorData);
      response.signature = base64urlEncode(r.signature);
      if (r.userHandle && r.userHandle.byteLength) response.userHandle = base64urlEncode(r.userHandle);
    }
    var json = {
      id: cred.id,
      rawId: base64urlEncode(cred.rawId),
      type: cred.type,
      response: response,
      clientExtensionResults: typeof cred.getClientExtensionResults === "function"
        ? binaryToJSON(cred.getClientExtensionResults()) : {}
    };
    if (cred.authenticatorAttachment) json.authenticatorAttachment = cred.authenticatorAttachment;
    return json;
  }

  var helpers = {
    base64urlEncode: base64urlEncode,
    base64urlDecode: base64urlDecode,
    creationOptionsFromJSON: creationOptionsFromJSON,
    requestOptionsFromJSON: requestOptionsFromJSON,
    credentialToJSON: credentialToJSON
  };

  // Under Node (unit tests of the helpers) export them and stop here.
  if (typeof document === "undefined") {
    if (typeof module === "object" && module.exports) module.exports = helpers;
    return;
  }

  /* ---------- server API ---------- */

  function ServerError(status, code, message) {
    this.name = "ServerError";
    this.status = status;
    this.code = code || "";
    this.serverMessage = message || "";
  }

  function NetworkError() { this.name = "NetworkError"; }

  function api(method, path, body, signal) {
    var init = {
      method: method,
      credentials: "same-origin",
      cache: "no-store",
      headers: { "Accept": "application/json" }
    };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    if (signal) init.signal = signal;
    return fetch(path, init).then(function (res) {
      return res.text().then(function (text) {
        var data = null;
        if (text) { try { data = JSON.parse(text); } catch (e) { data = null; } }
        if (!res.ok) {
          throw new ServerError(res.status, data && data.error, data && data.message);
        }
        return data;
      }, function () {
        if (!res.ok) throw new ServerError(res.status, "", "");
        return null;
      });
    }, function (err) {
      if (err && err.name === "AbortError") throw err;
      throw new NetworkError();
    });
  }

  /* ---------- messages ---------- */

  var SERVER_CODES = {
    username_taken: "That username is taken.",
    credential_unknown: "This passkey is no longer registered here.",
    unknown_credential: "This passkey is no longer registered here.",
    last_credential: "You can't delete your only passkey.",
    challenge_expired: "The sign-in took too long; please try again.",
    user_verification_required: "Your authenticator must verify you (PIN or biometrics).",
    rate_limited: "Too many attempts; wait a moment.",
    not_signed_in: "You're not signed in (your session may have ended). Please sign in again."
  };

  // Returns a human sentence for an error, or null when the error should stay quiet.
  function describeError(err, ceremony) {
    var name = err && err.name;
    if (name === "AbortError") return null;
    if (name === "NetworkError") return "Can't reach the server.";
    if (name === "SessionError") return "The server accepted the passkey, but this browser didn't keep the session. Check that cookies are allowed.";
    if (name === "ServerError") {
      if (SERVER_CODES[err.code]) return SERVER_CODES[err.code];
      if (err.serverMessage) return err.serverMessage;
      return err.status >= 500
        ? "The server had a problem (HTTP " + err.status + "). Please try again."
        : "The server refused the request (HTTP " + err.status + ").";
    }
    if (name === "NotAllowedError") return "The passkey request was cancelled or timed out.";
    if (name === "InvalidStateError" && ceremony === "create") return "This authenticator already holds a passkey for this account.";
    if (name === "SecurityError") return "This page's address doesn't match the passkey's site.";
    if (name === "NotSupportedError") return "This authenticator doesn't support the kind of passkey this site asks for.";
    if (name === "ConstraintError") return "Your authenticator can't meet this site's requirements (for example verifying you).";
    return "Something went wrong. Please try again.";
  }

  var $ = function (id) { return document.getElementById(id); };
  var els = {};

  var pendingText = {};

  function setText(node, text) {
    // Clear first, then set on the next tick, so that repeating the same sentence is announced again.
    clearTimeout(pendingText[node.id]);
    node.textContent = "";
    if (text) {
      pendingText[node.id] = setTimeout(function () { node.textContent = text; }, 0);
    }
  }

  function showStatus(text) { setText(els.error, ""); setText(els.status, text); }
  function showError(text) { setText(els.status, ""); setText(els.error, text); }
  function clearMessages() { setText(els.status, ""); setText(els.error, ""); }

  function reportError(err, ceremony) {
    if (err && err.name !== "AbortError" && typeof console !== "undefined") console.warn("passkeyd:", err);
    if (err && err.name === "ServerError" && err.status === 401 && state.view === "account") {
      // The session ended (expired, or signed out elsewhere): back to the signed-out view.
      state.me = null;
      setView("signed-out");
    }
    var text = describeError(err, ceremony);
    if (text) showError(text);
    return text;
  }

  /* ---------- state and views ---------- */

  var state = {
    view: "loading",
    busy: false,
    supported: typeof window.PublicKeyCredential === "function" || typeof window.PublicKeyCredential === "object",
    me: null,                 // last GET /me answer when signed in
    conditional: null,        // { controller, promise } of a pending autofill request
    conditionalAvailable: null,
    conditionalFailures: 0,
    autofillEnabled: !/[?&]autofill=(off|0|false)\b/.test(window.location.search),
    ceremonyOptions: ceremonyOptionsFromURL(window.location.search)
  };

  // Optional ceremony knobs from the URL, for tests and experiments (see README.md):
  // ?attestation=none|indirect|direct|enterprise is copied into the creation options before create();
  // ?uv=required|preferred|discouraged is sent as "userVerification" with every options request;
  // ?residentKey=required|preferred|discouraged is sent with registration options requests.
  // Unknown values are ignored; without them the server's defaults apply.
  function ceremonyOptionsFromURL(search) {
    var params = new URLSearchParams(search || "");
    function pick(name, allowed) {
      var value = params.get(name);
      return allowed.indexOf(value) >= 0 ? value : null;
    }
    return {
      attestation: pick("attestation", ["none", "indirect", "direct", "enterprise"]),
      userVerification: pick("uv", ["required", "preferred", "discouraged"]),
      residentKey: pick("residentKey", ["required", "preferred", "discouraged"])
    };
  }

  // Adds the URL's knobs to an options request body.
  function withCeremonyOptions(body, registration) {
    var knobs = state.ceremonyOptions;
    var out = Object.assign({}, body);
    if (knobs.userVerification) out.userVerification = knobs.userVerification;
    if (registration && knobs.residentKey) out.residentKey = knobs.residentKey;
    return out;
  }

  var CEREMONY_BUTTONS = ["register", "sign-in", "add-passkey"];

  function setView(view) {
    state.view = view;
    els.app.setAttribute("data-view", view);
    els.loading.hidden = view !== "loading";
    els.signedOut.hidden = view !== "signed-out";
    els.account.hidden = view !== "account";
  }

  function refreshButtons() {
    var buttons = els.app.querySelectorAll("button");
    for (var i = 0; i < buttons.length; i++) {
      var b = buttons[i];
      b.disabled = state.busy || (!state.supported && CEREMONY_BUTTONS.indexOf(b.id) >= 0);
    }
  }

  function setBusy(busy) {
    state.busy = busy;
    els.app.setAttribute("data-busy", busy ? "true" : "false");
    els.app.setAttribute("aria-busy", busy ? "true" : "false");
    refreshButtons();
  }

  // Runs one user action at a time; buttons are disabled meanwhile.
  function runAction(fn) {
    if (state.busy) return Promise.resolve();
    clearMessages();
    setBusy(true);
    return Promise.resolve().then(fn).then(function () {
      setBusy(false);
    }, function (err) {
      setBusy(false);
      reportError(err);
    });
  }

  function setAutofillState(value) { els.app.setAttribute("data-autofill", value); }

  /* ---------- Signal API (WebAuthn Level 3), never required ---------- */

  function callSignal(method, args) {
    var PKC = window.PublicKeyCredential;
    if (!PKC || typeof PKC[method] !== "function") return;
    try {
      var p = PKC[method](args);
      if (p && typeof p.catch === "function") p.catch(function () { /* ignore */ });
    } catch (e) { /* ignore */ }
  }

  function signalAccountState(me, credentialIds) {
    if (!me || !me.rpId || !me.user || !me.user.id) return;
    callSignal("signalAllAcceptedCredentials", {
      rpId: me.rpId,
      userId: me.user.id,
      allAcceptedCredentialIds: credentialIds
    });
    callSignal("signalCurrentUserDetails", {
      rpId: me.rpId,
      userId: me.user.id,
      name: me.user.username,
      displayName: me.user.displayName || me.user.username
    });
  }

  /* ---------- account view ---------- */

  function formatDate(iso) {
    if (!iso) return "";
    var d = new Date(iso);
    if (isNaN(d.getTime())) return "unknown";
    try {
      return new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(d);
    } catch (e) {
      return d.toLocaleString();
    }
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function button(id, cls, label, action) {
    var b = el("button", { id: id, type: "button", "class": "btn " + cls, "data-action": action }, label);
    b.disabled = state.busy;
    return b;
  }

  function passkeyLabel(pk) {
    return pk.name || pk.authenticatorName || "Passkey";
  }

  function renderPasskey(pk) {
    var id = pk.id;
    var li = el("li", { "class": "passkey", "data-credential-id": id });

    var head = el("div", { "class": "passkey-head" });
    head.appendChild(el("span", { "class": "passkey-name", id: "passkey-name-" + id }, passkeyLabel(pk)));
    var backup = pk.backupState ? "Backed up"
      : (pk.backupEligible ? "Not backed up yet" : "This device only");
    head.appendChild(el("span", {
      "class": "badge " + (pk.backupState ? "badge-ok" : "badge-plain"),
      "data-backup-state": pk.backupState ? "true" : "false"
    }, backup));
    li.appendChild(head);

    var meta = "Created " + formatDate(pk.createdAt) + " · "
      + (pk.lastUsedAt ? "last used " + formatDate(pk.lastUsedAt) : "never used to sign in");
    if (pk.authenticatorName && pk.authenticatorName !== passkeyLabel(pk)) meta += " · " + pk.authenticatorName;
    li.appendChild(el("p", { "class": "passkey-meta" }, meta));

    if (pk.cloneWarning) {
      li.appendChild(el("p", { "class": "note note-warn", "data-note": "clone-warning" },
        "Its signature counter went backwards, so it may have been copied. If you don't recognise this, delete it."));
    }
    if (pk.backupEligibilityChanged) {
      li.appendChild(el("p", { "class": "note note-warn", "data-note": "backup-eligibility-changed" },
        "Its backup eligibility changed since it was created, which shouldn't happen. Consider replacing it."));
    }

    // Normal row actions.
    var actions = el("div", { "class": "actions actions-small" });
    var renameBtn = button("rename-" + id, "btn-secondary btn-small", "Rename", "rename");
    var deleteBtn = button("delete-" + id, "btn-danger btn-small", "Delete", "delete");
    actions.appendChild(renameBtn);
    actions.appendChild(deleteBtn);
    li.appendChild(actions);

    // Inline rename form.
    var form = el("form", { "class": "rename-form", id: "rename-form-" + id, novalidate: "" });
    form.hidden = true;
    var labelEl = el("label", { "for": "rename-input-" + id, "class": "visually-hidden" }, "New name for this passkey");
    var input = el("input", { id: "rename-input-" + id, type: "text", maxlength: "64", autocomplete: "off" });
    var saveBtn = el("button", { id: "rename-save-" + id, type: "submit", "class": "btn btn-primary btn-small", "data-action": "rename-save" }, "Save");
    var cancelBtn = button("rename-cancel-" + id, "btn-secondary btn-small", "Cancel", "rename-cancel");
    saveBtn.disabled = state.busy;
    form.appendChild(labelEl);
    form.appendChild(input);
    form.appendChild(saveBtn);
    form.appendChild(cancelBtn);
    li.appendChild(form);

    // Inline delete confirmation.
    var confirm = el("div", { "class": "confirm", id: "delete-confirmation-" + id });
    confirm.hidden = true;
    confirm.appendChild(el("p", null, "Are you sure? Delete this passkey from your account?"));
    var confirmActions = el("div", { "class": "actions actions-small" });
    var yesBtn = button("delete-confirm-" + id, "btn-danger btn-small", "Yes, delete", "delete-confirm");
    var noBtn = button("delete-cancel-" + id, "btn-secondary btn-small", "Cancel", "delete-cancel");
    confirmActions.appendChild(yesBtn);
    confirmActions.appendChild(noBtn);
    confirm.appendChild(confirmActions);
    li.appendChild(confirm);

    function showRow() { actions.hidden = false; form.hidden = true; confirm.hidden = true; }

    renameBtn.addEventListener("click", function () {
      actions.hidden = true;
      input.value = pk.name || "";
      form.hidden = false;
      input.focus();
      input.select();
    });
    cancelBtn.addEventListener("click", function () { showRow(); renameBtn.focus(); });
    input.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { e.preventDefault(); showRow(); renameBtn.focus(); }
    });
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var name = input.value.trim();
      if (!name) { showError("Enter a name for the passkey."); input.focus(); return; }
      runAction(function () {
        return api("PATCH", "/me/passkeys/" + encodeURIComponent(id), { name: name })
          .then(loadAccount)
          .then(function (signedIn) { if (signedIn) showStatus("Passkey renamed."); });
      });
    });

    deleteBtn.addEventListener("click", function () {
      actions.hidden = true;
      confirm.hidden = false;
      noBtn.focus();
    });
    noBtn.addEventListener("click", function () { showRow(); deleteBtn.focus(); });
    yesBtn.addEventListener("click", function () {
      runAction(function () {
        return api("DELETE", "/me/passkeys/" + encodeURIComponent(id))
          .then(loadAccount, function (err) { showRow(); throw err; })
          .then(function (signedIn) { if (signedIn) showStatus("Passkey deleted."); });
      });
    });

    return li;
  }

  function renderAccount(me) {
    var user = me.user || {};
    els.accountName.textContent = user.username || "";
    els.accountDisplayName.textContent = user.displayName || user.username || "";
    els.deleteAccountConfirmation.hidden = true;
    els.deleteAccount.hidden = false;
    var list = els.passkeyList;
    while (list.firstChild) list.removeChild(list.firstChild);
    var passkeys = me.passkeys || [];
    if (!passkeys.length) {
      list.appendChild(el("li", { "class": "passkey-empty" }, "No passkeys yet."));
    }
    passkeys.forEach(function (pk) { list.appendChild(renderPasskey(pk)); });
  }

  // GET /me and show the matching view. Resolves true when signed in, false when signed out.
  function loadAccount() {
    return api("GET", "/me").then(function (me) {
      state.me = me;
      stopConditional();
      renderAccount(me || {});
      setView("account");
      refreshButtons();
      signalAccountState(me, (me && me.passkeys || []).map(function (pk) { return pk.id; }));
      return true;
    }, function (err) {
      if (err && err.name === "ServerError" && err.status === 401) {
        var wasSignedIn = state.view === "account";
        state.me = null;
        setView("signed-out");
        if (wasSignedIn) showError(SERVER_CODES.not_signed_in);
        return false;
      }
      throw err;
    });
  }

  /* ---------- autofill (conditional mediation) ---------- */

  function conditionalAvailable() {
    if (state.conditionalAvailable !== null) return Promise.resolve(state.conditionalAvailable);
    var PKC = window.PublicKeyCredential;
    if (!state.supported || !state.autofillEnabled || !PKC || typeof PKC.isConditionalMediationAvailable !== "function") {
      state.conditionalAvailable = false;
      return Promise.resolve(false);
    }
    return PKC.isConditionalMediationAvailable().then(function (ok) {
      state.conditionalAvailable = ok === true;
      return state.conditionalAvailable;
    }, function () {
      state.conditionalAvailable = false;
      return false;
    });
  }

  // Abort a pending autofill request. The returned promise settles once the browser has let go of it.
  function stopConditional() {
    var pending = state.conditional;
    if (!pending) return Promise.resolve();
    state.conditional = null;
    pending.controller.abort();
    setAutofillState("idle");
    var settled = pending.promise.then(function () {}, function () {});
    var timeout = new Promise(function (resolve) { setTimeout(resolve, 1000); });
    return Promise.race([settled, timeout]);
  }

  function startConditional() {
    if (state.conditional || state.view !== "signed-out") return Promise.resolve();
    return conditionalAvailable().then(function (ok) {
      if (!ok) { setAutofillState("unavailable"); return; }
      if (state.conditional || state.view !== "signed-out" || state.busy) return;
      var controller = new AbortController();
      var entry = { controller: controller, promise: null };
      var options = null;
      var gotCredential = false;
      entry.promise = api("POST", "/webauthn/authentication/options", withCeremonyOptions({}, false), controller.signal)
        .then(function (json) {
          options = json;
          if (controller.signal.aborted) throw new DOMException("Aborted", "AbortError");
          setAutofillState("pending");
          return navigator.credentials.get({
            mediation: "conditional",
            publicKey: requestOptionsFromJSON(json),
            signal: controller.signal
          });
        })
        .then(function (cred) {
          if (state.conditional !== entry) throw new DOMException("Aborted", "AbortError");
          if (!cred) throw new DOMException("No credential", "NotAllowedError");
          gotCredential = true;
          state.conditional = null;
          setAutofillState("idle");
          clearMessages();
          setBusy(true);
          return finishAuthentication(cred, options);
        });
      state.conditional = entry;
      entry.promise.then(function () {
        setBusy(false);
        state.conditionalFailures = 0;
        showStatus("Signed in.");
      }, function (err) {
        if (state.conditional === entry) state.conditional = null;
        if (gotCredential) setBusy(false);
        if (err && err.name === "AbortError") return;
        setAutofillState("idle");
        // A conditional request that times out or is dismissed stays quiet; other failures are reported.
        if (!(err && err.name === "NotAllowedError" && !gotCredential)) reportError(err, "get");
        // Restart, but only after failures of a real attempt and never in a tight loop.
        if (gotCredential || (err && err.name === "NotAllowedError")) restartConditionalAfterFailure();
      });
      return undefined;
    });
  }

  function restartConditionalAfterFailure() {
    if (state.view !== "signed-out") return;
    state.conditionalFailures += 1;
    if (state.conditionalFailures > 3) return;
    startConditional();
  }

  /* ---------- ceremonies ---------- */

  function finishAuthentication(cred, optionsJSON) {
    return api("POST", "/webauthn/authentication/verify", credentialToJSON(cred)).then(null, function (err) {
      if (err && err.name === "ServerError" && (err.status === 404 || err.status === 400)
          && (err.code === "credential_unknown" || err.code === "unknown_credential")) {
        callSignal("signalUnknownCredential", {
          rpId: (optionsJSON && optionsJSON.rpId) || (state.me && state.me.rpId) || window.location.hostname,
          credentialId: cred.id
        });
      }
      throw err;
    }).then(loadAccount).then(requireSession);
  }

  // Wraps a modal ceremony: aborts autofill first, restarts it after a failure on the signed-out view.
  function ceremony(kind, fn) {
    if (state.busy) return;
    clearMessages();
    setBusy(true);
    stopConditional().then(fn).then(function (message) {
      setBusy(false);
      state.conditionalFailures = 0;
      if (message) showStatus(message);
    }, function (err) {
      setBusy(false);
      reportError(err, kind);
      if (state.view === "signed-out") {
        state.conditionalFailures = 0;
        startConditional();
      }
    });
  }

  function register() {
    var username = els.username.value.trim();
    var displayName = els.displayName.value.trim() || username;
    if (!username) {
      showError("Choose a username first.");
      els.username.focus();
      return;
    }
    ceremony("create", function () {
      return api("POST", "/webauthn/registration/options",
        withCeremonyOptions({ username: username, displayName: displayName }, true))
        .then(createAndVerify)
        .then(function () { return "Your account is ready and you're signed in with your new passkey."; });
    });
  }

  function addPasskey() {
    ceremony("create", function () {
      return api("POST", "/webauthn/registration/options", withCeremonyOptions({}, true))
        .then(createAndVerify)
        .then(function () { return "Passkey added."; });
    });
  }

  // After a successful verify the server must have set the session cookie, so GET /me must answer 200.
  function requireSession(signedIn) {
    if (!signedIn) throw { name: "SessionError" };
    return true;
  }

  function createAndVerify(json) {
    if (state.ceremonyOptions.attestation) json = Object.assign({}, json, { attestation: state.ceremonyOptions.attestation });
    return navigator.credentials.create({ publicKey: creationOptionsFromJSON(json) })
      .then(function (cred) {
        if (!cred) throw new DOMException("No credential", "NotAllowedError");
        return api("POST", "/webauthn/registration/verify", credentialToJSON(cred));
      })
      .then(loadAccount)
      .then(requireSession);
  }

  function signIn() {
    var username = els.username.value.trim();
    ceremony("get", function () {
      var options;
      return api("POST", "/webauthn/authentication/options",
        withCeremonyOptions(username ? { username: username } : {}, false))
        .then(function (json) {
          options = json;
          return navigator.credentials.get({ publicKey: requestOptionsFromJSON(json) });
        })
        .then(function (cred) {
          if (!cred) throw new DOMException("No credential", "NotAllowedError");
          return finishAuthentication(cred, options);
        })
        .then(function () { return "Signed in."; });
    });
  }

  function signOut() {
    runAction(function () {
      return api("POST", "/logout", {}).then(function () {
        state.me = null;
        setView("signed-out");
        showStatus("You're signed out.");
        // Autofill is not restarted here (it starts on page load and after failures).
      });
    });
  }

  function deleteAccount() {
    var me = state.me;
    runAction(function () {
      return api("DELETE", "/me").then(function () {
        // Tell the authenticator that no passkey of this user is accepted any more.
        if (me) signalAccountState({ rpId: me.rpId, user: me.user }, []);
        state.me = null;
        els.deleteAccountConfirmation.hidden = true;
        els.deleteAccount.hidden = false;
        setView("signed-out");
        showStatus("Your account was deleted.");
      });
    });
  }

  /* ---------- start-up ---------- */

  function init() {
    els.app = $("app");
    els.status = $("status");
    els.error = $("error");
    els.loading = $("loading");
    els.signedOut = $("signed-out");
    els.account = $("account");
    els.username = $("username");
    els.displayName = $("display-name");
    els.accountName = $("account-name");
    els.accountDisplayName = $("account-display-name");
    els.passkeyList = $("passkey-list");
    els.deleteAccount = $("delete-account");
    els.deleteAccountConfirmation = $("delete-account-confirmation");

    $("auth-form").addEventListener("submit", function (e) { e.preventDefault(); });
    $("register").addEventListener("click", register);
    $("sign-in").addEventListener("click", signIn);
    $("add-passkey").addEventListener("click", addPasskey);
    $("sign-out").addEventListener("click", signOut);
    els.deleteAccount.addEventListener("click", function () {
      els.deleteAccount.hidden = true;
      els.deleteAccountConfirmation.hidden = false;
      $("delete-account-cancel").focus();
    });
    $("delete-account-cancel").addEventListener("click", function () {
      els.deleteAccountConfirmation.hidden = true;
      els.deleteAccount.hidden = false;
      els.deleteAccount.focus();
    });
    $("delete-account-confirm").addEventListener("click", deleteAccount);

    if (!state.supported) {
      setAutofillState("unavailable");
      showError(window.isSecureContext === false
        ? "Passkeys need a secure page (https or localhost)."
        : "This browser doesn't support passkeys.");
    }
    refreshButtons();

    setBusy(true);
    loadAccount().then(function (signedIn) {
      setBusy(false);
      if (!signedIn) startConditional();
    }, function (err) {
      setBusy(false);
      setView("signed-out");
      if (state.supported) reportError(err); // otherwise keep the "doesn't support passkeys" sentence
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
