"""A website on a second origin of the same site uses the JSON API with credentials: it signs up with a passkey
through cross-origin fetches (CORS preflights answered by passkeyd), and gets an access token from
`POST /session/token` with the session cookie (`credentials: "include"`), which the app's API verifies with PyJWT
against the served JWKS. A page on an origin that is not configured cannot read any answer."""

import ssl

import jwt

from conftest import RP_ID, platform_authenticator, unique

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


def _jwks_client(server) -> jwt.PyJWKClient:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # passkeyd's generated self-signed certificate
    return jwt.PyJWKClient(f"https://127.0.0.1:{server.port}/.well-known/jwks.json", ssl_context=context)


def test_a_second_origin_signs_in_and_gets_an_access_token(page, servers, page_servers):
    allowed, other = page_servers({"/": PAGE}), page_servers({"/": PAGE})
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
