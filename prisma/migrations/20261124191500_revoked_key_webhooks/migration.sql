-- Keys revoked before revocation stopped their webhook endpoint: stop them the same way now
-- (endpoint disabled, pending deliveries failed and never sent).
UPDATE "webhook_deliveries" SET "status" = 'failed', "next_attempt_at" = NULL, "last_error" = 'API key revoked', "updated_at" = now()
WHERE "status" = 'pending' AND "endpoint_id" IN (
  SELECT w."id" FROM "webhook_endpoints" w JOIN "api_keys" k ON k."id" = w."api_key_id" WHERE k."revoked_at" IS NOT NULL);

UPDATE "webhook_endpoints" w SET "enabled" = false, "disabled_at" = k."revoked_at", "disabled_reason" = 'API key revoked',
  "lease_owner" = NULL, "lease_until" = NULL, "updated_at" = now()
FROM "api_keys" k
WHERE k."id" = w."api_key_id" AND k."revoked_at" IS NOT NULL AND (w."enabled" OR w."disabled_reason" IS DISTINCT FROM 'API key revoked');
