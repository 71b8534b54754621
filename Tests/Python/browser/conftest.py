"""Fixtures of the real-browser suite: passkeyd servers, one headless Chromium, and a page helper.

`make test-browser` builds `.build/debug/passkeyd` first; nothing is built here. Each distinct server
configuration (e.g. one algorithm only) gets its own `passkeyd serve` on a free loopback port, started on first
use and stopped by its own pid at the end of the session. Chromium (Debian's, through Debian's chromedriver, so
Selenium Manager never downloads anything) is started once and shared; every test gets fresh virtual
authenticators, no cookies and a screenshot folder `Tests/Python/browser/screenshots/<test>/`.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

REPO = Path(__file__).resolve().parents[3]
BINARY = Path(os.environ.get("PASSKEYD_BINARY", REPO / ".build" / "debug" / "passkeyd"))
CHROMIUM = os.environ.get("CHROMIUM_BINARY", "/usr/lib/chromium/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
SCREENSHOTS = REPO / "Tests" / "Python" / "browser" / "screenshots"
RP_ID = "example.test"
ALL_ALGORITHMS = ("ES256", "EdDSA", "RS256")
WAIT_SECONDS = 15

# Human sentences of the page (www/passkeys.js) that the tests expect.
MSG_CANCELLED = "The passkey request was cancelled or timed out."
MSG_NO_LONGER_REGISTERED = "This passkey is no longer registered here."
MSG_ALREADY_HOLDS = "This authenticator already holds a passkey for this account."
MSG_UV_REQUIRED = "Your authenticator must verify you (PIN or biometrics)."
MSG_USERNAME_TAKEN = "That username is taken."
MSG_LAST_CREDENTIAL = "You can't delete your only passkey."

# What must never reach a person: exception names, stack frames, raw JSON, URLs of the WebAuthn spec, etc.
RAW_TEXT = re.compile(
    r"(Error\b|Exception|DOMException|TypeError|stack|\bat \S+:\d+|\.js\b|undefined|null|NaN|[{}\[\]<>]|https?://)"
)


def assert_human(text: str, expected: str | None = None) -> None:
    """A message for people: the expected sentence when given, and never raw exception text."""
    assert text, "expected a message"
    assert not RAW_TEXT.search(text), f"raw exception text shown to the user: {text!r}"
    if expected is not None:
        assert text == expected


# ---------------------------------------------------------------------------------------------- servers


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One `passkeyd serve` process for relying party example.test on a free loopback port."""

    def __init__(self, name: str, root: Path, **settings):
        self.name = name
        self.root = root
        self.settings = settings
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.log_path = SCREENSHOTS / f"server-{name}.log"
        self.config_path: Path | None = None

    @property
    def url(self) -> str:
        return f"https://{RP_ID}:{self.port}"

    def start(self) -> "Server":
        if not BINARY.exists():
            pytest.exit(f"{BINARY} is missing: run `make test-browser` (it builds passkeyd first)", returncode=2)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        last_error = ""
        for _ in range(3):  # a free port can be taken between choosing and binding it: retry with another
            self.port = self.choose_port()
            data = self.root / f"data-{self.port}"
            data.mkdir(parents=True)
            config = {
                "relyingParty": {"id": RP_ID, "name": "Example",
                                 "origins": [self.url] + list(self.settings.get("extraOrigins", []))},
                "listen": {"https": f"127.0.0.1:{self.port}"},
                "dataDirectory": str(data),
                "www": str(REPO / "www"),
                "attestation": "none",
                "algorithms": list(ALL_ALGORITHMS),
                "threads": 1,
            }
            config.update({k: v for k, v in self.settings.items() if k != "extraOrigins"})
            # A setting may name the server's own URL (the OpenID provider's issuer), known only once the port is.
            config = json.loads(json.dumps(config).replace("__SERVER_URL__", self.url))
            config_path = self.root / f"config-{self.port}.json"
            self.config_path = config_path
            config_path.write_text(json.dumps(config, indent=2))
            log = open(self.log_path, "ab")
            log.write(f"--- passkeyd serve --config {config_path}\n{json.dumps(config)}\n".encode())
            log.flush()
            self.process = subprocess.Popen(
                [str(BINARY), "serve", "--config", str(config_path)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=str(self.root),
            )
            log.close()
            if self._wait_healthy():
                return self
            last_error = self.log_path.read_text(errors="replace")[-2000:]
            self.stop()
        pytest.fail(f"passkeyd did not become healthy:\n{last_error}")

    def choose_port(self) -> int:
        """A free loopback port (a subclass may hand out one chosen earlier, to name it in another server's settings)."""
        return _free_port()

    @property
    def health_url(self) -> str:
        return f"https://127.0.0.1:{self.port}/healthz"

    def _wait_healthy(self, seconds: float = 20) -> bool:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # the self-signed certificate passkeyd generates
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(self.health_url, context=context, timeout=2) as r:
                    if r.status == 200 and json.load(r).get("status") == "ok":
                        return True
            except OSError:
                pass
            time.sleep(0.05)
        return False

    def stop(self) -> None:
        """SIGTERM to this server's own pid, then SIGKILL if it does not stop."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=5)


class PageServer:
    """A website of the app's on a loopback port of its own (another origin than passkeyd's): `files` maps each path
    to its body (HTML, or JavaScript for a `.js` path), served over HTTPS with a throwaway self-signed certificate
    (Chromium ignores certificate errors in this suite)."""

    def __init__(self, folder: Path, files: dict[str, str]):
        self.port = _free_port()
        key, certificate = folder / "page.key", folder / "page.crt"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                        "-days", "1", "-subj", f"/CN={RP_ID}", "-keyout", str(key), "-out", str(certificate)],
                       check=True, capture_output=True)

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the standard library's name
                path = self.path.split("?")[0]
                if path not in files:
                    self.send_error(404)
                    return
                body = files[path].encode()
                self.send_response(200)
                kind = "text/javascript" if path.endswith(".js") else "text/html"
                self.send_header("Content-Type", f"{kind}; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"https://{RP_ID}:{self.port}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def page_servers(tmp_path):
    """`page_servers(files)`: a new PageServer of those files, on its own origin; all are stopped after the test."""
    started: list[PageServer] = []

    def start(files: dict[str, str]) -> PageServer:
        folder = tmp_path / f"site{len(started)}"
        folder.mkdir()
        started.append(PageServer(folder, files))
        return started[-1]

    yield start
    for site in started:
        site.stop()


@pytest.fixture(scope="session")
def servers(tmp_path_factory):
    """`servers(algorithms=(...), **config)` returns a running server for that configuration (one per config)."""
    started: dict[str, Server] = {}
    root = tmp_path_factory.mktemp("passkeyd")

    def get(algorithms=ALL_ALGORITHMS, **settings) -> Server:
        settings["algorithms"] = list(algorithms)
        key = json.dumps(settings, sort_keys=True)
        if key not in started:
            name = "-".join(algorithms) + "".join(
                f"-{k}" for k in sorted(settings) if k != "algorithms")
            started[key] = Server(name, root / f"server{len(started)}", **settings).start()
        return started[key]

    yield get
    for server in started.values():
        server.stop()


@pytest.fixture(scope="session")
def server(servers) -> Server:
    """The default server: every algorithm, attestation policy none."""
    return servers()


# ---------------------------------------------------------------------------------------------- browser


@pytest.fixture(scope="session")
def driver():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",  # the suite runs as root in CI containers
        "--disable-dev-shm-usage",
        "--ignore-certificate-errors",  # passkeyd's generated self-signed certificate
        f"--host-resolver-rules=MAP {RP_ID} 127.0.0.1",
        "--window-size=900,1000",
        "--hide-scrollbars",
        "--lang=en-US",
    ):
        options.add_argument(argument)
    service = Service(executable_path=CHROMEDRIVER)  # an explicit path: Selenium Manager is never used
    browser = webdriver.Chrome(service=service, options=options)
    browser.set_script_timeout(WAIT_SECONDS)
    yield browser
    browser.quit()


def _test_folder_name(nodeid: str) -> str:
    name = nodeid.split("::")[-1]
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, "rep_" + report.when, report)


@pytest.fixture
def page(driver, request):
    folder = SCREENSHOTS / _test_folder_name(request.node.nodeid)
    shutil.rmtree(folder, ignore_errors=True)
    helper = Page(driver, folder)
    helper.reset()
    yield helper
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        try:
            helper.shot("failure")
        except Exception:  # the browser may be gone; the failure itself is what matters
            pass
    helper.remove_all_authenticators()
    # The browser console goes next to the screenshots; an uncaught exception in the page fails the test.
    console = driver.get_log("browser")
    if console:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "console.log").write_text("".join(f"{e['level']} {e['message']}\n" for e in console))
    uncaught = [e["message"] for e in console if "Uncaught" in e["message"]]
    assert not uncaught, f"uncaught exceptions in the page: {uncaught}"


# ---------------------------------------------------------------------------------------------- page helper


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def platform_authenticator(**extra) -> dict:
    """A platform authenticator with user verification (Touch ID / Windows Hello like)."""
    options = {"protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
               "hasUserVerification": True, "isUserVerified": True}
    options.update(extra)
    return options


class Page:
    """Drives the demo page the way a person does, plus the virtual authenticators behind it."""

    def __init__(self, driver, folder: Path):
        self.driver = driver
        self.folder = folder
        self.step = 0
        self.authenticators: list[str] = []
        self.server: Server | None = None

    # --- setup

    def reset(self) -> None:
        self.remove_all_authenticators()
        self.driver.get("about:blank")
        self.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})

    def add_authenticator(self, options: dict) -> str:
        """W3C `addVirtualAuthenticator` (it takes ctap2_1, extensions and the backup flags Selenium's class lacks)."""
        authenticator_id = self.driver.execute("addVirtualAuthenticator", dict(options))["value"]
        self.authenticators.append(authenticator_id)
        self.driver._authenticator_id = authenticator_id  # Selenium's helpers act on the latest one
        return authenticator_id

    def remove_authenticator(self, authenticator_id: str) -> None:
        self.driver.execute("removeVirtualAuthenticator", {"authenticatorId": authenticator_id})
        self.authenticators.remove(authenticator_id)
        self.driver._authenticator_id = self.authenticators[-1] if self.authenticators else None

    def remove_all_authenticators(self) -> None:
        for authenticator_id in list(self.authenticators):
            try:
                self.remove_authenticator(authenticator_id)
            except Exception:
                self.authenticators.remove(authenticator_id)

    def credentials(self, authenticator_id: str) -> list[dict]:
        """The authenticator's credentials through CDP (has userName/userDisplayName and the backup flags).
        `credentialId` is standard base64 with padding there."""
        return self.driver.execute_cdp_cmd(
            "WebAuthn.getCredentials", {"authenticatorId": authenticator_id})["credentials"]

    def credential_ids(self, authenticator_id: str) -> set[str]:
        """The authenticator's credential ids as base64url without padding, like the server's."""
        return {b64_to_b64url(c["credentialId"]) for c in self.credentials(authenticator_id)}

    def raw_credentials(self, authenticator_id: str) -> list[dict]:
        """W3C `getCredentials`: the form `add_credential` takes back."""
        return self.driver.execute("getCredentials", {"authenticatorId": authenticator_id})["value"]

    def add_raw_credential(self, authenticator_id: str, credential: dict) -> None:
        self.driver.execute("addCredential", dict(credential, authenticatorId=authenticator_id))

    def set_user_verified(self, authenticator_id: str, verified: bool) -> None:
        self.driver.execute("setUserVerified", {"authenticatorId": authenticator_id, "isUserVerified": verified})

    # --- navigation and waiting

    def open(self, server: Server, query: str = "autofill=off", wait_idle: bool = True) -> None:
        self.server = server
        self.driver.get(f"{server.url}/" + (f"?{query}" if query else ""))
        if wait_idle:
            self.wait(lambda: self.view() != "loading" and not self.busy(), "the page to load")

    def wait(self, condition, what: str, seconds: float = WAIT_SECONDS):
        def check(_):
            try:
                return condition()
            except StaleElementReferenceException:
                return False
        try:
            return WebDriverWait(self.driver, seconds, poll_frequency=0.02).until(check)
        except TimeoutException:
            raise AssertionError(
                f"timed out waiting for {what}; view={self.view()!r} busy={self.busy()} "
                f"status={self.text('status')!r} error={self.text('error')!r}") from None

    def element(self, element_id: str):
        return self.driver.find_element(By.ID, element_id)

    def text(self, element_id: str) -> str:
        return self.element(element_id).text.strip()

    def view(self) -> str:
        return self.element("app").get_attribute("data-view")

    def busy(self) -> bool:
        return self.element("app").get_attribute("data-busy") == "true"

    def wait_view(self, view: str, seconds: float = WAIT_SECONDS) -> None:
        self.wait(lambda: self.view() == view and not self.busy(), f"view {view!r}", seconds)

    def wait_status(self, expected: str | None = None) -> str:
        """The next success message (messages are written one tick after being cleared)."""
        self.wait(lambda: not self.busy() and self.text("status"), "a status message")
        status = self.text("status")
        assert self.text("error") == "", f"unexpected error message {self.text('error')!r}"
        assert_human(status, expected)
        return status

    def wait_error(self, expected: str | None = None, seconds: float = WAIT_SECONDS) -> str:
        self.wait(lambda: not self.busy() and self.text("error"), "an error message", seconds)
        error = self.text("error")
        assert_human(error, expected)
        return error

    # --- a person's actions

    def click(self, element_id: str) -> None:
        element = self.element(element_id)
        self.wait(lambda: element.is_displayed() and element.is_enabled(), f"#{element_id} to be clickable")
        element.click()

    def type_into(self, element_id: str, text: str) -> None:
        field = self.element(element_id)
        field.click()
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(Keys.DELETE)
        if text:
            field.send_keys(text)

    def register(self, username: str, display_name: str = "") -> None:
        self.type_into("username", username)
        self.type_into("display-name", display_name)
        self.click("register")

    def sign_in(self, username: str = "") -> None:
        """The sign-in button; an empty username field means a discoverable credential (account picker)."""
        self.type_into("username", username)
        self.click("sign-in")

    def sign_out(self) -> None:
        self.click("sign-out")
        self.wait_view("signed-out")
        self.wait_status("You're signed out.")

    def passkey_ids(self) -> list[str]:
        return [li.get_attribute("data-credential-id")
                for li in self.driver.find_elements(By.CSS_SELECTOR, "#passkey-list li[data-credential-id]")]

    # --- the server as the page sees it

    def fetch(self, method: str, path: str) -> tuple[int, object]:
        return tuple(self.driver.execute_async_script(
            """const [method, path, done] = arguments;
            fetch(path, {method, credentials: "same-origin", headers: {Accept: "application/json"}})
              .then(r => r.text().then(t => done([r.status, t ? JSON.parse(t) : null])))
              .catch(e => done([0, String(e)]));""", method, path))

    def me(self) -> dict:
        status, body = self.fetch("GET", "/me")
        assert status == 200, f"GET /me answered {status}: {body}"
        return body

    # --- evidence

    def shot(self, step: str) -> Path:
        self.step += 1
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{self.step:02d}-{re.sub(r'[^A-Za-z0-9_.-]+', '-', step)}.png"
        self.driver.save_screenshot(str(path))
        return path


def b64_to_b64url(text: str) -> str:
    return text.replace("+", "-").replace("/", "_").rstrip("=")
