"""Every fault the simulated shoe and shuffler can inject, end to end through the daemon, per game.

One simulated table per test (tests/daemon_harness.py, in process: the daemon, the simulators over
their real protocols, a scripted dealer, the table-driving helpers).  The example configurations
decide which device deals: UTH (stacks from the shuffler, the dealer's two held in it) and JHE (dealt
by hand, one card at a time from the shuffler) use the shuffler; HCF (automated card-reading shoe)
and RET (manual card-reading shoe) the shoe.  Each case checks the remedy the daemon applies (P40;
docs/irregularities.md):

* what the status tells the dealer (the clause), and the round's journal: voided once, with the
  clause in its reason, nothing kept alive, closed as ``round_voided`` once the dealer confirmed,
  the progressive contribution taken back (the round's ``meter_add`` sum to 0, R7a);
* ``deck_removed`` when the deck may hold a card of another deck (ch.5 §E, ch.8 §G(2));
* the next step the daemon requires, and that play continues: a new round reaches its wagers.

The only cards named are the ones a test scripts itself; positions are those of the simulators
(cards since the shuffle or the load, from 1).  One player, at seat 2, with the table minimum on
each Ante and one progressive wager.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

import pytest

from daemon_harness import (
    at_rest,
    bet,
    clause_id,
    confirm,
    deal,
    deal_a_round,
    first_round,
    meter_sum,
    next_round,
    no_more_bets,
    phase,
    play_out,
    quick_faults,
    table_in_process,
    told,
)
from daemon_harness import journal as _journal
from daemon_harness import round_id as _round_id
from demo.dealer import SUPERVISOR_ID
from games.cards import DECK
from games.registry import GAMES as RULES

GAMES = {g.short: g.name for g in RULES.values()}  # every game the table runs, by its short name
CARD_DEVICE = {"UTH": "shuffler", "JHE": "shuffler", "HCF": "shoe", "RET": "shoe"}
KEY = "supervisor 4711"  # Dealer.with_key turns the key of supervisor 4711


@pytest.fixture(autouse=True)
def _quick_faults(monkeypatch):
    """The Modbus devices' faults found in a third of the product's time (daemon_harness.quick_faults)."""
    quick_faults(monkeypatch)

# The clauses, per game (chapter 13 is numbered differently in each; JHE per RULINGS R10).
FACE_UP = {"UTH": "UTH ch.13 §B", "JHE": "JHE ch.13 §B", "HCF": "HCF ch.13 §B", "RET": "RET ch.13 §A"}
DEAL_FAILED = {"UTH": "UTH ch.13 §I", "JHE": "JHE ch.13 §I", "HCF": "HCF ch.13 §H", "RET": "RET ch.13 §D"}
SHUFFLE_FAILED = {"UTH": "UTH ch.13 §H", "JHE": "JHE ch.13 §H"}
STUB_COUNT = {"RET": "RET ch.8"}
# the shuffler counts other than 52 cards: the deck is removed (RET ch.5 prints it under §B, HCF under §C)
DECK_COUNT = {"UTH": "UTH ch.5 §E", "JHE": "JHE ch.5 §E", "HCF": "HCF ch.5 §C", "RET": "RET ch.5 §B"}


def _opening_steps(game: str) -> list[str]:
    """ch.4 §A-§E, ch.5 §A-§F: each deck inspected, verified, spread/washed/stacked and shuffled
    (UTH: two decks, ch.3 §B, ch.4 §E); a deck shuffled by hand is also cut (ch.5 §D(2), §F)."""
    steps = ["decks_inspected", "inspection_verified", "cards_spread_washed_stacked", "shuffled"]
    if game == "UTH":
        return [f"{step}:{deck}" for deck in "AB" for step in steps]
    return steps + (["cards_cut"] if CARD_DEVICE[game] == "shoe" else [])


def _between_rounds(game: str) -> list[str]:
    """ch.5 §A(2): the automated shuffler shuffles by itself; without one the cards are shuffled and cut."""
    return ["shuffled", "cards_cut"] if CARD_DEVICE[game] == "shoe" else []


# ---------------------------------------------------------------------------------------------- helpers


def _assert_voided(events, cites: str) -> None:
    """Voided once citing ``cites``, nothing kept alive, closed as voided, the contribution taken back."""
    kinds = [e.kind for e in events]
    voided = [e.data for e in events if e.kind == "voided"]
    assert len(voided) == 1, kinds
    assert cites in voided[0]["reason"], voided[0]["reason"]
    assert voided[0]["keep"] == []  # every wager returned (R7a)
    assert "settled" not in kinds and "round_closed" not in kinds
    assert kinds.count("round_voided") == 1 and kinds[-1] == "round_voided", kinds
    assert kinds.count("meter_add") == 2  # the progressive contribution, then taken back
    assert all(v == 0 for v in meter_sum(events).values()), meter_sum(events)


def _dealt(events) -> list[str]:
    return [e.data["card"] for e in events if e.kind in ("card", "card_discarded")]


# ------------------------------------------------------------------------ card faults while dealing


@dataclass(frozen=True)
class Deal:
    game: str
    fault: str  # test id
    arm: tuple[tuple[str, dict], ...]  # control commands to the game's card device before the deal
    cites: str  # in the status's told (its clauses; a card of another deck: its cause) and the journaled reason
    remove: bool = False  # the deck leaves the table
    fix: tuple[tuple[str, dict], ...] = ()  # what the dealer does to the device after the void
    why: str = field(default="", compare=False)

    @property
    def id(self) -> str:
        return f"{self.game}-{self.fault}"


def _at(fault: str, at) -> tuple[tuple[str, dict], ...]:
    return (("fault", {"fault": fault, "at": at}),)


JAM = (("fault", {"fault": "jam"}),)
CLEAR = (("clear", {}),)
DOOR = (("door", {"open": True}),)
ANOTHER_DECK = "a card from another deck"  # the reason of a duplicate card (the deck is removed: ch.5 §E, ch.8 §G(2))

# UTH, one seat, stacks (UTH ch.10 §B): Six Card Bonus box 1-4, community 5-9, the dealer's 10-11 held
# in the shuffler (§B(4)), seat 2 12-13.  JHE by hand (JHE ch.9 §B): seat 2 1, dealer 2, seat 2 3,
# dealer 4, community 5-9.  HCF (HCF ch.10 §B): seat 2's seven 1-7, the dealer's seven 8-14.  RET
# (RET ch.8 §D): the cross 1-5, seat 2 6-7.
DEAL_FAULTS = [
    Deal("UTH", "jam-next-card", JAM, DEAL_FAILED["UTH"], fix=CLEAR),
    Deal("UTH", "jam-in-the-held-dealer-stack", _at("jam", 10), DEAL_FAILED["UTH"], fix=CLEAR),
    Deal("UTH", "face_up-in-a-stack", _at("face_up", 3), FACE_UP["UTH"], why="P35: a stack cannot skip a card"),
    Deal("UTH", "two-face_up", _at("face_up", [6, 12]), FACE_UP["UTH"]),
    Deal("UTH", "face_up-in-the-held-dealer-stack", _at("face_up", 11), FACE_UP["UTH"]),
    Deal("UTH", "duplicate", _at("duplicate", 7), ANOTHER_DECK, remove=True),
    Deal("UTH", "unreadable", _at("unreadable", 12), DEAL_FAILED["UTH"]),
    Deal("UTH", "door-open", DOOR, DEAL_FAILED["UTH"], fix=(("door", {"open": False}),)),
    Deal("JHE", "jam-next-card", JAM, DEAL_FAILED["JHE"], fix=CLEAR),
    Deal("JHE", "jam-at-a-dealer-card", _at("jam", 4), DEAL_FAILED["JHE"], fix=CLEAR),
    Deal("JHE", "two-face_up", _at("face_up", [2, 6]), FACE_UP["JHE"]),
    Deal("JHE", "duplicate", _at("duplicate", 5), ANOTHER_DECK, remove=True),
    Deal("JHE", "unreadable", _at("unreadable", 3), DEAL_FAILED["JHE"]),
    Deal("JHE", "door-open", DOOR, DEAL_FAILED["JHE"], fix=(("door", {"open": False}),)),
    Deal("HCF", "jam-next-draw", JAM, DEAL_FAILED["HCF"]),
    Deal("HCF", "jam-at-a-seat-card", _at("jam", 5), DEAL_FAILED["HCF"]),
    Deal("HCF", "empty", (("fault", {"fault": "empty"}),), DEAL_FAILED["HCF"]),
    Deal("HCF", "two-face_up", _at("face_up", [3, 9]), FACE_UP["HCF"]),
    Deal("HCF", "duplicate", _at("duplicate", 4), ANOTHER_DECK, remove=True),
    Deal("HCF", "unreadable", _at("unreadable", 6), DEAL_FAILED["HCF"]),
    Deal("RET", "jam-next-draw", JAM, DEAL_FAILED["RET"]),
    Deal("RET", "jam-at-a-cross-card", _at("jam", 4), DEAL_FAILED["RET"]),
    Deal("RET", "empty", (("fault", {"fault": "empty"}),), DEAL_FAILED["RET"]),
    Deal("RET", "face_up", _at("face_up", 2), FACE_UP["RET"], why="RET ch.13 §A: the first voids"),
    Deal("RET", "two-face_up", _at("face_up", [2, 4]), FACE_UP["RET"]),
    Deal("RET", "duplicate", _at("duplicate", 6), ANOTHER_DECK, remove=True),
    Deal("RET", "unreadable", _at("unreadable", 3), DEAL_FAILED["RET"]),
]


@pytest.mark.parametrize("case", DEAL_FAULTS, ids=lambda c: f"{c.id}({clause_id(c.cites)})")
def test_a_card_device_fault_while_dealing_voids_the_round(case: Deal, tmp_path, monkeypatch):
    """P40: the rule leaves nobody a choice, so the daemon voids at once and tells the dealer.

    Face up: UTH/JHE/HCF ch.13 §B (a second card; a shuffler stack cannot skip one, P35), RET ch.13 §A
    (the first).  Jam, empty, door open, a card nobody can read: the device failed to deal (UTH/JHE
    ch.13 §I, HCF §H, RET §D).  A card read twice is a card of another deck: void, and the deck leaves
    the table (ch.5 §E, ch.8 §G(2)) -- new decks go through the opening steps.
    """
    device = CARD_DEVICE[case.game]
    with table_in_process(GAMES[case.game], tmp_path, monkeypatch) as t:
        s = first_round(t)
        if device == "shoe":
            t.controls["shoe"]("load", seed=7)
        for cmd, args in case.arm:
            t.controls[device](cmd, **args)
        round_id = bet(t, s)
        no_more_bets(t)
        deal(t)
        s = play_out(t)  # the held dealer stack's fault shows when it is released, after the decisions
        assert phase(s) == "voided", s["message"]
        said = told(s)
        cites = "card_of_another_deck" if case.cites == ANOTHER_DECK else case.cites
        assert said["kind"] == "irregularity" and cites in (said["cause"], *said["clauses"]), s["message"]
        assert said["remove_deck"] == case.remove, s["message"]
        for cmd, args in case.fix:
            t.controls[device](cmd, **args)
        s = confirm(t)
        assert _round_id(s) != round_id, s["message"]
        steps, s = next_round(t, round_id)
        if case.remove:
            assert steps == _opening_steps(case.game)  # new decks, inspected and verified (ch.4)
        else:
            assert steps == _between_rounds(case.game)  # reshuffled (by the shuffler itself, or by hand and cut)
    events, table = _journal(t, round_id)
    _assert_voided(events, case.cites)
    removed = [e.data for e in table if e.kind == "deck_removed" and e.data.get("round") == round_id]
    assert len(removed) == case.remove, removed
    cards = _dealt(events)
    assert len(cards) == len(set(cards))  # no card taken twice into the round


# ------------------------------------------------------------------------ a first face-up card


@pytest.mark.parametrize("game,at", [("JHE", 2), ("HCF", 3)], ids=["JHE-face_up-by-hand(JHE-ch13-A)",
                                                                   "HCF-face_up-from-the-shoe(HCF-ch13-A)"])
def test_a_first_face_up_card_is_not_used_and_the_round_goes_on(game, at, tmp_path, monkeypatch):
    """JHE/HCF ch.13 §A: one card found face up is not used (discard rack, journaled) and dealing
    continues; the round settles as usual (HCF: the stub count counts the discarded card)."""
    device = CARD_DEVICE[game]
    with table_in_process(GAMES[game], tmp_path, monkeypatch) as t:
        s = first_round(t)
        if device == "shoe":
            t.controls["shoe"]("load", seed=7)
        t.controls[device]("fault", fault="face_up", at=at)
        round_id = bet(t, s)
        no_more_bets(t)
        s = deal(t)
        assert phase(s) == "decisions", s["message"]
        s = play_out(t)
        assert phase(s) == "settled", s["message"]
        s = confirm(t)
        next_round(t, round_id)
    events, _ = _journal(t, round_id)
    kinds = [e.kind for e in events]
    assert kinds.count("card_discarded") == 1 and "voided" not in kinds and "halted" not in kinds, kinds
    assert kinds[-1] == "round_closed"
    cards = _dealt(events)
    discarded = next(e.data["card"] for e in events if e.kind == "card_discarded")
    assert len(cards) == len(set(cards)) and cards.index(discarded) == at - 1  # the face-up card, never used


# ------------------------------------------------------------------------ the shuffle between rounds


@dataclass(frozen=True)
class Shuffle:
    game: str
    fault: str
    arm: tuple[str, dict]
    fix: tuple[tuple[str, dict], ...] = ()
    count: int | None = None  # a count other than 52: the deck is removed


SHUFFLE_FAULTS = [
    Shuffle("UTH", "jam", ("fault", {"fault": "jam"}), fix=CLEAR),
    Shuffle("UTH", "shuffle_incomplete", ("fault", {"fault": "shuffle_incomplete"})),
    Shuffle("UTH", "door_open", ("fault", {"fault": "door_open"}), fix=(("door", {"open": False}),)),
    Shuffle("UTH", "count-51", ("fault", {"fault": "count", "count": 51}), count=51),
    Shuffle("JHE", "jam", ("fault", {"fault": "jam"}), fix=CLEAR),
    Shuffle("JHE", "shuffle_incomplete", ("fault", {"fault": "shuffle_incomplete"})),
    Shuffle("JHE", "door_open", ("fault", {"fault": "door_open"}), fix=(("door", {"open": False}),)),
    Shuffle("JHE", "count-53", ("fault", {"fault": "count", "count": 53}), count=53),
]


def _shuffle_id(c: Shuffle) -> str:
    return f"{c.game}-{c.fault}({clause_id('ch.5 §E' if c.count else SHUFFLE_FAILED[c.game])})"


@pytest.mark.parametrize("case", SHUFFLE_FAULTS, ids=_shuffle_id)
def test_a_failed_shuffle_between_rounds_deals_no_round(case: Shuffle, tmp_path, monkeypatch):
    """UTH/JHE ch.13 §H: a shuffler that jams, stops or does not complete the shuffle deals nothing;
    the cards are shuffled again (the required step "shuffled").  ch.5 §E: a count other than 52
    removes the deck; new decks go through the opening steps."""
    with table_in_process(GAMES[case.game], tmp_path, monkeypatch) as t:
        round_id, s = deal_a_round(t)
        s = play_out(t)
        assert phase(s) == "settled", s["message"]
        t.controls["shuffler"](case.arm[0], **case.arm[1])  # every card of the round is out: this hits the shuffle
        s = confirm(t)  # the round closes, the shuffler shuffles for the next one
        assert s["round"] is None, s["message"]
        if case.count:
            assert s["next_step"]["step"].startswith("decks_inspected"), s["message"]
            assert told(s)["kind"] == "deck_count" and told(s)["counts"] == {"deck": case.count}, s["message"]
            assert told(s)["clauses"] == [DECK_COUNT[case.game]] and told(s)["remove_deck"], s["message"]
        else:
            assert s["next_step"]["step"] == "shuffled", s["message"]
            assert told(s)["kind"] == "shuffle_failed", s["message"]
            assert told(s)["clauses"] == [SHUFFLE_FAILED[case.game]], s["message"]
        s = t.press_refused("no_more_bets")  # no round from that deck: its step first (unchanged, checked)
        assert s["round"] is None and s["next_step"]
        for cmd, args in case.fix:
            t.controls["shuffler"](cmd, **args)
        steps, s = next_round(t, round_id)
        assert steps == (_opening_steps(case.game) if case.count else ["shuffled"])
    events, table = _journal(t, round_id)
    assert [e.kind for e in events][-1] == "round_closed"  # the round itself was dealt and settled
    removed = [e.data for e in table if e.kind == "deck_removed"]
    if case.count:
        assert len(removed) == 1 and removed[0]["count"] == case.count
        assert removed[0]["clause"] == DECK_COUNT[case.game]
    else:
        assert removed == []
        required = [e.data for e in table if e.kind == "steps_required" and e.data["steps"] == ["shuffled"]]
        assert len(required) == 1 and SHUFFLE_FAILED[case.game] in required[0]["why"]


def test_a_jammed_shuffler_is_journaled_once_with_its_count(tmp_path, monkeypatch):
    """Issue 30 (10): a shuffler that jammed (574 failed shuffles) left nothing in the journal.  Now the
    first failure of an episode is journaled (``device_fault``, UTH ch.13 §H), the repeats are counted, and
    the shuffle that works again journals the episode's end with the count (``device_fault_ended``)."""
    tries = 4
    with table_in_process(GAMES["UTH"], tmp_path, monkeypatch) as t:
        round_id, s = deal_a_round(t)
        s = play_out(t)
        t.controls["shuffler"]("fault", fault="jam")
        s = confirm(t)  # the round closes; the shuffle for the next one jams (the 1st failure)
        for n in range(2, tries + 1):  # the dealer tries again without clearing the jam
            assert s["next_step"]["step"] == "shuffled" and told(s)["kind"] == "shuffle_failed", s["message"]
            told_before = told(s)["n"]
            t.press(s["next_step"]["button"], key=s["next_step"]["key"])
            s = t.until(lambda s, before=told_before: told(s)["n"] > before, f"shuffle failure {n} told")
            assert told(s)["kind"] == "shuffle_failed", s["message"]
        for cmd, args in CLEAR:
            t.controls["shuffler"](cmd, **args)
        steps, s = next_round(t, round_id)
        assert steps == ["shuffled"]
    _, table = _journal(t, round_id)
    faults = [e.data for e in table if e.kind == "device_fault"]
    ended = [e.data for e in table if e.kind == "device_fault_ended"]
    assert len(faults) == 1 and faults[0]["device"] == "shuffler" and faults[0]["clause"] == SHUFFLE_FAILED["UTH"]
    assert ended == [{"device": "shuffler", "fault": faults[0]["fault"], "count": tries}]


