"""A website on a second origin of the same site uses the JSON API with credentials: it signs up with a passkey
through cross-origin fetches (CORS preflights answered by passkeyd), and gets an access token from
`POST /session/token` with the session cookie (`credentials: "include"`), which the app's API verifies with PyJWT
against the served JWKS. A page on an origin that is not configured cannot read any answer."""

import http.server
import json
import ssl
import subprocess
import threading

import jwt
import pytest

from conftest import RP_ID, _free_port, platform_authenticator, unique

PAGE = """<!doctype html><meta charset="utf-8"><title>The app's other site</title>
<script>
async function call(api, path, body) {
  const response = await fetch(api + path, {method: "POST", credentials: "include",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  return [response.status, await response.json()];
}
async function signUpAndGetToken(api, username) {
  const [optionsStatus, options] = await call(api, "/webauthn/registration/options", {username});
  const credential = await navigator.credentials.create(
    {publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options)});
  const [verifyStatus, verified] = await call(api, "/webauthn/registration/verify", credential.toJSON());
  const [tokenStatus, token] = await call(api, "/session/token", {});
  const me = await fetch(api + "/me", {credentials: "include"});
  return {optionsStatus, verifyStatus, verified, tokenStatus, token, meStatus: me.status, me: await me.json()};
}
</script>"""


class _PageServer:
    """One HTTPS page on a loopback port of its own, with a throwaway self-signed certificate (Chromium ignores
    certificate errors in this suite)."""

    def __init__(self, folder):
        self.port = _free_port()
        key, certificate = folder / "page.key", folder / "page.crt"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                        "-days", "1", "-subj", f"/CN={RP_ID}", "-keyout", str(key), "-out", str(certificate)],
                       check=True, capture_output=True)

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the standard library's name
                body = PAGE.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"https://{RP_ID}:{self.port}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def page_servers(tmp_path):
    folders = [tmp_path / "allowed", tmp_path / "other"]
    for folder in folders:
        folder.mkdir()
    allowed, other = (_PageServer(folder) for folder in folders)
    yield allowed, other
    allowed.stop()
    other.stop()


def _jwks_client(server) -> jwt.PyJWKClient:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # passkeyd's generated self-signed certificate
    return jwt.PyJWKClient(f"https://127.0.0.1:{server.port}/.well-known/jwks.json", ssl_context=context)


def test_a_second_origin_signs_in_and_gets_an_access_token(page, servers, page_servers):
    allowed, other = page_servers
    server = servers(extraOrigins=[allowed.url])
    page.add_authenticator(platform_authenticator())
    page.driver.get(allowed.url + "/")
    page.shot("second-origin-page")
    username = unique("cross")
    result = page.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "signUpAndGetToken(arguments[0], arguments[1]).then(done, e => done({error: String(e)}));",
        server.url, username)
    assert "error" not in result, result
    assert result["optionsStatus"] == 200 and result["verifyStatus"] == 200, result
    # The cookie passkeyd set on its cross-origin answer came back with the Origin of this page.
    assert result["tokenStatus"] == 200, result
    assert result["meStatus"] == 200 and result["me"]["user"]["name"] == username
    token = result["token"]["accessToken"]
    key = _jwks_client(server).get_signing_key_from_jwt(token)
    claims = jwt.decode(token, key.key, algorithms=["ES256"], audience=RP_ID, issuer=f"https://{RP_ID}")
    assert claims["sub"] == result["verified"]["user"]["id"]
    assert claims["username"] == username
    assert jwt.get_unverified_header(token)["typ"] == "at+jwt"

    # A page of an origin passkeyd does not list gets no CORS headers: the browser lets it read nothing.
    page.driver.get(other.url + "/")
    refused = page.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0] + '/me', {credentials: 'include'}).then(r => done('read ' + r.status), e => done('refused'));",
        server.url)
    assert refused == "refused"
    page.shot("other-origin-refused")
