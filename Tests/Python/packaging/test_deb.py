"""`make deb`: the control file, the contents, the package extracted into a temporary root (`dpkg-deb -x`) and run
from there without the toolchain, its unit, and the maintainer scripts run against a private copy of /etc."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import unittest
from pathlib import Path

import container
from isolation import Isolation, scratch_folder
from repository import BINARY, REPO, make, needed_libraries, owning_package, require_binary, resolved_libraries, source_version
from served import Served
from unit_file import REQUIRED_SETTINGS, service_settings, verify

UNIT_FOLDER = subprocess.run(["pkg-config", "--variable=systemdsystemunitdir", "systemd"], capture_output=True, text=True).stdout.strip()


# Run inside a booted systemd machine: install the package, start the service as an administrator would, look at
# the running process, reload, purge. One `name=value` line per finding.
SYSTEMD_TRIAL = r"""
fact() { echo "$1=$2"; }
# /trial/get PATH: the body's first line once the server answers (within 2 minutes), or nothing.
cat >/trial/get <<'PYTHON'
import ssl, sys, time, urllib.request
context = ssl.create_default_context()
context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
for _ in range(240):
    try:
        with urllib.request.urlopen("https://127.0.0.1:8443" + sys.argv[1], context=context, timeout=5) as reply:
            print(reply.read().decode().splitlines()[0])
            break
    except OSError:
        time.sleep(0.5)
