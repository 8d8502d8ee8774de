-- CreateTable
CREATE TABLE "approval_case_preparations" (
    "case_id" UUID NOT NULL,
    "prepared" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "approval_case_preparations_pkey" PRIMARY KEY ("case_id")
);

-- AddForeignKey
ALTER TABLE "approval_case_preparations" ADD CONSTRAINT "approval_case_preparations_case_id_fkey"
  FOREIGN KEY ("case_id") REFERENCES "approval_cases"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
