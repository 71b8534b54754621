"""Authenticator matrix: every row registers and signs in through the real page, against a server that offers
only the row's algorithm, and checks what the server recorded (GET /me, fetched by the page).

Rows: authenticator kind × algorithm (where the authenticator supports it) × attestation conveyance.
- ctap2 internal: a platform authenticator with user verification, discoverable credentials.
- ctap2_1 usb + prf + largeBlob, backup eligible and backed up (BE+BS): a synced security-key-like passkey.
- U2F usb: fido-u2f attestation, ES256 only, no user handle and no discoverable credentials, so sign-in must
  name the account in the username field (a discoverable attempt fails, and the page says so).
"""

import pytest

from conftest import MSG_CANCELLED, unique

COSE = {"ES256": -7, "EdDSA": -8, "RS256": -257}
CHROMIUM_AAGUID = "01020304-0506-0708-0102-030405060708"
ZERO_AAGUID = "00000000-0000-0000-0000-000000000000"

AUTHENTICATORS = {
    "ctap2-internal": {
        "options": {"protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
                    "hasUserVerification": True, "isUserVerified": True},
        "algorithms": ("ES256", "EdDSA", "RS256"),
        "query": "",
        "discoverable": True,
        "direct_format": "packed",
        "transports": ["internal"],
        "aaguid": CHROMIUM_AAGUID,
        "aaguid_none": CHROMIUM_AAGUID,  # Chromium keeps a platform authenticator's AAGUID
        "backup": False,
    },
    "ctap2_1-usb-prf-largeBlob-BE-BS": {
        "options": {"protocol": "ctap2_1", "transport": "usb", "hasResidentKey": True,
                    "hasUserVerification": True, "isUserVerified": True, "extensions": ["prf", "largeBlob"],
                    "defaultBackupEligibility": True, "defaultBackupState": True},
        "algorithms": ("ES256", "EdDSA", "RS256"),
        "query": "",
        "discoverable": True,
        "direct_format": "packed",
        "transports": ["usb"],
        "aaguid": CHROMIUM_AAGUID,
        "aaguid_none": ZERO_AAGUID,  # attestation "none": Chromium zeroes a security key's AAGUID
        "backup": True,
    },
    "u2f-usb": {
        "options": {"protocol": "ctap1/u2f", "transport": "usb", "hasResidentKey": False,
                    "hasUserVerification": False},
        "algorithms": ("ES256",),
        "query": "&residentKey=discouraged&uv=discouraged",
        "discoverable": False,
        "direct_format": "fido-u2f",
        "transports": ["usb"],
        "aaguid": ZERO_AAGUID,
        "aaguid_none": ZERO_AAGUID,
        "backup": False,
    },
}

ROWS = [
    pytest.param(kind, algorithm, attestation, id=f"{kind}-{algorithm}-{attestation}")
    for kind, spec in AUTHENTICATORS.items()
    for algorithm in spec["algorithms"]
    for attestation in ("none", "direct")
]


@pytest.mark.parametrize("kind,algorithm,attestation", ROWS)
def test_register_and_sign_in(page, servers, kind, algorithm, attestation):
    spec = AUTHENTICATORS[kind]
    server = servers(algorithms=(algorithm,))
    authenticator = page.add_authenticator(spec["options"])
    query = "autofill=off" + spec["query"] + ("&attestation=direct" if attestation == "direct" else "")
    username = unique(f"{kind}-{algorithm}-{attestation}")

    # Register through the page.
    page.open(server, query)
    page.register(username)
    page.wait_view("account")
    page.wait_status("Your account is ready and you're signed in with your new passkey.")
    page.shot("registered")
    [passkey] = page.me()["passkeys"]
    assert page.passkey_ids() == [passkey["id"]]
    assert page.credential_ids(authenticator) == {passkey["id"]}
    assert passkey["algorithm"] == COSE[algorithm]
    assert passkey["attestationFormat"] == (spec["direct_format"] if attestation == "direct" else "none")
    assert passkey["transports"] == spec["transports"]
    assert passkey["aaguid"] == spec["aaguid" if attestation == "direct" else "aaguid_none"]
    assert passkey["backupEligible"] is spec["backup"]
    assert passkey["backupState"] is spec["backup"]
    assert passkey.get("lastUsedAt") is None  # omitted until the first sign-in
    badge = page.driver.find_element("css selector", f'li[data-credential-id="{passkey["id"]}"] [data-backup-state]')
    assert badge.get_attribute("data-backup-state") == ("true" if spec["backup"] else "false")

    page.sign_out()

    if not spec["discoverable"]:
        # No discoverable credential and no user handle: the account picker has nothing to offer.
        page.sign_in()
        page.wait_error(MSG_CANCELLED)
        assert page.view() == "signed-out"
        page.shot("discoverable-sign-in-impossible")

    # Sign in with the button: U2F through the username field, the others with an empty one.
    page.sign_in("" if spec["discoverable"] else username)
    page.wait_view("account")
    page.wait_status("Signed in.")
    page.shot("signed-in")
    [after] = page.me()["passkeys"]
    assert after["id"] == passkey["id"]
    assert after["lastUsedAt"]
    assert after["backupEligible"] is spec["backup"]
    assert after["backupState"] is spec["backup"]
    assert after["cloneWarning"] is False and after["backupEligibilityChanged"] is False


@pytest.mark.parametrize("kind", ["ctap2-internal", "u2f-usb"])
def test_page_fallback_without_json_helpers(page, server, kind):
    """Browsers without parseCreationOptionsFromJSON / parseRequestOptionsFromJSON / toJSON: the page's own
    base64url conversion must produce what the server verifies (U2F: a null userHandle is left out)."""
    spec = AUTHENTICATORS[kind]
    page.add_authenticator(spec["options"])
    page.open(server, "autofill=off" + spec["query"] + "&attestation=direct")
    page.driver.execute_script("""
        delete PublicKeyCredential.parseCreationOptionsFromJSON;
        delete PublicKeyCredential.parseRequestOptionsFromJSON;
        delete PublicKeyCredential.prototype.toJSON;""")
    assert page.driver.execute_script(
        "return [typeof PublicKeyCredential.parseCreationOptionsFromJSON, typeof PublicKeyCredential.prototype.toJSON]"
    ) == ["undefined", "undefined"]
    username = unique(f"fallback-{kind}")
    page.register(username)
    page.wait_view("account")
    page.wait_status()
    [passkey] = page.me()["passkeys"]
    assert passkey["attestationFormat"] == spec["direct_format"]
    page.sign_out()
    page.sign_in("" if spec["discoverable"] else username)
    page.wait_view("account")
    page.wait_status("Signed in.")
    page.shot("signed-in-through-fallback")
