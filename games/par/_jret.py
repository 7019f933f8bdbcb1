"""What the JHE and RET exact sheets share: card tables for numba, paytables by rank class, fraction output.

The hand ranks come from ``games.batch``'s tables (plain numpy arrays: a card's key is a rank weight
plus a suit digit, the sum of the keys of 5-7 cards indexes the rank class 0..7,461 unless one suit
holds five of them, then the flush table on that suit's 13-bit rank mask decides).  The paytables
are read per rank class through ``games.poker.lines_of_value`` and the game's own ``Paytable``, so a
sheet pays exactly the lines the game settles.  Output: exact fractions as "p/q" with a 9-place
decimal, no float (docs/analysis.md, "Exact base games").
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from math import isqrt
from pathlib import Path
from typing import Any, TypeVar, cast

import numba
import numpy as np

from games import batch
from games.paytable import Odds, Paytable, Push
from games.poker import lines_of_value

RANK_FIELD = np.uint32((1 << 23) - 1)
SUIT_SHIFT = 23
CARD_KEYS = batch.CARD_KEYS.astype(np.int64)
CARD_MASKS = batch.CARD_MASKS.astype(np.int64)
FLUSH_RANK = batch.FLUSH_RANK
RANK_CATEGORY = batch.RANK_CATEGORY.astype(np.int8)
N_RANKS = batch.N_RANKS


F = TypeVar("F", bound=Callable[..., Any])


def kernel(fn: F) -> F:
    """numba.njit, compiled once and cached on disk, releasing the GIL (the threads run kernels side by side)."""
    return cast(F, numba.njit(cache=True, nogil=True)(fn))


def kernel_inline(fn: F) -> F:
    """``kernel``, inlined into its callers (the innermost helpers)."""
    return cast(F, numba.njit(cache=True, nogil=True, inline="always")(fn))


def tables(k: int) -> tuple[np.ndarray, np.ndarray]:
    """(rank class by key's rank field, flush suit by key's suit field) for k-card hands."""
    t = batch._tables(k)
    return t.rank, t.flush_suit


@kernel_inline
def rank_of(key: Any, mask: Any, rank: Any, flush_suit: Any, flush_rank: Any) -> int:
    """The rank class of the hand whose summed card key and OR-ed card mask these are."""
    fs = flush_suit[key >> SUIT_SHIFT]
    if fs >= 0:
        return int(flush_rank[(mask >> (16 * fs)) & 0x1FFF])
    return int(rank[key & 0x7FFFFF])


class PayError(ValueError):
    """A paytable line the exact sheets cannot express as whole or fractional odds."""


def pays_by_rank(table: Paytable) -> list[Fraction | None]:
    """For each rank class: the net of a 1-unit win by the table (``None``: no line, 0: a push line)."""
    out: list[Fraction | None] = []
    for value in batch.RANK_VALUE.tolist():
        line = table.line_for(lines_of_value(int(value)))
        if line is None:
            out.append(None)
        elif isinstance(line.pays, Push):
            out.append(Fraction(0))
        elif isinstance(line.pays, Odds) and line.pays.word == "to":
            out.append(Fraction(line.pays.numerator, line.pays.denominator))
        elif isinstance(line.pays, Odds):  # "for": the stake is part of the payment
            out.append(Fraction(line.pays.numerator, line.pays.denominator) - 1)
        else:
            raise PayError(f"{table.game} {table.wager} {table.letter}: line {line.key} is not fixed odds")
    return out


def combo_index3(x: int, y: int, z: int) -> int:
    """Colex index of the three cards x < y < z (0 .. C(52,3)-1)."""
    return x + y * (y - 1) // 2 + z * (z - 1) * (z - 2) // 6


def frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def dec9(x: Fraction) -> str:
    """A fraction as a decimal string to 9 places (half-even), computed from the fraction exactly."""
    with localcontext() as ctx:
        ctx.prec = 60
        d = Decimal(x.numerator) / Decimal(x.denominator)
        return format(d.quantize(Decimal("0.000000001"), rounding=ROUND_HALF_EVEN), "f")


def figure(x: Fraction) -> dict[str, str]:
    return {"fraction": frac(x), "decimal": dec9(x)}


def sqrt_dec9(x: Fraction) -> str:
    """The square root of a non-negative fraction, to 9 places, by integer arithmetic (no float)."""
    scale = 10**20
    root = isqrt(x.numerator * scale * scale // x.denominator)  # sqrt(x) * 10**20, floored
    return format((Decimal(root) / Decimal(scale)).quantize(Decimal("0.000000001"), rounding=ROUND_HALF_EVEN), "f")


def distribution_figures(net: dict[Fraction, int]) -> dict[str, object]:
    """Mean, variance, standard deviation and the distribution list of a net result counted over outcomes."""
    total = sum(net.values())
    mean = Fraction(sum(k * v for k, v in net.items()), total)
    second = Fraction(sum(k * k * v for k, v in net.items()), total)
    var = second - mean * mean
    return {
        "mean": mean,
        "variance": var,
        "std_dev": sqrt_dec9(var),
        "net": [
            {
                "net": frac(k) if k.denominator != 1 else str(k.numerator),
                "probability": frac(Fraction(v, total)),
                "probability_decimal": dec9(Fraction(v, total)),
            }
            for k, v in sorted(net.items())
            if v
        ],
    }


def code_version(paths: Iterable[Path]) -> str:
    """A hash of the kernel sources: a stored sheet names the code that computed it."""
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


DATA = Path(__file__).with_name("data")


def data_path(game: str, letter: str | None, strategy: str) -> Path:
    return DATA / f"{game}.{letter or 'base'}.{strategy}.json"


def store(sheet: dict[str, object]) -> Path:
    """Write a computed sheet as the package's stored data (one JSON object, keys in a stable order)."""
    import json

    letter = sheet["paytable"]
    path = data_path(str(sheet["game"]), None if letter is None else str(letter), str(sheet["strategy"]))
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(sheet, indent=1) + "\n")
    return path


def load(game: str, letter: str | None, strategy: str) -> dict[str, object]:
    """The stored sheet, read through importlib.resources (package data)."""
    import json
    from importlib import resources

    name = f"{game}.{letter or 'base'}.{strategy}.json"
    ref = resources.files("games.par").joinpath("data", name)
    if not ref.is_file():
        raise FileNotFoundError(f"no stored par sheet {name} (games/par/data)")
    loaded: dict[str, object] = json.loads(ref.read_text())
    return loaded


def pays_of_line(line: object) -> Fraction:
    """The net of a 1-unit winning wager on a fixed-odds line."""
    from games.paytable import Line

    assert isinstance(line, Line)
    if isinstance(line.pays, Push):
        return Fraction(0)
    if isinstance(line.pays, Odds):
        f = Fraction(line.pays.numerator, line.pays.denominator)
        return f if line.pays.word == "to" else f - 1
    raise PayError(f"line {line.key} is not fixed odds")
