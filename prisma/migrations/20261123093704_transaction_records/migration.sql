-- CreateTable
CREATE TABLE "transaction_records" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "partner_id" UUID NOT NULL,
    "wallet_id" UUID NOT NULL,
    "wallet_type" TEXT NOT NULL,
    "intent_kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "chain_id" TEXT,
    "network" TEXT,
    "from_address" TEXT NOT NULL,
    "to" TEXT,
    "value" TEXT,
    "token_address" TEXT,
    "nonce" INTEGER,
    "hash" TEXT,
    "recent_blockhash" TEXT,
    "last_valid_block_height" BIGINT,
    "nonce_account" TEXT,
    "block_number" BIGINT,
    "block_hash" TEXT,
    "failure_stage" TEXT,
    "failure_code" TEXT,
    "failure_message" TEXT,
    "monitoring" JSONB,
    "cancellation_of" UUID,
    "request_id" TEXT,
    "api_key_id" UUID,
    "submitted_at" TIMESTAMPTZ(3),
    "resolved_at" TIMESTAMPTZ(3),
    "evidence_at" TIMESTAMPTZ(3),
    "next_check_at" TIMESTAMPTZ(3),
    "lease_owner" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "check_count" INTEGER NOT NULL DEFAULT 0,
    "consecutive_errors" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "transaction_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "nonce_counters" (
    "wallet_id" UUID NOT NULL,
    "chain_id" TEXT NOT NULL,
    "next_nonce" INTEGER NOT NULL,

    CONSTRAINT "nonce_counters_pkey" PRIMARY KEY ("wallet_id","chain_id")
);

-- CreateTable
CREATE TABLE "released_nonces" (
    "wallet_id" UUID NOT NULL,
    "chain_id" TEXT NOT NULL,
    "nonce" INTEGER NOT NULL,

    CONSTRAINT "released_nonces_pkey" PRIMARY KEY ("wallet_id","chain_id","nonce")
);

-- CreateIndex
CREATE INDEX "transaction_records_wallet_id_created_at_id_idx" ON "transaction_records"("wallet_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "transaction_records_next_check_at_idx" ON "transaction_records"("next_check_at");

-- CreateIndex
CREATE INDEX "transaction_records_project_id_hash_idx" ON "transaction_records"("project_id", "hash");

-- CreateIndex
CREATE INDEX "transaction_records_wallet_id_chain_id_nonce_idx" ON "transaction_records"("wallet_id", "chain_id", "nonce");
