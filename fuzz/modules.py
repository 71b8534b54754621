#!/usr/bin/env python3
"""The package's modules a set of fuzz sources needs, derived from Package.swift (never a list kept by hand).

    swift package dump-package | fuzz/modules.py fuzz/Targets/*.swift fuzz/Support/*.swift

reads the `import`s of the given Swift files, closes them over the dependencies of Package.swift's targets, and
prints three lines for fuzz/build.sh:

    modules CBOR CryptoCore ...     the library targets to compile, each after the ones it depends on
    includes Sources/CLibCBOR ...   the folders of the system-library targets they reach (module.modulemap + shim.h)
    links cbor ssl crypto ...       the libraries those module maps link
"""
import json
import re
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

modules = [name for name in order if targets[name]["type"] == "regular"]
systems = [name for name in order if targets[name]["type"] == "system"]
links = []
for name in systems:
    path = targets[name].get("path") or f"Sources/{name}"
    with open(f"{path}/module.modulemap", encoding="utf-8") as modulemap:
        links += re.findall(r'^\s*link\s+"([^"]+)"', modulemap.read(), re.MULTILINE)
print("modules", *modules)
print("includes", *[targets[name].get("path") or f"Sources/{name}" for name in systems])
print("links", *links)
