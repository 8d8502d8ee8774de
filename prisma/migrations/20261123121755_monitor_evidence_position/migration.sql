-- AlterTable
ALTER TABLE "transaction_records" ADD COLUMN     "evidence_block" BIGINT;

-- CreateIndex
CREATE INDEX "transaction_records_evidence_block_idx" ON "transaction_records"("evidence_block");
