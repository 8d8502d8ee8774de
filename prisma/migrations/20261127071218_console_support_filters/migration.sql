-- CreateIndex
CREATE INDEX "transaction_records_project_id_status_created_at_id_idx" ON "transaction_records"("project_id", "status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "wallets_project_id_user_identifier_idx" ON "wallets"("project_id", "user_identifier");
