"""The payout limit (RULINGS R6): the least limit a table may set, from its wagers' minimums.

Owns ``max_round_win`` (the most one player could win in a round at the table minimums),
``payout_limit_floor`` and the check of ``payout_limit`` against it.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Protocol

from controller.config.values import Add
from controller.config.wagers import WagerConfig
from games.game import Game
from games.money import CENT
from games.paytable import FixedAmount, FixedPerUnit, MeterPercent, Odds, Push
from games.settlement import odds_net

PAYOUT_LIMIT_MINIMUM = Decimal("50000")  # RULINGS R6


class PricedTable(Protocol):
    """What the payout limit is computed from: the table's game, its offered wagers, their paytable
    letters and its limit (``TableConfig`` is one; declared here so that this module, below
    controller/config/table.py, does not import it)."""

    @property
    def game_rules(self) -> Game: ...

    @property
    def wagers(self) -> Mapping[str, WagerConfig]: ...

    @property
    def payout_limit(self) -> Decimal: ...

    def paytable_letters(self) -> dict[str, str]: ...


def _top_net(game: Game, wager_paytable: str, letter: str, amount: Decimal) -> Decimal:
    """The largest net of any line of a paytable on ``amount`` (RULINGS R2, R21a)."""
    best = Decimal(0)
    for line in game.paytable(wager_paytable, letter).lines:
        pays = line.pays
        if isinstance(pays, Odds):
            net = odds_net(amount, pays)
        elif isinstance(pays, FixedAmount):
            net = pays.dollars
        elif isinstance(pays, Push):
            net = Decimal(0)
        elif isinstance(pays, (FixedPerUnit, MeterPercent)):  # pragma: no cover - Progressive/Envy only, never covered
            raise ValueError(f"{wager_paytable} is not covered by the payout limit")
        best = max(best, net)
    return best


def max_round_win(cfg: PricedTable) -> tuple[Decimal, dict[str, Decimal]]:
    """The most one player could win in one round betting the table minimums (RULINGS R6).

    The payout limit covers every wager of the game except the Progressive
    wager, the Envy Bonus and, in UTH, the Six Card Bonus (``Game.not_covered``).
    The bound used here is the **sum**, over every covered wager the table
    offers, of that wager's highest paytable line paid on its own minimum:

    * each Ante (and UTH Blind / JHE X-tra Bonus / RET 2nd Ante, placed equal
      to it) at the Ante's minimum: 1 to 1 (``Game.clauses.even_money``), or its paytable's top
      line (Blind, X-tra Bonus);
    * each decision wager (Play, Raise, 1st/2nd Run, Center) at the largest
      multiple of the minimum Ante the game allows (``Game.streets``): 1 to 1,
      or the Run paytable's top line (RET);
    * each offered side wager at its own minimum, at its top line.

    One player may place every offered wager in the same round, so no round
    can win more than this sum; it is an upper bound of the exact maximum.
    The exact maximum needs the best joint outcome (the Bad Beat's top line,
    for one, needs the player to lose the Ante, Blind and Play), which would
    need a search over hands; the bound errs on the side the rule protects:
    a payout limit at or above it is never below the most a player could win.
    Returns the bound and its parts, wager by wager.
    """
    game = cfg.game_rules
    letters_of = cfg.paytable_letters()
    ante_min = cfg.wagers[game.antes[0]].min
    assert ante_min is not None
    parts: dict[str, Decimal] = {}

    def pays(wager: str, amount: Decimal) -> Decimal:
        name = game.paytable_of.get(wager)
        if name is None:
            return amount  # 1 to 1 (the game's clauses.even_money)
        return _top_net(game, name, letters_of[name], amount)

    for ante in game.antes:
        parts[ante] = pays(ante, ante_min)
    if len(game.decision_wagers) == len(game.streets):
        multiples = [max(st.multiples) for st in game.streets]
    else:
        multiples = [max(m for st in game.streets for m in st.multiples)] * len(game.decision_wagers)
    for wager, k in zip(game.decision_wagers, multiples, strict=False):
        parts[wager] = pays(wager, ante_min * k)
    for wager, w in cfg.wagers.items():
        if wager in game.antes or wager in game.not_covered or wager not in game.wagers:
            continue
        assert w.min is not None
        parts[wager] = pays(wager, w.min)
    return sum(parts.values(), Decimal(0)).quantize(CENT), parts


def payout_limit_floor(cfg: PricedTable) -> tuple[Decimal, dict[str, Decimal]]:
    """The least payout limit allowed: the greater of $50,000 and ``max_round_win`` (RULINGS R6)."""
    most, parts = max_round_win(cfg)
    return max(PAYOUT_LIMIT_MINIMUM.quantize(CENT), most), parts


def check_payout_limit(cfg: PricedTable, add: Add) -> None:
    """``payout_limit`` against its floor; run only once the wagers are right (the floor counts from their
    minimums)."""
    floor, parts = payout_limit_floor(cfg)
    if cfg.payout_limit < floor:
        if floor == PAYOUT_LIMIT_MINIMUM:
            why = "$50,000"
        else:
            shown = ", ".join(f"{k} {v}" for k, v in parts.items() if v)
            why = f"the most one player could win in a round at the table minimums ({shown})"
        add("payout_limit", f"must be at least {floor} ({why}; {cfg.game_rules.clauses.payout_limit}, RULINGS R6)")
