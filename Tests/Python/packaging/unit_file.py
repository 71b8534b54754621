"""The systemd unit as installed: `systemd-analyze verify` (which works without systemd running as PID 1) and the
settings the unit must keep."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from isolation import Isolation

# Every setting the installed unit must have, as systemd would read it (the last assignment wins).
REQUIRED_SETTINGS = {
    "User": "passkeyd",
    "Group": "passkeyd",
    "StateDirectory": "passkeyd",
    "ConfigurationDirectory": "passkeyd",
    "ProtectSystem": "strict",
    "ProtectHome": "yes",
    "PrivateTmp": "yes",
    "NoNewPrivileges": "yes",
    "AmbientCapabilities": "CAP_NET_BIND_SERVICE",
    "CapabilityBoundingSet": "CAP_NET_BIND_SERVICE",
    "ExecReload": "/bin/kill -HUP $MAINPID",
    "Restart": "on-failure",
    "LimitNOFILE": "65536",
}

# Deliberately broken copies that `verify` must refuse: systemd only warns (exit status 0) about the first two.
BREAKAGES = {
    "a misspelt setting": (r"^ProtectSystem=", "ProtecSystem="),
    "a value systemd cannot parse": (r"^LimitNOFILE=.*", "LimitNOFILE=lots"),
    "a binary that does not exist": (r"^ExecStart=(\S+)", r"ExecStart=\1-missing"),
    "no ExecStart": (r"^ExecStart=.*", ""),
}


def verify(isolation: Isolation, unit: Path) -> tuple[int, str]:
    """`systemd-analyze verify` of `unit` in `isolation` (where its ExecStart binary must exist): its exit status and
    everything it said. Only a status of 0 with nothing said is a unit systemd takes as written."""
    environment = dict(os.environ, SYSTEMD_LOG_LEVEL="notice", SYSTEMD_LOG_TARGET="console", SYSTEMD_LOG_COLOR="0")
    process = isolation.run(["systemd-analyze", "verify", "--man=no", str(unit)], env=environment, stderr=subprocess.STDOUT)
    return process.returncode, process.stdout.strip()


def service_settings(unit: Path) -> dict[str, str]:
    """The [Service] section's settings, the last assignment of each."""
    settings: dict[str, str] = {}
    section = ""
    for line in unit.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line
        elif section == "[Service]" and "=" in line:
            key, value = line.split("=", 1)
            settings[key.strip()] = value.strip()
    return settings


def broken_copy(unit: Path, breakage: str, folder: Path) -> Path:
    pattern, replacement = BREAKAGES[breakage]
    text, count = re.subn(pattern, replacement, unit.read_text(), count=1, flags=re.MULTILINE)
    assert count == 1, f"{breakage}: {pattern} is not in {unit}"
    copy = folder / "passkeyd.service"
    copy.write_text(text)
    return copy
