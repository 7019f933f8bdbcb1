"""What can happen now: one declaration, per phase of the round, of each action the dealer's panel can take.

Each ``Action`` says, in one place, what was written three times before (the round's transitions, the
panel's routes, the status's ``next_action``): the panel button(s) that do it, the condition of the table
it needs (``when``), the round's question it asks first (``asks``: a ``RoundController.can_*``, ask
before you act), the part method that performs it (``handler``), the round's trigger it leads to
(``leads_to``, in ``controller.round.state.TRANSITIONS``) and what the dealer is offered when it is
the next thing to do (``offer``).  ``controller.service.panel`` routes presses from ``ROUTES``;
``controller.service.status`` takes the per-phase ``next_action`` from ``offered``; ``check`` proves
every trigger of the machine is led to from here (or named ``INTERNAL``).  Pure: no I/O, no service.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from controller.round.state import TRANSITIONS, Phase
from games.facts import Cited
from games.game import Game
from games.registry import irregularity_clause

#: A condition of the table (not of the round) an action needs; the service answers each (``Panel.holds``).
Condition = Literal[
    "no_card_source",  # neither the shuffler nor a card-reading shoe is in service (P43)
    "no_seat_playing",  # no wager on the layout this round
    "shuffled_by_hand",  # no automated shuffler: a recut is possible (UTH ch.5 §G)
    "validation_held",  # a progressive win held for the supervisor's validation (UTH ch.11 §J(2))
    "device_trouble",  # a device is not answering now
]

#: The part method that performs an action (``part.method``); the panel binds each name to its method.
HandlerName = Literal[
    "wagers.no_more_bets",
    "life.no_play",
    "life.recut",
    "panel.count_confirmed",
    "panel.count_mismatch",
    "decisions.decide",
    "settling.deal_rest_and_settle",
    "progressive.validate",
    "life.close_round",
    "panel.resume",
]

#: ``Offer.why`` is a ``Game.cite`` key (the game's own clause), an irregularity of the game's chapter 13,
#: or a ruling cited as it is (the same at every game)
CitedAs = Literal["game", "irregularity", "ruling"]

#: the name of the action whose offer adds the seat to act and the buttons it may press (R1)
DECIDE = "decide"


@dataclass(frozen=True)
class Offer:
    """What ``next_action`` offers the dealer: the button that does it (None: no button does), whether
    the floor supervisor's key must be turned, and the clause."""

    button: str | None
    key: bool
    why: str
    cited: CitedAs = "game"


@dataclass(frozen=True)
class Action:
    phase: Phase | None  # None: served before the table, in any phase (``SERVED_FIRST``)
    name: str
    buttons: tuple[str, ...]  # the presses (``ButtonPress.button``) routed to it; () when no press is
    handler: HandlerName | None  # None: no handler of the table (the dealer waits, or the menu serves it)
    asks: str | None = None  # the round's question asked before acting (a ``RoundController.can_*``)
    leads_to: str | None = None  # the round's trigger the action leads to, if any
    when: Condition | None = None  # routed and offered only while this holds
    offer: Offer | None = None  # None: possible, never the next thing the dealer is asked to do


_W, _N, _D, _R = Phase.WAGERS, Phase.NO_MORE_BETS, Phase.DECISIONS, Phase.REVEAL
_S, _V, _H = Phase.SETTLED, Phase.VOIDED, Phase.HALTED


def _paid(phase: Phase, name: str, ruling: str) -> tuple[Action, Action]:
    """Settled or voided: a progressive win held is validated with the key first (UTH ch.11 §J(2)(c)); then
    the dealer pays and collects (or returns) as shown and confirms, and the next round opens."""
    return (
        Action(phase, "validate_progressive", ("confirm",), "progressive.validate", when="validation_held",
               offer=Offer("confirm", True, "progressive_validation")),
        Action(phase, name, ("confirm",), "life.close_round", asks="can_confirm", leads_to="finish",
               offer=Offer("confirm", False, ruling, "ruling")),
    )


