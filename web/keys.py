"""The floor application's shared objects and a request's login, as typed keys (aiohttp's ``AppKey``
and ``RequestKey``: the type checker sees what each one holds, and aiohttp does not warn of string keys)."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from controller.config.progressive import ProgressiveConfig
from controller.config.protection import ProtectionConfig
from controller.config.table import WebConfig
from web.audit import Audit, LoginThrottle
from web.auth import Login, Sessions, Users
from web.feed import StatusFeed
from web.verified import JournalCheck, Verdict

TABLE = web.AppKey("table", str)  # the table's id and name, on every page
FEED = web.AppKey("feed", StatusFeed)
AUDIT = web.AppKey("audit", Audit)
THROTTLE = web.AppKey("throttle", LoginThrottle)  # refused logins, bounded (web/audit.py)
JOURNAL_PATH = web.AppKey("journal_path", Path)
METER_NAMES = web.AppKey("meter_names", list[str])
PROGRESSIVE = web.AppKey("progressive", ProgressiveConfig)  # a linked table's page reads the link's meters
USERS = web.AppKey("users", Users)  # the users file as it is now (re-read when it changes)
WEB = web.AppKey("web", WebConfig)  # the configuration's [web] section
PROTECTION = web.AppKey("protection", ProtectionConfig)  # the gaming day and shifts of the hold (issue 28)
SESSIONS = web.AppKey("sessions", Sessions)
CHECK = web.AppKey("check", JournalCheck)  # the journal's verification, kept incrementally (web/verified.py)

LOGIN = web.RequestKey("login", Login)  # who is logged in, set by web/guard.py for the handlers
VERDICT = web.RequestKey("verdict", Verdict)  # the journal verified before the page (floor.journal_guard)
