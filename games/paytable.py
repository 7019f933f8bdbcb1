"""Paytables as data.

A paytable is an ordered list of lines, highest first, exactly as the rules
print them.  Each line names what the hand must make (``key``) and what it pays
(``pays``).  Which lines a given hand *makes* is decided by the game code (a
classifier returns the set of line keys the hand makes); the paytable then pays
only the highest of them (RULINGS R5: one line per wager).

The kinds of payout the rules use:

* ``Odds``: "X to Y" (the wager stays with the player) or "X for Y" (the total
  returned, wager included) -- RULINGS R2.
* ``Push``: the line returns the wager (UTH Blind "less than a straight",
  RET Run "pair of 6s to 10s").
* ``FixedPerUnit``: a dollar amount stated for a $1 wager that scales with the
  progressive unit (Progressive "$250", every Envy Bonus) -- RULINGS R3.
* ``FixedAmount``: a dollar amount that does not depend on the wager (the UTH
  Six Card Bonus super royal) -- RULINGS R21a.
* ``MeterPercent``: a percentage of a named progressive meter -- RULINGS R3, R4.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal, TypeAlias


@dataclass(frozen=True)
class Odds:
    numerator: int
    denominator: int
    word: Literal["to", "for"]

    @property
    def text(self) -> str:
        return f"{self.numerator:,} {self.word} {self.denominator}"


@dataclass(frozen=True)
class Push:
    @property
    def text(self) -> str:
        return "push"


@dataclass(frozen=True)
class FixedPerUnit:
    """Dollars for a $1 wager; scales linearly with the progressive unit (R3)."""

    dollars: Decimal

    @property
    def text(self) -> str:
        return f"${self.dollars:,}"


@dataclass(frozen=True)
class FixedAmount:
    """Dollars paid whatever the wager (R21a)."""

    dollars: Decimal

    @property
    def text(self) -> str:
        return f"${self.dollars:,}"


@dataclass(frozen=True)
class MeterPercent:
    meter: str  # lowercase meter name: meter, mega, major, minor, star, spade, heart, diamond, club
    percent: Decimal

    @property
    def text(self) -> str:
        name = "meter" if self.meter == "meter" else f"{self.meter} meter"
        return f"{self.percent}% of {name}"


Pays: TypeAlias = Odds | Push | FixedPerUnit | FixedAmount | MeterPercent


@dataclass(frozen=True)
class Line:
    key: str  # snake_case name of what the hand must make, e.g. "royal_flush", "pair_of_aces"
    pays: Pays
    clause: str  # e.g. "UTH ch.12 §C(1)(a)"


@dataclass(frozen=True)
class Paytable:
    game: str  # "ultimate_texas_holdem", ...
    wager: str  # "trips", "blind", "progressive", "envy", ...
    letter: str  # "A", "B", ...; "A" too for the rules' single unlettered paytables
    clause: str  # where the whole table stands, e.g. "UTH ch.12 §C(1)"
    lines: tuple[Line, ...]
    lettered: bool = True  # False where the rules print one table with no letter

    def line_for(self, made: set[str] | frozenset[str]) -> Line | None:
        """The highest line of this table that a hand making ``made`` earns (R5)."""
        for line in self.lines:
            if line.key in made:
                return line
        return None

    @property
    def meters(self) -> tuple[str, ...]:
        """The meters this table pays from, in paytable order, without repeats."""
        seen: list[str] = []
        for line in self.lines:
            if isinstance(line.pays, MeterPercent) and line.pays.meter not in seen:
                seen.append(line.pays.meter)
        return tuple(seen)
