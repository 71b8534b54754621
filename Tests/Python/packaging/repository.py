"""The repository under test, its static binary (built once by `make test-packaging`), its Makefile, and what the
binary links: each library `ldd` resolves, with the Debian package that owns it (`dpkg -S`)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
# `make test-packaging` passes the binary it built; a run by hand may pass another (e.g. a dynamically linked one).
BINARY = Path(os.environ.get("PASSKEYD_BINARY", REPO / ".build/static/release/passkeyd")).resolve()


def require_binary() -> None:
    """Fails the calling test class when there is no binary: a missing one must not pass as nothing to test."""
    if not BINARY.is_file():
        raise AssertionError(f"{BINARY} is missing: `make test-packaging` builds it")


def make(*arguments: str, environment: dict | None = None) -> subprocess.CompletedProcess:
    """`make ARGUMENTS` in the repository, packaging the same binary (BINARY=, so nothing is rebuilt), with
    `environment` added to the process's; fails the caller's test on an error."""
    process = subprocess.run(
        [os.environ.get("MAKE", "make"), "--no-print-directory", "-C", str(REPO), f"BINARY={BINARY}", *arguments],
        capture_output=True, text=True, timeout=1200, stdin=subprocess.DEVNULL, env={**os.environ, **(environment or {})},
    )
    if process.returncode != 0:
        raise AssertionError(f"make {' '.join(arguments)} failed ({process.returncode}):\n{process.stdout}\n{process.stderr}")
    return process


def source_version() -> str:
    """The version the sources define (Sources/passkeyd/Version.swift), which `passkeyd --version` prints."""
    text = (REPO / "Sources/passkeyd/Version.swift").read_text()
    return re.search(r'static let number = "([^"]+)"', text).group(1)


def needed_libraries(binary: Path) -> list[str]:
    """The DT_NEEDED entries: the libraries the binary itself names."""
    dynamic = subprocess.run(["readelf", "--dynamic", str(binary)], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)


def resolved_libraries(binary: Path) -> dict[str, str | None]:
    """Every library the loader loads for the binary (`ldd`, transitively): name → path, None when not found."""
    output = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout
    libraries: dict[str, str | None] = {}
    for line in output.splitlines():
        if match := re.match(r"\s*(\S+) => not found", line):
            libraries[match.group(1)] = None
        elif match := re.match(r"\s*(\S+) => (\S+) \(0x", line):
            libraries[match.group(1)] = match.group(2)
        elif match := re.match(r"\s*(/\S+) \(0x", line):  # the dynamic loader itself
            libraries[Path(match.group(1)).name] = match.group(1)
    return libraries


def owning_package(path: str) -> str | None:
    """The Debian package that installed `path` (by its real path, or that path under /usr or without /usr: merged /usr)."""
    real = os.path.realpath(path)
    candidates = [path, real]
    for candidate in list(candidates):
        if candidate.startswith("/usr/"):
            candidates.append(candidate[len("/usr"):])
        else:
            candidates.append("/usr" + candidate)
    for candidate in candidates:
        process = subprocess.run(["dpkg-query", "--search", candidate], capture_output=True, text=True)
        if process.returncode == 0:
            return process.stdout.split(":", 1)[0].split(",")[0].strip()
    return None
