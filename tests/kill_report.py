"""The kill-point figures of a run: ``python tests/kill_report.py FILE`` sums what each sweep appended to
``$KILL_REPORT`` (tests/kill_sweep.py ``report``) and prints the count and every violation; exit 1 when
there is a violation or no kill point at all."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path


def main(path: str) -> int:
    lines = [json.loads(x) for x in Path(path).read_text().splitlines() if x.strip()] if Path(path).exists() else []
    kills: Counter[str] = Counter()
    games: Counter[str] = Counter()
    violations: list[str] = []
    for line in lines:
        kills[line["variant"]] += line["kills"]
        games[line["game"]] += line["kills"]
        violations += [f"{line['game']} ({line['variant']}): {v}" for v in line["violations"]]
    total = sum(kills.values())
    print(f"kill points: {total} ({', '.join(f'{v} {k}' for k, v in sorted(kills.items()))}); "
          f"per game: {', '.join(f'{g} {n}' for g, n in sorted(games.items()))}")
    print(f"violations: {len(violations)}")
    for v in violations:
        print(f"  {v}")
    return 1 if violations or not total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
