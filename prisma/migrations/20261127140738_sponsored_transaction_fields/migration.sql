-- AlterTable
ALTER TABLE "transaction_records" ADD COLUMN     "actual_gas_cost" TEXT,
ADD COLUMN     "execution_mode" TEXT NOT NULL DEFAULT 'legacy',
ADD COLUMN     "review_id" TEXT,
ADD COLUMN     "stage" TEXT,
ADD COLUMN     "user_operation" TEXT,
ADD COLUMN     "user_operation_hash" TEXT;

-- CreateIndex
CREATE INDEX "transaction_records_user_operation_hash_idx" ON "transaction_records"("user_operation_hash");

-- Enumerated values, enforced by the database (Prisma cannot express CHECK constraints).
ALTER TABLE "transaction_records" ADD CONSTRAINT "transaction_records_execution_mode_check"
  CHECK ("execution_mode" IN ('legacy', 'sponsored'));
-- Only sponsored records carry the operation's fields.
ALTER TABLE "transaction_records" ADD CONSTRAINT "transaction_records_sponsored_fields_check"
  CHECK ("execution_mode" = 'sponsored' OR ("stage" IS NULL AND "review_id" IS NULL AND "user_operation_hash" IS NULL AND "actual_gas_cost" IS NULL AND "user_operation" IS NULL));
ALTER TABLE "transaction_records" ADD CONSTRAINT "transaction_records_stage_check"
  CHECK ("stage" IN ('accepted', 'requires_action', 'signed', 'submitted', 'submission_unknown', 'included', 'delivery_unverified'));
