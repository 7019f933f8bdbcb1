"""Par sheets: the return of each wager under each paytable letter (``tablectl analyze``).

Contract: shared/contracts/analyze.md.  Two methods: ``exact`` counts every equally likely outcome of the
cards the wager depends on, in integers, and computes the return with ``Fraction``; ``simulation``
(``games.simulation``) plays the base games and the UTH Bad Beat.  Which lines a hand makes is always decided
by the game's own code, and the paytable pays the highest line made (``Paytable.line_for``, RULINGS R5).
The spaces counted, the returns per unit and the progressive's review: docs/analysis.md.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from fractions import Fraction
from itertools import combinations
from math import comb
from typing import Any

from games import batch
from games.cards import ACE, DECK, SUIT_CHARS, Card, parse_card
from games.high_card_flush import has_suited_nine_to_ace, straight_flush_run
from games.meter_model import house_seeding
from games.money import display, meter_display
from games.paytable import MeterPercent, Paytable
from games.paytables import METER_MINIMUMS, letters, paytable
from games.poker import CATEGORY_NAMES, ROYAL_FLUSH
from games.progressive_return import (
    best_five_lines,
    break_even_meter,
    five_card_lines_of,
    hand_classes,
    line_index,
    representative_hand,
    table_return,
    tally,
)
from games.progressive_return import (
    line_return as line_return,  # re-exported: the par sheets' tests read it here
)
from games.registry import GAMES
from games.ultimate_pairs import ultimate_pairs_made
from games.ultimate_texas_holdem import six_card_bonus_made

UTH, JHE, HCF, RET = "ultimate_texas_holdem", "jackpot_holdem", "high_card_flush", "run_em_twice"

#: The wagers counted exactly here, per game.
EXACT: dict[str, tuple[str, ...]] = {
    UTH: ("trips", "six_card_bonus", "ultimate_pairs", "play_the_board", "progressive", "envy"),
    JHE: ("player_bonus", "progressive"),
    HCF: ("flush_bonus", "straight_flush_bonus", "progressive", "envy"),
    RET: ("five_card_bonus", "ultimate_pairs", "progressive", "envy"),
}

#: The wagers simulated (games.simulation), per game.
SIMULATED: dict[str, tuple[str, ...]] = {
    UTH: ("base", "bad_beat"),
    JHE: ("base",),
    HCF: ("base",),
    RET: ("base",),
}

#: Simulated wagers counted exactly too: the count answers unless ``--rounds`` asks for the simulation (the
#: base games likewise, from their stored sheets: games.par).  The Bad Beat's count: games.par.bad_beat.
COUNTED_TOO: dict[str, tuple[str, ...]] = {UTH: ("bad_beat",)}


def simulated(game: str, wager: str, rounds: int | None) -> bool:
    """Whether ``tablectl analyze`` simulates this wager (a base game: see _exact_base_wanted)."""
    return wager in SIMULATED.get(game, ()) and not (wager in COUNTED_TOO.get(game, ()) and rounds is None)

#: The parts of each base game: analysed together as ``base`` (refused alone, naming ``base``).
PART_OF_BASE: dict[str, tuple[str, ...]] = {
    UTH: ("ante", "blind", "play"),
    JHE: ("ante", "xtra_bonus", "play"),
    HCF: ("ante", "raise"),
    RET: ("ante_1", "ante_2", "first_run", "second_run", "center", "run"),
}

#: The paytable each base game is played with (``--paytable`` names its letter); HCF has none.
BASE_PAYTABLE: dict[str, str | None] = {UTH: "blind", JHE: "xtra_bonus", HCF: None, RET: "run"}

#: Default number of simulated rounds: each runs in well under a minute on two cores.
DEFAULT_ROUNDS: dict[tuple[str, str], int] = {
    (UTH, "base"): 1_000_000,
    (JHE, "base"): 1_000_000,
    (HCF, "base"): 1_000_000,
    (RET, "base"): 600_000,
}
DEFAULT_SEED = 1

#: Envy Bonus: the other seats assumed to hold a Progressive wager, by default a full table
#: (six seats, RULINGS R1).  Every one of them keeps its cards on the layout (R24c).
DEFAULT_OTHER_SEATS = 5
MAX_OTHER_SEATS = 5

#: The Progressive unit when ``--unit`` is not given (RULINGS R3: the paytables state $1 amounts).
DEFAULT_PROGRESSIVE_UNIT = Decimal(1)


class AnalysisError(ValueError):
    """A bad argument: ``argument`` names it (``--game``, ``--wager``, ...)."""

    def __init__(self, argument: str, message: str):
        super().__init__(f"{argument}: {message}")
        self.argument = argument


Progress = Callable[[int, int], None]

# -- choosing the table -------------------------------------------------------------------------


def analysable(game: str) -> tuple[str, ...]:
    """Every wager ``tablectl analyze`` takes for ``game``."""
    return SIMULATED[game] + EXACT[game]


def resolve(game: str | None, wager: str | None, letter: str | None) -> Paytable | None:
    """The paytable of an analysis (None: the HCF base game, which has none), or ``AnalysisError``
    naming the bad argument."""
    if not game:
        raise AnalysisError("--game", f"required: one of {', '.join(GAMES)}")
    if game not in GAMES:
        raise AnalysisError("--game", f"unknown game {game!r}: one of {', '.join(GAMES)}")
    if not wager:
        raise AnalysisError("--wager", f"required: one of {', '.join(analysable(game))}")
    if wager in PART_OF_BASE[game]:
        raise AnalysisError(
            "--wager",
            f"{wager!r} is part of the {game} base game, whose wagers depend on each other through the "
            f"player's decisions: analyse them together with --wager base (its \"wagers\" give each one's share)",
        )
    if wager not in analysable(game):
        raise AnalysisError("--wager", f"unknown wager {wager!r} for {game}: one of {', '.join(analysable(game))}")
    name = BASE_PAYTABLE[game] if wager == "base" else wager
    if name is None:
        if letter is not None:
            raise AnalysisError(
                "--paytable", f"{game} base has no paytable (Ante and Raise pay 1 to 1, HCF ch.12 §A): omit it"
            )
        return None
    offered = letters(game, name)
    what = f"{game} {wager}" + (f" (its {name.replace('_', ' ')} paytable)" if wager == "base" else "")
    if letter is None:
        if len(offered) != 1:
            raise AnalysisError("--paytable", f"required for {what}: one of {', '.join(offered)}")
    elif letter not in offered:
        raise AnalysisError("--paytable", f"no paytable {letter!r} for {what}: the rules offer {', '.join(offered)}")
    return paytable(game, name, letter)


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


# -- classes of hands and their counts ------------------------------------------------------------

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
    classes = hand_classes(
        made_of,
        [int(n) for n in counts.categories],
        {r: int(counts.pair_by_rank[r]) for r in range(2, ACE + 1)},
        {suit: int(counts.royal_by_suit[s]) for s, suit in enumerate(SUIT_CHARS)},
    )
    assert sum(n for _, n in classes) == comb(52, k)
    return classes


def _six_card_bonus_classes(progress: Progress | None) -> list[tuple[frozenset[str], int]]:
    """Six cards: the best five by category (R21), and the super royal hands on their own."""
    classes = _poker_classes(6, best_five_lines, progress)  # the four royal classes last, in suit order
    # A-K-Q-J-10-9 of one suit: exactly these four six-card hands (R21); each was counted above
    # as a royal flush of its suit, which is taken back here.
    first_royal = len(classes) - 4
    for s, suit in enumerate(SUIT_CHARS):
        hand = [parse_card(r + suit) for r in "AKQJT9"]
        assert batch.categorise(batch.hand_indices([hand]))[0] == ROYAL_FLUSH
        made, n = classes[first_royal + s]
        assert made == best_five_lines(representative_hand(ROYAL_FLUSH, royal_suit=suit))
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
    made = {f"flush_{k}" for k in range(4, n + 1)}  # HCF ch.7 §F(2): four-card or longer (P17)
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


@functools.cache
def _suit_line_indices(table: Paytable) -> tuple[int, ...]:
    """For each 13-bit mask of one suit's ranks, the index of the line of ``table`` those cards alone
    earn (``len(table.lines)``: none); found once per table."""
    return tuple(line_index(table, _hcf_wager_lines(table.wager, _suit_lines(m))) for m in range(1 << 13))


def hcf_line_index(table: Paytable, cards: list[Card]) -> int:
    """The line a seven-card hand earns, computed suit by suit as the counting does (for tests)."""
    best = len(table.lines)
    idx = _suit_line_indices(table)
    for suit in SUIT_CHARS:
        mask = sum(1 << (c.rank - 2) for c in cards if c.suit == suit)
        best = min(best, idx[mask])
    if table.wager == "straight_flush_bonus" and max(sum(c.rank == r for c in cards) for r in range(2, 15)) == 4:
        best = min(best, line_index(table, frozenset({"four_of_a_kind"})))
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
    idx = _suit_line_indices(table)
    pops = [m.bit_count() for m in range(1 << 13)]
    quad_line = n_lines
    if table.wager == "straight_flush_bonus":
        quad_line = line_index(table, frozenset({"four_of_a_kind"}))  # R19 (G only)

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
    if wager in ("progressive", "envy"):
        # UTH, JHE: the two cards and the first three community cards (R24a); RET: the 1st Run
        # hand (R29): five cards, every five-card hand counted (JHE splits the royal by suit, R13).
        space, classes = comb(52, 5), _poker_classes(5, five_card_lines_of(game), progress)
    elif wager == "ultimate_pairs":
        space, classes = _ultimate_pairs_classes(table)
    elif wager == "six_card_bonus":
        space, classes = comb(52, 6), _six_card_bonus_classes(progress)
    elif wager in ("play_the_board", "five_card_bonus"):
        space, classes = comb(52, 5), _poker_classes(5, best_five_lines, progress)
    elif wager == "bad_beat":
        # R24b: the losing hand of the player's and the dealer's, counted over every deal (games.par.bad_beat);
        # its lines are categories only (asserted), so a category's representative hand makes them
        from games.par import bad_beat

        assert all(line.key in CATEGORY_NAMES for line in table.lines), table.lines
        space, classes = bad_beat.stored_classes(lambda c: best_five_lines(representative_hand(c)))
    else:  # UTH Trips, JHE Player Bonus: the best five of seven cards
        space, classes = comb(52, 7), _poker_classes(7, best_five_lines, progress)
    counts, losing = tally(table, classes)
    return space, counts, losing


def _exact_return(
    table: Paytable, meters: Mapping[str, Decimal], progress: Progress | None, unit: Decimal = Decimal(1)
) -> tuple[int, list[int], int, Fraction]:
    space, counts, losing = _line_counts(table, progress)
    assert losing + sum(counts) == space
    return space, counts, losing, table_return(table, space, counts, meters, unit)


def _int_arg(name: str, value: int | None, default: int, low: int, high: int | None = None) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"{low} to {high}" if high is not None else f"at least {low}"
        raise AnalysisError(name, f"{value!r}: a whole number, {bound}")
    return value


def parse_unit(text: str | Decimal | None) -> Decimal:
    """The Progressive unit (RULINGS R3): dollars and cents, more than 0; default $1."""
    if text is None:
        return DEFAULT_PROGRESSIVE_UNIT
    try:
        value = Decimal(text)
    except (InvalidOperation, TypeError):
        raise AnalysisError("--unit", f"{text!r} is not an amount") from None
    if not value.is_finite() or value <= 0 or value != value.quantize(Decimal("0.01")):
        raise AnalysisError("--unit", f"{text!r}: an amount in dollars with at most two decimals, more than 0")
    return value


def parse_rates(table: Paytable, given: Iterable[str]) -> dict[str, Decimal]:
    """The contribution rates: ``NAME=FRACTION`` items (the fraction of each Progressive wager added to
    that meter), 0 for a meter not given -- the rules leave the rates to the operator (e.g. JHE ch.12
    §E(1)); together less than 1."""
    rates = {m: Decimal(0) for m in table.meters}
    for item in given:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise AnalysisError("--rate", f"{item!r}: expected NAME=FRACTION, e.g. meter=0.05")
        if name not in rates:
            uses = f"pays from {', '.join(table.meters)}" if table.meters else "pays from no meter"
            raise AnalysisError("--rate", f"{name!r}: {table.game} {table.wager} paytable {table.letter} {uses}")
        try:
            value = Decimal(text)
        except InvalidOperation:
            raise AnalysisError("--rate", f"{item!r}: {text!r} is not a fraction") from None
        if not value.is_finite() or not 0 <= value < 1:
            raise AnalysisError("--rate", f"{item!r}: a fraction of each wager, at least 0 and less than 1")
        rates[name] = value
    if sum(rates.values()) >= 1:
        raise AnalysisError("--rate", f"the rates together take {sum(rates.values())} of each wager: less than 1")
    return rates


def parse_hidden_rates(table: Paytable, given: Iterable[str], rates: Mapping[str, Decimal]) -> dict[str, Decimal]:
    """The hidden rates (``NAME=FRACTION``, P114): each at most its meter's rate (the part of it held in
    reserve, N.J.A.C. 13:69E-1.39A(a)5)."""
    hidden = parse_rates(table, given)
    for m, h in hidden.items():
        if h > rates[m]:
            raise AnalysisError("--hidden-rate", f"{m}={h}: at most the meter's rate ({rates[m]})")
    return hidden


def analyze(
    game: str | None,
    wager: str | None,
    letter: str | None,
    meter_args: Iterable[str] = (),
    progress: Progress | None = None,
    *,
    rounds: int | None = None,
    seed: int | None = None,
    other_seats: int | None = None,
    workers: int | None = None,
    unit: str | Decimal | None = None,
    rate_args: Iterable[str] = (),
    hidden_rate_args: Iterable[str] = (),
    strategy: str | None = None,
    recompute: bool = False,
) -> dict[str, Any]:
    """The par sheet of one wager (shared/contracts/analyze.md), as its JSON object.

    ``hidden_rate_args`` (``--hidden-rate NAME=FRACTION``): the part of a meter's rate held in reserve for
    the next reset (N.J.A.C. 13:69E-1.39A(a)5, P114); it reaches the meter only as the reset amount it funds,
    which the return at the reset amounts counts already, so the return with contributions adds the rate
    less the hidden rate (``_review``).

    ``rounds`` and ``seed`` are for simulated wagers (``SIMULATED``), ``other_seats`` for the Envy
    Bonus, ``unit`` (default $1) and ``rate_args`` for the Progressive wager and its Envy Bonus; other
    wagers ignore them.  ``workers``: processes for a simulation (default: the CPUs).  The base game
    (``strategy``: optimal or posted, default posted) is answered from its stored exact sheet
    (games.par) unless ``rounds`` is given or there is none; ``recompute`` recomputes the sheet.
    """
    table = resolve(game, wager, letter)
    assert game is not None and wager is not None
    if strategy is not None and wager != "base":
        raise AnalysisError("--strategy", f"for --wager base only: {game} {wager} involves no decision")
    if recompute and wager != "base":
        raise AnalysisError("--recompute", f"for --wager base only: {game} {wager} is counted each time")
    if wager == "base" and _exact_base_wanted(game, table, rounds, strategy, recompute):
        if list(meter_args) or list(rate_args):
            raise AnalysisError("--meter" if list(meter_args) else "--rate", f"{game} base pays from no meter")
        return exact_base(game, table.letter if table is not None else None, strategy or "posted", recompute,
                          progress)
    simulate = simulated(game, wager, rounds)
    rounds = _int_arg("--rounds", rounds, DEFAULT_ROUNDS.get((game, wager), 0), 1)
    seed = _int_arg("--seed", seed, DEFAULT_SEED, 0)
    other_seats = _int_arg("--other-seats", other_seats, DEFAULT_OTHER_SEATS, 0, MAX_OTHER_SEATS)
    progressive_unit = parse_unit(unit)
    if simulate:
        if table is None and list(meter_args):
            raise AnalysisError("--meter", f"{game} {wager} pays from no meter")
        if table is not None:
            parse_meters(table, meter_args)  # no base game or Bad Beat pays from a meter: refuses any
            parse_rates(table, rate_args)  # nor takes a rate
        elif list(rate_args):
            raise AnalysisError("--rate", f"{game} {wager} pays from no meter")
        return _simulated(game, wager, table, rounds, seed, progress, workers)
    assert table is not None
    if wager == "envy":
        return _envy(table, meter_args, rate_args, other_seats, progressive_unit, progress, hidden_rate_args)
    meters = parse_meters(table, meter_args)
    rates = parse_rates(table, rate_args)
    hidden = parse_hidden_rates(table, hidden_rate_args, rates)
    space, counts, losing, ret = _exact_return(table, meters, progress, progressive_unit)
    out = {**_exact_head(table, space, counts, losing),
           "return": _six(ret), "house_edge": _six(1 - ret), "return_exact": _exact(ret)}
    if wager == "progressive":
        out.update(_review(table, space, counts, table, space, counts, meters, rates, progressive_unit, ret, hidden))
    return out


STRATEGIES = ("optimal", "posted")


def _exact_base_wanted(game: str, table: Paytable | None, rounds: int | None, strategy: str | None,
                       recompute: bool) -> bool:
    """The base game's exact sheet, or (False) its simulation: ``--rounds`` asks for a simulation, which
    plays the posted strategy; without it the stored sheet answers where there is one."""
    from games.par import has_stored

    if strategy is not None and strategy not in STRATEGIES:
        raise AnalysisError("--strategy", f"{strategy!r}: one of {', '.join(STRATEGIES)}")
    if rounds is not None:
        if recompute:
            raise AnalysisError("--recompute", "recomputes the exact sheet: omit --rounds")
        if strategy == "optimal":
            raise AnalysisError("--strategy", "optimal is computed exactly, not simulated: omit --rounds")
        return False
    letter = table.letter if table is not None else None
    if recompute or has_stored(game, letter, strategy or "posted"):
        return True
    if strategy == "optimal":
        raise AnalysisError("--strategy", f"no exact sheet of {game} yet: the simulation plays the posted strategy")
    return False


def exact_base(game: str, letter: str | None, strategy: str, recompute: bool,
               progress: Progress | None = None) -> dict[str, Any]:
    """The base game's exact sheet (games.par), with the contract's fields: ``lines`` count the outcomes in
    which the player beat the dealer by the line the hand made; ``return`` and ``house_edge`` per Ante."""
    from games import par
    from games.strategy import STRATEGY_NAMES

    try:
        sheet = par.compute(game, letter, strategy, progress) if recompute else par.stored(game, letter, strategy)
    except par.ParError as e:
        raise AnalysisError("--recompute" if recompute else "--strategy", str(e)) from None
    ret = Fraction(sheet["return_per_ante"])
    lines = sheet.get("lines", [])
    return {
        "game": game,
        "wager": "base",
        "paytable": letter,
        "method": sheet["method"],
        "space": sheet["space"],
        "strategy": strategy,
        "strategy_played": "the exact optimal decisions" if strategy == "optimal" else STRATEGY_NAMES[game],
        "unit": BASE_UNIT[game][0],
        "lines": [{k: line[k] for k in ("line", "pays", "count")} for line in lines],
        "losing_count": sheet["space"] - sum(line["count"] for line in lines),
        "line_counts": _LINE_COUNTS_MEANING[game].replace("rounds", "outcomes")
        + "; losing_count: every other outcome (lost, tied, folded)",
        "return": _six(ret),
        "house_edge": _six(1 - ret),
        "return_exact": sheet["return_per_ante"],
        "house_edge_per_ante": sheet["house_edge_per_ante_decimal"],
        "house_edge_per_total_wagered": sheet["house_edge_per_total_wagered_decimal"],
        "element_of_risk": sheet["element_of_risk_decimal"],
        "average_wagered": sheet["average_total_wagered_per_ante_decimal"],
        "std_dev": sheet["std_dev_per_ante"],
        "decisions": {d["decision"]: d["probability_decimal"] for d in sheet["decisions"]},
        "outcomes": {o["outcome"]: o["probability_decimal"] for o in sheet["outcomes"]},
        "wagers": {k: v["return_share_decimal"] for k, v in sheet["parts"].items()},
        "published": sheet.get("published", []),
        "computed": sheet.get("computed"),
        # the base game with each side wager of one Ante: its std dev, the covariance, the method of each
        "combinations": par.combinations(game, letter, strategy, sheet),
    }


def _exact_head(table: Paytable, space: int, counts: list[int], losing: int) -> dict[str, Any]:
    """The contract's fields of an exact par sheet up to the losing count, lines in paytable order."""
    return {
        "game": table.game,
        "wager": table.wager,
        "paytable": table.letter,
        "method": "exact",
        "space": space,
        "lines": [
            {"line": line.key, "pays": line.pays.text, "count": n} for line, n in zip(table.lines, counts, strict=False)
        ],
        "losing_count": losing,
    }


