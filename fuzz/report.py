#!/usr/bin/env python3
"""Summarises the fuzz runs recorded in .build-fuzz/logs/summary.tsv (written by fuzz/run.sh) as a Markdown table:
per target, the number of runs, total seconds and executions, the average exec/s, the last run's cov/ft, and the
committed corpus (files, bytes). Standard library only: python3 fuzz/report.py
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    path = os.path.join(ROOT, ".build-fuzz", "logs", "summary.tsv")
    if not os.path.exists(path):
        print("no runs recorded yet: run make fuzz", file=sys.stderr)
        return 1
    totals = {}
    with open(path) as handle:
        for line in handle:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 8:
                continue
            target, seconds, executions, _rate, cov, ft, _corpus, crashes = fields[:8]
            entry = totals.setdefault(target, {"runs": 0, "seconds": 0, "executions": 0, "cov": "?", "ft": "?", "crashes": 0})
            entry["runs"] += 1
            entry["seconds"] += int(seconds)
            entry["executions"] += int(executions or 0)
            entry["cov"], entry["ft"] = cov, ft
            entry["crashes"] = max(entry["crashes"], int(crashes or 0))
    print("| target | runs | seconds | executions | exec/s | cov | ft | corpus files | corpus bytes | findings |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for target in sorted(totals):
        entry = totals[target]
        folder = os.path.join(ROOT, "fuzz", "corpus", target)
        files = [os.path.join(folder, name) for name in os.listdir(folder)] if os.path.isdir(folder) else []
        size = sum(os.path.getsize(name) for name in files)
        rate = entry["executions"] // max(entry["seconds"], 1)
        regressions = os.path.join(ROOT, "fuzz", "regressions", target)
        found = len(os.listdir(regressions)) if os.path.isdir(regressions) else 0
        findings = f"[{found} in fuzz/regressions/{target}/](fuzz/regressions/{target}/)" if found else "none"
        print(f"| `{target}` | {entry['runs']} | {entry['seconds']} | {entry['executions']:,} | {rate:,} | {entry['cov']} | {entry['ft']} "
              f"| {len(files)} | {size:,} | {findings} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
