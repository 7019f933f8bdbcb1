-- Each table's journal head, kept by the link's database as the journal's second anchor (issue 30; P99, P121):
-- the table's id and game, the last seq and hash of its chain the table wrote here, and when.  The table
-- writes it with its contributions (every no more bets); it only moves forward (``link_anchor_advance``), so a
-- table whose journal and anchor file were put back together cannot lower it.  ``tablectl journal init``
-- (starting again on purpose) sets it anew, with who and why (``reset_by``, ``reset_reason``, ``reset_at``).
CREATE TABLE link_anchor (
    link          text        NOT NULL,
    table_id      text        NOT NULL,
    game          text        NOT NULL,
    seq           bigint      NOT NULL CHECK (seq >= 0),
    hash          text        NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
    updated       timestamptz NOT NULL DEFAULT now(),
    reset_by      text,
    reset_reason  text,
    reset_at      timestamptz,
    PRIMARY KEY (link, table_id)
);

-- The head advanced, never moved back: a row at a later seq (or none yet) is replaced; one at the same or an
-- earlier seq is kept (a write that arrives late, after a later one).  True when the row now holds this head.
CREATE FUNCTION link_anchor_advance(p_link text, p_table text, p_game text, p_seq bigint, p_hash text)
RETURNS boolean LANGUAGE sql AS $$
    INSERT INTO link_anchor AS a (link, table_id, game, seq, hash) VALUES (p_link, p_table, p_game, p_seq, p_hash)
    ON CONFLICT (link, table_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, updated = now()
        WHERE a.seq < excluded.seq AND a.game = excluded.game;
    SELECT seq = p_seq AND hash = p_hash FROM link_anchor WHERE link = p_link AND table_id = p_table;
$$;
