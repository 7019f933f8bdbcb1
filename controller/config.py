"""The table configuration: one TOML file, overridable by environment variables.

``load_config(path)`` reads the file, lays the environment over it and checks
the whole configuration against the rules of the configured game.  Anything
wrong is a start-up error: ``ConfigError`` lists every problem found, one line
each, each naming the key path it concerns (``progressive.meters.major.reset:
must be at least 1000.00 (UTH ch.12 §D(3)(b)(ii))``); a problem in a value
that came from the environment names the variable too.  Nothing is guessed:
unknown keys at any level, in the file or as ``TABLE_*`` variables, are
refused.

Sources, highest priority first (pydantic-settings):

1. environment variables ``TABLE_<KEY>``, nested keys joined by ``__``
   (``TABLE_PAYOUT_LIMIT=75000``, ``TABLE_PROGRESSIVE__METERS__MAJOR__RESET=1500``,
   ``TABLE_DEVICES__SHOE=null`` for "no shoe"); a table-valued key may also
   be given whole as JSON (``TABLE_DEVICES='{"shoe": "/dev/ttyUSB1"}'``);
2. the TOML file.  It is read with ``tomllib`` and ``parse_float=Decimal``, so
   a TOML float such as ``rate = 0.05`` or ``unit = 1.00`` is the exact decimal
   written, never a binary float.  A binary float that reaches the model any
   other way (a JSON number in an environment variable, a Python caller) is
   refused for money: write amounts as a string (``"1000.00"``) or an integer.

``TABLE_CONFIG`` is not a setting: it is reserved for the path of the file
(``load_config(None)`` reads it).

The schema (see ``config/*.toml`` for one complete example per game)::

    id = "uth-01"                   # table id: letters, digits, . _ -
    name = "Ultimate Texas Hold 'Em 1"
    game = "ultimate_texas_holdem"  # one of games.registry.GAMES
    seats = 6                       # betting positions 1..6 (UTH ch.2 §A, RULINGS R1)
    adjacent_boxes = 2              # boxes one player may wager on in a round (UTH ch.7 §G)
    payout_limit = "75000.00"       # RULINGS R6, see payout_limit_floor()
    journal = "../var/uth-01.journal"   # relative paths: from the file's directory
    log_format = "auto"             # json | console | journald | auto (controller/logs.py)
    abandoned_wagers = "losing"     # a player who leaves mid-round: losing | returned (UTH ch.7 §C(2), P42)

    [dealing]
    procedure = "shuffler"          # manual_shoe | hand | automated_shoe | shuffler
    dealer_cards = "in_shuffler"    # dealt | in_shuffler
    decks = 2                       # 1, or 2 with an automated shuffler (UTH ch.3 §B)
    deck_change_hours = 8           # at most 4 by hand, 8 otherwise (UTH ch.3 §C)
    stub_count_rounds = 5           # at most 5 (UTH ch.8 §E, UTH ch.9 §C, UTH ch.10 §C)

    [wagers.ante]                   # every wager offered, by the settle contract's names
    min = 5
    max = "500.00"
    [wagers.blind]                  # the companion of the Ante: its limits are the Ante's
    paytable = "A"
    [wagers.trips]
    paytable = "A"
    min = 5
    max = 100

    [progressive]
    enabled = true
    unit = 1                        # the one fixed Progressive wager (RULINGS R3)
    paytable = "B"
    envy = "B"                      # absent: no Envy Bonus
    envy_requires_progressive_wager = true   # RULINGS R24
    [progressive.meters.major]
    initial = "1000.00"
    reset = "1000.00"
    rate = 0.05                     # fraction of each Progressive wager added to the meter

    [devices]                       # absent key: no such device
    shuffler = "socket://127.0.0.1:7101"   # serial: /dev/... or socket://HOST:PORT
    shoe = "/dev/ttyUSB1"
    progressive = "tcp://127.0.0.1:7103"   # Modbus: tcp://HOST:PORT, rtu:///dev/..., /dev/...
    panel = "rtu:///dev/ttyUSB2?baud=115200&unit=2"

    [supervisors]                   # who may turn the supervisor's key (P93): required
    ids = ["scrypt$16384$8$1$...$..."]    # one per supervisor: `tablectl supervisor hash` < ID

An automated card shuffling device is "used" (UTH ch.3 §B, UTH ch.5, UTH ch.8 §E,
UTH ch.9 §A(1), and the same chapters of every game) exactly when ``devices.shuffler`` is configured:
the controller only knows the devices it talks to.
"""

