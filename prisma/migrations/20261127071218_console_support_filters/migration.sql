-- CreateIndex
CREATE INDEX "transaction_records_project_id_status_created_at_id_idx" ON "transaction_records"("project_id", "status", "created_at" DESC, "id" DESC);
