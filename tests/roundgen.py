"""Random legal rounds of each game, in the settle contract's JSON form.

Used by the property tests and by the benchmark.  The generator knows the
contract and the rules' limits, not the engine: legality of an HCF raise is
computed here from the suit counts (RULINGS R16), independently of
games.high_card_flush.
"""

from __future__ import annotations

import random
from collections import Counter
from decimal import Decimal

from games.cards import DECK
from games.paytables import METER_MINIMUMS, letters, paytable
from games.registry import GAMES as REGISTRY

#: every game the table runs (the registry): a game this generator has no rounds for is refused below,
#: so that a new game's property tests fail until it is taught the game (docs/new-game.md)
GAMES = tuple(REGISTRY)
#: the games whose rounds this generator builds (written here from the rules, not read from the engine)
KNOWN = frozenset({"ultimate_texas_holdem", "jackpot_holdem", "high_card_flush", "run_em_twice"})
ANTES = [Decimal(x) for x in ("5", "7.50", "10", "15", "25", "100", "0.05", "1000", "12.35")]


def _pick_letter(rng: random.Random, game: str, wager: str) -> str:
    return rng.choice(letters(game, wager))


def _progressive(rng: random.Random, game: str, letter: str, envy: bool) -> dict:
    minimums = METER_MINIMUMS[(game, letter)]
    table = paytable(game, "progressive", letter)
    meters, reset = {}, {}
    for meter in set(minimums) | set(table.meters):
        floor = minimums.get(meter, Decimal(0))
        reset[meter] = floor
        meters[meter] = floor + Decimal(rng.randrange(0, 5_000_000)) / 100
    unit = rng.choice([Decimal(1), Decimal(5)])
    block: dict = {"unit": unit, "meters": meters, "reset": reset}
    if envy and game != "jackpot_holdem":  # JHE has no Envy Bonus
        envy_letters = letters(game, "envy")
        if game == "high_card_flush":
            if letter in envy_letters:
                block["envy"] = letter
        else:
            block["envy"] = rng.choice(envy_letters)
        block["envy_requires_progressive_wager"] = rng.random() < 0.7
    return block


def random_round(rng: random.Random, game: str, seats: int | None = None, all_wagers: bool = False) -> dict:
    """One legal round of ``game``; ``seats`` occupied seats (1..6, random when None)."""
    if game not in KNOWN:
        raise ValueError(f"tests/roundgen.py builds no rounds of {game!r} yet: teach it the game's wagers and cards")
    deck = list(DECK)
    rng.shuffle(deck)
    texts = [c.text for c in deck]
    n = seats if seats is not None else rng.randint(1, 6)
    seat_numbers = sorted(rng.sample(range(1, 7), n))
    offered = lambda: all_wagers or rng.random() < 0.5  # noqa: E731

    round_: dict = {"game": game, "paytables": {}}
    side: list[str]
    if game == "ultimate_texas_holdem":
        side = ["trips", "six_card_bonus", "ultimate_pairs", "bad_beat", "play_the_board"]
        round_["paytables"]["blind"] = _pick_letter(rng, game, "blind")
        for w in side:
            round_["paytables"][w] = _pick_letter(rng, game, w)
    elif game == "jackpot_holdem":
        side = ["player_bonus"]
    elif game == "high_card_flush":
        side = ["flush_bonus", "straight_flush_bonus"]
        for w in side:
            round_["paytables"][w] = _pick_letter(rng, game, w)
    else:
        side = ["five_card_bonus", "ultimate_pairs"]
        round_["paytables"]["ultimate_pairs"] = _pick_letter(rng, game, "ultimate_pairs")

    with_progressive = all_wagers or rng.random() < 0.7
    if with_progressive:
        letter = _pick_letter(rng, game, "progressive")
        round_["paytables"]["progressive"] = letter
        round_["progressive"] = _progressive(rng, game, letter, envy=all_wagers or rng.random() < 0.7)
    if rng.random() < 0.5:
        round_["payout_limit"] = rng.choice([Decimal(50000), Decimal(75000.50), Decimal(1000000)])

    if game in ("ultimate_texas_holdem", "jackpot_holdem"):
        round_["dealer"] = [texts.pop(), texts.pop()]
        round_["community"] = [texts.pop() for _ in range(5)]
    elif game == "high_card_flush":
        round_["dealer"] = [texts.pop() for _ in range(7)]
    else:
        round_["community"] = {k: texts.pop() for k in ("left", "center", "right", "top", "bottom")}
    if game == "ultimate_texas_holdem":
        round_["bonus_cards"] = [texts.pop() for _ in range(4)]

    round_["seats"] = []
    for number in seat_numbers:
        ante = rng.choice(ANTES)
        hole = 7 if game == "high_card_flush" else 2
        cards = [texts.pop() for _ in range(hole)]
        seat: dict = {"seat": number, "cards": cards, "wagers": {}}
        w = seat["wagers"]
        if game == "ultimate_texas_holdem":
            w.update(ante=ante, blind=ante)
        elif game == "jackpot_holdem":
            w.update(ante=ante, xtra_bonus=ante)
        elif game == "run_em_twice":
            w.update(ante_1=ante, ante_2=ante)
        else:
            w.update(ante=ante)
        for s in side:
            if s == "six_card_bonus" and "trips" not in w:
                continue  # R21b
            if offered():
                w[s] = rng.choice(ANTES)
        if with_progressive and offered():
            w["progressive"] = round_["progressive"]["unit"]
        seat.update(_decision(rng, game, cards))
        round_["seats"].append(seat)
    rng.shuffle(round_["seats"])  # the input order of seats must not matter
    return round_


def _decision(rng: random.Random, game: str, cards: list[str]) -> dict:
    fold = rng.random() < 0.25
    if game == "ultimate_texas_holdem":
        return {"fold": True} if fold else {"play": rng.choice([4, 3, 2, 1])}
    if game == "jackpot_holdem":
        return {"fold": True} if fold else {"play": rng.choice([3, 2, 1])}
    if game == "high_card_flush":
        longest = max(Counter(c[1] for c in cards).values())
        top = 3 if longest >= 6 else 2 if longest == 5 else 1  # RULINGS R16
        return {"fold": True} if fold else {"raise": rng.randint(1, top)}
    made = rng.randint(0, 3)
    bets = [rng.randint(1, 3) for _ in range(made)]
    if made < 3:
        return {"bets": bets, "fold": True}
    return {"bets": bets}
