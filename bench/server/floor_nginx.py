"""Writes an nginx configuration that answers the sign-in benchmark's four requests with the replies passkeyd gave
(recorded by `passkeyd-loadgen --record-replies`): same status, same header fields, same body. bench/server/run.sh
measures that server's CPU per ceremony, the HTTPS part of the ceremony's CPU floor.

usage: floor_nginx.py REPLIES_DIR WORK_DIR PORT > nginx.conf
"""
import pathlib
import sys

replies, work, port = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
ROUTES = ["registration-options", "registration-verify", "authentication-options", "authentication-verify"]
# nginx writes these itself (Content-Type from default_type).
OWN_FIELDS = {"content-length", "content-type", "date", "connection", "server"}


def quoted(text):
    """An nginx quoted string: backslashes and quotes escaped; a `$` would start a variable, so none may occur."""
    if "$" in text:
        sys.exit(f"floor_nginx.py: a recorded reply holds '$', which nginx would read as a variable: {text[:80]}")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


locations = []
for route in ROUTES:
    head = (replies / f"{route}.head").read_bytes().decode().split("\r\n")
    status = int(head[0].split(" ")[1])
    fields = [line.split(":", 1) for line in head[1:]]
    content_type = next((value.strip() for name, value in fields if name.lower() == "content-type"), "application/json")
    directives = [f"default_type {quoted(content_type)};"]
    directives += [
        f"add_header {name.strip()} {quoted(value.strip())} always;" for name, value in fields if name.lower() not in OWN_FIELDS
    ]
    directives.append(f"return {status} {quoted((replies / f'{route}.body').read_bytes().decode())};")
    path = "/webauthn/" + route.replace("-", "/")
    locations.append(f"        location = {path} {{\n" + "".join(f"            {d}\n" for d in directives) + "        }")

print(
    f"""master_process off;
daemon off;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    server_tokens off;
    keepalive_requests 1000000;
    client_body_temp_path {work}/body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    server {{
        listen 127.0.0.1:{port} ssl;
        ssl_certificate {work}/tls-certificate.pem;
        ssl_certificate_key {work}/tls-private-key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
{chr(10).join(locations)}
    }}
}}"""
)
