"""What must hold after every kill and restart (issue: crash safety), as a list of violations.

``violations()`` looks at the journal, the daemon's status and the progressive system's registers
(the simulator's store: the meter signs, the lock-out, the accepted flags, the bet sensors) and says,
one line each, what does not hold:

* the hash chain verifies;
* each round is closed at most once, and only the last round may still be open;
* no more bets is one fact with its wagers and its contributions (the contributions the next row);
* the meters are the reset/initial amounts + the contributions - what was paid, to the cent, replayed
  event by event (a hit leaves its meter at ``max(before - paid, reset)``, R4); a voided round takes
  back exactly what it added (R7a); a settled round added rate x unit per accepted wager (R3);
* the status and the signs show the journal's meters;
* during the open round, from no more bets to the settlement: the seats the progressive system holds
  as accepted are the journaled ones, its lock-out is on, and the bet sensors read the journaled
  wagers;
* every journaled settlement re-settles identically through the settle contract
  (``games.contract.settle``, what ``tablectl settle`` runs), and every journaled payout from a meter
  is the re-settlement's.

The tests call it after each restart and fail on any line, printing them all.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from controller.config.table import TableConfig
from controller.journal.store import Journal, JournalIntegrityError
from controller.progressive import hits as prog
from controller.round.machine import RoundController
from controller.table import setup_from_journal
from games.contract import settle
from games.money import round_cents

# phases of the open round in which the wagers and the progressive seats are fixed on the devices
FIXED = ("no_more_bets", "dealing", "decisions", "reveal", "settled")


def _meters(data: dict[str, Any]) -> dict[str, Decimal]:
    return {m: Decimal(str(v)) for m, v in data["meters"].items()}


def _added() -> defaultdict[str, defaultdict[str, Decimal]]:
    return defaultdict(lambda: defaultdict(Decimal))


@dataclass
class Replayed:
    """The meter events replayed so far, for the next check of the same journal: a sweep's checks read each
    row once.  The journal is only appended to, and every check verifies the whole chain first (an old row
    changed fails there); a journal with fewer rows than were replayed is replayed again from its start."""

    seq: int = 0  # the last row replayed
    running: dict[str, Decimal] = field(default_factory=dict)  # each meter as of that row
    added: defaultdict[str, defaultdict[str, Decimal]] = field(default_factory=_added)  # round -> meter -> added


def journal_violations(cfg: TableConfig, path: Path, settled_ok: set[str] | None = None,
                       replayed: Replayed | None = None) -> tuple[list[str], dict[str, Decimal]]:
    """The journal's own invariants; and the meters it says.  ``settled_ok``: closed rounds found right
    already (nothing more can be journaled for a closed round: not read again; those found right now are
    added) -- a long sweep's checks stay linear in the journal, not in the rounds times the kills.
    ``replayed``: the meter events the previous checks replayed (updated here); each meter event's own check
    is made once, when it is replayed."""
    out: list[str] = []
    with Journal(path) as j:
        try:
            n = j.verify()
        except JournalIntegrityError as exc:
            return [f"the chain does not verify: {exc}"], {}
        summaries = j.rounds()
        open_rounds = [s.round_id for s in summaries if not s.closed_by]
        if open_rounds[:-1] or (open_rounds and open_rounds[-1] != summaries[-1].round_id):
            out.append(f"rounds left open behind a later round: {open_rounds}")
        reset = {m: c.reset for m, c in cfg.progressive.meters.items()}
        if replayed is None:
            replayed = Replayed()
        elif replayed.seq > n:  # not the journal replayed before: from its start
            replayed.seq, replayed.running, replayed.added = 0, {}, _added()
        running, added = replayed.running, replayed.added
        for e in j.iter_events(after=replayed.seq):
            replayed.seq = e.seq
            if e.kind == "meter_set":
                running.update(_meters(e.data))
            elif e.kind == "meter_add":
                for m, v in _meters(e.data).items():
                    running[m] = running.get(m, Decimal(0)) + v
                    if e.round_id:
                        added[e.round_id][m] += v
            elif e.kind == "meter_paid":
                m, paid, after = e.data["meter"], Decimal(str(e.data["paid"])), Decimal(str(e.data["after"]))
                want = max(running[m] - paid, reset.get(m, Decimal(0)))
                if after != want:
                    out.append(f"{e.round_id}: meter {m} left at {after} after paying {paid} from "
                               f"{running[m]}; the rules leave {want} (R4)")
                running[m] = after
        if running != j.meter_values():
            out.append(f"the journal's meters {j.meter_values()} are not its events' replay {running}")
        for summary in summaries:
            rid = summary.round_id
            if settled_ok is not None and rid in settled_ok:
                continue
            before = len(out)
            events = j.events(rid)
            kinds = [e.kind for e in events]
            closing = sum(k in ("round_closed", "round_voided") for k in kinds)
            if closing > 1:
                out.append(f"{rid}: closed {closing} times")
            nmb = [e for e in events if e.kind == "no_more_bets"]
            if len(nmb) > 1:
                out.append(f"{rid}: no more bets journaled {len(nmb)} times")
            accepted = len(nmb[0].data.get("progressive_seats") or []) if nmb else 0
            if nmb and accepted:
                behind = next((e for e in events if e.seq > nmb[0].seq), None)
                if behind is None or behind.seq != nmb[0].seq + 1 or behind.kind != "meter_add":
                    out.append(f"{rid}: no more bets without its contributions in the same write")
            if nmb and "wager" in kinds[kinds.index("no_more_bets"):]:
                out.append(f"{rid}: a wager journaled after no more bets")
            net = {m: v for m, v in added.get(rid, {}).items() if v}
            if summary.closed_by == "round_voided" and net:
                out.append(f"{rid}: voided, but its contributions were not all taken back: {net} (R7a)")
            settled = [e for e in events if e.kind == "settled"]
            if summary.closed_by == "round_closed" and settled and cfg.progressive.enabled:
                given = {m: round_cents(c.rate * (cfg.progressive.unit or 0) * accepted)
                         for m, c in cfg.progressive.meters.items()} if accepted else {}
                if net != {m: v for m, v in given.items() if v}:
                    out.append(f"{rid}: contributions {net}, {accepted} accepted wagers give {given} (R3)")
            if settled:
                out += _resettles(rid, events, settled[0])
            if settled_ok is not None and summary.closed_by and len(out) == before:
                settled_ok.add(rid)
        return out, j.meter_values()


def _resettles(rid: str, events: list[Any], settled: Any) -> list[str]:
    """The journaled settlement against a fresh one through the settle contract."""
    r = asyncio.run(RoundController.restore(rid, setup_from_journal(events[0].data),
                                            [(e.kind, e.data) for e in events if e.seq <= settled.seq]))
    again = settle(r.settle_input())
    nets = {str(s.seat): str(s.net) for s in again.seats}
    out = []
    if nets != settled.data["nets"]:
        out.append(f"{rid}: journaled nets {settled.data['nets']}, re-settled {nets}")
    paid = [(e.data["meter"], Decimal(str(e.data["paid"]))) for e in events if e.kind == "meter_paid"]
    facts = r.settle_input()
    hits = [(h.meter, h.amount) for h in prog.hits(r.game, again, facts.get("progressive"), r.setup.paytables)
            if h.meter is not None]
    if paid and paid != hits[:len(paid)]:
        out.append(f"{rid}: paid from the meters {paid}, the re-settlement pays {hits}")
    return out


def device_violations(cfg: TableConfig, path: Path, meters: dict[str, Decimal], status: dict[str, Any],
                      registers: dict[str, Any] | None) -> list[str]:
    """The status and the progressive system's registers against the journal (``registers``: the
    simulator's store, None for a table without one)."""
    out: list[str] = []
    shown = status.get("meters")
    if shown and {m: Decimal(str(v)) for m, v in shown.items()} != {m: meters.get(m) for m in shown}:
        out.append(f"the status shows meters {shown}, the journal {meters}")
    if registers is None:
        return out
    if cfg.progressive.enabled and meters:
        signs = {m: registers.get(f"meter.{i}") for i, m in enumerate(cfg.progressive.meters)}
        want = {m: int(meters[m] * 100) for m in cfg.progressive.meters}
        if signs != want:
            out.append(f"the signs show {signs} cents, the journal {want}")
    r = status.get("round") or {}
    if r.get("phase") not in FIXED:
        return out
    with Journal(path) as j:
        events = j.events(r["round_id"])
    nmb = next((e for e in events if e.kind == "no_more_bets"), None)
    if nmb is None:
        return out + [f"{r['round_id']}: in {r['phase']} without no more bets journaled"]
    accepted = sorted(s for s in range(1, 7) if registers.get(f"accepted.{s}"))
    journaled = sorted(nmb.data.get("progressive_seats") or [])
    if cfg.progressive.enabled and accepted != journaled:
        out.append(f"{r['round_id']}: the progressive system holds {accepted} accepted, the journal {journaled}")
    if cfg.progressive.enabled and journaled and not registers.get("lockout"):
        out.append(f"{r['round_id']}: progressive wagers accepted but the lock-out is off")
    areas = [w for w in cfg.game_rules.wagers if w != "progressive"]
    sensed = {(s, areas[a]): Decimal(registers[f"bet.{s}.{a}"]) / 100 for s in range(1, 7)
              for a in range(len(areas)) if registers.get(f"bet.{s}.{a}")}
    wagers = {(e.data["seat"], e.data["wager"]): Decimal(str(e.data["amount"]))
              for e in events if e.kind == "wager" and e.data["wager"] != "progressive"}
    if sensed != wagers and r["phase"] != "settled":  # settled: the dealer pays and collects (the game's chapter 11)
        out.append(f"{r['round_id']}: the bet sensors read {sensed}, the journal {wagers}")
    return out


def violations(cfg: TableConfig, path: Path, status: dict[str, Any], registers: dict[str, Any] | None,
               settled_ok: set[str] | None = None, replayed: Replayed | None = None) -> list[str]:
    out, meters = journal_violations(cfg, path, settled_ok, replayed)
    return out + device_violations(cfg, path, meters, status, registers)
