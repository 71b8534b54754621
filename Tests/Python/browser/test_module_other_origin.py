"""clients/web/passkeyd.js used outside the demo: a small page of the app's on another origin (another loopback port)
imports the module from passkeyd's own origin (`import("https://passkeyd/passkeyd.js")`, a CORS fetch) and, with
`createPasskeyd({baseURL})`, registers, gets access tokens with `accessToken()` (checked by the PyJWT test backend of
Tests/Python/backend against the served JWKS), signs out (after which `accessToken()` is `not_signed_in`) and signs in again.
passkeyd's `cors.allowedOrigins` lists that origin; a page of an origin it does not list (though a relying-party
origin) can neither import the module from passkeyd nor, with its own copy, get any answer: `network`."""

import json
import subprocess
import sys

from conftest import REPO, RP_ID, platform_authenticator, unique

PAGE = """<!doctype html><meta charset="utf-8"><title>The app's own site</title>
<script>
// Everything through the module: no ceremony, fetch or JSON of its own.
async function throughTheModule(moduleURL, api, username) {
  const { createPasskeyd } = await import(moduleURL);
  const passkeyd = createPasskeyd({ baseURL: api });
  const registered = await passkeyd.register({ username });
  const first = await passkeyd.accessToken();
  const second = await passkeyd.accessToken();
  await passkeyd.signOut();
  const afterSignOut = await passkeyd.accessToken().then(() => "minted", (e) => e.code);
  const signedIn = await passkeyd.signIn({ username });
  const third = await passkeyd.accessToken();
  const passkeys = await passkeyd.listPasskeys();
  return { registered, first, second, afterSignOut, signedIn, third, passkeys };
}
async function importFrom(moduleURL) {
  return import(moduleURL).then((m) => typeof m.createPasskeyd, (e) => "refused: " + e.name);
}
async function registerWithCopy(api, username) {
  const { createPasskeyd } = await import("/passkeyd.js");
  return createPasskeyd({ baseURL: api }).register({ username }).then(() => "registered", (e) => [e.code, e.name]);
}
</script>"""


def run(page, function: str, *arguments):
    return page.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        f"{function}(...Array.from(arguments).slice(0, -1)).then(done, (e) => done({{thrown: String(e)}}));",
        *arguments)


def verify_with_the_backend(server, tokens: dict) -> dict:
    """Tests/Python/backend/verify_tokens.py (PyJWT, as the app's API verifies), with this suite's Python (it has PyJWT)."""
    request = {"jwks_url": f"https://127.0.0.1:{server.port}/.well-known/jwks.json", "issuer": f"https://{RP_ID}",
               "audience": RP_ID, "tokens": tokens}
    answer = subprocess.run([sys.executable, str(REPO / "Tests" / "Python" / "backend" / "verify_tokens.py")], input=json.dumps(request),
                            capture_output=True, text=True, check=True, timeout=60)
    return json.loads(answer.stdout)


def test_a_page_of_another_origin_imports_the_module_and_signs_in_through_it(page, servers, page_servers):
    site = page_servers({"/": PAGE})
    stranger = page_servers({"/": PAGE, "/passkeyd.js": (REPO / "clients" / "web" / "passkeyd.js").read_text()})
    # Both are relying-party origins (their ceremonies would verify); only the site may use the API across origins.
    server = servers(extraOrigins=[site.url, stranger.url], cors={"allowedOrigins": [site.url]})
    page.add_authenticator(platform_authenticator())
    username = unique("module")

    page.driver.get(site.url + "/")
    result = run(page, "throughTheModule", server.url + "/passkeyd.js", server.url, username)
    page.shot("other-origin-module")
    assert "thrown" not in result, result
    registered, signed_in = result["registered"], result["signedIn"]
    assert registered["verified"] is True and registered["account"]["user"]["username"] == username
    assert signed_in["user"]["id"] == registered["user"]["id"] and signed_in["account"]["rpId"] == RP_ID
    assert [p["id"] for p in result["passkeys"]] == [registered["credentialId"]]
    tokens = {name: result[name] for name in ("first", "second", "third")}
    for token in tokens.values():
        assert token["tokenType"] == "Bearer" and token["accessTokenExpiresAt"]
    assert len({token["accessToken"] for token in tokens.values()}) == 3, "each call mints a new token"
    assert result["afterSignOut"] == "not_signed_in"

    verdicts = verify_with_the_backend(server, {name: token["accessToken"] for name, token in tokens.items()})
    assert {name: verdicts[name] for name in tokens} == {name: "ok" for name in tokens}, verdicts
    claims = verdicts["claims"]
    assert {c["sub"] for c in claims.values()} == {registered["user"]["id"]}
    assert all(c["username"] == username for c in claims.values())
    # The sign-in after the sign-out is another session.
    assert claims["first"]["sid"] == claims["second"]["sid"] != claims["third"]["sid"]

    # An origin passkeyd's CORS settings do not list: passkeyd's module cannot be imported, and a copy of it reaches
    # no answer (the browser hides every one), so nothing is registered.
    page.driver.get(stranger.url + "/")
    assert run(page, "importFrom", "/passkeyd.js") == "function"  # its own copy, from its own origin
    assert run(page, "importFrom", server.url + "/passkeyd.js") == "refused: TypeError"
    assert run(page, "registerWithCopy", server.url, unique("stranger")) == ["network", "PasskeydError"]
    page.shot("not-allowed-origin-refused")