# ------------------------------------------------------------------------ devices that stop answering


@dataclass(frozen=True)
class Offline:
    game: str
    mode: str  # unplug mode: "silent" (nothing answered) or "close" (the connection dropped)
    then: str  # "resume": the supervisor resumes once it is back; "void_round": the supervisor voids

    @property
    def id(self) -> str:
        return f"{self.game}-{CARD_DEVICE[self.game]}-unplugged-{self.mode}-then-{self.then}"


OFFLINE_WHILE_DEALING = [
    Offline("UTH", "silent", "resume"),
    Offline("JHE", "close", "void_round"),
    Offline("HCF", "silent", "resume"),
    Offline("RET", "close", "void_round"),
]


@pytest.mark.parametrize("case", OFFLINE_WHILE_DEALING, ids=lambda c: c.id)
def test_a_card_device_that_stops_answering_while_dealing_halts_the_round(case: Offline, tmp_path, monkeypatch):
    """Fail closed: the round halts, the dealer is told; resuming needs the device back and the
    supervisor's key.  A deal cut short cannot be trusted: resumed, it is void (UTH/JHE ch.13 §I, HCF
    §H, RET §D); or the supervisor voids it with the key (R7a)."""
    device = CARD_DEVICE[case.game]
    with table_in_process(GAMES[case.game], tmp_path, monkeypatch) as t:
        s = first_round(t)
        if device == "shoe":
            t.controls["shoe"]("load", seed=7)
        round_id = bet(t, s)
        no_more_bets(t)
        t.controls[device]("unplug", mode=case.mode)
        t.press("confirm")
        s = t.until(lambda s: phase(s) == "halted", "the round halted")
        assert s["round"]["halted"]["in"] == "dealing" and device in s["round"]["halted"]["reason"]
        assert told(s)["kind"] == "halted" and told(s)["cause"] == "device_fault", s["message"]
        s = t.press_refused("confirm", supervisor=SUPERVISOR_ID)  # not while the device is still gone
        assert phase(s) == "halted" and s["next_action"]["action"] == "device_back"  # it must answer first
        if case.then == "void_round":
            s = t.press("void_round", key=True)
            assert phase(s) == "voided", s["message"]
        t.controls[device]("plug")
        s = t.until(lambda s: s["devices"][device] != "offline", f"the {device} back")
        if case.then == "resume":
            t.press("confirm", key=True)
            s = t.until(lambda s: phase(s) == "voided", "the round resumed and voided")
        s = confirm(t)
        steps, s = next_round(t, round_id)
        assert steps == _between_rounds(case.game)
    events, _ = _journal(t, round_id)
    kinds = [e.kind for e in events]
    assert kinds.count("halted") == 1
    if case.then == "resume":
        assert [e.data["by"] for e in events if e.kind == "resumed"] == [KEY]
        _assert_voided(events, DEAL_FAILED[case.game])
    else:
        assert "resumed" not in kinds
        _assert_voided(events, f"voided by {KEY}")


