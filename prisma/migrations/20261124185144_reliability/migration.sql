-- AlterTable
ALTER TABLE "idempotency_records" ADD COLUMN     "lease_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "lease_owner" TEXT;

-- CreateTable
CREATE TABLE "worker_leases" (
    "name" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "lease_until" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "worker_leases_pkey" PRIMARY KEY ("name")
);

-- Enumerated values, enforced by the database (Prisma cannot express CHECK constraints; its diff
-- ignores them, so `npm run db:check` stays in sync). Keep these lists in step with the domain's.
ALTER TABLE "idempotency_records" ADD CONSTRAINT "idempotency_records_state_check"
  CHECK ("state" IN ('running', 'done'));

ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_environment_check"
  CHECK ("environment" IN ('development', 'production'));
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_plan_check"
  CHECK ("plan" IN ('free', 'starter', 'growth', 'scale'));

ALTER TABLE "wallets" ADD CONSTRAINT "wallets_type_check"
  CHECK ("type" IN ('EVM', 'COSMOS', 'SOLANA', 'STELLAR', 'SUI'));
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_scheme_check"
  CHECK ("scheme" IN ('DKLS', 'ED25519'));
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_status_check"
  CHECK ("status" IN ('creating', 'ready'));
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_user_identifier_type_check"
  CHECK ("user_identifier_type" IN ('EMAIL', 'PHONE', 'CUSTOM_ID', 'GUEST_ID', 'DISCORD', 'TWITTER', 'TELEGRAM', 'FARCASTER'));
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_custody_check"
  CHECK ("custody" IN ('api_key', 'client'));

ALTER TABLE "key_shares" ADD CONSTRAINT "key_shares_role_check"
  CHECK ("role" IN ('user', 'service'));

ALTER TABLE "users" ADD CONSTRAINT "users_identifier_type_check"
  CHECK ("identifier_type" IN ('EMAIL', 'PHONE', 'CUSTOM_ID', 'GUEST_ID', 'DISCORD', 'TWITTER', 'TELEGRAM', 'FARCASTER'));

ALTER TABLE "transaction_records" ADD CONSTRAINT "transaction_records_status_check"
  CHECK ("status" IN ('pending', 'submitted', 'confirmed', 'reverted', 'failed'));
ALTER TABLE "transaction_records" ADD CONSTRAINT "transaction_records_intent_kind_check"
  CHECK ("intent_kind" IN ('transfer', 'sign_transaction', 'yield'));
ALTER TABLE "transaction_records" ADD CONSTRAINT "transaction_records_wallet_type_check"
  CHECK ("wallet_type" IN ('EVM', 'COSMOS', 'SOLANA', 'STELLAR', 'SUI'));
ALTER TABLE "transaction_records" ADD CONSTRAINT "transaction_records_failure_stage_check"
  CHECK ("failure_stage" IN ('mpc_sign', 'signature_apply', 'signer_verify', 'broadcast', 'monitor_timeout'));

ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_status_check"
  CHECK ("status" IN ('pending', 'delivered', 'failed'));

ALTER TABLE "staff_accounts" ADD CONSTRAINT "staff_accounts_role_check"
  CHECK ("role" IN ('owner', 'developer', 'support'));
