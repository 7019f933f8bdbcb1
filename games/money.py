"""Money: dollars as ``Decimal``, exact to the cent, never float.

Wagers are given in dollars with at most two decimals.  A paytable that makes
fractions (3 to 2 on an odd amount, a percentage of a meter) is rounded half up
to the cent (settle contract; RULINGS R4), and only there.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

CENT = Decimal("0.01")
ZERO = Decimal("0")
# No amount on a table -- wager, meter, payout limit -- comes near a billion dollars; anything from
# there up is a mistake, refused before arithmetic could lose digits (Decimal's 28-digit context).
MAX_AMOUNT = Decimal(10**9)


class MoneyError(ValueError):
    pass


def shown(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters: an error message never echoes a huge input whole."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def to_money(value: object, what: str = "amount", maximum: Decimal = MAX_AMOUNT) -> Decimal:
    """An amount in dollars from JSON (int or Decimal), at most two decimals, less than ``maximum`` in
    size; never a float or a string."""
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise MoneyError(f"{what} must be a number of dollars, not {shown(value)}")
    try:
        amount = Decimal(value)
    except InvalidOperation:  # pragma: no cover - int/Decimal always convert
        raise MoneyError(f"{what} is not a number: {shown(value)}") from None
    if not amount.is_finite():
        raise MoneyError(f"{what} must be a finite amount, not {shown(value)}")
    if abs(amount) > maximum:
        raise MoneyError(f"{what} must be at most {maximum:,}, not {shown(value)}")
    if amount != amount.quantize(CENT, rounding=ROUND_HALF_UP):
        raise MoneyError(f"{what} has more than two decimals (amounts are dollars and cents): {shown(value)}")
    return amount


def round_cents(amount: Decimal) -> Decimal:
    """Round half up to the cent (only where a paytable makes fractions)."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def display(amount: Decimal) -> Decimal:
    """The form an amount is written in: whole dollars without decimals, otherwise two decimals."""
    if amount == amount.to_integral_value():
        return amount.quantize(Decimal(1))
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def meter_display(amount: Decimal) -> Decimal:
    """Meters are always written with their cents, as a meter sign shows them."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)
