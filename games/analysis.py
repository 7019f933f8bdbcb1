"""Par sheets: the exact return of each side wager under each paytable letter.

Contract: shared/contracts/analyze.md (``tablectl analyze``).  Method
``exact``: every equally likely outcome of the cards the wager depends on is
counted, the counts are integers, and the return is computed from them with
``Fraction`` -- nothing is rounded until the result is written.

Which lines a hand makes is always decided by the game's own code
(``games.poker.lines_made``, ``games.jackpot_holdem.jackpot_lines_made``,
``six_card_bonus_made``, ``ultimate_pairs_made``, ``games.high_card_flush``),
applied to one representative hand of each class of equivalent hands; the
paytable then pays the highest line made (``Paytable.line_for``, RULINGS R5).

Spaces counted:

* UTH Trips and Progressive, JHE Player Bonus and Progressive: the player's
  best five of seven cards, C(52,7) = 133,784,560 (``games.batch``).
* UTH Six Card Bonus: the player's two and the four box cards, C(52,6) (R21).
* UTH Play the Board, RET Five Card Bonus: the five community cards, C(52,5)
  (R23, R29).
* Ultimate Pairs: the player's two cards, C(52,2); UTH paytable B, whose first
  line needs the dealer's two cards too (R22), C(52,2) x C(50,2).
* HCF Flush Bonus, Straight Flush Bonus, Progressive: seven cards, C(52,7),
  counted by suit: the lines a hand makes are the union of what each suit's
  cards make (longest flush, longest run, suited 9-A), plus four of a kind
  (Straight Flush Bonus G, R19), so the counts are coefficients of a product
  of four per-suit generating polynomials.

Returns per unit wagered, stake included (R2, R3, R21a, R4): "X to 1" X+1,
"X for 1" X, push 1, a fixed amount D for any wager (Six Card Bonus super
royal) D+1 on a unit of 1, a dollar amount stated for a $1 Progressive D, a
percentage of a meter p x meter rounded half up to the cent (unit 1).

Not here: the base games (they need the documented strategy and a
simulation), Bad Beat (two hands), the Envy Bonus (other seats' hands) and the
RET Progressive (the better of two Run hands sharing the center card).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from itertools import combinations
from math import comb

from games import batch
from games.cards import ACE, DECK, SUIT_CHARS, Card, parse_card
from games.high_card_flush import has_suited_nine_to_ace, straight_flush_run
from games.jackpot_holdem import jackpot_lines_made
from games.money import meter_display, round_cents
from games.paytable import FixedAmount, FixedPerUnit, MeterPercent, Odds, Paytable, Push
from games.paytables import METER_MINIMUMS, letters, paytable
from games.poker import CATEGORY_NAMES, PAIR, ROYAL_FLUSH, best_hand, lines_made
from games.registry import GAMES
from games.ultimate_pairs import ultimate_pairs_made
from games.ultimate_texas_holdem import six_card_bonus_made

UTH, JHE, HCF, RET = "ultimate_texas_holdem", "jackpot_holdem", "high_card_flush", "run_em_twice"

#: The wagers counted exactly here, per game.
EXACT: dict[str, tuple[str, ...]] = {
    UTH: ("trips", "six_card_bonus", "ultimate_pairs", "play_the_board", "progressive"),
    JHE: ("player_bonus", "progressive"),
    HCF: ("flush_bonus", "straight_flush_bonus", "progressive"),
    RET: ("five_card_bonus", "ultimate_pairs"),
}

#: Wagers that exist but are not analysed yet, and why.
_BASE = "simulation of the base game with its documented strategy is not built yet"
NOT_BUILT: dict[str, dict[str, str]] = {
    UTH: {"base": _BASE, "ante": _BASE, "blind": _BASE, "play": _BASE,
          "bad_beat": "depends on the player's and the dealer's hands (R24b); simulation is not built yet",
          "envy": "depends on the other seats' hands (R24); not built yet"},
    JHE: {"base": _BASE, "ante": _BASE, "xtra_bonus": _BASE, "play": _BASE},
    HCF: {"base": _BASE, "ante": _BASE, "raise": _BASE,
          "envy": "depends on the other seats' hands (R18a); not built yet"},
    RET: {"base": _BASE, "ante_1": _BASE, "ante_2": _BASE, "first_run": _BASE, "second_run": _BASE,
          "center": _BASE, "run": _BASE,
          "progressive": "the better of two Run hands sharing the center card (R29): exact counting is not built yet",
          "envy": "depends on the other seats' hands (R29); not built yet"},
}

PROGRESSIVE_UNIT = 1


class AnalysisError(ValueError):
    """A bad argument: ``argument`` names it (``--game``, ``--wager``, ...)."""

    def __init__(self, argument: str, message: str):
        super().__init__(f"{argument}: {message}")
        self.argument = argument


Progress = Callable[[int, int], None]

# -- choosing the table -------------------------------------------------------------------------


def resolve(game: str | None, wager: str | None, letter: str | None) -> Paytable:
    """The paytable of an analysis, or ``AnalysisError`` naming the bad argument."""
    if not game:
        raise AnalysisError("--game", f"required: one of {', '.join(GAMES)}")
    if game not in GAMES:
        raise AnalysisError("--game", f"unknown game {game!r}: one of {', '.join(GAMES)}")
    if not wager:
        raise AnalysisError("--wager", f"required: one of {', '.join(EXACT[game])}")
    if wager in NOT_BUILT[game]:
        raise AnalysisError("--wager", f"{wager!r} of {game}: {NOT_BUILT[game][wager]}")
    if wager not in EXACT[game]:
        raise AnalysisError("--wager", f"unknown wager {wager!r} for {game}: one of {', '.join(EXACT[game])}")
    offered = letters(game, wager)
    if letter is None:
        if len(offered) != 1:
            raise AnalysisError("--paytable", f"required for {game} {wager}: one of {', '.join(offered)}")
    elif letter not in offered:
        raise AnalysisError(
            "--paytable", f"no paytable {letter!r} for {game} {wager}: the rules offer {', '.join(offered)}"
        )
    return paytable(game, wager, letter)


def parse_meters(table: Paytable, given: Iterable[str]) -> dict[str, Decimal]:
    """The meter amounts: ``NAME=AMOUNT`` items over the rules' minimum reset amounts."""
    used = table.meters
    minimums = METER_MINIMUMS.get((table.game, table.letter), {}) if used else {}
    meters = {m: minimums[m] for m in used}
    for item in given:
        name, sep, amount = item.partition("=")
        if not sep or not name:
            raise AnalysisError("--meter", f"{item!r}: expected NAME=AMOUNT, e.g. meter=12000.00")
        if name not in used:
            uses = f"pays from {', '.join(used)}" if used else "pays from no meter"
            raise AnalysisError(
                "--meter", f"{name!r}: {table.game} {table.wager} paytable {table.letter} {uses}"
            )
        try:
            value = Decimal(amount)
        except InvalidOperation:
            raise AnalysisError("--meter", f"{item!r}: {amount!r} is not an amount") from None
        if not value.is_finite() or value != value.quantize(Decimal("0.01")):
            raise AnalysisError("--meter", f"{item!r}: an amount in dollars with at most two decimals")
        if value < minimums[name]:
            raise AnalysisError(
                "--meter", f"{item!r}: below the rules' minimum reset amount {meter_display(minimums[name])} (R4)"
            )
        meters[name] = value
    return meters


