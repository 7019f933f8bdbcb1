"""The journal over a year of play (issue 14): one press's cost, start-up, bytes and memory as the
journal grows.

A synthetic journal of N rounds is built fast by writing each round's events through
``controller.journal.store.Journal.append_many`` (chained and hashed by the journal itself, checkpointed by
it as on a table), one transaction per round, with SQLite's ``synchronous=OFF`` on the builder's
connection only (the fsync is the disk's cost, the same at any size; what grows with the journal is
what is measured).  Each round is a real two-seat UTH round (``tests/journal_rows_v1.jsonl``'s r1:
wagers, no more bets with a progressive wager and its contribution, the cards, decisions, reveals,
settlement, closed) with the table events the daemon journals between rounds (the deck dealt, the
shuffler's shuffle), stamped with rising times.

``journal.press.rounds_<N>``: one panel press's journal work with N rounds behind it: the press's
event appended (a wager of an open round) and every derived-state read the daemon does per press or
per round (``Meters.values`` for the status and the round's setup, ``TableLife.next_step``,
``Journal.open_round``, the round's validated progressive hits), through the daemon's own ``Session``.
``journal.startup.rounds_<N>``: the daemon's start without its devices: the journal checked at start
(P90), then ``Session`` (table life, meters) and ``ProgressiveSystem`` built and the open round found.

    python tests/bench/journal.py [--rounds 0,10000,100000,500000] [--rss-rounds 10000]
    from journal import run; run()   # -> list of figures (shared/contracts/bench.md)
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import controller.journal.store as cj  # noqa: E402
from controller.config.table import TableConfig, load_config  # noqa: E402
from controller.journal.store import Journal  # noqa: E402

CONFIG = ROOT / "config" / "ultimate_texas_holdem.toml"
V1_ROWS = ROOT / "tests" / "journal_rows_v1.jsonl"
PRESSES = 400  # measured presses per size


def _template() -> list[tuple[str | None, str, dict[str, Any], str | None]]:
    """One round's events as the daemon journals them: r1 of the v1 rows, its contribution, the table's."""
    rows = [json.loads(line) for line in V1_ROWS.read_text().splitlines()]
    out: list[tuple[str | None, str, dict[str, Any], str | None]] = []
    for _seq, _at, rid, kind, who, data, _p, _h in rows:
        if rid != "r1":
            continue
        out.append(("R", kind, json.loads(data), who))
        if kind == "no_more_bets":  # the progressive wager's contribution, in the same fact as on a table
            out.append(("R", "meter_add", {"meters": {"major": "0.04", "minor": "0.01"}}, None))
    out.append((None, "deck_dealt", {"deck": "A", "round": "R"}, None))
    out.append((None, "deck_shuffled", {"deck": "B", "count": 52}, None))
    return out


TEMPLATE = _template()


class Clock:
    """The journal's clock in the builder: one round a minute from a fixed start (``_dt`` is what it reads)."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def installed(self) -> AbstractContextManager[object]:
        """The journal reading this clock while in the ``with`` block (its ``_dt`` replaced, then put back)."""
        clock = self

        class _Dt:
            timezone = timezone  # the journal's _dt is the datetime module: its timezone

            class datetime:  # noqa: N801 - stands in for datetime.datetime
                @staticmethod
                def now(tz: Any = None) -> datetime:
                    return clock.now

        return mock.patch.object(cj, "_dt", _Dt)


def config(path: Path) -> TableConfig:
    cfg = load_config(CONFIG)
    return cfg.model_copy(update={"journal": path})


BATCH = 50  # rounds per transaction in the builder: divides checkpoint_every, so checkpoints fall where a table's do


