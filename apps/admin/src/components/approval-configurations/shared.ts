import { apiFailure, type RouterInputs, type RouterOutputs } from '@/lib/trpc';

export type RequirementAt = RouterInputs['approvalConfigurations']['effective'];
export type Requirement = RouterOutputs['approvalConfigurations']['requirements']['requirements'][number];
export type Effective = RouterOutputs['approvalConfigurations']['effective'];

/** A refused save because open approval cases would change: their ids (resend with `force: true` to apply anyway). */
export function affectedCaseIds(error: unknown): string[] | null {
  const failure = apiFailure(error) as ReturnType<typeof apiFailure> & { affectedCaseIds?: unknown };
  if (failure.status !== 409 || failure.code !== 'APPROVAL_CASES_AFFECTED') return null;
  return Array.isArray(failure.affectedCaseIds) ? failure.affectedCaseIds.map(String) : [];
}
