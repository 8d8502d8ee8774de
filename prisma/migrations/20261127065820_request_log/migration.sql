-- CreateTable
CREATE TABLE "request_log" (
    "id" BIGSERIAL NOT NULL,
    "project_id" UUID,
    "request_id" UUID NOT NULL,
    "method" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "code" TEXT,
    "api_key_id" UUID,
    "wallet_id" UUID,
    "transaction_id" UUID,
    "latency_ms" DOUBLE PRECISION NOT NULL,
    "denied_by" JSONB,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "request_log_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "request_log_project_id_at_idx" ON "request_log"("project_id", "at" DESC);

-- CreateIndex
CREATE INDEX "request_log_request_id_idx" ON "request_log"("request_id");

-- CreateIndex
CREATE INDEX "request_log_wallet_at_idx" ON "request_log"("wallet_id", "at" DESC);

-- CreateIndex
CREATE INDEX "request_log_at_idx" ON "request_log"("at");