def test_the_shuffler_back_before_the_dealer_stack_is_released_resumes_the_round(tmp_path, monkeypatch):
    """UTH ch.10 §B(4), ch.11 §G(1): the dealer's two stay in the shuffler until every player acted.
    The shuffler stops answering before it releases them: the round halts in reveal; with the
    shuffler back, the supervisor resumes it and the round settles on the cards (nothing was lost)."""
    with table_in_process(GAMES["UTH"], tmp_path, monkeypatch) as t:
        round_id, s = deal_a_round(t)
        assert phase(s) == "decisions", s["message"]
        t.controls["shuffler"]("unplug", mode="silent")
        s = play_out(t)
        assert phase(s) == "halted" and s["round"]["halted"]["in"] == "reveal", s["message"]
        t.controls["shuffler"]("plug")
        s = t.until(lambda s: s["devices"]["shuffler"] != "offline", "the shuffler back")
        s = t.press("confirm", key=True)
        assert phase(s) == "reveal" and told(s)["kind"] == "resumed", s["message"]
        s = t.press("confirm")  # the dealer's stack is released, the round settles
        assert phase(s) == "settled" and len(s["round"]["dealer"]) == 2, s["message"]
        confirm(t)
        next_round(t, round_id)
    events, _ = _journal(t, round_id)
    kinds = [e.kind for e in events]
    assert kinds.count("halted") == 1 and kinds.count("resumed") == 1 and "voided" not in kinds
    assert kinds[-1] == "round_closed"


