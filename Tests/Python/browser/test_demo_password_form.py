"""The demo page's "Sign in with a password" form (www/password.js, www/README.md): a password imported by `passkeyd
admin import` signs in through `signInWithPassword`, a wrong one shows the refusal's sentence and stays signed out,
the automatic upgrade (`upgradeToPasskey()`) runs silently and the offer's modal registration adds a passkey with the
virtual authenticator, which then signs in, also from the restricted session of `passwords.session: "upgradeOnly"`.
The shipped example import (examples/demo-password-users.ndjson) signs in
by email with the password its script documents, and the form fits a phone's width."""

import json
import subprocess

from conftest import BINARY, REPO, RP_ID, platform_authenticator, unique
from test_password_upgrade import PASSWORD, import_user

MSG_PASSWORD_INVALID = "That username, email or password is wrong."
MSG_MISSING = "Enter your username or email and your password."
MSG_SIGNED_IN = "Signed in with your password."
EXAMPLE_IMPORT = REPO / "examples" / "demo-password-users.ndjson"


def password_sign_in(page, identifier: str, password: str) -> None:
    page.type_into("password-identifier", identifier)
    page.type_into("password", password)
    page.click("password-sign-in")


def assert_password_nowhere(page, password: str) -> None:
    """Not in the address bar, nor in the field after the attempt, nor in the console."""
    assert password not in page.driver.current_url
    assert page.element("password").get_attribute("value") == ""
    console = page.driver.get_log("browser")
    assert not [entry for entry in console if password in entry["message"]], console


# Records the `mediation` of each navigator.credentials.create the page makes (the automatic upgrade's is "conditional").
SPY_ON_CREATE = """
window.creates = [];
const create = navigator.credentials.create.bind(navigator.credentials);
navigator.credentials.create = (options) => { window.creates.push(options.mediation || "modal"); return create(options); };
"""


def test_the_password_form_signs_in_then_the_offer_adds_a_passkey(page, servers, tmp_path):
    server = servers(passwords={"session": "full"})
    username = unique("form")
    import_user(server, tmp_path, username)
    authenticator = page.add_authenticator(platform_authenticator())
    page.open(server)
    page.driver.execute_script(SPY_ON_CREATE)

    page.click("password-sign-in")
    page.wait_error(MSG_MISSING)

    password_sign_in(page, username, PASSWORD + "!")
    page.wait_error(MSG_PASSWORD_INVALID)
    assert page.view() == "signed-out"
    assert_password_nowhere(page, PASSWORD + "!")
    page.shot("wrong-password")

    password_sign_in(page, username, PASSWORD)
    page.wait_view("account")
    page.wait_status(MSG_SIGNED_IN)
    assert page.text("account-name") == username
    assert page.me()["user"]["username"] == username
    assert_password_nowhere(page, PASSWORD)
    # The automatic upgrade runs, and waits in headless Chromium (no password manager filled the password; see
    # test_password_upgrade.py): quietly, with the modal registration offered instead.
    page.wait(lambda: page.driver.execute_script("return window.creates") == ["conditional"], "the automatic upgrade")
    assert page.element("passkey-offer").is_displayed()
    assert page.passkey_ids() == [] and page.credential_ids(authenticator) == set()
    assert page.text("error") == ""
    page.shot("signed-in-with-password")

    page.click("offer-passkey")
    page.wait_status("Passkey added.")
    assert page.driver.execute_script("return window.creates") == ["conditional", "modal"]
    assert not page.element("passkey-offer").is_displayed()
    assert page.passkey_ids() and set(page.passkey_ids()) == page.credential_ids(authenticator)
    page.shot("passkey-added")

    page.sign_out()
    page.sign_in(username)
    page.wait_view("account")
    assert page.text("account-name") == username, "the passkey the offer made signs in"
    assert not page.element("passkey-offer").is_displayed(), "the offer follows a password sign-in only"


def test_the_example_import_signs_in_by_email_on_a_phone_width(page, servers, tmp_path):
    server = servers(passwords={"session": "full"})
    lines = [json.loads(line) for line in EXAMPLE_IMPORT.read_text().splitlines()]
    assert lines[0]["relyingPartyId"] == "localhost", "the example is for examples/passkeyd.json"
    lines[0]["relyingPartyId"] = RP_ID  # this suite's relying party; the user line is the shipped one
    path = tmp_path / "demo-password-users.ndjson"
    path.write_text("\n".join(json.dumps(line) for line in lines))
    result = subprocess.run([str(BINARY), "admin", "import", str(path), "--config", str(server.config_path)],
                            capture_output=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr.decode(errors="replace")

    size = page.driver.get_window_size()
    page.driver.set_window_size(390, 844)
    try:
        page.open(server)
        overflow = "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        assert page.driver.execute_script(overflow) <= 0, "the signed-out view fits a phone's width"
        page.shot("phone-signed-out")
        password_sign_in(page, "ada@example.com", PASSWORD)  # the password the example's script documents
        page.wait_view("account")
        page.wait_status(MSG_SIGNED_IN)
        assert page.text("account-name") == "ada"
        assert page.driver.execute_script(overflow) <= 0, "the account view and the offer fit a phone's width"
        page.shot("phone-signed-in")
        page.sign_out()
    finally:
        page.driver.set_window_size(size["width"], size["height"])


def test_an_upgrade_only_session_on_the_page_adds_a_passkey_through_the_offer(page, servers, tmp_path):
    server = servers(passwords={"session": "upgradeOnly"})
    username = unique("form-restricted")
    import_user(server, tmp_path, username)
    authenticator = page.add_authenticator(platform_authenticator())
    page.open(server)

    password_sign_in(page, username, PASSWORD)
    page.wait_view("account")
    page.wait_status(MSG_SIGNED_IN)
    assert page.text("account-name") == username, "GET /me with the restricted session's token"
    assert page.element("passkey-offer").is_displayed()
    page.click("offer-passkey")
    page.wait_status("Passkey added.")
    assert page.passkey_ids() and set(page.passkey_ids()) == page.credential_ids(authenticator)
    page.sign_out()
    page.sign_in(username)
    page.wait_view("account")
    assert page.text("account-name") == username