#: Every action of the table, phase by phase; within a phase the first whose ``when`` holds is taken (a
#: press) or offered (``next_action``).  Phases not named (dealing, complete) have none: the deal waits on
#: the shoe, a completed round on the next.
ACTIONS: tuple[Action, ...] = (
    # no card source: the dealer reports it on the irregularity menu, the table waits (P43)
    Action(_W, "device_in_service", (), None, when="no_card_source",
           offer=Offer("irregularity", True, "in_service", "irregularity")),
    # the bet sensors read, the lock-out set and confirmed (UTH ch.8 §C)
    Action(_W, "no_more_bets", ("no_more_bets",), "wagers.no_more_bets", asks="can_close_wagers",
           leads_to="wagers_closed", offer=Offer("no_more_bets", False, "no_more_bets")),
    # no play at the table: idle, or closed with the key (UTH ch.5 §H)
    Action(_W, "no_play", ("shuffle",), "life.no_play", asks="can_void", leads_to="voided", when="no_seat_playing"),
    # a recut, with the key (UTH ch.5 §G; not with an automated shuffler)
    Action(_W, "recut", ("undo",), "life.recut", when="shuffled_by_hand"),
    # the progressive count matches the chips (UTH ch.8 §C(3)): cards are dealt
    Action(_N, "confirm_progressive_count", ("confirm",), "panel.count_confirmed",
           asks="can_confirm_progressive_count", leads_to="start_dealing",
           offer=Offer("confirm", False, "progressive_count")),
    # the count does not match: the round halts for the supervisor
    Action(_N, "progressive_count_mismatch", ("undo",), "panel.count_mismatch", asks="can_halt", leads_to="halt"),
    # the decision of the seat to act (R1); the last one leads to the reveal
    Action(_D, DECIDE, ("bet", "check", "fold"), "decisions.decide", asks="can_decide", leads_to="all_acted",
           offer=Offer(None, False, "R1", "ruling")),
    # every player has acted (a restart can leave the round here): the cards still to come, then the settlement
    Action(_R, "deal_and_settle", ("deal", "confirm"), "settling.deal_rest_and_settle", asks="can_settle",
           leads_to="settled", offer=Offer("confirm", False, "completion")),
    *_paid(_S, "pay_and_collect", "P65"),
    *_paid(_V, "return_wagers", "R7a"),
    # a halted round resumes with the key once the device is back (fail closed)
    Action(_H, "device_back", (), None, when="device_trouble", offer=Offer(None, False, "fail closed", "ruling")),
    Action(_H, "resume", ("confirm",), "panel.resume", asks="can_resume", leads_to="resume",
           offer=Offer("confirm", True, "fail closed", "ruling")),
)

#: every action's name in a person's words (web/words.py)
WORDS: dict[str, str] = {
    "device_in_service": "Report the device out of order on the irregularity menu",
    "no_more_bets": "No more bets",
    "no_play": "No play at the table",
    "recut": "Recut",
    "confirm_progressive_count": "Count the Progressive wagers and confirm",
    "progressive_count_mismatch": "The Progressive count does not match",
    DECIDE: "Player decides",
    "deal_and_settle": "Deal the rest and settle",
    "validate_progressive": "Validate the progressive win",
    "pay_and_collect": "Pay and collect",
    "return_wagers": "Return the wagers",
    "device_back": "Wait for the device to answer",
    "resume": "Resume the round",
    "void_round": "Void the round",
    "irregularity": "Irregularity",
}

#: Served before the table in any phase, with or without a round, by the panel itself (``Panel``, no handler
#: of the table): void_round with the key (R7a); the irregularity menu, which takes every press while open (P41).
SERVED_FIRST: tuple[Action, ...] = (
    Action(None, "void_round", ("void_round",), None, asks="can_void", leads_to="voided"),
    Action(None, "irregularity", ("irregularity",), None),
)

