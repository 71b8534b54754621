"""`make install` (PREFIX /usr/local, DESTDIR a temporary folder): the files, the example configuration, the unit,
and the installed server, which finds its files through the configuration's paths only."""

from __future__ import annotations

import filecmp
import json
import os
import subprocess
import unittest
from pathlib import Path

from isolation import Isolation, scratch_folder
from repository import BINARY, REPO, make, require_binary
from served import Served
from unit_file import BREAKAGES, REQUIRED_SETTINGS, broken_copy, service_settings, verify

PREFIX = "/usr/local"
CONFIGURATION = "etc/passkeyd/passkeyd.json"


def repository_files(folder: str) -> list[str]:
    root = REPO / folder
    return sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())


def files_under(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())


class InstallTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_binary()
        cls.destdir = scratch_folder(cls, "destdir-")
        cls.empty = scratch_folder(cls, "empty-")
        make("install", f"DESTDIR={cls.destdir}")
        cls.prefix = cls.destdir / PREFIX.lstrip("/")

    def installed(self) -> Isolation:
        """The DESTDIR's /usr/local laid over the system's, as if installed there; the toolchain hidden."""
        return Isolation(self.empty).overlay(self.prefix, PREFIX)

    def configuration(self) -> dict:
        return json.loads((self.destdir / CONFIGURATION).read_text())

    def test_installs_the_binary_the_site_and_the_trust_anchors(self):
        binary = self.prefix / "bin/passkeyd"
        self.assertTrue(filecmp.cmp(binary, BINARY, shallow=False))
        self.assertEqual(binary.stat().st_mode & 0o777, 0o755)
        for folder in ("www", "TrustAnchors"):
            installed = self.prefix / "share/passkeyd" / folder
            self.assertEqual(files_under(installed), repository_files(folder))
            for name in repository_files(folder):
                self.assertTrue(filecmp.cmp(installed / name, REPO / folder / name, shallow=False), name)
                self.assertEqual((installed / name).stat().st_mode & 0o777, 0o644, name)
        self.assertIn("metadata/globalsign-root-r46.pem", files_under(self.prefix / "share/passkeyd/TrustAnchors"))
        self.assertIn("aaguid-names.json", files_under(self.prefix / "share/passkeyd/TrustAnchors"))
        self.assertTrue((self.prefix / "share/doc/passkeyd/README.md").is_file())

    def test_an_existing_binary_is_packaged_without_a_build(self):
        # `make -n install` (what deb and image run, with their prerequisite): with BINARY= no Swift build, without it
        # `make static`'s. (deb and image themselves run make again, which -n would not stop.)
        make_program = os.environ.get("MAKE", "make")
        given = subprocess.run([make_program, "-n", "-C", str(REPO), "install", f"BINARY={BINARY}"],
                               capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        self.assertNotIn("--static-swift-stdlib", given.stdout)
        self.assertIn(f"install -m 0755 {BINARY} ", given.stdout)
        rebuilt = subprocess.run([make_program, "-n", "-C", str(REPO), "install"], capture_output=True, text=True, timeout=60,
                                 stdin=subprocess.DEVNULL)
        self.assertIn("--static-swift-stdlib", rebuilt.stdout)

    def test_the_example_configuration_names_the_installed_files(self):
        configuration = self.configuration()
        self.assertEqual(configuration["dataDirectory"], "/var/lib/passkeyd")
        self.assertEqual(configuration["www"], f"{PREFIX}/share/passkeyd/www")
        self.assertEqual(configuration["attestation"]["trustAnchors"], f"{PREFIX}/share/passkeyd/TrustAnchors")
        self.assertEqual(configuration["attestation"]["authenticatorNames"], f"{PREFIX}/share/passkeyd/TrustAnchors/aaguid-names.json")
        for path in (configuration["www"], configuration["attestation"]["trustAnchors"], configuration["attestation"]["authenticatorNames"]):
            self.assertTrue((self.destdir / path.lstrip("/")).exists(), path)
        self.assertNotIn("/usr/share/passkeyd", (self.destdir / CONFIGURATION).read_text())
        self.assertTrue(filecmp.cmp(self.destdir / CONFIGURATION, self.prefix / "share/doc/passkeyd/examples/passkeyd.json", shallow=False))

    def test_keeps_an_existing_configuration_and_uninstall_leaves_it(self):
        destdir = scratch_folder(self, "destdir-")
        make("install", f"DESTDIR={destdir}")
        mine = '{"relyingParty": {"id": "example.com"}}\n'
        (destdir / CONFIGURATION).write_text(mine)
        again = make("install", f"DESTDIR={destdir}")
        self.assertIn("kept the existing", again.stdout)
        self.assertEqual((destdir / CONFIGURATION).read_text(), mine)
        self.assertTrue((destdir / PREFIX.lstrip("/") / "share/doc/passkeyd/examples/passkeyd.json").is_file())
        make("uninstall", f"DESTDIR={destdir}")
        self.assertEqual(files_under(destdir), [CONFIGURATION])

    def test_the_installed_server_serves_with_the_example_configuration(self):
        folder = scratch_folder(self, "installed-")
        (folder / "empty").mkdir()
        configuration = dict(self.configuration(), dataDirectory=str(folder / "data"))
        server = Served(self.installed().inside(folder / "empty"), f"{PREFIX}/bin/passkeyd", folder, configuration)
        self.addCleanup(server.stop)
        self.assertTrue(server.start(), server.log())
        status, body = server.get("/healthz")
        self.assertEqual((status, json.loads(body)), (200, {"status": "ok"}))
        status, page = server.get("/")
        self.assertEqual((status, page), (200, (REPO / "www/index.html").read_bytes()))

    def test_the_installed_server_does_not_look_in_its_working_directory(self):
        # Without the installed tree, the configured paths do not exist: start-up must fail on them, even from the
        # repository, whose www/ and TrustAnchors/ the default relative paths would find.
        if os.path.exists(f"{PREFIX}/share/passkeyd"):
            self.skipTest(f"{PREFIX}/share/passkeyd exists on this machine")
        folder = scratch_folder(self, "installed-")
        configuration = dict(self.configuration(), dataDirectory=str(folder / "data"))
        server = Served(Isolation(self.empty).inside(REPO), str(self.prefix / "bin/passkeyd"), folder, configuration)
        self.addCleanup(server.stop)
        self.assertFalse(server.start())
        self.assertIn("attestation.trustAnchors", server.log())

    def test_the_unit_verifies_with_its_settings(self):
        unit = self.prefix / "lib/systemd/system/passkeyd.service"
        self.assertEqual(verify(self.installed(), unit), (0, ""))
        settings = service_settings(unit)
        self.assertEqual(settings["ExecStart"], f"{PREFIX}/bin/passkeyd serve --config /etc/passkeyd/passkeyd.json")
        for key, value in REQUIRED_SETTINGS.items():
            self.assertEqual(settings.get(key), value, key)

    def test_broken_copies_of_the_unit_do_not_verify(self):
        unit = self.prefix / "lib/systemd/system/passkeyd.service"
        for breakage in BREAKAGES:
            with self.subTest(breakage):
                copy = broken_copy(unit, breakage, scratch_folder(self, "unit-"))
                status, output = verify(self.installed(), copy)
                self.assertNotEqual((status, output), (0, ""), f"{breakage} verified")
