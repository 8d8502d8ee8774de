-- Meters keep one total, `used` (spent + held), the value every limit is checked against: a
-- signature's reservation then becomes spent by a status change alone. What is held is the sum of
-- the `reserved` reservations, which the held index finds.
ALTER TABLE "policy_spend_meters" ADD COLUMN "used" DECIMAL(78,0) NOT NULL DEFAULT 0;
UPDATE "policy_spend_meters" SET "used" = "spent" + "reserved";
ALTER TABLE "policy_spend_meters" DROP CONSTRAINT "policy_spend_meters_amounts_check";
ALTER TABLE "policy_spend_meters" DROP COLUMN "spent", DROP COLUMN "reserved";
-- A release never takes more than was added: a negative meter is a bug, refused here.
ALTER TABLE "policy_spend_meters" ADD CONSTRAINT "policy_spend_meters_used_check" CHECK ("used" >= 0);

-- CreateIndex
CREATE INDEX "policy_spend_reservations_held_idx" ON "policy_spend_reservations"("project_id") WHERE (status = 'reserved');

-- Reserves one request's spend on its meters in one statement, or nothing.
--
-- All meters of one request share project, environment, API key, wallet and network; the arrays
-- describe each meter (asset, window) in the caller's fixed order (so two requests sharing meters
-- lock them in the same order and never deadlock), with this request's amount (0 for a meter it
-- only reads, which still locks it) and the bounds `mins`/`maxs` (null = unbounded) of the
-- meter's `used` before this request: the range in which every rule that reads the meter judges
-- as it did when the caller decided. Each meter is created at 0 when missing and gets
-- `used += amount`; a total outside its range means the meter moved across a limit since the
-- caller read it: the function raises P0001 'policy spend meters moved' with the current totals
-- as DETAIL (comma-separated, in order) and, being one statement, leaves nothing written; the
-- caller decides again on those totals. `reservation_id` not null: `charges` (the positive ones,
-- as the reservation keeps them) are stored as that reservation. Answers the totals it found.
CREATE FUNCTION "policy_spend_reserve"(
  project uuid, env text, api_key uuid, wallet uuid, net text,
  assets text[], windows bigint[], starts timestamptz[], amounts numeric[], mins numeric[], maxs numeric[],
  reservation_id uuid, charges jsonb
) RETURNS numeric[]
LANGUAGE plpgsql AS $$
DECLARE
  found_used numeric;
  seen numeric[] := '{}';
  moved boolean := false;
BEGIN
  FOR i IN 1 .. cardinality(assets) LOOP
    INSERT INTO policy_spend_meters AS m (project_id, environment, api_key_id, wallet_id, network, asset, window_ms, window_start, used)
    VALUES (project, env, api_key, wallet, net, assets[i], windows[i], starts[i], amounts[i])
    ON CONFLICT (project_id, environment, api_key_id, wallet_id, network, asset, window_ms, window_start)
    DO UPDATE SET used = m.used + excluded.used, updated_at = now()
    RETURNING m.used - amounts[i] INTO found_used;
    seen := seen || found_used;
    IF (mins[i] IS NOT NULL AND found_used < mins[i]) OR (maxs[i] IS NOT NULL AND found_used > maxs[i]) THEN
      moved := true;
    END IF;
  END LOOP;
  IF moved THEN
    RAISE EXCEPTION 'policy spend meters moved' USING ERRCODE = 'P0001', DETAIL = array_to_string(seen, ',');
  END IF;
  IF reservation_id IS NOT NULL THEN
    INSERT INTO policy_spend_reservations (id, project_id, environment, status, charges)
    VALUES (reservation_id, project, env, 'reserved', charges);
  END IF;
  RETURN seen;
END $$;

-- Settles a reservation: 'spent' (a signature exists) only records it, its amounts stay in
-- `used`; 'released' (none ever will) takes them off. Only from 'reserved', so a second settle,
-- or one after the other, does nothing; the reservation's row lock orders a concurrent commit and
-- release. Answers whether it settled.
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
  IF settle_to = 'released' THEN
    FOR c IN
      SELECT * FROM jsonb_to_recordset(held) AS x(
        "projectId" uuid, environment text, "apiKeyId" uuid, "walletId" uuid, network text, asset text,
        "windowMs" bigint, "windowStart" timestamptz, amount numeric)
    LOOP
      UPDATE policy_spend_meters SET used = used - c.amount, updated_at = now()
      WHERE project_id = c."projectId" AND environment = c.environment AND api_key_id = c."apiKeyId"
        AND wallet_id = c."walletId" AND network = c.network AND asset = c.asset
        AND window_ms = c."windowMs" AND window_start = c."windowStart";
    END LOOP;
  END IF;
  RETURN true;
END $$;
