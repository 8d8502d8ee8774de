-- AlterTable
ALTER TABLE "transaction_records" ADD COLUMN     "service_initiated" TEXT;
