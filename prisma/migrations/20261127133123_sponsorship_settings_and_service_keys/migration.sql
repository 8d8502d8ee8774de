-- CreateTable
CREATE TABLE "sponsorship_settings" (
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "paused" BOOLEAN NOT NULL,
    "gas_cap_wei" DECIMAL(78,0) NOT NULL,
    "daily_budget_wei" DECIMAL(78,0) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_type" TEXT NOT NULL,
    "updated_by_id" UUID,

    CONSTRAINT "sponsorship_settings_pkey" PRIMARY KEY ("project_id","environment")
);

-- CreateTable
CREATE TABLE "sponsorship_budget" (
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "used" DECIMAL(78,0) NOT NULL DEFAULT 0,

    CONSTRAINT "sponsorship_budget_pkey" PRIMARY KEY ("project_id","environment","day")
);

-- CreateTable
CREATE TABLE "sponsorship_budget_reservations" (
    "operation_id" TEXT NOT NULL,
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "amount" DECIMAL(78,0) NOT NULL,
    "status" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settled_at" TIMESTAMPTZ(3),

    CONSTRAINT "sponsorship_budget_reservations_pkey" PRIMARY KEY ("operation_id")
);

-- CreateTable
CREATE TABLE "service_keys" (
    "purpose" TEXT NOT NULL,
    "chain_id" INTEGER NOT NULL,
    "address" TEXT NOT NULL,
    "kek_id" TEXT NOT NULL,
    "iv" BYTEA NOT NULL,
    "encrypted_private_key" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "service_keys_pkey" PRIMARY KEY ("purpose","chain_id")
);

-- AddForeignKey
ALTER TABLE "sponsorship_settings" ADD CONSTRAINT "sponsorship_settings_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Enumerated values and bounds, enforced by the database.
ALTER TABLE "sponsorship_settings" ADD CONSTRAINT "sponsorship_settings_environment_check" CHECK ("environment" IN ('development', 'production'));
ALTER TABLE "sponsorship_settings" ADD CONSTRAINT "sponsorship_settings_amounts_check" CHECK ("gas_cap_wei" > 0 AND "daily_budget_wei" > 0);
-- A release never takes more than was added: a negative day is a bug, refused here.
ALTER TABLE "sponsorship_budget" ADD CONSTRAINT "sponsorship_budget_used_check" CHECK ("used" >= 0);
ALTER TABLE "sponsorship_budget_reservations" ADD CONSTRAINT "sponsorship_budget_reservations_status_check" CHECK ("status" IN ('reserved', 'settled', 'released'));
ALTER TABLE "sponsorship_budget_reservations" ADD CONSTRAINT "sponsorship_budget_reservations_amount_check" CHECK ("amount" >= 0);
ALTER TABLE "service_keys" ADD CONSTRAINT "service_keys_purpose_check" CHECK ("purpose" IN ('sponsor', 'relayer'));
ALTER TABLE "service_keys" ADD CONSTRAINT "service_keys_chain_id_check" CHECK ("chain_id" > 0);

-- Reserves `amount` of the project and environment's budget of `budget_day` for one operation, in
-- one statement. The reservation row is inserted first: a concurrent call for the same operation
-- waits on it, so an operation is charged once. An operation already `reserved` or `settled`
-- answers what it holds ('existing'); a `released` one is reserved again. The day's total grows
-- only while it stays within `budget` (the conditional upsert re-checks the locked row, so parallel
-- reservations never overshoot); otherwise nothing stays written and the answer is 'exceeded' with
-- the day's total. A reservation for another project or environment under the same id: 'conflict'.
CREATE FUNCTION "sponsorship_budget_reserve"(
  project uuid, env text, budget_day date, operation text, amount numeric, budget numeric,
  OUT outcome text, OUT day_used numeric, OUT held numeric, OUT held_day date
)
LANGUAGE plpgsql AS $$
DECLARE
  existing sponsorship_budget_reservations%ROWTYPE;
  revived boolean := false;