def build(journal: Journal, start_round: int, rounds: int, clock: Clock, cfg: TableConfig,
          prefix: str = "r") -> None:
    """Append ``rounds`` rounds (numbered from ``start_round``) as the daemon would, ``BATCH`` rounds a
    transaction: the rounds' and the table's events in order, the table's also applied to the table's life
    (``TableLife``, whose state the journal's checkpoints hold) before the transaction that holds them."""
    from controller import events as ev
    from controller.table import TableLife

    life = TableLife(cfg, journal)
    assert journal.checkpoint_every % BATCH == 0
    fast = journal._db.execute("PRAGMA synchronous").fetchone()[0]
    journal._db.execute("PRAGMA synchronous=OFF")
    try:
        with clock.installed():
            for first in range(start_round, start_round + rounds, BATCH):
                entries: list[tuple[str | None, str, Mapping[str, Any] | None, str | None]] = []
                for i in range(first, min(first + BATCH, start_round + rounds)):
                    rid = f"{prefix}{i:07d}"
                    clock.now += timedelta(seconds=60)
                    for r, k, d, w in TEMPLATE:
                        data = {**d, "round": rid} if "round" in d else d
                        entries.append((rid if r == "R" else None, k, data, w))
                        if r is None:
                            life.apply(ev.parse(k, data), clock.now)
                journal.append_many(entries)
    finally:
        journal._db.execute(f"PRAGMA synchronous={fast}")


def _p99(values: list[float]) -> float:
    s = sorted(values)
    return s[max(int(len(s) * 0.99) - 1, 0)]


def startup(cfg: TableConfig) -> tuple[float, Any]:
    """The daemon's start without its devices (TableDaemon.__init__ and the open round of _recover)."""
    from controller.service.devices import Devices
    from controller.service.progressive import ProgressiveSystem
    from controller.service.session import Session
    from controller.service.storage import Storage

    t = time.perf_counter()
    with Journal(cfg.journal) as journal:
        journal.check_at_start(cfg.id, cfg.game)
    s = Session(cfg)
    # the daemon builds it at start: the link's meters and progressive_off read
    ProgressiveSystem(s, Devices(s, Storage(s)))
    s.journal.open_round()
    return time.perf_counter() - t, s


def presses(s: Any, n: int, tag: str) -> list[float]:
    """``n`` presses: a wager of an open round journaled, then the reads the daemon does per press/round."""
    from controller.progressive import hits as prog
    from controller.table import round_setup

    rid = f"bench-{tag}"
    s.journal.append(rid, "round_opened", {"game": s.cfg.game, "paytables": {}, "progressive": None})
    times = []
    for i in range(n):
        t = time.perf_counter_ns()
        s.journal.append(rid, "wager", {"amount": "10", "seat": 1 + i % 6, "wager": "ante"})
        s.meters.values()  # the status (every press) and the meters sign
        round_setup(s.cfg, s.meters)  # the next round's setup (every round)
        s.life.next_step()
        s.journal.open_round()  # recovery after a journal fault (P97)
        prog.validated(s.journal, rid)  # the round's hits held for validation (every settled round)
        times.append((time.perf_counter_ns() - t) / 1e6)
    s.journal.append(rid, "round_voided", {})
    return times


def bytes_by_kind(path: Path, last_rounds: int = 1000) -> tuple[float, dict[str, float]]:
    """The file's bytes per round, and the stored bytes of each kind per round over the last rounds: the
    columns as stored (an integer time as its 8 bytes; format 1's link as well, P76)."""
    with Journal.read_only(path) as j:
        link = " + length(prev_hash)" if j._read_format() == 1 else ""
        rows = j._query("SELECT kind, (CASE typeof(at) WHEN 'integer' THEN 8 ELSE length(at) END) + length(kind) "
                        "+ COALESCE(length(round_id), 0) + length(data) + COALESCE(length(who), 0) + length(hash)"
                        f"{link} FROM events ORDER BY seq DESC LIMIT ?", (last_rounds * len(TEMPLATE),))
    by: Counter[str] = Counter()
    for kind, n in rows:
        by[kind] += n
    return 0.0, {k: v / last_rounds for k, v in by.most_common()}


