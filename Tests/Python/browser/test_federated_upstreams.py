"""Sign-in through real OpenID providers (issue 37), end to end in headless Chromium: passkeyd A's web flow
(`/auth/{provider}/start` → the provider → `/auth/{provider}/callback`) against two independent upstreams on loopback:

- `peer`: a second `passkeyd serve` (B) acting as the OpenID provider, where the person signs in with a passkey;
- `authlib` and `authlib-jwt`: a minimal OpenID provider built on Authlib's authorization server (Flask): discovery,
  JWKS, the code flow with PKCE (S256 required), RS256 ID tokens, RFC 9207's `iss`; its client `rp-jwt` may only
  authenticate with `private_key_jwt`, so the library itself verifies the assertion passkeyd A signs.

Each sign-in makes or finds ONE account per (iss, sub); the refusals (a replayed state, a mix-up `iss`, an assertion
signed with another key) end with their stable error codes.

The native flow (`POST /auth/{provider}/nonce`, then `POST /auth/{provider}` `{"idToken", "rawNonce"}`) is run with ID
tokens each upstream really issued: Python runs the upstream's code flow as A's registered client (A's client ID and
callback; for B the person signs in at B with a passkey in Chromium) with the SHA-256 of A's raw nonce as `nonce`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
import urllib.parse
from dataclasses import dataclass, field

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from flask import Flask, jsonify, request
from joserfc.jwk import ECKey, RSAKey
from werkzeug.serving import make_server

from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc6749 import ClientMixin, grants
from authlib.oauth2.rfc7523 import JWTBearerClientAssertion
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc9207 import IssuerParameter
from authlib.oidc.core import UserInfo
from authlib.oidc.core.grants import OpenIDCode
from authlib.oidc.core.models import AuthorizationCodeMixin

from conftest import Server, _free_port, platform_authenticator, unique

PEER_CLIENT, PEER_SECRET = "passkeyd-a", "the-peer-client-secret"
SECRET_CLIENT, SECRET_CLIENT_SECRET = "rp-secret", "the-authlib-client-secret"
JWT_CLIENT, JWT_KEY_ID = "rp-jwt", "rp-jwt-key-1"
ERROR_MEMBER = "passkeyd_identity_error"


# ---------------------------------------------------------------------------------------------- passkeyd A and B


class PinnedServer(Server):
    """A `passkeyd serve` whose port is chosen before it starts, so that the other server's settings can name it. With
    `plain_http` it is served over HTTP at http://localhost:<port>: relying party `localhost` (a secure context without
    TLS) and a loopback http:// issuer that passkeyd A's outbound client accepts."""

    def __init__(self, name, root, port: int, plain_http: bool = False, **settings):
        super().__init__(name, root, **settings)
        self.pinned_port = port
        self.plain_http = plain_http

    def choose_port(self) -> int:
        return self.pinned_port

    @property
    def url(self) -> str:
        return f"http://localhost:{self.port}" if self.plain_http else super().url

    @property
    def health_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/healthz" if self.plain_http else super().health_url


# ---------------------------------------------------------------------------------------------- the Authlib provider


@dataclass
class Client(ClientMixin):
    client_id: str
    redirect_uris: list[str]
    auth_method: str
    secret: str | None = None
    public_key: object | None = None

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return self.redirect_uris[0]

    def get_allowed_scope(self, scope):
        return " ".join(s for s in (scope or "").split() if s in ("openid", "email", "profile"))

    def check_redirect_uri(self, redirect_uri):
        return redirect_uri in self.redirect_uris

    def check_client_secret(self, client_secret):
        return self.secret is not None and secrets.compare_digest(client_secret, self.secret)

    def check_endpoint_auth_method(self, method, endpoint):
        return method == self.auth_method

    def check_response_type(self, response_type):
        return response_type == "code"

    def check_grant_type(self, grant_type):
        return grant_type == "authorization_code"


