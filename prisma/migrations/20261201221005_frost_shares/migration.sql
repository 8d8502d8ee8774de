-- AlterTable
ALTER TABLE "key_shares" DROP CONSTRAINT "key_shares_pkey",
ADD COLUMN     "epoch" INTEGER NOT NULL DEFAULT 0,
ADD CONSTRAINT "key_shares_pkey" PRIMARY KEY ("wallet_id", "role", "epoch");

-- Enumerated values and ranges, enforced by the database (Prisma cannot express CHECK constraints;
-- its diff ignores them). Keep in step with ShareRole in packages/domain/src/custody/types.ts.
ALTER TABLE "key_shares" DROP CONSTRAINT "key_shares_role_check";
ALTER TABLE "key_shares" ADD CONSTRAINT "key_shares_role_check"
  CHECK ("role" IN ('user', 'service', 'frost-api', 'frost-signer', 'recovery-api', 'recovery-signer'));
ALTER TABLE "key_shares" ADD CONSTRAINT "key_shares_epoch_check" CHECK ("epoch" >= 0);