@pytest.mark.parametrize("game", ["UTH", "JHE"], ids=["UTH(UTH-ch13-H)", "JHE(JHE-ch13-H)"])
def test_the_shuffler_not_answering_at_the_shuffle_between_rounds(game, tmp_path, monkeypatch):
    """The shuffle after the round (ch.5 §A(2)) cannot be done while the shuffler does not answer: no
    round is dealt, the shuffle is required (as for a shuffle that failed, UTH/JHE ch.13 §H), and once
    the shuffler is back the dealer shuffles and play goes on."""
    with table_in_process(GAMES[game], tmp_path, monkeypatch) as t:
        round_id, s = deal_a_round(t)
        s = play_out(t)
        assert phase(s) == "settled", s["message"]
        t.controls["shuffler"]("unplug", mode="silent")
        confirm(t)
        s = t.until(lambda s: s["devices"]["shuffler"] == "offline", "the shuffler offline")
        assert phase(s) != "wagers", s["message"]
        t.controls["shuffler"]("plug")
        s = t.until(lambda s: s["devices"]["shuffler"] != "offline", "the shuffler back")
        assert (s.get("next_step") or {}).get("step") == "shuffled", (phase(s), s["message"])
        steps, s = next_round(t, round_id)
        assert steps == ["shuffled"]
    events, _ = _journal(t, round_id)
    assert [e.kind for e in events][-1] == "round_closed"