def _file_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def rss_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def run(sizes: tuple[int, ...] = (0, 10_000, 100_000, 500_000), rss_rounds: int = 10_000,
        work: Path | None = None) -> list[dict[str, Any]]:
    figures: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        path = Path(tmp) / "bench.journal"
        cfg = config(path)
        clock = Clock(datetime(2026, 1, 1, tzinfo=UTC))
        built = 0
        for n in sorted(sizes):
            t = time.perf_counter()
            with Journal(path) as j:
                if built == 0 and n:
                    j.claim(cfg.id, cfg.game)
                build(j, built, n - built, clock, cfg)
                # a few more rounds (at most checkpoint_every - 1), one transaction each: the start then reads
                # checkpoint_every - 1 rounds after the latest checkpoint, the most it ever reads
                tail = (j.checkpoint_every - 1 - j.state().since_checkpoint) % j.checkpoint_every if n else 0
                for i in range(tail):
                    build(j, n + i, 1, clock, cfg, prefix="t")
                since = j.state().since_checkpoint
            took = time.perf_counter() - t
            built = n
            rounds_behind = n + tail
            secs, s = startup(cfg)
            times = presses(s, PRESSES, str(n))
            s.journal.close()
            what = (f"one press with {rounds_behind} synthetic UTH rounds behind it (built in {took:.0f} s): its event "
                    f"journaled (fsync) and the daemon's per-press and per-round derived-state reads; "
                    f"{PRESSES} presses")
            figures += [
                {"name": f"journal.press.rounds_{n}", "value": round(statistics.median(times), 3), "unit": "ms",
                 "stat": "median", "what": what},
                {"name": f"journal.press.rounds_{n}", "value": round(_p99(times), 3), "unit": "ms", "stat": "p99",
                 "what": what},
                {"name": f"journal.startup.rounds_{n}", "value": round(secs, 3), "unit": "s",
                 "what": f"{rounds_behind} rounds, {since} of them after the latest checkpoint (the most there can "
                         "be): journal checked at start (P90, P59), Session and ProgressiveSystem built, open round "
                         "found; no devices"},
            ]
            print(f"  journal: {n} rounds built in {took:.1f} s, start {secs:.3f} s, press median "
                  f"{statistics.median(times):.3f} ms p99 {_p99(times):.3f} ms", file=sys.stderr, flush=True)
        if built:
            with Journal(path) as j:
                j._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the write-ahead log into the file
            size = _file_bytes(path)
            _, kinds = bytes_by_kind(path)
            figures.append({"name": "journal.bytes_per_round", "value": round(size / rounds_behind / 1024, 3),
                            "unit": "KB",
                            "what": f"the journal's file over {rounds_behind} synthetic rounds (two seats, "
                                    f"{len(TEMPLATE)} events); "
                                    "stored bytes per round by kind: "
                                    + ", ".join(f"{k} {v:.0f}" for k, v in list(kinds.items())[:8])})
        # memory: the journal and the daemon's derived state over rss_rounds fast rounds
        rpath = Path(tmp) / "rss.journal"
        rcfg = config(rpath)
        with Journal(rpath) as j:
            j.claim(rcfg.id, rcfg.game)
            build(j, 0, 1000, clock, rcfg)  # warm up: caches and the first checkpoint
        _, s = startup(rcfg)
        gc.collect()
        before = rss_kb()
        build(s.journal, 1000, rss_rounds, clock, rcfg)
        s.meters.values()
        gc.collect()
        after = rss_kb()
        s.journal.close()
        figures.append({"name": "daemon.rss_growth_per_1000_rounds", "value": round((after - before) / rss_rounds
                                                                                    * 1000, 1),
                        "unit": "KB", "what": f"VmRSS of the daemon's journal and Session over {rss_rounds} fast "
                                              f"rounds after 1000 (RSS {before} -> {after} KB)"})
    return figures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", default="0,10000,100000,500000")
    parser.add_argument("--rss-rounds", type=int, default=10_000)
    parser.add_argument("--work", default=None, help="where the synthetic journals are built (a temporary dir)")
    parser.add_argument("--out", default=None, help="merge the figures into this bench.json (same names replaced)")
    args = parser.parse_args()
    sizes = tuple(int(x) for x in args.rounds.split(","))
    figures = run(sizes, args.rss_rounds, Path(args.work) if args.work else None)
    for f in figures:
        print(f"{f['name']:<40} {f.get('stat', ''):<7} {f['value']:>12} {f['unit']}")
    if args.out:
        out = Path(args.out)
        doc: dict[str, Any] = json.loads(out.read_text()) if out.exists() else {
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version()}, "figures": []}
        ours = {(f["name"], f.get("stat")) for f in figures}
        doc["figures"] = [f for f in doc["figures"] if (f["name"], f.get("stat")) not in ours] + figures
        out.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TABLECTL_LOG", "off")
    sys.exit(main())
