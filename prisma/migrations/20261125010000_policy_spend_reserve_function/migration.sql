-- Reserves one request's spend on its meters in one statement, or nothing.
--
-- `charges`: a JSON array, in the caller's fixed meter order (so two requests sharing meters lock
-- them in the same order and never deadlock), of
--   {projectId, environment, apiKeyId, walletId, network, asset, windowMs, windowStart, amount, min, max}
-- Each meter is created at 0 when missing and gets `reserved += amount` (0 for a meter the request
-- only reads, which still locks it). `min`/`max` (null = unbounded) bound the meter's total
-- (spent + reserved) before this request: the range in which every rule that reads the meter
-- judges as it did when the caller decided. A total outside it means the meter moved across a
-- limit since the caller read it: the function raises P0001 'policy spend meters moved' with the
-- current values as DETAIL ([[spent, reserved], ...] in charge order) and, being one statement,
-- leaves nothing written; the caller decides again on those values.
-- `reservation_id` not null: the charges with a positive amount are stored as that reservation.
CREATE FUNCTION "policy_spend_reserve"(charges jsonb, reservation_id uuid) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  c record;
  now_spent numeric;
  now_reserved numeric;
  seen jsonb := '[]'::jsonb;
  moved boolean := false;
BEGIN
  FOR c IN
    SELECT x.* FROM ROWS FROM (jsonb_to_recordset(charges) AS (
      "projectId" uuid, environment text, "apiKeyId" uuid, "walletId" uuid, network text, asset text,
      "windowMs" bigint, "windowStart" timestamptz, amount numeric, min numeric, max numeric)) WITH ORDINALITY AS x(
      "projectId", environment, "apiKeyId", "walletId", network, asset, "windowMs", "windowStart", amount, min, max, ord)
    ORDER BY x.ord
  LOOP
    INSERT INTO policy_spend_meters AS m (project_id, environment, api_key_id, wallet_id, network, asset, window_ms, window_start, reserved)
    VALUES (c."projectId", c.environment, c."apiKeyId", c."walletId", c.network, c.asset, c."windowMs", c."windowStart", c.amount)
    ON CONFLICT (project_id, environment, api_key_id, wallet_id, network, asset, window_ms, window_start)
    DO UPDATE SET reserved = m.reserved + excluded.reserved, updated_at = now()
    RETURNING m.spent, m.reserved - c.amount INTO now_spent, now_reserved;
    seen := seen || jsonb_build_array(jsonb_build_array(now_spent::text, now_reserved::text));
    IF (c.min IS NOT NULL AND now_spent + now_reserved < c.min) OR (c.max IS NOT NULL AND now_spent + now_reserved > c.max) THEN
      moved := true;
    END IF;
  END LOOP;
  IF moved THEN
    RAISE EXCEPTION 'policy spend meters moved' USING ERRCODE = 'P0001', DETAIL = seen::text;
  END IF;
  IF reservation_id IS NOT NULL THEN
    INSERT INTO policy_spend_reservations (id, project_id, environment, status, charges)
    SELECT reservation_id, (charges->0->>'projectId')::uuid, charges->0->>'environment', 'reserved',
      coalesce(jsonb_agg(e - 'min' - 'max') FILTER (WHERE (e->>'amount')::numeric > 0), '[]'::jsonb)
    FROM jsonb_array_elements(charges) AS e;
  END IF;
  RETURN seen;
END $$;

-- Settles a reservation: 'spent' moves its charges from `reserved` to `spent`, 'released' gives
-- them back. Only from 'reserved', so a second settle, or one after the other, does nothing; the
-- reservation's row lock orders a concurrent commit and release. Answers whether it settled.
CREATE FUNCTION "policy_spend_settle"(reservation_id uuid, settle_to text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  held jsonb;
  c record;
BEGIN
  UPDATE policy_spend_reservations SET status = settle_to, settled_at = now()
  WHERE id = reservation_id AND status = 'reserved'
  RETURNING charges INTO held;
  IF held IS NULL THEN
    RETURN false;
  END IF;
  FOR c IN
    SELECT * FROM jsonb_to_recordset(held) AS x(
      "projectId" uuid, environment text, "apiKeyId" uuid, "walletId" uuid, network text, asset text,
      "windowMs" bigint, "windowStart" timestamptz, amount numeric)
  LOOP
    UPDATE policy_spend_meters
    SET reserved = reserved - c.amount,
        spent = spent + CASE WHEN settle_to = 'spent' THEN c.amount ELSE 0 END,
        updated_at = now()
    WHERE project_id = c."projectId" AND environment = c.environment AND api_key_id = c."apiKeyId"
      AND wallet_id = c."walletId" AND network = c.network AND asset = c.asset
      AND window_ms = c."windowMs" AND window_start = c."windowStart";
  END LOOP;
  RETURN true;
END $$;
