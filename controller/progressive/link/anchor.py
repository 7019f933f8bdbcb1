"""The link's database as the journal's second anchor (issue 30; P99, P121; docs/journal.md).

A keyed linked table writes its journal's head (seq, hash) to the link with its contributions (``LinkedMeters``:
in the same pass and the same 500 ms wait as every link call; a failure leaves it to the next write, it is not
a gate on play); the link's row only moves forward (migrations/003).  The anchor file beside the journal finds a
journal rolled back or replaced alone; the link's finds the journal and its anchor file put back together.

* ``check_at_start``: before the daemon's own check (``Journal.check_at_start``) writes anything, the link's head
  for the table is compared with the journal (``compare``): a journal missing or empty, behind it, or not the
  chain it holds is refused as the local anchor's refusals are (``JournalTrustError``, the same causes).  A link
  that does not answer within ``START_DEADLINE_S`` is not waited for: the table starts on its local anchor, said
  in the log (P121), and the comparison is made when the link answers (``LinkedMeters``).
* ``read_now`` / ``reset_now``: ``tablectl journal init`` reads the link's head and sets it anew, with who and why.

The calls here are synchronous (the daemon's constructor, a command), each in a thread of its own that is left
behind, not waited for, past its deadline: a stalled server (SIGSTOP) answers nothing, and enforces nothing.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import psycopg
import structlog

from controller.config.table import TableConfig
from controller.journal import trust
from controller.journal.store import Journal
from controller.progressive.link.store import (
    ANCHOR_COLUMNS,
    CONNECT_TIMEOUT_S,
    KEEPALIVE,
    STATEMENT_TIMEOUT_MS,
    LinkAnchor,
    LinkError,
    LinkStalled,
)

log = structlog.get_logger("link")
T = TypeVar("T")

#: the start waits this long at most for the link's head (then starts on its local anchor, P121)
START_DEADLINE_S = 3.0
#: ``tablectl journal init`` waits this long for each of its two calls to the link
INIT_DEADLINE_S = 5.0


def compare(journal: Journal, held: LinkAnchor, table: str, game: str,
            archive_dir: str | os.PathLike[str] | None = None) -> None:
    """Raise ``JournalTrustError`` (the local anchor's causes) when ``journal`` is not the chain whose head the
    link holds for ``table``: missing or empty, ending before it, another hash at its seq, or another game's."""
    where = f"its anchor on the link's database ({held.updated:%Y-%m-%d %H:%M:%S} UTC)"
    init = f"tablectl journal init --table {table} --reason TEXT"
    if held.game != game:
        raise trust.JournalTrustError(f"the link's anchor of table {table} is a {held.game} table's, not {game}'s; "
                                      f"to begin again on purpose: {init}", "foreign_anchor")
    seq, _ = journal.head()
    if held.seq == 0:
        return
    if seq == 0:
        raise trust.JournalTrustError(f"the journal {journal.path} is missing or empty, and table {table} has "
                                      f"journaled to seq {held.seq} ({where}); to begin again on purpose: {init}",
                                      "journal_missing")
    if seq < held.seq:
        raise trust.JournalTrustError(f"the journal {journal.path} ends at seq {seq}, behind its anchor at seq "
                                      f"{held.seq} on the link's database: an older copy put back with its anchor "
                                      f"file? ({init} --keep takes it)", "behind_anchor")
    if journal._hash_at(held.seq, archive_dir) != held.hash:
        raise trust.JournalTrustError(f"the journal {journal.path} is not the chain its anchor on the link's database "
                                      f"holds (seq {held.seq} has another hash): another table's journal, or "
                                      "rewritten", "not_anchored_chain")


def check_at_start(cfg: TableConfig, journal: Journal) -> bool:
    """The daemon's start on a linked table: the journal compared with the link's head (``compare``, raises
    ``JournalTrustError``).  False when the link did not answer in time (or lacks migration 003): the table
    starts on its local anchor, said in the log, and ``LinkedMeters`` compares when the link answers (P121)."""
    p = cfg.progressive
    assert p.link is not None and p.link_id is not None
    try:
        held = read_now(p.link, p.link_id, cfg.id, START_DEADLINE_S)
    except LinkError as e:
        log.warning("second anchor not checked at start: the link's database did not answer; starting on the "
                    "local anchor, compared when the link answers (P121)", table=cfg.id,
                    error=f"{type(e).__name__}: {str(e)[:200]}")
        return False
    if held is not None:
        compare(journal, held, cfg.id, cfg.game, cfg.journal_options.archive_dir)
    log.info("second anchor checked at start", table=cfg.id, seq=held.seq if held else None)
    return True


def _connect(url: str) -> psycopg.Connection[Any]:
    return psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, **KEEPALIVE,
                           options=f"-c statement_timeout={STATEMENT_TIMEOUT_MS}")


def within(fn: Callable[[], T], seconds: float) -> T:
    """``fn()``'s result, run in a thread of its own, or ``LinkStalled`` after ``seconds`` (the thread is left to
    end when the server answers: a daemon thread, never waited for)."""
    box: list[tuple[bool, Any]] = []

    def run() -> None:
        try:
            box.append((True, fn()))
        except BaseException as e:  # handed to the caller's thread
            box.append((False, e))

    thread = threading.Thread(target=run, name="link-anchor", daemon=True)
    thread.start()
    thread.join(seconds)
    if not box:
        raise LinkStalled(f"no answer within {seconds:g} s")
    ok, value = box[0]
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]


def read_now(url: str, link: str, table: str, seconds: float) -> LinkAnchor | None:
    """The link's head for ``table`` (None: never written); raises a ``LinkError`` past ``seconds``."""
    def read() -> LinkAnchor | None:
        with _connect(url) as conn:
            row = conn.execute(f"SELECT {ANCHOR_COLUMNS} FROM link_anchor WHERE link = %s AND table_id = %s",
                               (link, table)).fetchone()
        return LinkAnchor(*row) if row is not None else None

    return within(read, seconds)


def reset_now(url: str, link: str, anchor: trust.Anchor, by: str, reason: str, seconds: float) -> None:
    """``tablectl journal init``: the link's head for the table set anew (back or forward), with who and why."""
    def reset() -> None:
        with _connect(url) as conn:
            conn.execute("INSERT INTO link_anchor (link, table_id, game, seq, hash, reset_by, reset_reason, reset_at) "
                         "VALUES (%s, %s, %s, %s, %s, %s, %s, now()) ON CONFLICT (link, table_id) DO UPDATE SET "
                         "game = excluded.game, seq = excluded.seq, hash = excluded.hash, updated = now(), "
                         "reset_by = excluded.reset_by, reset_reason = excluded.reset_reason, reset_at = now()",
                         (link, anchor.table, anchor.game, anchor.seq, anchor.hash, by, reason))

    within(reset, seconds)


__all__ = ["INIT_DEADLINE_S", "START_DEADLINE_S", "check_at_start", "compare", "read_now", "reset_now", "within"]