@dataclass
class Code(AuthorizationCodeMixin):
    code: str
    client_id: str
    redirect_uri: str
    scope: str
    user: str
    nonce: str | None
    code_challenge: str | None
    code_challenge_method: str | None
    auth_time: int = field(default_factory=lambda: int(time.time()))

    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope

    def get_nonce(self):
        return self.nonce

    def get_auth_time(self):
        return self.auth_time

    def get_acr(self):
        return None

    def get_amr(self):
        return ["pwd"]


class AuthlibProvider:
    """An OpenID provider made of Authlib's authorization server on a loopback port, for passkeyd A's two clients:
    `rp-secret` (client_secret_post) and `rp-jwt` (private_key_jwt only, its public key registered here). Its sign-in
    page takes a username; each username is one stable `sub`."""

    def __init__(self, relying_party_url: str, jwt_public_key_pem: bytes):
        self.port = _free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.token_url = self.issuer + "/token"
        self.signing_key = RSAKey.generate_key(2048, parameters={"kid": "authlib-1", "use": "sig", "alg": "RS256"})
        self.clients = {
            SECRET_CLIENT: Client(SECRET_CLIENT, [f"{relying_party_url}/auth/authlib/callback"], "client_secret_post",
                                  secret=SECRET_CLIENT_SECRET),
            JWT_CLIENT: Client(JWT_CLIENT, [f"{relying_party_url}/auth/{name}/callback" for name in ("authlib-jwt", "authlib-wrong-key")],
                               "private_key_jwt",
                               public_key=ECKey.import_key(jwt_public_key_pem, {"kid": JWT_KEY_ID})),
        }
        self.codes: dict[str, Code] = {}
        self.seen_jtis: list[str] = []
        self.assertion_headers: list[dict] = []
        self.token_answers: list[tuple[int, str | None]] = []
        self.redirects: list[str] = []
        # A test's mix-up: the authorization response names this issuer instead of the provider's own.
        self.answer_iss: str | None = None
        self.app = self._application()
        self.httpd = make_server("127.0.0.1", self.port, self.app, threaded=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def _application(self) -> Flask:
        provider = self
        app = Flask("authlib-provider")
        server = AuthorizationServer(app, query_client=self.clients.get, save_token=lambda token, request: None)

        class CodeGrant(grants.AuthorizationCodeGrant):
            TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_post", "private_key_jwt"]

            def save_authorization_code(self, code, request):
                payload = request.payload
                provider.codes[code] = Code(
                    code, request.client.get_client_id(), payload.redirect_uri, payload.scope, request.user,
                    payload.data.get("nonce"), payload.data.get("code_challenge"), payload.data.get("code_challenge_method"))

            def query_authorization_code(self, code, client):
                stored = provider.codes.get(code)
                return stored if stored and stored.client_id == client.get_client_id() else None

            def delete_authorization_code(self, authorization_code):
                provider.codes.pop(authorization_code.code, None)

            def authenticate_user(self, authorization_code):
                return authorization_code.user

        class IDTokens(OpenIDCode):
            def exists_nonce(self, nonce, request):
                return any(code.nonce == nonce for code in provider.codes.values())

            def resolve_client_private_key(self, client):
                return provider.signing_key

            def get_client_algorithm(self, client):
                return "RS256"

            def get_encode_header(self, client):
                return {"alg": "RS256", "kid": "authlib-1"}

            def get_client_claims(self, client):
                return {"iss": provider.issuer, "aud": [client.get_client_id()]}

            def generate_user_info(self, user, scope):
                return UserInfo(sub=f"sub-{user}", name=user.title(), email=f"{user}@authlib.test", email_verified=True)

        class PrivateKeyJWT(JWTBearerClientAssertion):
            """RFC 7523 §2.2 / OIDC Core §9 as Authlib verifies it: signature with the client's registered key, iss =
            sub = the client, aud the token endpoint, exp, and a jti never seen before."""

            CLIENT_AUTH_METHOD = "private_key_jwt"

            def get_audiences(self):
                return [provider.token_url]

            def validate_jti(self, claims, jti):
                if jti in provider.seen_jtis:
                    return False
                provider.seen_jtis.append(jti)
                return True

            def resolve_client_public_key(self, client):
                return client.public_key

            def extract_assertion(self, assertion):
                headers, claims = super().extract_assertion(assertion)
                provider.assertion_headers.append(headers)
                return headers, claims

        server.register_grant(CodeGrant, [CodeChallenge(required=True), IDTokens(require_nonce=True)])
        server.register_client_auth_method(PrivateKeyJWT.CLIENT_AUTH_METHOD, PrivateKeyJWT())

        class Issuer(IssuerParameter):
            def get_issuer(self):
                return provider.issuer

        server.register_extension(Issuer())

        @app.get("/.well-known/openid-configuration")
        def discovery():
            return jsonify({
                "issuer": provider.issuer, "authorization_endpoint": provider.issuer + "/authorize",
                "token_endpoint": provider.token_url, "jwks_uri": provider.issuer + "/jwks",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"], "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_post", "private_key_jwt"],
                "token_endpoint_auth_signing_alg_values_supported": ["ES256", "RS256"],
                "authorization_response_iss_parameter_supported": True,
            })

        @app.get("/jwks")
        def jwks():
            return jsonify({"keys": [provider.signing_key.as_dict(private=False)]})

        @app.route("/authorize", methods=["GET", "POST"])
        def authorize():
            # Authlib checks the request (client, redirect URI, PKCE S256, nonce) before any page, and again on submit.
            grant = server.get_consent_grant(end_user=request.form.get("username"))
            if request.method == "GET":
                return ("<!doctype html><title>Authlib provider</title><form method=post>"
                        "<input id=upstream-username name=username autocomplete=off>"
                        "<button id=upstream-continue>Continue</button></form>")
            answer = server.create_authorization_response(grant=grant, grant_user=request.form["username"])
            location = answer.headers.get("Location", "")
            if provider.answer_iss is not None:
                parts = urllib.parse.urlsplit(location)
                query = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query) if k != "iss"] + [("iss", provider.answer_iss)]
                location = urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))
                answer.headers["Location"] = location
            provider.redirects.append(location)
            return answer

        @app.post("/token")
        def token():
            answer = server.create_token_response()
            provider.token_answers.append((answer.status_code, answer.get_json().get("error")))
            return answer

        return app

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def p256_key_pem() -> tuple[bytes, bytes]:
    """A new P-256 key: its PKCS #8 PEM (for passkeyd A's configuration) and its public PEM (for the provider)."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return private, public


# ---------------------------------------------------------------------------------------------- fixtures


@dataclass
class Upstreams:
    a: PinnedServer
    b: PinnedServer
    authlib: AuthlibProvider


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory):
    root = tmp_path_factory.mktemp("federated")
    a_port, b_port = _free_port(), _free_port()
    a_url = f"https://example.test:{a_port}"
    jwt_private, jwt_public = p256_key_pem()
    other_private, _ = p256_key_pem()
    (root / "rp-jwt.pem").write_bytes(jwt_private)
    (root / "other.pem").write_bytes(other_private)
    authlib = AuthlibProvider(a_url, jwt_public)
    b = PinnedServer(
        "federation-peer", root / "b", b_port, plain_http=True,
        relyingParty={"id": "localhost", "name": "Peer", "origins": ["__SERVER_URL__"]},
        listen={"http": f"127.0.0.1:{b_port}"},
        tokens={"issuer": "__SERVER_URL__"},
        oidc={"clients": [{"id": PEER_CLIENT, "name": "Passkeyd A", "type": "confidential",
                           "secretSHA256": hashlib.sha256(PEER_SECRET.encode()).hexdigest(),
                           "redirectURIs": [f"{a_url}/auth/peer/callback"]}]},
    )
    a = PinnedServer(
        "federation-a", root / "a", a_port,
        tokens={"issuer": "__SERVER_URL__"},
        identityProviders={
            "peer": {"type": "oidc", "issuer": f"http://localhost:{b_port}", "clientID": PEER_CLIENT,
                     "clientSecret": PEER_SECRET, "scopes": ["openid", "profile"]},
            "authlib": {"type": "oidc", "issuer": authlib.issuer, "clientID": SECRET_CLIENT,
                        "clientSecret": SECRET_CLIENT_SECRET},
            "authlib-jwt": {"type": "oidc", "issuer": authlib.issuer, "clientID": JWT_CLIENT,
                            "privateKey": str(root / "rp-jwt.pem"), "keyID": JWT_KEY_ID},
            # The same client with a key the provider never registered: Authlib must refuse its assertion.
            "authlib-wrong-key": {"type": "oidc", "issuer": authlib.issuer, "clientID": JWT_CLIENT,
                                  "privateKey": str(root / "other.pem"), "keyID": JWT_KEY_ID},
        },
    )
    started = []
    try:
        started.append(b.start())
        started.append(a.start())
        yield Upstreams(a=a, b=b, authlib=authlib)
    finally:
        for server in started:
            server.stop()
        authlib.stop()


# ---------------------------------------------------------------------------------------------- helpers


def start_at_a(page, a: Server, provider: str) -> None:
    page.driver.get(f"{a.url}/auth/{provider}/start?return=/signed-in&cancel=/refused")


def back_at_a(page, a: Server, path: str) -> dict:
    """Waits for the browser back at A on `path`; its query."""
    page.wait(lambda: page.driver.current_url.startswith(f"{a.url}{path}"), f"back at A on {path}")
    return urllib.parse.parse_qs(urllib.parse.urlsplit(page.driver.current_url).query)


def identities(page) -> tuple[str, list[dict]]:
    """A's account of the session (`GET /me`): its user id and its federated identities."""
    me = page.me()
    return me["user"]["id"], me["signInMethods"]["identities"]


