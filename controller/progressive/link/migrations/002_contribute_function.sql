-- A round's contributions in one statement, on the server: the meter rows locked in the order of their
-- names (two rounds moving the same meters never wait on each other crosswise: a deadlock), the rows
-- inserted once by their key, the meters moved by the new rows only, every table told (NOTIFY at commit).
-- One round trip from the table: the meter rows are held only while the server runs it, not while a
-- table's next message crosses the network (50 tables on one link contend for the same rows).
CREATE FUNCTION link_contribute(p_link text, p_table text, p_round text, p_seats integer[], p_meters text[],
                                p_kinds text[], p_amounts numeric[], p_coin_in numeric[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_new integer;
BEGIN
    PERFORM 1 FROM link_meter WHERE link = p_link AND meter = ANY (p_meters) ORDER BY meter FOR NO KEY UPDATE;
    WITH new AS (
        INSERT INTO link_contribution (link, table_id, round_id, seat, meter, kind, amount, coin_in)
        SELECT p_link, p_table, p_round, u.seat, u.meter, u.kind, u.amount, u.coin_in
        FROM unnest(p_seats, p_meters, p_kinds, p_amounts, p_coin_in) AS u(seat, meter, kind, amount, coin_in)
        ON CONFLICT (link, table_id, round_id, seat, meter, kind) DO NOTHING
        RETURNING link_contribution.meter, link_contribution.amount
    ), moved AS (
        UPDATE link_meter m SET value = m.value + s.total
        FROM (SELECT new.meter, sum(new.amount) AS total FROM new GROUP BY new.meter) s
        WHERE m.link = p_link AND m.meter = s.meter
        RETURNING m.meter
    )
    SELECT count(*) INTO v_new FROM new;  -- (a data-modifying WITH runs whether read or not: moved too)
    IF v_new > 0 THEN
        PERFORM pg_notify('link_meters', p_link);
    END IF;
    RETURN v_new;
END
$$;