# -- the return of one line ----------------------------------------------------------------------


def line_return(pays, meters: Mapping[str, Decimal]) -> Fraction:
    """What a unit wager returns, stake included, when the line is paid (R2, R3, R4, R21a)."""
    if isinstance(pays, Odds):
        ratio = Fraction(pays.numerator, pays.denominator)
        return ratio + 1 if pays.word == "to" else ratio
    if isinstance(pays, Push):
        return Fraction(1)
    if isinstance(pays, FixedAmount):  # R21a: net +D whatever the wager; the wager stays
        return Fraction(pays.dollars) + 1
    if isinstance(pays, FixedPerUnit):  # R3: D per $1 unit; the wager was collected
        return Fraction(pays.dollars) * PROGRESSIVE_UNIT / PROGRESSIVE_UNIT
    if isinstance(pays, MeterPercent):  # R3, R4: p x meter to the cent, whatever the unit
        return Fraction(round_cents(meters[pays.meter] * pays.percent / 100)) / PROGRESSIVE_UNIT
    raise TypeError(type(pays).__name__)  # pragma: no cover


# -- classes of hands and their counts ------------------------------------------------------------

# One representative five-card hand per category (the pair by its rank, the royal by its suit).
_REPRESENTATIVE = {
    "high_card": "2c 4d 6h 8s Tc",
    "two_pair": "5c 5d 9h 9s Kc",
    "three_of_a_kind": "7c 7d 7h 2s Kc",
    "straight": "5c 6d 7h 8s 9c",
    "flush": "2h 5h 7h 9h Jh",
    "full_house": "4c 4d 4h Qs Qc",
    "four_of_a_kind": "8c 8d 8h 8s 3c",
    "straight_flush": "9h 8h 7h 6h 5h",
}