BEGIN
  INSERT INTO sponsorship_budget_reservations (operation_id, project_id, environment, day, amount, status)
  VALUES (operation, project, env, budget_day, amount, 'reserved')
  ON CONFLICT (operation_id) DO NOTHING;
  IF NOT FOUND THEN
    SELECT * INTO existing FROM sponsorship_budget_reservations WHERE operation_id = operation FOR UPDATE;
    IF existing.project_id <> project OR existing.environment <> env THEN
      outcome := 'conflict';
      RETURN;
    END IF;
    IF existing.status <> 'released' THEN
      outcome := 'existing';
      held := existing.amount;
      held_day := existing.day;
      SELECT b.used INTO day_used FROM sponsorship_budget b
      WHERE b.project_id = project AND b.environment = env AND b.day = existing.day;
      RETURN;
    END IF;
    revived := true;
  END IF;

  INSERT INTO sponsorship_budget AS b (project_id, environment, day, used)
  SELECT project, env, budget_day, amount WHERE amount <= budget
  ON CONFLICT (project_id, environment, day)
  DO UPDATE SET used = b.used + excluded.used WHERE b.used + excluded.used <= budget
  RETURNING b.used INTO day_used;
  IF NOT FOUND THEN
    IF NOT revived THEN
      DELETE FROM sponsorship_budget_reservations WHERE operation_id = operation;
    END IF;
    outcome := 'exceeded';
    SELECT coalesce((SELECT b.used FROM sponsorship_budget b WHERE b.project_id = project AND b.environment = env AND b.day = budget_day), 0)
    INTO day_used;
    RETURN;
  END IF;
  IF revived THEN
    UPDATE sponsorship_budget_reservations
    SET day = budget_day, amount = sponsorship_budget_reserve.amount, status = 'reserved', settled_at = NULL
    WHERE operation_id = operation;
  END IF;
  outcome := 'reserved';
  held := amount;
  held_day := budget_day;
END $$;

-- Replaces an operation's reservation by its actual cost on the reservation's day (the gas was
-- paid: no bound applies). From `released` (it was given up, then landed after all) the actual
-- cost is added back. A `settled` one is left as it is. Answers the status found ('unknown' for
-- an id never reserved) and the amount the operation now holds.
CREATE FUNCTION "sponsorship_budget_settle"(operation text, actual numeric, OUT found_status text, OUT held numeric)
LANGUAGE plpgsql AS $$
DECLARE
  r sponsorship_budget_reservations%ROWTYPE;
BEGIN
  SELECT * INTO r FROM sponsorship_budget_reservations WHERE operation_id = operation FOR UPDATE;
  IF NOT FOUND THEN
    found_status := 'unknown';
    RETURN;
  END IF;
  found_status := r.status;
  IF r.status = 'settled' THEN
    held := r.amount;
    RETURN;
  END IF;
  UPDATE sponsorship_budget
  SET used = used - (CASE WHEN r.status = 'reserved' THEN r.amount ELSE 0 END) + actual
  WHERE project_id = r.project_id AND environment = r.environment AND day = r.day;
  UPDATE sponsorship_budget_reservations SET status = 'settled', amount = actual, settled_at = now()
  WHERE operation_id = operation;
  held := actual;
END $$;

-- Takes a `reserved` operation's amount off its day (the operation will never be paid). Anything
-- else is left as it is. Answers the status found ('unknown' for an id never reserved) and what
-- the operation still holds.
CREATE FUNCTION "sponsorship_budget_release"(operation text, OUT found_status text, OUT held numeric)
LANGUAGE plpgsql AS $$
DECLARE
  r sponsorship_budget_reservations%ROWTYPE;
BEGIN
  SELECT * INTO r FROM sponsorship_budget_reservations WHERE operation_id = operation FOR UPDATE;
  IF NOT FOUND THEN
    found_status := 'unknown';
    RETURN;
  END IF;
  found_status := r.status;
  held := CASE WHEN r.status = 'settled' THEN r.amount ELSE 0 END;
  IF r.status <> 'reserved' THEN
    RETURN;
  END IF;
  UPDATE sponsorship_budget SET used = used - r.amount
  WHERE project_id = r.project_id AND environment = r.environment AND day = r.day;
  UPDATE sponsorship_budget_reservations SET status = 'released', settled_at = now() WHERE operation_id = operation;
END $$;
