"""Dealing procedures (games.dealing): where each card goes, per game and procedure (chapters 8-11 of each game).

Every expected order below is written by hand from the rule text (clause in
each case's id), never produced by the module under test.  Notation of the
hand-written sequences:

    "3:0"   seat 3's first card          "D:1"  the dealer's second card
    "C:2"   community card 2 (RET: "C:left", the cross of RULINGS R25)
    "B:0"   Six Card Bonus box card 0    "burn" a burn card
"""

from __future__ import annotations

import pytest

from games import dealing
from games.dealing import (
    BURN,
    Procedure,
    Stack,
    bonus_box_cards,
    cards_per_seat,
    cards_to_dealer,
    clockwise,
    community_count,
    dealer_release_stack,
    expected_total,
    initial_deal,
    reveals,
    stacks,
    street_deal,
)
from games.registry import GAMES

UTH = GAMES["ultimate_texas_holdem"]
JHE = GAMES["jackpot_holdem"]
HCF = GAMES["high_card_flush"]
RET = GAMES["run_em_twice"]
SHOE, HAND, AUTO = Procedure.MANUAL_SHOE, Procedure.HAND, Procedure.AUTOMATED
BY_ONE = (SHOE, HAND)  # one card at a time: chapters 8 and 9 of each game


def P(text: str) -> list:
    """The places of a hand-written sequence (notation in the module docstring)."""
    out: list = []
    for tok in text.split():
        if tok == "burn":
            out.append(("burn",))
            continue
        where, i = tok.split(":")
        index = int(i) if i.isdigit() else i
        if where == "D":
            out.append(("dealer", index))
        elif where == "C":
            out.append(("community", index))
        elif where == "B":
            out.append(("bonus_box", index))
        else:
            out.append(("seat", int(where), index))
    return out


def S(kind: str, text: str, held: bool = False) -> Stack:
    return Stack(kind, tuple(P(text)), held=held)


# -- one card at a time: UTH ch.8 §D, HCF ch.8 §E, UTH ch.9 §B --------------------------------------

SIX_ROUND = "1:{i} 2:{i} 3:{i} 4:{i} 5:{i} 6:{i} D:{i}"

