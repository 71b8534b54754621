#!/usr/bin/env python3
"""Counts the stored properties (`let` / `var`, not computed, not `static`) of every class, struct and actor in
`Sources/` and prints the types that hold more than a limit (issue 36: "no type holds more than about 10 dependencies").

    tools/dependency-counts.py [--limit N] [--all] [FOLDER...]

A rough count by reading the text, not a Swift parser: a stored property is a `let` or `var` declared directly in the
type's braces whose declaration has no accessor block (`var x: T { ... }` is computed; `didSet`/`willSet` observers
are still stored). Extensions cannot add stored properties, so only the primary declarations count. Enum cases are not
properties. By default only the types that hold services are listed (a class or actor, or a type with a property
typed `any P`, `Logger` or a `...Service` / `...Controller` / `...Integration`); `--records` lists plain records too.
The counts are symptoms to watch, not targets (see docs/concepts/design.md).
"""

import argparse
import pathlib
import re
import sys

TYPE = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|final|open|nonisolated)\s+)*"
                  r"(class|struct|actor|enum)\s+(\w+)")
PROPERTY = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|nonisolated|unowned|weak|lazy)"
                      r"(?:\(set\))?\s+)*(let|var)\s+(\w+)(?:\s*:\s*([^={]+))?")
SERVICE = re.compile(r"^(?:any\s|Logger\b|\w*(?:Service|Controller|Integration)\b)")
OBSERVER = re.compile(r"\{\s*(didSet|willSet)\b")


def strip(line: str) -> str:
    """The line without its comment and string contents (so that braces in them do not count)."""
    line = re.sub(r'#?"(?:[^"\\]|\\.)*"#?', '""', line)
    return line.split("//", 1)[0]


def count(path: pathlib.Path):
    """Yields (type name, kind, stored property names, whether it holds a service) for each type in one Swift file."""
    depth = 0
    stack = []  # (name, kind, body depth, properties, holds a service)
    in_block_comment = False
    in_multiline_string = False
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.count('"""') % 2 == 1:
            in_multiline_string = not in_multiline_string
            continue
        if in_multiline_string:
            continue
        line = raw
        if in_block_comment:
            if "*/" not in line:
                continue
            line = line.split("*/", 1)[1]
            in_block_comment = False
        if "/*" in line and "*/" not in line:
            line, in_block_comment = line.split("/*", 1)[0], True
        line = strip(line)
        declared = TYPE.match(line)
        if declared and "{" in line:
            stack.append([declared.group(2), declared.group(1), depth + 1, [], False])
        elif stack and depth == stack[-1][2] and stack[-1][1] != "enum":
            prop = PROPERTY.match(line)
            if prop and not re.match(r"^\s*(?:\w+\s+)*static\s", line):
                after = line[prop.end():]
                computed = "{" in after and "=" not in after.split("{", 1)[0] and not OBSERVER.search(after)
                if not computed:
                    stack[-1][3].append(prop.group(2))
                    stack[-1][4] |= bool(SERVICE.match((prop.group(3) or "").strip().lstrip("(")))
        for character in line:
            if character == "{":
                depth += 1
            elif character == "}":
                depth -= 1
                while stack and depth < stack[-1][2]:
                    name, kind, _, properties, holds_service = stack.pop()
                    if kind != "enum":
                        yield name, kind, properties, holds_service


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=10, help="print the types holding more than this (default 10)")
    parser.add_argument("--all", action="store_true", help="print every type's count")
    parser.add_argument("--records", action="store_true", help="list plain records (values without services) too")
    parser.add_argument("folders", nargs="*", default=["Sources"])
    arguments = parser.parse_args()
    rows = []
    for folder in arguments.folders:
        for path in sorted(pathlib.Path(folder).rglob("*.swift")):
            for name, kind, properties, holds_service in count(path):
                if not (arguments.records or holds_service or kind in ("class", "actor")):
                    continue
                if arguments.all or len(properties) > arguments.limit:
                    rows.append((len(properties), name, path, properties))
    for number, name, path, properties in sorted(rows, key=lambda row: (-row[0], row[1])):
        print(f"{number:3d}  {name}  ({path})\n       {', '.join(properties)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
