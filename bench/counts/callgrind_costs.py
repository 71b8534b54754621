#!/usr/bin/env python3
"""Self and inclusive instruction counts per function and object of a callgrind file (bench/counts/instructions.sh).

Usage: callgrind_costs.py FILE CEREMONIES [TOP]

Reads the file itself: valgrind 3.19's callgrind_annotate counts a call made zero times (`calls=0`, what a dump taken
while a thread is inside a function writes for it) as the caller's own cost, so that `clone` shows as 100 %.
Prints the share of each family of objects (OpenSSL, SQLite, libc, the Swift runtime's reference counting and
allocation, the other Swift libraries, passkeyd itself, the rest), then the TOP functions by self cost and by
inclusive cost, in instructions per ceremony (a ceremony's instructions are the file's total over CEREMONIES).
"""
import re
import sys
from collections import defaultdict

SWIFT_RUNTIME = re.compile(
    r"^(swift_(retain|release|allocObject|deallocObject|bridgeObject|unknownObject|isUniquelyReferenced|"
    r"beginAccess|endAccess|slowAlloc|slowDealloc|allocBox|deallocClassInstance|dynamicCast|getGenericMetadata|"
    r"conformsToProtocol|checkMetadataState|arrayInitWithCopy|arrayDestroy)|.*RefCounts.*|_swift_release_dealloc|swift::)"
)


def family(obj: str, function: str) -> str:
    name = obj.rsplit("/", 1)[-1]
    if "libcrypto" in name or "libssl" in name:
        return "OpenSSL"
    if "libsqlite3" in name:
        return "SQLite"
    if name.startswith(("libc.so", "libc-", "ld-linux", "libm.so")):
        return "libc (malloc, memcpy, ...)" if "malloc" in function or "mem" in function or "free" in function else "libc (other)"
    if "libswiftCore" in name and SWIFT_RUNTIME.match(function):
        return "Swift runtime (retain/release/alloc/casts)"
    if name.startswith(("libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocks")):
        return "Swift libraries (stdlib, Foundation)"
    if name == "passkeyd":
        return "passkeyd"
    if "libevent" in name:
        return "libevent"
    return "other (" + name + ")"


def parse(path: str):
    names = {}  # (kind, id) -> name
    self_cost = defaultdict(int)
    call_cost = defaultdict(int)
    edges = defaultdict(int)  # (caller, callee) -> inclusive cost of the calls
    total = 0
    ob = fn = cob = cfn = ""
    pending_call = False

    def resolve(kind: str, text: str) -> str:
        match = re.match(r"\((\d+)\)(?: (.*))?", text)
        if not match:
            return text
        key = (kind, match.group(1))
        if match.group(2) is not None:
            names[key] = match.group(2)
        return names.get(key, text)

    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            line = line.rstrip("\n")
            if not line:
                continue
            head = line[0]
            if head.isdigit() or head in "+-*":
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                if pending_call:
                    call_cost[(ob, fn)] += cost
                    edges[((ob, fn), (cob, cfn))] += cost
                    pending_call = False
                    cob = ob
                else:
                    self_cost[(ob, fn)] += cost
                continue
            if line.startswith("summary:") or line.startswith("totals:"):
                total = max(total, int(line.split()[1]))
            elif line.startswith("ob="):
                ob = resolve("ob", line[3:])
                cob = ob
            elif line.startswith("fn="):
                fn = resolve("fn", line[3:])
                cob = ob
            elif line.startswith("cob="):
                cob = resolve("ob", line[4:])
            elif line.startswith("cfn="):
                cfn = resolve("fn", line[4:])
            elif line.startswith("cfi=") or line.startswith("cfl="):
                resolve("fl", line[4:])
            elif line.startswith("calls="):
                pending_call = True
            elif line.startswith(("fl=", "fi=", "fe=")):
                resolve("fl", line[3:])
    return total, self_cost, call_cost, edges


def main() -> None:
    path, ceremonies = sys.argv[1], int(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    total, self_cost, call_cost, edges = parse(path)
    if len(sys.argv) > 4:
        # The callees of the functions whose names match the pattern, with their inclusive costs.
        pattern = re.compile(sys.argv[4])
        for caller in sorted({c for c, _ in edges if pattern.search(c[1])} | {k for k in self_cost if pattern.search(k[1])}):
            print(f"{caller[1][:150]}: self {self_cost[caller] / ceremonies:.0f}, inclusive {(self_cost[caller] + call_cost[caller]) / ceremonies:.0f}")
            callees = [(callee, cost) for (c, callee), cost in edges.items() if c == caller]
            for callee, cost in sorted(callees, key=lambda item: -item[1])[:top]:
                print(f"    {cost / ceremonies:9.0f}  {callee[1][:140]} [{callee[0].rsplit('/', 1)[-1]}]")
        return
    counted = sum(self_cost.values())
    total = total or counted
    print(f"instructions per sign-in ceremony: {total / ceremonies:.0f} ({ceremonies} ceremonies, {total} instructions)")
    families = defaultdict(int)
    for (obj, function), cost in self_cost.items():
        families[family(obj, function)] += cost
    print("self cost by family:")
    for name, cost in sorted(families.items(), key=lambda item: -item[1]):
        print(f"  {name:<44} {100 * cost / total:5.1f} %  {cost / ceremonies:9.0f} per ceremony")
    short = lambda key: f"{key[1][:110]} [{key[0].rsplit('/', 1)[-1]}]"
    print(f"top {top} functions by self cost (instructions per ceremony):")
    for key, cost in sorted(self_cost.items(), key=lambda item: -item[1])[:top]:
        print(f"  {cost / ceremonies:9.0f}  {short(key)}")
    inclusive = {key: self_cost[key] + call_cost[key] for key in set(self_cost) | set(call_cost)}
    print(f"top {top} passkeyd functions by inclusive cost (instructions per ceremony):")
    own = [(key, cost) for key, cost in inclusive.items() if key[0].endswith("/passkeyd")]
    for key, cost in sorted(own, key=lambda item: -item[1])[:top]:
        print(f"  {cost / ceremonies:9.0f}  {short(key)}")


if __name__ == "__main__":
    main()