from __future__ import annotations

import contextvars
import json
import os
import re
import tomllib
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from controller.supervisors import entry_problem
from games.game import Game
from games.money import CENT, meter_display
from games.paytable import FixedAmount, FixedPerUnit, MeterPercent, Odds, Push
from games.progressive_return import describe, progressive_return, three_decimals
from games.registry import GAMES
from games.settlement import odds_net

ENV_PREFIX = "TABLE_"
ENV_DELIMITER = "__"
CONFIG_PATH_ENV = "TABLE_CONFIG"  # the file's path, not a setting

PAYOUT_LIMIT_MINIMUM = Decimal("50000")  # RULINGS R6


class ConfigError(Exception):
    """The configuration cannot be used; ``problems`` holds one line per problem."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        n = len(problems)
        head = f"{source}: " + ("1 problem" if n == 1 else f"{n} problems")
        super().__init__(head + ":\n" + "\n".join(f"  {p}" for p in problems))


# -- value types ---------------------------------------------------------------------------------

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

_SERIAL_URL = re.compile(r"(/dev/[^\s?]+|socket://[^\s:/]+:\d{1,5})")


def _serial_url(value: object) -> str | None:
    """A serial device (shuffler, shoe): ``/dev/...`` or ``socket://HOST:PORT`` (docs/protocols-serial.md §1)."""
    if value is None:
        return None
    if not isinstance(value, str) or not _SERIAL_URL.fullmatch(value) or not _port_ok(value):
        raise PydanticCustomError(
            "url",
            "must be a serial port such as /dev/ttyUSB0 or socket://HOST:PORT, not {value!r}",
            {"value!r": repr(value)},
        )
    return value


def _modbus_url(value: object) -> str | None:
    """A Modbus device (progressive, panel): ``tcp://HOST:PORT``, ``rtu:///dev/...`` or ``/dev/...``.

    Checked by the driver's own parser (docs/protocols-modbus.md §1), so that
    what loads here is what the driver opens.
    """
    if value is None:
        return None
    from drivers.modbus import parse_url  # the daemon imports the drivers anyway

    if not isinstance(value, str):
        raise PydanticCustomError("url", "must be a Modbus URL string")
    try:
        cfg = parse_url(value)
    except ValueError as exc:
        raise PydanticCustomError("url", "{msg}", {"msg": str(exc)}) from None
    if cfg.kind == "rtu" and not cfg.device.startswith("/dev/"):
        raise PydanticCustomError(
            "url", "bad Modbus URL {value!r}: the serial device must be under /dev/", {"value!r": repr(value)}
        )
    if cfg.kind == "tcp" and not 0 < cfg.port < 65536:  # pragma: no cover - urlsplit refuses these
        raise PydanticCustomError("url", "bad port in {value!r}", {"value!r": repr(value)})
    return value


def _port_ok(url: str) -> bool:
    if url.startswith("socket://"):
        return 0 < int(url.rsplit(":", 1)[1]) < 65536
    return True


SerialUrl = Annotated[str | None, BeforeValidator(_serial_url)]
ModbusUrl = Annotated[str | None, BeforeValidator(_modbus_url)]

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


# -- the models ----------------------------------------------------------------------------------

_STRICT = ConfigDict(extra="forbid", frozen=True)

Procedure = Literal["manual_shoe", "hand", "automated_shoe", "shuffler"]


