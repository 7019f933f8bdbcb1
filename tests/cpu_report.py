"""Print the per-test CPU ranking written by CPU_REPORT=path (tests/conftest.py), heaviest first.

Usage: python tests/cpu_report.py PATH [N]   (N rows, 40 by default)
"""

import json
import sys
from collections import defaultdict


def main(path: str, n: int = 40) -> None:
    rows = [json.loads(line) for line in open(path)]
    rows.sort(key=lambda r: r["cpu"] + r["children"], reverse=True)
    print(f"{'cpu+kids':>9} {'cpu':>8} {'kids':>8} {'wall':>8}  test")
    for r in rows[:n]:
        print(f"{r['cpu'] + r['children']:9.1f} {r['cpu']:8.1f} {r['children']:8.1f} {r['wall']:8.1f}  {r['nodeid']}")
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for r in rows:
        f = files[r["nodeid"].split("::")[0]]
        f[0] += r["cpu"] + r["children"]
        f[1] += r["wall"]
        f[2] += 1
    print(f"\n{'cpu+kids':>9} {'wall':>8} {'tests':>6}  file")
    for name, (cpu, wall, count) in sorted(files.items(), key=lambda kv: kv[1][0], reverse=True):
        print(f"{cpu:9.1f} {wall:8.1f} {count:6d}  {name}")
    total, wall = sum(r["cpu"] + r["children"] for r in rows), sum(r["wall"] for r in rows)
    print(f"\n{len(rows)} tests, {total:.1f} s CPU (theirs and their child processes'), {wall:.1f} s wall")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40)
