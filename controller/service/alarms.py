"""The table's alarms (ISA-18.2): each condition a floor supervisor must know of, one line each, journaled.

Owns the alarms: each is raised from the table's state when its condition begins (``refresh``, at every
status), keeps its ``id`` and ``since`` for its life, is acknowledged by a named floor supervisor and is cleared
when its condition ends; each of the three is journaled (``AlarmRaised``, ``AlarmAcknowledged``,
``AlarmCleared``).  The conditions: a progressive win held for validation, a device not answering or answering
with errors, a device's fault episode (``faults.FaultEpisodes``), the irregularity menu open, a round halted,
a write the disk refuses, progressive wagers disabled, the lock-out lost, a linked hit awaiting its supervisor
elsewhere, an unreasonable progressive contribution refused (latched until acknowledged, P120).  ``KINDS``
says each kind; ``PRIORITIES`` their order.

Acknowledgement (P105): the floor supervisor's key turned while the dealer's next action needs no key
acknowledges every unacknowledged alarm, named as P93 names a supervisor; a held win's validation
acknowledges its alarm.  The open alarms are in every checkpoint (``checkpoint``); at start they are read back
from the journal, keeping their ids, times and acknowledgements while their conditions hold.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from controller import events as ev
from controller.irregularities import clause
from controller.progressive import hits as prog
from controller.round.machine import Phase
from controller.service.devices import CARD_DEVICES, Devices
from controller.service.life import Life
from controller.service.progressive import ProgressiveSystem
from controller.service.refused import Refused
from controller.service.remedies import Remedies
from controller.service.session import Session
from controller.service.storage import Storage
from controller.table import TableState
from drivers.health import DeviceError
from drivers.panel import KeySwitch

#: each alarm's kind, in words (the dealer's screen and the floor's pages say these)
KINDS: dict[str, str] = {
    "jackpot_held": "Progressive win held: a floor supervisor validates it",
    "device_offline": "Device not answering",
    "device_degraded": "Device answering with errors",
    "device_fault": "Device fault",
    "irregularity": "Irregularity being reported",
    "round_halted": "Round halted",
    "storage_fault": "The journal or the status cannot be written",
    "no_room_for_a_round": "Disk full: no new round",
    "progressive_disabled": "Progressive wagers disabled",
    "lockout_lost": "Progressive lock-out lost this round",
    "link_hit_pending": "Linked progressive win awaiting validation at another table",
    "protection_shuffle": "The shuffle looks weak or rigged: take the shuffler out of service and check it",
    "protection_replay": "A deck came out in an order already dealt: take the shuffler out of service",
    # game protection (issue 28; controller/protection): latched until a supervisor acknowledges them
    "protection_card_switched": "Card switched: the devices' reads and the hands disagree",
    "protection_hold": "Hold outside its band",
    "protection_streak": "A streak a fair game almost never makes",
    "program_refused": "Program not verified: play refused",
    "clock_unsynchronised": "Table open with its clock not synchronised",
    "contribution_unreasonable": "Unreasonable progressive contribution refused: check the wagers and the meters",
}
#: the kinds latched (``Alarms.latch``): raised by a finding, not by a state the table is in; each stays until a
#: supervisor acknowledges it, then clears (its finding stays in the journal: ``tablectl protection report``)
LATCHED = frozenset(k for k in KINDS if k.startswith("protection_")) | {"contribution_unreasonable"}
#: the priorities, highest first, in words
PRIORITIES: dict[str, str] = {"high": "High", "medium": "Medium", "low": "Low"}
#: the words a screen says them in (web/words.py): qualified, as an alarm's kind shares its code with what the
#: dealer was told (``irregularity``, ``storage_fault``): ``say(kind, "alarm")``, ``say(priority, "priority")``
WORDS: dict[str, str] = {**{f"alarm.{k}": v for k, v in KINDS.items()},
                         **{f"priority.{k}": v for k, v in PRIORITIES.items()}}
ACTION = "acknowledge_alarms"  # the supervisor's action as a refused key journals it (P93)
#: a device answering with errors is an alarm once it has lasted this long (ISA-18.2's on-delay: a single retry
#: that the next exchange mends is no alarm, and does not chatter in the journal)
DEGRADED_DELAY_S = 5.0
_IN_PLAY_NOT = (Phase.WAGERS, Phase.COMPLETE)  # a round in these phases has no card out nor wager closed


def _moment(now: float) -> Decimal:
    """``now`` to the millisecond, as journaled (the status shows the same float it reads back)."""
    return Decimal(f"{now:.3f}")


@dataclass(frozen=True)
class Condition:
    kind: str
    priority: str
    clauses: tuple[str, ...] = ()
    seat: int | None = None
    device: str | None = None


@dataclass(frozen=True)
class Alarm:
    id: str
    key: str  # the condition it stands for (``Alarms.conditions``)
    kind: str
    priority: str
    since: float
    clauses: tuple[str, ...] = ()
    seat: int | None = None
    device: str | None = None
    acknowledged: tuple[str, float] | None = None  # (by, at)

    def public(self) -> dict[str, Any]:
        ack = {"by": self.acknowledged[0], "at": self.acknowledged[1]} if self.acknowledged else None
        return {"id": self.id, "priority": self.priority, "kind": self.kind, "since": self.since, "seat": self.seat,
                "device": self.device, "clauses": list(self.clauses), "acknowledged": ack}

    def kept(self) -> dict[str, Any]:
        """As a checkpoint holds it (times as decimal strings to the millisecond: the journal takes no float)."""
        ack = {"by": self.acknowledged[0], "at": str(_moment(self.acknowledged[1]))} if self.acknowledged else None
        return {**self.public(), "key": self.key, "since": str(_moment(self.since)), "acknowledged": ack}


def _from_kept(data: dict[str, Any]) -> Alarm:
    ack = data.get("acknowledged")
    return Alarm(id=data["id"], key=data["key"], kind=data["kind"], priority=data["priority"],
                 since=float(data["since"]), clauses=tuple(data.get("clauses") or ()), seat=data.get("seat"),
                 device=data.get("device"), acknowledged=(ack["by"], float(ack["at"])) if ack else None)


def _key_of(alarm_id: str) -> str:
    return alarm_id.rpartition("@")[0]


class Alarms:
    def __init__(self, s: Session, devices: Devices, life: Life, progressive: ProgressiveSystem,
                 remedies: Remedies, storage: Storage, *, key_wanted: Callable[[], bool]) -> None:
        self.s = s
        self.devices = devices
        self.life = life  # the shuffler's fault episodes
        self.progressive = progressive
        self.remedies = remedies  # the irregularity menu
        self.storage = storage
        self.key_wanted = key_wanted  # whether the dealer's next action needs the key (the status's next_action)
        self.open: dict[str, Alarm] = self._restored()  # by condition
        # the latched alarms still unacknowledged when the daemon stopped are latched again (issue 28)
        self.latched: dict[str, Condition] = {
            k: Condition(a.kind, a.priority, a.clauses, a.seat, a.device)
            for k, a in self.open.items() if a.kind in LATCHED and a.acknowledged is None}
        self.live = False  # conditions are read once the daemon has recovered its round (``start``)
        self._unwritten: list[tuple[ev.JournalEvent, str | None]] = []  # refused by the disk: written once it takes
        self._degraded_since: dict[str, float] = {}
        self._sources: list[Callable[[], dict[str, Condition]]] = []  # parts built after the alarms (issue 28)
        s.journal.checkpoint_parts["alarms"] = self.checkpoint
        progressive.on_validated(self.validated)
        progressive.on_unreasonable(self.unreasonable)

    # ------------------------------------------------------------------ the journal

    def _restored(self) -> dict[str, Alarm]:
        """The alarms open when the daemon stopped: the latest checkpoint's, then the alarm events after it."""
        j = self.s.journal
        cp = j.latest_checkpoint(with_part="alarms")
        after, found = 0, {}
        if cp is not None and cp[1].alarms is not None:
            after = cp[0]
            found = {_key_of(i): _from_kept(a) for i, a in cp[1].alarms.items()}
        kinds = {ev.AlarmRaised.kind, ev.AlarmAcknowledged.kind, ev.AlarmCleared.kind}
        for e in j.events(None, after=after):
            t = e.typed if e.kind in kinds else None
            if isinstance(t, ev.AlarmRaised):
                key = _key_of(t.id)
                found[key] = Alarm(t.id, key, t.alarm, t.priority, float(t.since), t.clauses, t.seat, t.device)
            elif isinstance(t, ev.AlarmAcknowledged) and _key_of(t.id) in found:
                found[_key_of(t.id)] = replace(found[_key_of(t.id)], acknowledged=(t.by, float(t.at)))
            elif isinstance(t, ev.AlarmCleared):
                found.pop(_key_of(t.id), None)
        return found

    def checkpoint(self) -> dict[str, Any]:
        """The open alarms as a checkpoint holds them (P58): read back at start."""
        return {a.id: a.kept() for a in self.open.values()}

    def _record(self, event: ev.JournalEvent, who: str | None = None) -> None:
        """Journal ``event``; one the disk refuses halts the table as any (P97) and is written once it takes."""
        self._unwritten.append((event, who))
        self._flush()

    def _flush(self) -> None:
        if self.storage.fault is not None:
            return
        while self._unwritten:
            event, who = self._unwritten[0]
            try:
                self.s.journal.record(event, who=who)
            except sqlite3.Error as e:
                self.storage.journal_failed(e)
                return
            self._unwritten.pop(0)

    # ------------------------------------------------------------------ the conditions

    def add_source(self, conditions: Callable[[], dict[str, Condition]]) -> None:
        """A part built after the alarms adds its conditions (the shuffle monitor's findings)."""
        self._sources.append(conditions)

    def start(self) -> None:
        """The daemon has recovered its round: alarms follow the table from now on; the key acknowledges them."""
        self.live = True
        panel = self.devices.panel
        if panel is not None:
            panel.on_key_change(self.on_key)

    def conditions(self, now: float) -> dict[str, Condition]:
        """Every condition the table is in now that is an alarm, by a key naming it."""
        s, p = self.s, self.progressive
        short = s.game.short
        r = s.round
        in_play = r is not None and r.phase not in _IN_PLAY_NOT
        device_priority = "high" if in_play else "medium"
        out: dict[str, Condition] = {}
        if r is not None:
            for h in p.validation:
                out[f"jackpot_held:{r.round_id}:{h.index}"] = Condition(
                    "jackpot_held", "high", (s.game.cite("progressive_validation"),), seat=h.seat, device=None)
        for name, health in self.devices.health().items():
            clauses: tuple[str, ...] = ((clause("out_of_order", short),) if name in CARD_DEVICES
                       else ("NJAC 13:69E-1.39B",) if name == "progressive" else ("P94",))
            if health == "offline":
                out[f"device_offline:{name}"] = Condition("device_offline", device_priority, clauses, device=name)
            if health == "degraded":
                first = self._degraded_since.setdefault(name, now)
                if now - first >= DEGRADED_DELAY_S:
                    out[f"device_degraded:{name}"] = Condition("device_degraded", device_priority, clauses,
                                                               device=name)
            else:
                self._degraded_since.pop(name, None)
        for device, fault in (*self.devices.faults.episodes(), *self.life.faults.episodes()):
            where = (clause("out_of_order", short),) if device in CARD_DEVICES else ()
            out[f"device_fault:{device}:{fault}"] = Condition("device_fault", device_priority, where, device=device)
        menu = self.remedies.menu
        if menu is not None:
            chosen = (clause(menu.chosen.what.split(":")[0], short),) if menu.chosen is not None else ()
            out["irregularity"] = Condition("irregularity", "high", ("P41", *chosen), seat=menu.seat)
        if r is not None and r.phase is Phase.HALTED:
            out[f"round_halted:{r.round_id}"] = Condition("round_halted", "high")
        if s.clock == "unsynchronised" and s.life.state is not TableState.CLOSED:  # every time in doubt (P109)
            out["clock_unsynchronised"] = Condition("clock_unsynchronised", "medium", ("P109",))
        if s.program_refused is not None:
            out["program_refused"] = Condition("program_refused", "high", ("P115",))
        if self.storage.halted:
            out["storage_fault"] = Condition("storage_fault", "high", ("P97",))
        if self.storage.round_held_back:
            out["no_room_for_a_round"] = Condition("no_room_for_a_round", "high", ("P104",))
        if p.off:
            out["progressive_disabled"] = Condition("progressive_disabled", "medium",
                                                    tuple(p.off_told.get("clauses") or ()), device="progressive")
        notice = s.notice_told
        if r is not None and notice is not None and notice.get("kind") == "lockout_lost":
            out[f"lockout_lost:{r.round_id}"] = Condition("lockout_lost", "medium", tuple(notice.get("clauses") or ()),
                                                          device="progressive")
        for hit in s.meters.pending_elsewhere():
            out[f"link_hit_pending:{hit['seq']}"] = Condition("link_hit_pending", "low", ("R4",), seat=None)
        for source in self._sources:
            out.update(source())
        out.update(self.latched)
        return out

    def latch(self, key: str, condition: Condition) -> None:
        """A finding's alarm (``LATCHED`` kinds): raised at the next refresh, cleared once acknowledged.  ``key``
        is ``protection:<the finding's journal seq>`` (the report joins them by it)."""
        assert condition.kind in LATCHED, condition.kind
        self.latched[key] = condition

    def unreasonable(self, meter: str) -> None:
        """An unreasonable contribution to ``meter`` refused: a high alarm for the floor until a named supervisor
        acknowledges it (N.J.A.C. 13:69E-1.39A(a)6, P120); refused again meanwhile, the same alarm."""
        self.latched[f"contribution_unreasonable:{meter}"] = Condition(
            "contribution_unreasonable", "high", ("N.J.A.C. 13:69E-1.39A(a)6", "P120"))

    def refresh(self) -> None:
        """Raise the alarms whose condition began, clear those whose condition ended (each journaled)."""
        if not self.live:
            return
        now = time.time()
        found = self.conditions(now)
        for key, c in found.items():
            a = self.open.get(key)
            if a is None:
                since = _moment(now)
                a = self.open[key] = Alarm(f"{key}@{since}", key, c.kind, c.priority, float(since), c.clauses,
                                           c.seat, c.device)
                self.s.log.warning("alarm raised", alarm=c.kind, id=a.id, priority=c.priority)
                self._record(ev.AlarmRaised(id=a.id, alarm=a.kind, priority=a.priority, since=since,
                                            clauses=a.clauses, seat=a.seat, device=a.device))
            elif (a.priority, a.clauses, a.seat) != (c.priority, c.clauses, c.seat):
                self.open[key] = replace(a, priority=c.priority, clauses=c.clauses, seat=c.seat)
        for key in [k for k in self.open if k not in found]:
            a = self.open.pop(key)
            self.s.log.info("alarm cleared", alarm=a.kind, id=a.id)
            self._record(ev.AlarmCleared(id=a.id, alarm=a.kind, priority=a.priority,
                                         acknowledged=a.acknowledged[0] if a.acknowledged else None))
        self._flush()

    def now(self) -> list[dict[str, Any]]:
        """The status's ``alarms``: high priority first, then the oldest first."""
        self.refresh()
        order = list(PRIORITIES)
        return [a.public() for a in sorted(self.open.values(), key=lambda a: (order.index(a.priority), a.since))]

    # ------------------------------------------------------------------ acknowledgement (P105)

    def acknowledge(self, keys: list[str], by: str) -> None:
        at = _moment(time.time())
        for key in keys:
            a = self.open.get(key)
            if a is None or a.acknowledged is not None:
                continue
            self.open[key] = replace(a, acknowledged=(by, float(at)))
            self._record(ev.AlarmAcknowledged(id=a.id, alarm=a.kind, priority=a.priority, by=by, at=at), who=by)
            self.latched.pop(key, None)  # a finding's alarm ends once acknowledged

    def validated(self, round_id: str, hits: list[prog.Hit], who: str) -> None:
        """A held win validated: the supervisor who validated it acknowledged its alarm (P105)."""
        self.acknowledge([f"jackpot_held:{round_id}:{h.index}" for h in hits], who)

    def on_key(self, key: KeySwitch) -> None:
        """The key turned: with no action that needs it offered, it acknowledges the unacknowledged alarms
        (those open now; one raised after the turn waits for the next)."""
        if not key.on or not self.live or self.key_wanted():
            return
        keys = [k for k, a in self.open.items() if a.acknowledged is None]
        if keys:
            self.s.spawn(self._acknowledge_with_key(keys))

    async def _acknowledge_with_key(self, keys: list[str]) -> None:
        s = self.s
        try:
            who = await s.supervisor(ACTION)  # a known supervisor's only (P93): an unknown key is journaled
        except Refused as e:
            await s.refuse(str(e), e.code, e.clauses)
            s.publish()
            return
        except DeviceError:  # the panel did not answer the key's read: the turn is not taken
            return
        if who is None:  # turned back before it was read
            return
        self.acknowledge(keys, who)
        s.log.info("alarms acknowledged", by=who, alarms=len(keys))
        s.publish()