class DealingConfig(BaseModel):
    model_config = _STRICT

    #: ch.8 manual dealing shoe, ch.9 from the hand, ch.10 automated dealing shoe or shuffler
    procedure: Procedure
    #: "in_shuffler": the shuffler holds the dealer's cards until every player has acted
    #: (UTH ch.10 §B(4), JHE ch.10 §B(3), HCF ch.11 §B(4)(b)); "dealt": delivered with the players'.
    dealer_cards: Literal["dealt", "in_shuffler"] = "dealt"
    decks: Literal[1, 2] = 1
    deck_change_hours: Hours
    stub_count_rounds: Annotated[int, Field(ge=1)] = 5
    #: decks that arrive preinspected and preshuffled skip the opening inspection and shuffle
    #: (UTH ch.4 §F and the same clause of every game)
    preinspected: bool = False


class WagerConfig(BaseModel):
    model_config = _STRICT

    paytable: str | None = None
    min: Money | None = None
    max: Money | None = None


class MeterConfig(BaseModel):
    model_config = _STRICT

    initial: Money
    reset: Money
    rate: Rate


class ProgressiveConfig(BaseModel):
    model_config = _STRICT

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


class DevicesConfig(BaseModel):
    model_config = _STRICT

    shuffler: SerialUrl = None
    shoe: SerialUrl = None
    progressive: ModbusUrl = None
    panel: ModbusUrl = None


def _supervisor_entry(value: object) -> str:
    problem = entry_problem(value)
    if problem is not None:
        raise PydanticCustomError("supervisor_hash", "{msg}", {"msg": problem})
    assert isinstance(value, str)
    return value


SupervisorEntry = Annotated[str, BeforeValidator(_supervisor_entry)]


class SupervisorsConfig(BaseModel):
    """The floor supervisors whose key the table takes, each ID hashed (controller/supervisors.py, P93)."""

    model_config = _STRICT

    ids: tuple[SupervisorEntry, ...] = ()


class WebConfig(BaseModel):
    """``tablectl web``: the dealer's screen and the floor's pages (web/).  The dealer's screen shows
    only the public state, on this machine by default; the floor's pages listen where this names."""

    model_config = _STRICT

    dealer_host: Annotated[str, Field(min_length=1)] = "127.0.0.1"
    dealer_port: Annotated[int, Field(ge=0, le=65535)] = 8700  # 0: any free port (tests)
    floor_host: Annotated[str, Field(min_length=1)] = "127.0.0.1"
    floor_port: Annotated[int, Field(ge=0, le=65535)] = 8701
    #: the floor's accounts (``tablectl web adduser``); none: nobody can log in
    users: Path | None = None
    #: a login expires this long after it was made
    session_minutes: Annotated[int, Field(ge=1, le=720)] = 30


_TOML_PATH: contextvars.ContextVar[Path | None] = contextvars.ContextVar("table_config_toml", default=None)


class _DecimalTomlSource(TomlConfigSettingsSource):
    """The TOML file, read with ``parse_float=Decimal``: money is never a binary float."""

    def _read_file(self, file_path: Any) -> dict[str, Any]:
        with file_path.open(mode="rb") as f:
            return tomllib.load(f, parse_float=Decimal)


