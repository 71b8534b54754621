"""A person uses the demo page from sign-up to account deletion, in real Chromium with virtual authenticators."""

from conftest import (
    MSG_ALREADY_HOLDS,
    MSG_LAST_CREDENTIAL,
    platform_authenticator,
    unique,
)


def test_person_uses_the_demo_page(page, server):
    # A laptop with a synced platform passkey provider (backup eligible and backed up).
    laptop = page.add_authenticator(platform_authenticator(
        protocol="ctap2_1", defaultBackupEligibility=True, defaultBackupState=True))
    username = "ada"  # the flow test is the only one using this name on its server

    # Sign up: type a username and a display name, click "Create account with a passkey".
    page.open(server)
    assert page.view() == "signed-out"
    page.shot("signed-out")
    page.register(username, "Ada Lovelace")
    page.shot("typed-username")
    page.wait_view("account")
    page.wait_status("Your account is ready and you're signed in with your new passkey.")
    assert page.text("account-name") == username
    assert page.text("account-display-name") == "Ada Lovelace"
    [first] = page.passkey_ids()
    assert page.credential_ids(laptop) == {first}
    assert page.element(f"passkey-name-{first}").text == "Passkey"
    assert page.driver.find_element("css selector", f'li[data-credential-id="{first}"] [data-backup-state]') \
        .get_attribute("data-backup-state") == "true"
    page.shot("registered")

    # Sign out, then sign in with the button and an empty username (discoverable credential).
    page.sign_out()
    page.shot("signed-out-again")
    page.sign_in()
    page.wait_view("account")
    page.wait_status("Signed in.")
    assert page.text("account-name") == username
    page.shot("signed-in-with-button")

    # Sign out, then load the page normally: autofill (conditional mediation) signs in without a click.
    page.sign_out()
    page.open(server, query="", wait_idle=False)
    page.wait_view("account")
    page.wait_status("Signed in.")
    assert page.element("app").get_attribute("data-autofill") == "idle"
    assert page.me()["passkeys"][0]["lastUsedAt"]
    page.shot("signed-in-with-autofill")
    page.open(server)  # back to a page without autofill for the rest

    # "Add a passkey" with the same laptop: excludeCredentials makes the authenticator refuse.
    page.click("add-passkey")
    page.wait_error(MSG_ALREADY_HOLDS)
    assert len(page.passkey_ids()) == 1
    page.shot("same-authenticator-refused")

    # Plug in a security key instead (the laptop's authenticator is set aside meanwhile) and add it.
    saved = page.raw_credentials(laptop)
    page.remove_authenticator(laptop)
    key = page.add_authenticator({"protocol": "ctap2", "transport": "usb", "hasResidentKey": True,
                                  "hasUserVerification": True, "isUserVerified": True})
    page.click("add-passkey")
    page.wait_status("Passkey added.")
    ids = page.passkey_ids()
    assert len(ids) == 2 and ids[0] == first
    second = ids[1]
    assert page.credential_ids(key) == {second}
    passkeys = {p["id"]: p for p in page.me()["passkeys"]}
    assert passkeys[second]["transports"] == ["usb"]
    assert passkeys[second]["backupEligible"] is False
    page.shot("second-passkey-added")

    # The laptop comes back: both authenticators are present from now on.
    laptop = page.add_authenticator(platform_authenticator(
        protocol="ctap2_1", defaultBackupEligibility=True, defaultBackupState=True))
    for credential in saved:
        page.add_raw_credential(laptop, credential)

    # Rename both passkeys (Save button, then the Enter key).
    page.click(f"rename-{second}")
    page.type_into(f"rename-input-{second}", "Blue security key")
    page.shot("renaming")
    page.click(f"rename-save-{second}")
    page.wait_status("Passkey renamed.")
    assert page.text(f"passkey-name-{second}") == "Blue security key"
    page.click(f"rename-{first}")
    page.type_into(f"rename-input-{first}", "Laptop\n")
    page.wait_status("Passkey renamed.")
    assert page.text(f"passkey-name-{first}") == "Laptop"
    assert {p["name"] for p in page.me()["passkeys"]} == {"Laptop", "Blue security key"}
    page.shot("renamed")  # this is the picture in docs/demo.png

    # Delete the security key's passkey: inline confirmation, then it is gone here and, through
    # signalAllAcceptedCredentials, from the security key too; the laptop keeps its passkey.
    page.click(f"delete-{second}")
    page.shot("delete-confirmation")
    page.click(f"delete-confirm-{second}")
    page.wait_status("Passkey deleted.")
    assert page.passkey_ids() == [first]
    page.wait(lambda: page.credential_ids(key) == set(), "the security key to drop the deleted passkey")
    assert page.credential_ids(laptop) == {first}
    page.shot("passkey-deleted")

    # The only passkey left cannot be deleted.
    page.click(f"delete-{first}")
    page.click(f"delete-confirm-{first}")
    page.wait_error(MSG_LAST_CREDENTIAL)
    assert page.passkey_ids() == [first]
    page.shot("last-passkey-kept")

    # Delete the account: inline confirmation; the session ends and the laptop forgets the passkey
    # (signalAllAcceptedCredentials with an empty list).
    page.click("delete-account")
    page.shot("delete-account-confirmation")
    page.click("delete-account-confirm")
    page.wait_view("signed-out")
    page.wait_status("Your account was deleted.")
    assert page.fetch("GET", "/me")[0] == 401
    page.wait(lambda: page.credential_ids(laptop) == set(), "the laptop to drop the account's passkey")
    page.shot("account-deleted")

    # The username is free again.
    page.register(username)
    page.wait_view("account")
    page.wait_status("Your account is ready and you're signed in with your new passkey.")
