"""A webhook receiver as an app's backend would write one: every delivery is verified with the `standardwebhooks`
library (PyPI), unchanged, before it is accepted.

    receiver.py --port PORT --secret whsec_... --log FILE [--status FILE]
    receiver.py --port PORT --secret whsec_... --log FILE --documented docs/get-started/webhooks.md

Listens on 127.0.0.1:PORT. For each POST it verifies the headers and body with `standardwebhooks.Webhook(secret)`;
a delivery that does not verify is answered 401 and logged with "verified": false. A verified one is answered with
the status written in the --status file (default 204) and logged as one JSON line: webhook-id, webhook-timestamp,
the status answered and the parsed body.

With --documented, the receiver is instead the Flask example of that page, run as written (only the test's secret
replaces the example's), each request logged the same way, with "deleted": the user IDs the example handled.
"""

import argparse
import json
import os
import pathlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--status")
    parser.add_argument("--documented")
    arguments = parser.parse_args()
    if arguments.documented:
        serve_documented(arguments)
        return
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


def serve_documented(arguments):
    """The documentation's Flask receiver (the fenced block that starts `# pip install standardwebhooks flask`)."""
    text = pathlib.Path(arguments.documented).read_text()
    start = text.index("```python\n# pip install standardwebhooks flask") + len("```python\n")
    code = text[start : text.index("```", start)]
    written = '"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"'
    if written not in code:
        raise SystemExit(f"{arguments.documented}: the receiver example no longer contains {written}")
    deleted = []
    namespace = {"__name__": "documented_receiver", "delete_my_rows_for": deleted.append}
    exec(compile(code.replace(written, repr(arguments.secret)), arguments.documented, "exec"), namespace)  # noqa: S102
    app = namespace["app"]
    lock = threading.Lock()

    from flask import request
    from werkzeug.serving import make_server

    @app.after_request
    def log(response):
        try:
            body = json.loads(request.get_data())
        except ValueError:
            body = None
        line = {
            "path": request.path,
            "id": request.headers.get("webhook-id"),
            "attempt": request.headers.get("webhook-timestamp"),
            "verified": response.status_code != 401,
            "status": response.status_code,
            "body": body,
            "deleted": list(deleted),
        }
        with lock, open(arguments.log, "a") as log_file:
            log_file.write(json.dumps(line) + "\n")
        return response

    server = make_server("127.0.0.1", arguments.port, app, threaded=True)
    with open(arguments.log + ".ready", "w") as ready:
        ready.write(str(os.getpid()))
    server.serve_forever()


if __name__ == "__main__":
    main()