def _cards(text: str) -> list[Card]:
    return [parse_card(t) for t in text.split()]


def _representative(category: int, pair_rank: int = 0, royal_suit: str = "s") -> list[Card]:
    if category == ROYAL_FLUSH:
        hand = [parse_card(r + royal_suit) for r in "AKQJT"]
    elif category == PAIR:
        kickers = [r for r in (14, 13, 12, 11, 2) if r != pair_rank][:3]
        hand = [c for c in DECK if c.rank == pair_rank and c.suit in "cd"]
        hand += [next(c for c in DECK if c.rank == k and c.suit == s) for k, s in zip(kickers, "hsc")]
    else:
        hand = _cards(_REPRESENTATIVE[CATEGORY_NAMES[category]])
    assert best_hand(hand).category == category, (category, hand)
    return hand


_COUNTS: dict[int, batch.Counts] = {}


def poker_counts(k: int, progress: Progress | None = None) -> batch.Counts:
    """Category counts of every k-card hand (one enumeration per process, then kept)."""
    if k not in _COUNTS:
        _COUNTS[k] = batch.count_categories(k, progress=progress)
    return _COUNTS[k]


def _poker_classes(
    k: int, made_of: Callable[[list[Card]], frozenset[str]], progress: Progress | None
) -> list[tuple[frozenset[str], int]]:
    """(lines made, count) for every class of k-card hands: the category, the pair's rank, the royal's suit."""
    counts = poker_counts(k, progress)
    classes: list[tuple[frozenset[str], int]] = []
    for cat in range(10):
        if cat == PAIR:
            for r in range(2, ACE + 1):
                classes.append((made_of(_representative(PAIR, pair_rank=r)), int(counts.pair_by_rank[r])))
        elif cat == ROYAL_FLUSH:
            for s, suit in enumerate(SUIT_CHARS):
                classes.append((made_of(_representative(cat, royal_suit=suit)), int(counts.royal_by_suit[s])))
        else:
            classes.append((made_of(_representative(cat)), int(counts.categories[cat])))
    assert sum(n for _, n in classes) == comb(52, k)
    return classes


def _best_five_lines(cards: list[Card]) -> frozenset[str]:
    return lines_made(best_hand(cards))


def _jackpot_lines(cards: list[Card]) -> frozenset[str]:
    return jackpot_lines_made(best_hand(cards))


