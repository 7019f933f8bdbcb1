"""The journal's events, one declared type per kind with its payload.

Owns: what each kind of journal event carries (its fields and their types), how
an event becomes the JSON object the journal stores (``to_data``) and how a
stored object becomes the event again (``parse``), and the one way a model
applies events (``Applier`` with ``@applies``), used by the round
(``controller.round.machine``) and by the table's life (``controller.table``).

The on-disk format is the journal's rows as they have always been written: an
event's fields are the keys of its ``data`` object, amounts are exact decimal
strings, and a field marked ``optional()`` is left out when it is None (so an
event written before the field existed reads back with None).  ``parse`` of a
kind this module does not declare gives an ``Unrecognised`` event carrying the
data as stored: the journal never refuses to read a row.

Kinds are written as ``WagerPlaced.kind`` rather than as literals, so that a misspelt
kind is a type error, not an event nobody applies.  Every journal write of the
program passes one of these types (``Journal.record``, ``TableLife.record``), never
a kind and a dict (tests/test_event_call_sites.py); a part of an event that is a
dataclass of its own (a step of the order of payment) is stored as a nested object.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar, TypeVar

_OMIT = "omit_when_none"


def optional() -> Any:
    """A field that older journals lack or that is written only when it has a value."""
    return field(default=None, metadata={_OMIT: True})


class EventFormatError(ValueError):
    """A stored event's data does not have the fields or types its kind declares."""


#: every declared kind -> its type
EVENTS: dict[str, type[JournalEvent]] = {}


@dataclass(frozen=True)
class JournalEvent:
    """One fact as the journal stores it: ``kind`` names the type, the fields are the payload."""

    kind: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        kind = cls.__dict__.get("kind")
        if kind is not None:
            if kind in EVENTS:
                raise TypeError(f"two event types for the kind {kind!r}")
            EVENTS[kind] = cls

    def to_data(self) -> dict[str, Any]:
        """The ``data`` object of the journal row (Decimals stay Decimal: the journal writes them exactly)."""
        return _data_of(self)

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> typing.Self:
        return _from_data(cls, data, cls.kind)


@dataclass(frozen=True)
class Unrecognised:
    """A row of a kind this program does not declare (a newer program's, or a peer's): kept as stored."""

    kind: str
    data: Mapping[str, Any] = field(repr=False)

    def to_data(self) -> dict[str, Any]:
        return dict(self.data)


AnyEvent = JournalEvent | Unrecognised


def parse(kind: str, data: Mapping[str, Any]) -> AnyEvent:
    """The typed event of a stored row (``kind``, ``data``)."""
    cls = EVENTS.get(kind)
    return Unrecognised(kind, data) if cls is None else cls.from_data(data)


# -- conversion ------------------------------------------------------------------------------------

T = TypeVar("T")

_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _data_of(obj: Any) -> dict[str, Any]:
    """A dataclass's fields as a JSON object; an ``optional()`` field left out when None."""
    out: dict[str, Any] = {}
    for f in fields(obj):
        value = getattr(obj, f.name)
        if value is None and f.metadata.get(_OMIT):
            continue
        out[f.name] = _plain(value)
    return out


def _from_data(cls: type[T], data: Mapping[str, Any], where: str) -> T:
    """The dataclass ``cls`` from a stored JSON object (keys it does not declare are ignored)."""
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for f in fields(cls):  # type: ignore[arg-type]  # cls is a dataclass: an event or a part of one
        if f.name in data:
            try:
                kwargs[f.name] = _convert(hints[f.name], data[f.name])
            except (InvalidOperation, TypeError, ValueError) as exc:
                raise EventFormatError(f"{where}.{f.name}: {type(exc).__name__}") from None
    try:
        return cls(**kwargs)
    except TypeError:
        missing = [f.name for f in fields(cls) if f.name not in kwargs and f.default is MISSING]  # type: ignore[arg-type]
        raise EventFormatError(f"{where}: missing {', '.join(missing)}") from None


