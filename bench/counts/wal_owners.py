#!/usr/bin/env python3
"""The b-tree each WAL frame of a copied SQLite database belongs to (issue 44, bench/counts/run.sh).

Usage: wal_owners.py DATABASE  (DATABASE-wal beside it; both copies, which this opens and may change)

Reads the WAL's frames since its last restart (those whose salts match its header), keeps those of its last half of
commits (the first ones may be the schema's and the registrations'), and prints the frames per commit, in all and per
b-tree, named by SQLite's dbstat table of the same copy.
"""
import sqlite3
import struct
import sys
from collections import Counter


def frames(wal_path):
    with open(wal_path, "rb") as wal:
        header = wal.read(32)
        if len(header) < 32:
            return []
        page_size = struct.unpack(">I", header[8:12])[0]
        salts = header[16:24]
        found = []
        while True:
            frame = wal.read(24)
            if len(frame) < 24 or frame[8:16] != salts:
                return found
            page, commit_size = struct.unpack(">II", frame[:8])
            found.append((page, commit_size))
            if len(wal.read(page_size)) < page_size:
                return found


def main():
    database = sys.argv[1]
    found = frames(database + "-wal")
    ends = [index for index, (_, size) in enumerate(found) if size]
    if len(ends) >= 2:
        found = found[ends[len(ends) // 2 - 1] + 1 : ends[-1] + 1]
    commits = sum(1 for _, size in found if size)
    owners = dict(sqlite3.connect(database).execute("SELECT pageno, name FROM dbstat"))
    per_owner = Counter(owners.get(page, "(free or new)") for page, _ in found)
    print(f"  WAL, the last half of its commits: {len(found)} frames, {commits} commits, {len(found) / max(commits, 1):.1f} frames per commit")
    for name, count in per_owner.most_common():
        if count / max(commits, 1) < 0.05:
            continue
        print(f"    {name:32} {count / max(commits, 1):5.2f} per commit")


if __name__ == "__main__":
    main()