INITIAL = [
    # UTH ch.8 §D(2), UTH ch.9 §B(2): clockwise from seat 1, then the dealer, two rounds; no community yet (§D(3)).
    pytest.param(UTH, [4], "4:0 D:0 4:1 D:1", id="UTH ch.8 §D(2) one seat"),
    pytest.param(UTH, [1, 3, 6], "1:0 3:0 6:0 D:0 1:1 3:1 6:1 D:1", id="UTH ch.8 §D(2) three seats"),
    pytest.param(
        UTH,
        [1, 2, 3, 4, 5, 6],
        "1:0 2:0 3:0 4:0 5:0 6:0 D:0 1:1 2:1 3:1 4:1 5:1 6:1 D:1",
        id="UTH ch.8 §D(2) six seats",
    ),
    # JHE ch.8 §D(2)-(3), JHE ch.9 §B(2)-(3): the same, then the five community cards face down (JHE ch.11 only
    # reveals).
    pytest.param(JHE, [4], "4:0 D:0 4:1 D:1 C:0 C:1 C:2 C:3 C:4", id="JHE ch.8 §D(2)-(3) one seat"),
    pytest.param(
        JHE, [2, 3, 5], "2:0 3:0 5:0 D:0 2:1 3:1 5:1 D:1 C:0 C:1 C:2 C:3 C:4", id="JHE ch.8 §D(2)-(3) three seats"
    ),
    pytest.param(
        JHE,
        [1, 2, 3, 4, 5, 6],
        "1:0 2:0 3:0 4:0 5:0 6:0 D:0 1:1 2:1 3:1 4:1 5:1 6:1 D:1 C:0 C:1 C:2 C:3 C:4",
        id="JHE ch.8 §D(2)-(3) six seats",
    ),
    # HCF ch.8 §E, HCF ch.9 §B(2): one card at a time, seats then the dealer, until each has seven.
    pytest.param(
        HCF, [6], "6:0 D:0 6:1 D:1 6:2 D:2 6:3 D:3 6:4 D:4 6:5 D:5 6:6 D:6", id="HCF ch.8 §E one seat, sevens"
    ),
    pytest.param(
        HCF,
        [1, 3, 6],
        "1:0 3:0 6:0 D:0  1:1 3:1 6:1 D:1  1:2 3:2 6:2 D:2  1:3 3:3 6:3 D:3 "
        " 1:4 3:4 6:4 D:4  1:5 3:5 6:5 D:5  1:6 3:6 6:6 D:6",
        id="HCF ch.8 §E three seats, sevens",
    ),
    pytest.param(
        HCF,
        [1, 2, 3, 4, 5, 6],
        " ".join(SIX_ROUND.format(i=i) for i in range(7)),
        id="HCF ch.8 §E six seats, sevens",
    ),
    # RET ch.8 §D(2)-(4), RET ch.9 §B(1)-(3): the cross face down first (R25 order), then two rounds; no dealer hand.
    pytest.param(RET, [1], "C:left C:center C:right C:top C:bottom 1:0 1:1", id="RET ch.8 §D(2)-(3) one seat"),
    pytest.param(
        RET,
        [2, 4, 5],
        "C:left C:center C:right C:top C:bottom 2:0 4:0 5:0 2:1 4:1 5:1",
        id="RET ch.8 §D(2)-(3) three seats",
    ),
    pytest.param(
        RET,
        [1, 2, 3, 4, 5, 6],
        "C:left C:center C:right C:top C:bottom 1:0 2:0 3:0 4:0 5:0 6:0 1:1 2:1 3:1 4:1 5:1 6:1",
        id="RET ch.8 §D(2)-(3) six seats",
    ),
]


@pytest.mark.parametrize("procedure", BY_ONE, ids=lambda p: f"ch.{p.chapter}")
@pytest.mark.parametrize(("game", "seats", "expected"), INITIAL)
def test_initial_deal(game, seats, expected, procedure):
    assert initial_deal(game, procedure, seats) == P(expected)


def test_initial_deal_sorts_seats_clockwise():
    """R1: dealing goes clockwise from seat 1 whatever order the caller lists the seats in."""
    assert initial_deal(UTH, SHOE, [6, 1, 3]) == P("1:0 3:0 6:0 D:0 1:1 3:1 6:1 D:1")


# -- between decisions: UTH ch.11 §C, §E (k = before decision k; len(streets) = after the last) -------

STREETS = [
    # UTH ch.11 §C(2), §E(2): flop, then the last two, face up; from a manual shoe no burn.
    pytest.param(UTH, SHOE, ["", "C:0 C:1 C:2", "C:3 C:4", ""], id="UTH ch.11 §C(2) §E(2) manual shoe: no burn"),
    # UTH ch.11 §C(1), §E(1): dealing by hand burns the next card first.
    pytest.param(UTH, HAND, ["", "burn C:0 C:1 C:2", "burn C:3 C:4", ""], id="UTH ch.11 §C(1) §E(1) by hand: burns"),
    # UTH ch.10 §B(2), §F: the community stack is on the layout already; nothing leaves the shuffler.
    pytest.param(UTH, AUTO, ["", "", "", ""], id="UTH ch.10 §B(2) automated: nothing dealt"),
    *(
        pytest.param(g, p, [""] * (len(g.streets) + 1), id=f"{g.short} ch.{p.chapter}: nothing dealt between decisions")
        for g in (JHE, HCF, RET)
        for p in Procedure
    ),
]


@pytest.mark.parametrize(("game", "procedure", "expected"), STREETS)
def test_street_deal(game, procedure, expected):
    assert [street_deal(game, procedure, k) for k in range(len(game.streets) + 1)] == [P(e) for e in expected]


