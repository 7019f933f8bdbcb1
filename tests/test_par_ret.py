"""RET's exact base-game sheet (games/par/ret.py): its pieces against the game's own settlement and
games.strategy.RetStrategy, and the stored sheets against a recount of some starting hands."""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from games.cards import DECK
from games.par import _jret as j
from games.par import ret
from games.paytables import paytable
from games.poker import best_hand, lines_made
from games.round import Decision, Round, Seat
from games.run_em_twice import GAME as RET
from games.strategy import FOLD, RetStrategy

ONE = Decimal(1)
TABLE = paytable(ret.GAME, "run", "A")


@pytest.fixture(scope="module")
def run_pay() -> np.ndarray:
    return np.array([-1 if p is None else int(p) for p in j.pays_by_rank(TABLE)], dtype=np.int64)


def _t3(a: int, b: int, run_pay: np.ndarray) -> np.ndarray:
    r5, f5 = j.tables(5)
    out: np.ndarray = ret._run_table(a, b, j.CARD_KEYS, j.CARD_MASKS, r5, f5, j.FLUSH_RANK, run_pay)
    return out


def _sign(r: int) -> int:
    return (r > 0) - (r < 0)


def test_run_table_is_the_paytable(run_pay: np.ndarray) -> None:
    rng = random.Random(5)
    a, b = rng.sample(range(52), 2)
    t3 = _t3(a, b, run_pay)
    for _ in range(300):
        x, y, z = rng.sample([c for c in range(52) if c not in (a, b)], 3)
        line = TABLE.line_for(lines_made(best_hand([DECK[c] for c in (a, b, x, y, z)])))
        want = -1 if line is None else j.pays_of_line(line)
        assert t3[x, y, z] == t3[z, x, y] == want


def _settled(hole: tuple[int, int], cross: tuple[int, ...], bets: tuple[int, ...], fold: bool) -> Decimal:
    seat = Seat(
        seat=1,
        cards=(DECK[hole[0]], DECK[hole[1]]),
        wagers={"ante_1": ONE, "ante_2": ONE},
        decision=Decision(multiples=bets, fold=fold),
    )
    rnd = Round(game=ret.GAME, paytables={"run": "A"}, seats=(seat,), community=tuple(DECK[c] for c in cross))
    return RET.settle(rnd).seats[0].net


def test_center_decision_and_value_are_the_game_and_the_posted_rule(run_pay: np.ndarray) -> None:
    """At the Center decision: the kernel's choice is RetStrategy.center's, and its summed value is the
    sum of the game's settled nets over the 46 center cards."""
    rng = random.Random(8)
    strat = RetStrategy.for_table(TABLE)
    for _ in range(6):
        a, b, left, right, top, bottom = rng.sample(range(52), 6)
        t3 = _t3(a, b, run_pay)
        k1, k2 = rng.choice((1, 3)), rng.choice((1, 3))
        centers = [c for c in range(52) if c not in (a, b, left, right, top, bottom)]
        fixed = sum(
            _sign(int(t3[left, c, right]))
            + k1 * int(t3[left, c, right])
            + _sign(int(t3[top, c, bottom]))
            + k2 * int(t3[top, c, bottom])
            for c in centers
        )
        center = sum(max(int(t3[left, c, right]), int(t3[top, c, bottom])) for c in centers)
        k3, v = ret._center_choice(fixed, center, k1, k2)
        want = strat.center((DECK[a], DECK[b]), (DECK[left], None, DECK[right], DECK[top], DECK[bottom]), (k1, k2))
        assert k3 == (0 if want == FOLD else want)
        bets = (k1, k2, k3) if k3 else (k1, k2)
        settled = sum(_settled((a, b), (left, c, right, top, bottom), bets, not k3) for c in centers)
        assert settled == v


def test_second_decision_is_retstrategy(run_pay: np.ndarray) -> None:
    rng = random.Random(9)
    strat = RetStrategy.for_table(TABLE)
    firsts, returns = ret._posted_inputs("A")
    names = [h[0] for h in ret.HANDS]
    for _ in range(40):
        hid = rng.randrange(len(ret.HANDS))
        a, b = ret.HANDS[hid][2]
        left, right = rng.sample([c for c in range(52) if c not in (a, b)], 2)
        t3 = _t3(a, b, run_pay)
        k1 = rng.choice((1, 3))
        rest = [c for c in range(52) if c not in (a, b, left, right)]
        total = sum(_sign(int(t3[left, c, right])) + k1 * int(t3[left, c, right]) for c in rest)
        er, ea, den = returns[hid]
        got = ret._second_posted(total, k1, er, ea, den)
        want = strat.second((DECK[a], DECK[b]), DECK[left], DECK[right], k1)
        assert got == (0 if want == FOLD else want), names[hid]


@pytest.mark.parametrize("strategy", ["optimal", "posted"])
def test_stored_sheet_is_consistent(strategy: str) -> None:
    sheet = j.load(ret.GAME, "A", strategy)
    assert sheet["method"] == "exact" and sheet["space"] == 1326 * 1225 * 1128 * 46
    net = sheet["net"]
    assert isinstance(net, list) and sum(Fraction(n["probability"]) for n in net) == 1
    mean = sum(Fraction(n["net"]) * Fraction(n["probability"]) for n in net)
    assert 1 + mean == Fraction(str(sheet["return_per_ante"]))
    hands = sheet["starting_hands"]
    assert isinstance(hands, list) and Fraction(sum(h["weight"] * Fraction(h["ev"]) for h in hands), 1326) == mean
    parts = sheet["parts"]
    assert isinstance(parts, dict) and sum(Fraction(p["return_share"]) for p in parts.values()) == mean


@pytest.mark.parametrize(("strategy", "hand"), [("optimal", "QJs"), ("posted", "A5o")])
def test_stored_starting_hands_recounted(strategy: str, hand: str) -> None:
    sheet = j.load(ret.GAME, "A", strategy)
    stored = next(h for h in sheet["starting_hands"] if h["hand"] == hand)  # type: ignore[union-attr, index]
    value, k1 = ret.recount_hand(hand, strategy)
    assert Fraction(value, ret.PER_HOLE) == Fraction(stored["ev"])
    assert stored["decision"] == (f"first_run_{k1}x" if k1 else "fold")


@pytest.mark.parametrize("strategy", ["optimal", "posted"])
def test_stored_sheet_names_the_current_code(strategy: str) -> None:
    """A kernel changed without recomputing the sheets (make soak: tests/soak_par_jret.py) fails here."""
    from pathlib import Path

    version = j.code_version([Path(ret.__file__), Path(j.__file__)])
    assert j.load(ret.GAME, "A", strategy)["computed"]["code_version"] == version  # type: ignore[index]


@pytest.mark.parametrize("strategy", ["optimal", "posted"])
def test_stored_ultimate_pairs_is_the_side_wagers_own_count(strategy: str) -> None:
    """Each two-card hand by its own Ultimate Pairs line (C and D pay A♥A♦ apart from the other pairs of aces,
    R22; the sheets once read the line of AA's representative A♣A♦): the sheet's side return and standard
    deviation are the side wager's own exact count (games.analysis)."""
    from games.par.combine import side_moments

    sheet = j.load(ret.GAME, "A", strategy)
    for c in sheet["combinations"]:  # type: ignore[union-attr]
        mean, var = side_moments(ret.GAME, "ultimate_pairs", c["paytable"])
        assert Fraction(c["side_wager_return"]) == 1 + mean, c["paytable"]
        assert c["side_wager_std_dev"] == j.sqrt_dec9(var), c["paytable"]
