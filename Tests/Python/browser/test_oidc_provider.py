"""passkeyd as an OpenID Connect provider, end to end: Authlib (what a client app's backend would use) runs the code
flow with PKCE against `passkeyd serve` for a public and a confidential client — discovery, authorize, the hosted
sign-in page driven in headless Chromium with a virtual authenticator, the token exchange, the ID token verified by
the library against the JWKS, userinfo, refresh with rotation, revocation — and Sign in with Apple's web flow
through the sign-in page against the Apple stand-in of passkeyd-test-device (which posts the form back).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import socket
import subprocess
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests
import urllib3
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, jwt
from authlib.oidc.core import CodeIDToken

from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

from conftest import REPO, RP_ID, WAIT_SECONDS, platform_authenticator, unique

urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)  # passkeyd's generated self-signed certificate

DEVICE = Path(os.environ.get("PASSKEYD_TEST_DEVICE", REPO / ".build" / "debug" / "passkeyd-test-device"))
SERVICES_ID = "com.example.passkeyd.web"
WEB_CLIENT, WEB_SECRET = "web-app", "the-web-app-secret"
NATIVE_CLIENT = "native-app"


@pytest.fixture(scope="module", autouse=True)
def example_test_resolves_to_loopback():
    """The client library reaches `https://example.test:<port>` as Chromium does (its host-resolver rule)."""
    original = socket.getaddrinfo

    def resolve(host, *args, **kwargs):
        return original("127.0.0.1" if host == RP_ID else host, *args, **kwargs)

    socket.getaddrinfo = resolve
    yield
    socket.getaddrinfo = original


class Callback:
    """The client apps' redirect URI: a loopback HTTP server that records every query it is sent."""

    def __init__(self):
        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path.startswith("/callback"):  # not the browser's /favicon.ico
                    received.append(self.path)
                body = b"<!doctype html><title>client app</title><p id=done>back in the app</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, count: int) -> str:
        deadline = time.monotonic() + WAIT_SECONDS
        while len(self.received) < count:
            assert time.monotonic() < deadline, "the client app's redirect URI was never reached"
            time.sleep(0.05)
        return f"http://127.0.0.1:{self.port}{self.received[count - 1]}"


@pytest.fixture(scope="module")
def callback():
    server = Callback()
    yield server
    server.server.shutdown()


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    """passkeyd-test-device: its Apple stand-in on loopback, and the team's .p8 key it writes."""
    if not DEVICE.exists():
        pytest.exit(f"{DEVICE} is missing: run `make test-browser` (it builds passkeyd-test-device)", returncode=2)
    p8 = tmp_path_factory.mktemp("apple") / "AuthKey.p8"
    process = subprocess.Popen([str(DEVICE), "--p8", str(p8)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    greeting = json.loads(process.stdout.readline())
    greeting["p8"] = str(p8)
    yield greeting
    process.stdin.close()
    process.wait(timeout=10)


@pytest.fixture(scope="module")
def provider(servers, device, callback):
    apple = device["appleBaseURL"]
    return servers(
        tokens={"issuer": "__SERVER_URL__"},
        oidc={"clients": [
            {"id": WEB_CLIENT, "name": "Web app", "type": "confidential",
             "secretSHA256": hashlib.sha256(WEB_SECRET.encode()).hexdigest(),
             "redirectURIs": [f"http://127.0.0.1:{callback.port}/callback"]},
            # A native app's loopback redirect URI, registered without a port: any port is accepted (RFC 8252 §7.3).
            {"id": NATIVE_CLIENT, "name": "Native app", "type": "public", "redirectURIs": ["http://127.0.0.1/callback"]},
        ]},
        apple={"teamID": "ABCDE12345", "bundleIDs": [device["bundleID"]], "servicesIDs": [SERVICES_ID], "keyID": "KEY1234567",
               "privateKey": device["p8"], "authorizeURL": f"{apple}/auth/authorize", "jwksURL": f"{apple}/auth/keys",
               "tokenURL": f"{apple}/auth/token", "revokeURL": f"{apple}/auth/revoke"},
    )


def discovery(provider) -> dict:
    document = requests.get(provider.url + "/.well-known/openid-configuration", verify=False, timeout=10).json()
    assert document["issuer"] == provider.url
    assert document["code_challenge_methods_supported"] == ["S256"]
    return document


def client_session(client_id: str, redirect_uri: str, secret: str | None = None) -> OAuth2Session:
    session = OAuth2Session(
        client_id, secret, scope="openid profile email", redirect_uri=redirect_uri, code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_basic" if secret else "none",
    )
    session.verify = False
    return session


def authorize(page, session: OAuth2Session, document: dict, **extra) -> tuple[str, str, str]:
    """Opens the authorization URL Authlib builds (PKCE S256, state, nonce): (verifier, nonce, state)."""
    verifier, nonce = secrets.token_urlsafe(48), secrets.token_urlsafe(16)
    url, state = session.create_authorization_url(document["authorization_endpoint"], code_verifier=verifier, nonce=nonce, **extra)
    page.driver.get(url)
    return verifier, nonce, state


def wait_sign_in_page(page) -> None:
    page.wait(lambda: "/oauth/sign-in?" in page.driver.current_url and page.view() == "sign-in" and not page.busy(), "the sign-in page")


def verified_id_token(token: dict, document: dict, client_id: str, nonce: str) -> dict:
    """The ID token checked by Authlib: signature against the JWKS, iss, aud, exp, iat, nonce and at_hash."""
    keys = JsonWebKey.import_key_set(requests.get(document["jwks_uri"], verify=False, timeout=10).json())
    claims = jwt.decode(
        token["id_token"], keys, claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "value": document["issuer"]}, "aud": {"essential": True, "value": client_id}},
        claims_params={"nonce": nonce, "client_id": client_id, "access_token": token["access_token"]},
    )
    claims.validate(leeway=5)
    assert claims["at_hash"] and claims["auth_time"] and claims["amr"]
    return claims


