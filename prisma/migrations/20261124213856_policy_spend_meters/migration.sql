-- CreateTable
CREATE TABLE "policy_spend_meters" (
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "api_key_id" UUID NOT NULL,
    "wallet_id" UUID NOT NULL,
    "network" TEXT NOT NULL,
    "asset" TEXT NOT NULL,
    "window_ms" BIGINT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "spent" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "reserved" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "policy_spend_meters_pkey" PRIMARY KEY ("project_id","environment","api_key_id","wallet_id","network","asset","window_ms","window_start")
);

-- CreateTable
CREATE TABLE "policy_spend_reservations" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "charges" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settled_at" TIMESTAMPTZ(3),

    CONSTRAINT "policy_spend_reservations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "policy_spend_meters_window_start_idx" ON "policy_spend_meters"("window_start");

-- CreateIndex
CREATE INDEX "policy_spend_reservations_settled_at_idx" ON "policy_spend_reservations"("settled_at");

-- Enumerated values and invariants, enforced by the database (Prisma's diff ignores CHECK
-- constraints, so `npm run db:check` stays in sync). Keep these lists in step with the domain's.
ALTER TABLE "policy_spend_meters" ADD CONSTRAINT "policy_spend_meters_environment_check"
  CHECK ("environment" IN ('development', 'production'));
-- A release or commit never takes more than was reserved: a negative meter is a bug, refused here.
ALTER TABLE "policy_spend_meters" ADD CONSTRAINT "policy_spend_meters_amounts_check"
  CHECK ("spent" >= 0 AND "reserved" >= 0);
ALTER TABLE "policy_spend_meters" ADD CONSTRAINT "policy_spend_meters_window_ms_check"
  CHECK ("window_ms" > 0);
ALTER TABLE "policy_spend_reservations" ADD CONSTRAINT "policy_spend_reservations_environment_check"
  CHECK ("environment" IN ('development', 'production'));
ALTER TABLE "policy_spend_reservations" ADD CONSTRAINT "policy_spend_reservations_status_check"
  CHECK ("status" IN ('reserved', 'spent', 'released'));
-- A settled reservation says when it settled; a held one has not.
ALTER TABLE "policy_spend_reservations" ADD CONSTRAINT "policy_spend_reservations_settled_check"
  CHECK (("status" = 'reserved') = ("settled_at" IS NULL));
