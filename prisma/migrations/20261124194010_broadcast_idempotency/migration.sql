-- AlterTable
ALTER TABLE "transaction_records" ADD COLUMN     "idempotency_key" TEXT,
ADD COLUMN     "signed_transaction" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "transaction_records_project_id_idempotency_key_key" ON "transaction_records"("project_id", "idempotency_key");
