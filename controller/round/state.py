"""The round's vocabulary: its phases and transitions, the answer to "is this allowed now?", a seat, the setup.

Owns the plain types ``controller.round.machine`` and its helpers share (``layout``, ``decisions``,
``settlement``, ``view``), the journal protocol a round writes through, and ``RoundLike``: what the
helpers read of a round, so that they need not import the machine that imports them.
``controller.round.machine`` re-exports them: import them from there.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from controller import events as ev
from games.cards import Card

if TYPE_CHECKING:
    from transitions.extensions.asyncio import AsyncTransitionConfigDict

    from games.game import Game, Street
    from games.round import Settlement


class Phase(enum.StrEnum):
    WAGERS = "wagers"  # open for wagers (UTH ch.7 §D)
    NO_MORE_BETS = "no_more_bets"  # lock-out set and confirmed; the dealer checks the progressive count (UTH ch.8 §C)
    DEALING = "dealing"  # cards leaving the shoe or shuffler (UTH ch.8-ch.10)
    DECISIONS = "decisions"  # players decide, street by street (UTH ch.11)
    REVEAL = "reveal"  # every player has acted: the dealer's hand is exposed (UTH ch.11 §G)
    SETTLED = "settled"  # settlement computed; the dealer pays and takes, then confirms
    COMPLETE = "complete"
    VOIDED = "voided"  # all hands void (R7a), or the wagers the game's chapter 13 keeps alive settled
    HALTED = "halted"  # an irregularity or a device stopped the round; the dealer decides


#: each phase in a person's words (the screens' words, web/words.py)
WORDS: dict[str, str] = {
    Phase.WAGERS: "Place your bets", Phase.NO_MORE_BETS: "No more bets", Phase.DEALING: "Dealing",
    Phase.DECISIONS: "Players' decisions", Phase.REVEAL: "Dealer's hand shown", Phase.SETTLED: "Settled",
    Phase.COMPLETE: "Round over", Phase.VOIDED: "Round void", Phase.HALTED: "Round halted",
    # a seat's state in the public view (``left``, ``skipped``, ``folded``): qualified, ``left`` is also a place
    "seat.folded": "Folded", "seat.left": "Left the table", "seat.skipped": "Skipped",
}

OPEN_PHASES = [Phase.WAGERS, Phase.NO_MORE_BETS, Phase.DEALING, Phase.DECISIONS, Phase.REVEAL]

#: the machine's transitions between the phases (``RoundController`` declares each trigger for the type checker)
_RESUME: list[AsyncTransitionConfigDict] = [
    # back to where the round was halted, once the dealer has dealt with the cause
    {"trigger": "resume", "source": Phase.HALTED, "dest": p, "conditions": f"_halted_in_{p.value}"} for p in OPEN_PHASES
]
TRANSITIONS: list[AsyncTransitionConfigDict] = [
    {"trigger": "wagers_closed", "source": Phase.WAGERS, "dest": Phase.NO_MORE_BETS},
    {"trigger": "start_dealing", "source": Phase.NO_MORE_BETS, "dest": Phase.DEALING},
    {"trigger": "open_decisions", "source": Phase.DEALING, "dest": Phase.DECISIONS},
    {"trigger": "all_acted", "source": Phase.DECISIONS, "dest": Phase.REVEAL},
    {"trigger": "settled", "source": Phase.REVEAL, "dest": Phase.SETTLED},
    {"trigger": "finish", "source": [Phase.SETTLED, Phase.VOIDED], "dest": Phase.COMPLETE},
    {"trigger": "voided", "source": [*OPEN_PHASES, Phase.HALTED], "dest": Phase.VOIDED},
    {"trigger": "halt", "source": OPEN_PHASES, "dest": Phase.HALTED},
    *_RESUME,
]


@dataclass(frozen=True)
class Answer:
    """Whether an action is allowed now: truthy when it is; else ``code`` (for programs) and ``reason``
    (for the dealer, citing the clause)."""

    code: str | None = None
    reason: str = ""

    def __bool__(self) -> bool:
        return self.code is None

    def ensure(self) -> None:
        """Raise ``RoundRefused`` with this answer unless the action is allowed (ask, then act)."""
        if self.code is not None:
            raise RoundRefused(self.reason, self.code)


ALLOWED = Answer()


def no(code: str, reason: str) -> Answer:
    return Answer(code, reason)


class RoundRefused(ValueError):
    """An action the rules or the round's state do not allow now; the round is unchanged."""

    def __init__(self, reason: str, code: str = "refused") -> None:
        super().__init__(reason)
        self.answer = Answer(code, reason)

    @property
    def code(self) -> str:
        return self.answer.code or "refused"


class JournalLike(Protocol):
    """What a round journals through: its declared events (``controller.events``), one or several as one fact."""

    def record(self, event: ev.JournalEvent, round_id: str | None = None) -> int: ...

    def record_many(self, evs: Sequence[ev.JournalEvent], round_id: str | None = None) -> list[int]: ...


class NoJournal:
    """For replays and pure tests: records nothing."""

    def record(self, event: ev.JournalEvent, round_id: str | None = None) -> int:
        return 0

    def record_many(self, evs: Sequence[ev.JournalEvent], round_id: str | None = None) -> list[int]:
        return [0] * len(evs)


@dataclass
class SeatState:
    seat: int
    wagers: dict[str, Decimal] = field(default_factory=dict)
    cards: list[Card] = field(default_factory=list)
    multiples: list[int] = field(default_factory=list)  # Play / Raise / Run wagers made, in Antes
    folded: bool = False
    acted_on_street: int = -1  # the last street this seat was asked at
    abandoned: bool = False  # the player left mid-round (UTH ch.7 §C(2), P42)
    abandoned_returned: bool = False  # ... and the facility returns abandoned wagers instead of taking them (P42)
    skipped: bool = False  # accidentally skipped in the deal: plays the next hand, wagers returned (RET ch.13 §G)

    @property
    def out(self) -> bool:
        return self.abandoned or self.skipped

    @property
    def done(self) -> bool:
        """No more decisions: folded, or (UTH/JHE/HCF) already made its one wager."""
        return self.folded


@dataclass(frozen=True)
class TableSetup:
    """What the round needs to know of the table (from the configuration)."""

    game: str
    paytables: Mapping[str, str]
    progressive: Mapping[str, Any] | None = None  # the settle contract's progressive block (meters as now)
    payout_limit: Decimal | None = None


class RoundLike(Protocol):
    """What the round's helpers (``decisions``, ``settlement``, ``view``) read of a round, and the one move
    ``decisions.advance`` makes on it (the next street, or every player has acted).  ``RoundController`` is
    one; declared here, below the helpers and the machine, because the machine imports the helpers."""

    round_id: str
    setup: TableSetup
    game: Game
    seats: dict[int, SeatState]
    dealer: list[Card]
    community: dict[int, Card]
    bonus_box: list[Card]
    street: int  # advanced by decisions.advance
    settlement: Settlement | None
    payments: tuple[ev.PaymentStep, ...] | None
    halt_reason: str | None
    halted_from: Phase | None
    void_reason: str | None  # set when the round was voided (R7a): its settlement returns the wagers it keeps not

    @property
    def phase(self) -> Phase: ...

    @property
    def players(self) -> list[SeatState]: ...

    @property
    def current_street(self) -> Street: ...

    def _community_index(self, key: str) -> int: ...

    async def all_acted(self) -> bool: ...
