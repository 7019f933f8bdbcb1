"""The ``[progressive]`` section: the Progressive wager, its paytable, the Envy Bonus and the meters.

Owns the progressive models and their checks: the unit (RULINGS R3), the paytable and Envy
letters the game offers, each meter's minimum, initial and reset amounts and rate, and the
return at the reset amounts (RULINGS R24d).  The parameters regulators name besides
(N.J.A.C. 13:69E-1.39A(a); NY 9 NYCRR 5320.8(b)): the hidden rate (the share of the rate held in
reserve for the next reset), the limit (what a meter never passes: the rest goes to its overflow)
and the unreasonable contribution (a round's contribution to a meter above it is refused, P114);
and no award rarer than one in 100 million (N.J.A.C. 13:69D-1.52(e)4; docs/progressive-meters.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Annotated

from pydantic import BaseModel, Field

from controller.config.devices import DevicesConfig
from controller.config.values import STRICT, Add, Money, Rate
from controller.config.wagers import paytable_clause
from games.game import Game
from games.money import meter_display
from games.paytable import Line
from games.paytables import paytable
from games.progressive_return import describe, line_counts, progressive_return, three_decimals


class MeterConfig(BaseModel):
    model_config = STRICT

    initial: Money
    reset: Money
    rate: Rate
    #: the part of ``rate`` held in reserve for the next reset, not on the meter (N.J.A.C. 13:69E-1.39A(a)5)
    hidden_rate: Rate = Decimal(0)
    #: the most the meter shows; contributions beyond it go to its overflow (N.J.A.C. 13:69E-1.39A(a)4)
    limit: Money | None = None
    #: a round's contribution to this meter above this is refused (N.J.A.C. 13:69E-1.39A(a)6, P114)
    unreasonable: Money | None = None


class ProgressiveConfig(BaseModel):
    model_config = STRICT

    enabled: bool = False
    unit: Money | None = None
    paytable: str | None = None
    envy: str | None = None
    envy_requires_progressive_wager: bool = True
    meters: dict[str, MeterConfig] = Field(default_factory=dict)
    #: linked progressive (docs/linked-progressive.md): the PostgreSQL database of the link, the link's id
    #: (the group of tables sharing the meters) and this table's asset number the hits record
    #: (COMAR 36.05.03.24 F(3)(c)); no link: the table's own meters, as always
    link: Annotated[str, Field(pattern=r"^postgres(ql)?://")] | None = None
    link_id: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")] | None = None
    asset: Annotated[str, Field(min_length=1, max_length=64)] | None = None


def check_progressive(game: Game, p: ProgressiveConfig, devices: DevicesConfig, add_problem: Add) -> None:
    """A table offering the Progressive wager: its system, unit, paytable, Envy Bonus and meters."""
    found: list[str] = []

    def add(where: str, msg: str) -> None:
        found.append(where)
        add_problem(where, msg)

    if devices.progressive is None:
        add("devices.progressive", "required with the Progressive wager: the progressive table game system "
            f"({game.clauses.progressive_system})")
    if p.unit is None:
        add("progressive.unit", "required: the amount of the one Progressive wager (RULINGS R3)")
    elif p.unit <= 0:
        add("progressive.unit", "must be more than 0 (RULINGS R3)")
    offered = game.letters("progressive")
    where = paytable_clause(game, "progressive")
    if p.paytable is None:
        add("progressive.paytable", f"required: one of {', '.join(offered)} ({where})")
        return
    if p.paytable not in offered:
        add("progressive.paytable", f"must be one of {', '.join(offered)}, not {p.paytable!r} ({where})")
        return
    table = game.paytable("progressive", p.paytable)
    if p.link is not None and p.link_id is None:  # linked progressive: the link names its group
        add("progressive.link_id", "required with progressive.link: the id of the linked group of tables")

    # Envy Bonus (RULINGS R18a, R24, R29)
    if p.envy is not None:
        if not game.has_envy:
            add("progressive.envy", f"{game.name} has no Envy Bonus (its paytables, {game.cite('paytables')}, "
                "list none; RULINGS R24)")
        elif game.envy_letter_is_progressive_letter:
            if p.envy != p.paytable or p.envy not in game.letters("envy"):
                envy = game.letters("envy")
                add("progressive.envy", f"{game.name} pays an Envy Bonus only with Progressive paytable "
                    f"{' or '.join((', '.join(envy[:-1]), envy[-1]))}, "
                    f"by the Envy table of the same letter ({p.paytable!r} here) "
                    "(RULINGS R18a)")
        elif p.envy not in game.letters("envy"):
            add("progressive.envy", f"must be one of {', '.join(game.letters('envy'))}, not {p.envy!r} "
                f"({paytable_clause(game, 'envy')})")

    # Meters: every meter the table pays from; also those the rules give a minimum for (JHE club).
    minimum_of = game.meter_minimums[p.paytable]
    minimums = minimum_of.amounts
    allowed = set(table.meters) | set(minimums)
    for meter in table.meters:
        if meter not in p.meters:
            add(f"progressive.meters.{meter}", f"required: Progressive paytable {p.paytable} pays from it "
                f"({table.clause})")
    for meter, m in p.meters.items():
        where = f"progressive.meters.{meter}"
        if meter not in allowed:
            add(where, f"unknown meter for Progressive paytable {p.paytable} (its meters: "
                f"{', '.join(sorted(allowed, key=game.meters.index))}; {table.clause})")
            continue
        minimum = minimums.get(meter)
        if minimum is not None:
            clause = minimum_of.clause_of(meter)
            for key in ("initial", "reset"):
                if getattr(m, key) < minimum:
                    add(f"{where}.{key}", f"must be at least {meter_display(minimum)} ({clause})")
        if m.initial < m.reset:
            add(f"{where}.initial", f"must be at least the reset amount ({meter_display(m.reset)}) (P33)")
        if m.hidden_rate > m.rate:
            add(f"{where}.hidden_rate", f"must be at most the rate ({m.rate}): the hidden rate is the part of it held "
                "in reserve (N.J.A.C. 13:69E-1.39A(a)5, P114)")
        if m.limit is not None and m.limit < m.initial:
            add(f"{where}.limit", f"must be at least the initial amount ({meter_display(m.initial)}) "
                "(N.J.A.C. 13:69E-1.39A(a)4, P114)")
        if m.unreasonable is not None and m.unreasonable <= 0:
            add(f"{where}.unreasonable", "must be more than 0 (N.J.A.C. 13:69E-1.39A(a)6, P114)")
    total = sum((m.rate for m in p.meters.values()), Decimal(0))
    if total >= 1:
        add("progressive.meters", f"the rates together take {total} of each wager: they must add up to less than 1 "
            "(P33)")
    rarest = rarest_award(game.name, p.paytable)
    if rarest is not None:
        add("progressive.paytable", rarest)
    if not found:
        _check_progressive_return(game, p, add)


#: the longest odds a progressive award may have (N.J.A.C. 13:69D-1.52(e)4)
LONGEST_ODDS = 100_000_000


def rarest_award(game: str, letter: str) -> str | None:
    """Why the paytable's rarest award is refused (one in more than 100 million), or None."""
    space, counts, _ = line_counts(game, "progressive", letter)
    return odds_problem(paytable(game, "progressive", letter).lines, space, counts)


