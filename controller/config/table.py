"""The table configuration: one TOML file, overridable by environment variables.

``load_config(path)`` reads the file, lays the ``TABLE_*`` environment over it and checks the whole
configuration against the rules of the configured game; anything wrong is a ``ConfigError`` listing every
problem, one line each, naming its key.  Each section has its own module beside this one; this module joins
them (``TableConfig``), loads the file and runs every check.  The sources, the schema and what each key
means: docs/configuration.md.
"""

from __future__ import annotations

import contextvars
import errno
import os
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    Field,
    FilePath,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from controller.config.dealing import DealingConfig, Procedure, check_dealing
from controller.config.devices import DevicesConfig, ModbusUrl, SerialUrl, check_devices
from controller.config.payout import PAYOUT_LIMIT_MINIMUM, check_payout_limit, max_round_win, payout_limit_floor
from controller.config.problems import (
    CONFIG_PATH_ENV,
    ENV_DELIMITER,
    ENV_PREFIX,
    pydantic_problem,
    unknown_env_vars,
    with_env,
)
from controller.config.progressive import MeterConfig, ProgressiveConfig, check_progressive
from controller.config.protection import ProtectionConfig
from controller.config.values import STRICT, Hours, Money, Rate, TableId
from controller.config.wagers import WagerConfig, check_wagers, limits, paytable_letters
from controller.supervisors import entry_problem
from games.game import Game
from games.registry import GAMES


class ConfigError(Exception):
    """The configuration cannot be used; ``problems`` holds one line per problem."""

    def __init__(self, source: str, problems: list[str]) -> None:
        # one line each, whatever a name or value given holds (a newline in --table's id: issue 30)
        self.source = source.replace("\n", "\\n").replace("\r", "\\r")
        self.problems = [p.replace("\n", "\\n").replace("\r", "\\r") for p in problems]
        n = len(problems)
        head = f"{self.source}: " + ("1 problem" if n == 1 else f"{n} problems")
        super().__init__(head + ":\n" + "\n".join(f"  {p}" for p in self.problems))


# -- the sections of this module -----------------------------------------------------------------

def _supervisor_entry(value: object) -> str:
    problem = entry_problem(value)
    if problem is not None:
        raise PydanticCustomError("supervisor_hash", "{msg}", {"msg": problem})
    assert isinstance(value, str)
    return value


SupervisorEntry = Annotated[str, BeforeValidator(_supervisor_entry)]


class SupervisorsConfig(BaseModel):
    """The floor supervisors whose key the table takes, each ID hashed (controller/supervisors.py, P93)."""

    model_config = STRICT

    ids: tuple[SupervisorEntry, ...] = ()


class WebConfig(BaseModel):
    """``tablectl web``: the dealer's screen and the floor's pages (web/).  The dealer's screen shows
    only the public state, on this machine by default; the floor's pages listen where this names."""

    model_config = STRICT

    dealer_host: Annotated[str, Field(min_length=1)] = "127.0.0.1"
    dealer_port: Annotated[int, Field(ge=0, le=65535)] = 8700  # 0: any free port (tests)
    floor_host: Annotated[str, Field(min_length=1)] = "127.0.0.1"
    floor_port: Annotated[int, Field(ge=0, le=65535)] = 8701
    #: the floor's accounts (``tablectl web adduser``); none: nobody can log in
    users: Path | None = None
    #: a login expires this long after it was made
    session_minutes: Annotated[int, Field(ge=1, le=720)] = 30
    #: TLS for the floor's pages: a PEM certificate (chain) and its private key, both or neither; neither: plain
    #: HTTP, or a reverse proxy terminating TLS in front (docs/install.md, then ``proxied_tls``)
    tls_cert: FilePath | None = None
    tls_key: Annotated[FilePath | None, Field(validate_default=True)] = None
    #: the floor's pages are reached only through a reverse proxy that terminates TLS: cookies marked Secure
    proxied_tls: bool = False
    #: an account is locked after this many wrong passwords in a row, until a supervisor unlocks it
    lock_after: Annotated[int, Field(ge=3, le=100)] = 10
    #: a connection that has not sent a whole request head in this many seconds is closed (slow headers)
    header_seconds: Annotated[int, Field(ge=1, le=60)] = 5
    #: a request body not received in this many seconds is refused (408)
    body_seconds: Annotated[int, Field(ge=1, le=120)] = 10
    #: the largest request body the floor's pages take, in KiB (their forms are a few hundred bytes)
    max_body_kb: Annotated[int, Field(ge=1, le=1024)] = 64
    #: the access log (web/audit.py) is kept at least this many days ...
    audit_keep_days: Annotated[int, Field(ge=90, le=3650)] = 90
    #: ... within this many MiB on disk, its files included (the cap outranks the days: the table's disk, P107)
    audit_max_mb: Annotated[int, Field(ge=16, le=100_000)] = 256
    #: the pit's database (docs/pit.md: postgresql://...): the web service publishes the table's summary there
    pit: Annotated[str, Field(pattern=r"^postgres(ql)?://")] | None = None
    #: this table's floor pages as the pit links to them (none: the address the service bound)
    floor_url: Annotated[str, Field(pattern=r"^https?://")] | None = None

    @field_validator("tls_key", mode="after")
    @classmethod
    def _tls_both_or_neither(cls, key: Path | None, info: ValidationInfo) -> Path | None:
        if "tls_cert" in info.data and (info.data["tls_cert"] is None) != (key is None):  # a bad cert is its own error
            raise ValueError("tls_cert and tls_key are given both or neither")
        return key


