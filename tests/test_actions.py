"""One declaration of what can happen now (controller.round.actions): the round's transitions, the panel's
routes and the status's ``next_action`` agree with it, for every phase of every game."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

import pytest

from controller import events as ev
from controller.config.table import load_config
from controller.daemon import TableDaemon
from controller.progressive.hits import Hit
from controller.round import actions
from controller.round.machine import Phase, RoundController
from controller.round.state import TRANSITIONS, NoJournal
from controller.table import round_setup
from drivers.panel import BET_MULTIPLES, ButtonPress
from drivers.registers import BUTTONS
from games.registry import GAMES

ROOT = Path(__file__).resolve().parent.parent
DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
#: the table's conditions the parts answer from their own state (the others follow the round and the table)
SET_BY_PARTS = ("no_card_source", "validation_held", "device_trouble")


def press_of(button: str) -> str:
    """The press a panel button makes (``ButtonPress.button``): ``bet_Nx`` is a ``bet`` of multiple N."""
    return "bet" if button in BET_MULTIPLES else button


async def round_in(phase: Phase, setup) -> RoundController:
    """A round of the game played to ``phase`` through the round's own actions (one seat, no journal)."""
    r = await RoundController.open("r", setup, NoJournal())
    cards = iter(DECK)
    if phase in (Phase.HALTED, Phase.VOIDED):
        await (r.halt_round("a test") if phase is Phase.HALTED else r.void("a test"))
        return r
    if phase is Phase.WAGERS:
        return r
    for ante in r.game.antes:
        await r.place_wager(1, ante, Decimal(10))
    await r.announce_no_more_bets()
    if phase is Phase.NO_MORE_BETS:
        return r
    await r.confirm_progressive_count(0)
    if phase is Phase.DEALING:
        return r
    while r.phase is Phase.DEALING:
        await r.card(r.missing_cards()[0], next(cards))
    if phase is Phase.DECISIONS:
        return r
    while r.phase is Phase.DECISIONS:
        if r.street_cards_missing():
            await r.card(next(p for p in r.missing_cards() if p.startswith("community")), next(cards))
            continue
        c = r.choices()
        if c["check"] or c["fold"]:
            await r.decide(c["seat"], check=c["check"], fold=not c["check"])
        else:
            await r.decide(c["seat"], multiple=c["multiples"][0])
    if phase is Phase.REVEAL:
        return r
    for place in r.missing_cards():
        await r.card(place, next(cards))
    await r.settle()
    if phase is Phase.SETTLED:
        return r
    await r.confirm()
    assert phase is Phase.COMPLETE
    return r


@contextmanager
def daemon_of(game: str, tmp_path: Path, monkeypatch) -> Iterator[TableDaemon]:
    """The game's example table's daemon, not started, its opening steps done (nothing of the table's life due)."""
    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / f"{game}.journal"))
    d = TableDaemon(load_config(ROOT / "config" / f"{game}.toml"))
    for step in list(d.life.required):
        deck = {"deck": "A", "count": 52} if step.startswith("shuffled") else {}
        d.life.record(ev.StepDone(step=step, **deck))
    assert d.life.next_step() is None
    try:
        yield d
    finally:
        d.journal.close()


#: a progressive win held for validation (UTH ch.11 §J(2)): seat 1's royal flush, from the meter
HELD = Hit(index=0, seat=1, wager="progressive", line="royal_flush", amount=Decimal("10000.48"), meter="progressive")


def set_conditions(d: TableDaemon, held: set[str]) -> None:
    p = d
    p.devices.no_card_source = "the shoe is out of order and no shuffler is in service" if "no_card_source" in held \
        else None
    p.progressive.validation = [HELD] if "validation_held" in held else []
    p.devices.trouble = "shoe not answering" if "device_trouble" in held else None


def test_the_declaration_and_the_rounds_transitions_agree():
    assert actions.check() == []
    # the check can fail: a transition no action leads to, and an action leading to a transition removed
    extra = [*TRANSITIONS, {"trigger": "skip_ahead", "source": Phase.WAGERS, "dest": Phase.COMPLETE}]
    assert actions.check(extra) == ["trigger 'skip_ahead': no action leads to it"]
    without = [t for t in TRANSITIONS if t["trigger"] != "settled"]
    assert actions.check(without) == ["deal_and_settle: leads to 'settled', not a transition of the round"]
    moved = [{**t, "source": Phase.SETTLED} if t["trigger"] == "start_dealing" else t for t in TRANSITIONS]
    assert actions.check(moved) == ["confirm_progressive_count: 'start_dealing' does not leave no_more_bets"]