def test_a_public_and_a_confidential_client_sign_in_with_passkeys(page, provider, callback):
    document = discovery(provider)
    page.add_authenticator(platform_authenticator())

    # The native app (public, PKCE): a new account made on the sign-in page with a passkey.
    native_redirect = f"http://127.0.0.1:{callback.port}/callback"
    native = client_session(NATIVE_CLIENT, native_redirect)
    verifier, nonce, state = authorize(page, native, document)
    wait_sign_in_page(page)
    headers = requests.get(page.driver.current_url, verify=False, timeout=10).headers
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"] and headers["X-Frame-Options"] == "DENY"
    page.shot("sign-in-page")
    username = unique("ada")
    page.type_into("register-username", username)
    page.type_into("register-display-name", "Ada Lovelace")
    page.click("register")
    # A public client's first grant: the consent view names the registered app (never the page's query) and the account.
    page.wait_view("consent")
    assert page.driver.find_element("id", "consent-client").text == "Native app"
    assert page.driver.find_element("id", "consent-username").text == username
    page.shot("consent")
    page.click("allow")
    returned = callback.wait(1)
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(returned).query)["state"] == [state]
    token = native.fetch_token(document["token_endpoint"], authorization_response=returned, code_verifier=verifier, verify=False)
    claims = verified_id_token(token, document, NATIVE_CLIENT, nonce)
    assert isinstance(claims["amr"], list) and claims["amr"]
    info = native.get(document["userinfo_endpoint"], verify=False).json()
    assert info["sub"] == claims["sub"] and info["preferred_username"] == username and info["name"] == "Ada Lovelace"

    # The code is single-use: Authlib's second exchange is refused.
    with pytest.raises(Exception, match="invalid_grant"):
        native.fetch_token(document["token_endpoint"], authorization_response=returned, code_verifier=verifier, verify=False)

    # The confidential web app (client_secret_basic, PKCE as well): signed out of passkeyd first, so the page signs in
    # with the passkey (autofill or the button).
    page.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    web = client_session(WEB_CLIENT, f"http://127.0.0.1:{callback.port}/callback", WEB_SECRET)
    verifier, nonce, state = authorize(page, web, document)
    page.wait(lambda: len(callback.received) >= 2 or ("/oauth/sign-in?" in page.driver.current_url and page.view() == "sign-in"),
              "the sign-in page or the client")
    if len(callback.received) < 2:
        # Autofill (conditional mediation) may already have signed in and left the page: then there is nothing to click.
        try:
            page.click("sign-in")
        except (NoSuchElementException, StaleElementReferenceException, AssertionError):  # callback.wait below decides
            pass
    returned = callback.wait(2)
    token = web.fetch_token(document["token_endpoint"], authorization_response=returned, code_verifier=verifier, verify=False)
    web_claims = verified_id_token(token, document, WEB_CLIENT, nonce)
    assert web_claims["sub"] == claims["sub"]

    # A person signed in goes straight through: no page, a code at once.
    verifier, nonce, state = authorize(page, web, document)
    returned = callback.wait(3)
    assert "code" in urllib.parse.parse_qs(urllib.parse.urlsplit(returned).query)

    # Refresh with rotation; the used refresh token is refused afterwards (and its family revoked).
    rotated = web.refresh_token(document["token_endpoint"], refresh_token=token["refresh_token"], verify=False)
    assert rotated["refresh_token"] != token["refresh_token"]
    assert web.get(document["userinfo_endpoint"], verify=False).json()["sub"] == claims["sub"]
    with pytest.raises(Exception, match="invalid_grant"):
        web.refresh_token(document["token_endpoint"], refresh_token=token["refresh_token"], verify=False)
    with pytest.raises(Exception, match="invalid_grant"):
        web.refresh_token(document["token_endpoint"], refresh_token=rotated["refresh_token"], verify=False)

    # Revocation (RFC 7009) of a fresh grant's refresh token: it no longer refreshes.
    verifier, nonce, state = authorize(page, web, document)
    fresh = web.fetch_token(document["token_endpoint"], authorization_response=callback.wait(4), code_verifier=verifier, verify=False)
    answer = web.revoke_token(document["revocation_endpoint"], token=fresh["refresh_token"], token_type_hint="refresh_token", verify=False)
    assert answer.status_code == 200
    with pytest.raises(Exception, match="invalid_grant"):
        web.refresh_token(document["token_endpoint"], refresh_token=fresh["refresh_token"], verify=False)


