#!/usr/bin/env python3
"""The package's modules a set of fuzz sources needs, derived from Package.swift (never a list kept by hand).

    swift package dump-package | fuzz/modules.py fuzz/Targets/*.swift fuzz/Support/*.swift

reads the `import`s of the given Swift files, closes them over the dependencies of Package.swift's targets, and
prints four lines for fuzz/build.sh:

    modules CBOR CryptoCore ...     the Swift library targets to compile, each after the ones it depends on
    cmodules CICU ...               the C targets among them (their .c files, their include/module.modulemap)
    includes Sources/CLibCBOR ...   the module map folders they reach (system libraries' and C targets' include/),
                                    then the header folders their pkg-config names
    links cbor ssl crypto ...       the libraries those module maps link
"""
import json
import os
import re
import subprocess
import sys

package = json.load(sys.stdin)
targets = {target["name"]: target for target in package["targets"]}


def dependencies(name):
    for dependency in targets[name]["dependencies"]:
        for kind in ("byName", "target"):
            if kind in dependency and dependency[kind][0] in targets:
                yield dependency[kind][0]


imported = set()
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as source:
        imported |= set(re.findall(r"^(?:@testable\s+)?import\s+(\w+)", source.read(), re.MULTILINE))

order, seen = [], set()


def visit(name):
    if name in seen:
        return
    seen.add(name)
    for dependency in dependencies(name):
        visit(dependency)
    order.append(name)


for name in sorted(imported & set(targets)):
    visit(name)

def folder(name):
    return targets[name].get("path") or f"Sources/{name}"


def is_c_target(name):
    return targets[name]["type"] == "regular" and os.path.isfile(f"{folder(name)}/include/module.modulemap")


modules = [name for name in order if targets[name]["type"] == "regular" and not is_c_target(name)]
cmodules = [name for name in order if is_c_target(name)]
includes = [folder(name) for name in order if targets[name]["type"] == "system"]
includes += [f"{folder(name)}/include" for name in cmodules]
links = []
for include in includes:
    with open(f"{include}/module.modulemap", encoding="utf-8") as modulemap:
        links += re.findall(r'^\s*link\s+"([^"]+)"', modulemap.read(), re.MULTILINE)
# The header folders a system library's pkg-config names (libpq's /usr/include/postgresql), as SwiftPM adds them.
for name in order:
    if targets[name]["type"] == "system" and targets[name].get("pkgConfig"):
        flags = subprocess.run(["pkg-config", "--cflags-only-I", targets[name]["pkgConfig"]], capture_output=True, text=True).stdout
        includes += [flag[2:] for flag in flags.split() if flag.startswith("-I") and flag[2:] not in includes]
print("modules", *modules)
print("cmodules", *cmodules)
print("includes", *includes)
print("links", *links)
