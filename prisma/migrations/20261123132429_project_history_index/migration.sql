-- CreateIndex
CREATE INDEX "transaction_records_project_id_created_at_id_idx" ON "transaction_records"("project_id", "created_at" DESC, "id" DESC);
