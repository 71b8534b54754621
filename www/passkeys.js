/* passkeyd demo page: the page's views and messages on top of passkeyd.js (a copy of clients/web/passkeyd.js, the
 * browser client), which runs every ceremony, maps every error and calls the Signal API. See README.md. */
import { createPasskeyd, ErrorCode, messages } from "./passkeyd.js";
import { setUpPasswordSignIn } from "./password.js";

const passkeyd = createPasskeyd();

(function () {
  "use strict";

  /* ---------- messages ---------- */

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

  // Shows the error's sentence (passkeyd.js made it); an aborted ceremony stays quiet.
  function reportError(err) {
    if (err && err.code === ErrorCode.ABORTED) return null;
    if (typeof console !== "undefined") console.warn("passkeyd:", err);
    if (err && err.status === 401 && state.view === "account") {
      // The session ended (expired, or signed out elsewhere): back to the signed-out view.
      state.me = null;
      setView("signed-out");
    }
    var text = (err && err.name === "PasskeydError" && err.message) || messages.unknown;
    showError(text);
    return text;
  }

  /* ---------- state and views ---------- */

  var state = {
    view: "loading",
    busy: false,
    supported: passkeyd.supported(),
    me: null,                 // last GET /me answer when signed in
    autofill: false,          // an autofill request is pending
    conditionalFailures: 0,
    autofillEnabled: !/[?&]autofill=(off|0|false)\b/.test(window.location.search),
    ceremonyOptions: ceremonyOptionsFromURL(window.location.search)
  };

  // Optional ceremony knobs from the URL, for tests and experiments (see README.md):
  // ?attestation=none|indirect|direct|enterprise is asked of the authenticator;
  // ?uv=required|preferred|discouraged is sent as "userVerification" with every options request;
  // ?residentKey=required|preferred|discouraged is sent with registration options requests.
  // Unknown values are ignored; without them the server's defaults apply.
  function ceremonyOptionsFromURL(search) {
    var params = new URLSearchParams(search || "");
    function pick(name, allowed) {
      var value = params.get(name);
      return allowed.indexOf(value) >= 0 ? value : undefined;
    }
    return {
      attestation: pick("attestation", ["none", "indirect", "direct", "enterprise"]),
      userVerification: pick("uv", ["required", "preferred", "discouraged"]),
      residentKey: pick("residentKey", ["required", "preferred", "discouraged"])
    };
  }

  var CEREMONY_BUTTONS = ["register", "sign-in", "add-passkey", "offer-passkey"];

  function setView(view) {
    state.view = view;
    els.app.setAttribute("data-view", view);
    els.loading.hidden = view !== "loading";
    els.signedOut.hidden = view !== "signed-out";
    els.account.hidden = view !== "account";
    if (view !== "account") els.passkeyOffer.hidden = true;
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
        return passkeyd.renamePasskey(id, name)
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
        return passkeyd.deletePasskey(id)
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

  function showAccount(me) {
    state.me = me;
    renderAccount(me || {});
    setView("account");
    refreshButtons();
  }

  // GET /me and show the matching view. Resolves true when signed in, false when signed out.
  function loadAccount() {
    return passkeyd.account().then(function (me) {
      showAccount(me);
      return true;
    }, function (err) {
      if (err && err.status === 401) {
        var wasSignedIn = state.view === "account";
        state.me = null;
        setView("signed-out");
        if (wasSignedIn) showError(messages.not_signed_in);
        return false;
      }
      throw err;
    });
  }

  /* ---------- autofill (conditional mediation) ---------- */

  function startConditional() {
    if (state.autofill || state.view !== "signed-out" || state.busy) return;
    if (!state.supported || !state.autofillEnabled) { setAutofillState("unavailable"); return; }
    var gotCredential = false;
    state.autofill = true;
    passkeyd.signInWithAutofill(els.username, {
      userVerification: state.ceremonyOptions.userVerification,
      onWaiting: function () { setAutofillState("pending"); },
      onCredential: function () {
        gotCredential = true;
        state.autofill = false;
        setAutofillState("idle");
        clearMessages();
        setBusy(true);
      }
    }).then(function (signedIn) {
      state.autofill = false;
      showAccount(signedIn.account);
      setBusy(false);
      state.conditionalFailures = 0;
      showStatus("Signed in.");
    }, function (err) {
      state.autofill = false;
      if (gotCredential) setBusy(false);
      if (err.code === ErrorCode.UNSUPPORTED) { setAutofillState("unavailable"); return; }
      setAutofillState("idle");
      if (err.code === ErrorCode.ABORTED) return;
      // A conditional request that times out or is dismissed stays quiet; other failures are reported.
      var dismissed = !gotCredential && (err.code === ErrorCode.CANCELLED || err.code === ErrorCode.TIMED_OUT);
      if (!dismissed) reportError(err);
      // Restart, but only after failures of a real attempt and never in a tight loop.
      if (gotCredential || dismissed) restartConditionalAfterFailure();
    });
  }

  function restartConditionalAfterFailure() {
    if (state.view !== "signed-out") return;
    state.conditionalFailures += 1;
    if (state.conditionalFailures > 3) return;
    startConditional();
  }

  /* ---------- ceremonies ---------- */

  // Wraps a modal ceremony (passkeyd.js aborts autofill first); restarts autofill after a failure when signed out.
  function ceremony(fn) {
    if (state.busy) return;
    clearMessages();
    setBusy(true);
    Promise.resolve().then(fn).then(function (message) {
      setBusy(false);
      state.conditionalFailures = 0;
      if (message) showStatus(message);
    }, function (err) {
      setBusy(false);
      reportError(err);
      if (state.view === "signed-out") {
        state.conditionalFailures = 0;
        startConditional();
      }
    });
  }

  function registrationOptions(username, displayName) {
    var knobs = state.ceremonyOptions;
    return {
      username: username,
      displayName: displayName,
      userVerification: knobs.userVerification,
      residentKey: knobs.residentKey,
      attestation: knobs.attestation
    };
  }

  function register() {
    var username = els.username.value.trim();
    var displayName = els.displayName.value.trim() || username;
    if (!username) {
      showError("Choose a username first.");
      els.username.focus();
      return;
    }
    ceremony(function () {
      return passkeyd.register(registrationOptions(username, displayName)).then(function (signedIn) {
        showAccount(signedIn.account);
        return "Your account is ready and you're signed in with your new passkey.";
      });
    });
  }

  function addPasskey() {
    ceremony(function () {
      return passkeyd.register(registrationOptions(undefined, undefined)).then(function (signedIn) {
        els.passkeyOffer.hidden = true;
        showAccount(signedIn.account);
        return "Passkey added.";
      });
    });
  }

  function signIn() {
    var username = els.username.value.trim();
    ceremony(function () {
      return passkeyd.signIn({ username: username || undefined, userVerification: state.ceremonyOptions.userVerification })
        .then(function (signedIn) {
          showAccount(signedIn.account);
          return "Signed in.";
        });
    });
  }

  function signOut() {
    runAction(function () {
      return passkeyd.signOut().then(function () {
        state.me = null;
        setView("signed-out");
        showStatus("You're signed out.");
        // Autofill is not restarted here (it starts on page load and after failures).
      });
    });
  }

  function deleteAccount() {
    runAction(function () {
      return passkeyd.deleteAccount().then(function () {
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
    els.passkeyOffer = $("passkey-offer");

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
    setUpPasswordSignIn({
      passkeyd: passkeyd, run: runAction, showAccount: showAccount, showStatus: showStatus, showError: showError,
      addPasskey: addPasskey, isSignedIn: function () { return state.view === "account"; },
      restartAutofill: startConditional
    });

    if (!state.supported) {
      setAutofillState("unavailable");
      showError(window.isSecureContext === false
        ? "Passkeys need a secure page (https or localhost)."
        : messages.unsupported);
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
