"""The round's facts in the rules engine's forms, and what the engine makes of them.

Owns: the settle contract's input built from a round (shared/contracts/settle.md),
the cards still missing before a settlement, the settlement of the players and of
the seats out of the round (P42, P44), the void with the wagers the game's chapter 13
keeps alive (games.void, R7a), and the dealer's order of payment as journaled (P65).
Pure: reads the round, changes nothing, journals nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from controller import events as ev
from controller.round.state import RoundLike
from games.contract import parse_round
from games.game import Game
from games.round import Decision, Progressive, Round, Seat, SeatSettlement, Settlement
from games.settlement import lose, push, settlement_order
from games.void import void_round


def settle_input(r: RoundLike) -> dict[str, Any]:
    """The round in the settle contract's input form (shared/contracts/settle.md)."""
    g = r.game
    out: dict[str, Any] = {"game": g.name, "paytables": dict(r.setup.paytables)}
    if r.setup.progressive:
        out["progressive"] = r.setup.progressive
    if r.setup.payout_limit is not None:
        out["payout_limit"] = r.setup.payout_limit
    if g.dealer_cards:
        out["dealer"] = [c.text for c in r.dealer]
    if g.community_names:
        out["community"] = {n: r.community[i].text for i, n in enumerate(g.community_names) if i in r.community}
    elif g.community_cards:
        out["community"] = [r.community[i].text for i in sorted(r.community)]
    if r.bonus_box:
        out["bonus_cards"] = [c.text for c in r.bonus_box]
    seats = []
    for s in r.players:
        entry: dict[str, Any] = {"seat": s.seat, "cards": [c.text for c in s.cards], "wagers": dict(s.wagers)}
        key = g.decision_keys[0]
        if key == "bets":
            entry["bets"] = list(s.multiples)
            if s.folded:
                entry["fold"] = True
        elif s.folded:
            entry["fold"] = True
        elif s.multiples:
            entry[key] = s.multiples[0]
        seats.append(entry)
    out["seats"] = seats
    return out


def missing_cards(r: RoundLike) -> list[str]:
    """Places still to be dealt before the round can be settled."""
    g = r.game
    if not r.players:
        return []  # every player left: nothing is settled on the cards
    missing = [f"seat:{s.seat}" for s in r.players if len(s.cards) < g.hole_cards]
    missing += ["dealer"] * (g.dealer_cards - len(r.dealer))
    names = g.community_names or tuple(str(i) for i in range(g.community_cards))
    missing += [f"community:{names[i]}" for i in range(g.community_cards) if i not in r.community]
    if any("six_card_bonus" in s.wagers for s in r.players):
        missing += ["bonus"] * (g.bonus_cards - len(r.bonus_box))
    return missing


def settlement(r: RoundLike) -> Settlement:
    """The rules engine's settlement of the players (it checks every fact again), and every wager of a
    seat whose player left lost (P42)."""
    if r.players:
        result = r.game.settle(parse_round(settle_input(r)))
    else:
        meters = dict(r.setup.progressive["meters"]) if r.setup.progressive else {}
        result = Settlement(game=r.game.name, seats=[],
                            meters={k: Decimal(str(v)) for k, v in meters.items()})
    result.seats = settlement_order([*result.seats, *out_seats(r)])
    return result


def out_seats(r: RoundLike) -> list[SeatSettlement]:
    """Seats out of the round, in a settlement and in a later void alike: a player who left loses
    every wager, or has them returned where the facility chose so (P42); a player skipped in the deal
    has every wager returned (RET ch.13 §G, P44)."""
    out = []
    for s in r.seats.values():
        if not s.out:
            continue
        seat = Seat(seat=s.seat, cards=tuple(s.cards), wagers=dict(s.wagers),
                    decision=Decision(tuple(s.multiples), s.folded))
        staked = {**s.wagers, **r.game.decision_amounts(seat)}
        result = lose if s.abandoned and not s.abandoned_returned else push
        out.append(SeatSettlement(seat=s.seat, hand={}, wagers={k: result(a) for k, a in staked.items()},
                                  covered=frozenset()))
    return out


