// Types of passkeyd.js, passkeyd's browser client (one ES module, no build step).

/** The browser side's codes; passkeyd's own codes ("username_taken" …, its README's tables) pass through as they are. */
export declare const ErrorCode: Readonly<{
  ABORTED: "aborted";
  CANCELLED: "cancelled";
  TIMED_OUT: "timed_out";
  NOT_ALLOWED: "not_allowed";
  CREDENTIAL_EXCLUDED: "credential_excluded";
  ORIGIN_MISMATCH: "origin_mismatch";
  NOT_SUPPORTED: "not_supported";
  CONSTRAINT: "constraint";
  UNSUPPORTED: "unsupported";
  NETWORK: "network";
  SESSION_NOT_KEPT: "session_not_kept";
  UNKNOWN: "unknown";
  RATE_LIMITED: "rate_limited";
  USERNAME_TAKEN: "username_taken";
  CREDENTIAL_UNKNOWN: "credential_unknown";
  LAST_CREDENTIAL: "last_credential";
  NOT_SIGNED_IN: "not_signed_in";
}>;

export type BrowserErrorCode =
  | "aborted" | "cancelled" | "timed_out" | "not_allowed" | "credential_excluded" | "origin_mismatch"
  | "not_supported" | "constraint" | "unsupported" | "network" | "session_not_kept" | "unknown";

/** passkeyd's stable error codes. */
export type ServerErrorCode =
  | "invalid_json" | "invalid_request" | "invalid_username" | "unsupported_media_type" | "challenge_unknown"
  | "challenge_expired" | "verification_failed" | "user_verification_required" | "origin_mismatch"
  | "algorithm_not_allowed" | "credential_unknown" | "possible_clone" | "not_signed_in" | "invalid_identity_token"
  | "passkey_changed" | "not_found" | "not_configured" | "passkey_not_found" | "method_not_allowed" | "username_taken"
  | "credential_exists" | "last_credential" | "apple_identity_taken" | "last_sign_in_method" | "merge_conflict"
  | "merge_same_account" | "merge_proof_rejected" | "apple_identity_not_found" | "handoff_code_invalid"
  | "rate_limited" | "apple_not_configured" | "invalid_notification" | "internal_error" | "storage_unavailable"
  | "apple_unavailable" | "admin_unauthorized" | "user_not_found" | "invalid_cursor" | "delivery_not_found"
  | "session_not_found" | "enrollment_link_invalid" | "enrollment_link_expired" | "recovery_code_invalid"
  | "recovery_session_restricted" | "insufficient_scope" | "invalid_backend_key" | "import_invalid" | "invalid_client"
  | "invalid_redirect_uri" | "invalid_grant" | "unsupported_grant_type" | "unsupported_response_type" | "invalid_scope"
  | "login_required" | "access_denied" | "apple_state_invalid" | "apple_sign_in_cancelled" | "invalid_return_path"
  | "invalid_token" | "not_ready" | "bad_request" | "request_too_large" | "expectation_failed" | "http_error" | "server_busy"
  | "external_id_taken" | "password_invalid" | "password_verification_busy" | "password_session_restricted"
  | "passkey_upgrade_not_allowed" | "identity_provider_not_found" | "identity_taken" | "identity_not_found"
  | "identity_provider_unavailable" | "identity_state_invalid" | "identity_issuer_mismatch" | "identity_sign_in_cancelled";

/** Sentences for people, by code. */
export declare const messages: Readonly<Record<string, string>>;

export declare class PasskeydError extends Error {
  readonly name: "PasskeydError";
  readonly code: BrowserErrorCode | ServerErrorCode | string;
  /** A sentence for people. */
  readonly message: string;
  readonly status?: number;
  readonly step?: string;
  readonly member?: string;
  readonly retryAfter?: number;
  readonly body?: Record<string, unknown>;
  readonly cause?: unknown;
  constructor(code: string, message?: string | null, details?: object);
}

export interface User {
  id: string;
  username: string;
  displayName: string;
  email?: string;
  emailVerified?: boolean;
  appAccountToken: string;
  /** The app's own id of the person, when its backend gave one (`POST /admin/users` with `externalId`). */
  externalId?: string;
}

export interface Passkey {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt?: string;
  algorithm: number;
  transports: string[];
  aaguid: string;
  attestationFormat: string;
  authenticatorName?: string;
  backupEligible: boolean;
  backupState: boolean;
  cloneWarning: boolean;
  backupEligibilityChanged: boolean;
}

export interface Account {
  user: User;
  rpId: string;
  passkeys: Passkey[];
  signInMethods: {
    passkeys: number;
    apple: { appleUserID: string; email?: string; isPrivateEmail: boolean; emailDisabled: boolean; consentRevoked: boolean; linkedAt: string }[];
  };
}