def _six_card_bonus_classes(progress: Progress | None) -> list[tuple[frozenset[str], int]]:
    """Six cards: the best five by category (R21), and the super royal hands on their own."""
    classes = _poker_classes(6, _best_five_lines, progress)  # the four royal classes last, in suit order
    # A-K-Q-J-10-9 of one suit: exactly these four six-card hands (R21); each was counted above
    # as a royal flush of its suit, which is taken back here.
    first_royal = len(classes) - 4
    for s, suit in enumerate(SUIT_CHARS):
        hand = [parse_card(r + suit) for r in "AKQJT9"]
        assert batch.categorise(batch.hand_indices([hand]))[0] == ROYAL_FLUSH
        made, n = classes[first_royal + s]
        assert made == _best_five_lines(_representative(ROYAL_FLUSH, royal_suit=suit))
        classes[first_royal + s] = (made, n - 1)
        classes.append((six_card_bonus_made(hand[:2], hand[2:]), 1))
    return classes


def _ultimate_pairs_classes(table: Paytable) -> tuple[int, list[tuple[frozenset[str], int]]]:
    """The player's two cards; with the dealer's two as well when a line names them (R22)."""
    with_dealer = any("dealer" in line.key for line in table.lines)
    per_player = comb(50, 2) if with_dealer else 1
    classes: list[tuple[frozenset[str], int]] = []
    for player in combinations(DECK, 2):
        made = ultimate_pairs_made(player)
        if with_dealer and "pair_of_aces" in made:
            # only a pair of aces can make the dealer line (R22): every dealer pair is counted
            rest = [c for c in DECK if c not in player]
            for dealer in combinations(rest, 2):
                classes.append((ultimate_pairs_made(player, dealer), 1))
        else:
            classes.append((made, per_player))
    space = comb(52, 2) * per_player
    assert sum(n for _, n in classes) == space
    return space, classes


# -- High Card Flush: by suit ----------------------------------------------------------------------


def _suit_cards(mask: int, suit: str = "c") -> list[Card]:
    return [c for c in DECK if c.suit == suit and mask >> (c.rank - 2) & 1]


@functools.cache
def _suit_lines(mask: int) -> frozenset[str]:
    """The HCF lines one suit's cards make (13-bit mask, bit r-2 = rank r): what a hand makes is the union."""
    cards = _suit_cards(mask)
    n = len(cards)
    made = {f"flush_{k}" for k in range(4, n + 1)}  # ch.7 §F(2): four-card or longer (P17)
    run = straight_flush_run(cards).length if cards else 0
    made |= {f"straight_flush_{k}" for k in range(3, run + 1)}  # R17, P17
    if has_suited_nine_to_ace(cards):
        made.add("suited_nine_ten_jack_queen_king_ace")  # R18
    return frozenset(made)


def _hcf_wager_lines(wager: str, made: frozenset[str]) -> frozenset[str]:
    """What ``games.high_card_flush.lines_made`` gives this wager: flushes, or runs (and the suited 9-A)."""
    if wager == "flush_bonus":
        return frozenset(m for m in made if m.startswith("flush_"))
    return frozenset(m for m in made if not m.startswith("flush_"))


def _index(table: Paytable, made: frozenset[str]) -> int:
    line = table.line_for(made)
    return len(table.lines) if line is None else table.lines.index(line)


def hcf_line_index(table: Paytable, cards: list[Card]) -> int:
    """The line a seven-card hand earns, computed suit by suit as the counting does (for tests)."""
    best = len(table.lines)
    for suit in SUIT_CHARS:
        mask = sum(1 << (c.rank - 2) for c in cards if c.suit == suit)
        best = min(best, _index(table, _hcf_wager_lines(table.wager, _suit_lines(mask))))
    if table.wager == "straight_flush_bonus" and max(sum(c.rank == r for c in cards) for r in range(2, 15)) == 4:
        best = min(best, _index(table, frozenset({"four_of_a_kind"})))
    return best


def _poly_pow4_coeff(poly: list[int], degree: int) -> int:
    def mul(a: list[int], b: list[int]) -> list[int]:
        out = [0] * (len(a) + len(b) - 1)
        for i, x in enumerate(a):
            if x:
                for j, y in enumerate(b):
                    out[i + j] += x * y
        return out

    sq = mul(poly, poly)
    full = mul(sq, sq)
    return full[degree] if degree < len(full) else 0


