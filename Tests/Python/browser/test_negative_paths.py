"""What a person sees when things go wrong: each test asserts the page's human sentence in #error (and that no
exception name, stack frame or raw JSON reaches the page), and what the authenticator holds afterwards."""

import time

from conftest import (
    MSG_CANCELLED,
    MSG_NO_LONGER_REGISTERED,
    MSG_USERNAME_TAKEN,
    MSG_UV_REQUIRED,
    platform_authenticator,
    unique,
)


def test_user_verification_refused_by_the_authenticator(page, server):
    """The page asks for UV (?uv=required); the authenticator can't verify the user: NotAllowedError."""
    authenticator = page.add_authenticator(platform_authenticator(isUserVerified=False))
    username = unique("no-uv")
    page.open(server, "autofill=off&uv=required")

    page.register(username)
    page.wait_error(MSG_CANCELLED)
    assert page.view() == "signed-out"
    assert page.credential_ids(authenticator) == set()
    page.shot("registration-refused")

    # Once the person verifies (fingerprint accepted), the same username registers: nothing was stored before.
    page.set_user_verified(authenticator, True)
    page.register(username)
    page.wait_view("account")
    page.wait_status()
    page.sign_out()

    # Sign-in with UV required while the authenticator refuses to verify.
    page.set_user_verified(authenticator, False)
    page.sign_in()
    page.wait_error(MSG_CANCELLED)
    assert page.view() == "signed-out"
    page.shot("sign-in-refused")


def test_server_refuses_an_assertion_without_user_verification(page, server):
    """The authenticator answers without the UV flag although UV was required: the server refuses
    (user_verification_required) and the page shows its sentence."""
    authenticator = page.add_authenticator(platform_authenticator())
    page.open(server, "autofill=off&uv=required")
    page.register(unique("bad-uv"))
    page.wait_view("account")
    page.wait_status()
    page.sign_out()

    page.driver.execute_cdp_cmd("WebAuthn.setResponseOverrideBits",
                                {"authenticatorId": authenticator, "isBadUV": True})
    page.sign_in()
    page.wait_error(MSG_UV_REQUIRED)
    assert page.view() == "signed-out"
    page.shot("server-refused")


def test_cancelled_ceremony_fails_fast(page, server):
    """The person picks a device without a passkey for this site (nothing to choose, so the browser ends the
    request at once): "cancelled or timed out", well before any timeout."""
    page.add_authenticator(platform_authenticator())
    page.open(server)
    started = time.monotonic()
    page.sign_in()
    page.wait_error(MSG_CANCELLED, seconds=5)
    assert time.monotonic() - started < 5
    assert page.view() == "signed-out"
    page.shot("cancelled")


def test_declined_ceremony_times_out(page, servers):
    """The person declines the prompt (the authenticator never gets consent): the request ends when the
    server's timeout runs out. This server's challenges live 10 s, so options carry a 10 s timeout."""
    server = servers(challenges={"lifetimeSeconds": 10})
    authenticator = page.add_authenticator(platform_authenticator())
    page.open(server)
    page.register(unique("declines"))
    page.wait_view("account")
    page.wait_status()
    page.sign_out()
    saved = page.raw_credentials(authenticator)
    page.remove_authenticator(authenticator)
    declining = page.add_authenticator(platform_authenticator(isUserConsenting=False))
    for credential in saved:
        page.add_raw_credential(declining, credential)

    started = time.monotonic()
    page.sign_in()
    page.wait_error(MSG_CANCELLED, seconds=20)
    elapsed = time.monotonic() - started
    assert 9 < elapsed < 20, elapsed
    assert page.view() == "signed-out"
    page.shot("timed-out")


def test_username_taken(page, server):
    page.add_authenticator(platform_authenticator())
    username = unique("taken")
    page.open(server)
    page.register(username)
    page.wait_view("account")
    page.wait_status()
    page.sign_out()

    page.register(username)
    page.wait_error(MSG_USERNAME_TAKEN)
    assert page.view() == "signed-out"
    page.shot("username-taken")


