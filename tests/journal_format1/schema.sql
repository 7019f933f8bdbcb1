-- The journal's tables in row format 1 (before P76), as the program before it created them.
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    seq       INTEGER PRIMARY KEY,
    at        TEXT NOT NULL,
    round_id  TEXT,
    kind      TEXT NOT NULL,
    who       TEXT,
    data      TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_round ON events (round_id, seq);
CREATE INDEX IF NOT EXISTS events_kind ON events (kind, seq);
CREATE TABLE IF NOT EXISTS head (
    one  INTEGER PRIMARY KEY CHECK (one = 1),
    seq  INTEGER NOT NULL,
    hash TEXT NOT NULL
);
INSERT INTO meta VALUES ('schema_version', '1');
