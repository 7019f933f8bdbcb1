-- How far each table's journal has been read for its alarms (web/pit/publish.py): a publisher that starts (the
-- table's web service restarted) sends the alarms journaled after ``seq`` (raised, acknowledged, cleared), so an
-- alarm whose whole life passed while the pit's server was down and the publisher restarted is not lost.
CREATE TABLE pit_journal_cursor (
    table_id   text        PRIMARY KEY,
    seq        bigint      NOT NULL,
    updated    timestamptz NOT NULL DEFAULT now()
);