def _envy(
    table: Paytable,
    meter_args: Iterable[str],
    rate_args: Iterable[str],
    other_seats: int,
    unit: Decimal,
    progress: Progress | None,
    hidden_rate_args: Iterable[str] = (),
) -> dict[str, Any]:
    """The Envy Bonus with the Progressive wager it is paid to (RULINGS R3, R18a, R24, R24c, R29).

    ``lines`` count the hand of one other seat; every one of ``other_seats`` other seats is assumed
    to hold a Progressive wager and to keep its cards on the layout, so each seat with a Progressive
    wager receives, on average, ``other_seats`` times the Envy of one other seat.  The Envy is paid
    to the Progressive wager and has no stake of its own: ``return`` is the Progressive wager's
    return (the Progressive paytable of the same letter -- the only one R18a allows for HCF) plus
    that Envy; ``envy_return`` is the Envy's share, ``envy_per_other_seat`` its share per seat.
    The Envy amounts scale with the unit (R3): per unit they are the same at any unit.
    """
    progressive = paytable(table.game, "progressive", table.letter)
    meters = parse_meters(progressive, meter_args)
    rates = parse_rates(progressive, rate_args)
    hidden = parse_hidden_rates(progressive, hidden_rate_args, rates)
    space, counts, losing, per_seat = _exact_return(table, {}, progress, unit)
    p_space, p_counts, _, progressive_return = _exact_return(progressive, meters, progress, unit)
    ret = progressive_return + other_seats * per_seat
    out: dict[str, Any] = {
        **_exact_head(table, space, counts, losing),
        "other_seats": other_seats,
        "envy_per_other_seat": _six(per_seat),
        "envy_return": _six(other_seats * per_seat),
        "progressive_paytable": progressive.letter,
        "progressive_return": _six(progressive_return),
        "return": _six(ret),
        "house_edge": _six(1 - ret),
        "return_exact": _exact(ret),
    }
    out.update(_review(table, space, counts, progressive, p_space, p_counts, meters, rates, unit, ret, hidden))
    return out


