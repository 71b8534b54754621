"""Writes Tests/PasswordHashesTests/Fixtures/hashes.json: password hashes made by the libraries the users' previous
systems used (PyPI: bcrypt, argon2-cffi, passlib, Django's hashers, firebase-scrypt), which passkeyd must verify.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install -r Tests/Python/passwords/requirements.txt
    /tmp/venv/bin/python Tests/Python/passwords/make_hashes.py > Tests/PasswordHashesTests/Fixtures/hashes.json

The output is committed: the Swift tests read it and need no Python. Salts are random, so each run writes other
hashes; any run's must verify.
"""
import base64
import json
import os
import sys

import argon2
import bcrypt
from django.conf import settings
from firebase_scrypt import firebasescrypt
from passlib.hash import pbkdf2_sha256, pbkdf2_sha512, scrypt

settings.configure(PASSWORD_HASHERS=["django.contrib.auth.hashers.PBKDF2PasswordHasher",
                                     "django.contrib.auth.hashers.Argon2PasswordHasher"])
from django.contrib.auth.hashers import make_password  # noqa: E402

PASSWORDS = ["correct horse battery staple", "pässwörd-ünïcode-🔑", "x"]


def cases():
    for password in PASSWORDS:
        raw = password.encode()
        yield "bcrypt $2b$ (bcrypt 4.2.1)", bcrypt.hashpw(raw, bcrypt.gensalt(rounds=4)).decode(), password
        yield "bcrypt $2a$ (bcrypt 4.2.1)", bcrypt.hashpw(raw, bcrypt.gensalt(rounds=5, prefix=b"2a")).decode(), password
        yield "bcrypt $2y$ (bcrypt 4.2.1, prefix rewritten as PHP writes it)", "$2y$" + bcrypt.hashpw(raw, bcrypt.gensalt(rounds=4)).decode()[4:], password
        yield "argon2id (argon2-cffi defaults)", argon2.PasswordHasher().hash(password), password
        yield "argon2i (argon2-cffi)", argon2.PasswordHasher(type=argon2.Type.I, memory_cost=1024, time_cost=2).hash(password), password
        yield "scrypt (passlib)", scrypt.using(rounds=10).hash(password), password
        yield "pbkdf2-sha256 (passlib)", pbkdf2_sha256.using(rounds=1000).hash(password), password
        yield "pbkdf2-sha512 (passlib)", pbkdf2_sha512.using(rounds=1000).hash(password), password
        yield "pbkdf2_sha256 (Django 5.1)", make_password(password, hasher="pbkdf2_sha256"), password
        yield "argon2 (Django 5.1)", make_password(password, hasher="argon2"), password


def firebase_cases():
    # The project parameters and the user of firebase/scrypt's README (a real Firebase export).
    project = {"signerKey": "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
               "saltSeparator": "Bw==", "rounds": 8, "memCost": 14}
    yield {"format": "Firebase scrypt (firebase/scrypt README)", "password": "user1password", "salt": "42xEC+ixf3L2lw==",
           "passwordHash": "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==", **project}
    for password in PASSWORDS:
        salt = base64.b64encode(os.urandom(12)).decode()
        derived = firebasescrypt.generate_derived_key(password, salt, project["saltSeparator"], project["rounds"], project["memCost"])
        hashed = base64.b64encode(firebasescrypt.encrypt(base64.b64decode(project["signerKey"]), derived)).decode()
        assert firebasescrypt.verify_password(password, hashed, salt, project["saltSeparator"], project["signerKey"],
                                              project["rounds"], project["memCost"])
        yield {"format": "Firebase scrypt (firebase-scrypt 0.1.0)", "password": password, "salt": salt, "passwordHash": hashed, **project}


json.dump({"hashes": [{"format": f, "hash": h, "password": p} for f, h, p in cases()],
           "firebase": list(firebase_cases())}, sys.stdout, indent=1, ensure_ascii=False)
print()