class TableConfig(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter=ENV_DELIMITER,
        env_parse_none_str="null",
        extra="forbid",
        frozen=True,
    )

    id: TableId
    name: Annotated[str, Field(min_length=1)]
    game: Literal[tuple(GAMES)]  # type: ignore[valid-type]
    seats: Annotated[int, Field(ge=1, le=6)]
    adjacent_boxes: Annotated[int, Field(ge=1)]
    payout_limit: Money
    dealing: DealingConfig
    wagers: dict[str, WagerConfig]
    progressive: ProgressiveConfig = Field(default_factory=ProgressiveConfig)
    devices: DevicesConfig = Field(default_factory=DevicesConfig)
    web: WebConfig = Field(default_factory=WebConfig)
    supervisors: SupervisorsConfig = Field(default_factory=SupervisorsConfig)
    journal: Path
    log_format: Literal["json", "console", "journald", "auto"] = "auto"
    # UTH ch.7 §C(2) (JHE, HCF alike), RET ch.7 §C(3): a player's wagers abandoned mid-round "may" be treated as losing;
    # the facility chooses (P42).  "returned" gives them back, a progressive contribution included.
    abandoned_wagers: Literal["losing", "returned"] = "losing"

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        path = _TOML_PATH.get()
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        if path is not None:
            sources.append(_DecimalTomlSource(settings_cls, toml_file=path))
        return tuple(sources)

    # -- derived facts the daemon uses ---------------------------------------------------------

    @property
    def game_rules(self) -> Game:
        return GAMES[self.game]

    @property
    def automated_shuffler(self) -> bool:
        """An automated card shuffling device is used (see the module docstring)."""
        return self.devices.shuffler is not None

    def limits(self, wager: str) -> tuple[Decimal, Decimal]:
        """(min, max) of an offered wager; the Ante's companions share the Ante's (ch.7)."""
        return _limits(self.game_rules, self.wagers, wager)

    def paytable_letters(self) -> dict[str, str]:
        """The settle contract's ``paytables``: paytable name -> letter, for every offered wager."""
        return _paytable_letters(self)


# -- load ----------------------------------------------------------------------------------------


def load_config(path: str | os.PathLike[str] | None) -> TableConfig:
    """Read and check the configuration; raise ``ConfigError`` listing every problem."""
    if path is None:
        env_path = os.environ.get(CONFIG_PATH_ENV)
        if not env_path:
            raise ConfigError("configuration", [f"no configuration file given (and {CONFIG_PATH_ENV} is not set)"])
        path = env_path
    p = Path(path)
    if not p.is_file():
        why = "does not exist" if not p.exists() else "is not a file"
        raise ConfigError(str(p), [f"the configuration file {p} {why}"])

    problems = _unknown_env_vars()
    token = _TOML_PATH.set(p)
    try:
        cfg = TableConfig()  # type: ignore[call-arg]
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(p), [f"not valid TOML: {exc}"] + problems) from None
    except OSError as exc:
        raise ConfigError(str(p), [f"cannot read the configuration file: {exc}"]) from None
    except ValidationError as exc:
        problems += [_pydantic_problem(e) for e in exc.errors(include_url=False)]
        raise ConfigError(str(p), problems) from None
    finally:
        _TOML_PATH.reset(token)

    problems += [_with_env(where, msg) for where, msg in check(cfg)]
    if problems:
        raise ConfigError(str(p), problems)
    if not cfg.journal.is_absolute():
        cfg = cfg.model_copy(update={"journal": Path(os.path.normpath(p.resolve().parent / cfg.journal))})
    return cfg


# -- error messages ------------------------------------------------------------------------------


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


def _with_env(where: str, msg: str) -> str:
    var = _env_source(where)
    return f"{where} (from environment {var}): {msg}" if var else f"{where}: {msg}"


# The clause behind a field-level constraint, added to pydantic's message.
_HINTS = {
    "seats": "at most six betting positions, UTH ch.2 §A, JHE ch.2 §A, HCF ch.2, RET ch.2; seats 1..6, RULINGS R1",
    "dealing.decks": "two decks only with an automated shuffler, UTH ch.3 §B and the same clause of every game",
    "dealing.procedure": "a manual dealing shoe ch.8, the hand ch.9, an automated dealing shoe or shuffler ch.10",
    "dealing.dealer_cards": "UTH ch.10 §B(4), JHE ch.10 §B(3)",
}


def _pydantic_problem(err: Mapping[str, Any]) -> str:
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
    return _with_env(where, msg)


def _unknown_env_vars() -> list[str]:
    """TABLE_* variables that name no setting (pydantic-settings would ignore them silently)."""
    out = []
    for name in sorted(os.environ):
        if not name.upper().startswith(ENV_PREFIX) or name.upper() == CONFIG_PATH_ENV:
            continue
        parts = name[len(ENV_PREFIX):].lower().split(ENV_DELIMITER)
        if not _env_path_known(TableConfig, parts):
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


