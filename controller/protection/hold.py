"""Hold against theoretical, and streaks a fair game almost never makes (issue 28; docs/protection.md).

Per table, per gaming day and per shift, per wager: the house's actual result (the journal's settlements, the
nets of the order of payment) against the expected one, mean +/- ``Z`` sd sqrt(sum of squared units), from each
wager's figures per unit (``Figures``): side wagers from their exact line counts (``side_counts.json``, written
from ``games.analysis`` by ``python -m controller.protection.hold``), the base game from its stored exact par
sheet (the par package's ``stored``, issue 27; per Ante: ``base_figures``); none ("no figures") for the
Progressive and Envy (their return is the meters') and a wager with no sheet.  Streaks: per seat and side
wager, the wins in its last ``WINDOW`` hands against the binomial tail; below ``STREAK_ALPHA`` it is a finding
(at most ``STREAK_ALPHA`` a hand per seat and wager in a fair game: 0.1 false alarms per 100,000 hands).
Pure: events in, figures out.
"""

from __future__ import annotations

import importlib
import json
import math
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from controller import events as ev
from games.registry import GAMES

HOLD = "hold_outside_band"
STREAK = "streak"
WORDS: dict[str, str] = {
    HOLD: "Hold outside its band",
    STREAK: "A streak a fair game almost never makes",
    "within": "Within its band",
    "outside": "Outside its band",
    "no_figures": "No figures",
    "base": "Base game",
}
Z = 3  # the band's half-width in standard deviations: a fair wager is outside it about 0.27% of the times looked at
MIN_ROUNDS = 30  # fewer settled rounds than this: no hold finding (the normal band is no good so early)
# a hold outside its band is a finding only when the day's wins at the wager are as unlikely as this too: the
# side wagers' pays are heavy-tailed (one royal can put a fair day outside a normal band), their count of wins
# is not
HOLD_ALPHA = 1e-6
WINDOW = 40  # a seat's last hands at one side wager
STREAK_ALPHA = 1e-6  # the binomial tail below which a window is a finding
GAMING_DAY_STARTS = 6  # hours after midnight UTC; shifts of SHIFT_HOURS from it (the configuration's defaults)
SHIFT_HOURS = 8
COUNTS_FILE = Path(__file__).with_name("side_counts.json")
NO_FIGURES = frozenset({"progressive", "envy"})  # the meters' return


@dataclass(frozen=True)
class Figures:
    """A wager's player net per unit: ``mean`` (negative: the house's edge), ``sd``; ``p_win`` the chance a unit
    wins (a paid line); ``source`` where they come from."""

    mean: Fraction
    sd: float
    p_win: float | None
    source: str


FiguresOf = Callable[[str, str, str | None], Figures | None]  # (game, wager, paytable letter) -> figures


@cache
def _side_counts() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(COUNTS_FILE.read_text()) if COUNTS_FILE.exists() else {}
    return data


@cache
def side_figures(game: str, wager: str, letter: str | None) -> Figures | None:
    """A side wager's exact figures from its line counts (``side_counts.json``), or None."""
    from games.paytables import PAYTABLES
    from games.progressive_return import line_return

    counts = _side_counts().get(f"{game}/{wager}/{letter}")
    table = PAYTABLES.get((game, wager, letter or ""))
    if counts is None or table is None or wager in NO_FIGURES:
        return None
    space, losing = counts["space"], counts["losing"]
    nets = [line_return(line.pays, {}) - 1 for line in table.lines]
    mean = (sum((n * x for n, x in zip(counts["counts"], nets, strict=True)), Fraction(0)) - losing) / space
    second = (sum((n * x * x for n, x in zip(counts["counts"], nets, strict=True)), Fraction(0)) + losing) / space
    wins = sum(n for n, x in zip(counts["counts"], nets, strict=True) if x > 0)
    return Figures(mean, math.sqrt(second - mean * mean), wins / space, "exact line counts")