# ------------------------------------------------------------------------ the line: repaired by the link


LINE_FAULTS = [
    ("UTH", ("garbage", {"n": 40})),
    ("JHE", ("corrupt", {"count": 2, "frames": "data"})),
    ("HCF", ("drop", {"count": 2, "frames": "data"})),
    ("RET", ("delay", {"ms": 150})),  # below the link's ACK timeout (0.25 s)
    ("HCF", ("replay", {})),
    ("RET", ("replay", {})),
]


@pytest.mark.parametrize("game,fault", LINE_FAULTS, ids=[f"{g}-{CARD_DEVICE[g]}-{f[0]}" for g, f in LINE_FAULTS])
def test_a_line_fault_is_repaired_by_the_link_and_the_round_goes_on(game, fault, tmp_path, monkeypatch):
    """docs/protocols-serial.md: CRC, ACK/retransmission and report ids repair what the line spoils;
    the round is dealt and settled as if nothing happened (no card lost, none taken twice).  The
    shoe's ``replay`` sends a card report again in the middle of the deal: it must not count twice."""
    device = CARD_DEVICE[game]
    cmd, args = fault
    with table_in_process(GAMES[game], tmp_path, monkeypatch) as t:
        s = first_round(t)
        if device == "shoe":
            t.controls["shoe"]("load", seed=7)
        round_id = bet(t, s)
        no_more_bets(t)
        if cmd == "replay":
            shoe, t.dealer.shoe = t.dealer.shoe, None  # the press returns once the deal is done: draw by hand
            t.controls["panel"]("press", button="confirm")
            first = t.until(lambda s: s.get("expecting_cards"), "the first request for cards")
            t.dealer.shoe = shoe
            t.dealer.draw_requested(first)
            t.until(lambda s: s.get("expecting_cards") and s["updated"] != first["updated"], "the next request")
            t.controls["shoe"]("replay")  # the last card reported (and taken) comes again as a new frame
            s = t.until(at_rest, "the deal")
        else:
            t.controls[device](cmd, **args)
            s = deal(t)
        assert phase(s) == "decisions", s["message"]
        s = play_out(t)
        assert phase(s) == "settled", s["message"]
        stats = t.controls[device]("stats")
        if cmd in ("drop", "corrupt"):
            assert stats["link"]["retransmissions"] >= 1, stats  # the fault did hit the line
        if cmd == "delay":
            t.controls[device]("delay", ms=0)
        assert s["devices"][device] != "offline"
        confirm(t)
        next_round(t, round_id)
    events, _ = _journal(t, round_id)
    kinds = [e.kind for e in events]
    assert "halted" not in kinds and "voided" not in kinds and kinds[-1] == "round_closed", kinds
    cards = _dealt(events)
    assert len(cards) == len(set(cards)) and "card_discarded" not in kinds


