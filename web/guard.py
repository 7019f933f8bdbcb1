"""What stands between the floor's network and its pages: the login, the roles' routes, CSRF tokens, body limits.

``ROUTES`` is the one declaration of which role may open which route (P107): a supervisor validates, answers
alarms and recalls hands; an auditor reads recall, reports and the access log; a technician sees the table's
state and devices, never a hand's cards.  A route not declared is refused to every role (a new page is declared
here before anyone can open it; tests/test_web_security.py walks every route for every role).  ``guard`` is
the floor application's middleware: it ends the session of an account disabled or removed, applies a changed
role at once, refuses a route of another role (403, in the access log) and every POST without its token (403,
logged): a login's token for its forms, and for the login form a token of its own, in a cookie and a hidden
field alike (double submit), so that no other site can post a form here.  Each page's view (every GET after the
login but ``NOT_VIEWS``) goes to the access log with who, the address and the search's fields (``QUERY_KEPT``),
never a token.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import secrets
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

from web import audit, keys
from web.auth import COOKIE, ROLES

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
SUPERVISOR, AUDITOR, TECHNICIAN = ROLES
EVERYONE = frozenset(ROLES)
PUBLIC = None  # a route open before the login
RECALL = frozenset({SUPERVISOR, AUDITOR})  # hand history: never a technician's
#: route (as the router declares it) -> the roles that may open it; PUBLIC: no login needed
ROUTES: dict[str, frozenset[str] | None] = {
    "/login": PUBLIC,
    "/words.json": PUBLIC,
    "/static": PUBLIC,
    "/logout": EVERYONE,
    "/liveness": EVERYONE,
    "/liveness.json": EVERYONE,
    "/": EVERYONE,  # the table at a glance: its state, devices, meters, journal verified
    "/rounds": RECALL,
    "/rounds/{round_id}": RECALL,
    "/progressive": RECALL,  # its hits name rounds and seats
    "/irregularities": RECALL,  # an irregularity's details may name cards
    "/protection": RECALL,  # game protection's findings (rounds, seats) and the hold (issue 28)
    "/protection/shuffler": frozenset({SUPERVISOR}),  # the shuffler taken out of service (issue 28)
    "/audit": frozenset({AUDITOR}),
    "/accounts": frozenset({SUPERVISOR}),  # the accounts locked, and their unlocking (web/accounts.py)
    "/accounts/unlock": frozenset({SUPERVISOR}),
    # the devices' health and the configuration in use (web/technician.py): the technician's work; the supervisor's
    # glance already shows the devices' health, and the devices' and databases' addresses stay with fewer roles
    "/technician": frozenset({TECHNICIAN}),
    # the pit's (web/pit/server.py): every table's summary live; an alarm acknowledged by a supervisor (P108)
    "/events": EVERYONE,
    "/pit.json": EVERYONE,
    "/acknowledge": frozenset({SUPERVISOR}),
}
#: the routes opened after the login that are no page's view, not in the access log: the event streams (a reconnect
#: is no view) and the data pages polled; every other GET is (a new page is logged without being named here)
NOT_VIEWS = frozenset({"/events", "/liveness", "/liveness.json", "/pit.json"})
#: the pages' names in the access log (route -> ``page.<name>`` in web/audit.py's words; a page not named here is
#: logged by its route); a route named in the router (the pit's ``/``: ``pit``) by its name
VIEWS: dict[str, str] = {
    "/": "table", "/rounds": "rounds", "/rounds/{round_id}": "round", "/progressive": "progressive",
    "/irregularities": "irregularities", "/audit": "audit", "/accounts": "accounts", "/technician": "technician",
    "/protection": "protection",
    "pit": "pit",  # the pit's page (web/pit/server.py), by its route's name: its address is the floor's "/"
}
#: the query's fields a page view keeps (the hand recall's search, web/recall.py): no other field is logged, so no
#: token or secret put in an address reaches the log
QUERY_KEPT = ("round", "from", "to", "seat", "wager", "on", "at_least", "at_most", "outcome", "page")
LOGIN_CSRF = "floor_login_csrf"  # the login form's token, before any session
FIELD, HEADER = "csrf", "X-CSRF-Token"


def may(role: str, route: str) -> bool:
    """Whether ``role`` may open ``route`` (a path as the router declares it, e.g. ``/rounds/{round_id}``)."""
    roles = ROUTES.get(route, frozenset())
    return roles is PUBLIC or role in roles


def csrf_field(request: web.Request) -> str:
    """The hidden input every form of a logged-in page carries (its login's token)."""
    login = request.get(keys.LOGIN)
    return f'<input type="hidden" name="{FIELD}" value="{login.csrf}">' if login else ""


def login_csrf(request: web.Request) -> str:
    """The login form's token: the one its cookie already holds, or a new one (``set_cookie`` then sets it)."""
    token = request.cookies.get(LOGIN_CSRF, "")
    well_formed = len(token) == 43 and token.replace("-", "").replace("_", "").isalnum()  # token_urlsafe(32)
    return token if well_formed else secrets.token_urlsafe(32)


def secure(request: web.Request) -> bool:
    """Served over TLS, here or by a reverse proxy in front (``[web] proxied_tls``): cookies marked Secure."""
    return request.secure or request.app[keys.WEB].proxied_tls


def set_cookie(resp: web.StreamResponse, request: web.Request, name: str, value: str, max_age: int | None = None
               ) -> None:
    resp.set_cookie(name, value, httponly=True, samesite="Strict", secure=secure(request), path="/", max_age=max_age)


def address(request: web.Request) -> str:
    """The client's address; behind the reverse proxy (``[web] proxied_tls``, connecting from this machine) the
    one it forwards (docs/install.md: ``X-Forwarded-For $remote_addr``), or every client would be one address."""
    remote = request.remote or "-"
    forwarded = request.headers.get("X-Forwarded-For", "").split(",")[-1].strip()
    try:
        local = ipaddress.ip_address(remote).is_loopback
    except ValueError:
        local = False
    return forwarded if request.app[keys.WEB].proxied_tls and local and forwarded else remote


def _refuse(request: web.Request, why: str, who: str, status: type[web.HTTPException], text: str
            ) -> web.HTTPException:
    """A request refused, in the access log within the refusals' budget (web/audit.py ``LoginThrottle``)."""
    event = audit.RequestRefused(why=why, method=request.method, path=request.path, remote=address(request))
    audit.record_refusal(request.app[keys.AUDIT], request.app[keys.THROTTLE], event, who, time.monotonic())
    return status(text=text)


def _same(given: object, want: str) -> bool:
    return isinstance(given, str) and bool(want) and hmac.compare_digest(given.encode(), want.encode())


async def _form_token(request: web.Request) -> object:
    """The token a POST carries (its form's hidden field or the header); the body read within ``body_seconds``."""
    if HEADER in request.headers:
        return request.headers[HEADER]
    try:
        async with asyncio.timeout(request.app[keys.WEB].body_seconds):
            form = await request.post()  # kept by aiohttp: the handler reads it again at no cost
    except TimeoutError:
        raise web.HTTPRequestTimeout(text="the request's body came too slowly") from None
    return form.get(FIELD)


@web.middleware
async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    resource = request.match_info.route.resource
    route = resource.canonical if resource is not None else None
    if route is not None and ROUTES.get(route, frozenset()) is PUBLIC:
        if request.method == "POST":  # the login form: its token in the cookie and the field alike
            cookie = request.cookies.get(LOGIN_CSRF, "")
            if not _same(await _form_token(request), cookie):
                raise _refuse(request, "csrf", "-", web.HTTPForbidden, "this form has expired: open the page again")
        return await handler(request)
    token = request.cookies.get(COOKIE)
    sessions = request.app[keys.SESSIONS]
    login = sessions.get(token)
    account = request.app[keys.USERS].get(login.user) if login is not None else None
    if login is not None and (account is None or account.disabled):
        sessions.end(token)  # removed or disabled in the users file: its logins end now
        login = None
    if login is None or account is None:
        raise web.HTTPSeeOther("/login")
    login.role = account.role  # a role changed in the users file applies at this request
    if route is not None and not may(login.role, route):
        raise _refuse(request, "role", login.user, web.HTTPForbidden, f"not for the role {login.role}")
    if request.method not in ("GET", "HEAD", "OPTIONS") and not _same(await _form_token(request), login.csrf):
        raise _refuse(request, "csrf", login.user, web.HTTPForbidden, "this form has expired: open the page again")
    request[keys.LOGIN] = login
    view = _view(request, route)
    if view is None:
        return await handler(request)
    try:
        resp = await handler(request)
    except web.HTTPException as exc:  # a page not found, a redirect: the view is logged with its answer
        _viewed(request, view, login.user, exc.status)
        raise
    _viewed(request, view, login.user, resp.status)
    return resp


def _view(request: web.Request, route: str | None) -> str | None:
    """The page's name when this request is a page's view (``VIEWS``; else its route), None when it is no view."""
    if request.method != "GET" or route is None or route in NOT_VIEWS:
        return None
    name = request.match_info.route.name
    return VIEWS.get(name or route, route)


def _viewed(request: web.Request, page: str, who: str, status: int) -> None:
    kept = [(k, v) for k in QUERY_KEPT for v in request.query.getall(k, ()) if v]
    query = "&".join(f"{k}={v}" for k, v in kept)[:500] or None
    request.app[keys.AUDIT].record(audit.PageViewed(page=page, path=request.path[:300], status=status, query=query),
                                   who)

