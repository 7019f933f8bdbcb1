"""The words a person reads for every code a screen can show: ONE collector, served as ``/words.json``.

A code (a game, a wager, a paytable line, a phase, an action, a button, a device, a health, a cause ...)
gets its words where it is invented: a module that declares codes declares ``WORDS: dict[str, str]``
beside them, and each game its ``title`` and ``words`` (``games.game.Game``).  This module only collects
them (``SOURCES``, in order) and refuses two different words for one code: a code that means two things
is qualified (``device.progressive``: the progressive system, beside the Progressive wager).  Modules of
parts still being written (``OPTIONAL``) may be absent.

``say`` is the one reading of a code, the same as web/static/words.js's ``say``: ``code``, ``code:A`` (a
deck), ``code:3`` (a seat), ``code:left`` (a place), ``code: free text`` (a value with its reason).  A code
with no words is shown as it is (the tests look for those).  ``money`` and ``local_time`` are the
screens' amounts ("$10,000.48", exact) and times (local, with the zone).
"""

from __future__ import annotations

import functools
import importlib
import json
import re
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal, InvalidOperation

#: the modules whose ``WORDS`` are collected (with the games' and their paytables', first)
SOURCES: tuple[str, ...] = (
    "games.poker", "games.ultimate_pairs", "games.round", "games.dealing",
    "controller.config.dealing", "controller.round.state", "controller.round.actions", "controller.round.decisions",
    "controller.round.chips", "controller.steps", "controller.table",
    "controller.irregularities", "controller.service.status", "controller.service.told",
    "controller.service.refused", "controller.service.storage", "controller.service.alarms", "controller.service.clock",
    "controller.program",
    "drivers.health", "drivers.device", "drivers.registers",
    "controller.events", "controller.journal.trust", "web.audit", "web.verified", "controller.protection.shuffle",
    "controller.protection.witnesses", "controller.protection.hold",  # issue 28: findings, hold, streaks
)
#: modules that may be absent (a part being written): collected when they exist
OPTIONAL: frozenset[str] = frozenset()
#: places whose card index counts from 0 (``community:0`` is the first community card)
FROM_ZERO = ("community", "bonus_box")

_PARAM = re.compile(r"([a-z][a-z0-9_]*):([A-Za-z0-9_]+)")
_REASON = re.compile(r"([a-z][a-z0-9_]*): (.+)", re.S)


class WordsConflict(ValueError):
    """Two declarations give one code different words."""


def _module_words(name: str) -> Mapping[str, str]:
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if name in OPTIONAL and e.name == name:
            return {}
        raise
    found: Mapping[str, str] = getattr(module, "WORDS", {})
    return found


def declarations() -> list[tuple[str, Mapping[str, str]]]:
    """Every declaration, (where, its words), in the order collected."""
    from games.paytables import GAME_MODULES
    from games.registry import GAMES

    out: list[tuple[str, Mapping[str, str]]] = []
    for game in GAMES.values():
        out.append((f"games: {game.name}", {game.name: game.title, **game.words}))
    out += [(m.__name__, getattr(m, "WORDS", {})) for m in GAME_MODULES]
    out += [(name, _module_words(name)) for name in SOURCES]
    return out


def collect(found: list[tuple[str, Mapping[str, str]]]) -> dict[str, str]:
    words: dict[str, str] = {}
    where: dict[str, str] = {}
    for source, declared in found:
        for code, text in declared.items():
            code, text = str(code), str(text)
            if code in words and words[code] != text:
                raise WordsConflict(f"{code!r}: {words[code]!r} ({where[code]}) or {text!r} ({source})")
            words[code], where[code] = text, source
    return words


@functools.cache
def words() -> dict[str, str]:
    """Every code's words (collected once)."""
    return collect(declarations())


def words_json() -> str:
    """``/words.json``: the words and how ``say`` reads a place's index."""
    return json.dumps({"words": words(), "from_zero": list(FROM_ZERO)}, sort_keys=True)


def say(code: object, kind: str | None = None) -> str:
    """``code`` in words (``kind``: a qualified code first, ``device`` for ``device.progressive``); as it is
    when it has none.  Non-codes (None, numbers) are shown as text."""
    if code is None:
        return ""
    text = str(code)
    w = words()
    if kind is not None and f"{kind}.{text}" in w:
        return w[f"{kind}.{text}"]
    if text in w:
        return w[text]
    if m := _PARAM.fullmatch(text):
        base, param = m.groups()
        if base in w:
            if re.fullmatch(r"[A-Z]", param):
                return f"{w[base]}, deck {param}"
            if param.isdigit():
                return f"{w[base]} {int(param) + 1 if base in FROM_ZERO else int(param)}"
            return f"{w[base]}: {say(param)}"
    if m := _REASON.fullmatch(text):
        base, reason = m.groups()
        if base in w:
            return f"{w[base]}: {reason}"
    return text


def money(amount: object) -> str:
    """An amount as a person reads it, exact: ``"-10000.48"`` -> ``"-$10,000.48"`` (cents always shown)."""
    try:
        d = Decimal(str(amount))
    except InvalidOperation:
        return str(amount)
    if not d.is_finite():
        return str(amount)
    places = max(2, -int(d.normalize().as_tuple().exponent)) if d != d.to_integral_value() else 2
    return f"{'-' if d < 0 else ''}${abs(d):,.{places}f}"


def local_time(when: object, *, date: bool = False) -> str:
    """A time (epoch seconds or ISO 8601 with its offset) in the table's local time with its zone:
    ``"14:03:07 EST"``, ``"2026-11-26 14:03:07 EST"`` with the date."""
    if isinstance(when, (int, float)):
        t = datetime.fromtimestamp(when).astimezone()
    else:
        try:
            t = datetime.fromisoformat(str(when)).astimezone()
        except ValueError:
            return str(when)
    return t.strftime("%Y-%m-%d %H:%M:%S %Z" if date else "%H:%M:%S %Z")


__all__ = ["FROM_ZERO", "OPTIONAL", "SOURCES", "WordsConflict", "collect", "declarations", "local_time", "money",
           "say", "words", "words_json"]
