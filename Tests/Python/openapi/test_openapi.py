"""Real requests and answers of `passkeyd serve` validated against its OpenAPI document with openapi-core, so the
document (Sources/RelyingPartyServer/OpenAPI/openapi.json, served at GET /openapi.json) cannot drift from the code.

One server on a free loopback port (plain HTTP, Sign in with Apple pointed at the Apple stand-in; an admin listener on
another port with an admin key, a webhook endpoint whose receiver answers 410 Gone) and the test device
(`passkeyd-test-device`: the software authenticator and the stand-in) play an app through every endpoint, successes
and errors. Every answer is validated (status, headers, body: schemas forbid members they do not list, so a new
member fails until the document has it); every request is validated too, except those sent without the credentials
the document requires, which exist to check the 401."""

from __future__ import annotations

import base64
import hashlib
import html
import http.server
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from openapi_core import Config, OpenAPI
from openapi_core.contrib.requests import RequestsOpenAPIRequest, RequestsOpenAPIResponse

REPO = Path(__file__).resolve().parents[3]
DOCUMENT = REPO / "Sources" / "RelyingPartyServer" / "OpenAPI" / "openapi.json"
BINARY = Path(os.environ.get("PASSKEYD_BINARY", REPO / ".build" / "debug" / "passkeyd"))
DEVICE = Path(os.environ.get("PASSKEYD_TEST_DEVICE", REPO / ".build" / "debug" / "passkeyd-test-device"))
RP_ID = "example.com"
# The backend key the server's configuration lists (by its SHA-256) for POST /introspect.
BACKEND_KEY = "openapi-backend-key"
# The OpenID provider's clients of the configuration: a confidential web app (by the SHA-256 of this secret) and a
# public native app on a loopback redirect URI.
OIDC_SECRET = "openapi-client-secret"
WEB_CLIENT, WEB_REDIRECT = "openapi-web", "https://app.example/callback"
NATIVE_CLIENT, NATIVE_REDIRECT = "openapi-native", "http://127.0.0.1/callback"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
# The keys of a path item that are operations (the others: servers, parameters, summary, description).
HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
# The admin key the configuration lists (by its SHA-256) for the admin listener.
ADMIN_KEY = "openapi-admin-key"
NDJSON = {"Content-Type": "application/x-ndjson"}


