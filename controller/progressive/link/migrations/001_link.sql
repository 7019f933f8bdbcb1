-- Linked progressive meters (docs/linked-progressive.md).  Amounts are numeric(14,2): exact cents.

-- One row per meter of a link (a group of tables sharing meters, COMAR 36.05.03.24 A(2)).
-- ``initial`` is the amount the meter was installed at: value = initial + contributions - taken by hits.
CREATE TABLE link_meter (
    link        text          NOT NULL,
    meter       text          NOT NULL,
    value       numeric(14,2) NOT NULL,
    reset       numeric(14,2) NOT NULL CHECK (reset >= 0),
    initial     numeric(14,2) NOT NULL CHECK (initial >= reset),
    installed   timestamptz   NOT NULL DEFAULT now(),
    PRIMARY KEY (link, meter)
);

-- Each accepted progressive wager's contribution, once: the key is the table, its round and seat, the meter.
-- ``kind`` 'wager' at no more bets; 'returned' when a voided round gives the wager back (R7a), keyed by the
-- order of the taking back in the round (seat -1, -2, ...).  A replay of the same key inserts nothing.
CREATE TABLE link_contribution (
    id          bigserial     PRIMARY KEY,
    link        text          NOT NULL,
    table_id    text          NOT NULL,
    round_id    text          NOT NULL,
    seat        integer       NOT NULL,
    meter       text          NOT NULL,
    kind        text          NOT NULL CHECK (kind IN ('wager', 'returned')),
    amount      numeric(14,2) NOT NULL,
    coin_in     numeric(14,2) NOT NULL,
    at          timestamptz   NOT NULL DEFAULT now(),
    UNIQUE (link, table_id, round_id, seat, meter, kind),
    FOREIGN KEY (link, meter) REFERENCES link_meter (link, meter)
);
CREATE INDEX link_contribution_table ON link_contribution (link, table_id, round_id);

-- Hits in the order the database took them (seq: one transaction each, the meter row locked, NY 5321.18):
-- the first is paid the meter, the second what the first left (R4).  ``taken`` is what left the meter
-- (paid, less what the reset floor kept: value never goes below reset).  The winning table's asset number
-- is recorded (COMAR 36.05.03.24 F(3)(c)).  'pending' until a floor supervisor validates it.
CREATE TABLE link_hit (
    seq          bigserial     PRIMARY KEY,
    link         text          NOT NULL,
    meter        text          NOT NULL,
    table_id     text          NOT NULL,
    asset        text          NOT NULL,
    round_id     text          NOT NULL,
    hit          integer       NOT NULL,
    seat         integer       NOT NULL,
    line         text          NOT NULL,
    percent      numeric(7,3)  NOT NULL,
    before       numeric(14,2) NOT NULL,
    paid         numeric(14,2) NOT NULL,
    taken        numeric(14,2) NOT NULL,
    after        numeric(14,2) NOT NULL,
    state        text          NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'validated')),
    validated_by text,
    at           timestamptz   NOT NULL DEFAULT now(),
    validated_at timestamptz,
    UNIQUE (link, table_id, round_id, hit),
    FOREIGN KEY (link, meter) REFERENCES link_meter (link, meter)
);
