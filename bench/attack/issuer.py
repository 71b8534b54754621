"""A stand-in OpenID issuer for the attack benchmark: plain HTTP on a loopback port (passkeyd allows http:// for a
loopback issuer), serving the discovery document and a key set of one RSA key. The attack's ID tokens name key IDs
that are not in it. Every request is appended to LOG, so that the benchmark can count the server's key fetches.

    python3 issuer.py PORT KEY_PEM LOG
"""
import base64
import http.server
import json
import subprocess
import sys

port, key_file, log_file = int(sys.argv[1]), sys.argv[2], sys.argv[3]
issuer = f"http://127.0.0.1:{port}"
modulus = subprocess.run(["openssl", "rsa", "-in", key_file, "-noout", "-modulus"], check=True, capture_output=True, text=True)
n = bytes.fromhex(modulus.stdout.strip().split("=", 1)[1])
b64url = lambda data: base64.urlsafe_b64encode(data).decode().rstrip("=")
documents = {
    "/.well-known/openid-configuration": {
        "issuer": issuer, "jwks_uri": f"{issuer}/jwks", "authorization_endpoint": f"{issuer}/authorize",
        "token_endpoint": f"{issuer}/token", "response_types_supported": ["code"], "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
    },
    "/jwks": {"keys": [{"kty": "RSA", "kid": "stand-in-1", "use": "sig", "alg": "RS256", "n": b64url(n), "e": "AQAB"}]},
}


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log_file, "a") as log:
            log.write(self.path + "\n")
        document = documents.get(self.path)
        body = json.dumps(document).encode() if document else b"{}"
        self.send_response(200 if document else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=3600")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *arguments):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
