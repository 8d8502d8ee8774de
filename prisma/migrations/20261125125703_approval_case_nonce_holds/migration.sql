-- AlterTable
ALTER TABLE "approval_case_preparations" ADD COLUMN     "chain_id" INTEGER,
ADD COLUMN     "nonce" INTEGER,
ADD COLUMN     "nonce_released_at" TIMESTAMPTZ(3);

-- A held nonce always names its chain; only a held nonce can be released.
ALTER TABLE "approval_case_preparations" ADD CONSTRAINT "approval_case_preparations_nonce_chain"
  CHECK (("chain_id" IS NULL) = ("nonce" IS NULL) AND ("nonce_released_at" IS NULL OR "nonce" IS NOT NULL));