def odds_problem(lines: Sequence[Line], space: int, counts: Sequence[int]) -> str | None:
    """The first line hit less often than once in ``LONGEST_ODDS`` outcomes (N.J.A.C. 13:69D-1.52(e)4)."""
    for line, n in zip(lines, counts, strict=True):
        if n * LONGEST_ODDS < space:
            odds = "never" if n == 0 else f"one in {space // n:,}"
            return (f"{line.key} is won {odds}: no progressive award may be rarer than one in "
                    f"{LONGEST_ODDS:,} (N.J.A.C. 13:69D-1.52(e)4)")
    return None


def _check_progressive_return(game: Game, p: ProgressiveConfig, add: Add) -> None:
    """RULINGS R24d: the return at the reset amounts, with the Envy Bonus a seat receives at a full
    table, must be less than 1 (exact, from counts held as data: cheap at every start)."""
    assert p.unit is not None and p.paytable is not None
    resets = {meter: m.reset for meter, m in p.meters.items()}
    envy = p.envy if game.has_envy else None
    ret = progressive_return(game.name, p.paytable, p.unit, resets, envy)
    if ret >= 1:
        add(
            "progressive",
            f"{describe(game.name, p.paytable, p.unit, envy)} returns {three_decimals(ret)} of each wager at its "
            f"reset amounts ({', '.join(f'{k} {meter_display(v)}' for k, v in resets.items())}): a Progressive "
            f"must return less than 1 -- choose a larger unit, lower resets or another paytable (RULINGS R24d)",
        )