def _review(
    table: Paytable,
    space: int,
    counts: list[int],
    progressive: Paytable,
    p_space: int,
    p_counts: list[int],
    meters: Mapping[str, Decimal],
    rates: Mapping[str, Decimal],
    unit: Decimal,
    ret: Fraction,
    hidden: Mapping[str, Decimal] | None = None,
) -> dict[str, Any]:
    """What a game-math reviewer asks of a progressive, beside the contract's fields (docs/analysis.md).

    ``hidden``: each meter's hidden rate (P114): the return with contributions counts the rate less it (the
    reserve funds the reset amount, already in ``ret``); given, the par sheet says both.

    ``table``/``counts``: the lines of the par sheet (the Envy lines for ``--wager envy``);
    ``progressive``/``p_counts``: the Progressive paytable and its counts; ``ret``: the return at
    the meter amounts given (their reset amounts), Envy included for ``--wager envy``.
    """
    rate = sum(rates.values(), Decimal(0))
    held = sum((hidden or {}).values(), Decimal(0))
    with_rate = ret + Fraction(rate - held)  # the hidden rate funds the reset, counted in ``ret`` (P114)
    paying = sum(counts)
    meter_hits = []
    for meter in progressive.meters:
        lines = [(line.key, n) for line, n in zip(progressive.lines, p_counts, strict=False)
                 if isinstance(line.pays, MeterPercent) and line.pays.meter == meter]
        meter_hits.append({"meter": meter, "lines": [k for k, _ in lines], **_hits(sum(n for _, n in lines), p_space)})
    besides = ret - table_return(progressive, p_space, p_counts, meters, unit)  # the Envy Bonus, if any
    amount = break_even_meter(progressive, p_space, p_counts, meters, unit, besides)
    given = {"hidden_rates": dict(hidden), "meter_rate": rate - held} if hidden and held else {}
    return {
        "meters": {m: meter_display(a) for m, a in meters.items()},
        "progressive_unit": display(unit),
        "rates": {m: r for m, r in rates.items()},
        **given,
        "contribution_rate": rate,
        "return_with_contributions": _six(with_rate),
        "return_with_contributions_exact": _exact(with_rate),
        **_long_run(progressive, p_space, p_counts, meters, rates, hidden or {}, unit, besides),
        "hit_frequency": _hits(paying, space),
        "line_hits": [{"line": line.key, **_hits(n, space)} for line, n in zip(table.lines, counts, strict=False)],
        "meter_hits": meter_hits,
        "break_even_meter": {
            "meter": progressive.meters[0],
            "amount": None if amount is None else meter_display(amount),
        },
    }