REVEALS = [
    # UTH dealt card by card: community cards are dealt face up (no reveal); the dealer's two at UTH ch.11 §G(1).
    *(pytest.param(UTH, p, ["", "", "", "D:0 D:1"], id=f"UTH ch.11 §G(1) ch.{p.chapter}") for p in BY_ONE),
    # UTH ch.10 §F, UTH ch.11 §C(2), §E(2): the spread community stack is turned over, flop then two.
    pytest.param(UTH, AUTO, ["", "C:0 C:1 C:2", "C:3 C:4", "D:0 D:1"], id="UTH ch.10 §F automated reveals"),
    # JHE ch.11 §B (R11) one card before the first decision, §D two, §F two; the dealer's at §H(1).
    *(
        pytest.param(JHE, p, ["C:0", "C:1 C:2", "C:3 C:4", "D:0 D:1"], id=f"JHE ch.11 §B R11 ch.{p.chapter}")
        for p in Procedure
    ),
    # HCF ch.11 §B(4)(b): the dealer's seven after the raise decision.
    *(
        pytest.param(HCF, p, ["", "D:0 D:1 D:2 D:3 D:4 D:5 D:6"], id=f"HCF ch.11 §B(4)(b) ch.{p.chapter}")
        for p in Procedure
    ),
    # RET ch.11 §C horizontal outside cards, §E vertical outside cards, §G the center (R25).
    *(
        pytest.param(
            RET, p, ["", "C:left C:right", "C:top C:bottom", "C:center"], id=f"RET ch.11 §C §E §G ch.{p.chapter}"
        )
        for p in Procedure
    ),
]


@pytest.mark.parametrize(("game", "procedure", "expected"), REVEALS)
def test_reveals(game, procedure, expected):
    assert [reveals(game, procedure, k) for k in range(len(game.streets) + 1)] == [P(e) for e in expected]


def test_jhe_first_community_card_before_first_decision():
    """R11, JHE ch.11 §B: exactly one community card is face up when the first decision is asked."""
    for p in Procedure:
        assert reveals(JHE, p, 0) == [("community", 0)]
        assert street_deal(JHE, p, 0) == []


@pytest.mark.parametrize("game", [UTH, JHE, HCF, RET], ids=lambda g: g.short)
@pytest.mark.parametrize("procedure", list(Procedure), ids=lambda p: f"ch.{p.chapter}")
def test_community_face_up_matches_each_decision(game, procedure):
    """The community cards face up before decision k are Game.streets[k].shown
    (UTH ch.11, JHE ch.11, R11, RET ch.11)."""
    face_up = 0
    for k, street in enumerate(game.streets):
        got = street_deal(game, procedure, k) + reveals(game, procedure, k)
        face_up += sum(1 for p in got if p[0] == "community")
        assert face_up == street.shown, (k, street.name)
    last = street_deal(game, procedure, len(game.streets)) + reveals(game, procedure, len(game.streets))
    assert face_up + sum(1 for p in last if p[0] == "community") == game.community_cards


def test_burns_only_by_hand_in_uth():
    """UTH ch.11 §C(1), §E(1): a burn card only when dealing by hand (UTH ch.3 §C tells "by hand" from a
    shoe)."""
    for game in (UTH, JHE, HCF, RET):
        for p in Procedure:
            burns = sum(street_deal(game, p, k).count(BURN) for k in range(len(game.streets) + 1))
            assert burns == (2 if (game is UTH and p is HAND) else 0), (game.short, p)


# -- stacks: UTH ch.10 §B, alike in every game ----------------------------------------------------

UTH_HEAD = [S("bonus_box", "B:0 B:1 B:2 B:3"), S("community", "C:0 C:1 C:2 C:3 C:4")]
JHE_HEAD = [S("community", "C:0 C:1 C:2 C:3 C:4")]
RET_HEAD = [S("community", "C:left C:center C:right C:top C:bottom")]