def sign_in_at_authlib(page, upstreams: Upstreams, provider: str, username: str) -> None:
    start_at_a(page, upstreams.a, provider)
    page.wait(lambda: page.driver.current_url.startswith(upstreams.authlib.issuer + "/authorize?"), "the Authlib provider")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(page.driver.current_url).query)
    assert query["code_challenge_method"] == ["S256"] and query["response_type"] == ["code"] and query["nonce"]
    username_field = page.driver.find_element("id", "upstream-username")
    username_field.send_keys(username)
    page.driver.find_element("id", "upstream-continue").click()


# ---------------------------------------------------------------------------------------------- tests


def test_a_second_passkeyd_as_the_openid_provider(page, upstreams):
    a, b = upstreams.a, upstreams.b
    page.add_authenticator(platform_authenticator())

    # At A: Sign in with "peer" sends the browser to B, where the person makes an account with a passkey.
    start_at_a(page, a, "peer")
    page.wait(lambda: page.driver.current_url.startswith(f"{b.url}/oauth/sign-in?") and page.view() == "sign-in"
              and not page.busy(), "B's sign-in page")
    page.shot("peer-sign-in")
    username = unique("grace")
    page.type_into("register-username", username)
    page.type_into("register-display-name", "Grace Hopper")
    page.click("register")
    back_at_a(page, a, "/signed-in")
    page.shot("back-at-a")
    user_id, linked = identities(page)
    assert [(i["provider"], i["issuer"]) for i in linked] == [("peer", b.url)]
    subject = linked[0]["subject"]

    # Signed out of A (B's session stays): the second sign-in through B lands in the SAME account of A.
    page.driver.delete_all_cookies()  # only A's origin is open: its session cookie goes
    start_at_a(page, a, "peer")
    back_at_a(page, a, "/signed-in")
    again, linked = identities(page)
    assert again == user_id and [(i["issuer"], i["subject"]) for i in linked] == [(b.url, subject)]


