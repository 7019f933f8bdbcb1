"""The ``[wagers]`` section: every wager offered, its paytable letter and its table limits.

Owns the wager model, the checks of the offered wagers against the game (its antes, side
wagers and paytables, from ``Game``), and the limits and paytable letters the daemon reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from pydantic import BaseModel

from controller.config.dealing import HAND, MANUAL_SHOE, Procedure
from controller.config.values import STRICT, Add, Money
from games.game import Game

# Every clause cited below is the game's own (``Game.clauses``, ``Game.dealing``, its paytables and
# meters, declared in its module): this module keeps no table by game.
# The UTH Six Card Bonus box is dealt by UTH ch.10 §B(1) only: UTH ch.8 and UTH ch.9 deal no box (P25, P55).
_BONUS_BOX_CLAUSE = "UTH ch.7 §F(4), UTH ch.8 §D, UTH ch.9 §B, UTH ch.10 §B(1); P55"
# Table limits are the operator's (no clause sets them); P56 reads what the validator requires of them.
_LIMITS_RULING = "P56"


class WagerConfig(BaseModel):
    model_config = STRICT

    paytable: str | None = None
    min: Money | None = None
    max: Money | None = None


def _companions(game: Game) -> tuple[str, ...]:
    """The wagers placed equal to the first Ante (UTH Blind, JHE X-tra Bonus, RET 2nd Ante)."""
    return game.antes[1:]


def limits(game: Game, wagers: Mapping[str, WagerConfig], wager: str) -> tuple[Decimal, Decimal]:
    """(min, max) of an offered wager; the Ante's companions share the Ante's."""
    w = wagers[game.antes[0] if wager in _companions(game) else wager]
    assert w.min is not None and w.max is not None  # check() guarantees it
    return w.min, w.max


def paytable_letters(game: Game, wagers: Mapping[str, WagerConfig], progressive: str | None) -> dict[str, str]:
    """The settle contract's ``paytables``: paytable name -> letter, for every offered wager, and the
    Progressive paytable's letter where the table offers the Progressive wager (``progressive``)."""
    out = {}
    for wager, w in wagers.items():
        name = game.paytable_of.get(wager)
        if name is not None:
            out[name] = w.paytable or game.letters(name)[0]
    for name in {game.paytable_of[d] for d in game.decision_wagers if d in game.paytable_of}:
        out[name] = game.letters(name)[0]  # RET: the single Run paytable
    if progressive:
        out["progressive"] = progressive
    return out


def check_wagers(game: Game, offered: Mapping[str, WagerConfig], procedure: Procedure, add: Add) -> None:
    """The offered wagers against the game (its antes, its side wagers, their paytables and limits) and the
    dealing procedure (the Six Card Bonus box)."""
    c = game.clauses
    for ante in game.antes:
        if ante not in offered:
            add(f"wagers.{ante}", f"required: every {game.name} player places it ({c.ante})")
    for wager, w in offered.items():
        where = f"wagers.{wager}"
        if wager == "progressive":
            add(where, "the Progressive wager is configured in [progressive] (its amount is the unit, RULINGS R3)")
            continue
        if wager not in game.wagers:
            if wager in game.decision_wagers:
                add(where, f"is made by the player's decision as a multiple of the Ante, not offered on its own "
                    f"({c.ante})")
            else:
                others = ", ".join(x for x in game.wagers if x != "progressive")
                add(where, f"{game.name} has no such wager (its wagers: {others}; {c.wagers})")
            continue
        name = game.paytable_of.get(wager)
        if name is None:
            if w.paytable is not None:
                add(f"{where}.paytable", f"the {wager} has no paytable: it pays 1 to 1 ({c.even_money})")
        else:
            offered_letters = game.letters(name)
            if w.paytable is None:
                if len(offered_letters) > 1:
                    add(f"{where}.paytable", f"required: one of {', '.join(offered_letters)} "
                        f"({paytable_clause(game, name)})")
            elif w.paytable not in offered_letters:
                add(f"{where}.paytable", f"must be one of {', '.join(offered_letters)}, not {w.paytable!r} "
                    f"({paytable_clause(game, name)})")
        if wager in _companions(game):
            ante_wager = offered.get(game.antes[0])
            for key in ("min", "max"):
                mine = getattr(w, key)
                theirs = getattr(ante_wager, key) if ante_wager is not None else None
                if mine is not None and theirs is not None and mine != theirs:
                    add(f"{where}.{key}", f"must equal wagers.{game.antes[0]}.{key} ({theirs}): the two "
                        f"are placed in equal amounts ({c.ante})")
            continue
        if w.min is None:
            add(f"{where}.min", f"required: the table minimum ({c.payout_limit} counts from it; {_LIMITS_RULING})")
        elif w.min <= 0:
            add(f"{where}.min", f"must be more than 0 ({_LIMITS_RULING})")
        if w.max is None:
            add(f"{where}.max", f"required: the table maximum ({_LIMITS_RULING})")
        elif w.min is not None and w.max < w.min:
            add(f"{where}.max", f"must be at least the minimum ({w.min}) ({_LIMITS_RULING})")
    if "six_card_bonus" in offered and "trips" not in offered:
        add("wagers.six_card_bonus", "needs the Trips wager offered too (UTH ch.7 §F(4)(b), RULINGS R21b)")
    if game.bonus_cards and "six_card_bonus" in offered and procedure in (MANUAL_SHOE, HAND):
        add("wagers.six_card_bonus", "the Six Card Bonus box is dealt only by an automated dealing shoe or shuffler: "
            f"a table dealing from a manual shoe or by hand cannot offer it ({_BONUS_BOX_CLAUSE})")


def paytable_clause(game: Game, name: str) -> str:
    """The clause listing a wager's paytables (that of its first letter, up to its own number)."""
    return game.paytable(name, game.letters(name)[0]).clause.rsplit("(", 1)[0]
