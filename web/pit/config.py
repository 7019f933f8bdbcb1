"""``pit.toml``: the pit server's configuration (``tablectl pit --config pit.toml``; docs/pit.md).

    database = "postgresql://pit@db.example/pit"   # the pit's own database, never the link's
    host = "0.0.0.0"            port = 8800
    users = "/etc/table-controller/pit-users"      # the floor's accounts (tablectl web --add-user writes them)
    state_dir = "/var/lib/table-controller/pit"    # the audit of logins and acknowledgements
    session_minutes = 30

Every key may be set in the environment too (``PIT_PORT=0``); an unknown key or a value out of range is an
error naming the key.
"""

from __future__ import annotations

import contextvars
import tomllib
from pathlib import Path
from typing import Annotated

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from controller.config.problems import pydantic_problem
from controller.config.table import ConfigError

_TOML: contextvars.ContextVar[Path | None] = contextvars.ContextVar("pit_toml", default=None)


class PitConfig(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PIT_", extra="forbid", frozen=True)

    #: the pit's database (PostgreSQL)
    database: Annotated[str, Field(pattern=r"^postgres(ql)?://")]
    host: Annotated[str, Field(min_length=1)] = "127.0.0.1"
    port: Annotated[int, Field(ge=0, le=65535)] = 8800  # 0: any free port (tests)
    #: the accounts file (as the floor's pages'); none: nobody can log in
    users: Path | None = None
    session_minutes: Annotated[int, Field(ge=1, le=720)] = 30
    #: where the pit keeps its audit journal (logins, acknowledgements)
    state_dir: Path = Path("var/pit")

    @classmethod
    def settings_customise_sources(
        cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        path = _TOML.get()
        toml = (TomlConfigSettingsSource(settings_cls, toml_file=path),) if path else ()
        return (init_settings, env_settings, *toml)


def load_pit_config(path: Path) -> PitConfig:
    """Read and check ``path``; raise ``ConfigError`` with every problem, each naming its key."""
    if not path.is_file():
        raise ConfigError(str(path), [f"the configuration file {path} does not exist"])
    token = _TOML.set(path)
    try:
        return PitConfig()  # type: ignore[call-arg]
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(path), [f"not valid TOML: {exc}"]) from None
    except ValidationError as exc:
        raise ConfigError(str(path), [pydantic_problem(e) for e in exc.errors(include_url=False)]) from None
    finally:
        _TOML.reset(token)
