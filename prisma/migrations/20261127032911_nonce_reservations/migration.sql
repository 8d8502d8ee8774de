-- CreateTable
CREATE TABLE "nonce_reservations" (
    "wallet_id" UUID NOT NULL,
    "chain_id" TEXT NOT NULL,
    "nonce" INTEGER NOT NULL,
    "reservation_id" UUID,
    "expires_at" TIMESTAMPTZ(3),

    CONSTRAINT "nonce_reservations_pkey" PRIMARY KEY ("wallet_id","chain_id","nonce")
);

-- Released nonces stay free to take.
INSERT INTO "nonce_reservations" ("wallet_id", "chain_id", "nonce") SELECT "wallet_id", "chain_id", "nonce" FROM "released_nonces";

-- DropTable
DROP TABLE "released_nonces";
