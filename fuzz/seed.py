#!/usr/bin/env python3
"""Writes the seed corpora fuzz/corpus/<target>/ from TestVectors/*.json (standard library only).

Each seed is named by the SHA-1 of its content, as libFuzzer names the entries it adds, so running this again or
merging fuzzer output never duplicates a file. Run from anywhere: python3 fuzz/seed.py [--out FOLDER]
"""
import base64
import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VECTORS = os.path.join(ROOT, "TestVectors")
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url_encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# --- a minimal CBOR reader (RFC 8949) that also reports each item's byte span, and a minimal writer ---------------

class Item:
    def __init__(self, major, value, start, end):
        self.major, self.value, self.start, self.end = major, value, start, end


def _argument(data, pos):
    initial = data[pos]
    info = initial & 0x1F
    pos += 1
    if info < 24:
        return info, pos
    if info in (24, 25, 26, 27):
        size = 1 << (info - 24)
        return int.from_bytes(data[pos:pos + size], "big"), pos + size
    if info == 31:
        return None, pos
    raise ValueError("reserved additional information")


def decode(data, pos=0):
    """The item at pos, as an Item whose value is int / bytes / str / list / list of (key, value) / (tag, item)."""
    start = pos
    major = data[pos] >> 5
    if major == 7:
        info = data[pos] & 0x1F
        sizes = {24: 1, 25: 2, 26: 4, 27: 8}
        return Item(7, data[pos], start, pos + 1 + sizes.get(info, 0))
    argument, pos = _argument(data, pos)
    if major in (0, 1):
        return Item(major, argument if major == 0 else -1 - argument, start, pos)
    if major in (2, 3):
        if argument is None:
            chunks = []
            while data[pos] != 0xFF:
                chunk = decode(data, pos)
                chunks.append(chunk.value)
                pos = chunk.end
            joined = b"".join(chunks) if major == 2 else "".join(chunks)
            return Item(major, joined, start, pos + 1)
        raw = bytes(data[pos:pos + argument])
        return Item(major, raw if major == 2 else raw.decode("utf-8"), start, pos + argument)
    if major == 4:
        items = []
        while (argument is None and data[pos] != 0xFF) or (argument is not None and len(items) < argument):
            item = decode(data, pos)
            items.append(item)
            pos = item.end
        return Item(4, items, start, pos + (1 if argument is None else 0))
    if major == 5:
        entries = []
        while (argument is None and data[pos] != 0xFF) or (argument is not None and len(entries) < argument):
            key = decode(data, pos)
            value = decode(data, key.end)
            entries.append((key, value))
            pos = value.end
        return Item(5, entries, start, pos + (1 if argument is None else 0))
    if major == 6:
        content = decode(data, pos)
        return Item(6, (argument, content), start, content.end)
    raise ValueError("unknown major type")


def member(item, name):
    for key, value in item.value:
        if key.value == name:
            return value
    return None


def head(major, argument):
    if argument < 24:
        return bytes([major << 5 | argument])
    for info, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if argument < 1 << (8 * size):
            return bytes([major << 5 | info]) + argument.to_bytes(size, "big")
    raise ValueError("argument too large")


def text(value):
    encoded = value.encode()
    return head(3, len(encoded)) + encoded


def byte_string(value):
    return head(2, len(value)) + value


def cbor_map(pairs):
    """A map from (encoded key, encoded value) pairs."""
    return head(5, len(pairs)) + b"".join(key + value for key, value in pairs)


def cbor_array(items):
    return head(4, len(items)) + b"".join(items)


# --- the vectors ---------------------------------------------------------------------------------------------------

def load_cases():
    cases = []
    files = {}
    for name in sorted(os.listdir(VECTORS)):
        if name.endswith(".json"):
            with open(os.path.join(VECTORS, name)) as handle:
                files[name] = json.load(handle)
            cases += files[name]["cases"]
    return files, cases


class Seeds:
    def __init__(self):
        self.targets = {}

    def add(self, target, data):
        if isinstance(data, str):
            data = data.encode()
        self.targets.setdefault(target, set()).add(bytes(data))

    def write(self):
        total = 0
        for target, entries in sorted(self.targets.items()):
            folder = os.path.join(CORPUS, target)
            os.makedirs(folder, exist_ok=True)
            for data in entries:
                with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as handle:
                    handle.write(data)
                total += len(data)
            longest = max(len(data) for data in entries)
            print(f"{target:20} {len(entries):4} seeds, longest {longest} bytes")
        print(f"total {total} bytes")


