"""The page of enrollment links (`/enroll?token=…`): a person who lost every passkey opens the link an operator made
with `passkeyd admin users enroll-link` and registers a new passkey on their account, signed in; the link works once."""

import json
import subprocess

from conftest import BINARY, platform_authenticator, unique


def enrollment_link(server, user_id: str) -> str:
    """The operator's command, on the running server's store."""
    result = subprocess.run(
        [str(BINARY), "admin", "users", "enroll-link", user_id, "--config", str(server.config_path), "--json"],
        capture_output=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    return json.loads(result.stdout)["url"]


def test_an_enrollment_link_registers_a_passkey_on_the_account_once(page, server):
    lost = page.add_authenticator(platform_authenticator())
    page.open(server)
    page.register(unique("lost"))
    page.wait_view("account")
    page.wait_status()
    account = page.me()
    user_id = account["user"]["id"]
    page.sign_out()
    # Every passkey lost: the authenticator is gone.
    page.remove_authenticator(lost)
    found = page.add_authenticator(platform_authenticator())

    url = enrollment_link(server, user_id)
    assert url.startswith(f"{server.url}/enroll?token=")
    page.driver.get(url)
    page.wait(lambda: page.element("enroll-create").is_enabled(), "the enrollment page")
    assert "token=" not in page.driver.current_url, "the token is not left in the address bar"
    page.shot("enrollment-page")
    page.click("enroll-create")
    page.wait(lambda: page.view() == "enrolled" and not page.busy(), "the enrolled view")
    page.wait_status("Your new passkey was added and you're signed in.")
    page.shot("enrolled")

    me = page.me()
    assert me["user"]["id"] == user_id
    assert len(me["passkeys"]) == 2, me["passkeys"]
    assert len(page.credential_ids(found)) == 1

    # The same link again: refused with the server's sentence, nothing registered.
    page.driver.get(url)
    page.wait(lambda: page.element("enroll-create").is_enabled(), "the enrollment page")
    page.click("enroll-create")
    page.wait_error("This enrollment link is not valid, or was already used.")
    assert len(page.credential_ids(found)) == 1
    page.shot("used-twice")
