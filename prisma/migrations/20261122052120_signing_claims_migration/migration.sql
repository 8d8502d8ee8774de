-- AlterTable
ALTER TABLE "wallets" ADD COLUMN     "claimed_at" TIMESTAMPTZ(3),
ADD COLUMN     "claimed_by_user_id" UUID,
ADD COLUMN     "custody" TEXT NOT NULL DEFAULT 'api_key',
ADD COLUMN     "migrated_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "identifier" TEXT NOT NULL,
    "identifier_type" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "events" (
    "id" TEXT NOT NULL,
    "project_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "enclave_keys" (
    "id" TEXT NOT NULL,
    "public_key_pem" TEXT NOT NULL,
    "kek_id" TEXT NOT NULL,
    "iv" BYTEA NOT NULL,
    "encrypted_private_key" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "enclave_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_project_id_identifier_type_identifier_key" ON "users"("project_id", "identifier_type", "identifier");

-- CreateIndex
CREATE INDEX "events_project_id_created_at_idx" ON "events"("project_id", "created_at");

-- AddForeignKey
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_claimed_by_user_id_fkey" FOREIGN KEY ("claimed_by_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
