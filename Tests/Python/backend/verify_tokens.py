"""A test backend: verifies passkeyd access tokens exactly as an app's API would, with PyJWT and the served JWKS.

Reads one JSON object on standard input:
    {"jwks_url": "https://127.0.0.1:PORT/.well-known/jwks.json", "issuer": "...", "audience": "...",
     "tokens": {"name": "<JWT>", ...}}
and prints one JSON object: {"name": "ok" or "<exception class>: <message>", ...}, plus "claims" of the accepted
ones. TLS to the loopback test server is not verified (its certificate is a throwaway self-signed one); everything
about the token is.
"""

import json
import ssl
import sys

import jwt

ALGORITHMS = ["ES256", "EdDSA", "RS256"]


def verify(client: jwt.PyJWKClient, token: str, issuer: str, audience: str) -> dict:
    # RFC 9068 section 4: the typ header is at+jwt.
    header = jwt.get_unverified_header(token)
    if header.get("typ") != "at+jwt":
        raise jwt.InvalidTokenError(f"typ is {header.get('typ')!r}, not at+jwt")
    key = client.get_signing_key_from_jwt(token)
    return jwt.decode(
        token,
        key.key,
        algorithms=ALGORITHMS,
        audience=audience,
        issuer=issuer,
        options={"require": ["exp", "iat", "nbf", "iss", "aud", "sub", "sid"]},
    )


def main() -> None:
    request = json.load(sys.stdin)
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    results: dict = {}
    claims: dict = {}
    for name, token in request["tokens"].items():
        # A fresh client per token: each verdict is against the JWKS as served now, as after a cache expiry.
        client = jwt.PyJWKClient(request["jwks_url"], ssl_context=context, cache_jwk_set=False)
        try:
            claims[name] = verify(client, token, request["issuer"], request["audience"])
            results[name] = "ok"
        except Exception as error:  # noqa: BLE001 - the verdict is the exception's class
            results[name] = f"{type(error).__name__}: {error}"
    results["claims"] = claims
    print(json.dumps(results))


if __name__ == "__main__":
    main()