STACKS = [
    # UTH ch.10 §B(1)-(3): box, community, the dealer's two, then the seats clockwise.
    pytest.param(UTH, [3], False, [*UTH_HEAD, S("dealer", "D:0 D:1"), S("seat", "3:0 3:1")], id="UTH ch.10 §B(3) one"),
    pytest.param(
        UTH,
        [1, 4, 6],
        False,
        [*UTH_HEAD, S("dealer", "D:0 D:1"), S("seat", "1:0 1:1"), S("seat", "4:0 4:1"), S("seat", "6:0 6:1")],
        id="UTH ch.10 §B(3) three",
    ),
    pytest.param(
        UTH,
        [1, 2, 3, 4, 5, 6],
        False,
        [*UTH_HEAD, S("dealer", "D:0 D:1"), *(S("seat", f"{n}:0 {n}:1") for n in "123456")],
        id="UTH ch.10 §B(3) six",
    ),
    # UTH ch.10 §B(4): the dealer's cards stay in the shuffler; the seats' stacks are delivered.
    pytest.param(
        UTH, [3], True, [*UTH_HEAD, S("dealer", "D:0 D:1", held=True), S("seat", "3:0 3:1")], id="UTH ch.10 §B(4) one"
    ),
    pytest.param(
        UTH,
        [1, 4, 6],
        True,
        [*UTH_HEAD, S("dealer", "D:0 D:1", True), S("seat", "1:0 1:1"), S("seat", "4:0 4:1"), S("seat", "6:0 6:1")],
        id="UTH ch.10 §B(4) three",
    ),
    pytest.param(
        UTH,
        [1, 2, 3, 4, 5, 6],
        True,
        [*UTH_HEAD, S("dealer", "D:0 D:1", True), *(S("seat", f"{n}:0 {n}:1") for n in "123456")],
        id="UTH ch.10 §B(4) six",
    ),
    # JHE ch.10 §B(1)-(2), §B(3).
    pytest.param(JHE, [5], False, [*JHE_HEAD, S("dealer", "D:0 D:1"), S("seat", "5:0 5:1")], id="JHE ch.10 §B(2) one"),
    pytest.param(
        JHE,
        [2, 3, 4],
        False,
        [*JHE_HEAD, S("dealer", "D:0 D:1"), S("seat", "2:0 2:1"), S("seat", "3:0 3:1"), S("seat", "4:0 4:1")],
        id="JHE ch.10 §B(2) three",
    ),
    pytest.param(
        JHE,
        [1, 2, 3, 4, 5, 6],
        False,
        [*JHE_HEAD, S("dealer", "D:0 D:1"), *(S("seat", f"{n}:0 {n}:1") for n in "123456")],
        id="JHE ch.10 §B(2) six",
    ),
    pytest.param(
        JHE, [5], True, [*JHE_HEAD, S("dealer", "D:0 D:1", True), S("seat", "5:0 5:1")], id="JHE ch.10 §B(3) held"
    ),
    # HCF ch.10 §B(1)-(2): sevens to the seats clockwise, then the dealer's seven under a cover card.
    pytest.param(
        HCF,
        [2],
        False,
        [S("seat", "2:0 2:1 2:2 2:3 2:4 2:5 2:6"), S("dealer", "D:0 D:1 D:2 D:3 D:4 D:5 D:6")],
        id="HCF ch.10 §B one",
    ),
    pytest.param(
        HCF,
        [1, 3, 6],
        False,
        [
            S("seat", "1:0 1:1 1:2 1:3 1:4 1:5 1:6"),
            S("seat", "3:0 3:1 3:2 3:3 3:4 3:5 3:6"),
            S("seat", "6:0 6:1 6:2 6:3 6:4 6:5 6:6"),
            S("dealer", "D:0 D:1 D:2 D:3 D:4 D:5 D:6"),
        ],
        id="HCF ch.10 §B three",
    ),
    pytest.param(
        HCF,
        [1, 2, 3, 4, 5, 6],
        False,
        [
            *(S("seat", " ".join(f"{n}:{i}" for i in range(7))) for n in "123456"),
            S("dealer", "D:0 D:1 D:2 D:3 D:4 D:5 D:6"),
        ],
        id="HCF ch.10 §B six",
    ),
    # RET ch.10 §B(1)-(2): the cross, then two-card stacks; no dealer.
    pytest.param(RET, [6], False, [*RET_HEAD, S("seat", "6:0 6:1")], id="RET ch.10 §B one"),
    pytest.param(
        RET,
        [1, 2, 5],
        False,
        [*RET_HEAD, S("seat", "1:0 1:1"), S("seat", "2:0 2:1"), S("seat", "5:0 5:1")],
        id="RET ch.10 §B three",
    ),
    pytest.param(
        RET,
        [1, 2, 3, 4, 5, 6],
        False,
        [*RET_HEAD, *(S("seat", f"{n}:0 {n}:1") for n in "123456")],
        id="RET ch.10 §B six",
    ),
]


