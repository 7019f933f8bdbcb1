"""``tablectl web``: the dealer's screen and the floor's pages, a process of its own beside the daemon.

It reads only what the daemon already makes public (the status file it publishes at every change,
``controller.daemon.TableDaemon.status``) and the journal, opened read-only; it never writes to the
table's journal nor talks to a device, so a crash or load here never touches the table.
"""