def base_figures(game: str, letter: str | None) -> Figures | None:
    """The base game's figures per Ante from its stored exact par sheet (the par package's ``stored(game,
    letter, "posted")``, issue 27: ``return_per_ante`` = 1 + the mean net, ``std_dev_per_ante``, fractions "p/q"
    or decimals), or None while there is no sheet (the one function that reads it)."""
    try:
        par = importlib.import_module("games.par")
        sheet = par.stored(game, letter, "posted")
    except (ImportError, AttributeError, LookupError, OSError, ValueError):
        return None
    if sheet is None:
        return None
    if isinstance(sheet, Mapping):
        ret, sd = sheet.get("return_per_ante"), sheet.get("std_dev_per_ante")
    else:
        ret, sd = getattr(sheet, "return_per_ante", None), getattr(sheet, "std_dev_per_ante", None)
    if ret is None or sd is None:
        return None
    return Figures(Fraction(str(ret)) - 1, float(Fraction(str(sd))), None, "exact par sheet (posted strategy)")


def figures(game: str, wager: str, letter: str | None) -> Figures | None:
    """Each wager's figures (``wager`` "base": the base game per Ante)."""
    return base_figures(game, letter) if wager == "base" else side_figures(game, wager, letter)


def base_wagers(game: str) -> frozenset[str]:
    """The wagers the base game's figures cover together (the Antes and the bets made on them)."""
    from games.analysis import PART_OF_BASE

    g = GAMES[game]
    return frozenset(g.antes) | frozenset(g.decision_wagers) | frozenset(PART_OF_BASE.get(game, ()))


def base_letter(game: str, paytables: Mapping[str, str]) -> str | None:
    g = GAMES[game]
    for w in (*g.antes, *g.decision_wagers):
        name = g.paytable_of.get(w)
        if name is not None and name in paytables:
            return paytables[name]
    return None


@dataclass(frozen=True)
class Calendar:
    """When a gaming day begins (minutes after midnight UTC) and each shift's length in hours (a divisor of 24):
    the configuration's ``[protection]`` section (``of``)."""

    day_starts: int = GAMING_DAY_STARTS * 60
    shift_hours: int = SHIFT_HOURS

    @classmethod
    def of(cls, protection: Any) -> Calendar:
        """From a ``ProtectionConfig`` (controller/config/protection.py)."""
        return cls(protection.day_starts_minutes, protection.shift_hours)


DEFAULT_CALENDAR = Calendar()