def _long_run(
    progressive: Paytable,
    p_space: int,
    p_counts: list[int],
    meters: Mapping[str, Decimal],
    rates: Mapping[str, Decimal],
    hidden: Mapping[str, Decimal],
    unit: Decimal,
    besides: Fraction,
) -> dict[str, Any]:
    """The long-run return under R4 (docs/analysis.md "The long-run return"): every contribution that
    reaches a meter is paid out, so per unit the return is the fixed lines' + the rate less the hidden
    rate + the house's seeding (what R4's floor adds, ``games.meter_model``; the reserve of the hidden
    rate funds it) + the Envy Bonus (``besides``).  ``meters`` are the reset amounts."""
    fixed_counts = [0 if isinstance(line.pays, MeterPercent) else n
                    for line, n in zip(progressive.lines, p_counts, strict=False)]
    fixed = table_return(progressive, p_space, fixed_counts, meters, unit)
    exact = fixed + besides
    approximate = 0.0
    difference = 0.0
    seeding: dict[str, Decimal] = {}
    for meter in progressive.meters:
        lines = tuple((Fraction(n, p_space), line.pays.percent) for line, n in zip(progressive.lines, p_counts,
                      strict=False) if isinstance(line.pays, MeterPercent) and line.pays.meter == meter and n)
        reaching = rates.get(meter, Decimal(0)) - hidden.get(meter, Decimal(0))
        found = house_seeding(meters[meter], reaching * unit, lines)
        exact += Fraction(reaching)
        if found.exact is not None:
            exact += found.exact / Fraction(unit)
            seeding[meter] = _six(found.exact / Fraction(unit))
        else:
            approximate += found.per_wager / float(unit)
            difference += found.error / float(unit)
            seeding[meter] = _six(Fraction(found.per_wager) / Fraction(unit))
    whole = exact + Fraction(approximate)
    return {
        "return_long_run": _six(whole),
        "long_run": {
            "method": "exact" if not approximate else "meter chain",
            "return_exact": _exact(whole) if not approximate else None,
            "seeding_per_unit": seeding,
            "grid_difference": _digits(Fraction(difference), 9),
        },
    }


