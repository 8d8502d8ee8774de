-- AlterTable
ALTER TABLE "request_log" ADD COLUMN     "case_id" UUID;