class JournalOptionsConfig(BaseModel):
    """How the journal keeps its derived state (issue 14, P58): a checkpoint every so many rounds."""

    model_config = STRICT

    #: rounds between two checkpoints (and at every table close): start-up reads at most this many rounds
    checkpoint_every: Annotated[int, Field(ge=1, le=100_000)] = 250
    #: segments (P60): roll the journal over to a new file before the first round of a new day (UTC) ...
    segment_daily: bool = False
    #: ... or, between rounds, once the open file passes this many megabytes (none: no limit)
    segment_max_mb: Annotated[Decimal, Field(gt=0, le=1_000_000)] | None = None
    #: where sealed segments are archived (P62); none: they stay beside the journal only
    archive_dir: Path | None = None
    #: sealed segments older than this many days are deleted once archived (needs archive_dir; none: kept)
    retain_days: Annotated[int, Field(ge=1, le=36_500)] | None = None
    #: room kept beside the journal (``<journal>.reserve``), given up when the disk is found full so that the
    #: round in progress can finish and the halt be journaled (P104); 0: none
    reserve_mb: Annotated[Decimal, Field(ge=0, le=10_000)] = Decimal(4)

    @model_validator(mode="after")
    def _retention_needs_an_archive(self) -> JournalOptionsConfig:
        if self.retain_days is not None and self.archive_dir is None:
            raise ValueError("retain_days needs archive_dir: a segment is deleted only once it is archived (P62)")
        return self


class ProgramConfig(BaseModel):
    """Program verification (controller/program.py, P115): the installed files against the release's manifest."""

    model_config = STRICT

    #: the installed program is checked at start and every this many hours
    check_hours: Annotated[int, Field(ge=1, le=24)] = 4


class LogsConfig(BaseModel):
    """The daemon's log files (controller/logs.py ``LogFiles``, P116), beside the journal (``<stem>.logs.d/``)."""

    model_config = STRICT

    #: a log file is kept at least this many days (90 at the least) ...
    keep_days: Annotated[int, Field(ge=90, le=3650)] = 90
    #: ... within this many MiB for all of them (the cap outranks the days: the table's disk; said when it cuts)
    max_mb: Annotated[int, Field(ge=16, le=100_000)] = 256
    #: a file is rolled over each day (UTC) and past this many MiB
    file_mb: Annotated[int, Field(ge=1, le=1024)] = 16

    @model_validator(mode="after")
    def _a_file_within_the_cap(self) -> LogsConfig:
        if self.file_mb > self.max_mb:
            raise ValueError("file_mb is more than max_mb: one file would pass the cap")
        return self


_TOML_PATH: contextvars.ContextVar[Path | None] = contextvars.ContextVar("table_config_toml", default=None)
#: the values the sources gave (file and environment merged), kept by TableConfig's validator so that a
#: configuration refused for its structure still has the rules' checks run on the sections that are sound
_GIVEN: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("table_config_given", default=None)