# ------------------------------------------------------------------------ the Modbus devices


@pytest.mark.parametrize("game", list(GAMES), ids=[f"{g}-progressive-stop_answering" for g in GAMES])
def test_the_progressive_system_not_answering(game, tmp_path, monkeypatch):
    """ch.8 §C(2), ch.10 §A(2)(b): the bet sensors and the lock-out are on the progressive system.
    When it stops answering after the deal, the round's progressive wager stands (it was accepted
    under the lock-out) and the round is played out; no more bets is refused until it answers again;
    the progressive wagers of the round before are not accepted a second time."""
    with table_in_process(GAMES[game], tmp_path, monkeypatch) as t:
        s = first_round(t)
        if "shoe" in t.controls:
            t.controls["shoe"]("load", seed=7)
        round_id = bet(t, s)
        no_more_bets(t)
        s = deal(t)
        assert phase(s) == "decisions", s["message"]
        t.controls["progressive"]("stop_answering")
        s = t.until(lambda s: s["devices"]["progressive"] == "offline", "the progressive system offline")
        assert s["progressive_wagers"].startswith("disabled"), s["progressive_wagers"]
        s = play_out(t)
        assert phase(s) == "settled", s["message"]
        confirm(t)
        _, s = next_round(t, round_id)
        second = bet(t, s, progressive=())  # the player does not make the progressive wager again
        s = t.press_refused("no_more_bets")
        assert phase(s) == "wagers" and s["progressive_wagers"].startswith("disabled: "), s["message"]
        t.controls["progressive"]("resume")
        t.until(lambda s: s["progressive_wagers"] == "enabled", "progressive wagers enabled again")
        no_more_bets(t, progressive=False)
    events, table = _journal(t, round_id)
    kinds = [e.kind for e in events]
    assert "halted" not in kinds and "voided" not in kinds and kinds[-1] == "round_closed", kinds
    added = next(e for e in events if e.kind == "meter_add")
    contribution = {m: Decimal(str(v)) for m, v in added.data["meters"].items()}
    assert meter_sum(events) == contribution  # the wager stood: its contribution stays on the meters
    assert [e.kind for e in table if e.kind.startswith("progressive_")][-2:] == ["progressive_disabled",
                                                                                 "progressive_enabled"]
    second_events, _ = _journal(t, second)
    assert "meter_add" not in [e.kind for e in second_events]


