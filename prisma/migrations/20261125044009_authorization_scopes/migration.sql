-- CreateTable
CREATE TABLE "authorization_scope_assignments" (
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "scope_id" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "revision" INTEGER NOT NULL,
    "assignments" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "authorization_scope_assignments_pkey" PRIMARY KEY ("project_id","environment","scope_id","user_id")
);

-- CreateTable
CREATE TABLE "authorization_scope_assignment_revisions" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "scope_id" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "revision" INTEGER NOT NULL,
    "assignments" JSONB NOT NULL,
    "actor_type" TEXT NOT NULL,
    "actor_id" UUID,
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "authorization_scope_assignment_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "wallet_authorization_scopes" (
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "wallet_id" UUID NOT NULL,
    "scope_id" TEXT,
    "revision" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "wallet_authorization_scopes_pkey" PRIMARY KEY ("project_id","environment","wallet_id")
);

-- CreateTable
CREATE TABLE "wallet_authorization_scope_revisions" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "wallet_id" UUID NOT NULL,
    "revision" INTEGER NOT NULL,
    "scope_id" TEXT,
    "actor_type" TEXT NOT NULL,
    "actor_id" UUID,
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "wallet_authorization_scope_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "permissions_extensions" (
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_type" TEXT NOT NULL,
    "updated_by_id" UUID,

    CONSTRAINT "permissions_extensions_pkey" PRIMARY KEY ("project_id","environment")
);

-- CreateIndex
CREATE INDEX "authorization_scope_assignments_user_id_idx" ON "authorization_scope_assignments"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "authorization_scope_assignment_revisions_project_id_environ_key" ON "authorization_scope_assignment_revisions"("project_id", "environment", "scope_id", "user_id", "revision");

-- CreateIndex
CREATE INDEX "wallet_authorization_scopes_wallet_id_idx" ON "wallet_authorization_scopes"("wallet_id");

-- CreateIndex
CREATE UNIQUE INDEX "wallet_authorization_scope_revisions_project_id_environment_key" ON "wallet_authorization_scope_revisions"("project_id", "environment", "wallet_id", "revision");

-- AddForeignKey
ALTER TABLE "authorization_scope_assignments" ADD CONSTRAINT "authorization_scope_assignments_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "authorization_scope_assignments" ADD CONSTRAINT "authorization_scope_assignments_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "wallet_authorization_scopes" ADD CONSTRAINT "wallet_authorization_scopes_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "wallet_authorization_scopes" ADD CONSTRAINT "wallet_authorization_scopes_wallet_id_fkey" FOREIGN KEY ("wallet_id") REFERENCES "wallets"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "permissions_extensions" ADD CONSTRAINT "permissions_extensions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Enumerated values and forms, enforced by the database (Prisma's diff ignores CHECK constraints,
-- so `npm run db:check` stays in sync). Keep in step with packages/domain/src/authorization-scopes/.
ALTER TABLE "authorization_scope_assignments" ADD CONSTRAINT "authorization_scope_assignments_environment_check"
  CHECK ("environment" IN ('development', 'production'));
ALTER TABLE "authorization_scope_assignments" ADD CONSTRAINT "authorization_scope_assignments_scope_id_check"
  CHECK ("scope_id" ~ '^[A-Za-z0-9._:-]{1,128}$');
ALTER TABLE "authorization_scope_assignments" ADD CONSTRAINT "authorization_scope_assignments_revision_check"
  CHECK ("revision" >= 1);
ALTER TABLE "authorization_scope_assignments" ADD CONSTRAINT "authorization_scope_assignments_assignments_check"
  CHECK (jsonb_typeof("assignments") = 'array');
ALTER TABLE "authorization_scope_assignment_revisions" ADD CONSTRAINT "authorization_scope_assignment_revisions_environment_check"
  CHECK ("environment" IN ('development', 'production'));
ALTER TABLE "authorization_scope_assignment_revisions" ADD CONSTRAINT "authorization_scope_assignment_revisions_revision_check"
  CHECK ("revision" >= 1);
ALTER TABLE "authorization_scope_assignment_revisions" ADD CONSTRAINT "authorization_scope_assignment_revisions_assignments_check"
  CHECK (jsonb_typeof("assignments") = 'array');
ALTER TABLE "authorization_scope_assignment_revisions" ADD CONSTRAINT "authorization_scope_assignment_revisions_actor_type_check"
  CHECK ("actor_type" IN ('api_key', 'staff', 'operator'));
ALTER TABLE "wallet_authorization_scopes" ADD CONSTRAINT "wallet_authorization_scopes_environment_check"
  CHECK ("environment" IN ('development', 'production'));
ALTER TABLE "wallet_authorization_scopes" ADD CONSTRAINT "wallet_authorization_scopes_scope_id_check"
  CHECK ("scope_id" ~ '^[A-Za-z0-9._:-]{1,128}$');
ALTER TABLE "wallet_authorization_scopes" ADD CONSTRAINT "wallet_authorization_scopes_revision_check"
  CHECK ("revision" >= 1);
ALTER TABLE "wallet_authorization_scope_revisions" ADD CONSTRAINT "wallet_authorization_scope_revisions_environment_check"
  CHECK ("environment" IN ('development', 'production'));
ALTER TABLE "wallet_authorization_scope_revisions" ADD CONSTRAINT "wallet_authorization_scope_revisions_revision_check"
  CHECK ("revision" >= 1);
ALTER TABLE "wallet_authorization_scope_revisions" ADD CONSTRAINT "wallet_authorization_scope_revisions_actor_type_check"
  CHECK ("actor_type" IN ('api_key', 'staff', 'operator'));
ALTER TABLE "permissions_extensions" ADD CONSTRAINT "permissions_extensions_environment_check"
  CHECK ("environment" IN ('development', 'production'));
ALTER TABLE "permissions_extensions" ADD CONSTRAINT "permissions_extensions_updated_by_type_check"
  CHECK ("updated_by_type" IN ('api_key', 'staff', 'operator'));

-- Revisions are history: they are only ever inserted.
CREATE FUNCTION "authorization_scope_revisions_append_only"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows are history: never updated or deleted', TG_TABLE_NAME
    USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER "authorization_scope_assignment_revisions_append_only"
BEFORE UPDATE OR DELETE ON "authorization_scope_assignment_revisions"
FOR EACH ROW EXECUTE FUNCTION "authorization_scope_revisions_append_only"();

CREATE TRIGGER "wallet_authorization_scope_revisions_append_only"
BEFORE UPDATE OR DELETE ON "wallet_authorization_scope_revisions"
FOR EACH ROW EXECUTE FUNCTION "authorization_scope_revisions_append_only"();
