"""`passkeyd serve` started in an isolation on a free loopback port, asked over HTTPS, stopped by its own pid."""

from __future__ import annotations

import json
import signal
import socket
import ssl
import subprocess
import time
import urllib.request
from pathlib import Path

from isolation import Isolation


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """One server; `start` writes the configuration (with `listen.https` set to a free port) and waits for /healthz."""

    def __init__(self, isolation: Isolation, binary: str, folder: Path, configuration: dict):
        self.isolation = isolation
        self.binary = binary
        self.folder = folder
        self.configuration = configuration
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.log_path = folder / "serve.log"

    def start(self, seconds: float = 90) -> bool:
        """True once /healthz answers; False when the process exits first (its log says why)."""
        for _ in range(3):  # a free port can be taken between choosing and binding it: retry with another
            self.port = free_port()
            configuration = dict(self.configuration, listen={"https": f"127.0.0.1:{self.port}"})
            path = self.folder / "passkeyd.json"
            path.write_text(json.dumps(configuration, indent=2))
            with open(self.log_path, "wb") as log:
                self.process = self.isolation.popen([self.binary, "serve", "--config", str(path)], stdout=log, stderr=log)
            if self._wait_healthy(seconds):
                return True
            self.stop()
            if "cannot listen" not in self.log():
                return False
        return False

    def get(self, path: str) -> tuple[int, bytes]:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # the self-signed certificate passkeyd generates in its data folder
        with urllib.request.urlopen(f"https://127.0.0.1:{self.port}{path}", context=context, timeout=10) as reply:
            return reply.status, reply.read()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        """SIGTERM to this server's own pid (then SIGKILL if it does not stop), and reap it."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def _wait_healthy(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                status, body = self.get("/healthz")
                if status == 200 and json.loads(body).get("status") == "ok":
                    return True
            except OSError:
                pass
            time.sleep(0.1)
        return False
