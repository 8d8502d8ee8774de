-- AlterTable
ALTER TABLE "transaction_records" ADD COLUMN     "calls" JSONB;

-- Enumerated values, enforced by the database (Prisma cannot express CHECK constraints; its diff
-- ignores them). Keep in step with IntentKind in packages/domain/src/transactions/records.ts.
ALTER TABLE "transaction_records" DROP CONSTRAINT "transaction_records_intent_kind_check";
ALTER TABLE "transaction_records" ADD CONSTRAINT "transaction_records_intent_kind_check"
  CHECK ("intent_kind" IN ('transfer', 'sign_transaction', 'yield', 'calls'));
