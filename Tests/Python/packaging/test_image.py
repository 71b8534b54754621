"""`make image`: the OCI image of the binary under test, built with buildah from scratch and exported as an archive,
loaded into a podman storage of its own and run under podman (runc, host network, a containers.conf of the test's own;
storage, archive and volume in temporary folders, removed afterwards): its contents (nothing but the binary, its
libraries, the CA certificates, the site, the trust anchors and /etc), its configuration, a server that starts with
`podman run` alone, answers /readyz and its health check, runs as uid 10001, does a passkey registration and sign-in
(passkeyd-test-device as the authenticator) and keeps its data in the volume across containers, and outbound HTTPS
that verifies certificates against the image's CA bundle."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import ssl
import subprocess
import tarfile
import threading
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path

from isolation import scratch_folder
from repository import BINARY, REPO, make, require_binary, source_version
from served import free_port

DEVICE = Path(os.environ.get("PASSKEYD_TEST_DEVICE", REPO / ".build/debug/passkeyd-test-device")).resolve()
CONFIGURATION = "/etc/passkeyd/passkeyd.json"
HEALTHCHECK = ["CMD", "/usr/bin/passkeyd", "healthcheck", "--config", CONFIGURATION]
# On these machines podman needs runc, cgroupfs and no ulimits of its own (shared/notes/containers.md).
CONTAINERS_CONF = '[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\n'
RP_ID = "example.com"


def unverified() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # the self-signed certificate passkeyd makes in its volume
    return context


class Podman:
    """podman on a storage (--root, --runroot) and containers.conf under `folder`."""

    def __init__(self, folder: Path, conf: Path):
        self.folder = folder
        self.environment = {**os.environ, "CONTAINERS_CONF": str(conf)}

    def __call__(self, *arguments: str, check: bool = True, timeout: float = 60) -> subprocess.CompletedProcess:
        process = subprocess.run(
            ["podman", "--root", str(self.folder / "root"), "--runroot", str(self.folder / "runroot"), *arguments],
            capture_output=True, text=True, timeout=timeout, env=self.environment, stdin=subprocess.DEVNULL,
        )
        if check and process.returncode != 0:
            raise AssertionError(f"podman {' '.join(arguments)} failed ({process.returncode}):\n{process.stdout}\n{process.stderr}")
        return process

    def reset(self) -> None:
        self("system", "reset", "--force", check=False, timeout=120)


class Device:
    """passkeyd-test-device, one JSON line per command."""

    def __init__(self, p8: Path):
        self.process = subprocess.Popen([str(DEVICE), "--p8", str(p8)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        json.loads(self.process.stdout.readline())

    def send(self, **command) -> dict:
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        assert "error" not in answer, answer
        return answer

    def stop(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=10)
        self.process.stdout.close()


class ImageTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_binary()
        for tool in ("buildah", "podman", "runc"):
            if shutil.which(tool) is None:
                raise AssertionError(f"{tool} is missing: `make test-packaging` installs it")
        cls.folder = scratch_folder(cls, "image-")
        conf = cls.folder / "containers.conf"
        conf.write_text(CONTAINERS_CONF)
        # buildah's storage, where the image is built (and removed once exported), and podman's, where it is loaded.
        cls.builder = Podman(cls.folder / "build", conf)
        cls.podman = Podman(cls.folder / "run", conf)
        cls.addClassCleanup(cls.builder.reset)
        cls.addClassCleanup(cls.podman.reset)
        cls.version = source_version()
        cls.tag = f"localhost/passkeyd:{cls.version}"
        started = time.monotonic()
        build = make("image", f"IMAGE_OUTPUT={cls.folder / 'out'}", environment={
            "CONTAINERS_CONF": str(conf), "STORAGE_ROOT": str(cls.folder / "build/root"),
            "STORAGE_RUNROOT": str(cls.folder / "build/runroot"), "KEEP_IMAGE": "0",
        })
        cls.build_seconds = time.monotonic() - started
        cls.archive = Path(build.stdout.strip().splitlines()[-1])
        cls.podman("load", "--quiet", "--input", str(cls.archive), timeout=120)
        cls.inspected = json.loads(cls.podman("image", "inspect", cls.tag).stdout)[0]

    def run_container(self, name: str, port: int, *options: str, command: tuple[str, ...] = ()) -> str:
        """A detached container of the image on the host's network, HTTPS on 127.0.0.1:port; removed after the test."""
        self.addCleanup(self.podman, "rm", "--force", "--time", "0", name, check=False)
        self.podman("--runtime", "runc", "run", "--detach", "--name", name, "--network", "host", "--health-interval", "disable",
                    "--env", f"PASSKEYD_LISTEN=127.0.0.1:{port}", *options, self.tag, *command)
        return name

    def wait_ready(self, name: str, port: int) -> dict:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"https://127.0.0.1:{port}/readyz", context=unverified(), timeout=5) as reply:
                    return json.loads(reply.read())
            except (urllib.error.URLError, ConnectionError):
                state = json.loads(self.podman("inspect", name).stdout)[0]["State"]
                self.assertTrue(state["Running"], self.podman("logs", name).stderr)
                time.sleep(0.2)
        self.fail(f"/readyz did not answer: {self.podman('logs', name).stderr}")

    def post(self, port: int, path: str, body: dict) -> dict:
        request = urllib.request.Request(f"https://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, context=unverified(), timeout=10) as reply:
            return json.loads(reply.read())

    def test_the_archive_is_an_oci_layout_tagged_with_the_version(self):
        self.assertEqual(self.archive.name, f"passkeyd-{self.version}.oci.tar")
        with tarfile.open(self.archive) as archive:
            layout = json.load(archive.extractfile("oci-layout"))
            index = json.load(archive.extractfile("index.json"))
        self.assertEqual(layout["imageLayoutVersion"], "1.0.0")
        self.assertEqual([m["annotations"]["org.opencontainers.image.ref.name"] for m in index["manifests"]], [f"passkeyd:{self.version}"])
        self.assertLess(self.build_seconds, 60)

    def test_the_image_configuration(self):
        config = self.inspected["Config"]
        self.assertEqual(config["User"], "10001:10001")
        self.assertEqual(list(config["Volumes"]), ["/var/lib/passkeyd"])
        self.assertEqual(config["Entrypoint"], ["/usr/bin/passkeyd"])
        self.assertEqual(config["Cmd"], ["serve", "--config", CONFIGURATION])
        self.assertEqual(self.inspected["Healthcheck"]["Test"], HEALTHCHECK)
        self.assertEqual(self.inspected["Labels"]["org.opencontainers.image.version"], self.version)
        self.assertIn(self.tag, self.inspected["RepoTags"])

    def test_the_contents_are_the_binary_its_libraries_certificates_and_files(self):
        mountpoint = Path(self.podman("image", "mount", self.tag).stdout.strip())
        self.addCleanup(self.podman, "image", "unmount", self.tag, check=False)
        files = {"/" + str(path.relative_to(mountpoint)) for path in mountpoint.rglob("*") if not path.is_dir()}
        ldd = subprocess.run(["ldd", str(BINARY)], capture_output=True, text=True, check=True).stdout.split()
        libraries = {word for word in ldd if word.startswith("/")}
        shipped = {f"/usr/share/passkeyd/{folder}/{path.relative_to(REPO / folder)}"
                   for folder in ("www", "TrustAnchors") for path in (REPO / folder).rglob("*") if path.is_file()}
        expected = libraries | shipped | {
            "/usr/bin/passkeyd", "/etc/passwd", "/etc/group", CONFIGURATION, "/etc/ssl/certs/ca-certificates.crt", "/usr/lib/ssl/cert.pem",
        }
        self.assertEqual(files, expected)
        for shell in ("/bin/sh", "/usr/bin/sh", "/bin/bash", "/usr/bin/apt", "/usr/bin/dpkg"):
            self.assertNotIn(shell, files)
        self.assertEqual((mountpoint / "etc/ssl/certs/ca-certificates.crt").read_bytes(), Path("/etc/ssl/certs/ca-certificates.crt").read_bytes())
        self.assertIn("passkeyd:x:10001:10001:", (mountpoint / "etc/passwd").read_text())
        data = (mountpoint / "var/lib/passkeyd").stat()
        self.assertEqual((data.st_uid, data.st_gid, data.st_mode & 0o777), (10001, 10001, 0o700))
        configuration = json.loads((mountpoint / CONFIGURATION.lstrip("/")).read_text())
        self.assertEqual(configuration["listen"], {"https": "0.0.0.0:8443"})

    def test_serves_as_non_root_with_a_health_check_and_keeps_its_data(self):
        volume = "passkeyd-test-data"
        self.addCleanup(self.podman, "volume", "rm", "--force", volume, check=False)
        # `podman run` with nothing but the listening port: the image's own configuration.
        port = free_port()
        first = self.run_container("passkeyd-test-default", port, "--volume", f"{volume}:/var/lib/passkeyd")
        self.assertEqual(self.wait_ready(first, port)["status"], "ready")
        pid = json.loads(self.podman("inspect", first).stdout)[0]["State"]["Pid"]
        uids = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("Uid:")).split()[1:]
        self.assertEqual(set(uids), {"10001"})
        self.assertEqual(self.podman("exec", first, "/usr/bin/passkeyd", "healthcheck", "--config", CONFIGURATION).returncode, 0)
        self.assertEqual(self.podman("healthcheck", "run", first).returncode, 0)
        # Without the configuration it asks the embedded defaults' listener, where nothing listens: unhealthy.
        self.assertEqual(self.podman("exec", first, "/usr/bin/passkeyd", "healthcheck", check=False).returncode, 1)
        self.podman("stop", "--time", "15", first, timeout=30)
        self.assertEqual(json.loads(self.podman("inspect", first).stdout)[0]["State"]["ExitCode"], 0)

        # The same volume under a mounted configuration: a registration, then a new container and a sign-in.
        configuration = self.folder / "passkeyd.json"
        configuration.write_text(json.dumps({
            "relyingParty": {"id": RP_ID, "name": "Example", "origins": [f"https://{RP_ID}"]},
            "listen": {"https": "0.0.0.0:8443"}, "dataDirectory": "/var/lib/passkeyd", "www": None,
        }))
        configuration.chmod(0o644)
        mounts = ("--volume", f"{volume}:/var/lib/passkeyd", "--volume", f"{configuration}:{CONFIGURATION}:ro")
        device = Device(self.folder / "AuthKey.p8")
        self.addCleanup(device.stop)
        port = free_port()
        second = self.run_container("passkeyd-test-register", port, *mounts)
        self.wait_ready(second, port)
        options = self.post(port, "/webauthn/registration/options", {"username": "ada"})
        made = device.send(command="create", relyingPartyID=options["rp"]["id"], challenge=options["challenge"], userID=options["user"]["id"])
        registered = self.post(port, "/webauthn/registration/verify", {
            "id": made["credentialID"], "rawId": made["credentialID"], "type": "public-key",
            "response": {"clientDataJSON": made["rawClientDataJSON"], "attestationObject": made["rawAttestationObject"]},
            "clientExtensionResults": {},
        })
        self.assertIn("token", registered)
        self.podman("rm", "--force", "--time", "15", second, timeout=30)

        port = free_port()
        third = self.run_container("passkeyd-test-sign-in", port, *mounts)
        self.wait_ready(third, port)
        options = self.post(port, "/webauthn/authentication/options", {"username": "ada"})
        self.assertEqual([c["id"] for c in options["allowCredentials"]], [made["credentialID"]])
        asserted = device.send(command="assert", relyingPartyID=options["rpId"], challenge=options["challenge"],
                               allowedCredentials=[made["credentialID"]])
        signed_in = self.post(port, "/webauthn/authentication/verify", {
            "id": asserted["credentialID"], "rawId": asserted["credentialID"], "type": "public-key",
            "response": {"clientDataJSON": asserted["rawClientDataJSON"], "authenticatorData": asserted["rawAuthenticatorData"],
                         "signature": asserted["signature"], "userHandle": asserted["userID"]},
            "clientExtensionResults": {},
        })
        self.assertEqual(signed_in["user"]["id"], registered["user"]["id"])

    def test_the_compose_configuration_loads(self):
        # packaging/image/passkeyd.compose.json in the image, without its PostgreSQL: past the configuration (which
        # would say "invalid configuration"), serve stops at the database host compose provides.
        compose = REPO / "packaging/image/passkeyd.compose.json"
        name = "passkeyd-test-compose"
        self.addCleanup(self.podman, "rm", "--force", "--time", "0", name, check=False)
        started = self.podman("--runtime", "runc", "run", "--name", name, "--network", "host", "--health-interval", "disable",
                              "--env", f"PASSKEYD_LISTEN=127.0.0.1:{free_port()}", "--volume", f"{compose}:{CONFIGURATION}:ro",
                              self.tag, check=False, timeout=60)
        log = self.podman("logs", name).stderr
        self.assertEqual(started.returncode, 1, log)
        self.assertNotIn("invalid configuration", log)
        self.assertIn("postgres", log.lower())

    def test_outbound_https_verifies_certificates_against_the_image_bundle(self):
        certificate, key = self.folder / "loopback-certificate.pem", self.folder / "loopback-key.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", str(key), "-out", str(certificate)], check=True, capture_output=True)
        certificate.chmod(0o644)

        class Ready(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the standard library's name
                self.send_response(200 if self.path == "/readyz" else 404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *arguments):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Ready)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        url = f"https://127.0.0.1:{server.server_address[1]}/readyz"

        def healthcheck(*options: str) -> subprocess.CompletedProcess:
            return self.podman("--runtime", "runc", "run", "--rm", "--network", "host", *options, self.tag, "healthcheck", "--url", url,
                               check=False)

        # The image's bundle (Debian's CA certificates) does not know the loopback server's certificate: refused.
        refused = healthcheck()
        self.assertEqual(refused.returncode, 1, refused.stderr)
        self.assertIn("http.clientCertificateUntrusted", refused.stderr)
        # The same call with that certificate in the bundle's place is verified and succeeds: the bundle is what decides.
        trusted = healthcheck("--volume", f"{certificate}:/etc/ssl/certs/ca-certificates.crt:ro")
        self.assertEqual(trusted.returncode, 0, trusted.stderr)


if __name__ == "__main__":
    unittest.main()
