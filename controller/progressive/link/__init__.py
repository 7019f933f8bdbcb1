"""Linked progressives: one set of meters shared by many tables, on PostgreSQL (docs/linked-progressive.md).

* ``migrate``: the schema, plain SQL files in ``migrations/`` applied in order (``tablectl link migrate``);
* ``store``: the shared meters, contributions exactly once, hits in the database's order (psycopg 3, async);
* ``meters``: ``LinkedMeters``, the table's meters when ``[progressive] link`` is configured;
* ``report``: ``tablectl progressive report --link``, each table's journal reconciled with the database.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.config.table import TableConfig
    from controller.journal.store import Journal
    from controller.table import Meters


def table_meters(cfg: TableConfig, journal: Journal) -> Meters:
    """The table's meters: the link's when ``[progressive] link`` is configured, else its own (as always)."""
    from controller.progressive.hits import linked

    if linked(cfg.progressive) is not None:
        from controller.progressive.link.meters import LinkedMeters  # psycopg only on a linked table

        return LinkedMeters(cfg, journal)
    from controller.table import Meters

    return Meters(cfg, journal)