def _hits(count: int, space: int) -> dict[str, Any]:
    """How often a line (or lines) is hit: the count, the probability, and one hit in how many."""
    return {
        "count": count,
        "probability": _digits(Fraction(count, space), 12),
        "one_in": None if count == 0 else _digits(Fraction(space, count), 2),
    }


def _exact(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


#: What one unit of the return is, per base game, and the initial wagers of that many units.
BASE_UNIT: dict[str, tuple[str, int]] = {
    UTH: ("the Ante; the equal Blind is placed too (2 units initially), as the Wizard of Odds counts it", 2),
    JHE: ("the Ante; the equal X-tra Bonus is placed too (2 units initially), as for UTH", 2),
    HCF: ("the Ante (1 unit initially)", 1),
    RET: ("one Ante; the two equal Antes are placed (2 units initially), as for UTH", 2),
}


def _simulated(
    game: str,
    wager: str,
    table: Paytable | None,
    rounds: int,
    seed: int,
    progress: Progress | None,
    workers: int | None,
) -> dict[str, Any]:
    from games.simulation import Spec, simulate
    from games.strategy import STRATEGY_NAMES

    letter = table.letter if table is not None else None
    tally = simulate(Spec(game, wager, letter), rounds, seed, progress, workers)
    mean = tally.mean()
    low, high = tally.ci95()
    lines = table.lines if table is not None else ()
    out: dict[str, Any] = {
        "game": game,
        "wager": wager,
        "paytable": letter,
        "method": "simulation",
        "rounds": rounds,
        "seed": seed,
        "lines": [{"line": line.key, "pays": line.pays.text, "count": tally.lines[i]} for i, line in enumerate(lines)],
        "return": _six_dec(1 + mean),
        "house_edge": _six_dec(-mean),
        "ci95": [_six_dec(Decimal(repr(-high))), _six_dec(Decimal(repr(-low)))],
    }
    if wager == "base":
        unit, initial = BASE_UNIT[game]
        wagered = tally.wagered / rounds
        out["unit"] = unit
        out["strategy"] = STRATEGY_NAMES[game]
        out["house_edge_per_initial_wagers"] = _six_dec(-mean / initial)
        out["average_wagered"] = _six_dec(wagered)
        out["element_of_risk"] = _six_dec(-mean / wagered)
        out["wagers"] = {k: _six_dec(v / rounds) for k, v in tally.wagers.items()}
        out["decisions"] = dict(sorted(tally.decisions.items()))
        out["outcomes"] = dict(sorted(tally.outcomes.items()))
        out["line_counts"] = _LINE_COUNTS_MEANING[game]
    else:
        out["losing_count"] = tally.outcomes["losing"]
    return out


_LINE_COUNTS_MEANING = {
    UTH: "rounds in which the player beat the dealer, by the Blind line the hand made",
    JHE: "rounds in which the player beat the dealer, by the X-tra Bonus line the hand made",
    HCF: "none: the Ante and Raise pay 1 to 1 (HCF ch.12 §A)",
    RET: "Run hands settled (two per round played to the end), by the Run line made",
}


def _six_dec(x: Decimal) -> Decimal:
    """``x`` rounded half up to six decimals."""
    return x.quantize(Decimal("0.000001"), rounding=ROUND_HALF_UP)


def _six(x: Fraction) -> Decimal:
    """``x`` rounded half up to six decimals, exactly (never through float)."""
    return _digits(x, 6)


def _digits(x: Fraction, places: int) -> Decimal:
    """``x`` rounded half up to ``places`` decimals, exactly (never through float)."""
    return Decimal(math.floor(x * 10**places + Fraction(1, 2))).scaleb(-places)
