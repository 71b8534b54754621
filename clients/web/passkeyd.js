/* passkeyd.js: passkeyd's browser client. One ES module, no build step, no dependency.
 *
 *   import { createPasskeyd } from "./passkeyd.js";
 *   const passkeyd = createPasskeyd();                      // same origin; { baseURL } for another one
 *   await passkeyd.register({ username: "ada", displayName: "Ada Lovelace" });
 *   await passkeyd.signIn();                                // or signInWithAutofill(input)
 *   const passkeys = await passkeyd.listPasskeys();
 *   const { accessToken } = await passkeyd.accessToken();   // a JWT for your own API
 *
 * Every failure is a PasskeydError with a stable `code` (passkeyd's own codes, such as "username_taken", and the
 * browser's, such as "cancelled") and a `message` for people. Types: passkeyd.d.ts. See README.md. */

/** The codes of failures on the browser's side; passkeyd's own codes (README, "Using the API") pass through. */
export const ErrorCode = Object.freeze({
  /** Another ceremony started, or the caller aborted: stay quiet. */
  ABORTED: "aborted",
  /** The person dismissed the prompt, or the browser found no passkey to offer (browsers do not say which). */
  CANCELLED: "cancelled",
  /** The prompt stayed open until the options' timeout. */
  TIMED_OUT: "timed_out",
  /** The browser refused without asking (the page is not focused, or a permissions policy forbids passkeys). */
  NOT_ALLOWED: "not_allowed",
  /** The authenticator already holds a passkey of this account (excludeCredentials). */
  CREDENTIAL_EXCLUDED: "credential_excluded",
  /** The page's origin cannot use this RP ID (the browser's SecurityError), or passkeyd's origin_mismatch. */
  ORIGIN_MISMATCH: "origin_mismatch",
  /** The authenticator supports none of the algorithms, or cannot make a discoverable passkey. */
  NOT_SUPPORTED: "not_supported",
  /** The authenticator cannot meet a requirement (user verification). */
  CONSTRAINT: "constraint",
  /** This browser has no WebAuthn, or the page is not a secure context. */
  UNSUPPORTED: "unsupported",
  /** passkeyd could not be reached. */
  NETWORK: "network",
  /** passkeyd accepted the passkey but the browser did not keep the session cookie. */
  SESSION_NOT_KEPT: "session_not_kept",
  /** Anything else. */
  UNKNOWN: "unknown",
  // passkeyd's codes the messages below name.
  RATE_LIMITED: "rate_limited",
  USERNAME_TAKEN: "username_taken",
  CREDENTIAL_UNKNOWN: "credential_unknown",
  LAST_CREDENTIAL: "last_credential",
  NOT_SIGNED_IN: "not_signed_in",
});

/** Sentences for people, by code. A passkeyd code without one here shows the server's own message. */
export const messages = Object.freeze({
  aborted: "The passkey request was stopped.",
  cancelled: "The passkey request was cancelled or timed out.",
  timed_out: "The passkey request was cancelled or timed out.",
  not_allowed: "The browser didn't allow a passkey request here. Click the page and try again.",
  credential_excluded: "This authenticator already holds a passkey for this account.",
  origin_mismatch: "This page's address doesn't match the passkey's site.",
  not_supported: "This authenticator doesn't support the kind of passkey this site asks for.",
  constraint: "Your authenticator can't meet this site's requirements (for example verifying you).",
  unsupported: "This browser doesn't support passkeys.",
  network: "Can't reach the server.",
  session_not_kept: "The server accepted the passkey, but this browser didn't keep the session. Check that cookies are allowed.",
  unknown: "Something went wrong. Please try again.",
  username_taken: "That username is taken.",
  credential_unknown: "This passkey is no longer registered here.",
  last_credential: "You can't delete your only passkey.",
  challenge_expired: "The sign-in took too long; please try again.",
  user_verification_required: "Your authenticator must verify you (PIN or biometrics).",
  rate_limited: "Too many attempts; wait a moment.",
  not_signed_in: "You're not signed in (your session may have ended). Please sign in again.",
});

