"""Whether the table's clock is synchronised, read from the kernel at start and every hour and journaled (P109).

Surveillance finds a press on its video by the time the journal gives it: a time is only as good as the
clock, so the journal says whether the kernel held the clock synchronised (an NTP or PTP daemon
disciplining it) before each round.  The kernel's own answer (``adjtimex`` with no change asked, as
``ntptime`` and ``chronyc`` read it) needs neither root nor the network; anything else reading it
fails soft: ``unknown``.  ``TABLECTL_CLOCK`` (tests; a container whose host keeps the time) stands for the kernel's
answer, journaled with ``source`` naming it: never set by the unit, and visible wherever it was.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from decimal import Decimal

from controller import events as ev

CLOCK_ENV = "TABLECTL_CLOCK"
CHECK_S = 3600.0  # every hour, and at start (P109)
SYNCHRONISED, UNSYNCHRONISED, UNKNOWN = "synchronised", "unsynchronised", "unknown"
WORDS = {
    SYNCHRONISED: "Clock synchronised",
    UNSYNCHRONISED: "Clock NOT synchronised",
    UNKNOWN: "Clock synchronisation unknown",
    "adjtimex": "the kernel's clock discipline",
    CLOCK_ENV: "the environment (a test, or a host keeping the time)",
}
TIME_ERROR = 5  # adjtimex's answer when the clock is not synchronised (STA_UNSYNC, linux/timex.h)
_L = ctypes.c_long


class _Timex(ctypes.Structure):  # struct timex (linux/timex.h); only read: modes = 0 changes nothing
    _fields_ = [("modes", ctypes.c_uint), ("offset", _L), ("freq", _L), ("maxerror", _L), ("esterror", _L),
                ("status", ctypes.c_int), ("constant", _L), ("precision", _L), ("tolerance", _L),
                ("time_sec", _L), ("time_usec", _L), ("tick", _L), ("ppsfreq", _L), ("jitter", _L),
                ("shift", ctypes.c_int), ("stabil", _L), ("jitcnt", _L), ("calcnt", _L), ("errcnt", _L),
                ("stbcnt", _L), ("tai", ctypes.c_int), ("_pad", ctypes.c_int * 11)]


def read_kernel() -> ev.ClockChecked:
    """The kernel's clock state now: synchronised, not, or unknown when it cannot be read."""
    given = os.environ.get(CLOCK_ENV)
    if given in (SYNCHRONISED, UNSYNCHRONISED, UNKNOWN):
        return ev.ClockChecked(state=given, source=CLOCK_ENV)
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        t = _Timex()
        state = int(libc.adjtimex(ctypes.byref(t)))
    except (OSError, AttributeError, TypeError):
        return ev.ClockChecked(state=UNKNOWN, source="adjtimex")
    if state < 0:
        return ev.ClockChecked(state=UNKNOWN, source="adjtimex")
    # maxerror: the kernel's bound on the clock's error, in microseconds (16 s when nothing disciplines it)
    return ev.ClockChecked(state=UNSYNCHRONISED if state == TIME_ERROR else SYNCHRONISED, source="adjtimex",
                           max_error=Decimal(t.maxerror) / 1_000_000)