PYTHON
main_pid() { systemctl show --property=MainPID --value passkeyd.service; }
# Container images forbid service actions in maintainer scripts (policy-rc.d exit 101); a Debian system does not.
rm -f /usr/sbin/policy-rc.d
dpkg --install /trial/passkeyd.deb >/trial/dpkg.log 2>&1; fact installed $?
fact user "$(getent passwd passkeyd)"
fact enabled "$(systemctl is-enabled passkeyd.service 2>&1)"
fact active "$(systemctl is-active passkeyd.service 2>&1)"
systemctl enable --now passkeyd.service >>/trial/dpkg.log 2>&1; fact started $?
fact health "$(python3 /trial/get /healthz)"
fact page "$(python3 /trial/get /)"
pid=$(main_pid)
fact process_user "$(ps -o user= -p "$pid")"
for field in CapEff CapPrm CapBnd CapAmb NoNewPrivs Seccomp; do fact "$field" "$(awk -v f="$field:" '$1 == f {print $2}' /proc/"$pid"/status)"; done
fact toolchain "$(ls -A /opt/swift 2>/dev/null | wc -l)"
fact open_files "$(awk '/^Max open files/ {print $4, $5}' /proc/"$pid"/limits)"
fact cap_warnings "$(journalctl -u passkeyd.service --no-pager 2>/dev/null | grep -c 'connections instead of')"
fact state_directory "$(stat -c '%U %a' /var/lib/passkeyd)"
fact database "$(stat -c '%U %a' /var/lib/passkeyd/passkeyd.sqlite)"
dpkg --install /trial/passkeyd.deb >>/trial/dpkg.log 2>&1; fact upgraded $?
fact health_after_upgrade "$(python3 /trial/get /healthz)"
fact restarted_by_upgrade "$([ "$(main_pid)" != "$pid" ] && systemctl is-active passkeyd.service)"
pid=$(main_pid)
systemctl reload passkeyd.service; sleep 3
fact after_reload "$(systemctl is-active passkeyd.service) $([ "$(main_pid)" = "$pid" ] && echo same-process)"
fact health_after_reload "$(python3 /trial/get /healthz)"
fact reload_logged "$(journalctl -u passkeyd.service --no-pager 2>/dev/null | grep -c 'reloaded /etc/passkeyd/passkeyd.json')"
systemctl start passkeyd.service; fact health_before_purge "$(python3 /trial/get /healthz)"
dpkg --purge passkeyd >>/trial/dpkg.log 2>&1; fact purged $?
fact processes_after_purge "$(ps -C passkeyd -o pid= | wc -l)"
fact user_after_purge "$(getent passwd passkeyd | cut -d: -f1)"
fact unit_after_purge "$(ls @UNIT_FOLDER@/passkeyd.service 2>/dev/null)"
fact enabled_after_purge "$(ls /etc/systemd/system/*.wants/ 2>/dev/null | grep -c passkeyd)"
fact configuration_after_purge "$(ls /etc/passkeyd 2>/dev/null)"
""".replace("@UNIT_FOLDER@", UNIT_FOLDER or "/lib/systemd/system")


def dpkg_deb(*arguments: str) -> str:
    return subprocess.run(["dpkg-deb", *arguments], capture_output=True, text=True, check=True).stdout


class DebTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_binary()
        output = scratch_folder(cls, "deb-")
        cls.build = make("deb", f"DEB_OUTPUT={output}")
        cls.package = Path(cls.build.stdout.strip().splitlines()[-1])
        if not cls.package.is_absolute():
            cls.package = REPO / cls.package
        cls.root = scratch_folder(cls, "deb-root-")
        cls.control = scratch_folder(cls, "deb-control-")
        dpkg_deb("--extract", str(cls.package), str(cls.root))
        dpkg_deb("--control", str(cls.package), str(cls.control))
        cls.empty = scratch_folder(cls, "empty-")
        cls.unit = cls.root / (UNIT_FOLDER or "/lib/systemd/system").lstrip("/") / "passkeyd.service"

    def installed(self) -> Isolation:
        """The package's /usr laid over the system's, as if it were installed; the toolchain hidden."""
        return Isolation(self.empty).overlay(self.root / "usr", "/usr")

    def field(self, name: str) -> str:
        return dpkg_deb("--field", str(self.package), name).strip()

    def test_builds_without_warnings(self):
        self.assertNotIn("warning", self.build.stderr)
        self.assertEqual(self.package.name, f"passkeyd_{self.field('Version')}_{self.field('Architecture')}.deb")

    def test_the_control_file(self):
        info = dpkg_deb("--info", str(self.package))
        self.assertIn("Package: passkeyd", info)
        self.assertEqual(self.field("Package"), "passkeyd")
        architecture = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True).stdout.strip()
        self.assertEqual(self.field("Architecture"), architecture)
        self.assertEqual(self.field("Version"), source_version())
        for name in ("Maintainer", "Description", "Section", "Priority", "Installed-Size"):
            self.assertTrue(self.field(name), name)

    def test_depends_on_the_packages_of_the_linked_libraries(self):
        # Derived here on its own: the packages that own the libraries the binary names, each with a minimum version.
        resolved = resolved_libraries(BINARY)
        expected = {owning_package(resolved[name]) for name in needed_libraries(BINARY)}
        self.assertNotIn(None, expected)
        depends = [entry.strip() for entry in self.field("Depends").split(",")]
        names = {re.match(r"[a-z0-9.+-]+", entry).group(0) for entry in depends}
        self.assertEqual(names, expected)
        for entry in depends:
            self.assertRegex(entry, r"^[a-z0-9.+-]+ \(>= [^)]+\)$")

    def test_the_conffile_and_the_maintainer_scripts(self):
        self.assertEqual((self.control / "conffiles").read_text().split(), ["/etc/passkeyd/passkeyd.json"])
        for script in ("postinst", "prerm", "postrm"):
            path = self.control / script
            self.assertTrue(os.access(path, os.X_OK), script)
            self.assertEqual(subprocess.run(["sh", "-n", str(path)]).returncode, 0, script)

    def test_the_contents(self):
        listing = dpkg_deb("--contents", str(self.package)).splitlines()
        self.assertTrue(all(" root/root " in line for line in listing))
        files = {line.split()[-1].removeprefix(".") for line in listing if not line.startswith("d")}
        for path in (
            "/usr/bin/passkeyd",
            "/etc/passkeyd/passkeyd.json",
            f"{UNIT_FOLDER or '/lib/systemd/system'}/passkeyd.service",
            "/usr/share/passkeyd/www/index.html",
            "/usr/share/passkeyd/TrustAnchors/aaguid-names.json",
            "/usr/share/passkeyd/TrustAnchors/apple-webauthn-root-ca.pem",
            "/usr/share/passkeyd/TrustAnchors/metadata/globalsign-root-r46.pem",
            "/usr/share/doc/passkeyd/README.md",
        ):
            self.assertIn(path, files)
        sections = subprocess.run(["readelf", "--sections", str(self.root / "usr/bin/passkeyd")], capture_output=True, text=True).stdout
        self.assertNotIn(".symtab", sections)
        self.assertNotIn(".debug_info", sections)
        checked = subprocess.run(["md5sum", "--check", "--quiet", str(self.control / "md5sums")], cwd=self.root, capture_output=True, text=True)
        self.assertEqual(checked.returncode, 0, checked.stdout + checked.stderr)

    def test_the_package_runs_from_its_root_without_the_toolchain(self):
        process = self.installed().run(["/usr/bin/passkeyd", "--version"])
        self.assertEqual((process.returncode, process.stdout), (0, f"passkeyd {self.field('Version')}\n"), process.stderr)
        folder = scratch_folder(self, "deb-served-")
        (folder / "empty").mkdir()
        configuration = json.loads((self.root / "etc/passkeyd/passkeyd.json").read_text())
        self.assertEqual(configuration["www"], "/usr/share/passkeyd/www")
        configuration["dataDirectory"] = str(folder / "data")
        server = Served(self.installed().inside(folder / "empty"), "/usr/bin/passkeyd", folder, configuration)
        self.addCleanup(server.stop)
        self.assertTrue(server.start(), server.log())
        self.assertEqual(server.get("/"), (200, (REPO / "www/index.html").read_bytes()))

    def test_the_unit_verifies(self):
        self.assertEqual(verify(self.installed(), self.unit), (0, ""))
        settings = service_settings(self.unit)
        self.assertEqual(settings["ExecStart"], "/usr/bin/passkeyd serve --config /etc/passkeyd/passkeyd.json")
        for key, value in REQUIRED_SETTINGS.items():
            self.assertEqual(settings.get(key), value, key)

    def test_the_maintainer_scripts_create_and_remove_the_user(self):
        # /etc is a private copy, /var/lib, /var/log and /run/systemd are empty: nothing reaches the machine's own.
        passwd = Path("/etc/passwd").read_text()
        scratch = scratch_folder(self, "deb-etc-")
        isolation = Isolation(self.empty).private_copy("/etc", scratch).private_empty("/var/lib").private_empty("/var/log")
        if os.path.isdir("/run/systemd"):
            isolation.private_empty("/run/systemd")
        scripts = self.control
        steps = f"""
            set -e
            step() {{ echo "== $*"; "$@"; }}
            report() {{ echo "user: $(getent passwd passkeyd || echo none)"; echo "group: $(getent group passkeyd || echo none)"; }}
            step {scripts}/postinst configure; report
            step {scripts}/postinst configure; report
            step {scripts}/prerm remove
            step {scripts}/postrm remove; report
            step {scripts}/postrm purge; report
            step {scripts}/postinst configure
            mkdir -p /var/lib/passkeyd && touch /var/lib/passkeyd/passkeyd.sqlite
            step {scripts}/postrm purge; report
        """
        process = isolation.run(["sh", "-c", steps], stderr=subprocess.STDOUT)
        self.assertEqual(process.returncode, 0, process.stdout)
        reports = re.findall(r"^user: (.*)\ngroup: (.*)$", process.stdout, re.MULTILINE)
        self.assertEqual(len(reports), 5, process.stdout)
        created, again, after_remove, after_purge, with_data = reports
        fields = created[0].split(":")
        self.assertEqual((fields[0], fields[5], fields[6]), ("passkeyd", "/var/lib/passkeyd", "/usr/sbin/nologin"), created)
        self.assertLess(int(fields[2]), 1000, "not a system user")
        self.assertEqual(created[1].split(":")[2], fields[3], "the user's group is not passkeyd")
        self.assertEqual(again, created)
        self.assertEqual(after_remove, created)
        self.assertEqual(after_purge, ("none", "none"))
        self.assertNotEqual(with_data[0], "none", "purge removed the user that owns the data")
        self.assertIn("kept /var/lib/passkeyd", process.stdout)
        self.assertEqual(Path("/etc/passwd").read_text(), passwd, "the machine's own /etc changed")

    def test_the_package_under_systemd(self):
        # As an administrator would use it, in a booted throwaway machine (systemd-nspawn) with systemd as PID 1.
        folder = scratch_folder(self, "deb-systemd-")
        (folder / "trial").mkdir()
        shutil.copy(self.package, folder / "trial/passkeyd.deb")
        status, output, console = container.boot(folder, SYSTEMD_TRIAL)
        facts = dict(line.split("=", 1) for line in output.splitlines() if "=" in line)
        log = (folder / "trial/dpkg.log").read_text(errors="replace") if (folder / "trial/dpkg.log").exists() else ""
        context = f"status {status}\n{output}\n{log}\n{console[-3000:]}"
        self.assertEqual(facts.get("installed"), "0", context)
        self.assertTrue(facts["user"].startswith("passkeyd:"), context)
        # Nothing enabled or started by the installation itself.
        self.assertEqual((facts["enabled"], facts["active"]), ("disabled", "inactive"), context)
        self.assertEqual(facts["started"], "0", context)
        self.assertEqual((facts["health"], facts["page"]), ('{"status":"ok"}', "<!doctype html>"), context)
        self.assertEqual(facts["process_user"], "passkeyd", context)
        net_bind_service = f"{1 << 10:016x}"  # CAP_NET_BIND_SERVICE is capability 10
        for field in ("CapEff", "CapPrm", "CapBnd", "CapAmb"):
            self.assertEqual(facts[field], net_bind_service, field)
        self.assertEqual((facts["NoNewPrivs"], facts["Seccomp"]), ("1", "2"), context)
        self.assertEqual(facts["toolchain"], "0", context)
        # LimitNOFILE=65536, or the machine's own hard limit when that is lower (as in a container): the soft limit is
        # the hard one (systemd sets both, passkeyd raises the soft one under the system-call filter), and the
        # 10,000-connection cap fits it after the 128 reserved descriptors, or is lowered with a warning.
        soft, hard = facts["open_files"].split()
        self.assertEqual(soft, hard, context)
        self.assertLessEqual(int(hard), 65536, context)
        self.assertEqual(facts["cap_warnings"] == "0", int(hard) >= 10_000 + 128, context)
        self.assertEqual((facts["state_directory"], facts["database"]), ("passkeyd 700", "passkeyd 600"), context)
        # An upgrade (here the same version again) restarts a running service with the new binary.
        self.assertEqual((facts["upgraded"], facts["health_after_upgrade"], facts["restarted_by_upgrade"]), ("0", '{"status":"ok"}', "active"), context)
        # systemctl reload sends SIGHUP: the same process reloads its configuration and keeps serving.
        self.assertEqual(facts["after_reload"], "active same-process", context)
        self.assertEqual((facts["health_after_reload"], facts["reload_logged"]), ('{"status":"ok"}', "1"), context)
        self.assertEqual((facts["health_before_purge"], facts["purged"], facts["processes_after_purge"]), ('{"status":"ok"}', "0", "0"), context)
        # The data folder stays, and with it the user that owns it; the unit, its enablement and the conffile go.
        self.assertEqual(facts["user_after_purge"], "passkeyd", context)
        self.assertEqual((facts["unit_after_purge"], facts["enabled_after_purge"], facts["configuration_after_purge"]), ("", "0", ""), context)