def _registered_game(name: str) -> str:
    """One of the games of ``games.registry.GAMES`` as it is when a table is read (not a list taken when
    this module was imported: a game is registered in one place, docs/new-game.md)."""
    if name not in GAMES:
        names = [repr(g) for g in GAMES]
        raise PydanticCustomError("literal_error", "Input should be {expected}",
                                  {"expected": ", ".join(names[:-1]) + " or " + names[-1]})
    return name


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
    game: Annotated[str, AfterValidator(_registered_game)]
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
    journal_options: JournalOptionsConfig = Field(default_factory=JournalOptionsConfig)
    program: ProgramConfig = Field(default_factory=ProgramConfig)
    logs: LogsConfig = Field(default_factory=LogsConfig)
    protection: ProtectionConfig = Field(default_factory=ProtectionConfig)
    log_format: Literal["json", "console", "journald", "auto"] = "auto"
    # UTH ch.7 §C(2) (JHE, HCF alike), RET ch.7 §B(3): a player's wagers abandoned mid-round "may" be treated as losing;
    # the facility chooses (P42).  "returned" gives them back, a progressive contribution included.
    abandoned_wagers: Literal["losing", "returned"] = "losing"

    @model_validator(mode="wrap")
    @classmethod
    def _keep_given(cls, data: Any, handler: Any) -> Any:
        if isinstance(data, dict):
            _GIVEN.set(data)
        return handler(data)

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
        """An automated card shuffling device is used (docs/configuration.md: "used" exactly when one is configured)."""
        return self.devices.automated_shuffler

    def limits(self, wager: str) -> tuple[Decimal, Decimal]:
        """(min, max) of an offered wager; the Ante's companions share the Ante's (UTH ch.7)."""
        return limits(self.game_rules, self.wagers, wager)

    def paytable_letters(self) -> dict[str, str]:
        """The settle contract's ``paytables``: paytable name -> letter, for every offered wager."""
        p = self.progressive
        return paytable_letters(self.game_rules, self.wagers, p.paytable if p.enabled else None)


# -- load ----------------------------------------------------------------------------------------


def load_config(path: str | os.PathLike[str] | None) -> TableConfig:
    """Read and check the configuration; raise ``ConfigError`` listing every problem."""
    if path is None:
        env_path = os.environ.get(CONFIG_PATH_ENV)
        if not env_path:
            raise ConfigError("configuration", [f"no configuration file given (and {CONFIG_PATH_ENV} is not set)"])
        path = env_path
    p = Path(path)
    try:
        is_file = p.is_file()
    except OSError as exc:  # a name too long for the file system: one line, not a traceback (issue 30)
        raise ConfigError(str(p), [f"the configuration file's name cannot be used: {exc.strerror}"]) from None
    if not is_file:
        why = "does not exist" if not p.exists() else "is not a file"
        raise ConfigError(str(p), [f"the configuration file {p} {why}"])

    problems = unknown_env_vars(TableConfig)
    token, given = _TOML_PATH.set(p), _GIVEN.set(None)
    try:
        cfg = TableConfig()  # type: ignore[call-arg]
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(p), [f"not valid TOML: {exc}"] + problems) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(p), [f"cannot read the configuration file: {exc}"]) from None
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        problems += [pydantic_problem(e) for e in errors]
        # every problem at once (issue 30): the rules' checks of the sections that are sound as well
        problems += [with_env(where, msg) for where, msg in _check_sound_sections(_GIVEN.get(), errors)]
        raise ConfigError(str(p), problems) from None
    finally:
        _TOML_PATH.reset(token)
        _GIVEN.reset(given)

    problems += [with_env(where, msg) for where, msg in check(cfg) + _path_problems(cfg)]
    if problems:
        raise ConfigError(str(p), problems)
    if not cfg.journal.is_absolute():
        cfg = cfg.model_copy(update={"journal": Path(os.path.normpath(p.resolve().parent / cfg.journal))})
    opts = cfg.journal_options
    if opts.archive_dir is not None and not opts.archive_dir.is_absolute():  # as the journal's: from the file
        archive = Path(os.path.normpath(p.resolve().parent / opts.archive_dir))
        cfg = cfg.model_copy(update={"journal_options": opts.model_copy(update={"archive_dir": archive})})
    return cfg


# -- checks against the rules --------------------------------------------------------------------


