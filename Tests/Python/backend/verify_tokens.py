"""A test backend: verifies passkeyd access tokens exactly as an app's API would, with PyJWT and the served JWKS.

Reads one JSON object on standard input:
    {"jwks_url": "https://127.0.0.1:PORT/.well-known/jwks.json", "issuer": "...", "audience": "...",
     "tokens": {"name": "<JWT>", ...}, "documented": "docs/get-started/your-api.md"?}
and prints one JSON object: {"name": "ok" or "<exception class>: <message>", ...}, plus "claims" of the accepted
ones. TLS to the loopback test server is not verified (its certificate is a throwaway self-signed one); everything
about the token is.
"""

import json
import pathlib
import ssl
import sys
import types

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


def documented_verify(markdown: str, jwks_url: str, issuer: str, audience: str, context: ssl.SSLContext):
    """The documentation's PyJWT example (the fenced block that starts `# Python: PyJWT`), run as written: only the
    deployment's values (JWKS URL, issuer, audience) replace example.com's, and its PyJWKClient gets the context that
    accepts the loopback server's throwaway certificate. Returns the example's own `verify`."""
    text = pathlib.Path(markdown).read_text()
    start = text.index("```python\n# Python: PyJWT") + len("```python\n")
    code = text[start : text.index("```", start)]
    for written, value in [
        ('"https://example.com/.well-known/jwks.json"', repr(jwks_url)),
        ('issuer="https://example.com"', f"issuer={issuer!r}"),
        ('audience="example.com"', f"audience={audience!r}"),
    ]:
        if written not in code:
            raise SystemExit(f"{markdown}: the PyJWT example no longer contains {written}")
        code = code.replace(written, value)

    class LoopbackJWKClient(jwt.PyJWKClient):
        def __init__(self, uri, **options):
            super().__init__(uri, ssl_context=context, **options)

    module = types.ModuleType("jwt")
    module.__dict__.update(jwt.__dict__)
    module.PyJWKClient = LoopbackJWKClient
    real, sys.modules["jwt"] = sys.modules["jwt"], module
    try:
        namespace: dict = {}
        exec(compile(code, markdown, "exec"), namespace)  # noqa: S102 - the documentation's own example
    finally:
        sys.modules["jwt"] = real
    return namespace["verify"]


def main() -> None:
    request = json.load(sys.stdin)
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    results: dict = {}
    claims: dict = {}
    if request.get("documented"):
        verify_documented = documented_verify(request["documented"], request["jwks_url"], request["issuer"], request["audience"], context)
        for name, token in request["tokens"].items():
            try:
                claims[name] = verify_documented(token)
                results[name] = "ok"
            except Exception as error:  # noqa: BLE001 - the verdict is the exception's class
                results[name] = f"{type(error).__name__}: {error}"
        results["claims"] = claims
        print(json.dumps(results))
        return
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
