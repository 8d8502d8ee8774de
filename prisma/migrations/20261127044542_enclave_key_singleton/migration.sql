-- AlterTable
-- Added without its default first: a database that concurrent first requests gave several keys
-- keeps them, and only the oldest (the one the service has been reading) becomes current.
ALTER TABLE "enclave_keys" ADD COLUMN     "is_current" BOOLEAN;
UPDATE "enclave_keys" SET "is_current" = true
WHERE "id" = (SELECT "id" FROM "enclave_keys" ORDER BY "created_at", "id" LIMIT 1);
ALTER TABLE "enclave_keys" ALTER COLUMN "is_current" SET DEFAULT true;

-- CreateIndex
CREATE UNIQUE INDEX "enclave_keys_is_current_key" ON "enclave_keys"("is_current");
