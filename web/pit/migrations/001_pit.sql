-- The pit's database (docs/pit.md): every table's latest summary, its alarms' events, the pit's acknowledgements.
-- Its own database, never the link's: nothing here is money the tables owe.

-- One row per table: the latest summary its web service published (``summary``: web/pit/summary.py).
-- ``published`` is the table's clock when it read its status; an upsert older than the row is ignored, so
-- a publisher that catches up after the server was away never sets an older summary over a newer one.
CREATE TABLE pit_table (
    table_id   text        PRIMARY KEY,
    summary    jsonb       NOT NULL,
    published  timestamptz NOT NULL,
    received   timestamptz NOT NULL DEFAULT now()
);

-- Each alarm's life as the table's status showed it: raised, acknowledged (at the table: the key, P105),
-- cleared.  Once each: a replay after the server was away inserts nothing twice.
CREATE TABLE pit_alarm_event (
    id         bigserial   PRIMARY KEY,
    table_id   text        NOT NULL,
    alarm_id   text        NOT NULL,
    event      text        NOT NULL CHECK (event IN ('raised', 'acknowledged', 'cleared')),
    alarm      jsonb       NOT NULL,
    at         timestamptz NOT NULL,
    received   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (table_id, alarm_id, event)
);

-- The pit's journal of acknowledgements: who acknowledged which alarm of which table, when (the
-- database's clock).  The first stands; the table itself is not told (P108, docs/pit.md).
CREATE TABLE pit_acknowledgement (
    id         bigserial   PRIMARY KEY,
    table_id   text        NOT NULL,
    alarm_id   text        NOT NULL,
    by         text        NOT NULL,
    at         timestamptz NOT NULL DEFAULT now(),
    UNIQUE (table_id, alarm_id)
);