def test_every_handler_and_condition_declared_is_the_panels_and_only_those(tmp_path, monkeypatch):
    with daemon_of("ultimate_texas_holdem", tmp_path, monkeypatch) as d:
        panel = d.panel
        assert set(panel.handlers()) == set(actions.HANDLERS)
        assert {a.handler for a in actions.ACTIONS if a.handler} == set(actions.HANDLERS)  # none bound and unused
        assert set(panel.routes) == set(actions.ROUTES)
        d.session.round = asyncio.run(round_in(Phase.WAGERS, round_setup(d.cfg, d.session.meters)))
        for condition in actions.CONDITIONS:
            assert panel.holds(condition) in (True, False)  # each one answered (an unknown one raises)
        with pytest.raises(AssertionError):
            panel.holds("no_such_condition")  # type: ignore[arg-type]


def test_each_handler_name_is_bound_to_the_method_it_names(tmp_path, monkeypatch):
    """``part.method``: the panel binds each name to that part's method (the panel's own: its ``_method``)."""
    with daemon_of("run_em_twice", tmp_path, monkeypatch) as d:
        panel = d.panel
        called: list[str] = []

        def recorder(name: str):
            async def record(*args) -> None:
                called.append(name)
            return record

        for name in actions.HANDLERS:
            part, method = name.split(".")
            obj = panel if part == "panel" else getattr(panel, part)  # the part the panel was given
            attr = method if part != "panel" else f"_{method}"
            assert callable(getattr(obj, attr))
            monkeypatch.setattr(obj, attr, recorder(name))
        for name, handler in panel.handlers().items():
            called.clear()
            asyncio.run(handler(ButtonPress.of("confirm")))
            assert called == [name]


@pytest.mark.parametrize("phase", list(Phase))
@pytest.mark.parametrize("game", sorted(GAMES))
def test_routes_triggers_and_next_action_agree_with_the_declaration(game, phase, tmp_path, monkeypatch):
    with daemon_of(game, tmp_path, monkeypatch) as d:
        r = asyncio.run(round_in(phase, round_setup(d.cfg, d.session.meters)))
        assert r.phase is phase
        d.session.round = r
        panel, status = d.panel, d.status_file
        declared = actions.in_phase(phase)
        # the round: each action's trigger leaves this phase; each question it asks is the round's, and not
        # refused for the phase
        triggers = r.machine.get_triggers(phase)
        for a in declared:
            assert a.leads_to is None or a.leads_to in triggers, (a.name, triggers)
            if a.asks is not None:
                answer = getattr(r, a.asks)(*ASKED.get(a.asks, ()))
                assert answer.code != "phase", (a.name, answer)
        offers_seen: set[str] = set()
        for held in itertools.chain.from_iterable(itertools.combinations(SET_BY_PARTS, n) for n in range(4)):
            set_conditions(d, set(held))
            # the panel: a press is routed exactly when an action is declared for it here, to that action's handler
            for button in BUTTONS:
                press = press_of(button)
                action = actions.route(phase, press, panel.holds)
                handler = panel.route(phase, press)
                assert (handler is None) == (action is None), (phase, press, held)
                if action is not None:
                    assert press in action.buttons and action.phase is phase
                    i = actions.ROUTES[(phase, press)].index(action)
                    assert handler is panel.routes[(phase, press)][i][1]
            # next_action: the action offered, its button routed here (or served before the table), its clause
            na = status.next_action()
            offered = actions.offered(phase, panel.holds)
            if offered is None:
                assert na is None
                continue
            assert offered.offer is not None and offered in declared
            if offered.name == actions.DECIDE:
                assert na is not None and na["seat"] == r.to_act().seat
                assert na["buttons"]
                for button in na["buttons"]:
                    assert button in BUTTONS and panel.route(phase, press_of(button)) is not None
            assert na is not None
            offers_seen.add(na["action"])
            assert (na["action"], na["button"], na["key"], na["why"]) == (
                offered.name, offered.offer.button, offered.offer.key, actions.cite(offered.offer, r.game))
            if na["button"] is not None:
                served_first = {b for a in actions.SERVED_FIRST for b in a.buttons}
                assert na["button"] in served_first or panel.route(phase, na["button"]) is not None
        # every action offered in this phase is offered under some condition
        assert offers_seen == {a.name for a in declared if a.offer is not None}


