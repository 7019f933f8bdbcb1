"""One line per configuration problem, naming its key and, for a value from the environment, its variable.

Owns the environment's names (``TABLE_<KEY>``, nested keys joined by ``__``), which variable a
value came from, pydantic's errors as the project's lines (with the clause behind a field's
constraint), and the ``TABLE_*`` variables that name no setting.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any, get_args, get_origin

from pydantic import BaseModel

ENV_PREFIX = "TABLE_"
ENV_DELIMITER = "__"
CONFIG_PATH_ENV = "TABLE_CONFIG"  # the file's path, not a setting


def _path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(x) for x in loc if not (isinstance(x, str) and x.startswith("function-")))


def _env_name(parts: tuple[str, ...]) -> str:
    return ENV_PREFIX + ENV_DELIMITER.join(p.upper() for p in parts)


def _env_source(where: str) -> str | None:
    """The TABLE_* variable a value at ``where`` came from, if any."""
    env = {k.upper(): v for k, v in os.environ.items()}
    parts = tuple(where.split(".")) if where else ()
    for n in range(len(parts), 0, -1):
        name = _env_name(parts[:n])
        if name not in env:
            continue
        if n == len(parts):
            return name
        # A table given whole as JSON: only if it holds the key (it is merged with the file's).
        try:
            node: Any = json.loads(env[name])
        except ValueError:
            return name
        for key in parts[n:]:
            if not isinstance(node, dict) or key not in node:
                break
            node = node[key]
        else:
            return name
    return None


def with_env(where: str, msg: str) -> str:
    """The problem's line: its key, the variable its value came from if any, the message."""
    var = _env_source(where)
    return f"{where} (from environment {var}): {msg}" if var else f"{where}: {msg}"


# The clause behind a field-level constraint, added to pydantic's message.
_HINTS = {
    "seats": "at most six betting positions, UTH ch.2 §A, JHE ch.2 §A, HCF ch.2, RET ch.2; seats 1..6, RULINGS R1",
    "dealing.decks": "two decks only with an automated shuffler, UTH ch.3 §B and the same clause of every game",
    "dealing.procedure": "a manual dealing shoe UTH ch.8, the hand UTH ch.9, an automated dealing shoe or shuffler "
                         "UTH ch.10, and the same chapters of every game",
    "dealing.dealer_cards": "UTH ch.10 §B(4), JHE ch.10 §B(3)",
}


def pydantic_problem(err: Mapping[str, Any]) -> str:
    """One of pydantic's errors as the project's line, with the clause behind the field's constraint."""
    where = _path(tuple(err["loc"]))
    kind, msg = err["type"], err["msg"]
    if kind == "missing":
        msg = "required"
    elif kind == "extra_forbidden":
        msg = "unknown key"
    else:
        msg = re.sub(r"^Input should be", "must be", msg)
        if kind in ("literal_error", "int_parsing", "int_type", "bool_parsing", "bool_type"):
            msg += f", not {err.get('input')!r}"
    if where in _HINTS and kind != "missing":
        msg += f" ({_HINTS[where]})"
    return with_env(where, msg)


def unknown_env_vars(settings: type[BaseModel]) -> list[str]:
    """TABLE_* variables that name no setting (pydantic-settings would ignore them silently)."""
    out = []
    for name in sorted(os.environ):
        if not name.upper().startswith(ENV_PREFIX) or name.upper() == CONFIG_PATH_ENV:
            continue
        parts = name[len(ENV_PREFIX):].lower().split(ENV_DELIMITER)
        if not _env_path_known(settings, parts):
            out.append(f"{name} (environment): unknown setting {'.'.join(parts)}")
    return out


def _env_path_known(model: type[BaseModel], parts: list[str]) -> bool:
    field = model.model_fields.get(parts[0]) if parts and parts[0] else None
    if field is None:
        return False
    rest = parts[1:]
    if not rest:
        return True
    ann = field.annotation
    if get_origin(ann) is dict:
        value_type = get_args(ann)[1]
        return len(rest) == 1 or (
            isinstance(value_type, type)
            and issubclass(value_type, BaseModel)
            and _env_path_known(value_type, rest[1:])
        )
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return _env_path_known(ann, rest)
    return False