def test_deleted_passkey_is_no_longer_registered(page, server):
    """Register two passkeys (laptop, then a security key), delete the security key's one on the account page,
    sign out and sign in with it anyway: the server answers verification_failed at credential.userHandleMismatch (as
    it answers any failed assertion: no enumeration), the page says "no longer
    registered" and calls signalUnknownCredential, which makes the authenticator forget it."""
    laptop = page.add_authenticator(platform_authenticator())
    username = unique("deleted")
    page.open(server)
    page.register(username)
    page.wait_view("account")
    page.wait_status()
    [first] = page.passkey_ids()

    laptop_credentials = page.raw_credentials(laptop)
    page.remove_authenticator(laptop)
    key = page.add_authenticator({"protocol": "ctap2", "transport": "usb", "hasResidentKey": True,
                                  "hasUserVerification": True, "isUserVerified": True})
    page.click("add-passkey")
    page.wait_status("Passkey added.")
    [second] = [i for i in page.passkey_ids() if i != first]
    assert page.credential_ids(key) == {second}
    page.shot("two-passkeys")

    # A copy of the key's credential, taken before deleting it on the server.
    key_credentials = page.raw_credentials(key)
    page.click(f"delete-{second}")
    page.click(f"delete-confirm-{second}")
    page.wait_status("Passkey deleted.")
    assert page.passkey_ids() == [first]
    # signalAllAcceptedCredentials told the security key that the passkey is no longer accepted.
    page.wait(lambda: page.credential_ids(key) == set(), "the security key to drop the deleted passkey")
    page.shot("deleted")

    # Put the deleted passkey back on the security key (as if the signal had been ignored), sign out,
    # and sign in with it through the account picker (empty username).
    for credential in key_credentials:
        page.add_raw_credential(key, credential)
    assert page.credential_ids(key) == {second}
    page.sign_out()
    page.sign_in()
    page.wait_error(MSG_NO_LONGER_REGISTERED)
    assert page.view() == "signed-out"
    page.shot("no-longer-registered")
    # signalUnknownCredential removed it from the authenticator.
    page.wait(lambda: page.credential_ids(key) == set(), "signalUnknownCredential to remove the passkey")

    # The laptop's passkey still works. It is put back with stale names; after the sign-in the page's
    # signalCurrentUserDetails gives the authenticator the account's current names.
    page.remove_authenticator(key)
    laptop = page.add_authenticator(platform_authenticator())
    for credential in laptop_credentials:
        page.add_raw_credential(laptop, dict(credential, userName="old-name", userDisplayName="Old Name"))
    assert [(c["userName"], c["userDisplayName"]) for c in page.credentials(laptop)] == [("old-name", "Old Name")]
    page.sign_in()
    page.wait_view("account")
    page.wait_status("Signed in.")
    assert page.text("account-name") == username
    page.wait(lambda: [(c["userName"], c["userDisplayName"]) for c in page.credentials(laptop)]
              == [(username, username)], "signalCurrentUserDetails to update the user name")


