#!/usr/bin/env python3
"""Writes examples/demo-password-users.ndjson: one account with an imported password, to try the demo page's
"Sign in with a password" form (www/README.md, docs/guides/passwords.md) after `make run`:

    /usr/bin/python3 examples/make-demo-password-users.py > examples/demo-password-users.ndjson
    .build/release/passkeyd admin import examples/demo-password-users.ndjson --config examples/passkeyd.json

The account is `ada` (email `ada@example.com`), its password DEMO_PASSWORD below, hashed the way passlib's
`pbkdf2_sha256` writes it (`$pbkdf2-sha256$ROUNDS$SALT$DIGEST`, "ab64": base64 with "." for "+", no padding), made
here with hashlib so that no package is needed. The salt is random, so each run writes another hash of the same
password; the account's id is fixed, so that importing a newer file updates the same account. A demo password for a
demo server only: it is published here.
"""
import base64
import hashlib
import json
import os

DEMO_PASSWORD = "correct horse battery staple"
ROUNDS = 29000  # passlib's default for pbkdf2_sha256; passkeyd accepts 1,000 to 2,000,000
RELYING_PARTY_ID = "localhost"  # examples/passkeyd.json's relyingParty.id: an import must name this deployment's


def ab64(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=").replace("+", ".")


def pbkdf2_sha256(password: str) -> str:
    salt = os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, ROUNDS)
    return f"$pbkdf2-sha256${ROUNDS}${ab64(salt)}${ab64(digest)}"


def lines() -> list[dict]:
    return [
        {"type": "passkeyd.export", "version": 1, "relyingPartyId": RELYING_PARTY_ID,
         "exportedAt": "2026-12-06T00:00:00.000Z"},
        {"type": "user", "id": "ZGVtby1wYXNzd29yZC11c2VyLWFkYS0wMDAwMDAwMDE", "username": "ada",
         "displayName": "Ada Lovelace", "displayNameIsDefault": False,
         "appAccountToken": "6d2f3c1e-5b7a-4c8e-9f10-2a3b4c5d6e7f", "email": "ada@example.com", "emailVerified": True,
         "createdAt": "2026-12-06T00:00:00.000Z", "passwordHash": pbkdf2_sha256(DEMO_PASSWORD)},
    ]


if __name__ == "__main__":
    print("\n".join(json.dumps(line) for line in lines()))
