-- CreateTable
CREATE TABLE "yield_operations" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "partner_id" UUID NOT NULL,
    "wallet_id" UUID NOT NULL,
    "api_key_id" UUID,
    "environment" TEXT NOT NULL,
    "request_id" TEXT,
    "idempotency_key" TEXT NOT NULL,
    "chain_id" INTEGER NOT NULL,
    "market_id" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "amount" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "error_code" TEXT,
    "error_message" TEXT,
    "review_id" TEXT,
    "plan" JSONB NOT NULL DEFAULT '{}',
    "next_run_at" TIMESTAMPTZ(3),
    "lease_owner" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "consecutive_errors" INTEGER NOT NULL DEFAULT 0,
    "resolved_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "yield_operations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "yield_operation_steps" (
    "operation_id" UUID NOT NULL,
    "phase" TEXT NOT NULL,
    "transaction_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "yield_operation_steps_pkey" PRIMARY KEY ("operation_id","phase")
);

-- CreateIndex
CREATE INDEX "yield_operations_wallet_id_chain_id_created_at_idx" ON "yield_operations"("wallet_id", "chain_id", "created_at");

-- CreateIndex
CREATE INDEX "yield_operations_project_id_created_at_id_idx" ON "yield_operations"("project_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "yield_operations_next_run_at_idx" ON "yield_operations"("next_run_at");

-- CreateIndex
CREATE UNIQUE INDEX "yield_operations_partner_id_idempotency_key_key" ON "yield_operations"("partner_id", "idempotency_key");

-- CreateIndex
CREATE UNIQUE INDEX "yield_operation_steps_transaction_id_key" ON "yield_operation_steps"("transaction_id");

-- AddForeignKey
ALTER TABLE "yield_operation_steps" ADD CONSTRAINT "yield_operation_steps_operation_id_fkey" FOREIGN KEY ("operation_id") REFERENCES "yield_operations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Enumerated values, enforced by the database (Prisma cannot express CHECK constraints).
ALTER TABLE "yield_operations" ADD CONSTRAINT "yield_operations_status_check"
  CHECK ("status" IN ('pending', 'submitted', 'confirmed', 'failed', 'requires_action', 'cancelled'));
ALTER TABLE "yield_operations" ADD CONSTRAINT "yield_operations_environment_check" CHECK ("environment" IN ('development', 'production'));
ALTER TABLE "yield_operations" ADD CONSTRAINT "yield_operations_action_check" CHECK ("action" IN ('deposit', 'withdraw'));
ALTER TABLE "yield_operations" ADD CONSTRAINT "yield_operations_source_check" CHECK ("source" IN ('poolprov-v3', 'vaultprov-v2'));
ALTER TABLE "yield_operation_steps" ADD CONSTRAINT "yield_operation_steps_phase_check" CHECK ("phase" IN ('approval', 'action'));