# -- checks against the rules --------------------------------------------------------------------

_HAND, _MANUAL_SHOE, _AUTO_SHOE, _SHUFFLER = "hand", "manual_shoe", "automated_shoe", "shuffler"

# Every clause cited below is the game's own (``Game.clauses``, ``Game.dealing``, its paytables and
# meters, declared in its module): this module keeps no table by game.
# The UTH Six Card Bonus box is dealt by UTH ch.10 §B(1) only: chapters 8 and 9 deal no box (P25, P55).
_BONUS_BOX_CLAUSE = "UTH ch.7 §F(4), UTH ch.8 §D, UTH ch.9 §B, UTH ch.10 §B(1); P55"
# Table limits are the operator's (no clause sets them); P56 reads what the validator requires of them.
_LIMITS_RULING = "P56"


def _companions(game: Game) -> tuple[str, ...]:
    """The wagers placed equal to the first Ante (UTH Blind, JHE X-tra Bonus, RET 2nd Ante)."""
    return game.antes[1:]


def _limits(game: Game, wagers: Mapping[str, WagerConfig], wager: str) -> tuple[Decimal, Decimal]:
    w = wagers[game.antes[0] if wager in _companions(game) else wager]
    assert w.min is not None and w.max is not None  # check() guarantees it
    return w.min, w.max


def _paytable_letters(cfg: TableConfig) -> dict[str, str]:
    game = cfg.game_rules
    out = {}
    for wager, w in cfg.wagers.items():
        name = game.paytable_of.get(wager)
        if name is not None:
            out[name] = w.paytable or game.letters(name)[0]
    for name in {game.paytable_of[d] for d in game.decision_wagers if d in game.paytable_of}:
        out[name] = game.letters(name)[0]  # RET: the single Run paytable
    if cfg.progressive.enabled and cfg.progressive.paytable:
        out["progressive"] = cfg.progressive.paytable
    return out


