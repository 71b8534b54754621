"""The web module's bridge from an imported password to a passkey (docs/guides/passwords.md): `signInWithPassword` with a
hash imported by `passkeyd admin import` (PBKDF2 in passlib's form, made here with hashlib), a wrong password refused
as `password_invalid`, then `upgradeToPasskey()` (the automatic upgrade, conditional create) where the browser can,
and `register()` where it cannot; under `passwords.session: "upgradeOnly"` the restricted session is carried by its
token (no cookie), can add a passkey and read the account, and gets no access token."""

import base64
import hashlib
import json
import os
import subprocess
import uuid

from conftest import BINARY, platform_authenticator, unique

PASSWORD = "correct horse battery staple"

SCRIPT = """
const done = arguments[arguments.length - 1];
const [step, username, password] = arguments;
(async () => {
  const { createPasskeyd } = await import("/passkeyd.js");
  window.client = window.client || createPasskeyd();
  const client = window.client;
  const outcome = (promise) => promise.then((value) => ({ value }), (error) => ({ code: error.code, name: error.name }));
  switch (step) {
    case "wrong": return outcome(client.signInWithPassword({ username, password: password + "!" }));
    case "password": return outcome(client.signInWithPassword({ username, password }));
    case "capability": return { value: await client.isConditionalCreateAvailable() };
    case "upgrade": {
      // The automatic upgrade is silent: it may settle at once, or wait for the password manager for good.
      window.upgrade = outcome(client.upgradeToPasskey());
      const settled = await Promise.race([window.upgrade, new Promise((resolve) => setTimeout(() => resolve(null), 2000))]);
      return settled || { pending: true };
    }
    case "upgradeOutcome": return window.upgrade;
    case "register": return outcome(client.register());
    case "account": return outcome(client.account());
    case "token": return outcome(client.accessToken());
    case "signOut": return outcome(client.signOut());
    case "passkey": return outcome(client.signIn({ username }));
  }
})().then(done, (error) => done({ thrown: String(error) }));
"""


def passlib_pbkdf2_sha256(password: str, rounds: int = 29000) -> str:
    """passlib's `$pbkdf2-sha256$` form: its "ab64" is base64 with "." for "+" and no padding."""
    salt = os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, rounds)
    ab64 = lambda data: base64.b64encode(data).decode().rstrip("=").replace("+", ".")
    return f"$pbkdf2-sha256${rounds}${ab64(salt)}${ab64(digest)}"


def import_user(server, tmp_path, username: str) -> None:
    lines = [
        {"type": "passkeyd.export", "version": 1, "relyingPartyId": "example.test", "exportedAt": "2026-12-05T12:00:00.000Z"},
        {"type": "user", "id": base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip("="), "username": username,
         "displayName": username, "displayNameIsDefault": True, "appAccountToken": str(uuid.uuid4()),
         "emailVerified": False, "createdAt": "2026-12-05T12:00:00.000Z", "passwordHash": passlib_pbkdf2_sha256(PASSWORD)},
    ]
    path = tmp_path / f"{username}.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines))
    result = subprocess.run([str(BINARY), "admin", "import", str(path), "--config", str(server.config_path)],
                            capture_output=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr.decode(errors="replace")


def step(page, name: str, username: str) -> dict:
    return page.driver.execute_async_script(SCRIPT, name, username, PASSWORD)


def test_a_password_sign_in_then_a_passkey_through_the_web_module(page, servers, tmp_path):
    server = servers(passwords={"session": "full"})
    username = unique("bridge")
    import_user(server, tmp_path, username)
    page.add_authenticator(platform_authenticator())
    page.open(server)

    assert step(page, "wrong", username) == {"code": "password_invalid", "name": "PasskeydError"}
    signed_in = step(page, "password", username)["value"]
    assert signed_in["account"]["user"]["username"] == username and "restricted" not in signed_in
    assert step(page, "token", username)["value"]["tokenType"] == "Bearer", "a full session reaches the app's API"

    # The automatic upgrade where the browser offers conditional create. Headless Chrome's password manager did not
    # fill the password, so Chrome neither creates the passkey nor says so: the upgrade waits, silently, and the
    # modal registration the page offers instead aborts it (one ceremony at a time).
    available = step(page, "capability", username)["value"]
    upgraded = step(page, "upgrade", username)
    print(f"conditional create available: {available}; the upgrade: {upgraded}")
    if not available:
        assert upgraded == {"code": "unsupported", "name": "PasskeydError"}
    elif "value" in upgraded:
        assert upgraded["value"]["upgrade"] is True and upgraded["value"]["user"]["username"] == username
    else:
        # Waiting, or declined by the browser (quietly: a browser code, never one of passkeyd's).
        assert upgraded.get("pending") or upgraded.get("code") in ("not_allowed", "cancelled"), upgraded
    if "value" not in upgraded:
        registered = step(page, "register", username)["value"]
        assert registered["verified"] is True and registered["user"]["username"] == username
        if upgraded.get("pending"):
            assert step(page, "upgradeOutcome", username) == {"code": "aborted", "name": "PasskeydError"}
    page.shot("password-then-passkey")

    assert step(page, "signOut", username)["value"] == {"signedOut": True}
    assert step(page, "passkey", username)["value"]["user"]["username"] == username, "the new passkey signs in"


def test_an_upgrade_only_session_is_carried_by_its_token_and_only_adds_a_passkey(page, servers, tmp_path):
    server = servers(passwords={"session": "upgradeOnly"})
    username = unique("restricted")
    import_user(server, tmp_path, username)
    page.add_authenticator(platform_authenticator())
    page.open(server)

    signed_in = step(page, "password", username)["value"]
    assert signed_in["restricted"] is True and "accessToken" not in signed_in
    assert signed_in["account"]["user"]["username"] == username, "GET /me with the restricted session's token"
    assert not any(cookie["name"].startswith("__Host-passkeyd") and cookie["name"].endswith("session")
                   for cookie in page.driver.get_cookies()), "a restricted session sets no cookie"
    assert step(page, "token", username)["code"] == "password_session_restricted"
    registered = step(page, "register", username)["value"]
    assert registered["verified"] is True and registered["user"]["username"] == username
    assert step(page, "signOut", username)["value"] == {"signedOut": True}
    assert step(page, "account", username)["code"] == "not_signed_in"
    assert step(page, "passkey", username)["value"]["user"]["username"] == username
