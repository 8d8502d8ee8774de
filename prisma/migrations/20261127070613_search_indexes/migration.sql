-- The console search box's lookups (packages/db/src/repositories/search.ts). Expression indexes:
-- schema.prisma cannot declare them, and the schema diff leaves them alone.

-- Wallet addresses of every chain, case-insensitively (EVM checksummed, Sui hex, bech32, Stellar).
CREATE INDEX "wallets_lower_address_idx" ON "wallets" (lower("address"));

-- User identifier prefixes (`ali` finds `Alice@example.com`), per project, in byte order (COLLATE "C"):
-- the lookup reads the index in order from the prefix and stops after a few entries, which the
-- planner does for a bound parameter too (a LIKE pattern parameter is only a filter in a generic plan).
CREATE INDEX "wallets_user_identifier_prefix_idx" ON "wallets" ("project_id", (lower("user_identifier") COLLATE "C"));
CREATE INDEX "users_identifier_prefix_idx" ON "users" ("project_id", (lower("identifier") COLLATE "C"));
