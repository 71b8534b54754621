"""Commands run in a private mount namespace that hides the Swift toolchain (`unshare --mount`, as root).

Inside, the toolchain's folder (/opt/swift, found from the `swift` on PATH) is an empty folder, so the loader can
find no Swift runtime there, whatever a binary's RUNPATH says; overlays lay an installed tree over a system
folder (read-only, the system's files still visible below it); `private` folders replace a system folder with a
copy or an empty one that the command may write. Nothing of it outlives the command.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path


def toolchain_paths() -> dict:
    """The compiler's own account of where its runtime lives (`swift -print-target-info`)."""
    swift = os.environ.get("SWIFT", "swift")
    info = subprocess.run([swift, "-print-target-info"], capture_output=True, text=True, check=True).stdout
    return json.loads(info)["paths"]


def toolchain_folders() -> list[Path]:
    """What to hide: the toolchain's install root (/opt/swift for <root>/usr/lib/swift), or only its lib/swift and
    lib/swift_static folders when the toolchain is installed in /usr itself."""
    resource = Path(toolchain_paths()["runtimeResourcePath"])  # <root>/usr/lib/swift
    root = resource.parents[2]
    if root != Path("/"):
        return [root]
    return [path for path in (resource, resource.parent / "swift_static") if path.is_dir()]


class Isolation:
    """A recipe of mounts; `command(argv)` is the argv that runs argv with them."""

    def __init__(self, empty: Path):
        if os.geteuid() != 0:
            raise AssertionError("the packaging tests mount folders in a private namespace: run them as root, as CI does")
        self.empty = empty  # an empty folder, mounted over each hidden one
        self.hidden: list[Path] = toolchain_folders()
        self.overlays: list[tuple[Path, Path]] = []
        self.copies: list[tuple[Path, Path]] = []
        self.emptied: list[Path] = []
        self.cwd = empty

    def overlay(self, tree: Path, target: str) -> "Isolation":
        """`tree` laid over `target` (e.g. a DESTDIR's usr/local over /usr/local)."""
        self.overlays.append((tree, Path(target)))
        return self

    def private_copy(self, target: str, scratch: Path) -> "Isolation":
        """`target` replaced by a writable copy of itself made in `scratch` (e.g. /etc, for useradd)."""
        self.copies.append((Path(target), scratch / Path(target).name))
        return self

    def private_empty(self, target: str) -> "Isolation":
        """`target` replaced by an empty writable tmpfs."""
        self.emptied.append(Path(target))
        return self

    def inside(self, cwd: Path) -> "Isolation":
        self.cwd = cwd
        return self

    def command(self, argv: list[str]) -> list[str]:
        q = shlex.quote
        lines = ["set -e"]
        for source, copy in self.copies:
            lines.append(f"cp -a {q(str(source))} {q(str(copy))}")
            lines.append(f"mount --bind {q(str(copy))} {q(str(source))}")
        for target in self.emptied:
            lines.append(f"mount -t tmpfs tmpfs {q(str(target))}")
        for tree, target in self.overlays:
            lines.append(f"mount -t overlay overlay -o {q(f'lowerdir={tree}:{target}')} {q(str(target))}")
        for folder in self.hidden:
            lines.append(f"mount --bind {q(str(self.empty))} {q(str(folder))}")
        lines.append(f"cd {q(str(self.cwd))}")
        lines.append('exec "$@"')
        return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", "\n".join(lines), "sh", *argv]

    def run(self, argv: list[str], **kwargs) -> subprocess.CompletedProcess:
        if "stdout" not in kwargs and "stderr" not in kwargs:
            kwargs["capture_output"] = True
        else:
            kwargs.setdefault("stdout", subprocess.PIPE)
        kwargs.setdefault("text", True)
        kwargs.setdefault("timeout", 120)
        return subprocess.run(self.command(argv), stdin=subprocess.DEVNULL, **kwargs)

    def popen(self, argv: list[str], **kwargs) -> subprocess.Popen:
        """A long-running command; `sh` and `unshare` exec it, so the process's pid is the command's own."""
        return subprocess.Popen(self.command(argv), stdin=subprocess.DEVNULL, **kwargs)


def scratch_folder(test_case, prefix: str) -> Path:
    """A temporary folder removed when the test (or class, for a class) is done."""
    folder = Path(tempfile.mkdtemp(prefix=f"passkeyd-packaging-{prefix}"))
    cleanup = test_case.addClassCleanup if isinstance(test_case, type) else test_case.addCleanup
    cleanup(shutil.rmtree, folder, ignore_errors=True)
    return folder
