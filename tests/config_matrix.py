"""The configuration matrix: every table the validator could be given, from the schema's own choices.

Candidates are built from the choices the schema offers (``TableConfig``'s game, ``DealingConfig``'s
procedure, decks and dealer-card handling as their ``Literal`` types list them; the shuffler and the
shoe each configured or not; every subset of the game's side wagers; the Progressive wager off, or
each paytable letter with no Envy Bonus or each Envy letter, Envy requiring the Progressive wager or
not), and split by ``controller.config.table.check`` itself into accepted and refused.  A choice the
schema gains, or a combination the validator starts accepting, is in the matrix without an edit here.

Paytable letters of the side wagers are not a dimension: each wager takes its first letter (every
letter of every paytable is settled by the game's own tests).  The panel and the progressive system
(which carries the bet sensors, P37) are always configured.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, get_args

from controller.config.table import DealingConfig, TableConfig, check
from controller.supervisors import hash_id
from demo.dealer import SUPERVISOR_ID
from games.paytables import METER_MINIMUMS, letters, paytable
from games.registry import GAMES

SHUFFLER, SHOE = "socket://127.0.0.1:7101", "socket://127.0.0.1:7102"
PROGRESSIVE, PANEL = "tcp://127.0.0.1:7103", "tcp://127.0.0.1:7104"


def choices(model: type, field: str) -> tuple:
    """The values a ``Literal`` field of the schema allows."""
    return get_args(model.model_fields[field].annotation)


def side_wagers(game: str) -> tuple[str, ...]:
    g = GAMES[game]
    return tuple(w for w in g.wagers if w not in g.antes and w != "progressive")


@dataclass(frozen=True)
class Combination:
    game: str
    procedure: str
    decks: int
    dealer_cards: str
    shuffler: bool
    shoe: bool
    wagers: tuple[str, ...]  # side wagers offered
    progressive: str | None  # paytable letter, or None: no Progressive wager
    envy: str | None = None
    envy_requires_progressive_wager: bool = True

    @property
    def id(self) -> str:
        devices = "+".join(d for d, on in (("shuffler", self.shuffler), ("shoe", self.shoe)) if on) or "none"
        prog = f"prog{self.progressive}" if self.progressive else "noprog"
        if self.envy:
            prog += f"-envy{self.envy}" + ("" if self.envy_requires_progressive_wager else "-free")
        return "-".join([GAMES[self.game].short, self.procedure, f"{self.decks}deck", self.dealer_cards, devices,
                          "+".join(self.wagers) or "antes", prog])

    def data(self) -> dict[str, Any]:
        """The configuration as its TOML file would hold it."""
        g = GAMES[self.game]
        wagers: dict[str, Any] = {g.antes[0]: {"min": 5, "max": 100}}
        for ante in g.antes[1:]:
            wagers[ante] = {}
        for w in (*g.antes[1:], *self.wagers):
            name = g.paytable_of.get(w)
            if name is not None:
                wagers.setdefault(w, {})["paytable"] = letters(self.game, name)[0]
            if w in self.wagers:
                wagers[w].update(min=5, max=25)
        devices = {"progressive": PROGRESSIVE, "panel": PANEL}
        if self.shuffler:
            devices["shuffler"] = SHUFFLER
        if self.shoe:
            devices["shoe"] = SHOE
        data: dict[str, Any] = {
            "id": "matrix-1", "name": "Matrix table", "game": self.game, "seats": 6, "adjacent_boxes": 1,
            "payout_limit": "10000000.00", "journal": "table.journal", "log_format": "json",
            "dealing": {"procedure": self.procedure, "decks": self.decks, "dealer_cards": self.dealer_cards,
                        "deck_change_hours": 4, "stub_count_rounds": 5},
            "wagers": wagers, "devices": devices, "supervisors": {"ids": [SUPERVISORS]},
        }
        if self.progressive:
            table = paytable(self.game, "progressive", self.progressive)
            minimums = METER_MINIMUMS[(self.game, self.progressive)]
            meters = {m: {"initial": str(max(minimums.get(m, Decimal(0)), Decimal(1000))),
                          "reset": str(max(minimums.get(m, Decimal(0)), Decimal(1000))), "rate": "0.01"}
                      for m in table.meters}
            data["progressive"] = {"enabled": True, "unit": 1, "paytable": self.progressive,
                                   "envy_requires_progressive_wager": self.envy_requires_progressive_wager,
                                   "meters": meters}
            if self.envy:
                data["progressive"]["envy"] = self.envy
        return data


SUPERVISORS = hash_id(SUPERVISOR_ID)  # the simulated panel's supervisor (P93)


def dealing_candidates(game: str) -> Iterator[dict[str, Any]]:
    for procedure, decks, dealer_cards, shuffler, shoe in itertools.product(
            choices(DealingConfig, "procedure"), choices(DealingConfig, "decks"),
            choices(DealingConfig, "dealer_cards"), (False, True), (False, True)):
        yield dict(game=game, procedure=procedure, decks=decks, dealer_cards=dealer_cards, shuffler=shuffler, shoe=shoe)


def wager_candidates(game: str) -> Iterator[tuple[str, ...]]:
    side = side_wagers(game)
    for n in range(len(side) + 1):
        yield from itertools.combinations(side, n)


def progressive_candidates(game: str) -> Iterator[dict[str, Any]]:
    yield dict(progressive=None)
    # every Envy letter any game prints is a candidate: a game without an Envy Bonus must refuse it
    envy_letters = sorted({x for g in GAMES for x in (letters(g, "envy") if GAMES[g].has_envy else ())})
    for letter in letters(game, "progressive"):
        yield dict(progressive=letter)
        for envy, requires in itertools.product(envy_letters, (True, False)):
            yield dict(progressive=letter, envy=envy, envy_requires_progressive_wager=requires)


def candidates(games: tuple[str, ...] | None = None) -> Iterator[Combination]:
    for game in games or tuple(GAMES):  # every game the table runs (the registry)
        for dealing, wagers, prog in itertools.product(
                list(dealing_candidates(game)), list(wager_candidates(game)), list(progressive_candidates(game))):
            yield Combination(**dealing, wagers=wagers, **prog)


def problems(c: Combination) -> list[tuple[str, str]]:
    """What the validator says of the combination: nothing when it is accepted."""
    return check(TableConfig.model_validate(c.data()))


def accepted(combinations) -> list[Combination]:
    return [c for c in combinations if not problems(c)]