def check(cfg: TableConfig) -> list[tuple[str, str]]:
    """Every problem of a structurally valid configuration: (key path, message)."""
    game = cfg.game_rules
    g = game.short
    c = game.clauses
    problems: list[tuple[str, str]] = []

    def add(where: str, msg: str) -> None:
        problems.append((where, msg))


    # -- the devices every round needs (P46): the dealer drives the round from the panel; every wager is
    # read from the bet sensors, which are on the progressive table game system's unit (P37)
    if cfg.devices.panel is None:
        add("devices.panel", "required: the dealer's button panel is how every round is driven (P46)")
    if cfg.devices.progressive is None:
        add("devices.progressive", "required: the bet sensors every wager is read from are on the progressive "
            "system's unit, with or without the Progressive wager (P37, P46)")

    # -- who may turn the supervisor's key (P93): with no one listed no validation, void, resume or
    # opening step could ever be done, so the table does not start
    if not cfg.supervisors.ids:
        add("supervisors.ids", "required: the hashed IDs of the floor supervisors whose key the table takes "
            "(`tablectl supervisor hash` prints one; P93)")

    # -- seats and boxes
    if cfg.adjacent_boxes > cfg.seats:
        add("adjacent_boxes", f"must be at most the number of seats ({cfg.seats}) ({c.adjacent_boxes})")

    # -- dealing
    d = cfg.dealing
    shuffler = cfg.automated_shuffler
    if d.procedure == _HAND and not shuffler:
        add("dealing.procedure", f"dealing by hand needs an automated shuffler: set devices.shuffler ({g} ch.9 §A(1))")
    if d.procedure == _SHUFFLER and not shuffler:
        add("dealing.procedure", f"dealing from the shuffler needs devices.shuffler ({g} ch.10)")
    if d.procedure in (_MANUAL_SHOE, _AUTO_SHOE) and cfg.devices.shoe is None:
        chapter = "ch.8" if d.procedure == _MANUAL_SHOE else "ch.10"
        add("dealing.procedure", f"dealing from a shoe needs devices.shoe, the card-reading shoe the cards are read "
            f"from ({g} {chapter})")
    if d.decks == 2 and not shuffler:
        add("dealing.decks", f"two decks only with an automated shuffler: set devices.shuffler ({g} ch.3 §B)")
    if d.dealer_cards == "in_shuffler":
        if not game.dealer_cards:
            add("dealing.dealer_cards", f"{game.name} has no dealer hand ({c.dealer_hand})")
        elif not game.dealing.dealer_may_stay:
            add("dealing.dealer_cards", f"{game.name} has no procedure that leaves the dealer's cards in the shuffler: "
                f"they are delivered in the deal ({game.dealing.dealer_clause}, P27)")
        elif d.procedure != _SHUFFLER:
            add("dealing.dealer_cards", f'"in_shuffler" needs dealing.procedure = "shuffler" '
                f'({game.dealing.held_clause})')
    max_hours = Decimal(4) if d.procedure == _HAND else Decimal(8)
    if d.deck_change_hours > max_hours:
        how = ("when the cards are dealt by hand" if d.procedure == _HAND
               else "when the cards are dealt from a shoe or shuffler")
        sub = "(1)" if d.procedure == _HAND else "(2)"
        add("dealing.deck_change_hours", f"must be at most {max_hours} {how} ({g} ch.3 §C{sub})")
    if d.stub_count_rounds > 5:
        add("dealing.stub_count_rounds", f"must be at most 5 ({c.stub_count[d.procedure]})")

    # -- wagers
    _check_wagers(cfg, game, add)

    # -- progressive
    if cfg.progressive.enabled:
        _check_progressive(cfg, game, add)

    # -- payout limit (after the wagers: it is computed from their minimums)
    if not any(w.startswith("wagers") for w, _ in problems):
        floor, parts = payout_limit_floor(cfg)
        if cfg.payout_limit < floor:
            if floor == PAYOUT_LIMIT_MINIMUM:
                why = "$50,000"
            else:
                shown = ", ".join(f"{k} {v}" for k, v in parts.items() if v)
                why = f"the most one player could win in a round at the table minimums ({shown})"
            add("payout_limit", f"must be at least {floor} ({why}; {c.payout_limit}, RULINGS R6)")
    return problems