def test_authlib_provider_with_a_secret_and_with_private_key_jwt(page, upstreams):
    a, authlib = upstreams.a, upstreams.authlib
    username = unique("ada").replace("-", "")

    # client_secret_post: a new account for (iss, sub-<username>).
    sign_in_at_authlib(page, upstreams, "authlib", username)
    back_at_a(page, a, "/signed-in")
    user_id, linked = identities(page)
    assert [(i["provider"], i["issuer"], i["subject"]) for i in linked] == [("authlib", authlib.issuer, f"sub-{username}")]
    assert linked[0]["email"] == f"{username}@authlib.test"

    # private_key_jwt (the client Authlib lets authenticate no other way): the same (iss, sub) is the same account.
    page.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    jtis_before = len(authlib.seen_jtis)
    sign_in_at_authlib(page, upstreams, "authlib-jwt", username)
    back_at_a(page, a, "/signed-in")
    again, linked = identities(page)
    assert again == user_id and [(i["issuer"], i["subject"]) for i in linked] == [(authlib.issuer, f"sub-{username}")]
    assert authlib.assertion_headers[-1] == {"alg": "ES256", "kid": JWT_KEY_ID}
    assert authlib.token_answers[-1] == (200, None)

    # A second time: a fresh jti (Authlib refuses a used one), same account.
    page.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    sign_in_at_authlib(page, upstreams, "authlib-jwt", username)
    back_at_a(page, a, "/signed-in")
    assert identities(page)[0] == user_id
    assert len(authlib.seen_jtis) == jtis_before + 2 and len(set(authlib.seen_jtis)) == len(authlib.seen_jtis)


