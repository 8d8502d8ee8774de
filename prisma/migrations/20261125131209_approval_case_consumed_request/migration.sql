-- AlterTable
ALTER TABLE "approval_cases" ADD COLUMN     "consumed_request_id" TEXT;

-- CreateIndex
CREATE INDEX "approval_cases_wallet_id_consumed_request_id_idx" ON "approval_cases"("wallet_id", "consumed_request_id");
