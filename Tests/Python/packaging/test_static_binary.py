"""The release binary built with --static-swift-stdlib runs on a machine without the Swift toolchain.

Run on a dynamically linked build (PASSKEYD_BINARY=.build/release/passkeyd), every test here fails: its RUNPATH
names the toolchain's runtime folder, which is hidden from the loader.
"""

from __future__ import annotations

import json
import re
import unittest
from pathlib import Path

from isolation import Isolation, scratch_folder, toolchain_folders, toolchain_paths
from repository import BINARY, needed_libraries, owning_package, require_binary, resolved_libraries, source_version
from served import Served

SWIFT_RUNTIME_PREFIXES = ("libswift", "libFoundation", "libdispatch", "libBlocksRuntime", "lib_Foundation")
# Toolchains shipped their own ICU as libicu*swift*.so; Debian's ICU (libicui18n.so.72, libicuuc.so.72, for the
# look-alike username check) is a Debian package's library like libssl's.
TOOLCHAIN_ICU = re.compile(r"^libicu\w*swift")


class StaticBinaryTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_binary()
        cls.empty = scratch_folder(cls, "empty-")

    def isolation(self) -> Isolation:
        return Isolation(self.empty)

    def test_links_only_libraries_of_debian_packages(self):
        needed = needed_libraries(BINARY)
        self.assertIn("libssl.so.3", needed)
        for name in needed:
            self.assertFalse(name.startswith(SWIFT_RUNTIME_PREFIXES), f"the binary names the Swift runtime library {name}")
            self.assertIsNone(TOOLCHAIN_ICU.match(name), f"the binary names the toolchain's ICU {name}")
        hidden = [str(folder) for folder in toolchain_folders()]
        for name, path in resolved_libraries(BINARY).items():
            self.assertIsNotNone(path, f"{name} is not found")
            self.assertFalse(any(path.startswith(folder + "/") for folder in hidden), f"{name} is loaded from the toolchain: {path}")
            self.assertIsNotNone(owning_package(path), f"{name} ({path}) belongs to no Debian package")

    def test_the_toolchain_is_hidden_inside_the_isolation(self):
        runtime = toolchain_paths()["runtimeLibraryPaths"]
        self.assertTrue(runtime)
        for folder in runtime:
            self.assertTrue(Path(folder, "libswiftCore.so").exists(), f"no Swift runtime in {folder}: is this the toolchain?")
            inside = self.isolation().run(["sh", "-c", 'ls -A "$1" 2>/dev/null; true', "sh", folder])
            self.assertEqual((inside.returncode, inside.stdout), (0, ""), f"{folder} is still visible")

    def test_runs_without_the_toolchain(self):
        process = self.isolation().run([str(BINARY), "--version"])
        self.assertEqual(process.returncode, 0, process.stderr)
        self.assertEqual(process.stdout, f"passkeyd {source_version()}\n")

    def test_serves_without_the_toolchain(self):
        folder = scratch_folder(self, "static-")
        (folder / "empty").mkdir()
        server = Served(self.isolation().inside(folder / "empty"), str(BINARY), folder, {"dataDirectory": str(folder / "data")})
        self.addCleanup(server.stop)
        self.assertTrue(server.start(), server.log())
        status, body = server.get("/healthz")
        self.assertEqual((status, json.loads(body)), (200, {"status": "ok"}))
        self.assertTrue((folder / "data/passkeyd.sqlite").is_file())
