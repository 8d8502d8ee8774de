-- CreateTable
CREATE TABLE "approval_configurations" (
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "scope_id" TEXT NOT NULL,
    "policy_id" TEXT NOT NULL,
    "policy_version" INTEGER NOT NULL,
    "requirement_id" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "values" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_type" TEXT NOT NULL,
    "updated_by_id" UUID,

    CONSTRAINT "approval_configurations_pkey" PRIMARY KEY ("project_id","environment","scope_id","policy_id","policy_version","requirement_id")
);

-- CreateTable
CREATE TABLE "approval_configuration_revisions" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "scope_id" TEXT NOT NULL,
    "policy_id" TEXT NOT NULL,
    "policy_version" INTEGER NOT NULL,
    "requirement_id" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "values" JSONB NOT NULL,
    "actor_type" TEXT NOT NULL,
    "actor_id" UUID,
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "approval_configuration_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "approval_configuration_revisions_project_id_environment_sco_key" ON "approval_configuration_revisions"("project_id", "environment", "scope_id", "policy_id", "policy_version", "requirement_id", "revision");

-- AddForeignKey
ALTER TABLE "approval_configurations" ADD CONSTRAINT "approval_configurations_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Enumerated values and forms, enforced by the database (Prisma's diff ignores CHECK constraints,
-- so `npm run db:check` stays in sync). Keep in step with packages/domain/src/approval-configurations/.
ALTER TABLE "approval_configurations" ADD CONSTRAINT "approval_configurations_environment_check"
  CHECK ("environment" IN ('development', 'production'));
ALTER TABLE "approval_configurations" ADD CONSTRAINT "approval_configurations_scope_id_check"
  CHECK ("scope_id" ~ '^[A-Za-z0-9._:-]{1,128}$');
ALTER TABLE "approval_configurations" ADD CONSTRAINT "approval_configurations_policy_version_check"
  CHECK ("policy_version" >= 1);
ALTER TABLE "approval_configurations" ADD CONSTRAINT "approval_configurations_revision_check"
  CHECK ("revision" >= 1);
ALTER TABLE "approval_configurations" ADD CONSTRAINT "approval_configurations_values_check"
  CHECK (jsonb_typeof("values") = 'object');
ALTER TABLE "approval_configurations" ADD CONSTRAINT "approval_configurations_updated_by_type_check"
  CHECK ("updated_by_type" IN ('api_key', 'staff', 'operator'));
ALTER TABLE "approval_configuration_revisions" ADD CONSTRAINT "approval_configuration_revisions_environment_check"
  CHECK ("environment" IN ('development', 'production'));
ALTER TABLE "approval_configuration_revisions" ADD CONSTRAINT "approval_configuration_revisions_revision_check"
  CHECK ("revision" >= 1);
ALTER TABLE "approval_configuration_revisions" ADD CONSTRAINT "approval_configuration_revisions_values_check"
  CHECK (jsonb_typeof("values") = 'object');
ALTER TABLE "approval_configuration_revisions" ADD CONSTRAINT "approval_configuration_revisions_actor_type_check"
  CHECK ("actor_type" IN ('api_key', 'staff', 'operator'));

-- Revisions are history: they are only ever inserted (the function comes with authorization_scopes).
CREATE TRIGGER "approval_configuration_revisions_append_only"
BEFORE UPDATE OR DELETE ON "approval_configuration_revisions"
FOR EACH ROW EXECUTE FUNCTION "authorization_scope_revisions_append_only"();
