"""A throwaway systemd machine for one trial script: the machine's own root under a tmpfs overlay (nothing written
inside reaches it), booted by `systemd-nspawn` with systemd as PID 1, a private network, a private /run, and the
Swift toolchain folder hidden. The script runs as a oneshot unit once the system is up, writes its findings, and
the machine powers off when it ends."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from isolation import toolchain_folders

TARGET = """[Unit]
Description=passkeyd packaging trial
AllowIsolate=yes
Wants=passkeyd-trial.service
"""

SERVICE = """[Unit]
Description=passkeyd packaging trial script
After=basic.target
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
ExecStart=/bin/sh /trial/script.sh
StandardOutput=file:/trial/output
StandardError=inherit
TimeoutStartSec=300
"""


def boot(folder: Path, script: str, seconds: int = 420) -> tuple[int, str, str]:
    """Runs `script` (sh) inside; its own files are in /trial (`folder/trial`, writable). Returns nspawn's exit
    status, what the script wrote to standard output, and the machine's console (for failure messages)."""
    trial = folder / "trial"
    trial.mkdir(exist_ok=True)
    (trial / "script.sh").write_text(script)
    units = folder / "units"
    units.mkdir(exist_ok=True)
    (units / "passkeyd-trial.target").write_text(TARGET)
    (units / "passkeyd-trial.service").write_text(SERVICE)
    layers, root = folder / "layers", folder / "root"
    layers.mkdir(exist_ok=True)
    root.mkdir(exist_ok=True)
    q = shlex.quote
    nspawn = [
        "timeout", str(seconds), "systemd-nspawn", "--quiet", "--register=no", "--keep-unit", "--link-journal=no",
        "--private-network", f"--machine=passkeyd-trial-{os.getpid()}", f"--directory={root}",
        f"--bind={trial}:/trial",
        f"--bind-ro={units / 'passkeyd-trial.target'}:/etc/systemd/system/passkeyd-trial.target",
        f"--bind-ro={units / 'passkeyd-trial.service'}:/etc/systemd/system/passkeyd-trial.service",
        *(f"--tmpfs={hidden}" for hidden in toolchain_folders()),
        "--boot", "--", "systemd.unit=passkeyd-trial.target",
    ]
    lines = [
        "set -e",
        # nspawn keeps its locks and propagation folders in /run: a private tmpfs leaves nothing on the machine.
        "mount -t tmpfs tmpfs /run",
        f"mount -t tmpfs tmpfs {q(str(layers))}",
        f"mkdir {q(str(layers / 'upper'))} {q(str(layers / 'work'))}",
        f"mount -t overlay overlay -o {q(f'lowerdir=/,upperdir={layers}/upper,workdir={layers}/work')} {q(str(root))}",
        " ".join(q(part) for part in nspawn),
    ]
    console = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", "\n".join(lines)],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=seconds + 60,
    )
    output = (trial / "output").read_text(errors="replace") if (trial / "output").exists() else ""
    return console.returncode, output, console.stdout + console.stderr