def test_cancel_returns_access_denied_to_the_client(page, provider, callback):
    document = discovery(provider)
    web = client_session(WEB_CLIENT, f"http://127.0.0.1:{callback.port}/callback", WEB_SECRET)
    before = len(callback.received)
    verifier, nonce, state = authorize(page, web, document, prompt="login")
    wait_sign_in_page(page)
    page.click("cancel")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(callback.wait(before + 1)).query)
    assert query["error"] == ["access_denied"] and query["state"] == [state] and query["iss"] == [provider.url]


def test_sign_in_with_apple_through_the_web_flow(page, provider, callback):
    document = discovery(provider)
    web = client_session(WEB_CLIENT, f"http://127.0.0.1:{callback.port}/callback", WEB_SECRET)

    # The person cancels at Apple: back on the sign-in page, told so, no code for the client.
    before = len(callback.received)
    verifier, nonce, state = authorize(page, web, document)
    wait_sign_in_page(page)
    page.click("apple-sign-in")
    page.wait(lambda: "/auth/authorize?" in page.driver.current_url, "Apple's page")
    page.driver.find_element("id", "apple-cancel").click()
    wait_sign_in_page(page)
    assert "Sign in with Apple was cancelled" in page.text("error")
    assert len(callback.received) == before

    # Then continues at Apple: a new account, signed in, and the client gets its code.
    page.click("apple-sign-in")
    page.wait(lambda: "/auth/authorize?" in page.driver.current_url, "Apple's page")
    apple_query = urllib.parse.parse_qs(urllib.parse.urlsplit(page.driver.current_url).query)
    assert apple_query["response_mode"] == ["form_post"] and apple_query["client_id"] == [SERVICES_ID]
    assert apple_query["redirect_uri"] == [provider.url + "/auth/apple/callback"]
    page.shot("apple-stand-in")
    page.driver.find_element("id", "apple-continue").click()
    returned = callback.wait(before + 1)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(returned).query)
    assert "code" in query, returned
    assert query["state"] == [state]
    # The client's own nonce and PKCE verifier, from before the detour through Apple.
    token = web.fetch_token(document["token_endpoint"], authorization_response=returned, code_verifier=verifier, verify=False)
    claims = verified_id_token(token, document, WEB_CLIENT, nonce)
    assert claims["amr"]
    info = web.get(document["userinfo_endpoint"], verify=False).json()
    assert info["sub"] == claims["sub"] and info["name"] == "Ada Lovelace"
    page.driver.get(provider.url + "/healthz")
    assert page.me()["user"]["displayName"] == "Ada Lovelace"


# The browser's answer to an autofill offer the person dismisses (or lets time out): a NotAllowedError after a moment.
DISMISSED_AUTOFILL = """
(() => {
  const get = navigator.credentials.get.bind(navigator.credentials);
  window.dismissedAutofills = 0;
  PublicKeyCredential.isConditionalMediationAvailable = async () => true;
  navigator.credentials.get = (options) => {
    if (!options || options.mediation !== "conditional") return get(options);
    window.dismissedAutofills += 1;
    return new Promise((resolve, reject) => setTimeout(() => reject(new DOMException("dismissed", "NotAllowedError")), 50));
  };
})();
"""


def test_a_dismissed_autofill_shows_no_error(page, provider, callback):
    """Issue 43 item 13: the hosted sign-in page stays quiet when the person dismisses autofill, as the demo page does,
    and offers it again (a few times, never in a tight loop); the buttons still work."""
    script = page.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": DISMISSED_AUTOFILL})
    try:
        document = discovery(provider)
        web = client_session(WEB_CLIENT, f"http://127.0.0.1:{callback.port}/callback", WEB_SECRET)
        authorize(page, web, document, prompt="login")
        wait_sign_in_page(page)
        page.wait(lambda: page.driver.execute_script("return window.dismissedAutofills") >= 2, "autofill dismissed and offered again")
        time.sleep(0.5)
        assert page.text("error") == ""
        assert page.driver.execute_script("return window.dismissedAutofills") <= 4, "offered again at most three times"
        assert page.view() == "sign-in" and not page.busy()
    finally:
        page.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
