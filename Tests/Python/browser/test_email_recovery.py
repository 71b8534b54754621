"""Recovery by email in a real browser: a person who lost every passkey asks for a recovery link, the mail arrives at
the test's SMTP relay (aiosmtpd, Tests/Python/mail/smtp_server.py, in `.venv-mail`), and the link's page (a GET that
spends nothing, as a mail scanner's) opens the restricted session, adds a passkey with it, ends it and sends the
person to the sign-in page, where the new passkey signs in. The link works once."""

import json
import ssl
import subprocess
import time
import urllib.request

import pytest

from conftest import BINARY, REPO, _free_port, platform_authenticator, unique

MAIL_PYTHON = REPO / ".venv-mail" / "bin" / "python"
RELAY = REPO / "Tests" / "Python" / "mail" / "smtp_server.py"


class MailSink:
    """smtp_server.py on a free loopback port, plain SMTP (passkeyd allows it to a loopback host only)."""

    def __init__(self, folder):
        if not MAIL_PYTHON.exists():
            pytest.exit(f"{MAIL_PYTHON} is missing: run `make mail-deps`", returncode=2)
        self.port = _free_port()
        self.log = folder / "mail.jsonl"
        self.stderr = open(folder / "mail.stderr", "wb")
        self.process = subprocess.Popen([str(MAIL_PYTHON), str(RELAY), "--port", str(self.port), "--log", str(self.log)],
                                        stdin=subprocess.DEVNULL, stdout=self.stderr, stderr=self.stderr)
        ready = folder / "mail.jsonl.ready"
        deadline = time.monotonic() + 20
        while not ready.exists():
            assert self.process.poll() is None and time.monotonic() < deadline, "the SMTP relay did not start"
            time.sleep(0.05)

    def messages(self, recipient: str, count: int = 1, seconds: float = 20) -> list[dict]:
        """The messages to `recipient`, once `count` arrived."""
        deadline = time.monotonic() + seconds
        while True:
            lines = self.log.read_text().splitlines() if self.log.exists() else []
            found = [m for m in map(json.loads, lines) if m["rcptTos"] == [recipient]]
            if len(found) >= count:
                return found
            assert time.monotonic() < deadline, f"{count} message(s) to {recipient} did not arrive: {len(found)}"
            time.sleep(0.05)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
        self.stderr.close()


@pytest.fixture(scope="session")
def mail_sink(tmp_path_factory):
    sink = MailSink(tmp_path_factory.mktemp("mail"))
    yield sink
    sink.stop()


@pytest.fixture
def mail_server(servers, mail_sink):
    return servers(email={"host": "127.0.0.1", "port": mail_sink.port, "security": "plain", "from": "no-reply@example.test",
                          "fromName": "Example", "baseURL": "__SERVER_URL__", "firstRetrySeconds": 1, "maximumRetrySeconds": 1})


def post_json(page, path: str, body: dict) -> tuple[int, object]:
    """A request of the page's own origin, without cookies: what an app's "forgot your passkey?" form sends."""
    return tuple(page.driver.execute_async_script(
        """const [path, body, done] = arguments;
        fetch(path, {method: "POST", credentials: "omit", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)})
          .then(r => r.text().then(t => done([r.status, t ? JSON.parse(t) : null])))
          .catch(e => done([0, String(e)]));""", path, body))


def admin(server, *arguments: str) -> dict:
    """`passkeyd admin …` on the running server's store, as an operator runs it."""
    result = subprocess.run([str(BINARY), "admin", *arguments, "--config", str(server.config_path)],
                            capture_output=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    return json.loads(result.stdout)


def scanner_get(url: str) -> str:
    """A mail scanner following the link (Outlook's Safe Links): a plain GET."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # passkeyd's generated self-signed certificate
    local = url.replace("://example.test:", "://127.0.0.1:")
    with urllib.request.urlopen(local, context=context, timeout=10) as response:
        assert response.status == 200
        return response.read().decode()


def test_a_recovery_link_adds_a_passkey_then_the_person_signs_in_with_it(page, mail_server, mail_sink):
    server = mail_server
    lost = page.add_authenticator(platform_authenticator())
    page.open(server)
    name = unique("mailed")
    page.register(name)
    page.wait_view("account")
    page.wait_status()
    user_id = page.me()["user"]["id"]
    address = f"{name}@example.org"
    # The app's backend vouches for the address (a pending one would get no recovery link).
    admin(server, "users", "update", user_id, "--email", address, "--email-verified", "true", "--json")
    page.sign_out()
    page.remove_authenticator(lost)
    found = page.add_authenticator(platform_authenticator())

    status, answer = post_json(page, "/auth/recovery/email", {"email": address})
    assert (status, answer) == (202, {"accepted": True})
    assert post_json(page, "/auth/recovery/email", {"email": f"nobody-{name}@example.org"}) == (202, {"accepted": True}), "no enumeration"
    message = mail_sink.messages(address)[0]
    assert message["subject"] == "Recover your Example account" and not message["defects"]
    prefix = f"{server.url}/auth/recovery/email?token="
    start = message["text"].index(prefix)
    link = message["text"][start:].split()[0]

    # The scanner's GET shows the page and spends nothing; the page does not repeat the token.
    html = scanner_get(link)
    assert "/auth/recovery/email/page.js" in html and link.split("token=")[1] not in html

    page.driver.get(link)
    page.wait(lambda: page.element("recover-create").is_enabled(), "the recovery page")
    assert "token=" not in page.driver.current_url, "the token is not left in the address bar"
    page.shot("recovery-page")
    page.click("recover-create")
    page.wait(lambda: page.view() == "recovered" and not page.busy(), "the recovered view")
    page.wait_status("Your new passkey was added. Sign in with it.")
    page.shot("passkey-added")
    assert len(page.credential_ids(found)) == 1
    # The restricted session was a bearer token in memory, ended by the page: no cookie, nobody signed in, no live
    # session left on the account.
    assert page.fetch("GET", "/me")[0] == 401
    shown = admin(server, "users", "show", user_id, "--json")
    assert shown["sessions"] == [] and len(shown["passkeys"]) == 2, shown

    continue_link = page.element("recovered-continue")
    assert continue_link.get_attribute("href") == f"{server.url}/"
    continue_link.click()
    page.wait(lambda: page.view() in ("signed-out", "account") and not page.busy(), "the sign-in page")
    if page.view() == "signed-out":  # autofill may already have signed in with the only passkey there is
        page.sign_in()
    page.wait_view("account")
    page.shot("signed-in")
    me = page.me()
    assert me["user"]["id"] == user_id
    assert len(me["passkeys"]) == 2, me["passkeys"]
    # The notices of the recovery and of the added passkey went to the verified address.
    texts = [m["text"] for m in mail_sink.messages(address, count=3)[1:]]
    assert any("A recovery link sent by email was used" in t for t in texts), texts
    assert any("A passkey was added to your account." in t for t in texts), texts

    # The same link again: refused with the server's sentence, and the button stays off.
    page.driver.get(link)
    page.wait(lambda: page.element("recover-create").is_enabled(), "the recovery page")
    page.click("recover-create")
    page.wait_error("This recovery link is not valid: it was used, expired, or replaced by a newer one.")
    assert not page.element("recover-create").is_enabled()
    assert len(page.credential_ids(found)) == 1
    page.shot("used-twice")
