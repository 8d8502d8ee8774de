-- CreateTable
CREATE TABLE "delegation_consents" (
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "wallet_id" UUID NOT NULL,
    "policy_id" TEXT NOT NULL,
    "policy_version" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "consented_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "delegation_consents_pkey" PRIMARY KEY ("project_id","environment","user_id","wallet_id","policy_id")
);

-- CreateTable
CREATE TABLE "user_parameter_sets" (
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "wallet_id" UUID NOT NULL,
    "policy_id" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "values" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "user_parameter_sets_pkey" PRIMARY KEY ("project_id","environment","user_id","wallet_id","policy_id")
);

-- CreateTable
CREATE TABLE "user_parameter_revisions" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "wallet_id" UUID NOT NULL,
    "policy_id" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "policy_version" INTEGER NOT NULL,
    "values" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "user_parameter_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "delegation_consents_user_id_idx" ON "delegation_consents"("user_id");

-- CreateIndex
CREATE INDEX "user_parameter_sets_user_id_idx" ON "user_parameter_sets"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "user_parameter_revisions_project_id_environment_user_id_wal_key" ON "user_parameter_revisions"("project_id", "environment", "user_id", "wallet_id", "policy_id", "revision");

-- Enumerated values, enforced by the database (Prisma's diff ignores CHECK constraints, so they
-- live only here).
ALTER TABLE "delegation_consents" ADD CONSTRAINT "delegation_consents_environment_check"
  CHECK ("environment" IN ('development', 'production'));
ALTER TABLE "delegation_consents" ADD CONSTRAINT "delegation_consents_status_check"
  CHECK ("status" IN ('standing', 'revoked') AND ("status" = 'revoked') = ("revoked_at" IS NOT NULL));
ALTER TABLE "user_parameter_sets" ADD CONSTRAINT "user_parameter_sets_environment_check"
  CHECK ("environment" IN ('development', 'production'));
ALTER TABLE "user_parameter_sets" ADD CONSTRAINT "user_parameter_sets_revision_check" CHECK ("revision" >= 1);
ALTER TABLE "user_parameter_revisions" ADD CONSTRAINT "user_parameter_revisions_environment_check"
  CHECK ("environment" IN ('development', 'production'));

-- Saved parameter revisions are history (the authorization scopes migration defines the function).
CREATE TRIGGER "user_parameter_revisions_append_only"
BEFORE UPDATE OR DELETE ON "user_parameter_revisions"
FOR EACH ROW EXECUTE FUNCTION "authorization_scope_revisions_append_only"();