/** Every failure of this module. */
export class PasskeydError extends Error {
  constructor(code, message, details) {
    super(message || messages[code] || messages.unknown);
    this.name = "PasskeydError";
    /** The stable code: passkeyd's ("username_taken") or the browser side's (ErrorCode). */
    this.code = code;
    const extra = details || {};
    /** The HTTP status, when passkeyd answered. */
    this.status = extra.status;
    /** passkeyd's `step` (the WebAuthn step that failed), `member` (the request member at fault). */
    this.step = extra.step;
    this.member = extra.member;
    /** `rate_limited`: seconds to wait. */
    this.retryAfter = extra.retryAfter;
    /** The whole error body passkeyd sent (mergeToken, accounts …). */
    this.body = extra.body;
    /** The DOMException or TypeError behind it. */
    this.cause = extra.cause;
  }
}

/* ---------- base64url and the WebAuthn JSON forms ---------- */

/** ArrayBuffer / typed array / DataView → unpadded base64url. */
export function base64urlEncode(data) {
  const bytes = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** base64url (padding optional) → ArrayBuffer. Throws on anything else. */
export function base64urlDecode(text) {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(String(text))) throw new TypeError("not base64url");
  let base64 = String(text).replace(/-/g, "+").replace(/_/g, "/");
  while (base64.length % 4) base64 += "=";
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

function isBinary(value) {
  return ArrayBuffer.isView(value) || Object.prototype.toString.call(value) === "[object ArrayBuffer]";
}

// A deep copy where every ArrayBuffer or view becomes base64url (extension outputs such as prf).
function binaryToJSON(value) {
  if (isBinary(value)) return base64urlEncode(value);
  if (Array.isArray(value)) return value.map(binaryToJSON);
  if (value && typeof value === "object") {
    const out = {};
    for (const key of Object.keys(value)) out[key] = binaryToJSON(value[key]);
    return out;
  }
  return value;
}

function descriptorsFromJSON(list) {
  return (list || []).map((descriptor) => Object.assign({}, descriptor, { id: base64urlDecode(descriptor.id) }));
}

function webAuthn() {
  return typeof PublicKeyCredential === "undefined" ? null : PublicKeyCredential;
}

/** PublicKeyCredentialCreationOptionsJSON → the options `navigator.credentials.create` takes: the browser's
 * `parseCreationOptionsFromJSON` where it exists (and does not throw), else the same conversion by hand. */
export function creationOptionsFromJSON(json) {
  const PKC = webAuthn();
  if (PKC && typeof PKC.parseCreationOptionsFromJSON === "function") {
    try {
      return PKC.parseCreationOptionsFromJSON(json);
    } catch (ignored) {
      /* a browser's parser that refuses a member it does not know: the fallback passes it through */
    }
  }
  const options = Object.assign({}, json);
  options.challenge = base64urlDecode(json.challenge);
  options.user = Object.assign({}, json.user, { id: base64urlDecode(json.user.id) });
  if (json.excludeCredentials) options.excludeCredentials = descriptorsFromJSON(json.excludeCredentials);
  return options;
}

/** PublicKeyCredentialRequestOptionsJSON → the options `navigator.credentials.get` takes. */
export function requestOptionsFromJSON(json) {
  const PKC = webAuthn();
  if (PKC && typeof PKC.parseRequestOptionsFromJSON === "function") {
    try {
      return PKC.parseRequestOptionsFromJSON(json);
    } catch (ignored) {
      /* as above */
    }
  }
  const options = Object.assign({}, json);
  options.challenge = base64urlDecode(json.challenge);
  if (json.allowCredentials) options.allowCredentials = descriptorsFromJSON(json.allowCredentials);
  return options;
}

/** PublicKeyCredential → RegistrationResponseJSON / AuthenticationResponseJSON: `toJSON()` where it exists. */
export function credentialToJSON(credential) {
  if (typeof credential.toJSON === "function") {
    try {
      return credential.toJSON();
    } catch (ignored) {
      /* a browser whose toJSON() throws on an extension output: converted by hand below */
    }
  }
  const r = credential.response;
  const response = { clientDataJSON: base64urlEncode(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = base64urlEncode(r.attestationObject);
    response.transports = typeof r.getTransports === "function" ? r.getTransports() : [];
    if (typeof r.getAuthenticatorData === "function") response.authenticatorData = base64urlEncode(r.getAuthenticatorData());
    if (typeof r.getPublicKey === "function") {
      const publicKey = r.getPublicKey();
      if (publicKey) response.publicKey = base64urlEncode(publicKey);
    }
    if (typeof r.getPublicKeyAlgorithm === "function") response.publicKeyAlgorithm = r.getPublicKeyAlgorithm();
  } else {
    response.authenticatorData = base64urlEncode(r.authenticatorData);
    response.signature = base64urlEncode(r.signature);
    // U2F authenticators return no user handle: left out, as toJSON() does.
    if (r.userHandle && r.userHandle.byteLength) response.userHandle = base64urlEncode(r.userHandle);
  }
  const json = {
    id: credential.id,
    rawId: base64urlEncode(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: typeof credential.getClientExtensionResults === "function" ? binaryToJSON(credential.getClientExtensionResults()) : {},
  };
  if (credential.authenticatorAttachment) json.authenticatorAttachment = credential.authenticatorAttachment;
  return json;
}

/* ---------- errors ---------- */

/** The PasskeydError for anything a ceremony or a request threw. `ceremony` is "create" or "get". */
export function toPasskeydError(error, ceremony, context) {
  if (error instanceof PasskeydError) return error;
  const name = error && error.name;
  const elapsed = context && context.startedAt ? Date.now() - context.startedAt : 0;
  const timeout = context && context.timeout;
  let code = ErrorCode.UNKNOWN;
  if (name === "AbortError") code = ErrorCode.ABORTED;
  else if (name === "NotAllowedError") {
    if (timeout && elapsed >= timeout) code = ErrorCode.TIMED_OUT;
    else if (typeof document !== "undefined" && document.hasFocus && !document.hasFocus()) code = ErrorCode.NOT_ALLOWED;
    else code = ErrorCode.CANCELLED;
  } else if (name === "InvalidStateError" && ceremony === "create") code = ErrorCode.CREDENTIAL_EXCLUDED;
  else if (name === "SecurityError") code = ErrorCode.ORIGIN_MISMATCH;
  else if (name === "NotSupportedError") code = ErrorCode.NOT_SUPPORTED;
  else if (name === "ConstraintError") code = ErrorCode.CONSTRAINT;
  else if (name === "TypeError" && ceremony === "fetch") code = ErrorCode.NETWORK;
  return new PasskeydError(code, null, { cause: error });
}

function serverError(status, body, retryAfter) {
  const code = body && typeof body.error === "string" ? body.error : ErrorCode.UNKNOWN;
  // The module's sentence for the codes it names, else passkeyd's own (always client-safe).
  const text = messages[code] || (body && body.message) ||
    (status >= 500 ? `The server had a problem (HTTP ${status}). Please try again.` : `The server refused the request (HTTP ${status}).`);
  return new PasskeydError(code, text, {
    status,
    step: body && body.step,
    member: body && body.member,
    retryAfter: retryAfter ? Number(retryAfter) : undefined,
    body: body || undefined,
  });
}

/* ---------- the Signal API (WebAuthn Level 3), used where the browser has it ---------- */

function signal(method, argument) {
  const PKC = webAuthn();
  if (!PKC || typeof PKC[method] !== "function") return;
  try {
    const promise = PKC[method](argument);
    if (promise && typeof promise.catch === "function") promise.catch(() => {});
  } catch (ignored) {
    /* a signal is never required */
  }
}

/** Tells the browser's passkey providers which passkeys of the account are accepted, and its current names. */
export function signalAccount(account, acceptedCredentialIds) {
  if (!account || !account.rpId || !account.user || !account.user.id) return;
  const ids = acceptedCredentialIds || (account.passkeys || []).map((passkey) => passkey.id);
  signal("signalAllAcceptedCredentials", { rpId: account.rpId, userId: account.user.id, allAcceptedCredentialIds: ids });
  signal("signalCurrentUserDetails", {
    rpId: account.rpId,
    userId: account.user.id,
    name: account.user.username,
    displayName: account.user.displayName || account.user.username,
  });
}

/* ---------- the client ---------- */

/**
 * A client of one passkeyd server.
 * @param {object} [settings]
 * @param {string} [settings.baseURL] passkeyd's origin when it is not the page's ("https://auth.example.com"); its
 *   `cors.allowedOrigins` must then list the page's origin.
 * @param {typeof fetch} [settings.fetch] the fetch to use (tests).
 */
export function createPasskeyd(settings) {
  const config = settings || {};
  const baseURL = (config.baseURL || "").replace(/\/+$/, "");
  const doFetch = config.fetch || ((...args) => fetch(...args));
  const crossOrigin = baseURL !== "" && (typeof location === "undefined" || new URL(baseURL).origin !== location.origin);
  // The one ceremony in progress (autofill or modal): a new one aborts it first.
  let pending = null;
  // A restricted session's token (a password sign-in under `passwords.session: "upgradeOnly"`): such a session has no
  // cookie, so every call carries it until a full sign-in or the sign-out; it is kept in memory only.
  let restrictedToken = null;

  async function request(method, path, body, signal) {
    const init = {
      method,
      credentials: crossOrigin ? "include" : "same-origin",
      cache: "no-store",
      headers: { Accept: "application/json" },
    };
    if (restrictedToken) init.headers.Authorization = "Bearer " + restrictedToken;
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    if (signal) init.signal = signal;
    let response;
    try {
      response = await doFetch(baseURL + path, init);
    } catch (error) {
      throw toPasskeydError(error, error && error.name === "AbortError" ? "get" : "fetch");
    }
    let data = null;
    try {
      const text = await response.text();
      data = text ? JSON.parse(text) : null;
    } catch (ignored) {
      data = null;
    }
    if (!response.ok) throw serverError(response.status, data, response.headers.get("Retry-After"));
    return data;
  }

  function supported() {
    return webAuthn() !== null && typeof navigator !== "undefined" && !!navigator.credentials;
  }

  function requireSupport() {
    if (!supported()) throw new PasskeydError(ErrorCode.UNSUPPORTED);
  }

  // Aborts the ceremony in progress and resolves once the browser has let go of it (at most a second).
  async function abortPending() {
    const current = pending;
    if (!current) return;
    pending = null;
    current.controller.abort();
    const settled = current.promise.then(() => {}, () => {});
    await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 1000))]);
  }

  // Runs one ceremony: aborts any other first, maps every failure to a PasskeydError.
  async function ceremony(kind, body) {
    await abortPending();
    const controller = new AbortController();
    const entry = { controller, promise: null };
    const context = { startedAt: 0, timeout: 0 };
    entry.promise = (async () => {
      try {
        return await body(controller.signal, context);
      } catch (error) {
        throw toPasskeydError(error, kind, context);
      } finally {
        if (pending === entry) pending = null;
      }
    })();
    pending = entry;
    return entry.promise;
  }

  // After a sign-in: the account (which proves the browser kept the session), and the signals.
  async function afterSignIn(answer) {
    // A full session (its cookie) replaces a restricted one; a restricted one is carried by its token.
    restrictedToken = answer && answer.restricted === true && answer.token ? answer.token : null;
    let account;
    try {
      account = await request("GET", "/me");
    } catch (error) {
      if (error.code === ErrorCode.NOT_SIGNED_IN) throw new PasskeydError(ErrorCode.SESSION_NOT_KEPT);
      throw error;
    }
    signalAccount(account);
    return Object.assign({}, answer, { account });
  }

  // Whether passkeyd does not have the passkey the authenticator answered with. It answers an unknown passkey as it
  // answers any failed assertion (no account enumeration): in a username-less sign-in the genuine authenticator's
  // user handle then does not match, which never happens for a passkey passkeyd has.
  function isUnknownCredential(error, options) {
    if (error.code === ErrorCode.CREDENTIAL_UNKNOWN) return true;
    const discoverable = !(options && options.allowCredentials && options.allowCredentials.length);
    return discoverable && error.code === "verification_failed" && error.step === "credential.userHandleMismatch";
  }

  async function verifyAssertion(credential, options) {
    try {
      return await afterSignIn(await request("POST", "/webauthn/authentication/verify", credentialToJSON(credential)));
    } catch (error) {
      if (isUnknownCredential(error, options)) {
        signal("signalUnknownCredential", { rpId: options.rpId, credentialId: credential.id });
        throw new PasskeydError(ErrorCode.CREDENTIAL_UNKNOWN, undefined, {
          status: error.status, step: error.step, member: error.member, body: error.body, cause: error,
        });
      }
      throw error;
    }
  }

  async function refreshSignals() {
    signalAccount(await request("GET", "/me"));
  }

  // Whether the browser can create a passkey without a prompt (WebAuthn L3 getClientCapabilities: conditionalCreate).
  async function isConditionalCreateAvailable() {
    const PKC = webAuthn();
    if (!supported() || typeof PKC.getClientCapabilities !== "function") return false;
    try {
      return (await PKC.getClientCapabilities()).conditionalCreate === true;
    } catch (ignored) {
      return false;
    }
  }

  async function isAutofillAvailable() {
    const PKC = webAuthn();
    if (!supported() || typeof PKC.isConditionalMediationAvailable !== "function") return false;
    try {
      return (await PKC.isConditionalMediationAvailable()) === true;
    } catch (ignored) {
      return false;
    }
  }

  return {
    /** Whether this browser can run passkey ceremonies. */
    supported,

    /** Whether autofill (conditional mediation) is available. */
    isAutofillAvailable,

    /** A new account with a passkey, or (signed in, without username) a passkey for this account. */
    register(options) {
      const input = options || {};
      return ceremony("create", async (abortSignal, context) => {
        requireSupport();
        const body = {};
        for (const key of ["username", "displayName", "residentKey", "userVerification", "hints"]) {
          if (input[key] !== undefined && input[key] !== "") body[key] = input[key];
        }
        let json = await request("POST", "/webauthn/registration/options", body, abortSignal);
        // A demo and test knob: the conveyance to ask the authenticator for (the server decides what it accepts).
        if (input.attestation) json = Object.assign({}, json, { attestation: input.attestation });
        context.startedAt = Date.now();
        context.timeout = json.timeout;
        const credential = await navigator.credentials.create({ publicKey: creationOptionsFromJSON(json), signal: abortSignal });
        if (!credential) throw new DOMException("No credential", "NotAllowedError");
        return afterSignIn(await request("POST", "/webauthn/registration/verify", credentialToJSON(credential)));
      });
    },

    /** Sign-in with the browser's passkey prompt; without a username, any passkey of the site (discoverable). */
    signIn(options) {
      const input = options || {};
      return ceremony("get", async (abortSignal, context) => {
        requireSupport();
        const body = {};
        if (input.username) body.username = input.username;
        if (input.userVerification) body.userVerification = input.userVerification;
        const json = await request("POST", "/webauthn/authentication/options", body, abortSignal);
        context.startedAt = Date.now();
        context.timeout = json.timeout;
        const credential = await navigator.credentials.get({ publicKey: requestOptionsFromJSON(json), signal: abortSignal });
        if (!credential) throw new DOMException("No credential", "NotAllowedError");
        return verifyAssertion(credential, json);
      });
    },

    /** Sign-in from the username field's autofill (the input needs `autocomplete="username webauthn"`). Resolves
     * when the person picks a passkey; rejects with code "aborted" when another ceremony starts or `abort()` is
     * called, "unsupported" when the browser has no conditional mediation. */
    signInWithAutofill(inputElement, options) {
      const input = options || {};
      return ceremony("get", async (abortSignal) => {
        if (!(await isAutofillAvailable())) throw new PasskeydError(ErrorCode.UNSUPPORTED);
        if (inputElement && !/\bwebauthn\b/.test(inputElement.getAttribute("autocomplete") || "")) {
          throw new PasskeydError(ErrorCode.UNKNOWN, 'The input needs autocomplete="username webauthn".');
        }
        const body = input.userVerification ? { userVerification: input.userVerification } : {};
        const json = await request("POST", "/webauthn/authentication/options", body, abortSignal);
        if (abortSignal.aborted) throw new DOMException("Aborted", "AbortError");
        if (input.onWaiting) input.onWaiting();
        const credential = await navigator.credentials.get({
          mediation: "conditional",
          publicKey: requestOptionsFromJSON(json),
          signal: abortSignal,
        });
        if (!credential) throw new DOMException("No credential", "NotAllowedError");
        if (input.onCredential) input.onCredential();
        return verifyAssertion(credential, json);
      });
    },

    /**
     * POST /auth/password: a password imported from the app's old system, as a bridge to a passkey. Resolves like
     * the passkey sign-ins (the answer plus `account`); call `upgradeToPasskey()` right after. Rejects with
     * `password_invalid` for any wrong name, email or password. Under `passwords.session: "upgradeOnly"` the session
     * is restricted (`restricted: true`, no cookie): this client then carries its token until the passkey is added.
     * @param {{username?: string, email?: string, password: string}} credentials
     */
    async signInWithPassword(credentials) {
      const input = credentials || {};
      await abortPending();
      restrictedToken = null;
      const body = input.email ? { email: input.email, password: input.password } : { username: input.username, password: input.password };
      return afterSignIn(await request("POST", "/auth/password", body));
    },

    /**
     * The automatic passkey upgrade, right after `signInWithPassword`: asks the browser to create a passkey without
     * a prompt (conditional create), which it does only when its password manager filled the password just used.
     * Resolves with the registration's answer plus `account` (its `upgrade` is true). Rejects with "unsupported"
     * when the browser cannot create conditionally (offer `register()` then), passkeyd's
     * `passkey_upgrade_not_allowed` when the session is not a password sign-in of the last minutes, and a browser
     * code ("not_allowed", "cancelled") when the browser declines, which it does silently: never show these.
     */
    upgradeToPasskey() {
      return ceremony("create", async (abortSignal, context) => {
        requireSupport();
        if (!(await isConditionalCreateAvailable())) throw new PasskeydError(ErrorCode.UNSUPPORTED);
        const json = await request("POST", "/webauthn/registration/options", { mediation: "conditional" }, abortSignal);
        context.startedAt = Date.now();
        context.timeout = json.timeout;
        const credential = await navigator.credentials.create({
          mediation: "conditional",
          publicKey: creationOptionsFromJSON(json),
          signal: abortSignal,
        });
        if (!credential) throw new DOMException("No credential", "NotAllowedError");
        return afterSignIn(await request("POST", "/webauthn/registration/verify", credentialToJSON(credential)));
      });
    },

    /** Whether the browser can create a passkey without a prompt (what `upgradeToPasskey` needs). */
    isConditionalCreateAvailable,

    /** Aborts the ceremony in progress (autofill included); resolves once the browser let go of it. */
    abort: abortPending,

    /** GET /me: the user, the RP ID, the passkeys and the sign-in methods. */
    account() {
      return request("GET", "/me");
    },

    /** GET /me/passkeys. */
    listPasskeys() {
      return request("GET", "/me/passkeys");
    },

    /** PATCH /me/passkeys/{id}. */
    renamePasskey(id, name) {
      return request("PATCH", "/me/passkeys/" + encodeURIComponent(id), { name });
    },

    /** DELETE /me/passkeys/{id}; then tells the browser which passkeys are still accepted. */
    async deletePasskey(id) {
      const answer = await request("DELETE", "/me/passkeys/" + encodeURIComponent(id));
      await refreshSignals().catch(() => {});
      return answer;
    },

    /**
     * POST /session/token: a fresh access token (an RFC 9068 JWT) for the app's own API, minted for this browser's
     * session (its cookie); the API verifies it against passkeyd's `/.well-known/jwks.json` and reads `sub`. Each call
     * mints a new one: call it again before `accessTokenExpiresAt`. Rejects with `not_signed_in` once the session is
     * gone (signed out, revoked, deleted).
     * @returns {Promise<{accessToken: string, accessTokenExpiresAt: string, tokenType: "Bearer"}>} send it as
     *   `Authorization: Bearer <accessToken>`
     */
    accessToken() {
      return request("POST", "/session/token");
    },

    /** POST /logout (and forgets a restricted session's token). */
    async signOut() {
      try {
        return await request("POST", "/logout", {});
      } finally {
        restrictedToken = null;
      }
    },

    /** DELETE /me; then tells the browser that none of the account's passkeys is accepted any more. */
    async deleteAccount() {
      const account = await request("GET", "/me");
      const answer = await request("DELETE", "/me");
      signalAccount(account, []);
      return answer;
    },
  };
}