def periods(at: str, calendar: Calendar = DEFAULT_CALENDAR) -> tuple[str, str]:
    """The gaming day (the date it began) and its shift ("<day>/<n>") of a journal time."""
    moment = datetime.fromisoformat(at.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    since = moment.astimezone(UTC) - timedelta(minutes=calendar.day_starts)
    day = since.date().isoformat()
    return day, f"{day}/{since.hour // calendar.shift_hours + 1}"


# ------------------------------------------------------------------ the settlements, from the journal


@dataclass(frozen=True)
class Result:
    """One seat's wager settled: ``amount`` wagered (units: the Ante for the base game), ``net`` to the player."""

    round_id: str
    at: str
    seat: int
    wager: str  # a side wager's name, or "base"
    letter: str | None
    units: Decimal
    net: Decimal
    won: bool


def results(round_id: str, at: str, game: str, paytables: Mapping[str, str], placed: Mapping[tuple[int, str], Decimal],
            order: Iterable[ev.PaymentStep]) -> list[Result]:
    """A settled round's results per seat and wager (the base game's wagers together, per Ante)."""
    g = GAMES[game]
    base = base_wagers(game)
    nets: dict[tuple[int, str], Decimal] = {}
    won: dict[tuple[int, str], bool] = {}
    for step in order:
        for w in step.wagers:
            key = (step.seat, "base" if w.wager in base else w.wager)
            nets[key] = nets.get(key, Decimal(0)) + w.net
            won[key] = won.get(key, False) or w.net > 0
    out = []
    for (seat, wager), net in sorted(nets.items()):
        if wager == "base":
            units, letter = placed.get((seat, g.antes[0]), Decimal(0)), base_letter(game, paytables)
        else:
            units, letter = placed.get((seat, wager), Decimal(0)), paytables.get(g.paytable_of.get(wager, wager))
        out.append(Result(round_id, at, seat, wager, letter, units, net, won[(seat, wager)]))
    return out


def settled_results(events: Iterable[Any], game: str) -> Iterable[Result]:
    """Every settled round's results, in the journal's order (journal rows: ``seq``, ``at``, ``round_id``,
    ``kind``, ``data``); a voided round has none (its wagers returned, R7a)."""
    paytables: dict[str, dict[str, str]] = {}
    placed: dict[str, dict[tuple[int, str], Decimal]] = {}
    for e in events:
        rid = e.round_id
        if rid is None:
            continue
        if e.kind == ev.RoundOpened.kind:
            paytables[rid] = dict(e.data.get("paytables") or {})
            placed[rid] = {}
        elif e.kind == ev.WagerPlaced.kind and rid in placed:
            placed[rid][(int(e.data["seat"]), e.data["wager"])] = Decimal(str(e.data["amount"]))
        elif e.kind == ev.Settled.kind and rid in placed:
            t = e.typed
            if isinstance(t, ev.Settled) and t.order:
                yield from results(rid, e.at, game, paytables[rid], placed[rid], t.order)
        elif e.kind in (ev.RoundClosed.kind, ev.RoundVoided.kind):
            paytables.pop(rid, None)
            placed.pop(rid, None)


# ------------------------------------------------------------------ hold against theoretical


@dataclass
class Tally:
    """One wager's settled results over a period."""

    rounds: set[str] = field(default_factory=set)
    units: Decimal = Decimal(0)
    squared: Decimal = Decimal(0)  # the sum of the squared units (the band's variance per sd squared)
    net: Decimal = Decimal(0)
    letter: str | None = None
    hands: int = 0
    wins: int = 0

    def add(self, r: Result) -> None:
        self.rounds.add(r.round_id)
        self.hands += 1
        self.wins += r.won
        self.units += r.units
        self.squared += r.units * r.units
        self.net += r.net
        self.letter = self.letter or r.letter

    def row(self, game: str, wager: str, figures_of: FiguresOf, z: float = Z) -> dict[str, Any]:
        """The house's actual result against the expected one and its band (amounts as decimal strings)."""
        actual = -self.net
        out: dict[str, Any] = {"wager": wager, "paytable": self.letter, "rounds": len(self.rounds),
                               "hands": self.hands, "wins": self.wins,
                               "wagered": str(self.units), "actual": str(actual), "expected": None, "band": None,
                               "state": "no_figures", "source": None}
        f = figures_of(game, wager, self.letter)
        if f is None:
            return out
        # money in Decimal: the expected result exactly (the mean is a Fraction), the band's half-width from the
        # sd (a statistic, a float: its exact binary value) and the square root of the squared units, to 28 digits
        with localcontext() as ctx:
            ctx.prec = 28
            expected = _decimal(-f.mean * Fraction(self.units))
            half = Decimal(z) * Decimal(f.sd) * self.squared.sqrt()
            low, high = expected - half, expected + half
            edge = _decimal(-f.mean)
        out.update(expected=str(expected.quantize(CENTS)), band=[str(low.quantize(CENTS)), str(high.quantize(CENTS))],
                   state="within" if low <= actual <= high else "outside", source=f.source,
                   edge=f"{edge:.6f}", sd=f"{f.sd:.6f}")
        return out


CENTS = Decimal("0.01")


def _decimal(x: Fraction) -> Decimal:
    """A Fraction as a Decimal to the context's precision."""
    return Decimal(x.numerator) / Decimal(x.denominator)


def hold(results_: Iterable[Result], game: str, figures_of: FiguresOf = figures,
         calendar: Calendar = DEFAULT_CALENDAR) -> dict[str, Any]:
    """Per table, gaming day and shift, per wager: ``{"table": [rows], "days": {day: [rows]}, "shifts": {..}}``."""
    table: dict[str, Tally] = {}
    days: dict[str, dict[str, Tally]] = {}
    shifts: dict[str, dict[str, Tally]] = {}
    for r in results_:
        day, shift = periods(r.at, calendar)
        for tallies in (table, days.setdefault(day, {}), shifts.setdefault(shift, {})):
            tallies.setdefault(r.wager, Tally()).add(r)

    def rows(tallies: dict[str, Tally]) -> list[dict[str, Any]]:
        return [tallies[w].row(game, w, figures_of) for w in sorted(tallies, key=lambda w: (w != "base", w))]

    return {"z": Z, "gaming_day_starts": f"{calendar.day_starts // 60:02d}:{calendar.day_starts % 60:02d}",
            "shift_hours": calendar.shift_hours, "table": rows(table),
            "days": {d: rows(t) for d, t in sorted(days.items())},
            "shifts": {s: rows(t) for s, t in sorted(shifts.items())}}


def outside_band(tally: Tally, game: str, wager: str,
                 figures_of: FiguresOf = figures) -> tuple[dict[str, Any], float] | None:
    """A gaming day's side wager that is a hold finding (P112): after ``MIN_ROUNDS`` settled rounds, outside its band
    and its count of wins as unlikely (binomial tail below ``HOLD_ALPHA``): (its row, that tail), else None.  The
    base game (no chance of a win in its figures) is shown against its band and is never one."""
    if len(tally.rounds) < MIN_ROUNDS:
        return None
    row = tally.row(game, wager, figures_of)
    if row["state"] != "outside":
        return None
    f = figures_of(game, wager, tally.letter)
    if f is None or not f.p_win:
        return None
    p = binomial_tail(tally.wins, tally.hands, f.p_win)
    return (row, p) if p < HOLD_ALPHA else None


# ------------------------------------------------------------------ streaks


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    return min(1.0, sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1)))