def decoy_transports(page, username: str) -> list[list[str]]:
    """The transports of the allowCredentials the server lists for `username`, asked from the page's origin."""
    options = page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch("/webauthn/authentication/options", {method: "POST", headers: {"Content-Type": "application/json"},
              body: JSON.stringify({username: arguments[0]})}).then((r) => r.json()).then(done, (e) => done(String(e)));
    """, username)
    return [descriptor.get("transports", []) for descriptor in options["allowCredentials"]]


def test_unknown_username_looks_like_a_cancelled_request(page, server):
    """A mistyped username gets decoy credentials from the server (no account enumeration): the authenticator
    has none of them, and the person sees the same sentence as for a cancelled request, at once.

    The decoys copy real accounts' transports, so some names get security keys only (`usb`, `nfc`): for those
    Chrome waits for a key to be plugged in, exactly as it does for a real account holding only security keys
    (a CI run met one). The test takes a name whose decoys Chrome puts to the platform authenticator."""
    page.add_authenticator(platform_authenticator())
    page.open(server)
    page.register(unique("real"))
    page.wait_view("account")
    page.wait_status()
    page.sign_out()

    names = (unique("nobody") for _ in range(50))
    name = next(n for n in names if all("internal" in transports for transports in decoy_transports(page, n)))
    assert decoy_transports(page, name) == decoy_transports(page, name), "the decoys of a name are stable"
    started = time.monotonic()
    page.sign_in(name)
    page.wait_error(MSG_CANCELLED, seconds=5)
    assert time.monotonic() - started < 5
    assert page.view() == "signed-out"
    page.shot("unknown-username")


def test_autofill_with_the_passkey_of_a_deleted_account(page, server):
    """The account is deleted, but the device still offers its passkey to autofill: the page says it is no
    longer registered, signalUnknownCredential removes it, and autofill stops retrying (no loop)."""
    laptop = page.add_authenticator(platform_authenticator())
    page.open(server)
    page.register(unique("gone"))
    page.wait_view("account")
    page.wait_status()
    saved = page.raw_credentials(laptop)
    page.click("delete-account")
    page.click("delete-account-confirm")
    page.wait_view("signed-out")
    page.wait_status("Your account was deleted.")
    page.wait(lambda: page.credential_ids(laptop) == set(), "the laptop to drop the account's passkey")
    for credential in saved:  # as if the device had ignored the signal
        page.add_raw_credential(laptop, credential)

    page.open(server, query="", wait_idle=False)  # autofill on
    page.wait_error(MSG_NO_LONGER_REGISTERED)
    page.wait(lambda: page.credential_ids(laptop) == set(), "signalUnknownCredential to remove the passkey")
    time.sleep(0.5)  # autofill restarts after a failure; the sentence must stay and no sign-in may happen
    assert page.view() == "signed-out"
    assert page.text("error") == MSG_NO_LONGER_REGISTERED
    page.shot("autofill-no-longer-registered")


def test_cloned_passkey_is_refused_and_flagged(page, server):
    """A copy of the passkey with an older signature counter (a cloned authenticator) is refused with the
    server's sentence; the owner's next sign-in shows the clone warning on the passkey."""
    laptop = page.add_authenticator(platform_authenticator())
    page.open(server)
    page.register(unique("cloned"))
    page.wait_view("account")
    page.wait_status()
    page.sign_out()
    page.sign_in()
    page.wait_view("account")
    clone_copy = page.raw_credentials(laptop)  # counter as of now
    page.sign_out()
    page.sign_in()  # the laptop moves on: the server stores a higher counter
    page.wait_view("account")
    page.sign_out()

    page.remove_authenticator(laptop)
    clone = page.add_authenticator(platform_authenticator())
    for credential in clone_copy:
        page.add_raw_credential(clone, credential)
    page.sign_in()
    page.wait_error("This passkey's signature counter went backwards; sign-in was refused.")
    assert page.view() == "signed-out"
    page.shot("clone-refused")

    # The owner's authenticator (counter ahead of the server's) still signs in, and sees the warning.
    page.remove_authenticator(clone)
    owner = page.add_authenticator(platform_authenticator())
    for credential in clone_copy:
        page.add_raw_credential(owner, dict(credential, signCount=credential["signCount"] + 10))
    page.sign_in()
    page.wait_view("account")
    page.wait_status("Signed in.")
    [passkey] = page.me()["passkeys"]
    assert passkey["cloneWarning"] is True
    note = page.driver.find_element("css selector", f'li[data-credential-id="{passkey["id"]}"] [data-note="clone-warning"]')
    assert note.is_displayed()
    page.shot("clone-warning")


def test_backup_eligibility_change_is_reported_not_refused(page, server):
    """A passkey registered as device-bound later signs in as backup eligible and backed up: the sign-in works
    (no lockout), GET /me records the new flags, and the page shows the backup-eligibility note."""
    laptop = page.add_authenticator(platform_authenticator())
    page.open(server)
    page.register(unique("be-change"))
    page.wait_view("account")
    page.wait_status()
    [registered] = page.me()["passkeys"]
    assert (registered["backupEligible"], registered["backupState"]) == (False, False)
    page.sign_out()

    copies = page.credentials(laptop)  # CDP form: carries the backup flags
    page.remove_authenticator(laptop)
    synced = page.add_authenticator(platform_authenticator())
    for credential in copies:
        page.driver.execute_cdp_cmd("WebAuthn.addCredential", {
            "authenticatorId": synced,
            "credential": dict(credential, backupEligibility=True, backupState=True)})
    page.sign_in()
    page.wait_view("account")
    page.wait_status("Signed in.")
    [passkey] = page.me()["passkeys"]
    assert passkey["backupEligibilityChanged"] is True
    assert (passkey["backupEligible"], passkey["backupState"]) == (True, True)
    row = f'li[data-credential-id="{passkey["id"]}"]'
    assert page.driver.find_element("css selector", f'{row} [data-note="backup-eligibility-changed"]').is_displayed()
    assert page.driver.find_element("css selector", f"{row} [data-backup-state]").get_attribute("data-backup-state") == "true"
    page.shot("backup-eligibility-changed")