def _hcf_line_counts(table: Paytable) -> tuple[int, list[int], int]:
    """Exact counts of each line over all C(52,7) hands, by per-suit generating polynomials."""
    n_lines = len(table.lines)
    idx = [_index(table, _hcf_wager_lines(table.wager, _suit_lines(m))) for m in range(1 << 13)]
    pops = [m.bit_count() for m in range(1 << 13)]
    quad_line = n_lines
    if table.wager == "straight_flush_bonus":
        quad_line = _index(table, frozenset({"four_of_a_kind"}))  # R19 (G only)

    def at_least(i: int, rank_bit: int | None = None) -> int:
        """Hands whose every suit earns line i or lower (index >= i); with ``rank_bit`` in every suit."""
        poly = [0] * 14
        for m in range(1 << 13):
            if idx[m] >= i and (rank_bit is None or m >> rank_bit & 1):
                poly[pops[m]] += 1
        return _poly_pow4_coeff(poly, 7)

    # At most one four of a kind among seven cards, so the hands with quads are a disjoint union by rank.
    h = []
    for i in range(n_lines + 1):
        total = at_least(i)
        if quad_line < n_lines:
            quads = sum(at_least(i, r) for r in range(13))
            total = total - quads + (quads if i <= quad_line else 0)
        h.append(total)
    counts = [h[i] - h[i + 1] for i in range(n_lines)]
    return comb(52, 7), counts, h[n_lines]


# -- the analysis ------------------------------------------------------------------------------------


def _line_counts(table: Paytable, progress: Progress | None) -> tuple[int, list[int], int]:
    game, wager = table.game, table.wager
    if game == HCF:
        return _hcf_line_counts(table)
    if wager == "ultimate_pairs":
        space, classes = _ultimate_pairs_classes(table)
    elif wager == "six_card_bonus":
        space, classes = comb(52, 6), _six_card_bonus_classes(progress)
    elif wager in ("play_the_board", "five_card_bonus"):
        space, classes = comb(52, 5), _poker_classes(5, _best_five_lines, progress)
    elif game == JHE and wager == "progressive":
        space, classes = comb(52, 7), _poker_classes(7, _jackpot_lines, progress)
    else:  # UTH trips and progressive, JHE player bonus
        space, classes = comb(52, 7), _poker_classes(7, _best_five_lines, progress)
    counts = [0] * len(table.lines)
    losing = 0
    for made, n in classes:
        i = _index(table, made)
        if i == len(table.lines):
            losing += n
        else:
            counts[i] += n
    return space, counts, losing


def analyze(
    game: str | None,
    wager: str | None,
    letter: str | None,
    meter_args: Iterable[str] = (),
    progress: Progress | None = None,
) -> dict:
    """The par sheet of one wager (shared/contracts/analyze.md), as its JSON object."""
    table = resolve(game, wager, letter)
    meters = parse_meters(table, meter_args)
    space, counts, losing = _line_counts(table, progress)
    assert losing + sum(counts) == space
    total = sum((n * line_return(line.pays, meters) for n, line in zip(counts, table.lines)), Fraction(0))
    ret = total / space
    out: dict = {
        "game": table.game,
        "wager": table.wager,
        "paytable": table.letter,
        "method": "exact",
        "space": space,
        "lines": [
            {"line": line.key, "pays": line.pays.text, "count": n} for line, n in zip(table.lines, counts)
        ],
        "losing_count": losing,
        "return": _six(ret),
        "house_edge": _six(1 - ret),
        "return_exact": f"{ret.numerator}/{ret.denominator}",
    }
    if meters:
        out["meters"] = {m: meter_display(a) for m, a in meters.items()}
        out["progressive_unit"] = PROGRESSIVE_UNIT
    return out


def _six(x: Fraction) -> Decimal:
    """``x`` rounded half up to six decimals, exactly (never through float)."""
    return Decimal(math.floor(x * 10**6 + Fraction(1, 2))).scaleb(-6)