def void_settlement(r: RoundLike, keep: list[str]) -> Settlement:
    """All hands void (R7a); ``keep`` the wagers a clause of the game's chapter 13 keeps alive (games.void)."""
    result = _void_players(r, keep)
    result.seats = settlement_order([*result.seats, *out_seats(r)])
    return result


def _void_players(r: RoundLike, keep: list[str]) -> Settlement:
    if keep and r.players:
        data = settle_input(r)
        for entry, seat in zip(data["seats"], r.players, strict=True):
            if not seat.multiples and not seat.folded:
                # not yet decided: the kept wagers do not depend on it (R7), the rest is returned
                entry.pop("bets", None)
                entry["fold"] = True
        return void_round(parse_round(data), keep)
    # nothing kept: no card is looked at, so a round voided mid-deal can be voided
    p = r.setup.progressive
    progressive = (
        Progressive(Decimal(str(p["unit"])), {k: Decimal(str(v)) for k, v in p["meters"].items()},
                    {k: Decimal(str(v)) for k, v in p["reset"].items()})
        if p else None
    )
    seats = tuple(
        Seat(seat=s.seat, cards=tuple(s.cards), wagers=dict(s.wagers),
             decision=Decision(tuple(s.multiples), s.folded))
        for s in r.players
    )
    return void_round(Round(game=r.game.name, paytables=r.setup.paytables, seats=seats,
                            progressive=progressive, payout_limit=r.setup.payout_limit))


def payment_order(game: Game, result: Settlement) -> tuple[ev.PaymentStep, ...]:
    """The dealer's order of payment (``Game.payment_order``, P65) with what each wager pays, as journaled."""
    by_seat = {s.seat: s for s in result.seats}
    return tuple(
        ev.PaymentStep(seat=p.seat, clause=p.clause, shows_hand=p.shows_hand,
                       wagers=tuple(ev.PaidWager(wager=w, result=r.result, net=r.net, line=r.line or None)
                                    for w in p.wagers for r in [by_seat[p.seat].wagers[w]]))
        for p in game.payment_order(result)
    )


@dataclass(frozen=True)
class PassOfPayment:
    """One pass of the dealer around the table as the dealer is told it (P65): ``wagers`` any of its seats
    has, in the order the pass declares them (``games.procedure.PaymentPass``); ``seats`` from the dealer's
    right (RULINGS R1)."""

    clause: str
    wagers: tuple[str, ...]
    seats: tuple[int, ...]


def payment_passes(game: Game, order: Iterable[ev.PaymentStep]) -> tuple[PassOfPayment, ...]:
    """The journaled order of payment pass by pass.  A pass's wagers follow its declaration, not the seat
    that happens to come first: at each seat the game's chapter 11 orders them (UTH ch.11 §I before §J,
    RET ch.11 §I before §J), so the pass as a whole is told in that order too.  A clause no pass of the
    game declares (a journal of an older program) keeps the order the steps name the wagers in."""
    declared = {p.clause: p.wagers for p in game.payment_passes}
    grouped: list[tuple[str, list[str], list[int]]] = []  # (clause, wagers, seats), the steps' order
    for step in order:
        if not grouped or grouped[-1][0] != step.clause:
            grouped.append((step.clause, [], []))
        clause, wagers, seats = grouped[-1]
        seats.append(step.seat)
        wagers.extend(w.wager for w in step.wagers if w.wager not in wagers)
    return tuple(PassOfPayment(clause, _in_order(wagers, declared.get(clause, ())), tuple(seats))
                 for clause, wagers, seats in grouped)


def _in_order(wagers: list[str], declared: tuple[str, ...]) -> tuple[str, ...]:
    """``wagers`` in the ``declared`` order; any it does not name after them, as they came."""
    return (*(w for w in declared if w in wagers), *(w for w in wagers if w not in declared))
