"""The floor's accounts as a supervisor sees them: each account's role and whether it is locked or disabled, and a
form to unlock an account locked by wrong passwords (P107: another supervisor unlocks it, in the access log).

Adding, disabling and changing accounts stays on the table PC (``tablectl web --add-user``, ``--disable``,
``--enable``, ``--unlock``): a page facing the floor's network never writes a password.
"""

from __future__ import annotations

from aiohttp import web

from web import audit, guard, keys
from web.floor import e, page


async def accounts_page(request: web.Request) -> web.Response:
    rows = "".join(
        f'<tr data-account="{e(a.name)}" data-locked="{"yes" if a.locked else "no"}" '
        f'data-disabled="{"yes" if a.disabled else "no"}"><td>{e(a.name)}</td><td>{e(a.role)}</td>'
        f"<td>{'Disabled' if a.disabled else 'Locked' if a.locked else 'Open'}</td><td>"
        + (f'<form method="post" action="/accounts/unlock">{guard.csrf_field(request)}'
           f'<input type="hidden" name="name" value="{e(a.name)}"><button>Unlock</button></form>'
           if a.locked and a.name != request[keys.LOGIN].user else "")
        + "</td></tr>"
        for a in sorted(request.app[keys.USERS].accounts().values(), key=lambda a: a.name)
    )
    return page(request, "Accounts",
                f"<table id=accounts><tr><th>Account</th><th>Role</th><th>State</th><th></th></tr>{rows}</table>")


async def unlock(request: web.Request) -> web.Response:
    login, name = request[keys.LOGIN], str((await request.post()).get("name", ""))
    if name == login.user:  # another supervisor unlocks an account: never its own (P107)
        raise web.HTTPForbidden(text="another supervisor unlocks this account")
    if request.app[keys.USERS].set_flag(name, "locked", False):
        request.app[keys.AUDIT].record(audit.AccountUnlocked(account=name), login.user)
        request.app[keys.THROTTLE].succeeded(request.app[keys.THROTTLE].keys("-", name)[1])
    raise web.HTTPSeeOther("/accounts")


def routes(app: web.Application) -> None:
    app.router.add_get("/accounts", accounts_page)
    app.router.add_post("/accounts/unlock", unlock)