def _check_wagers(cfg: TableConfig, game: Game, add: Any) -> None:
    c = game.clauses
    offered = cfg.wagers
    for ante in game.antes:
        if ante not in offered:
            add(f"wagers.{ante}", f"required: every {game.name} player places it ({c.ante})")
    for wager, w in offered.items():
        where = f"wagers.{wager}"
        if wager == "progressive":
            add(where, "the Progressive wager is configured in [progressive] (its amount is the unit, RULINGS R3)")
            continue
        if wager not in game.wagers:
            if wager in game.decision_wagers:
                add(where, f"is made by the player's decision as a multiple of the Ante, not offered on its own "
                    f"({c.ante})")
            else:
                others = ", ".join(x for x in game.wagers if x != "progressive")
                add(where, f"{game.name} has no such wager (its wagers: {others}; {c.wagers})")
            continue
        name = game.paytable_of.get(wager)
        if name is None:
            if w.paytable is not None:
                add(f"{where}.paytable", f"the {wager} has no paytable: it pays 1 to 1 ({c.even_money})")
        else:
            offered_letters = game.letters(name)
            if w.paytable is None:
                if len(offered_letters) > 1:
                    add(f"{where}.paytable", f"required: one of {', '.join(offered_letters)} "
                        f"({_paytable_clause(game, name)})")
            elif w.paytable not in offered_letters:
                add(f"{where}.paytable", f"must be one of {', '.join(offered_letters)}, not {w.paytable!r} "
                    f"({_paytable_clause(game, name)})")
        if wager in _companions(game):
            ante_wager = offered.get(game.antes[0])
            for key in ("min", "max"):
                mine = getattr(w, key)
                theirs = getattr(ante_wager, key) if ante_wager is not None else None
                if mine is not None and theirs is not None and mine != theirs:
                    add(f"{where}.{key}", f"must equal wagers.{game.antes[0]}.{key} ({theirs}): the two "
                        f"are placed in equal amounts ({c.ante})")
            continue
        if w.min is None:
            add(f"{where}.min", f"required: the table minimum ({c.payout_limit} counts from it; {_LIMITS_RULING})")
        elif w.min <= 0:
            add(f"{where}.min", f"must be more than 0 ({_LIMITS_RULING})")
        if w.max is None:
            add(f"{where}.max", f"required: the table maximum ({_LIMITS_RULING})")
        elif w.min is not None and w.max < w.min:
            add(f"{where}.max", f"must be at least the minimum ({w.min}) ({_LIMITS_RULING})")
    if "six_card_bonus" in offered and "trips" not in offered:
        add("wagers.six_card_bonus", "needs the Trips wager offered too (UTH ch.7 §F(4)(b), RULINGS R21b)")
    if game.bonus_cards and "six_card_bonus" in offered and cfg.dealing.procedure in (_MANUAL_SHOE, _HAND):
        add("wagers.six_card_bonus", "the Six Card Bonus box is dealt only by an automated dealing shoe or shuffler: "
            f"a table dealing from a manual shoe or by hand cannot offer it ({_BONUS_BOX_CLAUSE})")


def _paytable_clause(game: Game, name: str) -> str:
    """The clause listing a wager's paytables (that of its first letter, up to its own number)."""
    return game.paytable(name, game.letters(name)[0]).clause.rsplit("(", 1)[0]


def _check_progressive(cfg: TableConfig, game: Game, add_problem: Any) -> None:
    g = game.short
    p = cfg.progressive
    found: list[str] = []

    def add(where: str, msg: str) -> None:
        found.append(where)
        add_problem(where, msg)

    if cfg.devices.progressive is None:
        add("devices.progressive", "required with the Progressive wager: the progressive table game system "
            f"({game.clauses.progressive_system})")
    if p.unit is None:
        add("progressive.unit", "required: the amount of the one Progressive wager (RULINGS R3)")
    elif p.unit <= 0:
        add("progressive.unit", "must be more than 0 (RULINGS R3)")
    offered = game.letters("progressive")
    where = _paytable_clause(game, "progressive")
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
            add("progressive.envy", f"{game.name} has no Envy Bonus (its paytables, {g} ch.12, list none; RULINGS R24)")
        elif game.envy_letter_is_progressive_letter:
            if p.envy != p.paytable or p.envy not in game.letters("envy"):
                envy = game.letters("envy")
                add("progressive.envy", f"{game.name} pays an Envy Bonus only with Progressive paytable "
                    f"{' or '.join((', '.join(envy[:-1]), envy[-1]))}, "
                    f"by the Envy table of the same letter ({p.paytable!r} here) "
                    "(RULINGS R18a)")
        elif p.envy not in game.letters("envy"):
            add("progressive.envy", f"must be one of {', '.join(game.letters('envy'))}, not {p.envy!r} "
                f"({_paytable_clause(game, 'envy')})")

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
    total = sum((m.rate for m in p.meters.values()), Decimal(0))
    if total >= 1:
        add("progressive.meters", f"the rates together take {total} of each wager: they must add up to less than 1 "
            "(P33)")
    if not found:
        _check_progressive_return(cfg, game, add)


def _check_progressive_return(cfg: TableConfig, game: Game, add: Any) -> None:
    """RULINGS R24d: the return at the reset amounts, with the Envy Bonus a seat receives at a full
    table, must be less than 1 (exact, from counts held as data: cheap at every start)."""
    p = cfg.progressive
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


# -- payout limit floor --------------------------------------------------------------------------