@pytest.mark.parametrize("game", list(GAMES), ids=[f"{g}-panel-stop_answering" for g in GAMES])
def test_a_press_while_the_panel_does_not_answer_is_refused_until_pressed_again(game, tmp_path, monkeypatch):
    """A decision pressed while the panel could not be read is not taken on trust: once the panel
    answers, it is refused and the dealer presses it again; the round is not otherwise affected."""
    with table_in_process(GAMES[game], tmp_path, monkeypatch) as t:
        s = first_round(t)
        if "shoe" in t.controls:
            t.controls["shoe"]("load", seed=7)
        round_id = bet(t, s)
        no_more_bets(t)
        s = deal(t)
        assert phase(s) == "decisions", s["message"]
        to_act = s["round"]["to_act"]
        t.controls["panel"]("stop_answering")
        t.until(lambda s: s["devices"]["panel"] == "offline", "the panel offline")
        button = "check" if to_act["check"] else f"bet_{min(to_act['multiples'])}x"
        t.controls["panel"]("press", button=button)
        t.controls["panel"]("resume")
        s = t.until(lambda s: told(s)["cause"] == "panel_unreachable", "the press refused")
        assert told(s)["kind"] == "refused" and phase(s) == "decisions" and s["round"]["to_act"] == to_act
        s = play_out(t)
        assert phase(s) == "settled", s["message"]
        confirm(t)
        next_round(t, round_id)
    events, _ = _journal(t, round_id)
    kinds = [e.kind for e in events]
    assert "halted" not in kinds and "voided" not in kinds and kinds[-1] == "round_closed", kinds