def test_an_assertion_signed_with_another_key_is_refused_by_authlib(page, upstreams):
    a, authlib = upstreams.a, upstreams.authlib
    headers, jtis = len(authlib.assertion_headers), len(authlib.seen_jtis)
    sign_in_at_authlib(page, upstreams, "authlib-wrong-key", unique("eve").replace("-", ""))
    query = back_at_a(page, a, "/refused")
    assert query[ERROR_MEMBER] == ["invalid_identity_token"]
    assert authlib.token_answers[-1] == (400, "invalid_client")
    # The assertion was read (same client, same kid) and refused at its signature: Authlib checks the jti only after.
    assert len(authlib.assertion_headers) == headers + 1 and authlib.assertion_headers[-1]["kid"] == JWT_KEY_ID
    assert len(authlib.seen_jtis) == jtis
    status, _ = page.fetch("GET", "/me")
    assert status == 401


def test_a_replayed_state_is_refused(page, upstreams):
    a, authlib = upstreams.a, upstreams.authlib
    sign_in_at_authlib(page, upstreams, "authlib", unique("mallory").replace("-", ""))
    back_at_a(page, a, "/signed-in")
    answered = authlib.redirects[-1]
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(answered).query)["iss"] == [authlib.issuer]

    # The provider's answer again (its code and state): the state was used, so it is an error page, no sign-in.
    page.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    page.driver.get(answered)
    page.wait(lambda: "identity_state_invalid" in page.driver.page_source, "the error page")
    page.shot("replayed-state")
    status, _ = page.fetch("GET", "/me")
    assert status == 401


def test_a_mix_up_issuer_in_the_answer_is_refused(page, upstreams):
    """RFC 9207: the answer to a flow sent to the Authlib provider names passkeyd B as its issuer (an attacker's mix-up):
    A refuses it before exchanging the code."""
    a, authlib = upstreams.a, upstreams.authlib
    authlib.answer_iss = upstreams.b.url
    exchanges = len(authlib.token_answers)
    try:
        sign_in_at_authlib(page, upstreams, "authlib", unique("mixup").replace("-", ""))
        query = back_at_a(page, a, "/refused")
    finally:
        authlib.answer_iss = None
    assert query[ERROR_MEMBER] == ["identity_issuer_mismatch"]
    assert len(authlib.token_answers) == exchanges  # the code never went to a token endpoint
    status, _ = page.fetch("GET", "/me")
    assert status == 401