@pytest.mark.parametrize(("game", "seats", "held", "expected"), STACKS)
def test_stacks(game, seats, held, expected):
    assert stacks(game, seats, dealer_in_shuffler=held) == expected


def test_stack_clauses_name_chapter_10():
    for game in (UTH, JHE, HCF, RET):
        for st in stacks(game, [1, 2]):
            assert st.clause.startswith(f"{game.short} ch.10 §B"), st


def test_uth_six_card_bonus_stack_always_first():
    """UTH ch.10 §B(1): the four-card box stack is the first stack whatever the seats wagered (P4)."""
    for seats in ([1], [2, 5], [1, 2, 3, 4, 5, 6]):
        assert stacks(UTH, seats)[0] == S("bonus_box", "B:0 B:1 B:2 B:3")


def test_held_dealer_stack_keeps_the_card_order():
    """UTH ch.10 §B(3) vs §B(4), JHE ch.10 §B(2) vs §B(3): holding the dealer's stack changes when, not which cards."""
    for game in (UTH, JHE):
        delivered = stacks(game, [1, 3, 6])
        held = stacks(game, [1, 3, 6], dealer_in_shuffler=True)
        assert [s.places for s in delivered] == [s.places for s in held]
        assert [s.held for s in held] == [s.kind == "dealer" for s in held]


@pytest.mark.parametrize("game", [UTH, JHE], ids=lambda g: g.short)
def test_dealer_release_stack(game):
    """UTH ch.10 §B(4), UTH ch.11 §G(1); JHE ch.10 §B(3), JHE ch.11 §H(1): the dealer's two, delivered after
    every decision."""
    assert dealer_release_stack(game) == S("dealer", "D:0 D:1")


@pytest.mark.parametrize("game", [HCF, RET], ids=lambda g: g.short)
def test_no_dealer_stack_left_in_the_shuffler(game):
    """HCF ch.10 §B(2) delivers the dealer's seven under a cover card; RET has no dealer hand (RET ch.10 §B)."""
    with pytest.raises(ValueError, match="ch.10"):
        stacks(game, [1], dealer_in_shuffler=True)
    with pytest.raises(ValueError, match="ch.10"):
        dealer_release_stack(game)


# -- counts -----------------------------------------------------------------------------------

COUNTS = [
    # game, per seat, dealer, community, clause
    pytest.param(UTH, 2, 2, 5, id="UTH ch.8 §D(2)-(3)"),
    pytest.param(JHE, 2, 2, 5, id="JHE ch.8 §D(2)-(3)"),
    pytest.param(HCF, 7, 7, 0, id="HCF ch.8 §E"),
    pytest.param(RET, 2, 0, 5, id="RET ch.8 §D(2)-(4), ch.7 §E(1)"),
]


@pytest.mark.parametrize(("game", "per_seat", "dealer", "community"), COUNTS)
def test_counts(game, per_seat, dealer, community):
    assert (cards_per_seat(game), cards_to_dealer(game), community_count(game)) == (per_seat, dealer, community)


