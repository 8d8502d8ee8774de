-- CreateTable
CREATE TABLE "approval_cases" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "wallet_id" UUID NOT NULL,
    "api_key_id" UUID NOT NULL,
    "case_key" TEXT NOT NULL,
    "idempotency_key" TEXT,
    "request_hash" TEXT NOT NULL,
    "requirements" JSONB NOT NULL,
    "scope_id" TEXT NOT NULL,
    "binding_revision" INTEGER NOT NULL,
    "stages" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "terminal_reason" TEXT,
    "initiator_user_id" UUID,
    "request" JSONB NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),
    "consumed_at" TIMESTAMPTZ(3),
    "rejected_at" TIMESTAMPTZ(3),
    "expired_at" TIMESTAMPTZ(3),
    "invalidated_at" TIMESTAMPTZ(3),
    "cancelled_at" TIMESTAMPTZ(3),

    CONSTRAINT "approval_cases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "approval_case_decisions" (
    "case_id" UUID NOT NULL,
    "stage_id" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "decision" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "approval_case_decisions_pkey" PRIMARY KEY ("case_id","user_id")
);

-- CreateIndex
CREATE INDEX "approval_cases_project_id_environment_case_key_created_at_idx" ON "approval_cases"("project_id", "environment", "case_key", "created_at" DESC);

-- CreateIndex
CREATE INDEX "approval_cases_project_id_environment_created_at_id_idx" ON "approval_cases"("project_id", "environment", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "approval_cases_project_id_environment_scope_id_status_idx" ON "approval_cases"("project_id", "environment", "scope_id", "status");

-- CreateIndex
CREATE INDEX "approval_cases_wallet_id_status_idx" ON "approval_cases"("wallet_id", "status");

-- At most one open (pending or completed) case per key: concurrent first requests open one case.
CREATE UNIQUE INDEX "approval_cases_one_open" ON "approval_cases"("project_id", "environment", "case_key") WHERE (status = ANY (ARRAY['pending'::text, 'completed'::text]));

-- AddForeignKey
ALTER TABLE "approval_case_decisions" ADD CONSTRAINT "approval_case_decisions_case_id_fkey" FOREIGN KEY ("case_id") REFERENCES "approval_cases"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Enumerated values, enforced by the database (Prisma cannot express CHECK constraints).
ALTER TABLE "approval_cases" ADD CONSTRAINT "approval_cases_status_check"
  CHECK ("status" IN ('pending', 'completed', 'consumed', 'rejected', 'expired', 'invalidated', 'cancelled'));
ALTER TABLE "approval_cases" ADD CONSTRAINT "approval_cases_environment_check"
  CHECK ("environment" IN ('development', 'production'));
ALTER TABLE "approval_case_decisions" ADD CONSTRAINT "approval_case_decisions_decision_check"
  CHECK ("decision" IN ('approve', 'reject'));

-- Decisions are immutable: one per person per case, never updated or deleted.
CREATE TRIGGER "approval_case_decisions_append_only"
BEFORE UPDATE OR DELETE ON "approval_case_decisions"
FOR EACH ROW EXECUTE FUNCTION "authorization_scope_revisions_append_only"();
