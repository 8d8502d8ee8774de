-- AlterTable
ALTER TABLE "transaction_attempts" ADD COLUMN     "last_valid_block_height" BIGINT,
ADD COLUMN     "recent_blockhash" TEXT,
ALTER COLUMN "max_fee_per_gas" DROP NOT NULL,
ALTER COLUMN "max_priority_fee_per_gas" DROP NOT NULL;

-- Invariants, enforced by the database (Prisma cannot express CHECK constraints): an EVM attempt
-- (fee replacement) carries both fees and no blockhash; a Solana attempt (rebuild) carries its
-- blockhash and last valid block height and no fees.
ALTER TABLE "transaction_attempts" ADD CONSTRAINT "transaction_attempts_kind_check" CHECK (
  ("max_fee_per_gas" IS NOT NULL AND "max_priority_fee_per_gas" IS NOT NULL AND "recent_blockhash" IS NULL AND "last_valid_block_height" IS NULL)
  OR ("recent_blockhash" IS NOT NULL AND "last_valid_block_height" IS NOT NULL AND "max_fee_per_gas" IS NULL AND "max_priority_fee_per_gas" IS NULL)
);
-- A Solana transfer with managed retry has no fee ceiling (its attempts are rebuilt, not repriced).
ALTER TABLE "transaction_records" DROP CONSTRAINT "transaction_records_auto_retry_ceiling_check";
ALTER TABLE "transaction_records" ADD CONSTRAINT "transaction_records_auto_retry_ceiling_check"
  CHECK ("auto_retry" IS NOT TRUE OR "auto_retry_max_fee_per_gas" IS NOT NULL OR "wallet_type" = 'SOLANA');