def _top_net(game: Game, wager_paytable: str, letter: str, amount: Decimal) -> Decimal:
    """The largest net of any line of a paytable on ``amount`` (RULINGS R2, R21a)."""
    best = Decimal(0)
    for line in game.paytable(wager_paytable, letter).lines:
        pays = line.pays
        if isinstance(pays, Odds):
            net = odds_net(amount, pays)
        elif isinstance(pays, FixedAmount):
            net = pays.dollars
        elif isinstance(pays, Push):
            net = Decimal(0)
        elif isinstance(pays, (FixedPerUnit, MeterPercent)):  # pragma: no cover - Progressive/Envy only, never covered
            raise ValueError(f"{wager_paytable} is not covered by the payout limit")
        best = max(best, net)
    return best


def max_round_win(cfg: TableConfig) -> tuple[Decimal, dict[str, Decimal]]:
    """The most one player could win in one round betting the table minimums (RULINGS R6).

    The payout limit covers every wager of the game except the Progressive
    wager, the Envy Bonus and, in UTH, the Six Card Bonus (``Game.not_covered``).
    The bound used here is the **sum**, over every covered wager the table
    offers, of that wager's highest paytable line paid on its own minimum:

    * each Ante (and UTH Blind / JHE X-tra Bonus / RET 2nd Ante, placed equal
      to it) at the Ante's minimum: 1 to 1 (``Game.clauses.even_money``), or its paytable's top
      line (Blind, X-tra Bonus);
    * each decision wager (Play, Raise, 1st/2nd Run, Center) at the largest
      multiple of the minimum Ante the game allows (``Game.streets``): 1 to 1,
      or the Run paytable's top line (RET);
    * each offered side wager at its own minimum, at its top line.

    One player may place every offered wager in the same round, so no round
    can win more than this sum; it is an upper bound of the exact maximum.
    The exact maximum needs the best joint outcome (the Bad Beat's top line,
    for one, needs the player to lose the Ante, Blind and Play), which would
    need a search over hands; the bound errs on the side the rule protects:
    a payout limit at or above it is never below the most a player could win.
    Returns the bound and its parts, wager by wager.
    """
    game = cfg.game_rules
    letters_of = _paytable_letters(cfg)
    ante_min = cfg.wagers[game.antes[0]].min
    assert ante_min is not None
    parts: dict[str, Decimal] = {}

    def pays(wager: str, amount: Decimal) -> Decimal:
        name = game.paytable_of.get(wager)
        if name is None:
            return amount  # 1 to 1 (the game's clauses.even_money)
        return _top_net(game, name, letters_of[name], amount)

    for ante in game.antes:
        parts[ante] = pays(ante, ante_min)
    if len(game.decision_wagers) == len(game.streets):
        multiples = [max(st.multiples) for st in game.streets]
    else:
        multiples = [max(m for st in game.streets for m in st.multiples)] * len(game.decision_wagers)
    for wager, k in zip(game.decision_wagers, multiples, strict=False):
        parts[wager] = pays(wager, ante_min * k)
    for wager, w in cfg.wagers.items():
        if wager in game.antes or wager in game.not_covered or wager not in game.wagers:
            continue
        assert w.min is not None
        parts[wager] = pays(wager, w.min)
    return sum(parts.values(), Decimal(0)).quantize(CENT), parts


def payout_limit_floor(cfg: TableConfig) -> tuple[Decimal, dict[str, Decimal]]:
    """The least payout limit allowed: the greater of $50,000 and ``max_round_win`` (RULINGS R6)."""
    most, parts = max_round_win(cfg)
    return max(PAYOUT_LIMIT_MINIMUM.quantize(CENT), most), parts


__all__ = [
    "ConfigError",
    "DealingConfig",
    "DevicesConfig",
    "MeterConfig",
    "ProgressiveConfig",
    "TableConfig",
    "WagerConfig",
    "check",
    "load_config",
    "max_round_win",
    "payout_limit_floor",
]
