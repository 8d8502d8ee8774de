-- CreateTable
CREATE TABLE "policies" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "policy_id" TEXT NOT NULL,
    "latest_version" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "policies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "policy_versions" (
    "policy_key" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "document" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "wallet_type" TEXT NOT NULL,
    "effective_from" TIMESTAMPTZ(3),
    "effective_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "created_by_type" TEXT NOT NULL,
    "created_by_id" UUID,
    "deactivated_at" TIMESTAMPTZ(3),
    "deactivated_by_type" TEXT,
    "deactivated_by_id" UUID,
    "replaced_by" INTEGER,

    CONSTRAINT "policy_versions_pkey" PRIMARY KEY ("policy_key","version")
);

-- CreateIndex
CREATE UNIQUE INDEX "policies_project_id_environment_policy_id_key" ON "policies"("project_id", "environment", "policy_id");

-- CreateIndex
CREATE UNIQUE INDEX "policy_versions_one_active" ON "policy_versions"("policy_key") WHERE (status = 'active');

-- AddForeignKey
ALTER TABLE "policies" ADD CONSTRAINT "policies_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_versions" ADD CONSTRAINT "policy_versions_policy_key_fkey" FOREIGN KEY ("policy_key") REFERENCES "policies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Enumerated values, enforced by the database (Prisma's diff ignores CHECK constraints, so
-- `npm run db:check` stays in sync). Keep these lists in step with packages/domain/src/policies/ports.ts.
ALTER TABLE "policies" ADD CONSTRAINT "policies_environment_check"
  CHECK ("environment" IN ('development', 'production'));
ALTER TABLE "policies" ADD CONSTRAINT "policies_latest_version_check"
  CHECK ("latest_version" >= 1);
ALTER TABLE "policy_versions" ADD CONSTRAINT "policy_versions_status_check"
  CHECK ("status" IN ('active', 'inactive'));
ALTER TABLE "policy_versions" ADD CONSTRAINT "policy_versions_wallet_type_check"
  CHECK ("wallet_type" IN ('EVM', 'COSMOS', 'SOLANA', 'STELLAR', 'SUI'));
ALTER TABLE "policy_versions" ADD CONSTRAINT "policy_versions_created_by_type_check"
  CHECK ("created_by_type" IN ('api_key', 'staff', 'operator'));
ALTER TABLE "policy_versions" ADD CONSTRAINT "policy_versions_deactivated_by_type_check"
  CHECK ("deactivated_by_type" IN ('api_key', 'staff', 'operator'));
-- An inactive version says when it stopped; an active one has not stopped.
ALTER TABLE "policy_versions" ADD CONSTRAINT "policy_versions_deactivated_check"
  CHECK (("status" = 'active') = ("deactivated_at" IS NULL));

-- Versions are history: deactivation and replacement are status changes, never deletes.
CREATE FUNCTION "policy_versions_no_delete"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'policy_versions are never deleted; deactivate the policy instead'
    USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER "policy_versions_no_delete"
BEFORE DELETE ON "policy_versions"
FOR EACH ROW EXECUTE FUNCTION "policy_versions_no_delete"();
