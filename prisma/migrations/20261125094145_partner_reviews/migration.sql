-- AlterTable
ALTER TABLE "approval_cases" ADD COLUMN     "partner_decided_at" TIMESTAMPTZ(3),
ADD COLUMN     "partner_decided_by_id" UUID,
ADD COLUMN     "partner_decided_by_type" TEXT,
ADD COLUMN     "partner_decision" TEXT,
ADD COLUMN     "partner_review" BOOLEAN NOT NULL DEFAULT false,
ALTER COLUMN "scope_id" DROP NOT NULL,
ALTER COLUMN "binding_revision" DROP NOT NULL;

-- CreateIndex
CREATE INDEX "approval_cases_partner_reviews_idx" ON "approval_cases"("project_id", "environment", "created_at" DESC, "id" DESC) WHERE (partner_review);

-- Partner reviews (a require_approval rule without approvalRequirement): the app's own decision,
-- made once. A case without user stages needs no scope binding; every other case still has one.
ALTER TABLE "approval_cases" ADD CONSTRAINT "approval_cases_partner_decision_check"
  CHECK ("partner_decision" IN ('approve', 'reject'));
ALTER TABLE "approval_cases" ADD CONSTRAINT "approval_cases_partner_decided_by_type_check"
  CHECK ("partner_decided_by_type" IN ('api_key', 'staff'));
ALTER TABLE "approval_cases" ADD CONSTRAINT "approval_cases_partner_decision_complete_check"
  CHECK (("partner_decision" IS NULL) = ("partner_decided_at" IS NULL)
     AND ("partner_decision" IS NULL) = ("partner_decided_by_type" IS NULL)
     AND ("partner_decision" IS NULL OR "partner_review"));
ALTER TABLE "approval_cases" ADD CONSTRAINT "approval_cases_scope_check"
  CHECK (("scope_id" IS NULL) = ("binding_revision" IS NULL) AND ("scope_id" IS NOT NULL OR "partner_review"));