/** A passkey ceremony's answer, with the account as GET /me gives it right after. */
export interface SignedIn {
  verified: true;
  credentialId: string;
  user: User;
  token: string;
  expiresAt: string;
  /** An access token for the app's own API, for the session the answer starts (accessToken() mints more). */
  accessToken?: string;
  accessTokenExpiresAt?: string;
  account: Account;
}

/** POST /session/token: an access token (RFC 9068 JWT) for the app's own API; its backend verifies it against
 * passkeyd's /.well-known/jwks.json. */
export interface AccessToken {
  accessToken: string;
  /** ISO 8601; mint another before it. */
  accessTokenExpiresAt: string;
  /** Send it as `Authorization: Bearer <accessToken>`. */
  tokenType: "Bearer";
}

export interface RegisterOptions {
  /** A new account's username; leave it out, signed in, to add a passkey to the account. */
  username?: string;
  displayName?: string;
  residentKey?: "required" | "preferred" | "discouraged";
  userVerification?: "required" | "preferred" | "discouraged";
  hints?: ("security-key" | "client-device" | "hybrid")[];
  /** The attestation conveyance to ask the authenticator for (a demo and test knob). */
  attestation?: "none" | "indirect" | "direct" | "enterprise";
}

export interface SignInOptions {
  /** Without it, any passkey of the site (discoverable). */
  username?: string;
  userVerification?: "required" | "preferred" | "discouraged";
}

/** POST /auth/password's answer, with the account: a full session (its cookie), or under
 * `passwords.session: "upgradeOnly"` a restricted one (`restricted: true`: no cookie, no access token; this client
 * carries its token) that may only add a passkey, read the account and sign out. */
export interface SignedInWithPassword {
  user: User;
  token: string;
  expiresAt: string;
  restricted?: true;
  accessToken?: string;
  accessTokenExpiresAt?: string;
  account: Account;
}

export interface PasswordCredentials {
  /** One of username or email (an email signs in only when exactly one account has it). */
  username?: string;
  email?: string;
  password: string;
}

/** A registration's answer; `upgrade` is true for an automatic passkey upgrade (conditional create). */
export interface Upgraded extends SignedIn {
  upgrade?: true;
}

export interface AutofillOptions {
  userVerification?: "required" | "preferred" | "discouraged";
  /** Called when the browser waits for the person to pick a passkey in the field's suggestions. */
  onWaiting?: () => void;
  /** Called when a passkey was picked, before it is verified. */
  onCredential?: () => void;
}

export interface Passkeyd {
  supported(): boolean;
  isAutofillAvailable(): Promise<boolean>;
  register(options?: RegisterOptions): Promise<SignedIn>;
  signIn(options?: SignInOptions): Promise<SignedIn>;
  signInWithAutofill(input: HTMLInputElement | null, options?: AutofillOptions): Promise<SignedIn>;
  /** POST /auth/password: an imported password as a bridge to a passkey; rejects with password_invalid. */
  signInWithPassword(credentials: PasswordCredentials): Promise<SignedInWithPassword>;
  /** Right after signInWithPassword: a passkey without a prompt (conditional create); rejects with "unsupported"
   * when the browser cannot, passkey_upgrade_not_allowed, or a browser code when it declines (stay quiet then). */
  upgradeToPasskey(): Promise<Upgraded>;
  isConditionalCreateAvailable(): Promise<boolean>;
  abort(): Promise<void>;
  account(): Promise<Account>;
  listPasskeys(): Promise<Passkey[]>;
  renamePasskey(id: string, name: string): Promise<{ renamed: true }>;
  deletePasskey(id: string): Promise<{ deleted: true }>;
  /** A fresh access token for this browser's session; rejects with not_signed_in once the session is gone. */
  accessToken(): Promise<AccessToken>;
  signOut(): Promise<{ signedOut: true }>;
  deleteAccount(): Promise<{ deleted: true }>;
}

export interface PasskeydSettings {
  /** passkeyd's origin when it is not the page's; its CORS configuration must list the page's origin. */
  baseURL?: string;
  fetch?: typeof fetch;
}

export declare function createPasskeyd(settings?: PasskeydSettings): Passkeyd;

export declare function base64urlEncode(data: ArrayBuffer | ArrayBufferView): string;
export declare function base64urlDecode(text: string): ArrayBuffer;
export declare function creationOptionsFromJSON(json: object): CredentialCreationOptions["publicKey"];
export declare function requestOptionsFromJSON(json: object): CredentialRequestOptions["publicKey"];
export declare function credentialToJSON(credential: PublicKeyCredential): object;
export declare function toPasskeydError(error: unknown, ceremony?: "create" | "get" | "fetch", context?: { startedAt: number; timeout: number }): PasskeydError;
export declare function signalAccount(account: Account, acceptedCredentialIds?: string[]): void;