def ndjson(value, **parameters) -> list:
    """application/x-ndjson (the admin export and import) as the list of its lines' objects, for the schemas."""
    text = value.decode() if isinstance(value, bytes) else value
    return [json.loads(line) for line in text.splitlines() if line]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class Device:
    """passkeyd-test-device, one JSON line per command."""

    def __init__(self, p8: Path):
        self.process = subprocess.Popen([str(DEVICE), "--p8", str(p8)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.greeting = json.loads(self.process.stdout.readline())

    def send(self, **command) -> dict:
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        assert "error" not in answer, answer
        return answer

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


class GoneReceiver:
    """A webhook receiver on loopback that answers 410 Gone: each delivery to it is dead at once (for the admin API's
    deliveries and retry)."""

    def __init__(self):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the standard library's name
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.send_response(410)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hooks"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class Server:
    def __init__(self, folder: Path, device: Device, receiver: GoneReceiver):
        self.port = free_port()
        self.admin_port = free_port()
        apple = device.greeting["appleBaseURL"]
        configuration = {
            "relyingParty": {"id": RP_ID, "name": "Example", "origins": [f"https://{RP_ID}"]},
            # The admin listener on loopback serves GET /metrics without a key (its admin routes need one).
            "listen": {"https": None, "http": f"127.0.0.1:{self.port}", "admin": f"127.0.0.1:{self.admin_port}"},
            "admin": {"keys": [{"name": "openapi", "keySHA256": hashlib.sha256(ADMIN_KEY.encode()).hexdigest()}]},
            "webhooks": [{"id": "gone", "url": receiver.url, "secret": "whsec_" + base64.b64encode(b"openapi-webhook-secret-32-bytes!").decode()}],
            "dataDirectory": str(folder / "data"), "www": None, "threads": 2,
            "rateLimits": {"perAddressPerMinute": 600, "perAddressBurst": 200},
            "backends": [{"name": "openapi", "keySHA256": hashlib.sha256(BACKEND_KEY.encode()).hexdigest()}],
            "oidc": {"clients": [
                {"id": WEB_CLIENT, "name": "OpenAPI web", "type": "confidential", "redirectURIs": [WEB_REDIRECT],
                 "secretSHA256": hashlib.sha256(OIDC_SECRET.encode()).hexdigest()},
                {"id": NATIVE_CLIENT, "name": "OpenAPI native", "type": "public", "redirectURIs": [NATIVE_REDIRECT]},
            ]},
            "apple": {"teamID": "ABCDE12345", "bundleIDs": [device.greeting["bundleID"]], "keyID": "KEY1234567",
                      "servicesIDs": ["com.example.passkeyd.web"], "authorizeURL": f"{apple}/auth/authorize",
                      "privateKey": str(folder / "AuthKey.p8"), "jwksURL": f"{apple}/auth/keys",
                      "tokenURL": f"{apple}/auth/token", "revokeURL": f"{apple}/auth/revoke"},
            "identityProviders": {"google": {"type": "google", "discoveryURL": device.greeting["googleDiscoveryURL"],
                                             "clientSecret": device.greeting["googleClientSecret"],
                                             "clientIDs": device.greeting["googleClientIDs"]}},
        }
        path = folder / "passkeyd.json"
        path.write_text(json.dumps(configuration))
        self.log = open(folder / "serve.log", "wb")
        self.process = subprocess.Popen([str(BINARY), "serve", "--config", str(path)], stdout=self.log, stderr=self.log)
        self.url = f"http://127.0.0.1:{self.port}"
        self.admin_url = f"http://127.0.0.1:{self.admin_port}"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            assert self.process.poll() is None, (folder / "serve.log").read_text()
            try:
                if requests.get(self.url + "/healthz", timeout=2).status_code == 200:
                    return
            except requests.ConnectionError:
                pass
            time.sleep(0.1)
        raise AssertionError("passkeyd did not start")

    def stop(self):
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)
        self.log.close()


class API:
    """Sends requests and validates each request and answer against the document."""

    def __init__(self, server: Server, openapi: OpenAPI):
        self.server = server
        self.openapi = openapi
        self.validated = []
        # The last answer (its headers: a redirect's Location).
        self.last = None

    def call(self, method, path, body=None, token=None, status=200, validate_request=True, raw=None, headers=None, admin=False):
        """`admin`: to the admin listener (the document's path-level server of its operations)."""
        all_headers = dict(headers or {})
        if token:
            all_headers["Authorization"] = f"Bearer {token}"
        url = (self.server.admin_url if admin else self.server.url) + path
        if raw is not None:
            answer = requests.request(method, url, data=raw, headers=all_headers, allow_redirects=False, timeout=10)
        else:
            answer = requests.request(method, url, json=body, headers=all_headers, allow_redirects=False, timeout=10)
        assert answer.status_code == status, f"{method} {path}: {answer.status_code} {answer.text}"
        request = RequestsOpenAPIRequest(answer.request)
        if validate_request:
            self.openapi.validate_request(request)
        self.openapi.validate_response(request, RequestsOpenAPIResponse(answer))
        self.validated.append((method, path, answer.status_code))
        self.last = answer
        if not answer.content:
            return None
        return answer.json() if answer.headers.get("Content-Type", "").startswith("application/json") else answer.text

    def keys_missing(self, provider) -> bool:
        """Whether the provider's keys are not fetched yet: a malformed token (which spends nothing) is then 503, not
        401. Not validated: the validated calls follow."""
        probe = {"idToken": "a.b.c", "rawNonce": "probe"}
        return requests.post(f"{self.server.url}/auth/{provider}", json=probe, timeout=10).status_code == 503

    def admin(self, method, path, body=None, key=ADMIN_KEY, **options):
        """A call to the admin listener with the admin key."""
        return self.call(method, path, body, token=key, admin=True, **options)


@pytest.fixture(scope="module")
def world():
    folder = Path(tempfile.mkdtemp(prefix="passkeyd-openapi-"))
    device = Device(folder / "AuthKey.p8")
    receiver = GoneReceiver()
    server = Server(folder, device, receiver)
    spec = json.loads(DOCUMENT.read_text())
    spec["servers"] = [{"url": server.url}]
    # The admin paths name the admin listener's server: this run's.
    for item in spec["paths"].values():
        if "servers" in item:
            item["servers"] = [{"url": server.admin_url}]
    # openapi-core reads text/html and text/plain as text, not text/javascript (the recovery page's script).
    deserializers = {"application/x-ndjson": ndjson, "text/javascript": lambda data, **_: data.decode("utf-8")}
    api = API(server, OpenAPI.from_dict(spec, config=Config(extra_media_type_deserializers=deserializers)))
    yield api, device
    server.stop()
    receiver.stop()
    device.stop()


def register(api: API, device: Device, username: str | None, token: str | None = None) -> dict:
    options = api.call("POST", "/webauthn/registration/options", {"username": username} if username else {}, token=token)
    made = device.send(command="create", relyingPartyID=options["rp"]["id"], challenge=options["challenge"], userID=options["user"]["id"])
    response = {"id": made["credentialID"], "rawId": made["credentialID"], "type": "public-key", "authenticatorAttachment": "platform",
                "response": {"clientDataJSON": made["rawClientDataJSON"], "attestationObject": made["rawAttestationObject"],
                             "transports": ["internal", "hybrid"]}, "clientExtensionResults": {"credProps": {"rk": True}}}
    return api.call("POST", "/webauthn/registration/verify", response, token=token)


def assertion(api: API, device: Device, username: str | None = None) -> dict:
    options = api.call("POST", "/webauthn/authentication/options", {"username": username} if username else {})
    made = device.send(command="assert", relyingPartyID=options["rpId"], challenge=options["challenge"],
                       allowedCredentials=[c["id"] for c in options["allowCredentials"]])
    return {"id": made["credentialID"], "rawId": made["credentialID"], "type": "public-key", "authenticatorAttachment": "platform",
            "response": {"clientDataJSON": made["rawClientDataJSON"], "authenticatorData": made["rawAuthenticatorData"],
                         "signature": made["signature"], "userHandle": made["userID"]}, "clientExtensionResults": {}}


def apple_sign_in(api: API, device: Device, subject: str, token: str | None = None, status: int = 200, name: bool = False) -> dict:
    nonce = api.call("POST", "/auth/apple/nonce", {}, token=token)["nonce"]
    import hashlib
    apple = device.send(command="appleToken", nonce=hashlib.sha256(nonce.encode()).hexdigest(), subject=subject)
    body = {"identityToken": apple["identityToken"], "rawNonce": nonce, "authorizationCode": apple["authorizationCode"]}
    if name:
        body["fullName"] = {"givenName": "Grace", "familyName": "Hopper"}
    return api.call("POST", "/auth/apple", body, token=token, status=status)


def test_the_served_document_is_the_repository_s(world):
    api, _ = world
    served = api.call("GET", "/openapi.json")
    assert served == json.loads(DOCUMENT.read_text())
    api.call("GET", "/healthz")
    assert api.call("GET", "/readyz")["status"] == "ready"
    # /metrics is the admin listener's (loopback: no key), and not the public one's.
    metrics = api.call("GET", "/metrics", admin=True)
    assert api.last.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    assert "# TYPE passkeyd_request_duration_seconds histogram" in metrics
    assert requests.get(api.server.url + "/metrics", timeout=10).status_code == 404


def test_passkeys_and_the_account(world):
    api, device = world
    signed_up = register(api, device, "ada")
    token = signed_up["token"]
    api.call("POST", "/webauthn/registration/options", {"username": "ada"}, status=409)
    api.call("POST", "/webauthn/registration/options", {"username": ""}, status=400)
    api.call("POST", "/webauthn/registration/options", raw=b"username=ada", headers={"Content-Type": "text/plain"}, status=415,
             validate_request=False)
    account = api.call("GET", "/me", token=token)
    assert account["passkeys"][0]["id"] == signed_up["credentialId"]
    signed_in = api.call("POST", "/webauthn/authentication/verify", assertion(api, device, "ada"))
    discoverable = api.call("POST", "/webauthn/authentication/verify", assertion(api, device))
    assert signed_in["user"]["id"] == discoverable["user"]["id"] == signed_up["user"]["id"]
    spent = assertion(api, device)
    api.call("POST", "/webauthn/authentication/verify", spent)
    api.call("POST", "/webauthn/authentication/verify", spent, status=400)

    second = register(api, device, None, token=token)
    passkeys = api.call("GET", "/me/passkeys", token=token)
    assert len(passkeys) == 2
    api.call("PATCH", f"/me/passkeys/{second['credentialId']}", {"name": "Work"}, token=token)
    api.call("PATCH", f"/me/passkeys/{second['credentialId']}", {"name": ""}, token=token, status=400, validate_request=False)
    api.call("DELETE", f"/me/passkeys/{second['credentialId']}", token=token)
    api.call("DELETE", f"/me/passkeys/{second['credentialId']}", token=token, status=404)
    api.call("DELETE", f"/me/passkeys/{signed_up['credentialId']}", token=token, status=409)
    api.call("GET", "/me", status=401, validate_request=False)
    api.call("GET", "/me", token="not-a-session", status=401)

    handoff = api.call("POST", "/session/handoff", token=token)
    code = handoff["url"].split("code=")[1]
    api.call("GET", f"/session/handoff?code={code}", status=303)
    api.call("GET", f"/session/handoff?code={code}", status=400)
    # A browser signed in to another account is asked (a page whose form carries a new code), not switched; the form,
    # posted from this origin, switches.
    other = register(api, device, "katherine")["token"]
    code = api.call("POST", "/session/handoff", token=token)["url"].split("code=")[1]
    page = api.call("GET", f"/session/handoff?code={code}", headers={"Cookie": f"__Host-passkeyd_session={other}"})
    assert "Switch account?" in page
    fresh = page.split('name="code" value="')[1].split('"')[0]
    form = {**FORM, "Origin": f"https://{RP_ID}"}
    api.call("POST", "/session/handoff/switch", raw=urlencode({"code": fresh}).encode(), headers=FORM, status=403)
    api.call("POST", "/session/handoff/switch", raw=urlencode({"code": fresh}).encode(), headers=form, status=303)
    api.call("POST", "/logout", {}, token=token)
    api.call("DELETE", "/me", token=signed_in["token"])


def test_sessions_and_recovery(world):
    api, device = world
    phone = register(api, device, "hedy")["token"]
    laptop = api.call("POST", "/webauthn/authentication/verify", assertion(api, device, "hedy"))["token"]
    tablet = api.call("POST", "/webauthn/authentication/verify", assertion(api, device, "hedy"))["token"]
    sessions = api.call("GET", "/me/sessions", token=phone)["sessions"]
    assert len(sessions) == 3
    other = next(s for s in sessions if not s.get("current"))
    api.call("DELETE", f"/me/sessions/{other['id']}", token=phone)
    api.call("DELETE", f"/me/sessions/{other['id']}", token=phone, status=404)
    assert api.call("POST", "/me/sessions/revoke-others", token=phone)["revoked"] == 1
    api.call("GET", "/me", token=laptop, status=401)
    api.call("GET", "/me", token=tablet, status=401)
    codes = api.call("POST", "/me/recovery-codes", token=phone)["codes"]
    restricted = api.call("POST", "/auth/recovery", {"username": "hedy", "code": codes[0]})
    assert restricted["restricted"] is True
    api.call("GET", "/me/passkeys", token=restricted["token"], status=403)
    api.call("POST", "/auth/recovery", {"username": "hedy", "code": codes[0]}, status=401)


def test_apple_web_flow(world):
    """GET /auth/apple/start and POST /auth/apple/callback: the stand-in's authorization page posts back its form."""
    api, device = world
    api.call("GET", "/auth/apple/start?return=%2F%2Fevil.example", status=400)
    api.call("GET", "/auth/apple/start?return=%2Fme&cancel=%2F", status=302)
    cookie = api.last.headers["Set-Cookie"].split(";")[0]
    page = requests.get(api.last.headers["Location"], timeout=10).text
    fields = dict(re.findall(r'name="([a-z_]+)" value="([^"]*)"', page.split("apple-cancel-form")[0]))
    fields = {name: html.unescape(value) for name, value in fields.items()}
    form = {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie}
    api.call("POST", "/auth/apple/callback", raw=urllib.parse.urlencode(fields), headers=form)
    assert "url=/me" in api.last.text
    # The state was used: the same answer again is refused.
    api.call("POST", "/auth/apple/callback", raw=urllib.parse.urlencode(fields), headers=form, status=400)


def test_sign_in_with_apple_and_merging(world):
    api, device = world
    apple_account = apple_sign_in(api, device, "001111.openapi.0001", name=True)
    assert apple_account["isNewAccount"] is True
    passkey_account = register(api, device, "linus")
    token = passkey_account["token"]
    conflict = apple_sign_in(api, device, "001111.openapi.0001", token=token, status=409)
    choice = api.call("POST", "/me/merge", {"proof": {"mergeToken": conflict["mergeToken"]}}, token=token, status=409)
    merged = api.call("POST", "/me/merge", {"proof": {"mergeToken": choice["mergeToken"]}, "keep": "current"}, token=token)
    assert merged["previousUserId"] == apple_account["user"]["id"]
    api.call("POST", "/me/merge", {"proof": {"mergeToken": "unknown"}, "keep": "current"}, token=token, status=400)
    linked = apple_sign_in(api, device, "002222.openapi.0001", token=token)
    api.call("DELETE", "/me/apple/002222.openapi.0001", token=linked["token"])
    api.call("DELETE", "/me/apple/002222.openapi.0001", token=token, status=404)
    api.call("POST", "/me/link-suggestion/decline", {}, token=token)
    api.call("POST", "/auth/apple", {"identityToken": "a.b.c", "rawNonce": "x"}, status=401)
    api.call("POST", "/auth/apple/notifications", {"payload": "not a JWS"}, status=400)


def google_sign_in(api: API, device: Device, subject: str, token: str | None = None, status: int = 200) -> dict:
    """POST /auth/google with a token of the device's Google stand-in; waits out the first key fetch (503)."""
    nonce = api.call("POST", "/auth/google/nonce", {}, token=token)["nonce"]
    google = device.send(command="googleToken", nonce=hashlib.sha256(nonce.encode()).hexdigest(), subject=subject)
    body = {"idToken": google["idToken"], "rawNonce": nonce}
    deadline = time.monotonic() + 10
    while api.keys_missing("google") and time.monotonic() < deadline:
        time.sleep(0.1)
    return api.call("POST", "/auth/google", body, token=token, status=status)


def test_sign_in_with_an_identity_provider(world):
    """POST /auth/{provider}/nonce, POST /auth/{provider} (sign-up, link, 409 with a merge token, refusals) and
    DELETE /me/identities/{provider}/{subject}, against the device's Google stand-in."""
    api, device = world
    signed_up = google_sign_in(api, device, "300")
    assert signed_up["isNewAccount"] is True
    me = api.call("GET", "/me", token=signed_up["token"])
    assert me["signInMethods"]["identities"][0]["subject"] == "300"
    api.call("DELETE", "/me/identities/google/300", token=signed_up["token"], status=409)
    account = register(api, device, "identity-openapi")
    google_sign_in(api, device, "301", token=account["token"])
    taken = google_sign_in(api, device, "300", token=account["token"], status=409)
    assert taken["error"] == "identity_taken" and "mergeToken" in taken
    api.call("DELETE", "/me/identities/google/301", token=account["token"])
    api.call("DELETE", "/me/identities/google/301", token=account["token"], status=404)
    api.call("POST", "/auth/google", {"idToken": "a.b.c", "rawNonce": "x"}, status=401)
    api.call("POST", "/auth/nobody", {"idToken": "a.b.c", "rawNonce": "x"}, status=404)
    api.call("POST", "/auth/nobody/nonce", {}, status=404)


def test_an_identity_provider_s_web_flow(world):
    """GET /auth/{provider}/start to the device's Google stand-in, and its redirect back to GET /auth/{provider}/callback
    (the code exchanged with PKCE at the stand-in's token endpoint)."""
    api, _ = world
    api.call("GET", "/auth/google/start?return=%2F%2Fevil.example", status=400)
    api.call("GET", "/auth/nobody/start", status=404)
    api.call("GET", "/auth/google/start?return=%2Fme&cancel=%2F", status=302)
    binding = re.search(r"__Host-passkeyd_identity_state=([^;]+)", api.last.headers["Set-Cookie"]).group(1)
    back = requests.get(api.last.headers["Location"], allow_redirects=False, timeout=10).headers["Location"]
    path = "/" + back.split("/", 3)[3]
    page = api.call("GET", path, headers={"Cookie": f"__Host-passkeyd_identity_state={binding}"})
    assert 'href="/me"' in page
    api.call("GET", path, headers={"Cookie": f"__Host-passkeyd_identity_state={binding}"}, status=400)


def test_access_tokens_introspection_and_keys(world):
    api, device = world
    signed_up = register(api, device, "barbara")
    session, access = signed_up["token"], signed_up["accessToken"]
    fresh = api.call("POST", "/session/token", token=session)
    assert fresh["tokenType"] == "Bearer" and fresh["accessToken"] != access
    assert api.call("GET", "/me", token=access)["user"]["id"] == signed_up["user"]["id"]
    assert api.call("DELETE", "/me", token=access, status=403)["error"] == "insufficient_scope"
    assert api.call("POST", "/session/token", token=access, status=403)["error"] == "insufficient_scope"
    keys = api.call("GET", "/.well-known/jwks.json")["keys"]
    header = json.loads(base64.urlsafe_b64decode(access.split(".")[0] + "=="))
    assert header["typ"] == "at+jwt" and header["kid"] in {key["kid"] for key in keys}
    discovery = api.call("GET", "/.well-known/openid-configuration")
    assert discovery["jwks_uri"] == discovery["issuer"] + "/.well-known/jwks.json"
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    live = api.call("POST", "/introspect", raw=f"token={session}".encode(), headers=form, token=BACKEND_KEY)
    assert live["active"] is True and live["token_use"] == "session"
    assert api.call("POST", "/introspect", {"token": access}, token=BACKEND_KEY)["token_use"] == "access"
    assert api.call("POST", "/introspect", {"token": "nobody's"}, token=BACKEND_KEY) == {"active": False}
    api.call("POST", "/introspect", {"token": access}, token="wrong-key", status=401)
    api.call("POST", "/introspect", {}, token=BACKEND_KEY, status=400, validate_request=False)
    api.call("POST", "/logout", {}, token=session)
    api.call("POST", "/session/token", token=session, status=401)
    api.call("GET", "/me", token=access, status=401)
    assert api.call("POST", "/introspect", {"token": access}, token=BACKEND_KEY) == {"active": False}


def basic(client: str, secret: str) -> dict:
    return {"Authorization": "Basic " + base64.b64encode(f"{client}:{secret}".encode()).decode()}


def test_the_openid_provider(world):
    """The authorization code flow with PKCE for a confidential and a public client, the refresh token's rotation,
    userinfo, revocation, and the refusals (error pages, errors sent to the redirect URI, the token endpoint's)."""
    api, device = world
    session = register(api, device, "grace")["token"]
    cookie = {"Cookie": f"__Host-passkeyd_session={session}"}
    discovery = api.call("GET", "/.well-known/openid-configuration")
    issuer = discovery["issuer"]
    assert discovery["authorization_endpoint"] == issuer + "/oauth/authorize"
    assert discovery["code_challenge_methods_supported"] == ["S256"]

    def authorize_query(client=WEB_CLIENT, redirect=WEB_REDIRECT, **extra):
        verifier = b64url(os.urandom(32))
        query = {"response_type": "code", "client_id": client, "redirect_uri": redirect, "scope": "openid profile email",
                 "state": "st-1", "nonce": "n-1", "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest()),
                 "code_challenge_method": "S256", **extra}
        return urlencode(query), verifier

    def redirected() -> dict:
        return {name: values[0] for name, values in parse_qs(urlsplit(api.last.headers["Location"]).query).items()}

    # Signed in by the cookie: straight back to the client with a code, the state and the issuer.
    query, verifier = authorize_query()
    api.call("GET", "/oauth/authorize?" + query, headers=cookie, status=302)
    assert api.last.headers["Location"].startswith(WEB_REDIRECT + "?code=")
    back = redirected()
    assert back["state"] == "st-1" and back["iss"] == issuer
    # Nobody signed in: the hosted sign-in page (not served without www); prompt=none: login_required.
    api.call("GET", "/oauth/authorize?" + query, status=302)
    assert api.last.headers["Location"] == "/oauth/sign-in?" + query
    assert api.call("GET", "/oauth/sign-in?" + query, status=404)["error"] == "not_found"
    api.call("GET", "/oauth/authorize?" + authorize_query(prompt="none")[0], status=302)
    assert redirected()["error"] == "login_required"
    api.call("GET", "/oauth/authorize?" + authorize_query(scope="profile")[0], headers=cookie, status=302, validate_request=False)
    assert redirected()["error"] == "invalid_scope"
    # An unknown client or an unregistered redirect URI: an error page, never a redirect.
    assert "invalid_client" in api.call("GET", "/oauth/authorize?" + authorize_query(client="nobody")[0], status=401)
    assert api.last.headers["X-Frame-Options"] == "DENY"
    assert "invalid_redirect_uri" in api.call("GET", "/oauth/authorize?" + authorize_query(redirect="https://evil.example/")[0],
                                             status=400)

    # The code (client_secret_basic) for the tokens.
    exchange = urlencode({"grant_type": "authorization_code", "code": back["code"], "redirect_uri": WEB_REDIRECT,
                          "code_verifier": verifier}).encode()
    tokens = api.call("POST", "/oauth/token", raw=exchange, headers={**FORM, **basic(WEB_CLIENT, OIDC_SECRET)})
    assert tokens["token_type"] == "Bearer" and set(tokens["scope"].split()) == {"openid", "profile", "email"}
    claims = json.loads(base64.urlsafe_b64decode(tokens["id_token"].split(".")[1] + "=="))
    assert claims["aud"] == WEB_CLIENT and claims["nonce"] == "n-1" and claims["iss"] == issuer
    assert api.call("POST", "/oauth/token", raw=exchange, headers={**FORM, **basic(WEB_CLIENT, "wrong")},
                    status=401)["error"] == "invalid_client"
    assert api.call("POST", "/oauth/token", {"grant_type": "authorization_code"}, headers=basic(WEB_CLIENT, OIDC_SECRET),
                    status=415, validate_request=False)["error"] == "unsupported_media_type"
    assert api.call("POST", "/oauth/token", raw=b"grant_type=password", headers={**FORM, **basic(WEB_CLIENT, OIDC_SECRET)},
                    status=400, validate_request=False)["error"] == "unsupported_grant_type"

    # userinfo (GET and POST) with the client's access token.
    info = api.call("GET", "/oauth/userinfo", token=tokens["access_token"])
    assert info["sub"] == claims["sub"] and info["preferred_username"] == "grace"
    assert api.call("POST", "/oauth/userinfo", token=tokens["access_token"])["sub"] == claims["sub"]
    assert api.call("GET", "/oauth/userinfo", status=401, validate_request=False)["error"] == "invalid_token"
    assert api.call("GET", "/oauth/userinfo", token=session, status=401)["error"] == "invalid_token"

    # The refresh token (client_secret_post) is rotated; the used one revokes the grant when it comes back.
    refresh = urlencode({"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": WEB_CLIENT,
                         "client_secret": OIDC_SECRET}).encode()
    rotated = api.call("POST", "/oauth/token", raw=refresh, headers=FORM)
    assert rotated["refresh_token"] != tokens["refresh_token"]
    assert api.call("POST", "/oauth/token", raw=refresh, headers=FORM, status=400)["error"] == "invalid_grant"
    assert api.call("GET", "/oauth/userinfo", token=rotated["access_token"], status=401)["error"] == "invalid_token"
    # The code once only (a replay would revoke its grant too).
    assert api.call("POST", "/oauth/token", raw=exchange, headers={**FORM, **basic(WEB_CLIENT, OIDC_SECRET)},
                    status=400)["error"] == "invalid_grant"

    # A public client: its first grant asks the person (the hosted page's consent view, which reads what to show from
    # GET /oauth/consent and answers POST /oauth/consent); PKCE and its client_id alone; revocation (RFC 7009) ends
    # the grant.
    query, verifier = authorize_query(client=NATIVE_CLIENT, redirect="http://127.0.0.1:49152/callback")
    api.call("GET", "/oauth/authorize?" + query, headers=cookie, status=302)
    assert api.last.headers["Location"] == "/oauth/sign-in?" + query + "&passkeyd_consent=1"
    # (openapi-core finds no cookie in a Cookie header, so the requests' security is not validated; the answers are.)
    asked = api.call("GET", "/oauth/consent?" + query, headers=cookie, validate_request=False)
    assert asked["clientId"] == NATIVE_CLIENT and asked["username"] == "grace"
    assert api.call("GET", "/oauth/consent?" + query, status=401, validate_request=False)["error"] == "not_signed_in"
    assert api.call("POST", "/oauth/consent", {"request": query}, headers=cookie, status=403,
                    validate_request=False)["error"] == "origin_mismatch"
    allowed = api.call("POST", "/oauth/consent", {"request": query}, headers={**cookie, "Origin": f"https://{RP_ID}"},
                       validate_request=False)
    native = api.call("POST", "/oauth/token", headers=FORM, raw=urlencode({
        "grant_type": "authorization_code", "code": parse_qs(urlsplit(allowed["redirect"]).query)["code"][0],
        "redirect_uri": "http://127.0.0.1:49152/callback",
        "code_verifier": verifier, "client_id": NATIVE_CLIENT}).encode())
    assert api.call("POST", "/oauth/revoke", headers={**FORM, **basic(WEB_CLIENT, "wrong")},
                    raw=urlencode({"token": native["refresh_token"]}).encode(), status=401)["error"] == "invalid_client"
    assert api.call("POST", "/oauth/revoke", headers=FORM,
                    raw=urlencode({"token": native["refresh_token"], "client_id": NATIVE_CLIENT}).encode()) == {}
    assert api.call("POST", "/oauth/revoke", headers=FORM,
                    raw=urlencode({"token": "unknown", "client_id": NATIVE_CLIENT}).encode()) == {}
    assert api.call("POST", "/oauth/revoke", headers=FORM, raw=urlencode({"client_id": NATIVE_CLIENT}).encode(), status=400,
                    validate_request=False)["error"] == "invalid_request"
    api.call("GET", "/oauth/userinfo", token=native["access_token"], status=401)


def test_associated_domain_files_and_unknown_paths(world):
    api, _ = world
    for path in ("/.well-known/apple-app-site-association", "/.well-known/assetlinks.json", "/.well-known/webauthn",
                 "/.well-known/passkey-endpoints"):
        assert api.call("GET", path, status=404)["error"] == "not_configured"


def test_the_admin_api(world):
    """Every admin operation on the admin listener with the admin key: search and its cursors, an account's detail,
    creating, changing and deleting accounts, revoking sessions, deleting a passkey, enrollment links, export and import
    (passkeyd's NDJSON and Firebase's file), webhook deliveries and their retry; and the refusals."""
    api, device = world
    signed_up = register(api, device, "margaret")
    user_id, credential = signed_up["user"]["id"], signed_up["credentialId"]
    assert api.admin("GET", "/admin/users", key=None, status=401, validate_request=False)["error"] == "admin_unauthorized"
    assert api.admin("GET", "/admin/users", key="not-an-admin-key", status=401)["error"] == "admin_unauthorized"
    assert api.admin("GET", "/admin/users", key=BACKEND_KEY, status=401)["error"] == "admin_unauthorized"
    # The public listener has no admin API, whatever the key.
    assert requests.get(api.server.url + "/admin/users", headers={"Authorization": f"Bearer {ADMIN_KEY}"}, timeout=10).status_code == 404

    # Search: a username prefix, a credential ID; pages and their cursors.
    found = api.admin("GET", "/admin/users?query=marg")["users"]
    assert [(m["user"]["id"], m["matchedBy"]) for m in found] == [(user_id, "username")]
    assert api.admin("GET", f"/admin/users?query={credential}")["users"][0]["matchedBy"] == "credentialId"
    first = api.admin("GET", "/admin/users?limit=1")
    second = api.admin("GET", f"/admin/users?limit=1&cursor={first['nextCursor']}")
    assert second["users"][0]["user"]["id"] != first["users"][0]["user"]["id"]
    assert api.admin("GET", f"/admin/users?query=m&cursor={first['nextCursor']}", status=400)["error"] == "invalid_cursor"
    assert api.admin("GET", "/admin/users?limit=0", status=400, validate_request=False)["member"] == "limit"

    # One account with what it holds; an unknown one.
    detail = api.admin("GET", f"/admin/users/{user_id}")
    assert [p["id"] for p in detail["passkeys"]] == [credential] and len(detail["sessions"]) == 1
    assert detail["recoveryCodesLeft"] == 0 and detail["appleIdentities"] == []
    assert api.admin("GET", "/admin/users/AAAA", status=404)["error"] == "user_not_found"

    # An invited account: created, changed, given an enrollment link.
    invited = api.admin("POST", "/admin/users", {"username": "invitee", "email": "i@example.com", "emailVerified": True},
                        status=201)["user"]
    assert invited["email"] == "i@example.com" and invited["emailVerified"] is True
    assert api.admin("POST", "/admin/users", {"username": "invitee"}, status=409)["error"] == "username_taken"
    # An existing user of the app, keyed by its own id: idempotent, found by it, refused when taken.
    existing = api.admin("POST", "/admin/users", {"username": "ada", "externalId": "user-1001"}, status=201)
    assert existing["created"] is True and existing["user"]["externalId"] == "user-1001"
    again = api.admin("POST", "/admin/users", {"username": "ada", "externalId": "user-1001"}, status=200)
    assert again["created"] is False and again["user"]["id"] == existing["user"]["id"]
    assert api.admin("GET", "/admin/users?externalId=user-1001")["users"][0]["matchedBy"] == "externalId"
    assert api.admin("PATCH", f"/admin/users/{invited['id']}", {"externalId": "user-1001"}, status=409)["error"] == "external_id_taken"
    assert api.admin("POST", "/admin/users", {"displayName": "Nobody"}, status=400, validate_request=False)["error"] == "invalid_username"
    api.admin("POST", "/admin/users", raw=b"username=x", headers={"Content-Type": "text/plain"}, status=415, validate_request=False)
    changed = api.admin("PATCH", f"/admin/users/{invited['id']}", {"displayName": "Ivy", "email": ""})["user"]
    assert changed["displayName"] == "Ivy" and "email" not in changed
    assert api.admin("PATCH", f"/admin/users/{invited['id']}", {"email": "not an address"}, status=400)["member"] == "email"
    assert api.admin("PATCH", "/admin/users/AAAA", {"displayName": "x"}, status=404)["error"] == "user_not_found"
    link = api.admin("POST", f"/admin/users/{invited['id']}/enrollment-links", status=201)
    assert "?token=" in link["url"]
    api.admin("POST", "/admin/users/AAAA/enrollment-links", status=404)
    # Mailing the link needs an `email` block, which this server has not.
    assert api.admin("POST", f"/admin/users/{invited['id']}/enrollment-links", {"send": True},
                     status=400)["error"] == "email_not_configured"

    # Merging another account into this one: the other one goes.
    guest = api.admin("POST", "/admin/users", {"username": "guest"}, status=201)["user"]
    assert api.admin("POST", f"/admin/users/{invited['id']}/merge", {"from": guest["id"]})["user"]["id"] == invited["id"]
    api.admin("GET", f"/admin/users/{guest['id']}", status=404)
    assert api.admin("POST", f"/admin/users/{invited['id']}/merge", {"from": guest["id"]}, status=404)["error"] == "user_not_found"
    assert api.admin("POST", f"/admin/users/{invited['id']}/merge", {"from": invited["id"]},
                     status=400)["error"] == "merge_same_account"

    # Sessions and passkeys.
    assert api.admin("POST", f"/admin/users/{user_id}/sessions/revoke")["revoked"] == 1
    api.call("GET", "/me", token=signed_up["token"], status=401)
    api.admin("POST", "/admin/users/AAAA/sessions/revoke", status=404)
    assert api.admin("DELETE", f"/admin/users/{user_id}/passkeys/{credential}") == {"deleted": True}
    assert api.admin("DELETE", f"/admin/users/{user_id}/passkeys/{credential}", status=404)["error"] == "passkey_not_found"

    # Export, and the same file imported again changes nothing; refusals name their line.
    export = api.admin("GET", "/admin/export")
    assert api.last.headers["Content-Disposition"] == 'attachment; filename="passkeyd-export.ndjson"'
    header = json.loads(export.splitlines()[0])
    assert header["type"] == "passkeyd.export" and header["relyingPartyId"] == RP_ID
    report = api.admin("POST", "/admin/import", raw=export.encode(), headers=NDJSON)
    assert report["users"]["created"] == 0 and report["users"]["unchanged"] == sum(json.loads(line)["type"] == "user" for line in export.splitlines())
    refused = api.admin("POST", "/admin/import", raw=b'{"type": "nonsense"}\n', headers=NDJSON, status=400,
                       validate_request=False)
    assert refused["error"] == "import_invalid" and refused["line"] == 1
    api.admin("POST", "/admin/import", raw=export.encode(), headers={"Content-Type": "application/json"}, status=415,
              validate_request=False)
    firebase = {"users": [
        {"localId": "fb-apple", "email": "fb@example.com", "emailVerified": True,
         "providerUserInfo": [{"providerId": "apple.com", "rawId": "001234.firebase.0001"}]},
        {"localId": "fb-password", "email": "pw@example.com", "providerUserInfo": [{"providerId": "password", "rawId": "pw@example.com"}]},
    ]}
    imported = api.admin("POST", "/admin/import?format=firebase", firebase)
    assert imported["users"]["created"] == 1 and imported["appleIdentities"]["created"] == 1
    assert imported["skipped"] == {"count": 1, "providers": {"password": 1}, "disabled": 0}
    api.admin("POST", "/admin/import?format=csv", raw=b"a,b", headers={"Content-Type": "text/csv"}, status=400, validate_request=False)

    # Another system's users with their bcrypt hashes (made by PyPI's bcrypt), and a legacy password sign-in.
    supabase = [{"id": "5b0c1d2e-0000-4000-8000-00000000aaaa", "email": "supa@example.com",
                 "encrypted_password": "$2b$04$SjCoI8hoei3efwP6lCo1k.WuG.buVBr2oKzd9z34UKv9ortIS976y",
                 "email_confirmed_at": "2024-05-01T10:00:00Z", "created_at": "2024-05-01T10:00:00Z"}]
    imported = api.admin("POST", "/admin/import?format=supabase", supabase)
    assert imported["users"]["created"] == 1 and imported["passwords"]["created"] == 1
    signed_in = api.call("POST", "/auth/password", {"email": "supa@example.com", "password": "openapi-password"})
    assert signed_in["user"]["externalId"] == "5b0c1d2e-0000-4000-8000-00000000aaaa" and signed_in["token"]
    refused = api.call("POST", "/auth/password", {"username": "supa@example.com", "password": "wrong"}, status=401)
    assert refused["error"] == "password_invalid"

    # Deleting an account.
    assert api.admin("DELETE", f"/admin/users/{invited['id']}") == {"deleted": True}
    api.admin("DELETE", f"/admin/users/{invited['id']}", status=404)

    # Webhook deliveries: the receiver answers 410 Gone, so every delivery to it is dead; one is queued again.
    deadline = time.monotonic() + 20
    while not (dead := api.admin("GET", "/admin/webhooks/deliveries?status=dead&limit=1"))["deliveries"]:
        assert time.monotonic() < deadline, "no delivery died"
        time.sleep(0.2)
    delivery = dead["deliveries"][0]
    assert delivery["endpointId"] == "gone" and delivery["lastStatus"] == 410
    everything = api.admin("GET", "/admin/webhooks/deliveries?limit=1")
    assert api.admin("GET", f"/admin/webhooks/deliveries?status=dead&cursor={everything['nextCursor']}",
                     status=400)["error"] == "invalid_cursor"
    api.admin("GET", f"/admin/webhooks/deliveries?limit=1&cursor={everything['nextCursor']}")
    assert api.admin("GET", "/admin/webhooks/deliveries?status=lost", status=400, validate_request=False)["member"] == "status"
    assert api.admin("POST", f"/admin/webhooks/deliveries/{delivery['id']}/retry") == {"queued": True}
    assert api.admin("POST", "/admin/webhooks/deliveries/999999999/retry", status=404)["error"] == "delivery_not_found"

    # The mail outbox: empty without an `email` block, and its refusals.
    assert api.admin("GET", "/admin/mail?status=dead&limit=5") == {"messages": []}
    assert api.admin("GET", "/admin/mail?status=bounced", status=400, validate_request=False)["member"] == "status"
    assert api.admin("GET", "/admin/mail?cursor=bm9wZQ", status=400)["error"] == "invalid_cursor"
    # Suppressed addresses: none, and lifting one that is not suppressed.
    assert api.admin("GET", "/admin/mail/suppressions?limit=5") == {"suppressions": []}
    assert api.admin("GET", "/admin/mail/suppressions?cursor=bm9wZQ", status=400)["error"] == "invalid_cursor"
    assert api.admin("DELETE", "/admin/mail/suppressions/nobody@example.com", status=404)["error"] == "not_found"


def test_address_verification_and_recovery_by_email(world):
    """This server has no `email` block: the endpoints answer their refusals, and the link pages show themselves."""
    api, device = world
    token = register(api, device, "ida")["token"]
    assert api.call("PATCH", "/me", {"email": "ida@example.com"}, token=token, status=400)["error"] == "email_not_configured"
    assert api.call("PATCH", "/me", {"email": "ida@example.com\r\nBcc: eve@example.com"}, token=token, status=400)["member"] == "email"
    assert api.call("POST", "/me/email/verify", {"code": "123456"}, token=token, status=400)["error"] == "email_verification_invalid"
    assert 'action="/email/verify"' in api.call("GET", "/email/verify?token=abc")
    assert "email_verification_invalid" in api.call("POST", "/email/verify", raw=urlencode({"token": "abc"}).encode(), headers=FORM, status=400)
    assert api.call("POST", "/email/verify", {"token": "abc"}, status=400)["error"] == "email_verification_invalid"
    assert api.call("POST", "/auth/recovery/email", {"email": "ida@example.com"}, status=400)["error"] == "email_not_configured"
    # The recovery link's page spends nothing and never repeats the token: its script (compiled in) does the rest.
    page = api.call("GET", "/auth/recovery/email?token=abc")
    assert 'src="/auth/recovery/email/page.js"' in page and "token=abc" not in page
    assert "/auth/recovery/email/session" in api.call("GET", "/auth/recovery/email/page.js")
    assert api.call("POST", "/auth/recovery/email/session", {"token": "abc"}, status=400)["error"] == "recovery_link_invalid"
    # No provider's bounce webhook is configured (`email.bounces`): 404.
    assert api.call("POST", "/email/events/mailgun", {"signature": {}, "event-data": {}}, status=404)["error"] == "not_found"


def test_rate_limited_answers_carry_retry_after(world):
    api, _ = world
    for _ in range(400):
        answer = requests.post(api.server.url + "/webauthn/authentication/options", json={}, timeout=10)
        if answer.status_code == 429:
            break
    assert answer.status_code == 429
    request = RequestsOpenAPIRequest(answer.request)
    api.openapi.validate_request(request)
    api.openapi.validate_response(request, RequestsOpenAPIResponse(answer))


def test_every_operation_of_the_document_was_exercised(world):
    """Runs last (pytest keeps file order): each operation of the document was validated at least once."""
    api, _ = world
    spec = json.loads(DOCUMENT.read_text())
    seen = {(method, path.split("?")[0]) for method, path, _ in api.validated}
    missing = []
    for template, operations in spec["paths"].items():
        for method in operations:
            if method not in HTTP_METHODS:  # a path item's servers
                continue
            if template in ("/apple-app-site-association", "/.well-known/apple-app-site-association") and \
                    any(p == "/.well-known/apple-app-site-association" for _, p in seen):
                continue
            prefix = template.split("{")[0]
            if not any(m == method.upper() and (p == template or ("{" in template and p.startswith(prefix))) for m, p in seen):
                missing.append(f"{method.upper()} {template}")
    assert missing == []