# ------------------------------------------------------------------------ RET: the stub count


@pytest.mark.parametrize("fault", ["a-card-drawn-and-never-dealt", "a-deck-of-51-cards"],
                         ids=lambda f: f"RET-{f}(RET-ch8-stub-count)")
def test_the_manual_shoe_counts_the_stub_every_round(fault, tmp_path, monkeypatch):
    """RET ch.8 (stub count): the card-reading shoe counts drawn + left before settlement; a count
    that disagrees with the round voids every hand, and a deck that is not 52 cards is removed."""
    with table_in_process(GAMES["RET"], tmp_path, monkeypatch) as t:
        s = first_round(t)
        deck = [c.text for c in DECK]
        t.controls["shoe"]("load", cards=deck[:51] if fault == "a-deck-of-51-cards" else deck)
        round_id = bet(t, s)
        no_more_bets(t)
        s = deal(t)
        assert phase(s) == "decisions", s["message"]
        if fault == "a-card-drawn-and-never-dealt":
            assert t.controls["shoe"]("draw", n=1)["reported"] == 1
        s = play_out(t)
        assert phase(s) == "voided" and told(s)["cause"] == "stub_count", s["message"]
        assert len(told(s)["clauses"]) == 1 and told(s)["clauses"][0].startswith(STUB_COUNT["RET"]), s["message"]
        remove = fault == "a-deck-of-51-cards"
        assert told(s)["remove_deck"] == remove, s["message"]
        confirm(t)
        steps, _ = next_round(t, round_id)
        assert steps == (_opening_steps("RET") if remove else _between_rounds("RET"))
    events, table = _journal(t, round_id)
    _assert_voided(events, STUB_COUNT["RET"])
    assert len([e for e in table if e.kind == "deck_removed" and e.data.get("round") == round_id]) == remove
