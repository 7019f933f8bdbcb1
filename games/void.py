"""Void rounds (RULINGS R7a) and the partial settlements each game's chapter 13 keeps alive.

A voided round returns every wager, Progressive wagers included, net 0; the
controller takes back the meter contributions those Progressive wagers made.
Where a game's chapter 13 keeps some wagers alive, those are settled on the cards and
the rest returned:

* UTH ch.13 §C (cards found face up after the initial two cards) and UTH ch.13 §G
  (a dealer card exposed early): the Trips wager;
* JHE ch.13 §C and JHE ch.13 §G, read per RULINGS R10: the Player Bonus wager;
* HCF ch.13 §F: the Flush Bonus, Straight Flush Bonus and Progressive wagers.

Each game declares these (``Game.kept_alive``, in its module).

Which clause applies is the controller's call (it sees the irregularity); this
module only does the arithmetic.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from games.money import ZERO
from games.registry import GAMES
from games.round import Decision, Round, SeatSettlement, Settlement
from games.settlement import apply_payout_limit, push, settlement_order

#: The wagers each clause of a game's chapter 13 keeps alive, by game and clause (each game's ``Game.kept_alive``).
KEPT_ALIVE: dict[tuple[str, str], frozenset[str]] = {
    (game.name, kept.clause): kept.wagers for game in GAMES.values() for kept in game.kept_alive.values()
}


def void_round(round: Round, keep: Iterable[str] = ()) -> Settlement:
    """Return every wager of ``round`` (R7a), except the ``keep`` wagers, settled on the cards.

    The seats' decisions so far decide which Play/Raise/Run wagers exist to be
    returned.  With nothing kept no card is looked at, so a round voided
    mid-deal (cards missing) can be voided.  Meters come back unchanged unless a
    kept Progressive wager is paid from them.
    """
    game = GAMES[round.game]
    keep = frozenset(keep)
    unknown = keep - set(game.wagers)
    if unknown:
        raise ValueError(f"{round.game} has no wager {sorted(unknown)[0]!r} to keep")
    settled: dict[int, SeatSettlement] = {}
    meters = dict(round.progressive.meters) if round.progressive else {}
    if keep:
        # Side wagers do not depend on the player's decision (R7): settle as if every player folded
        # and keep only what the clause keeps alive.  Envy goes with the Progressive wager.
        as_folded = replace(round, seats=tuple(replace(s, decision=Decision(fold=True)) for s in round.seats))
        full = game.settle(as_folded)
        settled = {s.seat: s for s in full.seats}
        meters = full.meters
    seats = []
    for seat in settlement_order(round.seats):
        wagers = {}
        staked = {**{w: a for w, a in seat.wagers.items()}, **game.decision_amounts(seat)}
        for name, amount in staked.items():
            if name in keep:
                wagers[name] = settled[seat.seat].wagers[name]
            else:
                wagers[name] = push(amount)
        if "progressive" in keep and seat.seat in settled and "envy" in settled[seat.seat].wagers:
            wagers["envy"] = settled[seat.seat].wagers["envy"]
        hand = settled[seat.seat].hand if seat.seat in settled else {}
        s = SeatSettlement(seat=seat.seat, hand=hand, wagers=wagers, covered=game.covered(wagers), limited_by=ZERO)
        apply_payout_limit(s, round.payout_limit)
        seats.append(s)
    return Settlement(game=round.game, seats=seats, meters=meters, dealer=None)
