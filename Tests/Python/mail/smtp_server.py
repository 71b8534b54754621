"""An SMTP relay for the mail tests: aiosmtpd (PyPI) on loopback, with STARTTLS or TLS and AUTH, that parses every
message it accepts with Python's own `email` package and logs what a reader would see.

    smtp_server.py --port PORT --log FILE [--cert CHAIN --key KEY [--implicit-tls]] [--user NAME --password WORD]
                   [--control FILE]

With --cert and --key, STARTTLS is required before anything but EHLO/HELO/NOOP/QUIT (or, with --implicit-tls, TLS
from the first byte). With --user and --password, AUTH is required (and allowed only over TLS). The --control file,
read for every command, is a JSON object that makes the server misbehave: {"rcpt": 550} answers that code to RCPT
TO, {"data": 451} answers it after the message, {"delay": 5} waits that many seconds before answering the message.

Each accepted message is logged as one JSON line: the envelope, whether the session was TLS and authenticated, the
header fields as the `email` package decodes them (RFC 2047 words included), the text and HTML parts, and the
parser's defects. A file FILE.ready is written once the server listens.
"""

import argparse
import asyncio
import email
import email.policy
import json
import os
import ssl

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--implicit-tls", action="store_true")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--control")
    arguments = parser.parse_args()

    def control():
        try:
            with open(arguments.control) as file:
                return json.load(file)
        except (TypeError, OSError, ValueError):
            return {}

    class Handler:
        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            code = control().get("rcpt")
            if code:
                return f"{code} recipient refused by the test"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            settings = control()
            if settings.get("delay"):
                await asyncio.sleep(float(settings["delay"]))
            if settings.get("data"):
                return f"{settings['data']} message refused by the test"
            message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
            text = message.get_body(("plain",))
            html = message.get_body(("html",))
            line = {
                "mailFrom": envelope.mail_from,
                "rcptTos": envelope.rcpt_tos,
                "tls": server.transport.get_extra_info("ssl_object") is not None,
                "authenticated": bool(session.authenticated),
                "login": getattr(session, "test_login", None),
                "from": str(message["From"]),
                "fromDisplayName": message["From"].addresses[0].display_name if message["From"] else None,
                "fromAddress": message["From"].addresses[0].addr_spec if message["From"] else None,
                "to": str(message["To"]),
                "replyTo": str(message["Reply-To"]) if message["Reply-To"] else None,
                "subject": str(message["Subject"]),
                "messageID": str(message["Message-ID"]),
                "date": str(message["Date"]),
                "dateParsed": message["Date"].datetime.isoformat() if message["Date"] and message["Date"].datetime else None,
                "contentType": message.get_content_type(),
                "text": text.get_content() if text else None,
                "html": html.get_content() if html else None,
                "headerNames": list(message.keys()),
                "defects": [type(defect).__name__ for part in message.walk() for defect in part.defects],
            }
            with open(arguments.log, "a") as log:
                log.write(json.dumps(line) + "\n")
            return "250 OK"

    def authenticator(server, session, envelope, mechanism, auth_data):
        if not isinstance(auth_data, LoginPassword):
            return AuthResult(success=False, handled=False)
        good = auth_data.login.decode() == arguments.user and auth_data.password.decode() == arguments.password
        if good:
            session.test_login = auth_data.login.decode()
        return AuthResult(success=good, handled=False)

    tls = None
    if arguments.cert:
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(arguments.cert, arguments.key)

    def factory():
        options = {"hostname": "smtp.test", "enable_SMTPUTF8": False}
        if tls is not None and not arguments.implicit_tls:
            options.update(tls_context=tls, require_starttls=True)
        if arguments.user:
            # With implicit TLS the whole session is TLS already; aiosmtpd only knows of STARTTLS's.
            options.update(authenticator=authenticator, auth_required=True, auth_require_tls=not arguments.implicit_tls)
        return SMTP(Handler(), **options)

    async def serve():
        server = await asyncio.get_running_loop().create_server(
            factory, "127.0.0.1", arguments.port, ssl=tls if arguments.implicit_tls else None
        )
        with open(arguments.log + ".ready", "w") as ready:
            ready.write(str(os.getpid()))
        async with server:
            await server.serve_forever()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