#: The round's triggers reached without a press of the table (some also with one): what the deal and devices report
INTERNAL: Mapping[str, str] = {
    "open_decisions": "every player's hole cards dealt (the deal)",
    "halt": "a device failed, or an irregularity the dealer must resolve (the remedies)",
    "voided": "a remedy of the game's chapter 13 voids the round (R7a)",
    "all_acted": "the last player to act left the table (UTH ch.7 §C(2))",
}

#: (phase, button) -> the actions that press may take there, in the order they are tried
ROUTES: dict[tuple[Phase, str], tuple[Action, ...]] = {}
for _a in ACTIONS:
    assert _a.phase is not None
    for _b in _a.buttons:
        ROUTES[(_a.phase, _b)] = (*ROUTES.get((_a.phase, _b), ()), _a)
del _a, _b

CONDITIONS: tuple[Condition, ...] = get_args(Condition)
HANDLERS: tuple[HandlerName, ...] = get_args(HandlerName)


def in_phase(phase: Phase) -> tuple[Action, ...]:
    return tuple(a for a in ACTIONS if a.phase is phase)


def route(phase: Phase, button: str, holds: Callable[[Condition], bool]) -> Action | None:
    """The action a press of ``button`` takes in ``phase``, or None (it does nothing there)."""
    return next((a for a in ROUTES.get((phase, button), ()) if a.when is None or holds(a.when)), None)


def offered(phase: Phase, holds: Callable[[Condition], bool]) -> Action | None:
    """The action the dealer is offered next in ``phase`` (its ``offer``), or None: nothing to press."""
    return next((a for a in in_phase(phase) if a.offer is not None and (a.when is None or holds(a.when))), None)


def cite(offer: Offer, game: Game) -> str:
    """The offer's clause as the game cites it (``Game.cite``; its chapter 13's; a ruling as it is)."""
    if offer.cited == "game":
        return game.cite(cast(Cited, offer.why))  # a TableClauses field (tests/test_actions.py)
    if offer.cited == "irregularity":
        return irregularity_clause(game, offer.why)
    return offer.why


def decision_buttons(choices: Mapping[str, Any]) -> list[str]:
    """The panel buttons the seat to act may press (its ``choices``: the multiples of its Ante allowed,
    check, fold; R1, UTH ch.11): ``bet_Nx`` is a ``bet`` press of multiple N."""
    buttons = [f"bet_{m}x" for m in choices.get("multiples", ())]
    buttons += ["check"] if choices.get("check") else []
    buttons += ["fold"] if choices.get("fold") else []
    return buttons


def _sources(t: Mapping[str, Any]) -> set[Phase]:
    src = t["source"]
    return {Phase(s) for s in (src if isinstance(src, list) else [src])}


def check(transitions: Iterable[Mapping[str, Any]] = TRANSITIONS) -> list[str]:
    """Where the declaration and the round's transitions disagree (empty when they agree): every trigger
    is led to by a declared action or named ``INTERNAL``; every declared trigger is a transition out of
    the phase the action is declared in."""
    sources: dict[str, set[Phase]] = {}
    for t in transitions:
        sources.setdefault(str(t["trigger"]), set()).update(_sources(t))
    problems: list[str] = []
    led = {a.leads_to for a in (*ACTIONS, *SERVED_FIRST) if a.leads_to} | set(INTERNAL)
    problems += [f"trigger {t!r}: no action leads to it" for t in sorted(set(sources) - led)]
    for a in (*ACTIONS, *SERVED_FIRST):
        if a.leads_to is None:
            continue
        if a.leads_to not in sources:
            problems.append(f"{a.name}: leads to {a.leads_to!r}, not a transition of the round")
        elif a.phase is not None and a.phase not in sources[a.leads_to]:
            problems.append(f"{a.name}: {a.leads_to!r} does not leave {a.phase.value}")
    problems += [f"internal trigger {t!r}: not a transition of the round" for t in sorted(set(INTERNAL) - set(sources))]
    problems += [f"{a.name}: {a.offer.why!r} is no clause every game cites (Game.cite)" for a in ACTIONS
                 if a.offer is not None and a.offer.cited == "game" and a.offer.why not in get_args(Cited)]
    return problems
