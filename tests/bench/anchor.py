"""What a keyed journal's trust costs a press (P99, P100): the same events appended to a keyed journal (the head sealed
in the transaction, the anchor's older slot rewritten after the commit and fdatasync'd) and to an unkeyed one.

    python tests/bench/anchor.py [--presses 2000] [--work DIR]

Each press is one ``Journal.append`` (one transaction, fsync'd as on a table); the two journals are written in
turns so that a busy machine loads both alike.  Prints the median and p99 of each, and of the anchor's write alone.
Not part of ``make bench`` (a few seconds; run it where the table's disk is).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from controller.journal import trust  # noqa: E402
from controller.journal.store import Journal  # noqa: E402


def ms(values: list[float]) -> str:
    values = sorted(values)
    return f"median {statistics.median(values) * 1e3:.3f} ms, p99 {values[int(len(values) * 0.99)] * 1e3:.3f} ms"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--presses", type=int, default=2000)
    p.add_argument("--work", default=None, help="a directory on the disk to measure (default: the system's temp)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(dir=args.work) as d:
        keyed, plain = Path(d) / "keyed.journal", Path(d) / "plain.journal"
        trust.create_key(trust.key_file(keyed))
        times: dict[str, list[float]] = {"keyed": [], "unkeyed": [], "anchor alone": []}
        with Journal(keyed) as k, Journal(plain) as u:
            k.check_at_start("t-1", "ultimate_texas_holdem")
            u.check_at_start("t-1", "ultimate_texas_holdem")
            key = trust.read_key(trust.key_file(keyed))
            assert key is not None
            data = {"seat": 1, "wager": "ante", "amount": "5"}
            for i in range(args.presses):
                for name, j in (("keyed", k), ("unkeyed", u)) if i % 2 else (("unkeyed", u), ("keyed", k)):
                    t = time.perf_counter()
                    j.append(f"r-{i // 30}", "wager", data)
                    times[name].append(time.perf_counter() - t)
                t = time.perf_counter()
                trust.advance_anchor(trust.anchor_file(keyed), trust.Anchor("t-1", "x", i, "0" * 64), key, i % 2)
                times["anchor alone"].append(time.perf_counter() - t)
    for name, values in times.items():
        print(f"{name:>13}: {ms(values)} over {len(values)} writes")


if __name__ == "__main__":
    main()
