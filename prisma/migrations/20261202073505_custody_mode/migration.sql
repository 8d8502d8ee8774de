-- AlterTable
ALTER TABLE "wallets" ADD COLUMN     "custody_mode" TEXT NOT NULL DEFAULT 'isolated';

-- CreateTable
CREATE TABLE "custody_settings" (
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "secp256k1_mode" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "custody_settings_pkey" PRIMARY KEY ("project_id","environment")
);

-- AddForeignKey
ALTER TABLE "custody_settings" ADD CONSTRAINT "custody_settings_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Enumerated values, enforced by the database (Prisma cannot express CHECK constraints; its diff
-- ignores them). Keep in step with ShareRole and CustodyMode in packages/domain/src/custody/types.ts.
ALTER TABLE "key_shares" DROP CONSTRAINT "key_shares_role_check";
ALTER TABLE "key_shares" ADD CONSTRAINT "key_shares_role_check"
  CHECK ("role" IN ('user', 'service', 'frost-api', 'frost-signer', 'recovery-api', 'recovery-signer', 'dkls-api', 'dkls-signer'));
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_custody_mode_check" CHECK ("custody_mode" IN ('isolated', 'threshold'));
ALTER TABLE "custody_settings" ADD CONSTRAINT "custody_settings_secp256k1_mode_check" CHECK ("secp256k1_mode" IN ('isolated', 'threshold'));

-- Ed25519 wallets already split into FROST shares never hold a whole key.
UPDATE "wallets" SET "custody_mode" = 'threshold'
  WHERE "scheme" = 'ED25519' AND EXISTS (SELECT 1 FROM "key_shares" s WHERE s."wallet_id" = "wallets"."id" AND s."role" = 'frost-api');
