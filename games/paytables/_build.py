"""The shorthands every game's paytable module is written with (one per payout kind of
``games.paytable``), and the shape of a progressive paytable's meter minimums."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from games.paytable import (
    FixedAmount,
    FixedPerUnit,
    Line,
    MeterPercent,
    Odds,
    Pays,
    Paytable,
    Push,
)

# -- payout shorthands -------------------------------------------------------


def _to(x: int, y: int = 1) -> Odds:
    """'X to Y' (RULINGS R2)."""
    return Odds(x, y, "to")


def _for(x: int, y: int = 1) -> Odds:
    """'X for Y' (RULINGS R2)."""
    return Odds(x, y, "for")


def _pct(meter: str, percent: str) -> MeterPercent:
    return MeterPercent(meter, Decimal(percent))


def _usd(dollars: str) -> FixedPerUnit:
    """A dollar amount stated for a $1 wager (RULINGS R3)."""
    return FixedPerUnit(Decimal(dollars))


def _fixed(dollars: str) -> FixedAmount:
    """A dollar amount whatever the wager (RULINGS R21a)."""
    return FixedAmount(Decimal(dollars))


_PUSH = Push()


# -- table builder -----------------------------------------------------------

_Row = tuple[str, str, Pays]  # (printed sub-clause label, line key, pays)


def _table(
    game: str,
    wager: str,
    letter: str,
    clause: str,
    rows: Iterable[_Row],
    *,
    lettered: bool = True,
) -> Paytable:
    """A table at ``clause``; each row's clause is ``clause`` + ``(label)``."""
    return Paytable(
        game=game,
        wager=wager,
        letter=letter,
        clause=clause,
        lines=tuple(Line(key, pays, f"{clause}({label})") for label, key, pays in rows),
        lettered=lettered,
    )


class Tables(list[Paytable]):
    """One game's paytables, in the rules' order."""

    def add(self, *tables: Paytable) -> None:
        self.extend(tables)


# -- progressive meters --------------------------------------------------------


@dataclass(frozen=True)
class MeterMinimum:
    """The minimum initial and reset amount of each meter of one Progressive paytable.

    ``clause`` is where the rules state them; ``meter_clauses`` names the clause of a meter
    where the rules list each meter under its own number (JHE ch.12 §E).
    """

    clause: str
    amounts: Mapping[str, Decimal]
    meter_clauses: Mapping[str, str] = field(default_factory=dict)

    def clause_of(self, meter: str) -> str:
        """The clause of one meter's minimum."""
        return self.meter_clauses.get(meter, self.clause)
