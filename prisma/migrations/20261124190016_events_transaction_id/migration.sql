-- AlterTable
ALTER TABLE "events" ADD COLUMN     "transaction_id" UUID;

-- CreateIndex
CREATE INDEX "events_transaction_id_idx" ON "events"("transaction_id") WHERE (transaction_id IS NOT NULL);

-- Backfill: rest.transaction.* events name their record; send.* events carry the wallet and hash.
UPDATE "events" SET "transaction_id" = ("data"->>'transactionId')::uuid
WHERE "type" LIKE 'rest.transaction.%' AND "data"->>'transactionId' IS NOT NULL;

UPDATE "events" e SET "transaction_id" = (
  SELECT t."id" FROM "transaction_records" t
  WHERE t."project_id" = e."project_id" AND t."wallet_id"::text = e."data"->>'walletId' AND t."hash" = e."data"->>'txHash'
    AND t."created_at" <= e."created_at"
  ORDER BY t."created_at" DESC LIMIT 1)
WHERE e."type" LIKE 'send.%' AND e."transaction_id" IS NULL;
