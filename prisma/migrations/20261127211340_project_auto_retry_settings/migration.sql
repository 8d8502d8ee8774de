-- CreateTable
CREATE TABLE "auto_retry_settings" (
    "project_id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "max_fee_per_gas" DECIMAL(78,0),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_type" TEXT NOT NULL,
    "updated_by_id" UUID,

    CONSTRAINT "auto_retry_settings_pkey" PRIMARY KEY ("project_id","environment")
);

-- AddForeignKey
ALTER TABLE "auto_retry_settings" ADD CONSTRAINT "auto_retry_settings_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- A ceiling is a positive amount of wei per gas (Prisma cannot express CHECK constraints).
ALTER TABLE "auto_retry_settings" ADD CONSTRAINT "auto_retry_settings_max_fee_per_gas_check" CHECK ("max_fee_per_gas" IS NULL OR "max_fee_per_gas" > 0);