# ---------------------------------------------------------------------------------------------- the native flow


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def claims_of(id_token: str) -> dict:
    """The payload of a JWS, unverified (only to show what the upstream put in it; A does the verifying)."""
    payload = id_token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def post_json(page, path: str, body: dict) -> tuple[int, dict]:
    """`POST path` with a JSON body from the page's origin (A), as the app's HTTP client would."""
    return tuple(page.driver.execute_async_script(
        """const [path, body, done] = arguments;
        fetch(path, {method: "POST", credentials: "same-origin",
                     headers: {Accept: "application/json", "Content-Type": "application/json"}, body: JSON.stringify(body)})
          .then(r => r.text().then(t => done([r.status, t ? JSON.parse(t) : null])))
          .catch(e => done([0, String(e)]));""", path, body))


def raw_nonce_from_a(page, provider: str) -> str:
    status, body = post_json(page, f"/auth/{provider}/nonce", {})
    assert status == 200 and body["nonce"] and body["expiresAt"], (status, body)
    return body["nonce"]


def log_count(server: Server, text: str) -> int:
    return server.log_path.read_text(errors="replace").count(text)


def native_sign_in_and_refusals(page, a: Server, provider: str, issuer: str, id_token_for) -> str:
    """The native flow with `id_token_for(nonce)`, a real upstream's ID token whose `nonce` claim is the given string:
    a sign-in, then the refusals (the same token again; another token with another raw nonce of A). A's user id."""
    raw_nonce = raw_nonce_from_a(page, provider)
    id_token = id_token_for(sha256_hex(raw_nonce))
    claims = claims_of(id_token)
    assert claims["iss"] == issuer and claims["nonce"] == sha256_hex(raw_nonce)

    status, body = post_json(page, f"/auth/{provider}", {"idToken": id_token, "rawNonce": raw_nonce})
    assert status == 200, (status, body)
    assert body["token"] and body["accessToken"] and body["isNewAccount"] is True
    user_id = body["user"]["id"]
    signed_in, linked = identities(page)  # the answer's session cookie is A's session of that account
    assert signed_in == user_id
    assert [(i["provider"], i["issuer"], i["subject"]) for i in linked] == [(provider, issuer, claims["sub"])]

    # The same token with its raw nonce again: a replay (both were used), refused without a session.
    page.driver.delete_all_cookies()
    replayed = f"refused ({provider}): the raw nonce or the ID token was already used"
    replays = log_count(a, replayed)
    status, body = post_json(page, f"/auth/{provider}", {"idToken": id_token, "rawNonce": raw_nonce})
    assert (status, body["error"]) == (401, "invalid_identity_token")
    assert log_count(a, replayed) == replays + 1
    assert page.fetch("GET", "/me")[0] == 401

    # A fresh token sent with another raw nonce of A (not the one it was issued for): refused at its nonce, and the
    # refusal uses up neither, so the token with its own raw nonce then signs in to the same account.
    raw_nonce, other_raw_nonce = raw_nonce_from_a(page, provider), raw_nonce_from_a(page, provider)
    id_token = id_token_for(sha256_hex(raw_nonce))
    mismatch = f"refused ({provider}): idToken.nonceMismatch"
    mismatches = log_count(a, mismatch)
    status, body = post_json(page, f"/auth/{provider}", {"idToken": id_token, "rawNonce": other_raw_nonce})
    assert (status, body["error"]) == (401, "invalid_identity_token")
    assert log_count(a, mismatch) == mismatches + 1
    assert page.fetch("GET", "/me")[0] == 401
    status, body = post_json(page, f"/auth/{provider}", {"idToken": id_token, "rawNonce": raw_nonce})
    assert status == 200 and body["user"]["id"] == user_id and body["isNewAccount"] is False, (status, body)
    page.driver.delete_all_cookies()
    return user_id