def _plain(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return _data_of(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _convert(tp: Any, value: Any) -> Any:
    """``value`` as read from JSON, as the declared type ``tp`` (amounts to Decimal, lists to tuples)."""
    if tp is Decimal:
        if isinstance(value, bool) or not isinstance(value, str | int | Decimal):
            raise TypeError("an amount must be a decimal string")  # never a binary float
        return Decimal(value)
    if isinstance(tp, type) and is_dataclass(tp):  # a part of an event (a step of the order of payment)
        if not isinstance(value, Mapping):
            raise TypeError("an object")
        return _from_data(tp, value, tp.__name__)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Union or origin is types.UnionType:
        if value is None and type(None) in args:
            return None
        return _convert(next(a for a in args if a is not type(None)), value)
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise TypeError("a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(args[0], v) for v in value)
        return tuple(_convert(a, v) for a, v in zip(args, value, strict=True))
    if origin in (dict, Mapping) and args:
        if not isinstance(value, Mapping):
            raise TypeError("an object")
        return {k: _convert(args[1], v) for k, v in value.items()}
    return value


# -- applying --------------------------------------------------------------------------------------

F = TypeVar("F", bound=Callable[..., Any])


def applies(*kinds: type[JournalEvent]) -> Callable[[F], F]:
    """Mark a method of an ``Applier`` as the one that applies events of these types."""

    def mark(fn: F) -> F:
        fn._applies = kinds  # type: ignore[attr-defined]  # read by Applier.__init_subclass__
        return fn

    return mark


class Applier:
    """A model rebuilt from events: each event type has at most one ``@applies`` method."""

    _appliers: ClassVar[dict[type[JournalEvent], str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        found: dict[type[JournalEvent], str] = {}
        for klass in reversed(cls.__mro__):
            for name, fn in vars(klass).items():
                for kind in getattr(fn, "_applies", ()):
                    found[kind] = name
        cls._appliers = found

    def applies_to(self, kind: str) -> bool:
        """Does this model apply events of ``kind``?"""
        return any(t.kind == kind for t in self._appliers)

    def applier(self, event: AnyEvent) -> Callable[..., Any] | None:
        """The bound method that applies ``event``, or None when this model does not apply its kind."""
        name = self._appliers.get(type(event)) if isinstance(event, JournalEvent) else None
        return None if name is None else typing.cast(Callable[..., Any], getattr(self, name))


# -- the order of payment (P65), journaled with the settlement or the void it orders ----------------


@dataclass(frozen=True)
class PaidWager:
    """One wager of a step of the order of payment and what it pays (``net``: + paid, - taken, 0 returned)."""

    wager: str
    result: str
    net: Decimal
    line: str | None = optional()  # the paytable line, when one paid


@dataclass(frozen=True)
class PaymentStep:
    """One step of the dealer's order of payment (``games.round.Payment``) with its results: the wagers of
    ``seat`` that a pass settles, in the pass's declared order (``games.procedure.PaymentPass``)."""

    seat: int
    clause: str
    shows_hand: bool
    # a list in the journal: it stores objects with their keys sorted, and the order is the point
    wagers: tuple[PaidWager, ...]


# -- the round's events (round_id set) -------------------------------------------------------------


@dataclass(frozen=True)
class RoundOpened(JournalEvent):
    kind = "round_opened"
    game: str
    paytables: dict[str, str]
    progressive: dict[str, Any] | None = None  # the settle contract's progressive block
    payout_limit: Decimal | None = None
    steps_journaled: bool | None = optional()  # True since reveals and the order of payment are journaled (P66)


@dataclass(frozen=True)
class WagerPlaced(JournalEvent):
    kind = "wager"
    seat: int
    wager: str
    amount: Decimal


@dataclass(frozen=True)
class NoMoreBets(JournalEvent):
    kind = "no_more_bets"
    progressive_seats: tuple[int, ...]
    meters: dict[str, Decimal] | None = optional()  # with this round's contributions (R4)


@dataclass(frozen=True)
class CountConfirmed(JournalEvent):
    kind = "count_confirmed"
    chips: int


@dataclass(frozen=True)
class CardDealt(JournalEvent):
    kind = "card"
    place: str
    card: str


@dataclass(frozen=True)
class CardDiscarded(JournalEvent):
    kind = "card_discarded"
    card: str
    reason: str


@dataclass(frozen=True)
class DecisionMade(JournalEvent):
    kind = "decision"
    seat: int
    street: int
    multiple: int | None
    fold: bool
    check: bool


@dataclass(frozen=True)
class Revealed(JournalEvent):
    kind = "revealed"
    what: str
    cards: tuple[str, ...]
    clause: str


@dataclass(frozen=True)
class SeatAbandoned(JournalEvent):
    kind = "seat_abandoned"
    seat: int
    by: str | None = optional()
    wagers: str | None = optional()  # "losing" or "returned" (P42); absent before P42: losing
    meters: dict[str, Decimal] | None = optional()


@dataclass(frozen=True)
class SeatSkipped(JournalEvent):
    kind = "seat_skipped"
    seat: int
    by: str
    cards: tuple[tuple[str, str], ...]  # (place, card) of the deal so far, where each really went
    meters: dict[str, Decimal] | None = optional()


@dataclass(frozen=True)
class Settled(JournalEvent):
    kind = "settled"
    meters: dict[str, Decimal]
    nets: dict[str, Decimal]
    order: tuple[PaymentStep, ...] | None = optional()  # the order of payment (P65); absent before it


@dataclass(frozen=True)
class Voided(JournalEvent):
    kind = "voided"
    reason: str
    keep: tuple[str, ...]
    order: tuple[PaymentStep, ...] | None = optional()


@dataclass(frozen=True)
class Halted(JournalEvent):
    kind = "halted"
    reason: str
    phase: str


@dataclass(frozen=True)
class Resumed(JournalEvent):
    kind = "resumed"
    by: str


@dataclass(frozen=True)
class RoundClosed(JournalEvent):
    """The dealer confirmed the settlement: nothing more is journaled for the round."""

    kind = "round_closed"


@dataclass(frozen=True)
class RoundVoided(JournalEvent):
    """The dealer confirmed the void's returns: nothing more is journaled for the round."""

    kind = "round_voided"


# -- the progressive meters (the journal checks their data on append) -----------------------------


@dataclass(frozen=True)
class MeterSet(JournalEvent):
    kind = "meter_set"
    meters: dict[str, Decimal]


@dataclass(frozen=True)
class MeterAdd(JournalEvent):
    kind = "meter_add"
    meters: dict[str, Decimal]  # negative when a void takes a contribution back (R7a)
    # the hidden rate's share, held for the next reset, and what the limit kept off the meter (P114); absent
    # before P114 and when none
    reserve: dict[str, Decimal] | None = optional()
    overflow: dict[str, Decimal] | None = optional()


@dataclass(frozen=True)
class MeterPaid(JournalEvent):
    kind = "meter_paid"
    meter: str
    paid: Decimal
    after: Decimal  # never below reset (R4)
    hit: int | None = optional()
    seat: int | None = optional()
    settled: Decimal | None = optional()  # a linked hit: the settlement's figure, when the link paid another (P80)
    reserve: Decimal | None = optional()  # the reserve after it funded the reset (P114); absent: unchanged


# -- the table's life (round_id None) --------------------------------------------------------------


@dataclass(frozen=True)
class StepsRequired(JournalEvent):
    kind = "steps_required"
    steps: tuple[str, ...]
    why: str


@dataclass(frozen=True)
class StepDone(JournalEvent):
    kind = "step_done"
    step: str
    deck: str | None = optional()  # the shuffler's deck and count, for a shuffle step (``deck_count``: UTH ch.5 §E)
    count: int | None = optional()


@dataclass(frozen=True)
class DeckShuffled(JournalEvent):
    kind = "deck_shuffled"
    deck: str
    count: int | None = None


@dataclass(frozen=True)
class DeckDealt(JournalEvent):
    kind = "deck_dealt"
    deck: str
    round: str


@dataclass(frozen=True)
class DeckRemoved(JournalEvent):
    """A deck taken out: by the shuffler's count (``deck``, ``count``; UTH ch.5 §E, HCF ch.5 §C,
    RET ch.5 §B) or by an irregularity."""

    kind = "deck_removed"
    deck: str | None = optional()
    count: int | None = optional()
    clause: str | None = optional()
    reason: str | None = optional()
    round: str | None = optional()
    irregularity: str | None = optional()


@dataclass(frozen=True)
class DeckExpired(JournalEvent):
    kind = "deck_expired"
    hours: str
    limit: str
    clause: str


@dataclass(frozen=True)
class DeviceOutOfOrder(JournalEvent):
    kind = "device_out_of_order"
    device: str
    clause: str | None = optional()


@dataclass(frozen=True)
class DeviceInService(JournalEvent):
    kind = "device_in_service"
    device: str
    clause: str | None = optional()


@dataclass(frozen=True)
class DeviceInputRefused(JournalEvent):
    kind = "device_input_refused"
    device: str
    fault: str
    reason: str


@dataclass(frozen=True)
class DeviceFault(JournalEvent):
    """A device failed to do what it was asked (a shuffle jammed or did not complete): the first of an
    episode; its repeats are counted in ``DeviceFaultEnded`` (controller/service/faults.py)."""

    kind = "device_fault"
    device: str
    fault: str
    reason: str
    clause: str | None = optional()


@dataclass(frozen=True)
class DeviceFaultEnded(JournalEvent):
    """The device worked again: how many times ``fault`` happened in the episode, the first included."""

    kind = "device_fault_ended"
    device: str
    fault: str
    count: int


@dataclass(frozen=True)
class SupervisorRefused(JournalEvent):
    """The supervisor's key turned with an ID the table does not know, or 0 (P93): ``action`` was not done."""

    kind = "supervisor_refused"
    action: str
    supervisor_id: int
    round: str | None = optional()


@dataclass(frozen=True)
class PressRefused(JournalEvent):
    """A press of the dealer's panel the table refused (P118): nothing changed; journaled so that a round's page
    shows every press with its time.  ``code`` says why (``controller.service.refused.WORDS``), ``reason`` as the
    dealer was told it, ``clauses`` the citations it gives; ``round`` the round open then, if any."""

    kind = "press_refused"
    button: str
    code: str
    reason: str
    clauses: tuple[str, ...] = ()
    multiple: int | None = optional()  # a bet's multiple (``bet`` pressed as bet_4x ...)
    round: str | None = optional()


@dataclass(frozen=True)
class TableOpened(JournalEvent):
    kind = "table_opened"


@dataclass(frozen=True)
class TableIdle(JournalEvent):
    kind = "table_idle"


@dataclass(frozen=True)
class TableClosed(JournalEvent):
    kind = "table_closed"


@dataclass(frozen=True)
class ClockChecked(JournalEvent):
    """Whether the kernel held the table's clock synchronised (``controller.service.clock``, P109): at start
    and every hour, so that every journaled time can be judged by the clock that stamped it."""

    kind = "clock_checked"
    state: str  # "synchronised", "unsynchronised", "unknown"
    source: str  # what was read ("adjtimex")
    max_error: Decimal | None = optional()  # the kernel's bound on the clock's error, in seconds


@dataclass(frozen=True)
class ProgramChecked(JournalEvent):
    """The installed program checked against its release's manifest (``controller.program``, P115): at start and
    every ``[program] check_hours``; ``state`` verified, development, mismatch or no_manifest, ``digest`` the
    release's digest as installed, ``problems`` the files that differ (their paths, never their contents)."""

    kind = "program_checked"
    state: str
    release: str | None = optional()
    digest: str | None = optional()
    files: int | None = optional()
    problems: tuple[str, ...] | None = optional()
    config_digest: str | None = optional()  # SHA-256 of the table's configuration file
    # a check made at an earlier start, before the program's modules were imported, that could not journal it
    # (controller/boot.py, P122): when it was made and why the daemon did not start
    refused_at: str | None = optional()
    not_started: str | None = optional()


@dataclass(frozen=True)
class ProgramCleared(JournalEvent):
    """A refusal for the program (P115) cleared by a technician (``tablectl verify-program --clear``), journaled by
    the daemon at its next start once the program verifies."""

    kind = "program_cleared"
    by: str
    reason: str
    refused_at: str | None = optional()


# -- game protection (controller/protection/; docs/protection.md) ---------------------------------


@dataclass(frozen=True)
class ProtectionFinding(JournalEvent):
    """A game-protection test found what a fair game almost never makes: ``finding`` names the test (a code of
    ``controller.protection``'s words), ``evidence`` its figures (numbers and card names already revealed by the
    rules, never an unseen card), ``p_value`` the chance of as much or more in a fair game where one applies."""

    kind = "protection_finding"
    finding: str
    evidence: dict[str, Any]
    round: str | None = optional()
    deck: str | None = optional()
    seat: int | None = optional()
    wager: str | None = optional()
    p_value: Decimal | None = optional()


@dataclass(frozen=True)
class DeckObserved(JournalEvent):
    """The shuffle monitor's observation of a deck once its round is over (issue 28, P110): ``read`` the cards the
    device read in the deck's positions 1, 2 ..., ``collected`` the order they go back into the shuffler (``None``
    for a card never read: the stub), ``monitor`` the monitor's state after it (its CUSUMs and windows: the
    daemon rebuilds the monitor from these at start).  Journaled to the table: the round is closed by then."""

    kind = "deck_observed"
    deck: str
    round: str
    read: tuple[str, ...]
    collected: tuple[str | None, ...]
    monitor: dict[str, Any]


# -- the table's alarms (controller/service/alarms.py; P105) ---------------------------------------


@dataclass(frozen=True)
class AlarmRaised(JournalEvent):
    """An alarm of the table began: ``alarm`` is its kind (a code of ``controller.service.alarms.WORDS``), ``id``
    names it for its whole life."""

    kind = "alarm_raised"
    id: str
    alarm: str
    priority: str  # "high", "medium", "low" (ISA-18.2), as raised
    since: Decimal  # when it began, seconds since 1970 to the millisecond (the status's ``since``)
    clauses: tuple[str, ...] = ()
    seat: int | None = optional()
    device: str | None = optional()


@dataclass(frozen=True)
class AlarmAcknowledged(JournalEvent):
    """A floor supervisor acknowledged the alarm (P105): ``by`` names them as every supervisor action does (P93)."""

    kind = "alarm_acknowledged"
    id: str
    alarm: str
    priority: str
    by: str
    at: Decimal  # seconds since 1970 to the millisecond


@dataclass(frozen=True)
class AlarmCleared(JournalEvent):
    """The alarm's condition ended; ``acknowledged``: who had acknowledged it, None if nobody had."""

    kind = "alarm_cleared"
    id: str
    alarm: str
    priority: str
    acknowledged: str | None = optional()


# -- the progressive system (table events naming their round) -------------------------------------


@dataclass(frozen=True)
class ProgressiveHit(JournalEvent):
    kind = "progressive_hit"
    round: str
    hit: int
    seat: int
    wager: str
    line: str
    amount: Decimal
    meter: str | None = optional()


@dataclass(frozen=True)
class LateProgressiveWager(JournalEvent):
    kind = "late_progressive_wager"
    round: str
    seats: tuple[int, ...]


@dataclass(frozen=True)
class ProgressiveDisabled(JournalEvent):
    kind = "progressive_disabled"
    round: str | None
    reason: str


@dataclass(frozen=True)
class ProgressiveEnabled(JournalEvent):
    kind = "progressive_enabled"
    round: str | None


@dataclass(frozen=True)
class ProgressiveLockoutLost(JournalEvent):
    """The lock-out was found released mid-round and set again."""

    kind = "progressive_lockout_lost"
    round: str


@dataclass(frozen=True)
class ProgressiveAcceptedReturned(JournalEvent):
    """At start: the system held the lock-out and accepted flags of a no more bets the journal does not
    have; the flags are cleared and those progressive wagers returned (P96)."""

    kind = "progressive_accepted_returned"
    round: str
    seats: tuple[int, ...]


@dataclass(frozen=True)
class JournalFault(JournalEvent):
    """The journal could not be written (disk full, read-only); journaled once it can be again (P97)."""

    kind = "journal_fault"
    problem: str


@dataclass(frozen=True)
class Checkpoint(JournalEvent):
    """The journal's derived state, in the chain (P58): what start-up and recovery begin from, so that they
    read only the events after it (``controller.journal.state``).  Written at table close and every
    ``[journal] checkpoint_every`` rounds, in the same transaction as the event it follows."""

    kind = "checkpoint"
    why: str  # "table_closed", "rounds"
    meters: dict[str, Decimal]
    open_rounds: dict[str, int]  # the rounds with no closing event -> the seq of their latest event
    progressive_off: str | None  # why progressive wagers are disabled, or None
    last_round: str | None
    rounds: int  # rounds closed since the journal began
    table: dict[str, Any] | None  # the table's life (``controller.table.TableLife.checkpoint``), when known
    # a linked table's outbox: its contributions the link has not confirmed (P98; ``LinkedMeters.checkpoint_part``)
    link: dict[str, Any] | None = optional()
    # the alarms open (``controller.service.alarms.Alarms.checkpoint``: id -> the alarm), P105
    alarms: dict[str, Any] | None = optional()
    # the reserve and overflow meters (P114), when any is not zero
    reserve: dict[str, Decimal] | None = optional()
    overflow: dict[str, Decimal] | None = optional()
    # the parameters last approved (``controller.progressive.control``, P114): kept across roll-overs
    parameters: dict[str, Any] | None = optional()


# -- the progressive's parameters and meters under control (P114, docs/progressive-meters.md) --------------


@dataclass(frozen=True)
class ContributionRefused(JournalEvent):
    """A round's contribution to a meter above its ``unreasonable`` amount: no more bets refused, nothing added
    (N.J.A.C. 13:69E-1.39A(a)6)."""

    kind = "contribution_refused"
    round: str | None
    meter: str
    amount: Decimal
    unreasonable: Decimal


@dataclass(frozen=True)
class ParametersChanged(JournalEvent):
    """The progressive's or the paytables' parameters changed while the table was closed, approved (COMAR
    36.05.03.24 C): ``old`` and ``new`` as ``controller.progressive.control.parameters`` gives them."""

    kind = "parameters_changed"
    by: str
    approval: str
    old: dict[str, Any]
    new: dict[str, Any]


@dataclass(frozen=True)
class ParametersChangeRefused(JournalEvent):
    """A change of the parameters refused (the table open, no approval, a limit not above the meter): the
    daemon does not start on it."""

    kind = "parameters_change_refused"
    by: str | None
    approval: str | None
    reason: str
    old: dict[str, Any]
    new: dict[str, Any]


@dataclass(frozen=True)
class MeterCorrectionProposed(JournalEvent):
    """The first of two supervisors proposes a meter reset or correction (dual control)."""

    kind = "meter_correction_proposed"
    supervisor: int
    meters: dict[str, Decimal]
    old: dict[str, Decimal]
    reason: str


@dataclass(frozen=True)
class MeterCorrectionApproved(JournalEvent):
    """A second, different supervisor approves proposal ``proposal`` (its seq): the ``meter_set`` follows in the
    same transaction."""

    kind = "meter_correction_approved"
    proposal: int
    proposed_by: int
    supervisor: int


@dataclass(frozen=True)
class MeterCorrectionRefused(JournalEvent):
    """An approval refused (the proposer again, not on the allow-list, the proposal done or stale)."""

    kind = "meter_correction_refused"
    proposal: int
    supervisor: int
    reason: str


CLOSING = (RoundClosed, RoundVoided)
METERS = (MeterSet, MeterAdd, MeterPaid)


# -- the words of each kind and field, for the pages that show journal rows (web/words.py collects them) ----------

#: each kind (``event.<kind>``), each field (``field.<name>``) and each code a field holds (``<field>.<code>``),
#: in the words a floor supervisor or an auditor reads (the floor's pages, issue 26); the trust's kinds are in
#: controller/journal/trust.py, the web audit's in web/audit.py
WORDS: dict[str, str] = {
    "event.program_checked": "Program checked", "event.program_cleared": "Program refusal cleared",
    "field.release": "Release", "field.digest": "Digest", "field.files": "Files", "field.problems": "Problems",
    "field.config_digest": "Configuration digest", "field.refused_at": "Refused at",
    "field.not_started": "Why the daemon did not start",
    "event.clock_checked": "Clock checked", "field.state": "State", "field.source": "Read from",
    "field.max_error": "Largest error",
    "event.round_opened": "Round opened", "event.wager": "Wager placed", "event.no_more_bets": "No more bets",
    "event.count_confirmed": "Chips counted", "event.card": "Card dealt", "event.card_discarded": "Card discarded",
    "event.decision": "Player's decision", "event.revealed": "Cards revealed", "event.seat_abandoned": "Seat abandoned",
    "event.seat_skipped": "Seat skipped in the deal", "event.settled": "Round settled", "event.voided": "Round voided",
    "event.halted": "Round halted", "event.resumed": "Round resumed", "event.round_closed": "Round closed",
    "event.round_voided": "Void's returns confirmed", "event.meter_set": "Meters set",
    "event.meter_add": "Meter contributions", "event.meter_paid": "Meter paid",
    "event.steps_required": "Steps required", "event.step_done": "Step done", "event.deck_shuffled": "Deck shuffled",
    "event.deck_dealt": "Deck dealt", "event.deck_removed": "Deck removed", "event.deck_expired": "Deck expired",
    "event.device_out_of_order": "Device out of order", "event.device_in_service": "Device back in service",
    "event.device_input_refused": "Device's input refused", "event.device_fault": "Device fault",
    "event.device_fault_ended": "Device fault ended", "event.supervisor_refused": "Supervisor's key refused",
    "event.table_opened": "Table opened", "event.table_idle": "Table idle", "event.table_closed": "Table closed",
    "event.alarm_raised": "Alarm raised", "event.alarm_acknowledged": "Alarm acknowledged",
    "event.alarm_cleared": "Alarm cleared", "event.progressive_hit": "Progressive win",
    "event.late_progressive_wager": "Late progressive wager", "event.progressive_disabled": "Progressive disabled",
    "event.progressive_enabled": "Progressive enabled", "event.progressive_lockout_lost": "Progressive lock-out lost",
    "event.progressive_accepted_returned": "Progressive wagers returned at start",
    "event.journal_fault": "Journal could not be written", "event.checkpoint": "Checkpoint",
    "event.protection_finding": "Game protection finding", "field.finding": "Finding", "field.evidence": "Evidence",
    "field.p_value": "Chance in a fair game",
    "event.deck_observed": "Deck observed by the shuffle monitor", "field.read": "Cards read",
    "field.collected": "Order back into the shuffler", "field.monitor": "Monitor's state",
    "event.contribution_refused": "Unreasonable contribution refused",
    "event.parameters_changed": "Progressive parameters changed",
    "event.parameters_change_refused": "Parameter change refused",
    "event.meter_correction_proposed": "Meter correction proposed",
    "event.meter_correction_approved": "Meter correction approved",
    "event.meter_correction_refused": "Meter correction refused",
    "field.reserve": "Reserve", "field.overflow": "Overflow", "field.unreasonable": "Unreasonable above",
    "field.approval": "Approval", "field.old": "Before", "field.new": "After the change",
    "field.supervisor": "Supervisor", "field.proposal": "Proposal", "field.proposed_by": "Proposed by",
    "field.parameters": "Parameters approved",
    # the fields
    "field.game": "Game", "field.paytables": "Paytables", "field.progressive": "Progressive",
    "field.payout_limit": "Payout limit", "field.steps_journaled": "Steps journaled", "field.seat": "Seat",
    "field.wager": "Wager", "field.amount": "Amount", "field.progressive_seats": "Progressive at seats",
    "field.meters": "Meters", "field.chips": "Chips", "field.place": "Place", "field.card": "Card",
    "field.reason": "Reason", "field.street": "Street", "field.multiple": "Multiple", "field.fold": "Fold",
    "field.check": "Check", "field.what": "What", "field.cards": "Cards", "field.clause": "Clause", "field.by": "By",
    "field.wagers": "Wagers", "field.nets": "Net per seat", "field.order": "Order of payment", "field.keep": "Kept",
    "field.phase": "Phase", "field.meter": "Meter", "field.paid": "Paid", "field.after": "After",
    "field.hit": "Hit", "field.settled": "Settled at", "field.steps": "Steps", "field.why": "Why",
    "field.step": "Step", "field.deck": "Deck", "field.count": "Count", "field.round": "Round",
    "field.irregularity": "Irregularity", "field.hours": "Hours", "field.limit": "Limit", "field.device": "Device",
    "field.fault": "Fault", "field.action": "Action", "field.supervisor_id": "Supervisor", "field.id": "Alarm",
    "field.alarm": "Alarm", "field.priority": "Priority", "field.since": "Since", "field.clauses": "Clauses",
    "field.at": "At", "field.acknowledged": "Acknowledged by", "field.line": "Line", "field.seats": "Seats",
    "field.problem": "Problem", "field.open_rounds": "Open rounds", "field.progressive_off": "Progressive off",
    "field.last_round": "Last round", "field.rounds": "Rounds", "field.table": "Table", "field.link": "Link",
    "field.alarms": "Alarms",
    "event.press_refused": "Press refused", "field.button": "Button", "field.code": "Why",
    # game protection (issue 28)
    # the codes a field holds that no other declaration says
    "round_voided": "Voided",  # how a round closed (the hand recall's list), beside ``round_closed``
    "wagers.losing": "lost", "wagers.returned": "returned",
    "why.rounds": "every few rounds", "why.segment": "a new segment", "why.table_closed": "table closed",
}
