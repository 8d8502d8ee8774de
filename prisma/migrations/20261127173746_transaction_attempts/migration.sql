-- AlterTable
ALTER TABLE "transaction_records" ADD COLUMN     "auto_retry" BOOLEAN,
ADD COLUMN     "auto_retry_max_fee_per_gas" TEXT,
ADD COLUMN     "auto_retry_reason" TEXT;

-- CreateTable
CREATE TABLE "transaction_attempts" (
    "id" UUID NOT NULL,
    "record_id" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,
    "signed_transaction" TEXT NOT NULL,
    "max_fee_per_gas" TEXT NOT NULL,
    "max_priority_fee_per_gas" TEXT NOT NULL,
    "sent_block" BIGINT NOT NULL,
    "sent_at" TIMESTAMPTZ(3) NOT NULL,
    "outcome" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transaction_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "transaction_attempts_record_id_hash_key" ON "transaction_attempts"("record_id", "hash");

-- CreateIndex
CREATE UNIQUE INDEX "transaction_attempts_record_id_number_key" ON "transaction_attempts"("record_id", "number");

-- AddForeignKey
ALTER TABLE "transaction_attempts" ADD CONSTRAINT "transaction_attempts_record_id_fkey" FOREIGN KEY ("record_id") REFERENCES "transaction_records"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Enumerated values and invariants, enforced by the database (Prisma cannot express CHECK constraints).
ALTER TABLE "transaction_attempts" ADD CONSTRAINT "transaction_attempts_outcome_check"
  CHECK ("outcome" IN ('unknown', 'pending', 'included', 'lost'));
ALTER TABLE "transaction_attempts" ADD CONSTRAINT "transaction_attempts_number_check" CHECK ("number" >= 2);
ALTER TABLE "transaction_records" ADD CONSTRAINT "transaction_records_auto_retry_ceiling_check"
  CHECK ("auto_retry" IS NOT TRUE OR "auto_retry_max_fee_per_gas" IS NOT NULL);