def format_fixtures(cases, fmt, preferred):
    """The vector order of the Swift formatFixtures(): preferred ids, then every passing vector of fmt in file order."""
    ids = list(preferred)
    for case in cases:
        expect = case.get("expect", {})
        if case["ceremony"] == "registration" and case["id"] not in ids and expect.get("ok") is True and expect.get("fmt") == fmt:
            ids.append(case["id"])
    by_id = {case["id"]: case for case in cases}
    return [by_id[identifier] for identifier in ids]


def attestation_object(case):
    return b64url(case["response"]["response"]["attestationObject"])


def main():
    files, cases = load_cases()
    seeds = Seeds()
    registrations = [case for case in cases if case["ceremony"] == "registration"]

    # Attestation objects, their parts, client data, COSE keys, certificates.
    for case in cases:
        response = case["response"]["response"]
        client_data = b64url(response["clientDataJSON"]) if response.get("clientDataJSON") else b""
        seeds.add("client-data", client_data)
        for key_text in (case.get("credentialPublicKey"), case.get("expect", {}).get("credentialPublicKey")):
            if key_text:
                seeds.add("cose-key", b64url(key_text))
                seeds.add("cbor", b64url(key_text))
        if response.get("authenticatorData"):
            seeds.add("authenticator-data", b64url(response["authenticatorData"]))
        for pem in case.get("trustAnchors", []):
            body = "".join(line for line in pem.splitlines() if line and not line.startswith("-----"))
            seeds.add("x509", base64.b64decode(body))
            seeds.add("x509", pem)
    for case in registrations:
        data = attestation_object(case)
        if not data:
            continue
        seeds.add("attestation-object", data)
        seeds.add("registration", data)
        seeds.add("cbor", data)
        try:
            item = decode(data)
        except (ValueError, IndexError, UnicodeDecodeError):
            continue
        if item.major != 5:
            continue
        auth_data = member(item, "authData")
        statement = member(item, "attStmt")
        if auth_data is not None and auth_data.major == 2:
            seeds.add("authenticator-data", auth_data.value)
        if statement is not None and statement.major == 5:
            seeds.add("cbor", data[statement.start:statement.end])
            for key, value in statement.value:
                if key.value == "x5c" and value.major == 4:
                    for certificate in value.value:
                        if certificate.major == 2:
                            seeds.add("x509", certificate.value)
                if key.value in ("certInfo", "pubArea") and value.major == 2:
                    seeds.add("tpm-structures", bytes([0 if key.value == "certInfo" else 1]) + value.value)
                if key.value == "response" and value.major == 2:
                    token = value.value
                    seeds.add("jws", b"\x00" + token)
                    seeds.add("jws", b"\x01" + token)
                    try:
                        header = json.loads(b64url(token.split(b".")[0].decode()))
                        for entry in header.get("x5c", []):
                            seeds.add("x509", base64.b64decode(entry))
                    except (ValueError, IndexError):
                        pass
    w3c_root = files["w3c-webauthn-l3.json"]["attestationRootCertificate"]
    seeds.add("x509", base64.b64decode("".join(l for l in w3c_root.splitlines() if l and not l.startswith("-----"))))

    # Per-format targets: selector byte + the vector's raw attStmt, in the Swift fixture order.
    preferred = {
        "packed": "w3c-l3/packed-es256/registration", "fido-u2f": "w3c-l3/fido-u2f-es256/registration",
        "apple": "w3c-l3/apple-es256/registration", "tpm": "w3c-l3/tpm-es256/registration",
        "android-key": "w3c-l3/android-key-es256/registration",
        "android-safetynet": "java-webauthn-server/android-safetynet/real-example",
    }
    for fmt, first in preferred.items():
        for index, case in enumerate(format_fixtures(cases, fmt, [first])):
            data = attestation_object(case)
            item = decode(data)
            statement = member(item, "attStmt")
            seeds.add(fmt, bytes([index]) + data[statement.start:statement.end])
    # Compound: statements of the W3C packed vectors, in the order of compound.swift's fixtures.
    for index, name in enumerate(["es256", "es384", "es512", "rs256", "eddsa", "ed448"]):
        case = next(c for c in cases if c["id"] == f"w3c-l3/packed-{name}/registration")
        data = attestation_object(case)
        raw = data[member(decode(data), "attStmt").start:member(decode(data), "attStmt").end]
        packed = cbor_map([(text("fmt"), text("packed")), (text("attStmt"), raw)])
        none = cbor_map([(text("fmt"), text("none")), (text("attStmt"), cbor_map([]))])
        seeds.add("compound", bytes([index]) + cbor_array([packed, none]))
        seeds.add("compound", bytes([index]) + cbor_array([none, packed]))
        if index == 0:
            seeds.add("compound", bytes([index]) + cbor_array([packed, packed, none]))

    # Hand-made CBOR edge cases.
    for hex_text in ["00", "1bffffffffffffffff", "3bffffffffffffffff", "5f4101420203ff", "7f6161626263ff", "9f0102ff",
                     "bf616101ff", "c11a514b67b0", "d8184401020304", "f90001", "f97e00", "fa47c35000", "fb3ff199999999999a",
                     "f0", "f820", "f5", "f6", "f7", "a201020304", "8301820203820405", "a1a1010203"]:
        seeds.add("cbor", bytes.fromhex(hex_text))

    # JWS edge cases (selector byte, then the token).
    def jws(header, payload=b"{}", signature=b"\x00" * 64):
        return b64url_encode(json.dumps(header).encode()) + "." + b64url_encode(payload) + "." + b64url_encode(signature)
    for header in [{"alg": "ES256"}, {"alg": "RS256", "kid": "k", "typ": "JWT"}, {"alg": "EdDSA"}, {"alg": "none"},
                   {"alg": "HS256"}, {"alg": "PS256", "x5c": []}, {"alg": "ES384", "x5c": ["AAAA"]}]:
        seeds.add("jws", b"\x00" + jws(header).encode())
    seeds.add("jws", b"\x01eyJhbGciOiJFUzI1NiJ9.e30=.AA==")
    seeds.add("jws", b"\x00..")

    # OpenID Connect (selector byte: 0 discovery document, 1 JWKS, 2 ID token claims, 3 whole token).
    discovery = {"issuer": "https://accounts.google.com", "authorization_endpoint": "https://accounts.google.com/o/oauth2/v2/auth",
                 "token_endpoint": "https://oauth2.googleapis.com/token", "jwks_uri": "https://www.googleapis.com/oauth2/v3/certs",
                 "id_token_signing_alg_values_supported": ["RS256"]}
    seeds.add("openid-token", b"\x00" + json.dumps(discovery).encode())
    seeds.add("openid-token", b"\x00" + json.dumps(dict(discovery, jwks_uri="http://127.0.0.1:9000/keys",
                                                          token_endpoint="http://[::1]:9000/token")).encode())
    seeds.add("openid-token", b"\x01" + json.dumps({"keys": [
        {"kty": "RSA", "kid": "a", "use": "sig", "alg": "RS256", "e": "AQAB", "n": "u1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7o"
         "nLRnrq0_IzW7yWR7QkrmBL7jTKEn5u-qKhbwKfBstIs-bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW_VDL5AaWTg0nLVkjRo9z-"
         "40RQzuVaE8AkAFmxZzow3x-VJYKdjykkJ0iT9wCS0DRTXu269V264Vf_3jvredZiKRkgwlL9xNAwxXFg0x_XFw005UWVRIkdgcKWTjpBP2dPwVZ4WWC-9aGVd-Gyn1o0"
         "CLelf4rEjGoXbAAEgAqeGUxrcIlbjXfbcmw"},
        {"kty": "EC", "crv": "P-256", "kid": "b", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
         "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}).encode())
    google_claims = {"iss": "https://accounts.google.com", "azp": "a.apps.googleusercontent.com",
                     "aud": ["w.apps.googleusercontent.com", "i.apps.googleusercontent.com"], "sub": "110169484474386276334",
                     "email": "p@example.com", "email_verified": "true", "nonce": hashlib.sha256(b"raw").hexdigest(),
                     "iat": 1700000000, "exp": 1700003600, "tid": "9188040d-6c67-4c5b-b112-36a304b66dad"}
    seeds.add("openid-token", b"\x02" + json.dumps(google_claims).encode())
    token_claims = json.dumps({"iss": "https://accounts.google.com", "aud": "fuzz.apps.googleusercontent.com", "sub": "1",
                               "iat": 1700000000, "exp": 1700003600, "nonce": hashlib.sha256(b"fuzz").hexdigest()}).encode()
    seeds.add("openid-token", b"\x03" + jws({"alg": "ES256", "kid": "fuzz", "typ": "JWT"}, token_claims).encode())
    seeds.add("openid-token", b"\x03" + jws({"alg": "none"}, token_claims, b"").encode())

    # Client data edge cases.
    for text_value in ['{"type":"webauthn.create","challenge":"AAAA","origin":"https://example.org","crossOrigin":true,"topOrigin":"https://a.example"}',
                       '\ufeff{"type":"webauthn.get","challenge":"AAAA","origin":"https://example.org","tokenBinding":{"status":"present","id":"x"}}',
                       '{"type":"\\u0077ebauthn.get","challenge":"\\ud83d\\ude00","origin":"o","n":[1,-2.5e10,true,false,null,{}]}']:
        seeds.add("client-data", text_value.encode())

    # Configuration: the documentation's examples, the fuzz target's own, and small ones.
    readme = open(os.path.join(ROOT, "docs/operate/configuration.md")).read()
    start = readme.index("```json\n") + len("```json\n")
    seeds.add("configuration", readme[start:readme.index("```", start)])
    readme = open(os.path.join(ROOT, "docs/operate/associated-domains.md")).read()
    start = readme.index("<!-- associated-domains: configuration -->\n```json\n") + len("<!-- associated-domains: configuration -->\n```json\n")
    seeds.add("configuration", readme[start:readme.index("```", start)])
    for config in [
        {}, {"relyingParty": {"id": "example.com"}}, {"listen": {"https": None, "http": "127.0.0.1:8080"}},
        {"tls": {"certificate": "/c.pem", "privateKey": "/k.pem"}}, {"sessions": {"lifetimeSeconds": 60}},
        {"challenges": {"lifetimeSeconds": 3600}}, {"algorithms": ["RS1", "Ed25519", "PS512"]}, {"www": None, "threads": 1},
        {"limits": {"maximumBodySize": 1024}}, {"attestation": "none", "database": {"sqlite": ":memory:"}},
        {"relyingParty": {"origins": ["android:apk-key-hash:abc", "http://localhost:8080", "https://a.example:8443"]}},
        {"associatedDomains": {"webcredentials": {"apps": ["A.b"]}, "applinks": {"details": [{"appIDs": ["A.b"]}]},
                               "appclips": {"apps": ["A.b.Clip"]}, "relatedOrigins": ["https://x.example"]}},
        {"associatedDomains": {"applinks": {"apps": [], "details": [{"appID": "ABCDE12345.a.b", "paths": ["/x/*", "NOT /y"]}],
                                            "defaults": {"caseSensitive": False}, "substitutionVariables": {"v": ["a"]}},
                               "android": [{"package": "a.b", "sha256CertFingerprints": ["00" * 32], "relations": ["x/y.z"]}],
                               "passkeyEndpoints": {}},
         "relyingParty": {"origins": ["https://a.example", "android:apk-key-hash:" + "A" * 42 + "E"]}},
    ]:
        seeds.add("configuration", json.dumps(config))

    # HTTP requests (see fuzz/Targets/http-request.swift for the form and the seeded state).
    by_id = {case["id"]: case for case in cases}

    def request(method, path, body=None, headers=()):
        lines = [f"{method} {path}"] + [f"{name}: {value}" for name, value in headers]
        if body is not None and not any(name.lower() == "content-type" for name, _ in headers):
            lines.append("Content-Type: application/json")
        data = ("\r\n".join(lines) + "\r\n\r\n").encode()
        if body is not None:
            data += body if isinstance(body, bytes) else json.dumps(body, separators=(",", ":")).encode()
        return data

    bearer = [("Authorization", "Bearer fuzz-session-token")]
    cookie = [("Cookie", "theme=dark; passkeyd_session=fuzz-session-token"), ("Origin", "https://example.org")]
    registration = by_id["w3c-l3/none-es256/registration"]["response"]
    authentication = by_id["w3c-l3/packed-es256/authentication"]["response"]
    authentication384 = by_id["w3c-l3/packed-es384/authentication"]["response"]
    es256_id = by_id["w3c-l3/packed-es256/registration"]["expect"]["credentialId"]
    es384_id = by_id["w3c-l3/packed-es384/registration"]["expect"]["credentialId"]
    http = [
        request("GET", "/healthz"),
        request("GET", "/"),
        request("GET", "/index.html?x=1"),
        request("GET", "/../Package.swift"),
        request("HEAD", "/.well-known/apple-app-site-association"),
        request("GET", "/.well-known/apple-app-site-association", headers=[("If-None-Match", 'W/"x", *')])
        + b"\0" + request("GET", "/.well-known/assetlinks.json", headers=[("If-Modified-Since", "Fri, 15 Jan 2027 08:00:00 GMT")]),
        request("GET", "/.well-known/assetlinks.json") + b"\0" + request("GET", "/.well-known/webauthn")
        + b"\0" + request("GET", "/.well-known/passkey-endpoints") + b"\0" + request("GET", "/apple-app-site-association"),
        request("POST", "/webauthn/registration/options", {"username": "carol", "displayName": "Carol", "residentKey": "preferred",
                                                           "userVerification": "required", "hints": ["security-key"]}),
        request("POST", "/webauthn/registration/options", {"username": "alice"}),
        request("POST", "/webauthn/registration/options", {}, bearer),
        request("POST", "/webauthn/registration/options", {}, cookie),
        request("POST", "/webauthn/registration/options", b'{"username": 5}'),
        request("POST", "/webauthn/registration/options", b"{", [("Content-Type", "application/json; charset=utf-8")]),
        request("POST", "/webauthn/registration/options", b"username=x", [("Content-Type", "application/x-www-form-urlencoded")]),
        request("POST", "/webauthn/registration/verify", registration),
        request("POST", "/webauthn/registration/verify", registration) + b"\0" + request("GET", "/me", None, [("Authorization", "Bearer $TOKEN")]),
        request("POST", "/webauthn/authentication/options", {"username": "alice", "userVerification": "discouraged"}),
        request("POST", "/webauthn/authentication/options", {"username": "nobody"}),
        request("POST", "/webauthn/authentication/options", {}),
        request("POST", "/webauthn/authentication/verify", authentication),
        request("POST", "/webauthn/authentication/verify", authentication) + b"\0"
        + request("POST", "/webauthn/authentication/verify", authentication384) + b"\0"
        + request("GET", "/me/passkeys", None, [("Authorization", "Bearer $TOKEN")]),
        request("GET", "/me", None, bearer),
        request("GET", "/me/passkeys", None, [("Cookie", "passkeyd_session=fuzz-session-token")]),
        request("PATCH", f"/me/passkeys/{es384_id}", {"name": "Work key"}, bearer),
        request("PATCH", f"/me/passkeys/{es384_id}", {"name": "Work key"}, cookie),
        request("PATCH", f"/me/passkeys/{es384_id}", {"name": "x"}, [("Cookie", "passkeyd_session=fuzz-session-token"), ("Origin", "https://evil.example")]),
        request("DELETE", f"/me/passkeys/{es384_id}", None, bearer) + b"\0" + request("DELETE", f"/me/passkeys/{es256_id}", None, bearer),
        request("PUT", f"/me/passkeys/{es256_id}", {}, bearer),
        request("POST", "/logout", None, bearer) + b"\0" + request("GET", "/me", None, bearer),
        request("DELETE", "/me", None, cookie) + b"\0" + request("GET", "/me", None, [("Cookie", "passkeyd_session=fuzz-session-token")]),
        request("GET", "/me", None, [("Authorization", "Bearer nope")]),
        request("GET", "/nowhere"),
        request("OPTIONS", "/webauthn/registration/options"),
        request("POST", "/session/token", None, bearer) + b"\0" + request("GET", "/.well-known/jwks.json")
        + b"\0" + request("GET", "/.well-known/openid-configuration"),
        request("POST", "/session/token", None, cookie) + b"\0" + request("POST", "/session/token", None, [("Authorization", "Bearer a.b.c")]),
        request("DELETE", "/me", None, [("Authorization", "Bearer eyJhbGciOiJFUzI1NiJ9.e30.AAAA")]),
        request("POST", "/introspect", b"token=fuzz-session-token",
                [("Authorization", "Bearer backend"), ("Content-Type", "application/x-www-form-urlencoded")]),
        request("POST", "/introspect", {"token": "a.b.c"}, [("Authorization", "Bearer backend")]),
        request("OPTIONS", "/session/token", None, [("Origin", "https://example.org"), ("Access-Control-Request-Method", "POST")]),
    ]
    for data in http:
        seeds.add("http-request", data)

    seeds.write()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--out":
        CORPUS = sys.argv[2]
    sys.exit(main())