def _path_problems(cfg: TableConfig) -> list[tuple[str, str]]:
    """A path no file system takes (a name past its length, a NUL): a problem of its key, not an OSError
    when the daemon or the tools first touch it (issue 30)."""
    out = []
    paths = {"journal": cfg.journal, "journal_options.archive_dir": cfg.journal_options.archive_dir,
             "web.users": cfg.web.users}
    for where, path in paths.items():
        if path is None:
            continue
        try:
            os.stat(path)
        except ValueError as exc:
            out.append((where, f"is not a usable path ({exc})"))
        except OSError as exc:
            if exc.errno == errno.ENAMETOOLONG:
                out.append((where, f"is not a usable path ({exc.strerror})"))
    return out


def _check_sound_sections(given: dict[str, Any] | None, errors: list[Any]) -> list[tuple[str, str]]:
    """The rules' checks of a configuration refused for its structure, on the sections that are sound: each
    check whose sections all validated runs on them, the others wait until their sections are right."""
    if given is None:
        return []
    if not all(e["loc"] for e in errors):  # a problem of the whole: nothing is known sound
        return []
    broken = {str(e["loc"][0]) for e in errors}
    sound: dict[str, Any] = {}
    for name, field in TableConfig.model_fields.items():
        if name in broken:
            continue
        if name in given:
            kind: Any = Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation
            sound[name] = TypeAdapter(kind).validate_python(given[name])
        elif not field.is_required():
            sound[name] = field.get_default(call_default_factory=True)
        else:  # pragma: no cover - a required field absent is an error, so broken
            broken.add(name)
    try:
        return check(TableConfig.model_construct(**sound), frozenset(broken))
    except ValidationError:  # pragma: no cover - each field validated above as the model validates it
        return []


#: the top-level fields each of the rules' checks reads (check() runs a check only when all are sound)
_READS = {
    "devices": {"devices"},
    "supervisors": {"supervisors"},
    "adjacent_boxes": {"game", "seats", "adjacent_boxes"},
    "dealing": {"game", "dealing", "devices"},
    "wagers": {"game", "wagers", "dealing"},
    "progressive": {"game", "progressive", "devices"},
    "payout_limit": {"game", "wagers", "progressive", "payout_limit", "dealing"},
}


def check(cfg: TableConfig, broken: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """Every problem of a configuration: (key path, message), section by section.  ``broken``: the top-level
    fields that did not validate (``cfg`` then holds the others only): the checks reading them are not run."""
    problems: list[tuple[str, str]] = []

    def add(where: str, msg: str) -> None:
        problems.append((where, msg))

    def runs(name: str) -> bool:
        return not (_READS[name] & broken)

    if runs("devices"):
        check_devices(cfg.devices, add)
    # -- who may turn the supervisor's key (P93): with no one listed no validation, void, resume or
    # opening step could ever be done, so the table does not start
    if runs("supervisors") and not cfg.supervisors.ids:
        add("supervisors.ids", "required: the hashed IDs of the floor supervisors whose key the table takes "
            "(`tablectl supervisor hash` prints one; P93)")

    # -- seats and boxes
    if runs("adjacent_boxes") and cfg.adjacent_boxes > cfg.seats:
        add("adjacent_boxes", f"must be at most the number of seats ({cfg.seats}) "
            f"({cfg.game_rules.clauses.adjacent_boxes})")

    if runs("dealing"):
        check_dealing(cfg.game_rules, cfg.dealing, cfg.devices, add)
    if runs("wagers"):
        check_wagers(cfg.game_rules, cfg.wagers, cfg.dealing.procedure, add)
    if runs("progressive") and cfg.progressive.enabled:
        check_progressive(cfg.game_rules, cfg.progressive, cfg.devices, add)
    # the payout limit's floor counts from the wagers' minimums: only once the wagers are right
    if runs("payout_limit") and not any(w.startswith("wagers") for w, _ in problems):
        check_payout_limit(cfg, add)
    return problems


__all__ = [
    "CONFIG_PATH_ENV",
    "ENV_DELIMITER",
    "ENV_PREFIX",
    "PAYOUT_LIMIT_MINIMUM",
    "ConfigError",
    "DealingConfig",
    "DevicesConfig",
    "Hours",
    "MeterConfig",
    "ModbusUrl",
    "Money",
    "Procedure",
    "ProgressiveConfig",
    "Rate",
    "SerialUrl",
    "SupervisorEntry",
    "SupervisorsConfig",
    "TableConfig",
    "TableId",
    "WagerConfig",
    "WebConfig",
    "check",
    "load_config",
    "max_round_win",
    "payout_limit_floor",
]