@dataclass(frozen=True)
class Streak:
    seat: int
    wager: str
    wins: int
    hands: int
    p_win: float
    p_value: float

    def evidence(self) -> dict[str, Any]:
        return {"wins": self.wins, "hands": self.hands, "p_win": f"{self.p_win:.6f}",
                "once_in": once_in(self.p_value)}

    def words(self) -> str:
        return (f"seat {self.seat} won {WORDS.get(self.wager, self.wager.replace('_', ' ').title())} {self.wins} "
                f"times in {self.hands} hands; a fair game does that about once in {once_in(self.p_value):,} "
                "such stretches")


def once_in(p: float) -> int:
    return int(round(1 / p)) if p > 0 else 0


class Streaks:
    """Each seat's last ``WINDOW`` hands at each side wager with figures; a window whose wins a fair game makes
    with a chance below ``STREAK_ALPHA`` is a streak (then that window starts again)."""

    def __init__(self, game: str, figures_of: FiguresOf = figures, *, window: int = WINDOW,
                 alpha: float = STREAK_ALPHA) -> None:
        self.game, self.figures_of, self.window, self.alpha = game, figures_of, window, alpha
        self.hands: dict[tuple[int, str], deque[bool]] = {}

    def add(self, results_: Iterable[Result]) -> list[Streak]:
        found = []
        for r in results_:
            if r.wager == "base" or r.units <= 0:
                continue
            f = self.figures_of(self.game, r.wager, r.letter)
            if f is None or not f.p_win:
                continue
            hands = self.hands.setdefault((r.seat, r.wager), deque(maxlen=self.window))
            hands.append(r.won)
            wins = sum(hands)
            if r.won and wins > 1:
                tail = binomial_tail(wins, len(hands), f.p_win)
                if tail < self.alpha:
                    found.append(Streak(r.seat, r.wager, wins, len(hands), f.p_win, tail))
                    hands.clear()
        return found


def write_counts(path: Path = COUNTS_FILE) -> dict[str, Any]:
    """Every exactly countable side wager's line counts from ``games.analysis`` (minutes of CPU: run by hand)."""
    from games import analysis
    from games.paytables import PAYTABLES

    out: dict[str, Any] = {}
    for (game, wager, letter) in sorted(PAYTABLES):
        if wager in NO_FIGURES or wager in base_wagers(game) or wager not in analysis.analysable(game):
            continue
        sheet = analysis.analyze(game, wager, letter)
        out[f"{game}/{wager}/{letter}"] = {"space": sheet["space"], "losing": sheet["losing_count"],
                                           "counts": [line["count"] for line in sheet["lines"]]}
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    return out


if __name__ == "__main__":
    print(f"{len(write_counts())} paytables counted into {COUNTS_FILE}")
