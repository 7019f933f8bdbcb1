"""Work shared out to threads, each taking the next item as it finishes one (the compiled kernels release
the GIL, so two threads use two cores without a process pool's copies of their tables).

games.par.uth, jhe and ret keep their own loops of this shape: their stored sheets name those files' code
(a change there calls for a recount of their sheets), so they move here at their next recount.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")
A = TypeVar("A")


def each(items: Iterable[T], work: Callable[[T, A], None], make: Callable[[], A], workers: int) -> list[A]:
    """``work(item, acc)`` for every item of ``items``, on ``workers`` threads with an accumulator each
    (``make()``), which are returned for the caller to add up.  An exception in a thread is raised here."""
    todo = iter(items)
    lock = threading.Lock()
    accs = [make() for _ in range(workers)]
    failed: list[BaseException] = []

    def run(acc: A) -> None:
        try:
            while not failed:
                with lock:
                    try:
                        item = next(todo)
                    except StopIteration:
                        return
                work(item, acc)
        except BaseException as e:  # noqa: BLE001 -- handed to the caller's thread below
            failed.append(e)

    threads = [threading.Thread(target=run, args=(acc,)) for acc in accs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failed:
        raise failed[0]
    return accs
