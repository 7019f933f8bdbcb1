"""The configuration's value types: exact money, rates and hours, the table's id.

Owns how a value in the TOML file or a ``TABLE_*`` variable becomes a Decimal or a name: money
is never a binary float, an amount has at most two decimals, every refusal says what was
expected.  Each section of the configuration (controller/config/) builds its fields from these.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Annotated

from pydantic import BeforeValidator, ConfigDict
from pydantic_core import PydanticCustomError

from games.money import CENT

#: every section refuses unknown keys and is immutable once loaded
STRICT = ConfigDict(extra="forbid", frozen=True)

#: how a check reports a problem: (key path, message)
Add = Callable[[str, str], None]

_PLAIN_DECIMAL = re.compile(r"\d+(\.\d+)?")


def _decimal_in(value: object, what: str) -> Decimal:
    """An exact decimal from a TOML/env/JSON value: a Decimal, an int or a plain decimal string."""
    if isinstance(value, bool):
        raise PydanticCustomError(
            "decimal_type", "must be {what}, not {value}", {"what": what, "value": str(value).lower()}
        )
    if isinstance(value, float):
        raise PydanticCustomError(
            "float_refused",
            "is the binary floating-point number {value}: write it as a string (e.g. \"1000.00\") or an integer",
            {"value": repr(value)},
        )
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, Decimal):
        d = value
    elif isinstance(value, str):
        text = value.strip()
        if not _PLAIN_DECIMAL.fullmatch(text):
            raise PydanticCustomError(
                "decimal_parsing", "must be {what}, not {value!r}", {"what": what, "value!r": repr(value)}
            )
        try:
            d = Decimal(text)
        except InvalidOperation:  # pragma: no cover - the pattern admits only valid decimals
            raise PydanticCustomError("decimal_parsing", "must be {what}", {"what": what}) from None
    else:
        raise PydanticCustomError("decimal_type", "must be {what}", {"what": what})
    if not d.is_finite():
        raise PydanticCustomError("decimal_finite", "must be a finite number, not {value}", {"value": str(d)})
    return d


def _money(value: object) -> Decimal:
    d = _decimal_in(value, "an amount of dollars")
    if d < 0:
        raise PydanticCustomError("money_negative", "must not be negative")
    if d != d.quantize(CENT):
        raise PydanticCustomError(
            "money_cents", "has more than two decimals (dollars and cents): {value}", {"value": str(d)}
        )
    return d.quantize(CENT)


def _rate(value: object) -> Decimal:
    d = _decimal_in(value, "a fraction such as 0.05")
    if not (0 < d < 1):
        raise PydanticCustomError("rate_range", "must be a fraction of each wager, greater than 0 and less than 1, "
            "not {value}", {"value": str(d)})
    return d


def _hours(value: object) -> Decimal:
    d = _decimal_in(value, "a number of hours")
    if d <= 0:
        raise PydanticCustomError("hours_range", "must be more than 0 hours")
    return d


Money = Annotated[Decimal, BeforeValidator(_money)]
Rate = Annotated[Decimal, BeforeValidator(_rate)]
Hours = Annotated[Decimal, BeforeValidator(_hours)]

_TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def _table_id(value: object) -> str:
    """The table's id: it names the table in logs, the journal and file names."""
    if not isinstance(value, str) or not _TABLE_ID.fullmatch(value):
        raise PydanticCustomError(
            "table_id", "must be 1 to 64 letters, digits, '.', '_' or '-' (starting with a letter or digit), not "
                "{value!r}",
            {"value!r": repr(value)},
        )
    return value


TableId = Annotated[str, BeforeValidator(_table_id)]