def test_native_sign_in_with_id_tokens_of_a_second_passkeyd(page, upstreams):
    a, b = upstreams.a, upstreams.b
    page.add_authenticator(platform_authenticator())
    document = requests.get(f"{b.url}/.well-known/openid-configuration", timeout=10).json()
    username = unique("katherine")

    def id_token_for(nonce: str) -> str:
        """B's code flow as A's client (its ID and callback): the browser signs in at B (a passkey the first time, then
        B's session), B answers at A's callback, which refuses a state A never issued, so the code is still unused;
        Python exchanges it with A's client secret."""
        session = OAuth2Session(PEER_CLIENT, PEER_SECRET, scope="openid profile", redirect_uri=f"{a.url}/auth/peer/callback",
                                code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")
        verifier = secrets.token_urlsafe(48)
        url, _ = session.create_authorization_url(document["authorization_endpoint"], code_verifier=verifier, nonce=nonce)
        page.driver.get(url)
        callback = f"{a.url}/auth/peer/callback?"
        page.wait(lambda: page.driver.current_url.startswith(callback)
                  or (page.driver.current_url.startswith(f"{b.url}/oauth/sign-in?") and page.view() == "sign-in"
                      and not page.busy()), "B's sign-in page or A's callback")
        if not page.driver.current_url.startswith(callback):
            page.type_into("register-username", username)
            page.type_into("register-display-name", "Katherine Johnson")
            page.click("register")
            page.wait(lambda: page.driver.current_url.startswith(callback), "B's answer at A's callback")
        answered = page.driver.current_url
        page.wait(lambda: "identity_state_invalid" in page.driver.page_source, "A's error page")
        token = session.fetch_token(document["token_endpoint"], authorization_response=answered, code_verifier=verifier)
        return token["id_token"]

    page.driver.get(f"{a.url}/")  # the app's requests go to A
    user_id = native_sign_in_and_refusals(page, a, "peer", b.url, id_token_for)

    # The web flow for the same person at B (B's session stays): the same (iss, sub), the same account of A.
    start_at_a(page, a, "peer")
    back_at_a(page, a, "/signed-in")
    assert identities(page)[0] == user_id


def test_native_sign_in_with_id_tokens_of_authlib(page, upstreams):
    a, authlib = upstreams.a, upstreams.authlib
    username = unique("dorothy").replace("-", "")

    def id_token_for(nonce: str) -> str:
        """The Authlib provider's code flow as A's client `rp-secret` (its callback, client_secret_post, PKCE S256)."""
        session = OAuth2Session(SECRET_CLIENT, SECRET_CLIENT_SECRET, scope="openid email profile",
                                redirect_uri=f"{a.url}/auth/authlib/callback", code_challenge_method="S256",
                                token_endpoint_auth_method="client_secret_post")
        verifier = secrets.token_urlsafe(48)
        url, _ = session.create_authorization_url(authlib.issuer + "/authorize", code_verifier=verifier, nonce=nonce)
        answer = requests.post(url, data={"username": username}, allow_redirects=False, timeout=10)
        assert answer.status_code == 302 and answer.headers["Location"].startswith(f"{a.url}/auth/authlib/callback?")
        token = session.fetch_token(authlib.token_url, authorization_response=answer.headers["Location"], code_verifier=verifier)
        return token["id_token"]

    page.driver.get(f"{a.url}/")
    user_id = native_sign_in_and_refusals(page, a, "authlib", authlib.issuer, id_token_for)

    # The web flow for the same username: the same (iss, sub), the same account of A.
    sign_in_at_authlib(page, upstreams, "authlib", username)
    back_at_a(page, a, "/signed-in")
    again, linked = identities(page)
    assert again == user_id and [(i["issuer"], i["subject"]) for i in linked] == [(authlib.issuer, f"sub-{username}")]
