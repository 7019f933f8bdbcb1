-- A linked meter's regulated parameters and its reserve and overflow meters (N.J.A.C. 13:69E-1.39A(a)4-5;
-- P114, P120): the link splits each contribution as a stand-alone table does (controller.table.split_one),
-- a hit's reset draws on the reserve, and the parameters change only with every table of the link closed
-- (NY 9 NYCRR 5321.18(b)(4)), each change recorded with who, the approval and the old and new values.

-- ``hidden_rate``: the share of each wager's unit held in ``reserve``; ``meter_limit``: the most the meter
-- shows, beyond it contributions go to ``overflow`` (none: no limit).  Defaults: no split, as before.
ALTER TABLE link_meter
    ADD COLUMN hidden_rate numeric       NOT NULL DEFAULT 0 CHECK (hidden_rate >= 0),
    ADD COLUMN meter_limit numeric(14,2) CHECK (meter_limit > 0),
    ADD COLUMN reserve     numeric(14,2) NOT NULL DEFAULT 0,
    ADD COLUMN overflow    numeric(14,2) NOT NULL DEFAULT 0;

-- each contribution row as the link split it: ``amount`` onto the meter (as before), the rest here
ALTER TABLE link_contribution
    ADD COLUMN reserve  numeric(14,2) NOT NULL DEFAULT 0,
    ADD COLUMN overflow numeric(14,2) NOT NULL DEFAULT 0;

-- what a hit's reset floor drew from the reserve (the meter put back up to its reset, as far as the reserve held)
ALTER TABLE link_hit ADD COLUMN drawn numeric(14,2) NOT NULL DEFAULT 0;

-- each table's state as it last told the link (closed, opening, open, idle: controller.table.TableState)
CREATE TABLE link_table (
    link     text        NOT NULL,
    table_id text        NOT NULL,
    state    text        NOT NULL CHECK (state IN ('closed', 'opening', 'open', 'idle')),
    at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (link, table_id)
);

-- every change of a meter's parameters: by whom, from which table, the approval's reference, old and new
CREATE TABLE link_parameter_change (
    id       bigserial   PRIMARY KEY,
    link     text        NOT NULL,
    meter    text        NOT NULL,
    table_id text        NOT NULL,
    by       text        NOT NULL,
    approval text        NOT NULL,
    old      jsonb       NOT NULL,
    new      jsonb       NOT NULL,
    at       timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (link, meter) REFERENCES link_meter (link, meter)
);

-- A wager's contribution ``given`` (the whole rate's) split: ``hidden`` to the reserve, the rest onto the meter
-- up to its limit, beyond it to the overflow.  The same arithmetic as controller.table.split_one (a
-- differential test compares them, tests/test_link_parameters.py).
CREATE FUNCTION link_split(p_given numeric, p_hidden numeric, p_value numeric, p_limit numeric,
                           OUT on_meter numeric, OUT reserve numeric, OUT overflow numeric)
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN p_limit IS NULL THEN p_given - p_hidden
                ELSE least(p_given - p_hidden, greatest(p_limit - p_value, 0)) END,
           p_hidden,
           (p_given - p_hidden) - CASE WHEN p_limit IS NULL THEN p_given - p_hidden
                                       ELSE least(p_given - p_hidden, greatest(p_limit - p_value, 0)) END
$$;

-- A taking back (R7a) of ``given`` (negative) whose hidden share is ``hidden`` (negative): from what the round
-- put into the overflow first (``overflowed``, it went there last), the rest from the meter
-- (controller.table.take_back_one).
CREATE FUNCTION link_take_back(p_given numeric, p_hidden numeric, p_overflowed numeric,
                               OUT on_meter numeric, OUT reserve numeric, OUT overflow numeric)
LANGUAGE sql IMMUTABLE AS $$
    SELECT (p_given - p_hidden) + least(-(p_given - p_hidden), greatest(p_overflowed, 0)),
           p_hidden,
           -least(-(p_given - p_hidden), greatest(p_overflowed, 0))
$$;

-- A round's contributions, row by row in the table's order (each row's split depends on the meter the rows
-- before it left), the meter rows locked in the order of their names first (no deadlock: 002), each row
-- inserted once by its key and only a new row moving the meter, its reserve and its overflow.  A wager
-- row's hidden share: the hidden rate x its coin-in (the unit), half up to the cent; a returned row takes
-- back the hidden share its round's wager rows put in, per wager.
CREATE OR REPLACE FUNCTION link_contribute(p_link text, p_table text, p_round text, p_seats integer[],
                                           p_meters text[], p_kinds text[], p_amounts numeric[],
                                           p_coin_in numeric[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_new integer := 0;
    v_id bigint;
    r record;
    m record;
    s record;
    v_unit numeric;
    v_hidden numeric;
    v_overflowed numeric;
BEGIN
    PERFORM 1 FROM link_meter WHERE link = p_link AND meter = ANY (p_meters) ORDER BY meter FOR NO KEY UPDATE;
    FOR r IN SELECT u.seat, u.meter, u.kind, u.amount, u.coin_in
             FROM unnest(p_seats, p_meters, p_kinds, p_amounts, p_coin_in)
                  WITH ORDINALITY AS u(seat, meter, kind, amount, coin_in, n)
             ORDER BY u.n LOOP
        PERFORM 1 FROM link_contribution c
            WHERE c.link = p_link AND c.table_id = p_table AND c.round_id = p_round AND c.seat = r.seat
              AND c.meter = r.meter AND c.kind = r.kind;
        CONTINUE WHEN FOUND;  -- a replay: nothing again
        SELECT lm.value, lm.hidden_rate, lm.meter_limit INTO m FROM link_meter lm
            WHERE lm.link = p_link AND lm.meter = r.meter;
        IF r.kind = 'wager' THEN
            s := link_split(r.amount, round(coalesce(m.hidden_rate, 0) * r.coin_in, 2), m.value, m.meter_limit);
        ELSE
            SELECT c.coin_in, c.reserve INTO v_unit, v_hidden FROM link_contribution c
                WHERE c.link = p_link AND c.table_id = p_table AND c.round_id = p_round AND c.meter = r.meter
                  AND c.kind = 'wager' ORDER BY c.seat LIMIT 1;
            SELECT coalesce(sum(c.overflow), 0) INTO v_overflowed FROM link_contribution c
                WHERE c.link = p_link AND c.table_id = p_table AND c.round_id = p_round AND c.meter = r.meter;
            -- the wagers returned: the coin-in taken back over the unit (one wager's coin-in)
            v_hidden := CASE WHEN v_unit IS NULL OR v_unit = 0 THEN 0
                             ELSE -(v_hidden * round(-r.coin_in / v_unit)) END;
            s := link_take_back(r.amount, v_hidden, v_overflowed);
        END IF;
        INSERT INTO link_contribution (link, table_id, round_id, seat, meter, kind, amount, coin_in, reserve,
                                       overflow)
        VALUES (p_link, p_table, p_round, r.seat, r.meter, r.kind, s.on_meter, r.coin_in, s.reserve, s.overflow)
        ON CONFLICT (link, table_id, round_id, seat, meter, kind) DO NOTHING
        RETURNING id INTO v_id;
        IF v_id IS NOT NULL THEN
            UPDATE link_meter SET value = value + s.on_meter, reserve = reserve + s.reserve,
                                  overflow = overflow + s.overflow
                WHERE link = p_link AND meter = r.meter;
            v_new := v_new + 1;
        END IF;
        v_id := NULL;
    END LOOP;
    IF v_new > 0 THEN
        PERFORM pg_notify('link_meters', p_link);
    END IF;
    RETURN v_new;
END
$$;
