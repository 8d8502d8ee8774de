import { apiFailure, type RouterInputs, type RouterOutputs } from '@/lib/trpc';

export type RequirementAt = RouterInputs['approvalConfigurations']['effective'];
export type Requirement = RouterOutputs['approvalConfigurations']['requirements']['requirements'][number];
export type Effective = RouterOutputs['approvalConfigurations']['effective'];
export type Configurable = Requirement['configurable'][number];

/** A refused save because open approval cases would change: their ids (resend with `force: true` to apply anyway). */
export function affectedCaseIds(error: unknown): string[] | null {
  const failure = apiFailure(error) as ReturnType<typeof apiFailure> & { affectedCaseIds?: unknown };
  if (failure.status !== 409 || failure.code !== 'APPROVAL_CASES_AFFECTED') return null;
  return Array.isArray(failure.affectedCaseIds) ? failure.affectedCaseIds.map(String) : [];
}

/** The problem with a typed value of a configurable key, or null when it is an integer within its bounds. */
export function valueProblem(typed: string, c: Configurable): string | null {
  if (!/^-?\d+$/.test(typed.trim())) return 'a whole number';
  const n = Number(typed.trim());
  return n < c.min || n > c.max ? `between ${c.min} and ${c.max}` : null;
}

/** One requirement per policy version and requirement id (a requirement may be carried by several rules). */
export function distinctRequirements(list: Requirement[]): Requirement[] {
  const seen = new Set<string>();
  return list.filter((r) => {
    const key = `${r.policyId}\u0000${r.policyVersion}\u0000${r.requirementId}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
