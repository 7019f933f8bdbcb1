"""Money: dollars as ``Decimal``, exact to the cent, never float.

Wagers are given in dollars with at most two decimals.  A paytable that makes
fractions (3 to 2 on an odd amount, a percentage of a meter) is rounded half up
to the cent (settle contract; RULINGS R4), and only there.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

CENT = Decimal("0.01")
ZERO = Decimal("0")


class MoneyError(ValueError):
    pass


def to_money(value: object, what: str = "amount") -> Decimal:
    """An amount in dollars from JSON (int or Decimal), at most two decimals; never a float or a string."""
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise MoneyError(f"{what} must be a number of dollars, not {value!r}")
    try:
        amount = Decimal(value)
    except InvalidOperation:  # pragma: no cover - int/Decimal always convert
        raise MoneyError(f"{what} is not a number: {value!r}") from None
    if not amount.is_finite():
        raise MoneyError(f"{what} must be a finite amount, not {value!r}")
    if amount != amount.quantize(CENT, rounding=ROUND_HALF_UP):
        raise MoneyError(f"{what} has more than two decimals (amounts are dollars and cents): {value}")
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
