"""A webhook receiver as an app's backend would write one: every delivery is verified with the `standardwebhooks`
library (PyPI), unchanged, before it is accepted.

    receiver.py --port PORT --secret whsec_... --log FILE [--status FILE]

Listens on 127.0.0.1:PORT. For each POST it verifies the headers and body with `standardwebhooks.Webhook(secret)`;
a delivery that does not verify is answered 401 and logged with "verified": false. A verified one is answered with
the status written in the --status file (default 204) and logged as one JSON line: webhook-id, webhook-timestamp,
the status answered and the parsed body.
"""

import argparse
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--status")
    arguments = parser.parse_args()
    webhook = Webhook(arguments.secret)
    lock = threading.Lock()

    def answer_status():
        try:
            with open(arguments.status) as file:
                return int(file.read().strip())
        except (TypeError, OSError, ValueError):
            return 204

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            headers = {name: value for name, value in self.headers.items()}
            line = {"path": self.path, "id": headers.get("webhook-id"), "attempt": headers.get("webhook-timestamp"), "contentType": headers.get("Content-Type")}
            try:
                line["body"] = webhook.verify(body, headers)
                line["verified"] = True
                status = answer_status()
            except (WebhookVerificationError, ValueError) as error:
                line["verified"] = False
                line["error"] = str(error)
                status = 401
            line["status"] = status
            with lock, open(arguments.log, "a") as log:
                log.write(json.dumps(line) + "\n")
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), Handler)
    with open(arguments.log + ".ready", "w") as ready:
        ready.write(str(os.getpid()))
    server.serve_forever()


if __name__ == "__main__":
    main()
