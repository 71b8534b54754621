#!/usr/bin/env python3
"""Writes a file of N generated users for `passkeyd admin import` (standard library only).

    generate.py export N FILE     passkeyd's export (NDJSON): a header and N user lines
    generate.py firebase N FILE   a `firebase auth:export` file: {"users": [...]}, N users with Sign in with Apple

Every user is made up (user<n>, u<n>@example.com); nothing is read from anywhere.
"""
import base64
import sys


def export(count, out):
    out.write('{"type":"passkeyd.export","version":1,"relyingPartyId":"example.com","exportedAt":"2026-03-01T12:00:00.000Z"}\n')
    for n in range(1, count + 1):
        user_id = base64.urlsafe_b64encode(b"user-%d" % n).decode().rstrip("=")
        out.write(
            '{"type":"user","id":"%s","username":"user%d","displayName":"User %d","displayNameIsDefault":false,'
            '"appAccountToken":"00000000-0000-4000-8000-%012d","email":"u%d@example.com","emailVerified":true,'
            '"createdAt":"2026-03-01T12:00:00.000Z"}\n' % (user_id, n, n, n, n)
        )


def firebase(count, out):
    out.write('{"users": [\n')
    for n in range(1, count + 1):
        out.write(
            '%s{"localId": "f%d", "email": "f%d@example.com", "emailVerified": true, "displayName": "User %d",'
            ' "createdAt": "1714557600000", "disabled": false, "providerUserInfo": [{"providerId": "apple.com",'
            ' "rawId": "%06d.%032x.%04d", "email": "f%d@example.com"}]}\n' % ("," if n > 1 else " ", n, n, n, n, n, n % 10000, n)
        )
    out.write("]}\n")


if __name__ == "__main__":
    kind, count, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path, "w") as out:
        {"export": export, "firebase": firebase}[kind](count, out)