def test_bonus_box_dealt_only_from_the_shuffler():
    """UTH ch.10 §B(1) deals the box; UTH ch.8 §D and UTH ch.9 §B deal no box; no other game has one."""
    assert [bonus_box_cards(UTH, p) for p in (SHOE, HAND, AUTO)] == [0, 0, 4]
    assert all(bonus_box_cards(g, p) == 0 for g in (JHE, HCF, RET) for p in Procedure)


TOTALS = [
    # (game, procedure, totals for 1, 3 and 6 seats): every card leaving the deck (UTH ch.8 §E-§F: 52 = dealt + stub)
    pytest.param(UTH, SHOE, (9, 13, 19), id="UTH ch.8: 2n + dealer 2 + community 5"),
    pytest.param(UTH, HAND, (11, 15, 21), id="UTH ch.9, ch.11 §C(1) §E(1): + 2 burns"),
    pytest.param(UTH, AUTO, (13, 17, 23), id="UTH ch.10 §B: + box 4"),
    *(pytest.param(JHE, p, (9, 13, 19), id=f"JHE ch.{p.chapter}: 2n + 2 + 5") for p in Procedure),
    *(pytest.param(HCF, p, (14, 28, 49), id=f"HCF ch.{p.chapter}: 7n + 7") for p in Procedure),
    *(pytest.param(RET, p, (7, 11, 17), id=f"RET ch.{p.chapter}: cross 5 + 2n") for p in Procedure),
]


@pytest.mark.parametrize(("game", "procedure", "totals"), TOTALS)
def test_expected_total(game, procedure, totals):
    assert tuple(expected_total(game, seats, procedure) for seats in ([2], [1, 3, 5], [1, 2, 3, 4, 5, 6])) == totals


@pytest.mark.parametrize("game", [UTH, JHE, HCF, RET], ids=lambda g: g.short)
@pytest.mark.parametrize("procedure", list(Procedure), ids=lambda p: f"ch.{p.chapter}")
@pytest.mark.parametrize("seats", [[1], [2, 4], [1, 2, 3, 4, 5, 6]], ids=len)
def test_every_place_receives_exactly_its_cards(game, procedure, seats):
    """Each seat, the dealer, the community and the box get their cards once each (UTH ch.13 §E,
    HCF ch.13 §D, RET ch.13 §C: no wrong count)."""
    if procedure is AUTO:
        dealt = [p for st in stacks(game, seats) for p in st.places]
    else:
        dealt = initial_deal(game, procedure, seats)
        dealt += [p for k in range(len(game.streets) + 1) for p in street_deal(game, procedure, k)]
    cards = [p for p in dealt if p != BURN]
    assert len(cards) == len(set(cards))
    assert len(dealt) == expected_total(game, seats, procedure)
    for s in seats:
        assert sorted(p[2] for p in cards if p[0] == "seat" and p[1] == s) == list(range(game.hole_cards))
    assert {p[1] for p in cards if p[0] == "seat"} == set(seats)
    assert sum(p[0] == "dealer" for p in cards) == game.dealer_cards
    assert sum(p[0] == "community" for p in cards) == game.community_cards
    assert sum(p[0] == "bonus_box" for p in cards) == bonus_box_cards(game, procedure)


# -- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [[], [0], [7], [1, 1], [True], ["1"], [2.0]], ids=repr)
def test_bad_seats_refused(seats):
    """R1: seats are 1..6, each once; a round with no seat deals nothing."""
    with pytest.raises(ValueError):
        clockwise(seats)
    with pytest.raises(ValueError):
        initial_deal(UTH, SHOE, seats)
    with pytest.raises(ValueError):
        stacks(UTH, seats)


def test_refusals():
    with pytest.raises(ValueError, match="stacks"):
        initial_deal(UTH, AUTO, [1])
    for k in (-1, len(UTH.streets) + 1, True):
        with pytest.raises(ValueError):
            street_deal(UTH, HAND, k)
        with pytest.raises(ValueError):
            reveals(UTH, AUTO, k)
    with pytest.raises(TypeError):
        initial_deal(UTH, "hand", [1])  # type: ignore[arg-type]
    assert dealing.DISCARD == ("discard",)