#: arguments that pass the phase gate of each question the declaration names (the rest ask without)
ASKED: dict[str, tuple] = {
    "can_close_wagers": ([],),
    "can_confirm_progressive_count": (0,),
    "can_decide": (1,),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_offer_cites_a_clause_of_every_game(game):
    for a in actions.ACTIONS:
        if a.offer is not None:
            assert actions.cite(a.offer, GAMES[game])  # Game.cite refuses a clause the game does not print


def test_decision_buttons_are_the_choices_on_the_panel():
    uth_before_the_flop = {"multiples": [4, 3], "check": True, "fold": False}
    assert actions.decision_buttons(uth_before_the_flop) == ["bet_4x", "bet_3x", "check"]
    assert actions.decision_buttons({"multiples": [1], "check": False, "fold": True}) == ["bet_1x", "fold"]
    assert actions.decision_buttons({}) == []


#: next_action at Ultimate Texas Hold 'Em, phase by phase (and as the parts' conditions change it), exactly as
#: the dealer's screen and the tests read it.  Seat 1 has a $10 Ante and Blind (``round_in``).
_VALIDATE = {"action": "validate_progressive", "button": "confirm", "key": True, "why": "UTH ch.11 §J(2)(c)",
             "hits": [{"hit": 0, "seat": 1, "wager": "progressive", "line": "royal_flush", "amount": "10000.48",
                       "meter": "progressive"}],
             "steps": [{"n": 1, "do": "verify_hand", "clause": "UTH ch.11 §J(2)(a)", "seats": [1]},
                       {"n": 2, "do": "verify_light", "clause": "UTH ch.11 §J(2)(b)", "seats": [1]},
                       {"n": 3, "do": "supervisor_validates", "clause": "UTH ch.11 §J(2)(c)", "button": "confirm",
                        "key": True},
                       {"n": 4, "do": "pay_progressive", "clause": "UTH ch.11 §J(2)(d)", "seats": [1]}]}
_RESUME = [{"n": 1, "do": "call_floor", "clause": None},
           {"n": 2, "do": "resume_with_key", "clause": None, "button": "confirm", "key": True},
           {"n": 3, "do": "or_void_round", "clause": "R7a", "button": "void_round", "key": True}]
_PASS = {"n": 1, "clause": "UTH ch.11 §H-§J", "wagers": ["ante", "blind"], "seats": [1]}
UTH_NEXT: dict[tuple[Phase, str | None], dict | None] = {
    (Phase.WAGERS, None): {"action": "no_more_bets", "button": "no_more_bets", "key": False, "why": "UTH ch.8 §C"},
    (Phase.WAGERS, "no_card_source"): {"action": "device_in_service", "button": "irregularity", "key": True,
                                       "why": "UTH ch.13 §J"},
    (Phase.NO_MORE_BETS, None): {"action": "confirm_progressive_count", "button": "confirm", "key": False,
                                 "why": "UTH ch.8 §C(3)"},
    (Phase.DEALING, None): None,
    (Phase.DECISIONS, None): {
        "action": "decide", "button": None, "key": False, "why": "R1", "seat": 1,
        "buttons": ["bet_4x", "bet_3x", "check"],
        "choices": [
            {"button": "check", "decision": "check", "amount": "0.00", "clause": "UTH ch.11 §B(1)"},
            {"button": "bet_4x", "decision": "play", "wager": "play", "multiple": 4, "amount": "40.00",
             "clause": "UTH ch.11 §B(1)"},
            {"button": "bet_3x", "decision": "play", "wager": "play", "multiple": 3, "amount": "30.00",
             "clause": "UTH ch.11 §B(1)"}]},
    (Phase.REVEAL, None): {"action": "deal_and_settle", "button": "confirm", "key": False, "why": "UTH ch.11"},
    (Phase.SETTLED, None): {"action": "pay_and_collect", "button": "confirm", "key": False, "why": "P65",
                            "passes": [_PASS], "paying": _PASS},
    (Phase.SETTLED, "validation_held"): _VALIDATE,
    (Phase.VOIDED, None): {"action": "return_wagers", "button": "confirm", "key": False, "why": "R7a",
                           "passes": [], "paying": None,
                           "steps": [{"n": 1, "do": "return_all_wagers", "clause": "R7a"},
                                     {"n": 2, "do": "reshuffle", "clause": "R7a"}]},
    (Phase.VOIDED, "validation_held"): _VALIDATE,
    (Phase.HALTED, None): {"action": "resume", "button": "confirm", "key": True, "why": "fail closed",
                           "steps": _RESUME},
    (Phase.HALTED, "device_trouble"): {"action": "device_back", "button": None, "key": False, "why": "fail closed",
                                       "steps": [_RESUME[0], {"n": 2, "do": "fix_device", "clause": None,
                                                              "device": "shoe"},
                                                 *({**s, "n": s["n"] + 1} for s in _RESUME[1:])]},
    (Phase.COMPLETE, None): None,
}


@pytest.mark.parametrize("phase", list(Phase))
def test_next_action_is_the_same_json_as_before(phase, tmp_path, monkeypatch):
    with daemon_of("ultimate_texas_holdem", tmp_path, monkeypatch) as d:
        d.session.round = asyncio.run(round_in(phase, round_setup(d.cfg, d.session.meters)))
        for (at, held), expected in UTH_NEXT.items():
            if at is phase:
                set_conditions(d, {held} if held else set())
                na = d.status_file.next_action()
                assert na == expected and (na is None or list(na)[:4] == ["action", "button", "key", "why"])
