"""Writes a provider's bounce or complaint webhook the way the provider does, for the bounce tests: the body, and the
headers that authenticate it, as one JSON object {"body": TEXT, "headers": {NAME: VALUE}} on standard output.

    provider_notification.py mailgun --key-file FILE --event failed|complained [--severity permanent|temporary]
                             [--recipient ADDRESS] [--message-id ID] [--timestamp SECONDS] [--token TOKEN]
    provider_notification.py postmark --username NAME --password-file FILE --record Bounce|SpamComplaint
                             [--type HardBounce|Transient|...] --recipient ADDRESS [--id N]
    provider_notification.py resend --secret-file FILE --type email.bounced|email.complained --recipient ADDRESS
                             [--bounce-type Permanent|Transient] [--id MESSAGE_ID] [--timestamp SECONDS] [--svix]

Mailgun ("Securing Webhooks"): the signature is the hexadecimal HMAC-SHA256, keyed with the webhook signing key, of the
timestamp and the token concatenated without a separator; it travels in the body's "signature" block next to the
"event-data". Postmark authenticates a webhook by the HTTP Basic credentials written into its URL, which an HTTP client
sends as `Authorization: Basic base64(name:password)`. Resend signs through Svix, which is Standard Webhooks: the
`resend` notification is signed by the `standardwebhooks` package from PyPI (run it with `.venv-webhooks/bin/python`;
`--svix` names the headers `svix-*` as Svix sends them). The other providers need only Python's standard library.
"""

import argparse
import base64
import hashlib
import hmac
import json
import secrets
import time


def read(path):
    with open(path) as file:
        return file.read().rstrip("\r\n")


def mailgun(arguments):
    key = read(arguments.key_file).encode()
    timestamp = str(arguments.timestamp if arguments.timestamp is not None else int(time.time()))
    token = arguments.token or secrets.token_hex(25)
    signature = hmac.new(key, (timestamp + token).encode(), hashlib.sha256).hexdigest()
    event = {"event": arguments.event, "timestamp": float(timestamp), "id": secrets.token_urlsafe(16), "log-level": "error"}
    if arguments.recipient:
        event["recipient"] = arguments.recipient
    if arguments.message_id:
        event["message"] = {"headers": {"message-id": arguments.message_id, "to": arguments.recipient or ""}}
    if arguments.event == "failed":
        event["severity"] = arguments.severity
        event["reason"] = "bounce"
        event["delivery-status"] = {"code": 550, "message": "5.1.1 The email account that you tried to reach does not exist", "description": ""}
    body = {"signature": {"timestamp": timestamp, "token": token, "signature": signature}, "event-data": event}
    return json.dumps(body), {"Content-Type": "application/json"}


def postmark(arguments):
    credentials = f"{arguments.username}:{read(arguments.password_file)}".encode()
    record = {"RecordType": arguments.record, "ID": arguments.id, "MessageID": "883953f4-6105-42a2-a16a-77a8eac79483",
              "Email": arguments.recipient, "BouncedAt": "2026-12-06T10:00:00Z", "MessageStream": "outbound"}
    if arguments.record == "Bounce":
        record.update({"Type": arguments.type, "TypeCode": 1, "Description": "The server was unable to deliver your message.",
                       "Details": "smtp;550 5.1.1 unknown user", "Inactive": True})
    else:
        record.update({"Type": "SpamComplaint", "TypeCode": 512})
    headers = {"Content-Type": "application/json", "Authorization": "Basic " + base64.b64encode(credentials).decode()}
    return json.dumps(record), headers


def resend(arguments):
    from datetime import datetime, timezone

    from standardwebhooks.webhooks import Webhook

    data = {"email_id": "4ef9a417-02e9-4d39-ad75-9611e0fcc33c", "from": "no-reply@example.com", "to": [arguments.recipient],
            "subject": "Set up a passkey", "created_at": "2026-12-06T10:00:00.000Z"}
    if arguments.type == "email.bounced":
        data["bounce"] = {"type": arguments.bounce_type, "subType": "General",
                          "message": "The recipient's email provider sent a hard bounce message."}
    body = json.dumps({"type": arguments.type, "created_at": "2026-12-06T10:00:01.000Z", "data": data})
    message_id = arguments.id or "msg_" + secrets.token_hex(12)
    seconds = arguments.timestamp if arguments.timestamp is not None else int(time.time())
    signature = Webhook(read(arguments.secret_file)).sign(message_id, datetime.fromtimestamp(seconds, tz=timezone.utc), body)
    prefix = "svix-" if arguments.svix else "webhook-"
    headers = {"Content-Type": "application/json", prefix + "id": message_id, prefix + "timestamp": str(seconds),
               prefix + "signature": signature}
    return body, headers


def main():
    parser = argparse.ArgumentParser()
    providers = parser.add_subparsers(dest="provider", required=True)
    mailgun_parser = providers.add_parser("mailgun")
    mailgun_parser.add_argument("--key-file", required=True)
    mailgun_parser.add_argument("--event", required=True)
    mailgun_parser.add_argument("--severity", default="permanent")
    mailgun_parser.add_argument("--recipient")
    mailgun_parser.add_argument("--message-id")
    mailgun_parser.add_argument("--timestamp", type=int)
    mailgun_parser.add_argument("--token")
    postmark_parser = providers.add_parser("postmark")
    postmark_parser.add_argument("--username", required=True)
    postmark_parser.add_argument("--password-file", required=True)
    postmark_parser.add_argument("--record", required=True)
    postmark_parser.add_argument("--type", default="HardBounce")
    postmark_parser.add_argument("--recipient", required=True)
    postmark_parser.add_argument("--id", type=int, default=42)
    resend_parser = providers.add_parser("resend")
    resend_parser.add_argument("--secret-file", required=True)
    resend_parser.add_argument("--type", required=True)
    resend_parser.add_argument("--bounce-type", default="Permanent")
    resend_parser.add_argument("--recipient", required=True)
    resend_parser.add_argument("--id")
    resend_parser.add_argument("--timestamp", type=int)
    resend_parser.add_argument("--svix", action="store_true")
    arguments = parser.parse_args()
    body, headers = {"mailgun": mailgun, "postmark": postmark, "resend": resend}[arguments.provider](arguments)
    print(json.dumps({"body": body, "headers": headers}))


if __name__ == "__main__":
    main()
